#!/usr/bin/env python3
"""A paired comparison from build/bench/cputime's output: command 0 (thpctl) against command 1
(its floor or peer), run in turn RUNS times, so a burst of load or the guest's drift falls on
both alike (hyperfine runs all of one, then all of the other: on this guest the drift between
the two blocks moved a ratio by 20-40% from one bench run to the next).

The figure is the median of the pairs' wall-time ratios, with its 95% interval from order
statistics of the ratios (no distribution assumed). The goal, "<= TARGET" x, is met when the
whole interval is at or below TARGET, not met when the whole interval is above it, and
inconclusive otherwise; the line says which.

  paired.py CPUTIME_OUT TITLE TARGET [EXTRA_NAME...]

EXTRA_NAME names commands 2, 3...: each is reported as the ratio of its median to command 1's.
The environment's STARTUP_MS and NPROCS (bench/ps.sh) split the gap into start-up and a cost
per process. When the extras are named "version", "none" and "one" (thpctl --version, the
floor's start-up alone and thpctl reading one process: bench/ps.sh's process-count runs), the
split is measured in the same rounds instead: start-up (version - none), thpctl's fixed work
(one - version, less the floor's cost of one process) and the rest a process. Prints a RESULT line, an "above the floor" line, and last a line
"REC VALUE_MS FLOOR_MS RATIO MET NOTE" (MET: yes, no or unknown) for bench_record.
Exit 0, or 1 when the output holds no pair.
"""
import math
import os
import sys


def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def interval(ratios):
    """The 95% interval of the median of RATIOS: the k-th smallest and the k-th largest, k the
    largest with P(Binomial(n, 1/2) < k) <= 2.5% (at least 95% coverage: 30 rounds give the 10th
    and 21st of 30); (None, None) when n is too small for any k."""
    v, n = sorted(ratios), len(ratios)
    k, cum = 0, 0.0  # cum: P(B < k)
    while k < n:
        p = math.comb(n, k) / 2**n
        if cum + p > 0.025:
            break
        cum += p
        k += 1
    if k == 0 or k - 1 >= n - k:
        return None, None
    return v[k - 1], v[n - k]


def first_touch_us(pages=2000, rounds=3):
    """What a first write to a fresh anonymous 4 kB page costs this host, in microseconds: the
    least of ROUNDS mappings of PAGES pages, each page written once, less a second pass over
    the same pages (the loop's own cost). On a guest whose hypervisor handles each fault (PVM:
    ~10 us) this, not parsing, is what a program pays for the memory it touches."""
    import mmap
    import time
    best = None
    for _ in range(rounds):
        m = mmap.mmap(-1, pages * 4096)
        t0 = time.perf_counter()
        for i in range(0, pages * 4096, 4096):
            m[i] = 1
        t1 = time.perf_counter()
        for i in range(0, pages * 4096, 4096):
            m[i] = 2
        t2 = time.perf_counter()
        m.close()
        us = ((t1 - t0) - (t2 - t1)) * 1e6 / pages
        best = us if best is None else min(best, us)
    return best


