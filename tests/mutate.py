#!/usr/bin/env python3
"""tests/mutate.py: damaged copies of the recorded trees, every command on each.

Makes MUTANTS (default 320) mutants of the trees in tests/fixtures/ (seeded,
reproducible: MUTATE_SEED): one file of a tree truncated, bytes flipped,
deleted, replaced by a FIFO, a /dev/zero symlink, a symlink loop or a
directory; a number in it replaced by 2^64-1, 2^64, -1, 1e9999 or text; a
100 000-character line, a NUL, CRLF line ends or invalid UTF-8 inserted.
On each mutant `status --json`, `ps --all --json` and `maps PID --json` must
finish within 5 s, exit 0, 1 or 2, print valid JSON when they exit 0, and
trip no sanitizer. Not checked here: that a damaged value never shows as a
number with "partial": false (issue 12 section 4, left to do).

    tests/mutate.py [-v]        THPCTL=path overrides build/asan/thpctl
The mutants are made in order and run JOBS at a time (default one per CPU).
Last line: "mutate: N passed, M failed, K skipped".
"""
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FX = os.path.join(REPO, "tests", "fixtures")
BIN = os.environ.get("THPCTL", os.path.join(REPO, "build", "asan", "thpctl"))
N = int(os.environ.get("MUTANTS", "320"))
SEED = int(os.environ.get("MUTATE_SEED", "12"))
TREES = ["linux-6.18-x86", "linux-4.14-x86", "arm64-64k", "frag-always-x86"]
THP = "sys/kernel/mm/transparent_hugepage"
FILES = ["proc/vmstat", "proc/meminfo", "proc/buddyinfo", "proc/uptime",
         THP + "/enabled", THP + "/defrag", THP + "/shmem_enabled", THP + "/hpage_pmd_size",
         THP + "/use_zero_page", THP + "/khugepaged/pages_to_scan",
         THP + "/khugepaged/max_ptes_none", THP + "/hugepages-64kB/enabled",
         "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
         "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"]
PERPROC = ["smaps", "smaps_rollup", "status", "stat"]
KINDS = ["truncate", "flip", "delete", "fifo", "devzero", "loop", "directory",
         "u64max", "u64over", "minus1", "1e9999", "text", "longline", "nul", "crlf", "utf8"]
NUMBERS = {"u64max": b"18446744073709551615", "u64over": b"18446744073709551616",
           "minus1": b"-1", "1e9999": b"1e9999", "text": b"abc"}
env = dict(os.environ, LC_ALL="C", TZ="UTC", THPCTL_WIDE="1",
           ASAN_OPTIONS="detect_leaks=1:exitcode=86",
           UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87")
verbose = "-v" in sys.argv
passed = failed = 0


def result(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
        if verbose:
            print(f"ok - {name}")
    else:
        failed += 1
        print(f"not ok - {name}: {detail}")


def mutate(rng, path, kind):
    """Damage PATH (a file in the copied tree) by KIND."""
    data = open(path, "rb").read() if os.path.isfile(path) else b""
    if kind in ("delete", "fifo", "devzero", "loop", "directory"):
        os.unlink(path)
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "devzero":
            os.symlink("/dev/zero", path)
        elif kind == "loop":
            os.symlink(os.path.basename(path), path)
        elif kind == "directory":
            os.mkdir(path)
        return
    if kind == "truncate":
        data = data[: rng.randrange(len(data) + 1)]
    elif kind == "flip":
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if b:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        data = bytes(b)
    elif kind in NUMBERS:
        nums = list(re.finditer(rb"\d+", data))
        if nums:
            m = rng.choice(nums)
            data = data[: m.start()] + NUMBERS[kind] + data[m.end():]
        else:
            data = NUMBERS[kind] + b"\n"
    elif kind == "longline":
        at = rng.randrange(len(data) + 1)
        data = data[:at] + b"x" * 100000 + b"\n" + data[at:]
    elif kind == "nul":
        at = rng.randrange(len(data) + 1)
        data = data[:at] + b"\0" + data[at:]
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif kind == "utf8":
        at = rng.randrange(len(data) + 1)
        data = data[:at] + b"\xff\xc3(\xe2\x82" + data[at:]
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(data)


def run(tree, argv, name):
    """One command on TREE: (ok, name, detail)."""
    try:
        p = subprocess.run([BIN, "--no-color", "--sysroot", tree] + argv, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=5)
    except subprocess.TimeoutExpired:
        return False, name, "still running after 5 s"
    err = p.stderr.decode("utf-8", "replace")
    if "Sanitizer" in err or "runtime error:" in err:
        return False, name, "sanitizer: " + err.strip().splitlines()[0][:200]
    if p.returncode not in (0, 1, 2):
        return False, name, f"exit status {p.returncode}: {err.strip()[:200]}"
    if p.returncode == 0:
        try:
            json.loads(p.stdout)
        except ValueError as e:
            return False, name, f"invalid JSON ({e})"
    return True, name, ""


def run_mutant(tree, pid, label):
    """The three commands on one mutant, then its tree goes: their results."""
    try:
        return [run(tree, argv, f"{label}: {' '.join(argv)}")
                for argv in (["status", "--json"], ["ps", "--all", "--json"], ["maps", pid, "--json"])]
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def main():
    if not os.access(BIN, os.X_OK):
        print(f"not ok - preflight: no {BIN} (make build/asan/thpctl)")
        print("mutate: 0 passed, 1 failed, 0 skipped")
        return 1
    subprocess.run([os.path.join(REPO, "tests", "restore-modes")], check=False)
    rng = random.Random(SEED)
    top = tempfile.mkdtemp(prefix="thpctl-mutate.")
    jobs = int(os.environ.get("JOBS", os.cpu_count() or 1))
    pending = []  # the mutants are made in order (the seed decides them), run JOBS at once
    try:
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        for i in range(N):
            base = TREES[i % len(TREES)]
            kind = KINDS[i % len(KINDS)]
            tree = os.path.join(top, f"t{i}")
            shutil.copytree(os.path.join(FX, base), tree, symlinks=True)
            pids = sorted(p for p in os.listdir(os.path.join(tree, "proc"))
                          if p.isdigit() and os.path.exists(os.path.join(tree, "proc", p, "smaps")))
            pid = rng.choice(pids)
            if rng.random() < 0.5:
                rel = f"proc/{pid}/{rng.choice(PERPROC)}"
            else:
                rel = rng.choice(FILES)
            if not os.path.lexists(os.path.join(tree, rel)):
                rel = "proc/vmstat"
            mutate(rng, os.path.join(tree, rel), kind)
            pending.append(pool.submit(run_mutant, tree, pid, f"#{i} {base} {rel} {kind}"))
            running = [f for f in pending if not f.done()]
            if len(running) > 2 * jobs:  # a few trees on disk at once
                concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
        for f in pending:
            for r in f.result():
                result(*r)
        pool.shutdown()
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print(f"# {N} mutants (seed {SEED}), 3 commands each")
    print(f"mutate: {passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
