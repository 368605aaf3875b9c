#!/usr/bin/env bash
# Output width: the human output of every command whose stdout thpctl wraps (the allow-list in
# src/main.c, util/wrap.h) fits COLUMNS=80 on a pipe, counted in UTF-8 code points without
# colour escapes: on every recorded tree under tests/fixtures/ (status, status --brief, ps,
# ps --rollup, advise, hugetlb plan, cgroups, and why and maps of the PIDs recorded there) and
# on this host (status, status --brief, ps, ps --ledger, why of a process this suite starts).
# The code blocks of README.md, docs/diagnosis.md, docs/json.md, docs/benchmarks.md and
# docs/ARCHITECTURE.md fit 80 columns too (no line of one wider).
# why's facts each carry a mark of its legend and wrap 4 columns in.
# Wrapping loses no word (the text equals the --wide text, whitespace aside, a word longer than
# a line broken into pieces: a VMA's 126-character path on a copy of a tree; a command's " \"
# continuations aside); --wide and
# THPCTL_WIDE=1 give the whole lines; JSON and file formats are never wrapped; a write error
# still exits 1. Messages on stderr are wrapped the same way when COLUMNS is set, whole on a
# pipe without it and with --wide. Read-only: no root needed, no setting changed.
# shellcheck disable=SC2016,SC2034 # expect_eval evaluates its condition string later
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
replay_env
unset THPCTL_WIDE # lib.sh turns wrapping off for the other suites
export COLUMNS=80
suite_init columns
need_built "$T"
need_python3
FIX=tests/fixtures

