#!/usr/bin/env python3
"""Checks of contrib/grafana/thpctl-dashboard.json for tests/live/grafana.sh.

  grafana_check.py structure DASHBOARD
      the JSON's shape: schemaVersion >= 39, the datasource and instance
      variables, every panel with a datasource of ${datasource}, targets with
      an expr, a unique id and a gridPos.
  grafana_check.py queries DASHBOARD PROM_URL INSTANCE_REGEX
      every panel query with $instance -> INSTANCE_REGEX, $__rate_interval ->
      1m (and $__interval, $__range), evaluated by Prometheus (/api/v1/query):
      it must succeed and return at least one series.

Prints tests/lib.sh result lines ("ok - ...", "not ok - ...: why").
"""
import json
import re
import sys
import urllib.parse
import urllib.request


def panels_of(d):
    for p in d.get("panels", []):
        yield p
        for q in p.get("panels", []):  # a collapsed row keeps its panels inside
            yield q


def result(ok, name, why=""):
    print(f"ok - {name}" if ok else f"not ok - {name}: {why}")


def structure(path):
    d = json.load(open(path))
    result(d.get("schemaVersion", 0) >= 39, "dashboard schemaVersion >= 39",
           f"schemaVersion {d.get('schemaVersion')}")
    vs = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    ds = vs.get("datasource", {})
    result(ds.get("type") == "datasource" and ds.get("query") == "prometheus",
           "variable datasource: type datasource, query prometheus", json.dumps(ds)[:200])
    inst = vs.get("instance", {})
    q = inst.get("query")
    q = q.get("query") if isinstance(q, dict) else q
    result(inst.get("type") == "query" and q == "label_values(thp_setting_info, instance)"
           and inst.get("datasource", {}).get("uid") == "${datasource}",
           "variable instance: label_values(thp_setting_info, instance) on ${datasource}",
           json.dumps(inst)[:200])
    ids, bad, nq = set(), [], 0
    for p in panels_of(d):
        pid = p.get("id")
        if pid in ids or not isinstance(pid, int):
            bad.append(f"panel {p.get('title')!r}: id {pid!r} missing or not unique")
        ids.add(pid)
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in ("h", "w", "x", "y")) or \
                g["x"] + g["w"] > 24:
            bad.append(f"panel {p.get('title')!r}: gridPos {g}")
        if p.get("type") == "row":
            continue
        if p.get("datasource", {}).get("uid") != "${datasource}":
            bad.append(f"panel {p.get('title')!r}: datasource {p.get('datasource')}")
        ts = p.get("targets") or []
        if not ts:
            bad.append(f"panel {p.get('title')!r}: no targets")
        for t in ts:
            nq += 1
            if not t.get("expr") or t.get("datasource", {}).get("uid") != "${datasource}":
                bad.append(f"panel {p.get('title')!r} target {t.get('refId')}: no expr or "
                           "datasource")
            if "instance" not in t.get("expr", "") or "$instance" not in t.get("expr", ""):
                bad.append(f"panel {p.get('title')!r} target {t.get('refId')}: not "
                           "filtered by $instance")
    result(not bad and nq >= 10, f"every panel: ${{datasource}}, unique id, gridPos, targets "
           f"with an expr filtered by $instance ({len(ids)} panels, {nq} queries)",
           "; ".join(bad)[:600] or f"only {nq} queries")


def substitute(expr, inst):
    expr = expr.replace("${datasource}", "").replace("$datasource", "")
    expr = re.sub(r"\$\{?instance(:regex)?\}?", inst, expr)
    for k, v in (("__rate_interval", "1m"), ("__interval", "1s"), ("__range", "1m")):
        expr = re.sub(r"\$\{?" + k + r"\}?", v, expr)
    return expr


def query(url, expr):
    data = urllib.parse.urlencode({"query": expr}).encode()
    with urllib.request.urlopen(url + "/api/v1/query", data, timeout=10) as r:
        return json.load(r)


def queries(path, url, inst):
    d = json.load(open(path))
    for p in panels_of(d):
        for t in p.get("targets") or []:
            e = substitute(t["expr"], inst)
            name = f"panel {p['title']!r} {t['refId']} returns data"
            try:
                r = query(url, e)
            except Exception as ex:  # an HTTP 400 is a query Prometheus cannot parse
                result(False, name, f"{ex}: {e}")
                continue
            n = len(r.get("data", {}).get("result", []))
            result(r.get("status") == "success" and n > 0, name + f" ({n} series)",
                   f"status {r.get('status')}, {n} series: {e}")


if __name__ == "__main__":
    if sys.argv[1] == "structure":
        structure(sys.argv[2])
    else:
        queries(sys.argv[2], sys.argv[3], sys.argv[4])
