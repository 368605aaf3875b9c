#!/usr/bin/env python3
"""Check an HTML report of thpctl against the JSON of the same run.

usage: report_check.py lab|ab|watch PAGE.html DATA.json|RECORDING.jsonl [CHANGE...]
       report_check.py pixel FILE.png   (the top-left pixel's R G B)

Prints "ok - ..." / "not ok - ..." lines (tests/lib.sh's relay_results
counts them): the page is self-contained (no script, nothing fetched), says
what it is about (the context table: host, kernel, thpctl, command, the data's
time in UTC and local time, checked against RC_HOST, RC_KERNEL, RC_VERSION,
RC_COMMAND (a part of it), RC_T0..RC_T1 (s since the epoch) from the
environment), every chart has a visible title, every chart it should have is
there (an <svg> with its id), and every number in the table under a chart
equals the JSON's to the digits shown.
"""
import calendar
import html.parser
import json
import math
import os
import re
import statistics
import time
import zlib
import sys


class Page(html.parser.HTMLParser):
    """The svg ids and the tables (data-chart id -> rows of cell texts) of a page."""

    def __init__(self):
        super().__init__()
        self.svgs, self.tables, self.tags, self.fetch = [], {}, set(), []
        self.table = None
        self.cell = None
        # the context table (th -> td text), <time datetime>s in it, each svg's figcaption
        self.context, self.ctx_key, self.ctx_times, self.in_ctx = {}, None, [], False
        self.caption, self.in_caption, self.untitled = "", False, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        self.fetch += [f"{tag} {k}" for k in a if k in ("src", "href", "srcset", "data")]
        if tag == "figcaption":
            self.in_caption, self.caption = True, ""
        elif tag == "table" and a.get("class") == "context":
            self.in_ctx = True
        elif self.in_ctx and tag in ("th", "td"):
            self.cell = []
        elif self.in_ctx and tag == "time":
            self.ctx_times.append(a.get("datetime", ""))
        if tag == "svg":
            self.svgs.append(a.get("id", ""))
            if not self.caption.strip():
                self.untitled.append(a.get("id", ""))
            self.caption = ""
        elif tag == "table" and "data-chart" in a:
            self.table = self.tables.setdefault(a["data-chart"], [])
        elif tag == "tr" and self.table is not None:
            self.table.append([])
        elif tag in ("td", "th") and self.table is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self.in_caption = False
            return
        if self.in_ctx:
            if tag == "th":
                self.ctx_key = "".join(self.cell)
                self.cell = None
            elif tag == "td":
                self.context[self.ctx_key] = "".join(self.cell)
                self.cell = None
            elif tag == "table":
                self.in_ctx = False
            return
        if tag in ("td", "th") and self.cell is not None:
            self.table[-1].append("".join(self.cell))
            self.cell = None
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.in_caption:
            self.caption += data
        if self.cell is not None:
            self.cell.append(data)


RESULTS = []


def check(name, cond, detail=""):
    RESULTS.append(cond)
    print(f"ok - {name}" if cond else f"not ok - {name}: {detail}")


def same(shown, value):
    """SHOWN (the table's text) is VALUE to the digits shown; '-' is None/NaN."""
    if shown == "-":
        return value is None or (isinstance(value, float) and math.isnan(value))
    if value is None:
        return False
    try:
        x = float(shown)
    except ValueError:
        return False
    dec = len(shown.split(".")[1]) if "." in shown else 0
    # the JSON prints reals with 6 significant digits (JSON_REAL_PRECISION(6)): 1412540.0 stands
    # for 1412535..1412545, which the table may show exactly (1412539)
    json_digits = 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 5) if value else 0
    return abs(x - value) <= 0.5 * 10 ** -dec + json_digits + 1e-9 * abs(value)


def cell_parts(text):
    """'2.25 (1.50..40)' -> ('2.25', '1.50', '40'); '128' -> ('128', None, None)."""
    m = re.fullmatch(r"(\S+) \((\S+)\.\.(\S+)\)", text)
    return m.groups() if m else (text, None, None)


def nearest_rank(v, p):
    if p <= 0:
        return v[0]
    if p >= 100:
        return v[-1]
    return v[max(1, math.ceil(p / 100 * len(v))) - 1]


def table_rows(page, tid):
    rows = page.tables.get(tid)
    return (rows[0], rows[1:]) if rows else (None, [])


def check_self_contained(text, page):
    bad = page.fetch + [t for t in ("script", "link", "iframe", "object", "img") if t in page.tags]
    bad += re.findall(r"@import|url\(", text, re.I)
    check("page is self-contained (no script, link, img, src, href, @import, url())", not bad,
          str(bad[:3]))
    check("page has a prefers-color-scheme dark style", "prefers-color-scheme:dark" in text)