def faults_line(pairs, gap_ms):
    """The minor page faults of thpctl and of the floor (medians) and what the difference costs
    at this host's first-touch price; "" when cputime did not count them."""
    if any(p[0][2] is None or p[1][2] is None for p in pairs):
        return ""
    tf, ff = median([p[0][2] for p in pairs]), median([p[1][2] for p in pairs])
    us = first_touch_us()
    cost = (tf - ff) * us / 1e3
    line = (f"; page faults {tf:.0f} vs the floor's {ff:.0f} (medians), a first touch of a "
            f"page costs {us:.1f} us here (measured now), so ~{cost:.2f} ms")
    if gap_ms > 0:
        line += f" ({cost / gap_ms:.0%} of the gap)"
    return line


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: paired.py CPUTIME_OUT TITLE TARGET [EXTRA_NAME...]")
    path, title, target, extra = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
    runs = {}
    for line in open(path):
        f = line.split()
        if len(f) in (5, 6) and f[0] == "run":  # the 6th: minor faults (cputime since 8c88170+)
            flt = int(f[5]) if len(f) == 6 else None
            runs.setdefault(int(f[1]), {})[int(f[2])] = (float(f[3]), float(f[4]), flt)
    pairs = [r for r in runs.values() if 0 in r and 1 in r]
    if not pairs:
        print(f"paired.py: no pair of runs in {path}", file=sys.stderr)
        return 1
    n = len(pairs)
    ratios = [r[0][0] / r[1][0] for r in pairs]
    r = median(ratios)
    lo, hi = interval(ratios)
    tw, fw = median([p[0][0] for p in pairs]), median([p[1][0] for p in pairs])
    tc, fc = median([p[0][1] for p in pairs]), median([p[1][1] for p in pairs])
    cratio = median([p[0][1] / p[1][1] for p in pairs if p[1][1] > 0])
    if lo is None:
        met, verdict = "unknown", f"inconclusive: {n} pairs are too few for a 95% interval"
    elif hi <= target:
        met, verdict = "yes", "met"
    elif lo > target:
        met, verdict = "no", "NOT met"
    else:
        met, verdict = "unknown", "inconclusive: the interval spans the target"
    iv = f"95% interval {lo:.2f}-{hi:.2f}x" if lo is not None else "no interval"
    line = (f"RESULT thpctl {title}: median {tw:.2f} ms, floor {fw:.2f} ms; ratio {r:.2f}x, the "
            f"median of {n} pairs run in turn ({iv}; target <= {target:g}x: {verdict}); CPU "
            f"{tc:.2f} vs {fc:.2f} ms, {cratio:.2f}x")
    for i, name in enumerate(extra, 2):
        w = [x[i][0] for x in runs.values() if i in x]
        if w:
            line += f"; {name} {median(w) / fw:.2f}x"
    print(line)
    why = f"  above the floor: {tw - fw:+.2f} ms wall, {tc - fc:+.2f} ms CPU (medians)"
    st, nprocs = os.environ.get("STARTUP_MS"), os.environ.get("NPROCS")
    med = {}
    for i, name in enumerate(extra, 2):
        w = [x[i][0] for x in runs.values() if i in x]
        if w:
            med[name] = median(w)
    if nprocs and int(nprocs) > 1 and all(k in med for k in ("version", "none", "one")):
        npr = int(nprocs)
        start = med["version"] - med["none"]
        per_floor = (fw - med["none"]) / npr  # the floor's cost of one process
        fixed = med["one"] - med["version"] - per_floor
        rest = (tw - fw - start - fixed) * 1e3 / (npr - 1)
        why += (f"; of which start-up {start:+.2f} ms (thpctl --version vs proc_floor none), "
                f"thpctl's fixed work {fixed:+.2f} ms (ps --pid 1 less --version less the "
                f"floor's {per_floor * 1e3:.0f} us a process: settings, meminfo, the journal "
                f"check, user names, output), the rest {rest:+.1f} us a process ({npr}); at "
                f"this count start-up and fixed work alone are {(start + fixed) / fw:.0%} of "
                f"the floor")
        allowance = target - 1
        if start + fixed >= allowance * fw:
            why += (f", the goal's whole {allowance:.0%} allowance: at {npr} processes it cannot be "
                    f"met by parsing faster, only by starting faster or doing less fixed work")
        elif rest > 0:
            why += (f" (the goal leaves {(allowance * fw - start - fixed) * 1e3 / npr:.1f} us a "
                    f"process for the rest)")
    elif st:
        why += f"; start-up {float(st):+.2f} ms (thpctl --version vs proc_floor none)"
        if nprocs:
            why += f", the rest {(tw - fw - float(st)) * 1e3 / int(nprocs):+.1f} us a process ({nprocs})"
    why += faults_line(pairs, tw - fw)
    print(why)
    note = f"ratio: the median of {n} paired runs' ratios, {iv}; CPU {cratio:.2f}x"
    print(f"REC {tw:.3f} {fw:.3f} {r:.4f} {met} {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
