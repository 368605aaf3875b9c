#!/usr/bin/env python3
"""The man page against the program (tests/man_help.sh runs it).

  man_help.py THPCTL MANPAGE

For every command of `THPCTL --help`: the man page has an entry for it (a .TP entry whose
.B line names it), and every option of `THPCTL CMD --help` (long and short, usage line and
option list) appears in that command's entries; the global options (GLOBAL_HELP) appear in
OPTIONS. Prints one "ok - ..." / "not ok - ..." line per command.
"""
import re
import subprocess
import sys

GLOBAL = {"--sysroot", "--json", "--color", "--no-color", "--wait", "--wide", "--help", "-h", "--root"}
OPT = re.compile(r"(?<![\w-])(--?[a-zA-Z][a-zA-Z0-9-]*)")


def help_of(thpctl, *args):
    p = subprocess.run([thpctl, *args, "--help"], capture_output=True, text=True, check=False)
    return p.stdout


def options(text):
    """Options a --help text defines: in its usage lines and its indented option lines."""
    out = set()
    usage = True
    for line in text.splitlines():
        if usage and (line.startswith("usage:") or line.startswith(" " * 7)):
            out.update(OPT.findall(line))
            continue
        usage = False
        m = re.match(r"^\s{1,4}(-[^ ].*?)(?:\s{2,}|$)", line)
        if m:
            out.update(OPT.findall(m.group(1)))
    return {o for o in out if o != "--" and len(o) > 1}


def man_text(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read().replace("\\\n", "").replace("\\-", "-").replace("\\fB", "").replace("\\fR", "") \
            .replace("\\fI", "").replace("\\fP", "")


def entries(man):
    """(header, body) of each .TP entry under COMMANDS, and the OPTIONS section text."""
    cmds = "\n" + man.split("\n.SH COMMANDS\n", 1)[1].split("\n.SH ", 1)[0]
    opts = man.split("\n.SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0]
    out = []
    for part in cmds.split("\n.TP\n")[1:]:
        head, _, body = part.partition("\n")
        out.append((head, part))
    return out, opts


def main():
    thpctl, manpath = sys.argv[1], sys.argv[2]
    top = help_of(thpctl)
    cmds = []
    on = False
    for line in top.splitlines():
        if line.startswith("commands:"):
            on = True
        elif on and not line.strip():
            break
        elif on:
            cmds.append(line.split()[0])
    man = man_text(manpath)
    ents, opts = entries(man)
    bad = 0
    if len(cmds) < 10:
        print("not ok - --help lists %d commands" % len(cmds))
        return 1
    for c in cmds:
        mine = [body for head, body in ents
                if re.search(r"(^\.B |[;|] *)%s\b" % re.escape(c), head)]
        if not mine:
            bad += 1
            print("not ok - man: no entry for %s" % c)
            continue
        text = "\n".join(mine)
        missing = sorted(o for o in options(help_of(thpctl, c)) - GLOBAL
                         if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text))
        if missing:
            bad += 1
            print("not ok - man: %s options not in its entry: %s" % (c, " ".join(missing)))
        else:
            print("ok - man: %s and its options" % c)
    missing = sorted(o for o in options(help_of(thpctl, "status")) & GLOBAL
                     if o not in ("-h", "--help", "--root")
                     and not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), opts))
    if missing:
        bad += 1
        print("not ok - man: global options not in OPTIONS: %s" % " ".join(missing))
    else:
        print("ok - man: global options in OPTIONS")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