# The cases, one a line: "NAME<TAB>ARGS<TAB>CMP" (ARGS split on spaces; CMP 1: compare the text
# with the --wide text); out/err/rc/wide under $TMP/c/LINE-NUMBER.
: >"$TMP/cases"
add() { printf '%s\t%s\t%s\n' "$1" "$2" "${3:-}" >>"$TMP/cases"; }
# the text is compared with the --wide text on two trees (each case runs twice there)
SAME="linux-6.18-x86 frag-always-x86"
for d in "$FIX"/*/; do
	fx=$(basename "$d")
	d=${d%/}
	cmp=
	[[ " $SAME " == *" $fx "* ]] && cmp=1
	for c in "status" "status --brief" "ps --all" "advise" "hugetlb plan --for 8G" "cgroups"; do
		# a tree that recorded no proc/ (what sos collects) has no process to list
		[ "$c" = "ps --all" ] && [ ! -d "$d/proc" ] && continue
		add "$fx: $c" "--sysroot $d $c" $cmp
	done
	[ -d "$d/proc" ] || continue
	n=0
	# the first two workload PIDs recorded there (not 1 nor kernel threads; < 60 s in all)
	for p in $(find "$d/proc" -mindepth 1 -maxdepth 1 -name '[0-9][0-9][0-9]*' -printf '%f\n' |
		sort -n | head -n2); do
		add "$fx: why $p" "--sysroot $d why $p" $cmp
		n=$((n + 1))
		[ "$n" -le 1 ] && add "$fx: maps $p" "--sysroot $d maps $p" $cmp
	done
done
add "linux-6.18-x86: ps --rollup --all" "--sysroot $FIX/linux-6.18-x86 ps --rollup --all" 1
# a node's pool: its tmpfiles.d line (85 columns) becomes the command that adds it, broken
# between its words (so not the --wide words)
add "numa-2node-x86: hugetlb plan --for 8G --node 1" "--sysroot $FIX/numa-2node-x86 hugetlb plan --for 8G --node 1"
# a 1G pool's nr_hugepages path (73 columns) is wider than the continuation indent leaves:
# that word starts further left (it was on an 81-column line)
for n in 0 1; do
	for p in 2M 1G; do
		add "numa-2node-x86: hugetlb plan --for 1G --page $p --node $n" \
			"--sysroot $FIX/numa-2node-x86 hugetlb plan --for 1G --page $p --node $n"
	done
done
# capture's message (written from a recorded tree into $TMP: nothing else is written)
add "linux-6.18-x86: capture" "--sysroot $FIX/linux-6.18-x86 capture -o $TMP/columns-capture.tar.gz"
# a VMA named by a path longer than a line (an unbreakable word): a copy of linux-6.18-x86
# whose first mapping of 30730 is a 126-character library path
cp -a "$FIX/linux-6.18-x86" "$TMP/longpath"
LONG=/usr/lib/python3/dist-packages/numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so.libs/libgfortran-040039e1.so.5.0.0
sed -i "1s|/tmp/thpfix/thpfix-layout|$LONG|" "$TMP/longpath/proc/30730/smaps"
add "a 126-character path: maps 30730" "--sysroot $TMP/longpath maps 30730" 1
"$T" --sysroot "$FIX/linux-4.14-x86" snapshot save "$TMP/snap.json" >/dev/null 2>&1
add "snapshot diff (4.14's settings vs 6.18's)" \
	"--sysroot $FIX/linux-6.18-x86 snapshot diff $TMP/snap.json" 1
add "help" "--help" 1
add "status help" "status --help" 1
sleep 600 &
SLEEPER=$!
track_pid "$SLEEPER"
# live values move between two runs: no --wide comparison here
for c in "status" "status --brief" "ps" "ps --ledger" "why $SLEEPER" "maps $SLEEPER"; do
	add "host: $c" "$c"
done

mkdir -p "$TMP/c"
# run one case: $1 = its line number in $TMP/cases (the name has spaces; files by number)
# shellcheck disable=SC2317 # run by xargs through export -f
run_case() {
	local args cmp
	IFS=$'\t' read -r _ args cmp < <(sed -n "${1}p" "$TMP/cases")
	# shellcheck disable=SC2086 # ARGS are words
	"$T" --no-color $args >"$TMP/c/$1.out" 2>"$TMP/c/$1.err"
	echo $? >"$TMP/c/$1.rc"
	# shellcheck disable=SC2086
	[ -z "$cmp" ] || THPCTL_WIDE=1 "$T" --no-color $args >"$TMP/c/$1.wide" 2>/dev/null
}
export -f run_case
export T TMP
# the bulk without LeakSanitizer's exit scan (it doubles each run: < 60 s in all); the checks
# below run with it, through the filter
seq "$(wc -l <"$TMP/cases")" |
	ASAN_OPTIONS=${LIB_ASAN_GIVEN:-detect_leaks=0:exitcode=86} xargs -P 2 -I{} bash -c 'run_case {}'
stop_pid "$SLEEPER"

relay_results "width check" < <(python3 - "$TMP/cases" "$TMP/c" <<'PY'
import re, sys
csi = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
cases = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8")]
def same_words(out, wide):
    """Each word of WIDE is a run of words of OUT put together (a word longer than a line,
    a path, is broken into pieces: util/wrap.h), and nothing is left over."""
    i = 0
    for w in wide:
        acc = ""
        while len(acc) < len(w) and i < len(out):
            acc += out[i]
            i += 1
        if acc != w:
            return False
    return i == len(out)
for i, (name, _, cmp) in enumerate(cases, 1):
    base = "%s/%d" % (sys.argv[2], i)
    rc = open(base + ".rc").read().strip()
    out = open(base + ".out", encoding="utf-8", errors="replace").read()
    wide = open(base + ".wide", encoding="utf-8", errors="replace").read() if cmp else None
    if rc not in ("0", "1") or not out:
        err = open(base + ".err", errors="replace").read().strip().splitlines()[-1:]
        print("not ok - %s: exit %s, %d bytes out %s" % (name, rc, len(out), err))
        continue
    lines = out.splitlines()
    w = max(len(csi.sub("", l)) for l in lines)
    if w > 80:
        l = max(lines, key=lambda l: len(csi.sub("", l)))
        print("not ok - %s: a line of %d columns: %r" % (name, w, l[:100]))
    # a command to paste is broken between its words with a " \\" that continues it
    elif wide is not None and not same_words(out.replace(" \\\n", "\n").split(), wide.split()):
        print("not ok - %s: the wrapped text is not the --wide text (whitespace aside)" % name)
    # status's verdict rows: the arrow and its command stay together on one line
    elif wide is not None and any("->  " + c not in out for c in
                                  re.findall(r"  ->  (thpctl[^\n]*)$", wide, re.M)):
        print("not ok - %s: a verdict's '->  thpctl ...' is broken over two lines" % name)
    else:
        print("ok - %s: widest line %d, %d lines%s" % (name, w, len(lines),
              " (--wide: %d, the same words)" % len(wide.splitlines()) if cmp else ""))
PY
)

# why, wrapped: every fact has a mark the legend explains (+ - = ?), and a fact's wrapped lines go
# on 4 columns in, like the first line's (an unmarked fact started with blanks: 6 there, 4 here)
relay_results "why marks" < <(python3 - "$TMP/cases" "$TMP/c" <<'PY'
import re, sys
cases = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8")]
legend = "(+ helps, - stands in the way, = neither, ? unknown)"
for i, (name, _, _) in enumerate(cases, 1):
    if ": why " not in name:
        continue
    lines = open("%s/%d.out" % (sys.argv[2], i), encoding="utf-8", errors="replace").read().splitlines()
    if legend not in lines:
        print("not ok - %s: no legend line %r" % (name, legend))
        continue
    facts = lines[1:lines.index(legend)]
    bad = [l for l in lines[:1] + facts if l[:1] == " " and not re.match(r"    \S", l)]
    bad += [l for l in facts if l[:1] != " " and not re.match(r"[-+=?] \S", l)]
    nfacts = sum(1 for l in facts if l[:1] != " ")
    if bad or not nfacts:
        print("not ok - %s: a fact without a mark, or not 4 columns in: %r" % (name, bad[:2]))
    else:
        print("ok - %s: %d facts, each marked, wrapped 4 columns in" % (name, nfacts))
PY
)

# --wide and THPCTL_WIDE=1: the whole lines (a tree whose status has lines over 80 today)
t_wide() { "$T" --no-color --sysroot "$FIX/frag-always-x86" "$@"; }
t_wide status --wide >"$TMP/w1"
THPCTL_WIDE=1 t_wide status >"$TMP/w2"
t_wide status >"$TMP/w0"
long=$(awk 'length($0) > 80' "$TMP/w1" | wc -l)
expect_eval "--wide: status of frag-always-x86 keeps its long lines" '[ "$long" -gt 0 ]' \
	"no line over 80 with --wide"
expect_cmd "THPCTL_WIDE=1 is --wide" "the outputs differ" cmp -s "$TMP/w1" "$TMP/w2"
expect_eval "without --wide the same status is wrapped" \
	'! cmp -s "$TMP/w0" "$TMP/w1" && [ "$(wc -l <"$TMP/w0")" -gt "$(wc -l <"$TMP/w1")" ]'
wide_after=$(t_wide --wide status | cmp - "$TMP/w1" && echo same)
expect_eval "--wide before the command is --wide after it" '[ "$wide_after" = same ]'

# never wrapped: JSON (the option before or after the command), a file format, watch
for j in "status --json" "--json status" "advise --json"; do
	# shellcheck disable=SC2086
	a=$(t_wide $j | md5sum) b=$(THPCTL_WIDE=1 t_wide $j | md5sum)
	expect_eval "$j: not wrapped" '[ "$a" = "$b" ]'
done
a=$(t_wide persist --format tuned | md5sum) b=$(THPCTL_WIDE=1 t_wide persist --format tuned | md5sum)
expect_eval "persist (a configuration file): not wrapped" '[ "$a" = "$b" ]'

# a write error is still an error (the filter passes it on): exit 1 and a message
t_wide status >/dev/full 2>"$TMP/full.err"
rc=$?
expect_eval "status >/dev/full: exit 1, 'write error'" \
	'[ "$rc" -eq 1 ] && grep -q "write error" "$TMP/full.err"' "exit $rc: $(head -c 200 "$TMP/full.err")"

# snapshot restore --dry-run's commands at 40 columns: broken between words with " \" (they
# ran to 57), whatever comes between snapshot and its verb; save - stays the snapshot as written
COLUMNS=40 "$T" snapshot --sysroot "$FIX/linux-6.18-x86" restore "$TMP/snap.json" --dry-run \
	>"$TMP/rdry" 2>/dev/null
COLUMNS=40 "$T" snapshot --sysroot "$FIX/linux-6.18-x86" save - >"$TMP/rsave" 2>/dev/null
expect_eval "snapshot restore --dry-run at COLUMNS=40: 'echo VALUE > PATH' broken before the path" \
	"grep -qx 'echo always > \\\\' '$TMP/rdry' && ! grep -q '^echo .*/sys/' '$TMP/rdry' && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' '$TMP/rsave' && [ \$(awk 'length > 40' '$TMP/rsave' | wc -l) -gt 0 ]" \
	"$(head -c 300 "$TMP/rdry")"

