#!/usr/bin/env python3
"""Build hostile capture bundles for tests/live/capture.sh.

usage: capture_hostile.py DIR OUTSIDE

Writes DIR/NAME.tar.gz for each case below. Every bundle holds a small valid
tree (proc/vmstat, proc/meminfo, the THP enabled knob, osrelease) so that a
replay can succeed, plus the hostile part. OUTSIDE is a directory outside
the extraction directory: the escape cases aim at OUTSIDE/escaped-NAME, which
must never exist afterwards.
"""
import gzip
import io
import os
import sys
import tarfile

VALID = {
    "proc/vmstat": b"nr_anon_transparent_hugepages 3\nthp_fault_alloc 7\n",
    "proc/meminfo": b"MemTotal:       1000000 kB\nAnonHugePages:     6144 kB\n",
    "proc/sys/kernel/osrelease": b"6.1.0-hostile\n",
    "sys/kernel/mm/transparent_hugepage/enabled": b"always [madvise] never\n",
}


def add_file(t, name, data, mode=0o444):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    ti.mode = mode
    t.addfile(ti, io.BytesIO(data))


def add_valid(t):
    for k, v in VALID.items():
        add_file(t, k, v)


def special(name, kind, **kw):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    for k, v in kw.items():
        setattr(ti, k, v)
    return ti


class Zeros(io.RawIOBase):
    """n zero bytes, streamed (a huge member without holding it in memory)."""

    def __init__(self, n):
        self.left = n

    def readable(self):
        return True

    def readinto(self, b):
        k = min(len(b), self.left)
        b[:k] = bytes(k)
        self.left -= k
        return k


def bundle(path, fill, fmt=tarfile.PAX_FORMAT):
    with tarfile.open(path, "w:gz", format=fmt, compresslevel=1) as t:
        add_valid(t)
        fill(t)


def main():
    d, outside = sys.argv[1], sys.argv[2]
    rel_out = os.path.relpath(outside, "/")
    cases = {
        # names that point out of the tree: skipped, never written
        "absolute": lambda t: add_file(t, os.path.join(outside, "escaped-absolute"), b"x"),
        "dotdot": lambda t: add_file(t, "proc/../../../../../../../../" + rel_out + "/escaped-dotdot", b"x"),
        "dotdot-lead": lambda t: add_file(t, "../escaped-dotdot-lead", b"x"),
        # a symlink out of the tree, then a file written "through" it
        "symlink": lambda t: (
            t.addfile(special("sys/out", tarfile.SYMTYPE, linkname=outside)),
            t.addfile(special("proc/cmdline", tarfile.SYMTYPE, linkname="/etc/shadow")),
            add_file(t, "sys/out/escaped-symlink", b"x"),
        ),
        "hardlink": lambda t: (
            t.addfile(special("proc/uptime", tarfile.LNKTYPE, linkname="/etc/shadow")),
            t.addfile(special("proc/buddyinfo", tarfile.LNKTYPE, linkname="proc/vmstat")),
        ),
        "device": lambda t: t.addfile(special("proc/zoneinfo", tarfile.CHRTYPE, devmajor=1, devminor=3)),
        "fifo": lambda t: t.addfile(special("proc/pagetypeinfo", tarfile.FIFOTYPE)),
        # over the per-member cap (256 MiB): zeros compress to a few hundred kB
        "huge": lambda t: t.addfile(
            (lambda ti: (setattr(ti, "size", (256 << 20) + 1), ti)[1])(tarfile.TarInfo("proc/smaps-huge")),
            io.BufferedReader(Zeros((256 << 20) + 1)),
        ),
        # 3000 members (the suite lowers the member cap to 2000 through the test hook)
        "many": lambda t: [add_file(t, "proc/many/%d" % i, b"") for i in range(3000)],
        # 12 members of 1 MiB (the suite lowers the total cap to 8 MiB)
        "total": lambda t: [add_file(t, "proc/big/%d" % i, bytes(1 << 20)) for i in range(12)],
        # a pax record of 2 MiB: libarchive refuses special headers this large
        "pax": lambda t: t.addfile(
            (lambda ti: (setattr(ti, "pax_headers", {"comment": "x" * (2 << 20)}), ti)[1])(tarfile.TarInfo("proc/pax")),
            io.BytesIO(b""),
        ),
        "duplicate": lambda t: add_file(t, "proc/vmstat", b"nr_anon_transparent_hugepages 999\n"),
    }
    for name, fill in cases.items():
        bundle(os.path.join(d, name + ".tar.gz"), fill)
    # a valid bundle, then damaged copies of it
    good = os.path.join(d, "good.tar.gz")
    bundle(good, lambda t: None)
    raw = open(good, "rb").read()
    with open(os.path.join(d, "truncated.tar.gz"), "wb") as f:
        f.write(raw[: len(raw) // 2])
    bad = bytearray(raw)
    for i in range(20, min(len(bad), 120)):
        bad[i] ^= 0x5A
    with open(os.path.join(d, "corrupt.tar.gz"), "wb") as f:
        f.write(bytes(bad))
    with open(os.path.join(d, "garbage.tar.gz"), "wb") as f:
        f.write(gzip.compress(os.urandom(4096)))
    with open(os.path.join(d, "empty.tar.gz"), "wb") as f:
        pass


if __name__ == "__main__":
    main()
