#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A wrong-password flood for tests/live/exporter_web.sh (127.0.0.1 only).

  exporter_flood.py PORT USER GOOD WRONG CLIENTS SECONDS

Scrapes /metrics once as USER:GOOD (the exporter then remembers GOOD), then
for SECONDS keeps CLIENTS keep-alive connections sending USER:WRONG as fast
as they are answered, while one scraper sends USER:GOOD every 0.25 s, each
on a new connection with a 5 s timeout. Prints one JSON line:

  {"first": STATUS, "flood": {"401": N, "503": N, ...}, "flood_errors": N,
   "retry_after": ["1", ...] (the distinct Retry-After values of the 503s),
   "good": [[STATUS or "error: ...", SECONDS], ...]}
"""
import base64
import http.client
import json
import sys
import threading
import time

HOST = "127.0.0.1"


def auth(user, password):
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def scrape(port, headers, timeout=5.0):
    """One GET /metrics on a new connection: (status or 'error: ...', seconds)."""
    t0 = time.monotonic()
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        c.request("GET", "/metrics", headers=headers)
        r = c.getresponse()
        r.read()
        return r.status, round(time.monotonic() - t0, 3)
    except (OSError, http.client.HTTPException) as e:
        return f"error: {e}", round(time.monotonic() - t0, 3)
    finally:
        c.close()


def flooder(port, headers, until, counts, retry_after, lock):
    c = None
    while time.monotonic() < until:
        try:
            if c is None:
                c = http.client.HTTPConnection(HOST, port, timeout=5.0)
            c.request("GET", "/metrics", headers=headers)
            r = c.getresponse()
            r.read()
            with lock:
                counts[str(r.status)] = counts.get(str(r.status), 0) + 1
                if r.status == 503:
                    retry_after.add(str(r.getheader("Retry-After")))
            if r.will_close:
                c.close()
                c = None
        except (OSError, http.client.HTTPException):
            with lock:
                counts["errors"] = counts.get("errors", 0) + 1
            if c is not None:
                c.close()
            c = None
            time.sleep(0.05)
    if c is not None:
        c.close()


def main():
    port, user, good, wrong = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    clients, seconds = int(sys.argv[5]), float(sys.argv[6])
    first, _ = scrape(port, auth(user, good), timeout=10.0)
    counts, retry_after, lock = {}, set(), threading.Lock()
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=flooder, args=(port, auth(user, wrong), until, counts, retry_after, lock)
        )
        for _ in range(clients)
    ]
    for t in threads:
        t.start()
    time.sleep(0.5)  # the flood under way
    good_results = []
    while time.monotonic() < until - 0.25:
        good_results.append(list(scrape(port, auth(user, good))))
        time.sleep(0.25)
    for t in threads:
        t.join()
    errors = counts.pop("errors", 0)
    print(
        json.dumps(
            {
                "first": first,
                "flood": counts,
                "flood_errors": errors,
                "retry_after": sorted(retry_after),
                "good": good_results,
            }
        )
    )


if __name__ == "__main__":
    main()