# messages on stderr: wrapped to COLUMNS like stdout when it is set (or stderr is a terminal),
# with no word lost; whole lines without it on a pipe and with --wide or THPCTL_WIDE=1
NOWHERE=/nonexistent/a-sysroot-directory-that-does-not-exist/with/a-long/path/under/it/for/the/test
msg() { { "$T" --no-color "$@" status >/dev/null; } 2>&1; }
# a table wider than 80 columns on a pipe is stacked: each row's first columns on one line,
# the rest on the next, every value under its own header line (not word-wrapped at random)
(unset COLUMNS THPCTL_WIDE && "$T" --sysroot "$FIX/alloc-x86" ps --all >"$TMP/stack" 2>/dev/null)
expect_eval "ps --all on a pipe: stacked lines, values under their header" \
	'python3 - "$TMP/stack" <<"PY"
import sys
l = open(sys.argv[1]).read().split("\n")
assert l[0].startswith("  PID  USER") and len(l[0]) <= 80, l[0]
assert l[1].startswith("    ") and l[1].rstrip().endswith("REASON"), l[1]
col = l[1].index("REASON")
assert l[3][col:].startswith("opted in by madvise"), (l[3], col)
assert l[1].index("ELIG") + 4 == len(l[3][: l[1].index("ELIG") + 4].rstrip()), l[3]
PY' "$(head -n 4 "$TMP/stack")"
for w in 80 60; do
	COLUMNS=$w msg --sysroot "$NOWHERE" >"$TMP/m$w"
	COLUMNS=$w "$T" collapse 1 --range zz 2>>"$TMP/m$w" >/dev/null
	widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/m$w")
	expect_eval "stderr at COLUMNS=$w: messages wrapped, widest line $widest" \
		'[ "$widest" -le "$w" ] && [ "$(wc -l <"$TMP/m$w")" -gt 2 ]' "$(head -c 300 "$TMP/m$w")"
