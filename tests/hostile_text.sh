#!/usr/bin/env bash
# Hostile text: a recorded tree whose strings would drive a terminal (ESC sequences that
# clear the screen and set the title, BEL, CR, DEL, other C0 bytes, C1 controls as UTF-8
# and as raw bytes, invalid UTF-8) in a process's comm (status and stat), cmdline,
# environ, cgroup path and unit, a VMA's name, the user name, the tuned profile, the
# kernel release, a THP setting's word, a vmstat key seen twice and a buddyinfo zone;
# and a capture bundle of that tree with a member named "../proc/ESC[2J ESC]0;TITLE BEL
# evil TAB x" (refused). Every command, text and --json, on both: no raw control byte (but '\n' and
# '\t') and no invalid UTF-8 on stdout or stderr, and the escaped name is shown.
#
#   tests/hostile_text.sh        (THPCTL=path overrides build/asan/thpctl)
#
# Harness: tests/lib.sh; last line "hostile-text: N passed, M failed, 0 skipped".
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
replay_env
suite_init hostile-text
need_built "$T"
need_python3
tests/restore-modes || nok "fixture modes" "cannot restore them from MODES"

TREE=$TMP/tree
PID=30730
python3 - tests/fixtures/cgroups-v2-x86 "$TREE" "$TMP/bundle.tar.gz" <<'PY'
import os, re, shutil, sys, tarfile
src, tree, bundle = sys.argv[1:4]
shutil.copytree(src, tree, symlinks=True)
H = b"\x1b[2J\x1b]0;TITLE\x07evil\r\x9b\xc2\x9b\xff\x7f\x01\x0b"  # no '/', ' ', ')', NUL
W = b"ev\x1b[8mil\x07"  # a short word (a key, a zone, a profile)
def path(rel):
    return os.path.join(tree.encode(), rel.encode() if isinstance(rel, str) else rel)
def cat(*parts):
    return b"".join(p.encode() if isinstance(p, str) else p for p in parts)
def rd(rel):
    return open(path(rel), "rb").read()
