#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare `thpctl status --json` with the kernel files it reports, read directly.

Usage: status_vs_sysfs.py THPCTL

Prints one line per check ("ok - ...", "not ok - ...: details",
"skip - ...: reason"); tests/live/run.sh counts them.

Settings must match exactly. Counters and gauges may move while thpctl runs
(other processes fault, khugepaged scans), so each is read before and after
thpctl and must lie within [min, max] of the two reads. The whole comparison
is retried (3 attempts) when only counters fell outside their window, since a
gauge can rise and fall back between our two reads.
"""
import glob
import json
import os
import platform
import re
import subprocess
import sys

THP = "/sys/kernel/mm/transparent_hugepage"
HUGETLB = "/sys/kernel/mm/hugepages"
NODES = "/sys/devices/system/node"

KNOWN_TOP = {"enabled", "defrag", "use_zero_page", "hpage_pmd_size", "shmem_enabled", "shrink_underused"}
COUNTERS = ("pages_collapsed", "full_scans")
MEMINFO = ("AnonHugePages", "ShmemHugePages", "ShmemPmdMapped", "FileHugePages", "FilePmdMapped",
           "HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp", "Hugepagesize", "Hugetlb")
POOL = (("nr", "nr_hugepages"), ("free", "free_hugepages"), ("resv", "resv_hugepages"),
        ("surplus", "surplus_hugepages"), ("overcommit", "nr_overcommit_hugepages"))


def rd(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except FileNotFoundError:
        return None


def choice(path):
    """'always [madvise] never' -> ('madvise', ['always', 'madvise', 'never'])"""
    t = rd(path)
    if t is None:
        return None
    words = t.split()
    sel = [w.strip("[]") for w in words if w.startswith("[")]
    return (sel[0] if sel else None, [w.strip("[]") for w in words])


def size_dirs():
    out = {}
    for d in glob.glob(THP + "/hugepages-*kB"):
        m = re.match(r"hugepages-(\d+)kB$", os.path.basename(d))
        if m:
            out[int(m.group(1))] = d
    return out


def snapshot():
    """Every number thpctl status reports that can change on its own."""
    s = {}
    for name in COUNTERS:
        v = rd(f"{THP}/khugepaged/{name}")
        if v is not None:
            s[f"khugepaged/{name}"] = int(v)
    for kb, d in size_dirs().items():
        for f in glob.glob(d + "/stats/*"):
            s[f"{kb}kB/stats/{os.path.basename(f)}"] = int(rd(f))
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            s[f"meminfo/{k}"] = int(v.split()[0])
    for d in glob.glob(HUGETLB + "/hugepages-*kB"):
        kb = int(re.search(r"(\d+)kB", d).group(1))
        for _, f in POOL:
            v = rd(f"{d}/{f}")
            if v is not None:
                s[f"hugetlb/{kb}/all/{f}"] = int(v)
    for d in glob.glob(NODES + "/node[0-9]*/hugepages/hugepages-*kB"):
        node = int(re.search(r"node(\d+)", d).group(1))
        kb = int(re.search(r"hugepages-(\d+)kB", d).group(1))
        for _, f in POOL:
            v = rd(f"{d}/{f}")
            if v is not None:
                s[f"hugetlb/{kb}/{node}/{f}"] = int(v)
    return s


class Results:
    def __init__(self, before, after):
        self.lines = []
        self.counter_miss = False
        self.other_miss = False
        self.before, self.after = before, after

    def ok(self, name):
        self.lines.append(f"ok - status: {name}")

    def fail(self, name, why, counter=False):
        self.lines.append(f"not ok - status: {name}: {why}")
        if counter:
            self.counter_miss = True
        else:
            self.other_miss = True

    def skip(self, name, why):
        self.lines.append(f"skip - status: {name}: {why}")

    def eq(self, name, got, want):
        if got == want:
            self.ok(name)
        else:
            self.fail(name, f"thpctl {got!r}, kernel {want!r}")

    def group(self, name, bad, what, counter=False):
        if bad:
            self.fail(name, "; ".join(bad), counter=counter)
        else:
            self.ok(f"{name} ({what})")

    def win(self, bad, what, got, key):
        """Append to bad unless got lies between the before and after reads of key."""
        b, a = self.before.get(key), self.after.get(key)
        if b is None or a is None:
            if got is not None:
                bad.append(f"{what}: thpctl {got!r}, kernel file absent")
        elif isinstance(got, bool) or not isinstance(got, int) or not min(a, b) <= got <= max(a, b):
            bad.append(f"{what}: thpctl {got!r}, kernel {b} before / {a} after")


def check_sizes(res, k, pol):
    dirs = size_dirs()
    sizes = {s["size_kb"]: s for s in pol["sizes"]}
    res.eq("policy.sizes == hugepages-*kB dirs", sorted(sizes), sorted(dirs))
    anon = sorted(kb for kb, dd in dirs.items() if os.path.exists(dd + "/enabled"))
    res.eq("capabilities.mthp_sizes_kb == dirs with enabled", k["capabilities"].get("mthp_sizes_kb"), anon)
    res.eq("capabilities.per_size_stats", k["capabilities"].get("per_size_stats"),
           any(os.path.isdir(dd + "/stats") for dd in dirs.values()))
    top = {"enabled": choice(f"{THP}/enabled")[0], "shmem_enabled": (choice(f"{THP}/shmem_enabled") or [None])[0]}
    page_kb = k["page_size_bytes"] // 1024
    for kb in sorted(dirs):
        s = sizes.get(kb)
        if s is None:
            continue
        dd, name, bad, n = dirs[kb], f"hugepages-{kb}kB", [], 0

        def cmp(what, got, want):
            nonlocal n
            n += 1
            if got != want:
                bad.append(f"{what}: thpctl {got!r}, kernel {want!r}")

        cmp("order", s.get("order"), (kb // page_kb).bit_length() - 1)
        for f in ("enabled", "shmem_enabled"):
            c = choice(f"{dd}/{f}")
            got = s.get(f)
            cmp(f, None if got is None else (got.get("value"), got.get("options")), c)
            eff = s.get(f + "_effective")
            if c is None:
                cmp(f + "_effective", eff, None)
            elif c[0] == "inherit":
                # top-level shmem deny/force are not per-size values; not compared
                if not (f == "shmem_enabled" and top[f] in ("deny", "force")):
                    cmp(f + "_effective (inherit)", eff, top[f])
            else:
                cmp(f + "_effective", eff, c[0])
        res.group(f"{name} settings", bad, f"{n} values")

        sfiles = sorted(os.path.basename(f) for f in glob.glob(dd + "/stats/*"))
        st = s.get("stats")
        if not sfiles:
            res.eq(f"{name}/stats absent", st, None)
            continue
        if not isinstance(st, dict):
            res.fail(f"{name}/stats", f"{st!r} but stats/ exists")
            continue
        res.eq(f"{name}/stats keys == files", sorted(st), sfiles)
        bad = []
        for f in sfiles:
            res.win(bad, f, st.get(f), f"{kb}kB/stats/{f}")
        res.group(f"{name}/stats values", bad, f"{len(sfiles)} counters", counter=True)
    return dirs


def check_usage(res, d, dirs):
    mi = d["usage"]["meminfo_kb"]
    bad = []
    for f in MEMINFO:
        res.win(bad, f, mi.get(f), f"meminfo/{f}")
    res.group("usage.meminfo_kb vs /proc/meminfo", bad, f"{len(MEMINFO)} fields", counter=True)

    us = {u["size_kb"]: u for u in d["usage"]["sizes"]}
    res.eq("usage.sizes == hugepages-*kB dirs", sorted(us), sorted(dirs))
    bad = []
    for kb in sorted(dirs):
        for f in ("nr_anon", "nr_anon_partially_mapped"):
            res.win(bad, f"{kb}kB {f}", us.get(kb, {}).get(f), f"{kb}kB/stats/{f}")
    res.group("usage.sizes nr_anon, nr_anon_partially_mapped", bad, f"{len(dirs)} sizes", counter=True)

    want = set()
    for key in res.before:
        m = re.match(r"hugetlb/(\d+)/(\w+)/nr_hugepages$", key)
        if m:
            want.add((int(m.group(1)), None if m.group(2) == "all" else int(m.group(2))))
    got = {(h["size_kb"], h["node"]): h for h in d["usage"]["hugetlb"]}
    res.eq("usage.hugetlb rows (size, node)", sorted(got, key=str), sorted(want, key=str))
    for (kb, node), h in sorted(got.items(), key=str):
        where = "all" if node is None else node
        bad = []
        for jf, ff in POOL:
            res.win(bad, jf, h.get(jf), f"hugetlb/{kb}/{where}/{ff}")
        res.group(f"usage.hugetlb {kb}kB node {where}", bad, "nr free resv surplus overcommit", counter=True)


def check_once(thpctl):
    before = snapshot()
    p = subprocess.run([thpctl, "status", "--json"], capture_output=True, text=True)
    after = snapshot()
    res = Results(before, after)
    if p.returncode != 0:
        res.fail("status --json exit 0", f"exit {p.returncode}: {p.stderr.strip()[:300]}")
        return res
    try:
        d = json.loads(p.stdout)
    except ValueError as e:
        res.fail("status --json parses", str(e))
        return res
    res.ok("status --json exits 0 and parses")
    if p.stderr.strip():
        res.fail("status --json: nothing on stderr", p.stderr.strip()[:300])

    k = d["kernel"]
    res.eq("kernel.release == uname -r", k.get("release"), platform.release())
    pagesize = int(subprocess.check_output(["getconf", "PAGESIZE"], text=True))
    res.eq("kernel.page_size_bytes == getconf PAGESIZE", k.get("page_size_bytes"), pagesize)
    if os.geteuid() == 0:
        res.eq("partial false as root", d.get("partial"), False)
        res.eq("missing empty as root", d.get("missing"), [])
    else:
        res.skip("partial/missing as root", "not running as root")

    pol = d["policy"]
    for f in ("enabled", "defrag", "shmem_enabled"):
        got = pol.get(f)
        res.eq(f"policy.{f} value and options", None if got is None else (got.get("value"), got.get("options")),
               choice(f"{THP}/{f}"))
    for f, key in (("use_zero_page", "use_zero_page"), ("shrink_underused", "shrink_underused"),
                   ("hpage_pmd_size", "hpage_pmd_size_bytes")):
        v = rd(f"{THP}/{f}")
        res.eq(f"policy.{key}", pol.get(key), None if v is None else int(v))
    res.eq("kernel.pmd_size_bytes == hpage_pmd_size", k.get("pmd_size_bytes"), int(rd(f"{THP}/hpage_pmd_size")))
    res.eq("capabilities.shrink_underused", k["capabilities"].get("shrink_underused"),
           os.path.exists(f"{THP}/shrink_underused"))

    kh = pol.get("khugepaged") or {}
    files = sorted(os.path.basename(f) for f in glob.glob(f"{THP}/khugepaged/*"))
    res.eq("khugepaged: one key per file", sorted(kh), files)
    for f in files:
        if f in COUNTERS:
            bad = []
            res.win(bad, f, kh.get(f), f"khugepaged/{f}")
            res.group(f"khugepaged/{f}", bad, "counter", counter=True)
        else:
            res.eq(f"khugepaged/{f}", kh.get(f), int(rd(f"{THP}/khugepaged/{f}")))

    other = {os.path.basename(f): rd(f) for f in glob.glob(f"{THP}/*")
             if os.path.isfile(f) and os.path.basename(f) not in KNOWN_TOP}
    res.eq(f"policy.other == unknown top-level files {sorted(other)}", pol.get("other"), other)

    with open("/proc/cmdline") as f:
        m = re.findall(r"(?:^|\s)transparent_hugepage=(\S+)", f.read())
    res.eq("policy.cmdline_transparent_hugepage", pol.get("cmdline_transparent_hugepage"), m[-1] if m else None)
    res.eq("policy.writable == access(enabled, W_OK)", pol.get("writable"), os.access(f"{THP}/enabled", os.W_OK))

    dirs = check_sizes(res, k, pol)
    check_usage(res, d, dirs)
    return res


def main():
    thpctl = sys.argv[1]
    if not os.path.exists(THP + "/enabled"):
        print(f"skip - status vs sysfs: no {THP}/enabled (kernel without THP)")
        return
    for attempt in range(3):
        res = check_once(thpctl)
        # retry only when the sole failures are counters that moved
        if not res.counter_miss or res.other_miss:
            break
    for line in res.lines:
        print(line)
    if attempt:
        print(f"# status vs sysfs: {attempt + 1} attempts (counters moved between reads)")


if __name__ == "__main__":
    main()