done
(
	unset COLUMNS
	msg --sysroot "$NOWHERE" >"$TMP/mpipe"
	"$T" collapse 1 --range zz 2>>"$TMP/mpipe" >/dev/null
)
COLUMNS=80 THPCTL_WIDE=1 msg --sysroot "$NOWHERE" >"$TMP/mwide"
COLUMNS=80 "$T" --wide collapse 1 --range zz 2>>"$TMP/mwide" >/dev/null
expect_eval "stderr on a pipe without COLUMNS, and with --wide: whole lines (2 messages, a usage hint)" \
	'[ "$(wc -l <"$TMP/mpipe")" -eq 3 ] && cmp -s "$TMP/mpipe" "$TMP/mwide"' \
	"$(head -c 300 "$TMP/mpipe" "$TMP/mwide")"
expect_eval "stderr: the wrapped messages say what the whole lines say" \
	'[ "$(tr -d " \n" <"$TMP/m80")" = "$(tr -d " \n" <"$TMP/mpipe")" ]'
# a command's --help lays out its own lines within 80 columns, an option's text continued
# under its text; the filter would continue it 4 columns in ("      needed)" under --dry-run)
# (advise's list of workloads and lab's of experiments come from tables: the filter lays
# them out, below)
for c in status ps maps watch report exporter trace cgroups why hugetlb run set snapshot \
	persist capture ab collapse; do
	THPCTL_WIDE=1 "$T" "$c" --help >"$TMP/help" 2>&1
	widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/help")
	expect_eval "$c --help: laid out within 80 columns (widest $widest)" '[ "$widest" -le 80 ]' \
		"$(awk 'length($0) > 80' "$TMP/help")"