def check_context(page):
    """The page says what it is about (RC_* from the environment), every chart has a title."""
    E, c = os.environ, page.context
    check("context: host, kernel, thpctl as this host's",
          c.get("host") == E.get("RC_HOST") and c.get("kernel") == E.get("RC_KERNEL")
          and c.get("thpctl") == E.get("RC_VERSION"), str(c)[:300])
    check(f"context: the command ({E.get('RC_COMMAND')})",
          E.get("RC_COMMAND", "?") in c.get("command", ""), c.get("command"))
    t0 = None
    if page.ctx_times and page.ctx_times[0].endswith("Z"):
        t0 = calendar.timegm(time.strptime(page.ctx_times[0], "%Y-%m-%dT%H:%M:%SZ"))
    lo, hi = float(E.get("RC_T0", 0)), float(E.get("RC_T1", 0))
    check(f"context: the data's UTC time ({page.ctx_times[:1]}) within the run",
          t0 is not None and lo - 1 <= t0 <= hi + 1 and c.get("data (UTC)", "").endswith("s)"),
          f"{t0} not in {lo}..{hi}: {c.get('data (UTC)')}")
    off = time.strftime("%z", time.localtime(t0 or 0))
    want = f"UTC{off[0]}{off[1:3]}:{off[3:5]}"
    local = c.get("data (local)", "")
    shown = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t0 or 0))
    check(f"context: the local time ({shown}, {want})", local.startswith(shown) and want in local,
          local)
    check("every chart has a visible title (figcaption)", not page.untitled and page.svgs,
          str(page.untitled[:5]))


def check_series(page, tid, ser, exp):
    hdr, rows = table_rows(page, tid)
    by = {r[0]: r for r in rows}
    bad = []
    for s in ser:
        if s["kind"] == "cdf":
            r = by.get(s["name"])
            v = sorted(s["y"])
            want = [s["n_total"]] + [nearest_rank(v, p) for p in (0, 50, 90, 99, 100)]
            if not r or not all(same(c, w) for c, w in zip(r[1:], want)):
                bad.append((s["name"], r, want))
        elif s["kind"] == "samples":
            r = by.get(s["name"])
            v = sorted(s["y"])
            want = [s["n_total"], statistics.median(v), v[0], v[-1]]
            if not r or not all(same(c, w) for c, w in zip(r[1:], want)):
                bad.append((s["name"], r, want))
        elif s["kind"] == "line":
            col = hdr.index(s["name"]) if hdr and s["name"] in hdr else None
            for x, y in zip(s["x"], s["y"]):
                r = [r for r in rows if same(r[0], x)]
                if col is None or not r or not same(r[0][col], y):
                    bad.append((s["name"], x, y))
    check(f"{exp}: table {tid} holds the JSON series' numbers", not bad and rows, str(bad[:3]))


def check_cells(page, idx, e):
    units = []
    for c in e["columns"]:
        if c["unit"] not in units:
            units.append(c["unit"])
    bad, ntables = [], 0
    for k in range(len(units)):
        hdr, rows = table_rows(page, f"lab-{idx}-{e['experiment']}-cells-{k}")
        if not hdr:
            continue
        ntables += 1
        for r in rows:
            jr = [x for x in e["rows"] if x["label"] == r[0]][0]
            for name, text in zip(hdr[1:], r[1:]):
                c = jr["cells"][name]
                m, lo, hi = cell_parts(text)
                ok = same(m, c and c["median"])
                if lo is not None:
                    ok = ok and same(lo, c["min"]) and same(hi, c["max"])
                if not ok:
                    bad.append((r[0], name, text, c))
    check(f"{e['experiment']}: {ntables} range table(s) match the JSON cells",
          ntables > 0 and not bad, str(bad[:3]))


def check_lab(page, d):
    exps = d["experiments"]
    check("lab: JSON holds experiments", len(exps) > 0)
    for i, e in enumerate(exps):
        name = e["experiment"]
        ids = [s for s in page.svgs if s.startswith(f"lab-{i}-{name}-")]
        check(f"{name}: at least one chart", len(ids) > 0, str(page.svgs[:5]))
        charts = {}
        for s in e.get("series", []):
            charts.setdefault(s["chart"], []).append(s)
        for chart, ser in charts.items():
            tid = f"lab-{i}-{name}-{chart}"
            check(f"{name}: chart {tid} exists", tid in page.svgs)
            check_series(page, tid, ser, name)
        if name == "faults" and not e["verdict"]["skipped"]:
            check("faults: a CDF chart per mode", f"lab-{i}-faults-cdf" in page.svgs and
                  len(charts.get("cdf", [])) == 3, str(list(charts)))
        if name == "chase" and not e["verdict"]["skipped"]:
            check("chase: a huge vs small line chart", len(charts.get("chase", [])) == 2)
        if name == "khugepaged" and not e["verdict"]["skipped"]:
            check("khugepaged: Rss and AnonHugePages over time",
                  any(c.startswith("mpn-") and len(s) == 2 for c, s in charts.items()),
                  str(list(charts)))
        if name == "redis" and not e["verdict"]["skipped"]:
            check("redis: strip plots of SET throughput and p99 per mode",
                  len(charts.get("set-ops", [])) == len(e["rows"]) >= 3
                  and len(charts.get("set-p99", [])) == len(e["rows"]),
                  str(list(charts)))
        if e["rows"]:
            check_cells(page, i, e)


