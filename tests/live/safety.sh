#!/usr/bin/env bash
# safety suite (issue 9): host changes are all-or-nothing under concurrency,
# the journal is trusted only as far as its checks, and every way out
# restores. Runs against the running kernel as root; CHANGES THP settings
# (khugepaged sleeps, enabled/defrag/max_ptes_none, lab experiments) and puts
# every one back; the host is checked to be as found at the end.
#
# Each check prints "ok - NAME", "not ok - NAME: DETAILS" or "skip - NAME:
# REASON"; the last line is "safety: N passed, M failed, K skipped".
#
#   THPCTL=path      the test build (test hooks: THPCTL_JOURNAL_DIR,
#                    THPCTL_TEST_SET_PAUSE); default build/asan/thpctl
#   THPCTL_REL=path  the release build (no test hooks); default build/thpctl
#   SAFETY_PAIRS=N   concurrent set pairs (default 60: make check's smoke; make bench
#                    runs 200), N/4 pairs with --wait (at least 10), N/5 SIGKILLed
#                    pairs (at least 10)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init safety

R=${THPCTL_REL:-build/thpctl}
RUN=${JOURNAL%/*}
PAIRS=${SAFETY_PAIRS:-60}
WAITS=$((PAIRS / 4 > 10 ? PAIRS / 4 : 10)) KILLS=$((PAIRS / 5 > 10 ? PAIRS / 5 : 10))
unset THPCTL_TEST_SET_PAUSE THPCTL_TEST_SET_FAIL

# expect NAME DETAIL CONDITION: one check, CONDITION a shell condition string
expect() { expect_eval "$1" "$3" "$2"; }
# only our lock file is left in the journal directory (no journal, no temporary, no undo file)
run_dir_clean() { [ "$(ls -A "$RUN" 2>/dev/null | tr '\n' ' ')" = "lock " ]; }
word() { sed -E 's/.*\[([^]]+)\].*/\1/' "$THP/$1"; }
knob() { cat "$THP/$1"; }
state() { echo "$(word enabled) $(word defrag) $(knob khugepaged/max_ptes_none)"; }

# shellcheck disable=SC2317 # runs at exit
put_back_base() {
	[ -f "$TMP/base.json" ] && "$R" status >/dev/null 2>&1 &&
		"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
	rm -rf /tmp/thpctl-nbj.$$ /tmp/thpctl-canary?.$$
}
at_exit put_back_base
# shellcheck disable=SC2016 # evaluated by summary
at_summary 'san_scan "$TMP"/*.err; expect_sanitizers_quiet "sanitizers quiet in every safety run"'

for f in "$T" "$R"; do
	[ -x "$f" ] || { nok "binaries built" "$f missing (make build/thpctl build/asan/thpctl)"; summary; }
done
if [ "$ROOT" -ne 1 ]; then
	skip "safety" "needs root: it changes and restores host settings"
	summary
fi
if ! [ -w "$THP/enabled" ]; then
	skip "safety" "$THP is not writable here"
	summary
fi
SECONDS=0
# another thpctl changing settings (a lab run) would make our baseline wrong
"$R" status >/dev/null 2>&1
"$R" snapshot save "$TMP/base.json" >/dev/null 2>"$TMP/save.err" ||
	{ nok "snapshot save" "$(cat "$TMP/save.err")"; summary; }
BASE=$(state)

# ---- 1. concurrent changes are all-or-nothing ---------------------------------
A="always defer 64" B="never never 32"
pairs() { # pairs N [--wait]: N concurrent set pairs; count mixed / inconsistent results
	local n=$1 w=${2:-} i mixed=0 bad=0 both=0 one=0 s ra rb
	for ((i = 0; i < n; i++)); do
		"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
		{ "$R" $w set enabled=always defrag=defer khugepaged/max_ptes_none=64 >/dev/null 2>"$TMP/pa.txt"; echo $? >"$TMP/ra"; } &
		{ "$R" $w set enabled=never defrag=never khugepaged/max_ptes_none=32 >/dev/null 2>"$TMP/pb.txt"; echo $? >"$TMP/rb"; } &
		wait
		s=$(state) ra=$(cat "$TMP/ra") rb=$(cat "$TMP/rb")
		if [ "$s" != "$A" ] && [ "$s" != "$B" ]; then
			mixed=$((mixed + 1))
			echo "# pair $i: host reads '$s' (exits $ra $rb): $(cat "$TMP/pa.txt" "$TMP/pb.txt" | tr '\n' ' ')"
			continue
		fi
		# the values on the host belong to a run that said it succeeded; a loser names the winner
		if { [ "$s" = "$A" ] && [ "$ra" != 0 ]; } || { [ "$s" = "$B" ] && [ "$rb" != 0 ]; } ||
			{ [ "$ra" = 1 ] && ! grep -q 'another thpctl, pid [0-9]*\( (set)\)\?, is changing settings' "$TMP/pa.txt"; } ||
			{ [ "$rb" = 1 ] && ! grep -q 'another thpctl, pid [0-9]*\( (set)\)\?, is changing settings' "$TMP/pb.txt"; }; then
			bad=$((bad + 1))
			echo "# pair $i: host '$s', exits $ra $rb: $(cat "$TMP/pa.txt" "$TMP/pb.txt" | tr '\n' ' ')"
		fi
		if [ "$ra" = 0 ] && [ "$rb" = 0 ]; then both=$((both + 1)); else one=$((one + 1)); fi
	done
	echo "$mixed $bad $both $one"
}
read -r mixed bad both one < <(pairs "$PAIRS" | tee "$TMP/pairs.log" | tail -n 1)
grep '^#' "$TMP/pairs.log" | head -5
expect "$PAIRS concurrent set pairs: 0 mixed results (one exited 1 naming the other in $one, both ran in turn in $both)" \
	"$mixed mixed, $bad inconsistent" '[ "$mixed" = 0 ] && [ "$bad" = 0 ]'
expect "concurrent set pairs: the lock was contended at least once" "no pair overlapped" '[ "$one" -gt 0 ]'

read -r mixed bad both one < <(pairs "$WAITS" --wait | tail -n 1)
expect "$WAITS pairs with --wait: both succeed in turn, 0 mixed" "$mixed mixed, $bad bad, $one with a failure" \
	'[ "$mixed" = 0 ] && [ "$bad" = 0 ] && [ "$one" = 0 ]'

# both SIGKILLed at random moments: the next command restores everything
leftover=0
for ((i = 0; i < KILLS; i++)); do
	"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
	THPCTL_TEST_SET_PAUSE=1 "$T" set enabled=always defrag=defer khugepaged/max_ptes_none=64 >/dev/null 2>&1 &
	p1=$!
	THPCTL_TEST_SET_PAUSE=1 "$T" --wait set enabled=never defrag=never khugepaged/max_ptes_none=32 >/dev/null 2>&1 &
	p2=$!
	sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
	[ $((i % 2)) = 0 ] && sleep 0.9
	kill -KILL "$p1" "$p2" 2>/dev/null
	wait "$p1" "$p2" 2>/dev/null
	"$R" status >/dev/null 2>"$TMP/k.err"
	if [ "$(state)" != "$BASE" ]; then
		leftover=$((leftover + 1))
		echo "# kill pair $i: host reads '$(state)' after status: $(head -c 200 "$TMP/k.err")"
	fi
done
expect "$KILLS SIGKILLed concurrent pairs: the next thpctl status restores every one, leaves no file behind" \
	"$leftover left a setting changed; $RUN: $(ls -A $RUN | tr '\n' ' ')" '[ "$leftover" = 0 ] && run_dir_clean'
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1

# a command reading a recorded tree (--sysroot, before or after the command name) leaves a
# killed run's journal to the next command that reads the live host, which restores it
THPCTL_TEST_SET_PAUSE=5 "$T" set enabled=always defrag=defer khugepaged/max_ptes_none=64 >/dev/null 2>&1 &
p=$!
for ((i = 0; i < 100; i++)); do [ "$(state)" != "$BASE" ] && break; sleep 0.05; done
kill -KILL "$p"
wait "$p" 2>/dev/null
changed=$(state)
"$R" --sysroot tests/fixtures/linux-6.18-x86 status >/dev/null 2>&1
"$R" status --sysroot tests/fixtures/linux-6.18-x86 >/dev/null 2>&1
after_tree=$(state) left=$(ls -A "$RUN" | tr '\n' ' ')
"$R" status >/dev/null 2>"$TMP/live.err"
expect "--sysroot commands leave a killed set's journal alone; the next live status restores it" \
	"changed '$changed', after --sysroot '$after_tree' ($RUN: $left), after status '$(state)': $(head -c 200 "$TMP/live.err")" \
	'[ "$changed" != "$BASE" ] && [ "$after_tree" = "$changed" ] && [ "$(state)" = "$BASE" ] && run_dir_clean'
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1

# ---- 2. hostile journals: no write outside the allow-list, no hang ------------
K1=khugepaged/scan_sleep_millisecs K2=khugepaged/alloc_sleep_millisecs
V1=$(knob $K1) V2=$(knob $K2)
N1=$((V1 + 3)) N2=$((V2 + 3))
J=$TMP/jd
mkdir -m 700 "$J"
CAN=()
for i in 1 2 3 4; do CAN+=("/tmp/thpctl-canary$i.$$"); echo ORIGINAL >"${CAN[-1]}"; done
canaries_intact() { local c; for c in "${CAN[@]}"; do [ "$(cat "$c")" = ORIGINAL ] || return 1; done; }
journal() { # journal FILE ENTRY...: a version-2 journal with these "REL<TAB>VALUE" entries
	local f=$1 e
	shift
	{ printf 'thpctl-journal 2\nowner 999999\npurpose hostile\n'; for e in "$@"; do printf 'entry %s\n' "$e"; done; } >"$f"
}
journal "$J/journal" "${CAN[0]#/}	PWNED" "${CAN[1]}	PWNED" "../../..${CAN[2]}	PWNED" \
	"sys/kernel/mm/transparent_hugepage/../../../..${CAN[3]}	PWNED"
THPCTL_JOURNAL_DIR=$J timeout 10 "$T" status >/dev/null 2>"$TMP/h1.err"
rc=$?
expect "journal entries outside the allow-list (tmp/x, /tmp/x, ../../../tmp/x, THP/../../../../tmp/x): 4 refused, no canary written" \
	"exit $rc, canaries: $(cat "${CAN[@]}" | tr '\n' ' '), $(head -c 300 "$TMP/h1.err")" \
	'[ "$rc" = 0 ] && canaries_intact && grep -q "4 entries refused" "$TMP/h1.err"'
rm -f "$J/journal"

# a journal directory written by another user is ignored, with a warning
NB=/tmp/thpctl-nbj.$$
setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "mkdir -m 700 $NB && printf 'thpctl-journal 2\nowner 1\npurpose x\nentry sys/kernel/mm/transparent_hugepage/$K1\t$N1\n' >$NB/journal"
THPCTL_JOURNAL_DIR=$NB timeout 10 "$T" status >/dev/null 2>"$TMP/h2.err"
rc=$?
expect "a journal directory owned by nobody: ignored with a warning, nothing written" \
	"exit $rc, $K1=$(knob $K1): $(head -c 300 "$TMP/h2.err")" \
	'[ "$rc" = 0 ] && [ "$(knob $K1)" = "$V1" ] && grep -q "journal directory $NB ignored: not owned by root" "$TMP/h2.err"'
rm -rf "$NB"

# the test hook does not exist in the release build; the test build acts on a good journal
J2=$TMP/jd2
mkdir -m 700 "$J2"
journal "$J2/journal" "sys/kernel/mm/transparent_hugepage/$K1	$N1"
THPCTL_JOURNAL_DIR=$J2 "$R" status >/dev/null 2>"$TMP/h3.err"
expect "release build: THPCTL_JOURNAL_DIR is not honoured" "$K1=$(knob $K1), journal $(ls "$J2")" \
	'[ "$(knob $K1)" = "$V1" ] && [ -e "$J2/journal" ]'
THPCTL_JOURNAL_DIR=$J2 "$T" status >/dev/null 2>"$TMP/h3.err"
expect "test build: a good journal in a root 0700 directory is restored, said in one line" \
	"$K1=$(knob $K1): $(cat "$TMP/h3.err")" \
	'[ "$(knob $K1)" = "$N1" ] && [ ! -e "$J2/journal" ] && [ "$(grep -c . "$TMP/h3.err")" = 1 ] && grep -q "restored 1 setting(s) left changed by a killed thpctl (hostile, pid 999999): /sys/kernel/mm/transparent_hugepage/$K1=$N1" "$TMP/h3.err"'
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
chmod 755 "$J2"
journal "$J2/journal" "sys/kernel/mm/transparent_hugepage/$K1	$N1"
THPCTL_JOURNAL_DIR=$J2 "$T" status >/dev/null 2>"$TMP/h4.err"
expect "a test journal directory with mode 0755: ignored" "$K1=$(knob $K1): $(head -c 200 "$TMP/h4.err")" \
	'[ "$(knob $K1)" = "$V1" ] && grep -q "its mode is not 0700" "$TMP/h4.err"'
ln -s "$J" "$TMP/jlink"
journal "$J/journal" "sys/kernel/mm/transparent_hugepage/$K1	$N1"
THPCTL_JOURNAL_DIR=$TMP/jlink "$T" status >/dev/null 2>"$TMP/h5.err"
expect "a journal directory that is a symlink: ignored" "$K1=$(knob $K1): $(head -c 200 "$TMP/h5.err")" \
	'[ "$(knob $K1)" = "$V1" ] && grep -q "ignored: not a directory" "$TMP/h5.err"'
rm -f "$J/journal"

# symlinks where the journal and a temporary used to be: never written through
ln -s "${CAN[0]}" "$J/journal"
ln -s "${CAN[1]}" "$J/journal.tmp"
THPCTL_JOURNAL_DIR=$J "$T" status >/dev/null 2>"$TMP/h6.err"
THPCTL_JOURNAL_DIR=$J "$T" set "$K1=$N1" >/dev/null 2>>"$TMP/h6.err"
rc=$?
expect "journal and journal.tmp as symlinks to files: status refuses to read, set writes neither target" \
	"exit $rc, canaries: $(cat "${CAN[@]}" | tr '\n' ' '), $(head -c 300 "$TMP/h6.err")" \
	'[ "$rc" = 0 ] && canaries_intact && grep -q "not a regular file owned by root" "$TMP/h6.err" && [ "$(knob $K1)" = "$N1" ]'
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
rm -f "$J/journal" "$J/journal.tmp"

mkfifo "$J/journal"
THPCTL_JOURNAL_DIR=$J timeout 5 "$T" status >/dev/null 2>"$TMP/h7.err"
rc1=$?
THPCTL_JOURNAL_DIR=$J timeout 5 "$T" ps >/dev/null 2>>"$TMP/h7.err"
rc2=$?
expect "a FIFO as the journal: status and ps finish (no hang), say it is ignored" \
	"exits $rc1 $rc2: $(head -c 200 "$TMP/h7.err")" \
	'[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && grep -q "ignored: not a regular file" "$TMP/h7.err"'
rm -f "$J/journal"
head -c 200000 /dev/zero | tr '\0' x >"$J/journal"
THPCTL_JOURNAL_DIR=$J timeout 5 "$T" status >/dev/null 2>"$TMP/h8.err"
rc=$?
expect "a 200 kB journal: refused as too large" "exit $rc: $(head -c 200 "$TMP/h8.err")" \
	'[ "$rc" = 0 ] && grep -q "too large" "$TMP/h8.err"'

# a journal naming a live unrelated process (PID 1, its real start time) blocks nothing
st1=$(awk '{print $22}' /proc/1/stat 2>/dev/null || echo 1)
printf 'thpctl-journal 1\nowner 1 %s\npurpose forged\nentry sys/kernel/mm/transparent_hugepage/%s\t%s\n' "$st1" "$K2" "$V2" >"$J/journal"
THPCTL_JOURNAL_DIR=$J timeout 10 "$T" set "$K1=$N1" >/dev/null 2>"$TMP/h9.err"
rc=$?
expect "a journal naming PID 1 and its start time: set does not wait for it (the lock decides)" \
	"exit $rc, $K1=$(knob $K1): $(head -c 200 "$TMP/h9.err")" '[ "$rc" = 0 ] && [ "$(knob $K1)" = "$N1" ]'
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
rm -rf "$J"

# a user's forged journal under XDG_RUNTIME_DIR is never read
X=$TMP/xdg
mkdir -p "$X/thpctl"
journal "$X/thpctl/journal" "sys/kernel/mm/transparent_hugepage/$K1	$N1"
chown -R nobody "$X"
setpriv --reuid=nobody --regid=nogroup --clear-groups env XDG_RUNTIME_DIR="$X" "$T" status >/dev/null 2>"$TMP/h10.err"
rc=$?
expect "as nobody with a forged \$XDG_RUNTIME_DIR/thpctl/journal: not read, nothing said" \
	"exit $rc: $(head -c 200 "$TMP/h10.err")" '[ "$rc" = 0 ] && ! grep -q "journal" "$TMP/h10.err"'

# ---- 3. a restore that fails is said, kept and retried ------------------------
# These need the killed set's journal in /run/thpctl when each command starts
# (the release build and a user other than root use no other place); any other
# thpctl run as root on the host meanwhile restores it first. pending NAME:
# true while the journal is there, else NAME is skipped as needing a quiet host.
pending() {
	[ -e "$RUN/journal" ] && return 0
	skip "$1" "another thpctl on this host restored the journal first: needs a quiet host (no other thpctl running)"
	return 1
}
# expect_pending NAME DETAIL CONDITION ERRFILE: expect, but a check that failed
# because another thpctl restored the journal while it ran (the journal gone,
# $K1 back at $V1, and our command, whose stderr is ERRFILE, said it restored
# nothing) is skipped as needing a quiet host, not passed nor failed
expect_pending() {
	if eval "$3"; then
		ok "$1"
	elif [ ! -e "$RUN/journal" ] && [ "$(knob $K1)" = "$V1" ] && ! grep -q "restored" "$4"; then
		skip "$1" "another thpctl on this host restored the journal meanwhile: needs a quiet host (no other thpctl running)"
	else
		nok "$1" "$2"
	fi
}
THPCTL_TEST_SET_PAUSE=30 "$T" set "$K1=$N1" "$K2=$N2" >/dev/null 2>&1 &
p=$!
PIDS+=("$p")
for ((i = 0; i < 100; i++)); do [ "$(knob $K1)" = "$N1" ] && break; sleep 0.05; done
kill -KILL "$p"
wait "$p" 2>/dev/null
N3="as nobody after a killed set: told of root's pending journal, nothing restored"
if pending "$N3"; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T" status >/dev/null 2>"$TMP/f1.err"
	rc=$?
	expect_pending "$N3" \
		"exit $rc, $K1=$(knob $K1): $(head -c 200 "$TMP/f1.err")" \
		'[ "$rc" = 0 ] && [ "$(knob $K1)" = "$N1" ] && grep -q "holds 1 setting(s) left changed by a killed thpctl (set): run any thpctl command as root" "$TMP/f1.err"' "$TMP/f1.err"
fi
N3="restore where THP files are read-only: exit 1, says it could NOT, the journal stays"
if pending "$N3"; then
	unshare -m sh -c "mount --bind $THP $THP && mount -o remount,bind,ro $THP && exec $T status" >/dev/null 2>"$TMP/f2.err"
	rc=$?
	expect_pending "$N3" \
		"exit $rc, $K1=$(knob $K1), journal: $(ls $RUN | tr '\n' ' '): $(head -c 300 "$TMP/f2.err")" \
		'[ "$rc" = 1 ] && [ "$(knob $K1)" = "$N1" ] && [ -e "$RUN/journal" ] && grep -q "could NOT put back" "$TMP/f2.err" && ! grep -q "restored 1" "$TMP/f2.err"' "$TMP/f2.err"
fi
# syslog: a private /dev with a datagram socket at /dev/log catches the message;
# thpctl starts once the socket is bound (under load python3 took over the
# 0.5 s once given to it, and the line went nowhere)
cat >"$TMP/syslogd.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
s.settimeout(10)
open(sys.argv[1], "w").write(s.recv(4096).decode(errors="replace"))
PY
N3="the next root command restores it: one line on stderr, the same in syslog, exit 0"
if pending "$N3"; then
	unshare -m bash -c "mkdir -p $TMP/olddev && mount --rbind /dev $TMP/olddev && mount -t tmpfs tmpfs /dev &&
		for n in null zero urandom random full; do touch /dev/\$n; mount --bind $TMP/olddev/\$n /dev/\$n; done &&
		{ python3 $TMP/syslogd.py $TMP/syslog.txt & for i in \$(seq 200); do [ -S /dev/log ] && break; sleep 0.05; done; $T status >/dev/null 2>$TMP/f3.err; echo \$? >$TMP/f3.rc; wait; }"
	expect_pending "$N3" \
		"exit $(cat "$TMP/f3.rc" 2>/dev/null), $K1=$(knob $K1): $(cat "$TMP/f3.err"); syslog: $(cat "$TMP/syslog.txt" 2>&1)" \
		'[ "$(cat "$TMP/f3.rc")" = 0 ] && [ "$(knob $K1)" = "$V1" ] && run_dir_clean && [ "$(grep -c . "$TMP/f3.err")" = 1 ] && grep -q "thpctl\[[0-9]*\]: restored 1 setting(s) left changed by a killed thpctl (set, pid $p): /sys/kernel/mm/transparent_hugepage/$K1=$V1" "$TMP/syslog.txt"' "$TMP/f3.err"
fi
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1

# ---- 5. small ones -------------------------------------------------------------
"$T" set max_ptes_none=64 >/dev/null 2>"$TMP/s1.err"
rc=$?
expect "set max_ptes_none=64: usage error naming khugepaged/max_ptes_none" "exit $rc: $(cat "$TMP/s1.err")" \
	'[ "$rc" = 2 ] && grep -q "did you mean khugepaged/max_ptes_none?" "$TMP/s1.err"'
if [ -x build/tests/folio_helper ]; then
	# fh_start: a helper with its memory ready, its PID in h
	fh_start() {
		# 512 MiB: each start faults it in (slow where the hypervisor backs memory anew)
		build/tests/folio_helper bench 512M >"$TMP/fh.out" 2>/dev/null &
		h=$!
		for ((i = 0; i < 200; i++)); do grep -q ready "$TMP/fh.out" && break; sleep 0.05; done
	}
	# how long one whole scan takes here: the kills are spread over it
	fh_start
	t0=$(date +%s%N)
	"$T" maps --folios "$h" >/dev/null 2>&1
	full_ms=$((($(date +%s%N) - t0) / 1000000))
	kill -KILL "$h"
	wait "$h" 2>/dev/null
	eio=0 exited=0 tries=0 eio_msg=
	# the scenario is a kill that lands while the scan runs: keep going until
	# two did (at most 24 tries), and say how many
	while [ "$exited" -lt 2 ] && [ "$tries" -lt 24 ]; do
		d=$(awk -v f="$full_ms" -v k="$tries" 'BEGIN { printf "%.3f", f * (0.1 + 0.8 * ((k * 7) % 12) / 11) / 1000 }')
		tries=$((tries + 1))
		fh_start
		(sleep "$d"; kill -KILL "$h") &
		"$T" maps --folios "$h" >/dev/null 2>"$TMP/mf.err"
		wait
		grep -q "Input/output error" "$TMP/mf.err" && eio=$((eio + 1)) && eio_msg=$(head -c 200 "$TMP/mf.err")
		grep -q "exited\|no memory map" "$TMP/mf.err" && exited=$((exited + 1))
	done
	expect "maps --folios of a process killed mid-scan: says it exited, never 'Input/output error' ($exited of $tries kills landed mid-scan; a whole scan takes $full_ms ms)" \
		"$eio runs said Input/output error ($eio_msg), $exited of $tries kills landed mid-scan" '[ "$eio" = 0 ] && [ "$exited" -ge 1 ]'
else
	skip "maps --folios of a process killed mid-scan" "build/tests/folio_helper not built"
fi

# ---- 4. restore on every fatal signal -----------------------------------------
# wait_for FILE WORD PID: until FILE reads WORD (or [WORD]), PID alive; 10 s at most
wait_for() {
	local i cur
	for ((i = 0; i < 200; i++)); do
		cur=$(cat "$1" 2>/dev/null)
		[[ $cur == "$2" || $cur == *"[$2]"* ]] && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
sig_set() { # sig_set SIG
	local sig=$1 num p rc
	num=$(kill -l "$sig")
	THPCTL_TEST_SET_PAUSE=5 "${DFL[@]}" "$T" set "$K1=$N1" "$K2=$N2" >/dev/null 2>"$TMP/sig-$sig.err" &
	p=$!
	if ! wait_for "$THP/$K1" "$N1" "$p"; then
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		nok "set + SIG$sig: the first value is written before the signal" "$(tail -n 2 "$TMP/sig-$sig.err")"
		return
	fi
	kill -"$sig" "$p"
	wait "$p"
	rc=$?
	expect "set + SIG$sig: dies by the signal ($((128 + num))), both values back, no journal, says so" \
		"exit $rc, $K1=$(knob $K1) $K2=$(knob $K2), journal: $(ls $RUN 2>&1 | tr '\n' ' '), $(tail -n 1 "$TMP/sig-$sig.err")" \
		'[ "$rc" = $((128 + num)) ] && [ "$(knob $K1)" = "$V1" ] && [ "$(knob $K2)" = "$V2" ] &&
		run_dir_clean && grep -q "interrupted: settings put back" "$TMP/sig-$sig.err"'
}
SIGNALS="HUP INT QUIT PIPE TERM USR1 USR2 ALRM XCPU"
# thpctl keeps an inherited SIG_IGN: a background job of a non-interactive
# shell starts with SIGINT and SIGQUIT ignored, and under nohup (make check
# started that way) SIGHUP too; every run that gets a signal starts with all
# of them at their defaults (lib.sh's DFL), so the checks test thpctl
for sig in $SIGNALS; do sig_set "$sig"; done

# an inherited SIG_IGN (nohup) stays ignored: the set goes on and completes
( trap '' HUP; THPCTL_TEST_SET_PAUSE=2 exec "$T" set "$K1=$N1" "$K2=$N2" >/dev/null 2>"$TMP/nohup.err" ) &
p=$!
wait_for "$THP/$K1" "$N1" "$p" && kill -HUP "$p"
wait "$p"
rc=$?
expect "set under nohup + SIGHUP: ignored as inherited, the set completes (exit 0, both written)" \
	"exit $rc, $K1=$(knob $K1) $K2=$(knob $K2): $(tail -n 1 "$TMP/nohup.err")" \
	'[ "$rc" = 0 ] && [ "$(knob $K1)" = "$N1" ] && [ "$(knob $K2)" = "$N2" ] && run_dir_clean'
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1

# a real broken pipe: lab output into `head -1`
"${DFL[@]}" "$T" lab fallback --size 32M --runs 40 --yes 2>&1 | head -1 >/dev/null
rc=${PIPESTATUS[0]}
expect "lab fallback | head -1: exits on SIGPIPE (141) with enabled back" \
	"exit $rc, enabled=$(word enabled), host '$(state)'" \
	'[ "$rc" = 141 ] && [ "$(state)" = "$BASE" ] && run_dir_clean'

# each host-changing lab experiment, each signal: changed during the run, back after
lab_sig() { # lab_sig NAME FILE WORD SIG ARGS...
	local name=$1 file=$2 want=$3 sig=$4 num p rc
	shift 4
	num=$(kill -l "$sig")
	local t0=$SECONDS
	"${DFL[@]}" "$T" lab "$@" --yes --quiet >/dev/null 2>"$TMP/lab-$name-$sig.err" &
	p=$!
	if ! wait_for "$file" "$want" "$p"; then
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		"$R" status >/dev/null 2>&1
		nok "lab $name + SIG$sig: $file set to $want during the run" "$(tail -n 1 "$TMP/lab-$name-$sig.err")"
		return
	fi
	kill -"$sig" "$p"
	wait "$p"
	rc=$?
	if [ "$rc" = $((128 + num)) ] && [ "$(state)" = "$BASE" ] && "$R" snapshot diff "$TMP/base.json" 2>/dev/null | grep -q '^no differences' &&
		run_dir_clean; then
		ok "lab $name + SIG$sig: exit $rc, every setting back ($((SECONDS - t0)) s)"
	else
		nok "lab $name + SIG$sig: exit $((128 + num)), every setting back" \
			"exit $rc, $("$R" snapshot diff "$TMP/base.json" 2>&1 | head -3 | tr '\n' ' ') journal: $(ls $RUN | tr '\n' ' ')"
		"$R" status >/dev/null 2>&1
		"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
	fi
}
ms=$((V1 + 11))
for sig in $SIGNALS; do
	lab_sig fallback "$THP/enabled" always "$sig" fallback --size 128M --runs 64
	lab_sig khugepaged "$THP/$K1" "$ms" "$sig" khugepaged --scan-sleep "$ms" --size 64M --timeout 120
	if [ -f "$THP/hugepages-64kB/enabled" ] && grep -q '\[never\]' "$THP/hugepages-64kB/enabled"; then
		lab_sig mthp "$THP/hugepages-64kB/enabled" always "$sig" mthp --sizes 64K --size 16M --runs 20 --state cold
	else
		skip "lab mthp + SIG$sig" "no hugepages-64kB/enabled at never here"
	fi
	if [ -f /proc/sys/vm/compaction_proactiveness ] && [ "$(cat /proc/sys/vm/compaction_proactiveness)" != 0 ]; then
		lab_sig fragment /proc/sys/vm/compaction_proactiveness 0 "$sig" faults --fragment --size 32M --runs 3
	else
		skip "lab fragment + SIG$sig" "compaction_proactiveness absent or already 0"
	fi
done

"$R" status >/dev/null 2>&1
"$R" snapshot diff "$TMP/base.json" >"$TMP/end.diff" 2>&1
expect "the host's THP settings as found at the start, only the lock file in $RUN" \
	"$(head -c 300 "$TMP/end.diff"); $RUN: $(ls -A "$RUN" | tr '\n' ' ')" \
	'grep -q "^no differences" "$TMP/end.diff" && run_dir_clean'
echo "# safety: $SECONDS s"
summary
