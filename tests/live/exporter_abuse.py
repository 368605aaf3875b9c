#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Abusive HTTP clients for tests/live/exporter_abuse.sh (127.0.0.1 only).

  exporter_abuse.py hold PORT N_IDLE N_SLOW SECONDS
      Holds N_IDLE connections that send nothing and N_SLOW that send one
      byte of an endless request header per second, for SECONDS. A slot the
      server closes is reopened at most once per second (a persistent
      attacker). Prints "holding" once the first round is open, then one JSON
      line of counts at the end.

  exporter_abuse.py deadline PORT CASE
      One timed client; prints one JSON line. CASE is
        in-time     the request in 4 pieces over 2 s: expects a 200
        too-slow    one byte every 0.5 s: when does the server close it?
        keepalive   a full request, 1.5 s idle, then one byte every 0.5 s:
                    when does the server close it, counted from that first byte?
        reuse       two requests on one connection: both answered?
"""
import json
import select
import socket
import sys
import time

HOST = "127.0.0.1"
REQ = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: abuse\r\n\r\n"
# never finished: a header line that goes on forever
SLOW_PREFIX = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def connect(timeout=1.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect((HOST, PORT))
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s


def peer_closed(s):
    """True when the server closed or reset S (poll says readable/hung up and recv says so)."""
    try:
        s.recv(4096)
    except BlockingIOError:
        return False
    except OSError:
        return True
    # EOF, or a reply to an unfinished request (an error): the connection is over either way
    return True


def hold(n_idle, n_slow, seconds):
    now = time.monotonic()
    slots = [{"kind": "idle"} for _ in range(n_idle)] + [{"kind": "slow"} for _ in range(n_slow)]
    st = {"connects": 0, "connect_failures": 0, "closed_idle": 0, "closed_slow": 0,
          "max_life_idle": 0.0, "max_life_slow": 0.0, "open_at_end_idle": 0,
          "open_at_end_slow": 0, "oldest_open_idle": 0.0, "oldest_open_slow": 0.0,
          "slow_bytes": 0}

    def open_slot(sl, t):
        sl["last_try"] = t
        s = connect()
        if s is None:
            st["connect_failures"] += 1
            sl["sock"] = None
            return
        st["connects"] += 1
        sl["sock"] = s
        sl["opened"] = time.monotonic()
        sl["sent"] = 0

    def closed(sl, t):
        life = t - sl["opened"]
        k = sl["kind"]
        st["closed_" + k] += 1
        st["max_life_" + k] = max(st["max_life_" + k], life)
        try:
            sl["sock"].close()
        except OSError:
            pass
        sl["sock"] = None

    for sl in slots:
        open_slot(sl, now)
    print("holding", flush=True)
    end = now + seconds
    next_byte = time.monotonic() + 1.0
    while True:
        t = time.monotonic()
        if t >= end:
            break
        # who did the server close?
        poller = select.poll()
        fds = {}
        for sl in slots:
            if sl.get("sock") is not None:
                poller.register(sl["sock"].fileno(), select.POLLIN)
                fds[sl["sock"].fileno()] = sl
        for fd, _ in poller.poll(100):
            sl = fds[fd]
            if peer_closed(sl["sock"]):
                closed(sl, time.monotonic())
        t = time.monotonic()
        if t >= next_byte:
            next_byte += 1.0
            for sl in slots:
                if sl["kind"] != "slow" or sl.get("sock") is None:
                    continue
                b = SLOW_PREFIX[sl["sent"]:sl["sent"] + 1] or b"a"
                try:
                    sl["sock"].send(b)
                    sl["sent"] += 1
                    st["slow_bytes"] += 1
                except OSError:
                    closed(sl, t)
        # reopen, each slot at most once a second
        for sl in slots:
            if sl.get("sock") is None and t - sl.get("last_try", 0) >= 1.0:
                open_slot(sl, t)
    t = time.monotonic()
    for sl in slots:
        if sl.get("sock") is not None:
            k = sl["kind"]
            st["open_at_end_" + k] += 1
            st["oldest_open_" + k] = max(st["oldest_open_" + k], t - sl["opened"])
            sl["sock"].close()
    for k in list(st):
        if isinstance(st[k], float):
            st[k] = round(st[k], 3)
    print(json.dumps(st), flush=True)


def read_response(s, deadline):
    """One HTTP response from blocking S: (status, body bytes); (None, b'') on EOF first."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        d = s.recv(65536)
        if not d:
            return None, b""
        buf += d
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    n = 0
    for ln in lines[1:]:
        k, _, v = ln.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v.strip())
    while len(body) < n:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        d = s.recv(65536)
        if not d:
            break
        body += d
    return status, body


def wait_closed(s, step, start, limit):
    """Send one byte of an endless header every STEP s until the server closes S; seconds since START."""
    msg = SLOW_PREFIX
    i = 0
    while time.monotonic() - start < limit:
        try:
            s.send(msg[i:i + 1] or b"a")
            i += 1
        except OSError:
            return time.monotonic() - start
        r, _, _ = select.select([s], [], [], step)
        if r:
            try:
                d = s.recv(4096)
            except OSError:
                return time.monotonic() - start
            if not d:
                return time.monotonic() - start
    return None


def deadline(case):
    s = socket.create_connection((HOST, PORT), timeout=5)
    t0 = time.monotonic()
    out = {"case": case}
    if case == "in-time":
        pieces = [REQ[:10], REQ[10:25], REQ[25:40], REQ[40:]]
        for i, p in enumerate(pieces):
            if i:
                time.sleep(0.66)
            s.sendall(p)
        status, body = read_response(s, time.monotonic() + 5)
        out.update(status=status, body_bytes=len(body), seconds=round(time.monotonic() - t0, 3))
    elif case == "too-slow":
        out["closed_after"] = wait_closed(s, 0.5, t0, 10)
    elif case == "keepalive":
        s.sendall(REQ)
        status, body = read_response(s, time.monotonic() + 5)
        out.update(status=status, body_bytes=len(body))
        time.sleep(1.5)
        t1 = time.monotonic()
        out["closed_after_first_byte"] = wait_closed(s, 0.5, t1, 10)
    elif case == "reuse":
        got = []
        for _ in range(2):
            s.sendall(REQ)
            status, body = read_response(s, time.monotonic() + 5)
            got.append([status, len(body)])
        out["responses"] = got
    s.close()
    for k, v in out.items():
        if isinstance(v, float):
            out[k] = round(v, 3)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    PORT = int(sys.argv[2])
    if sys.argv[1] == "hold":
        hold(int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        deadline(sys.argv[3])