def level(ci):
    """The level column of an interval as the page writes it: its exact level rounded down to
    0.1% ("96.8%", "95%"), '-' without one."""
    if not ci:
        return "-"
    p = math.floor(ci["level"] * 1000 + 1e-6) / 10
    return f"{p:.0f}%" if p == math.floor(p) else f"{p:.1f}%"


def check_ab(page, d):
    check("ab: charts ab-wall and ab-ratio", "ab-wall" in page.svgs and "ab-ratio" in page.svgs)
    _, wall = table_rows(page, "ab-wall")
    _, ratio = table_rows(page, "ab-ratio")
    bad = []
    for m, w, r in zip(d["modes"], wall, ratio):
        s, ci = m["wall_s"], m["wall_ratio_to_base"]
        if w[0] != m["mode"] or int(w[1]) != len(m["runs"]):
            bad.append((w, m["mode"]))
        if s and not (same(w[2], s["median"]) and same(w[3], s["min"]) and same(w[4], s["max"])):
            bad.append((w, s))
        want = [ci and ci["estimate"], ci and ci["low"], ci and ci["high"]]
        if not all(same(c, x) for c, x in zip(r[1:4], want)) or r[4] != level(ci) \
                or r[5] != m["verdict"]:
            bad.append((r, ci, m["verdict"]))
    check(f"ab: {len(wall)} wall and {len(ratio)} ratio rows match the JSON",
          len(wall) == len(d["modes"]) == len(ratio) and not bad, str(bad[:3]))
    check("ab: some mode has a ratio interval", any(m["wall_ratio_to_base"] for m in d["modes"]))
    # memory has its own verdict and interval (peak RSS), in the page as in the JSON
    _, rss = table_rows(page, "ab-rss")
    bad = []
    for m, r in zip(d["modes"], rss):
        ci = m["peak_rss_ratio_to_base"]
        want = [ci and ci["estimate"], ci and ci["low"], ci and ci["high"]]
        if not all(same(c, x) for c, x in zip(r[1:4], want)) or r[4] != level(ci) \
                or r[5] != m["memory_verdict"]:
            bad.append((r, ci, m["memory_verdict"]))
    check(f"ab: chart ab-rss, {len(rss)} peak RSS ratio rows match the JSON",
          "ab-rss" in page.svgs and len(rss) == len(d["modes"]) and not bad, str(bad[:3]))
    check("ab: the THP evidence: chart ab-share", "ab-share" in page.svgs)
    _, share = table_rows(page, "ab-share")
    _, thp = table_rows(page, "ab-thp")
    bad = []
    for m, sr, tr in zip(d["modes"], share, thp):
        runs = [x for x in m["runs"] if x["ok"] and x["anon_huge_peak_kb"] is not None
                and (x["anon_kb_at_peak"] or 0) > 0]
        v = sorted(100 * x["anon_huge_peak_kb"] / x["anon_kb_at_peak"] for x in runs)
        want = [len(v), statistics.median(v) if v else None, v[0] if v else None,
                v[-1] if v else None]
        if sr[0] != m["mode"] or int(sr[1]) != want[0] or \
                not all(same(c, w) for c, w in zip(sr[2:], want[1:])):
            bad.append((sr, want))
        a, s, h = m["anon_huge_peak_kb"], m["anon_huge_share"], m["host_wide_delta_median"]
        want = [a and a["median"] / 1024, s and s["median"] * 100, h["thp_fault_alloc"],
                h["thp_fault_fallback"], h["compact_stall"]]
        if tr[0] != m["mode"] or not all(same(c, w) for c, w in zip(tr[1:6], want)):
            bad.append((tr, want))
        if m["proof_contradicts_intent"] != tr[6].startswith("FLAGGED"):
            bad.append((tr[6], m["proof_contradicts_intent"]))
        if m["proof_cannot_show"] != tr[6].startswith("none possible"):
            bad.append((tr[6], m["proof_cannot_show"]))
    check(f"ab: THP evidence rows (share {len(share)}, AnonHugePages/fault_alloc/compact_stall "
          f"{len(thp)}) match the JSON", len(share) == len(thp) == len(d["modes"]) and not bad,
          str(bad[:3]))