done
# the compact legend points at `watch --help` for the counter behind each short title: the
# help names every one (and the legend stays short: 4 lines at 80)
THPCTL_WIDE=1 "$T" watch --help >"$TMP/help" 2>&1
missing=
for w in thp_fault_alloc thp_fault_fallback thp_collapse_alloc thp_collapse_alloc_failed \
	thp_split_page thp_split_pmd thp_deferred_split_page compact_stall compact_fail \
	"allocstall_\\* summed" pgscan_direct AnonHugePages buddyinfo anon_fault_alloc \
	anon_fault_fallback; do
	grep -q -- "$w" "$TMP/help" || missing+=" $w"
done
expect_eval "watch --help names the counter behind each compact title" '[ -z "$missing" ]' \
	"missing:$missing"
# watch on a pipe: its legend (a comment to a reader of the rows) wraps, every line of it '#';
# the rows take the compact layout: a group line, the short titles and the row (and an mTHP
# line under it when a size moved in that second), all within 80; the legend wrapped at 80 says what the one wrapped at 145 says (COLUMNS=147: still
# compact); --wide: the wide title line and row, one line each, wider than 80
"$T" --no-color watch -n 1 >"$TMP/watch" 2>"$TMP/watch.err"
COLUMNS=147 "$T" --no-color watch -n 1 >"$TMP/watch147" 2>>"$TMP/watch.err"
"$T" --no-color --wide watch -n 1 >"$TMP/watchw" 2>>"$TMP/watch.err"
leg=$(grep -c "^#" "$TMP/watch")
expect_eval "watch -n 1 on a pipe: the legend wrapped, $leg lines, each '#', all within 80" \
	'[ "$leg" -gt 1 ] && [ "$leg" -le 4 ] && ! awk "length(\$0) > 80" "$TMP/watch" | grep -q . &&
	 [ "$(grep "^#" "$TMP/watch" | tr -d "# \n")" = "$(grep "^#" "$TMP/watch147" | tr -d "# \n")" ] &&
	 [ "$(grep -vc "^#" "$TMP/watch" | head -n1)" -ge 3 ] &&
	 [ "$(grep -cE "^[0-9]{2}:[0-9]{2}:[0-9]{2}" "$TMP/watch")" -eq 1 ] &&
	 [ "$(grep -vE "^#|^[0-9]{2}:|^ +mTHP " "$TMP/watch" | wc -l)" -eq 2 ]' \
	"$(head -c 1200 "$TMP/watch" "$TMP/watch.err")"
expect_eval "watch --wide on a pipe: the legend on one line, the wide title line and row" \
	'[ "$(grep -c "^#" "$TMP/watchw")" -eq 1 ] && [ "$(grep -vc "^#" "$TMP/watchw")" -eq 2 ] &&
	 ! grep -v "^#" "$TMP/watchw" | awk "length(\$0) <= 80" | grep -q .' \
	"$(cut -c1-160 "$TMP/watchw")"
# trace stalls (root only: tracefs; read-only, a private instance it removes): every line
# within 80, the overhead line wrapped, not cut
if [ "$(id -u)" -ne 0 ]; then
	skip "trace stalls on a pipe: within 80 columns" "needs root (tracefs)"
else
	timeout 60 "$T" --no-color trace stalls --duration 1 >"$TMP/trace" 2>"$TMP/trace.err"
	rc=$?
	widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/trace")
	expect_eval "trace stalls --duration 1 on a pipe: within 80 columns (widest $widest)" \
		'[ "$rc" -eq 0 ] && [ "$widest" -le 80 ] &&
		 tr "\n" " " <"$TMP/trace" | grep -qE "Tracing overhead: .* per event .* events lost"' \
		"exit $rc: $(awk 'length($0) > 80' "$TMP/trace") $(head -c 300 "$TMP/trace.err")"
fi
# the filter's help layout: a row's words continue under its second column, a line of its
# own under its indent (lab's tlb row; --max-ptes-none's text on the line below the flag)
env -u THPCTL_WIDE COLUMNS=80 "$T" lab --help >"$TMP/help" 2>&1
expect_eval "lab --help at 80 columns: a row continues under its text (column 15)" \
	'grep -A1 "^  tlb  " "$TMP/help" | tail -1 | grep -qE "^ {14}[^ ]"' "$(grep -A1 "^  tlb" "$TMP/help")"
expect_eval "lab --help at 80 columns: a text of its own line continues under it (column 21)" \
	'grep -A2 "^  --max-ptes-none" "$TMP/help" | tail -1 | grep -qE "^ {20}[^ ]"' \
	"$(grep -A2 "^  --max-ptes-none" "$TMP/help")"
widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/help")
expect_eval "lab --help at 80 columns: within 80 (widest $widest)" '[ "$widest" -le 80 ]' \
	"$(awk 'length($0) > 80' "$TMP/help")"
# the examples of docs/diagnosis.md are as thpctl prints them into a pipe: no line of a code
# block wider than 80 columns (code points, as the filter counts them); and the page does not
# claim that nothing is cut or wrapped into a pipe. The pages whose code blocks were made to fit
# (schema summaries, the layer list, shell comments) are held to the same width.
# wide_lines FILE: "LINE:WIDTH" of each code-block line over 80 columns
wide_lines() {
	python3 - "$1" <<'PY'
import sys
inb = False
for n, l in enumerate(open(sys.argv[1], encoding="utf-8").read().split("\n"), 1):
    if l.startswith("```"):
        inb = not inb
    elif inb and len(l) > 80:
        print(f"{n}:{len(l)}")
PY
}
wide_doc=$(wide_lines docs/diagnosis.md)
expect_eval "docs/diagnosis.md: every example line within 80 columns, wrapped as on a pipe" \
	'[ -z "$wide_doc" ] && ! grep -q "nothing is cut, whatever" docs/diagnosis.md' \
	"lines over 80: $(echo $wide_doc | head -c 300)"
for doc in docs/json.md docs/benchmarks.md docs/ARCHITECTURE.md README.md; do
	wide_doc=$(wide_lines "$doc")
	blocks=$(grep -c '^```' "$doc")
	expect_eval "$doc: every code-block line within 80 columns (code blocks: $((blocks / 2)))" \
		'[ "$blocks" -ge 2 ] && [ -z "$wide_doc" ]' \
		"lines over 80: $(tr '\n' ' ' <<<"$wide_doc" | head -c 300)"
done
# docs/workloads.md: lab workloads as recorded on a pipe, wrapped at 80 like the pages above
wide_doc=$(wide_lines docs/workloads.md) blocks=$(grep -c '^```' docs/workloads.md)
expect_eval "docs/workloads.md: every code-block line within 80 columns (code blocks: $((blocks / 2)))" \
	'[ "$blocks" -ge 16 ] && [ -z "$wide_doc" ]' "lines over 80: $(tr '\n' ' ' <<<"$wide_doc" | head -c 300)"
summary
