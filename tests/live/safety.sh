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
#   SAFETY_PAIRS=N   concurrent set pairs (default 200)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

T=${THPCTL:-build/asan/thpctl}
R=${THPCTL_REL:-build/thpctl}
THP=/sys/kernel/mm/transparent_hugepage
RUN=/run/thpctl
PAIRS=${SAFETY_PAIRS:-200}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
unset NO_COLOR THPCTL_JOURNAL_DIR THPCTL_TEST_SET_PAUSE THPCTL_TEST_SET_FAIL

PASS=0 FAIL=0 SKIP=0
ok() { echo "ok - $1"; PASS=$((PASS + 1)); }
nok() { echo "not ok - $1: $2"; FAIL=$((FAIL + 1)); }
skip() { echo "skip - $1: $2"; SKIP=$((SKIP + 1)); }
# expect NAME DETAIL CONDITION: ok when the shell condition (a string, eval'd) holds
expect() {
	if eval "$3"; then ok "$1"; else nok "$1" "$2"; fi
}
# only our lock file is left in the journal directory (no journal, no temporary, no undo file)
run_dir_clean() { [ "$(ls -A "$RUN" 2>/dev/null | tr '\n' ' ')" = "lock " ]; }

TMP=$(mktemp -d /tmp/thpctl-safety.XXXXXX)
chmod 755 "$TMP"
PIDS=()
word() { sed -E 's/.*\[([^]]+)\].*/\1/' "$THP/$1"; }
knob() { cat "$THP/$1"; }
state() { echo "$(word enabled) $(word defrag) $(knob khugepaged/max_ptes_none)"; }

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -f "$TMP/base.json" ] && "$R" status >/dev/null 2>&1 &&
		"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1
	rm -rf "$TMP" /tmp/thpctl-nbj.$$
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

summary() {
	if grep -lqE 'runtime error|AddressSanitizer|LeakSanitizer' "$TMP"/*.err 2>/dev/null; then
		nok "sanitizers quiet" "$(grep -hE -m1 'runtime error|Sanitizer' "$TMP"/*.err | head -2 | tr '\n' ' ' | cut -c1-300)"
	fi
	echo "safety: $PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" -eq 0 ]
	exit
}

for f in "$T" "$R"; do
	[ -x "$f" ] || { nok "binaries built" "$f missing (make build/thpctl build/asan/thpctl)"; summary; }
done
if [ "$(id -u)" -ne 0 ]; then
	skip "safety" "needs root: it changes and restores host settings"
	summary
fi
if ! [ -w "$THP/enabled" ]; then
	skip "safety" "$THP is not writable here"
	summary
fi
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

read -r mixed bad both one < <(pairs 50 --wait | tail -n 1)
expect "50 pairs with --wait: both succeed in turn, 0 mixed" "$mixed mixed, $bad bad, $one with a failure" \
	'[ "$mixed" = 0 ] && [ "$bad" = 0 ] && [ "$one" = 0 ]'

# both SIGKILLed at random moments: the next command restores everything
leftover=0
for ((i = 0; i < 40; i++)); do
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
expect "40 SIGKILLed concurrent pairs: the next thpctl status restores every one, leaves no file behind" \
	"$leftover left a setting changed; $RUN: $(ls -A $RUN | tr '\n' ' ')" '[ "$leftover" = 0 ] && run_dir_clean'
"$R" snapshot restore "$TMP/base.json" >/dev/null 2>&1

# ---- 2. restore on every fatal signal -----------------------------------------
K1=khugepaged/scan_sleep_millisecs K2=khugepaged/alloc_sleep_millisecs
V1=$(knob $K1) V2=$(knob $K2)
N1=$((V1 + 3)) N2=$((V2 + 3))
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
	THPCTL_TEST_SET_PAUSE=5 $DFL "$T" set "$K1=$N1" "$K2=$N2" >/dev/null 2>"$TMP/sig-$sig.err" &
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
# a background job of a non-interactive shell starts with SIGINT and SIGQUIT
# ignored (and thpctl keeps an inherited SIG_IGN): give the runs the defaults
DFL="env --default-signal=INT,QUIT"
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
"$T" lab fallback --size 32M --runs 40 2>&1 | head -1 >/dev/null
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
	$DFL "$T" lab "$@" --quiet >/dev/null 2>"$TMP/lab-$name-$sig.err" &
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

summary