RATES = ["thp_fault_alloc", "thp_fault_fallback", "compact_stall", "thp_split_pmd",
         "thp_collapse_alloc"]


RATE_NAMES = ["fault alloc", "fault fallback", "compact_stall", "split_pmd", "khugepaged collapse"]


def check_watch(page, text, recs, want_changes):
    hdr = recs[0]
    check("watch: the recording starts with its header (host, kernel, version, time zone)",
          hdr.get("recording") == "thpctl watch" and hdr.get("hostname") == os.environ.get("RC_HOST")
          and hdr.get("kernel") == os.environ.get("RC_KERNEL")
          and hdr.get("thpctl_version") == os.environ.get("RC_VERSION")
          and isinstance(hdr.get("utc_offset_s"), int), str(hdr)[:300])
    recs = recs[1:]
    check("watch: charts watch-rates and watch-anonhuge",
          "watch-rates" in page.svgs and "watch-anonhuge" in page.svgs)
    _, rows = table_rows(page, "watch-rates")
    t0 = recs[0]["time_s"]
    bad = []
    for r, j in zip(rows, recs):
        if not same(r[0], round(j["time_s"] - t0, 1)):
            bad.append((r[0], j["time_s"] - t0))
        if r[1] != time.strftime("%H:%M:%S", time.localtime(math.floor(j["time_s"]))):
            bad.append((r[1], "local time of", j["time_s"]))
        for c, k in zip(r[2:], RATES):
            if not same(c, j["rates_per_s"].get(k)):
                bad.append((r[0], k, c, j["rates_per_s"].get(k)))
    check(f"watch: {len(rows)} rate rows match the recording", len(rows) == len(recs) and not bad,
          str(bad[:3]))
    rh, _ = table_rows(page, "watch-rates")
    check("watch: the rate table's headers carry the unit (events/s)",
          bool(rh) and len(rh) > 2 and all(h.endswith(" (events/s)") for h in rh[2:]), str(rh))
    ahead, ahp = table_rows(page, "watch-anonhuge")
    check("watch: the AnonHugePages table's header carries the unit (MiB)",
          bool(ahead) and ahead[2:] == ["AnonHugePages (MiB)"], str(ahead))
    bad = [(r, j["anon_huge_pages_kb"]) for r, j in zip(ahp, recs)
           if not same(r[2], j["anon_huge_pages_kb"] / 1024)]
    check("watch: AnonHugePages rows match the recording (MiB)", len(ahp) == len(recs) and not bad,
          str(bad[:3]))
    _, ch = table_rows(page, "watch-changes")
    got = [r[1] for r in ch]
    check(f"watch: setting changes marked {want_changes}", all(w in got for w in want_changes),
          str(got))
    zero = [n for n, k in zip(RATE_NAMES, RATES)
            if all(j["rates_per_s"].get(k) in (0, None) for j in recs)
            and any(j["rates_per_s"].get(k) == 0 for j in recs)]
    if zero and len(zero) < len(RATES):
        want = "0 throughout the recording (not drawn): " + ", ".join(zero)
        check(f"watch: the rates that are 0 throughout listed ({', '.join(zero)})", want in text,
              re.findall(r"0 throughout[^<]*", text)[:2])
    else:
        check("watch: a rate is non-zero and none is 0 throughout, or all are (said in the chart)",
              not zero or "every series is 0 throughout the recording" in text)
    check("watch: the numbers folded under each chart (<details>)",
          text.count("<details><summary>the numbers: ") == 2)


def first_pixel(path):
    """The RGB of a PNG's top-left pixel (any filter predicts it from zeros)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    pos, idat = 8, b""
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        if data[pos + 4:pos + 8] == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return tuple(raw[1:4])


def main():
    if sys.argv[1] == "pixel":
        print(*first_pixel(sys.argv[2]))
        return
    kind, page_path, data_path = sys.argv[1:4]
    text = open(page_path, encoding="utf-8").read()
    page = Page()
    page.feed(text)
    check_self_contained(text, page)
    check_context(page)
    if kind == "watch":
        recs = [json.loads(x) for x in open(data_path) if x.strip()]
        check_watch(page, text, recs, sys.argv[4:])
    else:
        d = json.load(open(data_path))
        (check_lab if kind == "lab" else check_ab)(page, d)
    sys.exit(0 if all(RESULTS) else 1)


main()
