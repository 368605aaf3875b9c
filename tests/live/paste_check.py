#!/usr/bin/env python3
"""The restart command of a live process, pasted: what `why` and `advise` print for it runs
the process's argv byte for byte (tests/live/advice.sh).

    paste_check.py PID DIR

DIR holds why.txt and advise.txt (at 80 columns, wrapped) and why.json and advise.json. Each
suggested `thpctl run --thp=off -- ...` is given to bash with `thpctl run --thp=off --`
replaced by `printf '%s\\0'`: the words bash prints must be the process's program (its exe)
and then its arguments exactly, as /proc/PID/cmdline has them. The JSON's run_argv must be
that argv too (a byte of invalid UTF-8 reads U+FFFD there). The text holds no raw control
byte, and a line wider than 80 columns is one word (a quoted script, never cut). Prints "ok -"
and "not ok -" lines for relay_results.
"""
import json
import os
import subprocess
import sys

RUN = "thpctl run --thp=off -- "
pid, d = int(sys.argv[1]), sys.argv[2]
args = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[1:-1]
exe = os.readlink(f"/proc/{pid}/exe")


def report(name, good, detail=""):
    print(("ok - " if good else "not ok - ") + name + ("" if good else ": " + detail[:400]))


def pasted(cmd):
    """The words bash makes of CMD (text, lines) with the run replaced by printf; None: no run."""
    if RUN not in cmd:
        return None
    script = cmd.replace(RUN, "printf '%s\\0' ", 1).encode("utf-8", "surrogateescape")
    r = subprocess.run(["bash"], input=script, capture_output=True)
    if r.returncode:
        return ["bash failed: " + r.stderr.decode(errors="replace")]
    return r.stdout.split(b"\0")[:-1]


def same_argv(words):
    return (words is not None and len(words) == len(args) + 1
            and os.path.realpath(words[0]) == os.fsencode(exe) and words[1:] == args)


def json_argv(a):
    return (a is not None and os.path.realpath(a[0]) == exe
            and a[1:] == [x.decode("utf-8", "replace") for x in args])


def text_command(lines, start):
    """The command that starts on lines[start]: it goes on while a line ends with ' \\'."""
    out = [lines[start]]
    while out[-1].endswith(" \\") and start + len(out) < len(lines):
        out.append(lines[start + len(out)])
    return "\n".join(out)


def check_text(name, path, block):
    raw = open(path, "rb").read()
    report(f"{name}: no raw control byte reaches the terminal",
           not any(b < 0x20 and b != 0x0a for b in raw), repr(raw[:200]))
    lines = raw.decode("utf-8", "surrogateescape").split("\n")
    at = [i for i, l in enumerate(lines) if l.startswith(block)] if block else [0]
    runs = [i for i in range(at[0] if at else len(lines), len(lines)) if RUN in lines[i]][:1]
    if not runs:
        report(f"{name}: the suggested run command is printed", False, "none found")
        return
    cmd = text_command(lines, runs[0])
    words = pasted(cmd)
    report(f"{name}: the run command pasted into bash gives its exact argv", same_argv(words),
           f"{cmd!r} -> {words!r}, want {exe!r} {args!r}")
    # a line wider than 80 columns is one quoted word on a line of its own (the script)
    wide = [l for l in cmd.split("\n") if len(l) > 80 and not l.lstrip().startswith(("$'", "'"))]
    report(f"{name}: at 80 columns it is broken between its words only", not wide, repr(wide))


def check_json(name, fixes):
    f = [x for x in fixes if x["fix"] == "thpctl-run-off"]
    if not f:
        report(f"{name}: a thpctl-run-off fix", False, json.dumps(fixes)[:300])
        return
    words = pasted(f[0]["command"] or "")
    report(f"{name}: command pasted into bash gives its exact argv", same_argv(words),
           f"{f[0]['command']!r} -> {words!r}")
    report(f"{name}: run_argv is its argv", json_argv(f[0]["run_argv"]),
           f"{f[0]['run_argv']!r}, want {exe!r} {args!r}")


why = json.load(open(f"{d}/why.json"))
check_json("why --json", (why.get("what_to_change") or {}).get("fixes", []))
adv = json.load(open(f"{d}/advise.json"))
check_json("advise --json", next((x["fixes"] for x in adv["flagged"] if x["pid"] == pid), []))
check_text("why (80 columns)", f"{d}/why.txt", None)
check_text("advise (80 columns)", f"{d}/advise.txt", f"  PID {pid} (")