def wr(rel, data):
    p = path(rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if os.path.exists(p):
        os.chmod(p, 0o644)
    open(p, "wb").write(data)
pid = "proc/30730"
wr(pid + "/status", re.sub(rb"(?m)^Name:.*$", b"Name:\t" + H, rd(pid + "/status")))
wr(pid + "/stat", re.sub(rb"\(thpfix-layout\)", b"(" + H + b")", rd(pid + "/stat")))
wr(pid + "/cmdline", b"/usr/bin/" + H + b"\0--flag=" + H + b"\0")
wr(pid + "/environ", b"GLIBC_TUNABLES=glibc.malloc.hugetlb=" + H + b"\0MALLOC_CONF=" + H + b"\0")
unit = b"evil" + H + b".service"
wr(pid + "/cgroup", b"0::/system.slice/" + unit + b"\n")
red = "sys/fs/cgroup/system.slice/redis.service"
for f in os.listdir(red and os.path.join(tree, red)):
    data = rd(red + "/" + f)
    wr(cat("sys/fs/cgroup/system.slice/", unit, "/", f),
       b"30730\n" if f == "cgroup.procs" else data)
wr(red + "/cgroup.procs", b"")
smaps = rd(pid + "/smaps")
smaps = smaps.replace(b"/tmp/thpfix/thpfix-layout", b"/tmp/" + H, 1)
# a path with a newline, as the kernel writes it (seq_file_path escapes '\n' as \012)
wr(pid + "/smaps", smaps.replace(b"/tmp/thpfix/thpfix-layout", b"/tmp/new\\012line", 1))
wr("etc/passwd", rd("etc/passwd") + b"x" + W + b":x:1000:1000::/home/x:/bin/sh\n")
wr(pid + "/status", re.sub(rb"(?m)^Uid:.*$", b"Uid:\t1000\t1000\t1000\t1000", rd(pid + "/status")))
wr("etc/tuned/active_profile", W + b"\n")
wr("etc/tuned/profile_mode", b"manual\n")
wr("proc/sys/kernel/osrelease", b"6.18.0-" + W + b"\n")
thp = "sys/kernel/mm/transparent_hugepage/"
wr(thp + "defrag", b"always defer defer+madvise [madv" + W + b"] never\n")
wr("proc/vmstat", rd("proc/vmstat") + W + b" 1\n" + W + b" 2\n")
bi = rd("proc/buddyinfo").splitlines(keepends=True)
wr("proc/buddyinfo", b"".join(bi) + b"Node 0, zone   N\x1b[8m\x07 1 2 3 4 5 6 7 8 9 10 11 \n")
# the bundle: the tree, and one member whose name would drive the terminal
with tarfile.open(bundle, "w:gz", format=tarfile.GNU_FORMAT) as t:
    for root, dirs, files in os.walk(tree.encode()):
        for f in files:
            full = os.path.join(root, f)
            t.add(full.decode("utf-8", "surrogateescape"),
                  arcname=os.path.relpath(full, tree.encode()).decode("utf-8", "surrogateescape"))
    # refused for its ".." (a control byte alone is a valid name: a cgroup may hold one)
    evil = tarfile.TarInfo("../proc/\x1b[2J\x1b]0;TITLE\x07evil\tx")
    evil.size = 3
    import io
    t.addfile(evil, io.BytesIO(b"x\n\n"))
PY
[ -d "$TREE/proc" ] || { nok "hostile tree" "not built"; summary; }

# clean FILE: no control byte but \n and \t, no C1, valid UTF-8 (prints what is wrong)
clean() {
	python3 - "$1" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
try:
    s = b.decode("utf-8")
except UnicodeDecodeError as e:
    print(f"invalid UTF-8 at byte {e.start}: {b[max(0, e.start - 20):e.start + 10]!r}")
    sys.exit(1)
m = re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", s)
if m:
    print(f"raw control {m.group()!r} at {m.start()}: {s[max(0, m.start() - 30):m.start() + 10]!r}")
    sys.exit(1)
PY
}

CMDS=("status" "status --brief" "ps --all" "ps --all --rollup" "ps --all --by cgroup"
	"maps $PID" "why $PID" "advise" "advise --workload redis" "hugetlb plan --for 8G"
	"cgroups" "persist" "set --dry-run enabled=never" "watch -i 0.2 -n 2"
	"snapshot diff $TMP/plain.snap")
JSON_ONLY=("exporter --once" "exporter --once --json" "snapshot save -")
# what snapshot diff compares with: the same tree before its THP words were made hostile
"$T" --sysroot tests/fixtures/cgroups-v2-x86 snapshot save "$TMP/plain.snap" >/dev/null 2>&1 ||
	nok "snapshot save" "cannot save $TMP/plain.snap"
run_one() { # LABEL ROOT ARGS...
	local label=$1 root=$2
	shift 2
	timeout -s KILL 20 "$T" --no-color --sysroot "$root" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	if [ "$rc" -gt 2 ] || grep -qE 'Sanitizer|runtime error:' "$TMP/err"; then
		nok "$label: runs" "exit $rc: $(head -c 300 "$TMP/err")"
		return
	fi
	local why
	if why=$(clean "$TMP/out"); then ok "$label: stdout clean"; else nok "$label: stdout clean" "$why"; fi
	if why=$(clean "$TMP/err"); then ok "$label: stderr clean"; else nok "$label: stderr clean" "$why"; fi
}
for root in "$TREE" "$TMP/bundle.tar.gz"; do
	what=tree
	[ "$root" = "$TREE" ] || what=bundle
	for cmd in "${CMDS[@]}"; do
		read -r -a argv <<<"$cmd"
		run_one "$what: $cmd" "$root" "${argv[@]}"
		run_one "$what: $cmd --json" "$root" "${argv[@]}" --json
	done
	for cmd in "${JSON_ONLY[@]}"; do
		read -r -a argv <<<"$cmd"
		run_one "$what: $cmd" "$root" "${argv[@]}"
	done
done

# not vacuous: the names are there, escaped
"$T" --no-color --sysroot "$TREE" ps --all >"$TMP/out" 2>&1
expect_eval "ps shows the hostile comm escaped" "grep -qF '\\x1b[2J\\x1b]0;TITLE\\x07evil\\x0d' '$TMP/out'" \
	"$(grep -a "$PID" "$TMP/out" | head -c 200)"
# the exporter: the cgroup label's bytes the text format cannot carry as U+FFFD and their hex
# (one to one: two cgroups differing only in such a byte stay two series)
"$T" --sysroot "$TREE" exporter --once >"$TMP/out" 2>&1
M=$'\xef\xbf\xbd'
want="cgroup=\"/system.slice/evil${M}1B[2J${M}1B]0;TITLE${M}07evil${M}0D${M}9B${M}C2${M}9B${M}FF${M}7F${M}01${M}0B.service\""
expect_eval "exporter: the hostile cgroup path escaped one to one in its label" \
	"grep -qF '$want' '$TMP/out'" "$(grep -a 'evil' "$TMP/out" | head -n 2 | head -c 300)"
# persist --format tuned quotes /etc/tuned/active_profile in its comment (stdout and, with
# --install, tuned.conf): a profile name first, then control bytes, must not reach either
cp -a tests/fixtures/linux-6.18-x86 "$TMP/tuned" && mkdir -p "$TMP/tuned/etc/tuned" &&
	printf 'throughput-performance \033[2Jcleared\n' >"$TMP/tuned/etc/tuned/active_profile"
"$T" --no-color --sysroot "$TMP/tuned" persist --format tuned enabled=never >"$TMP/out" 2>&1
expect_eval "persist --format tuned: the active profile's other words left out, no raw bytes" \
	"clean '$TMP/out' >/dev/null && grep -qF '(throughput-performance; words that are no profile name left out)' '$TMP/out'" \
	"$(grep -a active_profile "$TMP/out" | od -c | head -3)"
# a newline in a VMA's path: shown as \x0a like any control byte (not the kernel's \012),
# and the path's own bytes in JSON
"$T" --no-color --sysroot "$TREE" maps "$PID" >"$TMP/out" 2>&1
expect_eval "maps shows a newline in a VMA's path as \\x0a" \
	"grep -qF '/tmp/new\\x0aline' '$TMP/out' && ! grep -qF '\\012' '$TMP/out'" \
	"$(grep -a 'tmp/new' "$TMP/out" | head -c 200)"
"$T" --sysroot "$TREE" maps "$PID" --json >"$TMP/out" 2>&1
expect_eval "maps --json: the VMA's name holds the newline itself" \
	"python3 -c 'import json,sys; sys.exit(0 if any(v[\"name\"] == \"/tmp/new\\nline\" for v in json.load(open(sys.argv[1]))[\"vmas\"]) else 1)' '$TMP/out'" \
	"$(grep -a 'tmp/new' "$TMP/out" | head -c 200)"
"$T" --no-color --sysroot "$TMP/bundle.tar.gz" status >/dev/null 2>"$TMP/err"
expect_eval "bundle: the refused member is named, escaped" \
	"grep -qF '../proc/\\x1b[2J\\x1b]0;TITLE\\x07evil\\x09x' '$TMP/err'" "$(head -c 300 "$TMP/err")"
"$T" --no-color --sysroot "$TREE" status >"$TMP/out" 2>&1
expect_eval "status: a vmstat key with control bytes is a malformed line" \
	"head -n1 '$TMP/out' | grep -qF 'proc/vmstat (malformed'" \
	"$(head -n1 "$TMP/out" | head -c 300)"
# snapshot: a file name and a saved value are an argument's and a file's bytes: escaped on
# stdout and in messages (the stderr filter keeps a newline, so it is escaped there first)
hname=$TMP/$'we\x1bird\nname.json'
"$T" --no-color --sysroot tests/fixtures/linux-6.18-x86 snapshot save "$hname" >"$TMP/out" 2>&1
expect_eval "snapshot save: the file name escaped (no raw ESC or newline)" \
	"grep -qF 'we\\x1bird\\x0aname.json' '$TMP/out' && [ \$(wc -l <'$TMP/out') = 1 ] && ! grep -q \$'\\x1b' '$TMP/out'" \
	"$(head -c 300 "$TMP/out" | od -c | head -5)"
"$T" --no-color --sysroot tests/fixtures/linux-6.18-x86 snapshot diff "$hname" >"$TMP/out" 2>&1
expect_eval "snapshot diff: the file name escaped" \
	"grep -qF 'no differences between $TMP/we\\x1bird\\x0aname.json and' '$TMP/out' && [ \$(wc -l <'$TMP/out') = 1 ]" \
	"$(head -c 300 "$TMP/out" | od -c | head -5)"
rm -f "$hname"
printf '{"thpctl_snapshot": 1, "kernel": "x", "date": "", "knobs": {"enabled": "madvise\\nnever"}}\n' >"$TMP/nl.snap"
"$T" --no-color --sysroot tests/fixtures/linux-6.18-x86 snapshot restore "$TMP/nl.snap" --dry-run >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "snapshot restore: a saved value with a newline is refused, escaped in the message (exit 1)" \
	"[ $rc = 1 ] && grep -qF \"thpctl: snapshot restore: enabled: 'madvise\\x0anever' is not offered\" '$TMP/err' && ! grep -q '^never' '$TMP/err'" \
	"exit $rc: $(head -c 300 "$TMP/err")"
summary
