#!/usr/bin/env python3
"""tests/mutate.py: damaged copies of the recorded trees, every command on each.

Makes MUTANTS (default 76: each kind once on each tree, the smoke of make check;
make bench runs 320) mutants of the trees in tests/fixtures/ (seeded,
reproducible: MUTATE_SEED): one file of a tree truncated, bytes flipped,
deleted, replaced by a FIFO, a /dev/zero symlink, a symlink loop or a
directory; a number in it replaced by 2^64-1, 2^64, -1, 1e9999 or text; a
100 000-character line, a NUL, CRLF line ends or invalid UTF-8 inserted.
Also a key line duplicated (the second copy with another value), every number
of a file set to 2^64-1 (derived figures: sums, pages x size, blocks << order),
and a process's directory replaced by a symlink to a directory outside the tree.
On each mutant `status --json`, `ps --all --json` and `maps PID --json` must
finish within 5 s, exit 0, 1 or 2, print valid JSON that its schema in
docs/json/ accepts when they exit 0, and trip no sanitizer; and compared with
the same command on the undamaged tree, every number that differs must be
null (unknown) or the document must say "partial": true (never another
plausible number with "partial": false). A number set to 2^64-1 keeps the
file valid: numbers may grow, but no integer may shrink (a wrapped product or
sum does) unless partial; a bit flip (one digit for another) or a file cut at a
line end is valid too and not compared; CRLF line ends (a byte no kernel file
holds) are damage like the others. A duplicated host counter makes status partial; a directory symlink
is never followed (its process is not listed, maps of it exits 1).

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
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FX = os.path.join(REPO, "tests", "fixtures")
BIN = os.environ.get("THPCTL", os.path.join(REPO, "build", "asan", "thpctl"))
N = int(os.environ.get("MUTANTS", "76"))
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
         "u64max", "u64over", "minus1", "1e9999", "text", "longline", "nul", "crlf", "utf8",
         "dupkey", "allmax", "dirlink"]
# mutations after which the file is still valid by its grammar: numbers may change.
# GROW: every changed number grew, so no integer may shrink (a wrapped sum or product
# does); ANY: a bit flip (a digit becomes another digit) or a file cut at a line end
# (a shorter file, as a kernel may print) changes numbers either way: not compared.
GROW = {"u64max", "allmax"}
ANY = {"flip", "cut-at-line"}
KEYED = ("proc/vmstat", "proc/meminfo", "proc/buddyinfo")  # every key read, a copy is damage
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


def mutate(rng, path, kind, outside=None):
    """Damage PATH (a file in the copied tree) by KIND; dirlink: its directory.
    Returns the kind to compare by: "cut-at-line" for a truncate that ends a line."""
    if kind == "dirlink":
        d = os.path.dirname(path)
        shutil.rmtree(d)
        os.symlink(outside, d)
        return kind
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
        return kind
    if kind == "truncate":
        data = data[: rng.randrange(len(data) + 1)]
        if data.endswith(b"\n"):
            kind = "cut-at-line"
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
    elif kind == "dupkey":
        # a "key value" line again, its number changed: which copy is right is unknown
        lines = data.splitlines(keepends=True)
        keyed = [i for i, l in enumerate(lines) if re.match(rb"^[A-Za-z_(][\w()]*:?[ \t]+\d", l)]
        if keyed:
            i = rng.choice(keyed)
            # the value is the line's last number ("DirectMap4k:", "Node 0, zone" are keys)
            m = list(re.finditer(rb"\d+", lines[i]))[-1]
            copy = lines[i][: m.start()] + str(int(m.group()) + 1).encode() + lines[i][m.end():]
            lines.insert(rng.randrange(i + 1, len(lines) + 1), copy)
            data = b"".join(lines)
    elif kind == "allmax":
        data = re.sub(rb"\b\d+\b", NUMBERS["u64max"], data)
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(data)
    return kind


def load_schemas():
    """docs/json/ through tests/json_schema.py (None without python3-jsonschema)."""
    try:
        sys.path.insert(0, os.path.join(REPO, "tests"))
        import json_schema
        return json_schema, json_schema.load_schemas(os.path.join(REPO, "docs", "json"))
    except ImportError:
        return None, None


SCHEMA_MOD, SCHEMAS = load_schemas()


def execute(tree, argv):
    """(exit status, parsed JSON or None, stderr) of one run; None on a timeout."""
    try:
        p = subprocess.run([BIN, "--no-color", "--sysroot", tree] + argv, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=5)
    except subprocess.TimeoutExpired:
        return None
    doc = None
    if p.returncode == 0:
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            doc = ValueError
    return p.returncode, doc, p.stderr.decode("utf-8", "replace")


def item_key(v, i):
    """How a list item is named in a path: a process by pid, a VMA by start, a zone by node
    and name (a process gone from one run must not shift the others), else its index."""
    if isinstance(v, dict):
        for k in ("pid", "start"):
            if k in v:
                return f"{k}={v[k]}"
        if "zone" in v and "node" in v:
            return f"{v['node']}:{v['zone']}"
        if "size_kb" in v and "node" not in v:
            return f"size={v['size_kb']}"
    return str(i)


def numbers(doc, path=""):
    """{path: value} of every number (and null) in DOC; bools left out."""
    out = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.update(numbers(v, f"{path}/{k}"))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.update(numbers(v, f"{path}[{item_key(v, i)}]"))
    elif doc is None or (isinstance(doc, (int, float)) and not isinstance(doc, bool)):
        out[path] = doc
    return out


def compare(base, doc, kind):
    """What is wrong with DOC, a run on a tree damaged by KIND, against BASE (undamaged)."""
    if not isinstance(base, dict) or not isinstance(doc, dict) or doc.get("partial") is True:
        return None
    b, m = numbers(base), numbers(doc)
    for path, v in m.items():
        if path not in b or v is None or v == b[path] or b[path] is None:
            continue
        if kind in ANY:
            continue
        if kind in GROW:
            # a valid number may change; a derived integer that shrinks has wrapped
            if isinstance(v, int) and isinstance(b[path], int) and v < b[path]:
                return f"{path} went from {b[path]} to {v} without partial"
            continue
        return f"{path} is {v}, undamaged {b[path]}, and the document is not partial"
    return None


BASE_RUNS = {}  # (tree, argv): the run on the undamaged tree, made once (threads share it)
BASE_LOCK = threading.Lock()


def base_run(base_tree, argv):
    key = (base_tree, tuple(argv))
    with BASE_LOCK:
        if key in BASE_RUNS:
            return BASE_RUNS[key]
    got = execute(os.path.join(FX, base_tree), argv)
    with BASE_LOCK:
        return BASE_RUNS.setdefault(key, got)


def run(tree, argv, name, base_tree, kind, rel, outside_comm):
    """One command on TREE, compared with the undamaged BASE_TREE: (ok, name, detail)."""
    got = execute(tree, argv)
    if got is None:
        return False, name, "still running after 5 s"
    rc, doc, err = got
    if "Sanitizer" in err or "runtime error:" in err:
        return False, name, "sanitizer: " + err.strip().splitlines()[0][:200]
    if rc not in (0, 1, 2):
        return False, name, f"exit status {rc}: {err.strip()[:200]}"
    if doc is ValueError:
        return False, name, "invalid JSON"
    if doc is not None and SCHEMAS is not None:
        probs = SCHEMA_MOD.check(name, doc, argv[0], SCHEMAS, set())
        if probs:
            return False, name, "schema: " + " | ".join(probs)[:300]
    got = base_run(base_tree, argv)
    base = got[1] if got else None
    why = compare(base, doc, kind) if doc is not None else None
    if not why and kind == "dupkey" and rel in KEYED and argv[0] == "status" and doc \
            and doc.get("partial") is not True:
        why = f"a key of {rel} seen twice and status is not partial"
    if not why and kind == "dirlink":
        if argv[0] == "ps" and doc and any(p.get("comm") == outside_comm
                                           for p in doc.get("processes", [])):
            why = "ps followed a directory symlink out of the tree"
        elif argv[0] == "maps" and rel.startswith(f"proc/{argv[1]}/") and rc != 1:
            why = f"maps of a process whose directory is a symlink exited {rc}, not 1"
    return not why, name, why or ""


def run_mutant(tree, pid, label, *how):
    """The three commands on one mutant, then its tree goes: their results."""
    try:
        return [run(tree, argv, f"{label}: {' '.join(argv)}", *how)
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
    # what a directory symlink points at: a process directory outside the tree
    outside = os.path.join(top, "outside")
    outside_comm = "outside-the-tree"
    os.makedirs(outside)
    for f, text in (("status", f"Name:\t{outside_comm}\nPPid:\t1\nUid:\t0\t0\t0\t0\n"
                               "VmRSS:\t    4096 kB\n"),
                    ("stat", f"4242 ({outside_comm}) S 1 4242 4242 0 -1 4194304 0 0 0 0 1 1 "
                             "0 0 20 0 1 0 100\n"),
                    ("smaps", "00400000-00600000 rw-p 00000000 00:00 0 \nSize: 2048 kB\n"
                              "Rss: 2048 kB\nAnonHugePages: 2048 kB\n"),
                    ("smaps_rollup", "Rss: 2048 kB\nAnonHugePages: 2048 kB\n")):
        with open(os.path.join(outside, f), "w") as fh:
            fh.write(text)
    start = time.monotonic()
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
            if rng.random() < 0.5 or kind == "dirlink":
                rel = f"proc/{pid}/{rng.choice(PERPROC)}"
            else:
                rel = rng.choice(FILES)
            if kind == "dupkey" and rng.random() < 0.5:
                rel = rng.choice(KEYED)
            if not os.path.lexists(os.path.join(tree, rel)):
                # dirlink replaces the file's directory: keep it the process's
                rel = f"proc/{pid}/smaps" if kind == "dirlink" else "proc/vmstat"
            kind = mutate(rng, os.path.join(tree, rel), kind, outside)
            pending.append(pool.submit(run_mutant, tree, pid, f"#{i} {base} {rel} {kind}",
                                       base, kind, rel, outside_comm))
            running = [f for f in pending if not f.done()]
            if len(running) > 2 * jobs:  # a few trees on disk at once
                concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
        for f in pending:
            for r in f.result():
                result(*r)
        pool.shutdown()
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print(f"# {N} mutants (seed {SEED}), 3 commands each, compared with the undamaged runs; "
          f"{time.monotonic() - start:.0f} s")
    print(f"mutate: {passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
