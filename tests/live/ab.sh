#!/usr/bin/env bash
# Live tests of `thpctl ab` against build/tests/chase_malloc (a random pointer
# chase through malloc'd memory: it takes THP only through glibc's tunable or
# the host's policy): the proofs (off 0% huge, glibc > 50% huge), the
# direction, the refusals (host modes as a normal user, usage errors), a
# failing command, and host modes put back after every run and after a
# SIGKILL (the next thpctl restores them: checked with a private journal
# directory, so no other thpctl on the host restores it first).
#
#   THPCTL=path  binary to test (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init ab

C=build/tests/chase_malloc
need_built "$T" "$C"
ROOT=0
[ "$(id -u)" -eq 0 ] && ROOT=1
HAVE_THP=0
[ -r "$THP/enabled" ] && [ "$(sysfs_choice "$THP/enabled")" != never ] && HAVE_THP=1
settings_snapshot "$TMP/settings.before"

# ---- usage -------------------------------------------------------------------
t ab
expect_rc "ab with no command is a usage error" 2
t ab --runs 0 -- true
expect_rc "ab --runs 0 is a usage error" 2
t ab --modes off,fast -- true
expect_rc "an unknown mode is a usage error" 2
t ab --metric 'x=[0-9]+' -- true
expect_rc "a --metric without + or - is a usage error" 2

# ---- a failing command -------------------------------------------------------
t ab --runs 1 --warmup 0 --modes off -- sh -c 'echo boom-output; exit 3'
expect_rc "a failing run makes ab exit 1" 1
expect_eval "the failure shows its exit status and the log tail" \
	'grep -q "run 1 exited with status 3" "$TMP/err" && grep -q "boom-output" "$TMP/err"' "$(errtail)"

# ---- the prctl modes: the command has them, thpctl does not keep them ----------
# PR_GET_THP_DISABLE of the command itself: 1 under off, 3 under except-advised (6.18+), 0
# under host; the modes interleave (off, host, ...), so a host run after an off run shows that
# thpctl put its own state back after starting the command
GET='import ctypes; print("thp_disable", ctypes.CDLL(None).prctl(42, 0, 0, 0, 0))'
t ab --runs 2 --warmup 0 --csv --modes off,host,except-advised --metric 'td+=thp_disable (-?[0-9]+)' \
	-- python3 -c "$GET"
expect_rc "ab off,host,except-advised of a prctl reader exits 0" 0
expect_eval "off runs read PR_GET_THP_DISABLE 1, host runs 0 (thpctl's own state put back)" \
	'[ "$(awk -F, '"'"'$1 == "off" {print $NF}'"'"' "$TMP/out" | sort -u)" = 1 ] && [ "$(awk -F, '"'"'$1 == "host" {print $NF}'"'"' "$TMP/out" | sort -u)" = 0 ]' \
	"$(head -c 600 "$TMP/out")"
if grep -q '^except-advised,' "$TMP/out"; then
	expect_eval "except-advised runs read 3" \
		'[ "$(awk -F, '"'"'$1 == "except-advised" {print $NF}'"'"' "$TMP/out" | sort -u)" = 3 ]' "$(head -c 600 "$TMP/out")"
else
	skip "except-advised runs read 3" "this kernel has no PR_THP_DISABLE_EXCEPT_ADVISED (6.18+)"
fi
t ab --runs 1 --warmup 0 --modes glibc,env:THPCTL_AB_PROBE=42 --csv --metric 'g+=hugetlb=([0-9])' \
	--metric 'p+=probe=([0-9]+)' -- sh -c 'echo "tun=$GLIBC_TUNABLES probe=${THPCTL_AB_PROBE:-0}"'
expect_eval "glibc sets glibc.malloc.hugetlb=1, env:K=V sets K" \
	'awk -F, '"'"'$1 == "glibc" && $(NF - 1) == 1 {g = 1} $1 == "env:THPCTL_AB_PROBE=42" && $NF == 42 {e = 1} END {exit !(g && e)}'"'"' "$TMP/out"' \
	"$(head -c 600 "$TMP/out")"
t ab --runs 1 --warmup 0 --modes host -- /nonexistent/thpctl-ab-probe
expect_eval "a command that cannot be started: exit 1, said with its reason" \
	'[ "$RC" = 1 ] && grep -q "cannot run /nonexistent/thpctl-ab-probe" "$TMP/err" && grep -q "could not be started: No such file or directory" "$TMP/err"' "$(errtail)"

# ---- a signal to ab alone (kill -TERM PID): no host-wide change (off,host) ----------
# the command it was timing ended (not left running under init), its log directory
# (the command's stdout, $TMPDIR/thpctl-ab.XXXXXX/0-0.log, /tmp without TMPDIR) removed; both
# found by the PID ab started
for sig in TERM INT; do
	tdir=/tmp
	[ "$sig" = INT ] && tdir=$TMP
	"${DFL[@]}" TMPDIR="$tdir" "$T" ab --runs 3 --modes off,host -- sleep 30 >/dev/null 2>"$TMP/err.sig" &
	BG=$!
	track_pid "$BG"
	kids= logdir=
	for ((i = 0; i < 100; i++)); do
		kids=$(descendants "$BG")
		[ -n "$kids" ] && break
		sleep 0.05
	done
	for k in $kids; do
		f=$(readlink "/proc/$k/fd/1" 2>/dev/null) && [ -z "$logdir" ] && logdir=${f%/*}
	done
	kill -"$sig" "$BG"
	wait "$BG"
	rc=$?
	BG=
	left=
	for k in $kids; do
		st=$(ps -o stat= -p "$k" 2>/dev/null)
		[ -n "$st" ] && [ "${st#Z}" = "$st" ] && left+=" $k"
	done
	for k in $left; do kill -KILL "$k" 2>/dev/null; done
	expect_eval "SIG$sig to ab: it dies by it, the run in progress ended, its log directory removed" \
		'[ "$rc" = $((128 + $(kill -l "$sig"))) ] && [ -n "$kids" ] && [ -z "$left" ] && [[ $logdir == "$tdir"/thpctl-ab.* ]] && [ ! -e "$logdir" ] && grep -q "the run in progress was ended" "$TMP/err.sig"' \
		"rc $rc, command pids '$kids', left running: '$left', log directory '$logdir': $(ls -d "$logdir" 2>&1), stderr: $(head -c 300 "$TMP/err.sig")"
done

# ---- proofs and direction ----------------------------------------------------
if [ "$HAVE_THP" = 0 ]; then
	skip "ab: proofs" "THP is absent or enabled=never on this host"
else
	t ab --runs 4 --warmup 0 --json --metric 'ns-=ns_per_access ([0-9.]+)' -- "$C" 256M 1M
	expect_rc "ab off,glibc,host exits 0" 0
	cp "$TMP/out" "$TMP/ab.json"
	expect_json "off: no huge pages in any run" "$TMP/ab.json" \
		'd["modes"][0]["mode"] == "off" and d["modes"][0]["anon_huge_peak_kb"]["max"] == 0 and d["modes"][0]["verdict"] == "base"'
	expect_json "glibc: over half of its anonymous memory huge, not flagged" "$TMP/ab.json" \
		'd["modes"][1]["anon_huge_share"]["median"] > 0.5 and d["modes"][1]["proof_contradicts_intent"] is False'
	# the chase itself (its own ns per access), not the wall time. Which way it
	# goes is the host's, not thpctl's: huge pages were 3x faster here on most
	# runs, 1.01x (0.78-1.22x) in one make check and 1.36x slower (1.01-1.94x) in
	# another (the guest's THP helps only when the hypervisor backs it with huge
	# pages too, and this VM returns freed memory to the host). What thpctl owes
	# is a real interval around its estimate and a call that follows it: worse
	# (ns, lower is better) exactly when the interval lies above 1, better
	# exactly when below, no-difference or inconclusive (too wide) when it holds 1.
	expect_json "glibc: ns per access called by its interval (a real one)" "$TMP/ab.json" \
		'(lambda m: (lambda r: r["low"] is not None and r["low"] <= r["estimate"] <= r["high"] and m["call"] in ((("worse",) if r["low"] > 1 else ("better",) if r["high"] < 1 else ("no-difference", "inconclusive"))))(m["ratio_to_base"]))(d["modes"][1]["metrics"]["ns"])' \
		'd["modes"][1]["metrics"]'
	expect_json "the metric is read from every run's output" "$TMP/ab.json" \
		'all(m["metrics"]["ns"]["value"] is not None for m in d["modes"])'
	expect_json "host-wide deltas are there (thp_fault_alloc of glibc > 0)" "$TMP/ab.json" \
		'd["modes"][1]["host_wide_delta_median"]["thp_fault_alloc"] > 0'
	t ab --runs 2 --warmup 0 -- "$C" 64M 100k
	expect_eval "text: verdicts first, a row per mode, host-wide marked" \
		'grep -q "^verdicts" "$TMP/out" && grep -q "^glibc " "$TMP/out" && grep -q "host-wide" "$TMP/out"' \
		"$(head -5 "$TMP/out" | tr '\n' ' ')"
	# memory: its own verdict with an interval (what THP costs beside what it buys):
	# one byte written per 2 MiB of 256 MiB, the same wall time either way
	t ab --runs 5 --warmup 0 --json --modes off,glibc -- "$C" 256M sparse
	cp "$TMP/out" "$TMP/ab-mem.json"
	expect_json "memory: glibc's sparse heap is more-memory, its peak RSS interval above 1" "$TMP/ab-mem.json" \
		'd["modes"][0]["memory_verdict"] == "base" and d["modes"][1]["memory_verdict"] == "more-memory" and d["modes"][1]["peak_rss_ratio_to_base"]["low"] > 4' \
		'[(m["mode"], m["memory_verdict"], m["peak_rss_ratio_to_base"], m["maxrss_kb"]) for m in d["modes"]]'
	t ab --runs 5 --warmup 0 --modes off,glibc -- "$C" 256M sparse
	# the interval's level as it is: 5 and 5 runs give 96.8% (at least the 95% asked)
	expect_eval "memory (text): a memory block, glibc names more peak RSS with its interval" \
		'grep -q "^memory: peak RSS (MAXRSS) against off" "$TMP/out" && grep -qE "^  glibc: [0-9.]+x more peak RSS than off \(9[5-9](\.[0-9])?% CI" "$TMP/out"' \
		"$(grep -A3 '^memory' "$TMP/out" | tr '\n' ' ')"
	if [ "$ROOT" = 1 ]; then
		t_nobody ab --runs 2 --warmup 0 --json --modes off,glibc -- "$C" 256M 1M
		expect_json "as nobody: the same proofs" "$TMP/out" \
			'd["modes"][1]["anon_huge_peak_kb"]["median"] > 0 and d["modes"][0]["anon_huge_peak_kb"]["max"] == 0'
	fi
fi

# ---- host modes ---------------------------------------------------------------
if [ "$ROOT" = 1 ]; then
	t_nobody ab --runs 1 --warmup 0 --mode off --mode host:enabled=always -- true
	expect_rc "host modes as a normal user: refused, exit 1" 1
	expect_eval "the refusal says it needs root" 'grep -q "needs root" "$TMP/err"' "$(errtail)"
	if [ -w "$THP/enabled" ] && [ "$HAVE_THP" = 1 ]; then
		was=$(sysfs_choice "$THP/enabled")
		want="    enabled: $was -> always"
		[ "$was" = always ] && want="    enabled: always (unchanged)"
		t ab --runs 2 --warmup 0 --json --mode off --mode host:enabled=always -- "$C" 256M 1M
		expect_rc "host:enabled=always runs as root" 0
		# said before the first run, on stderr (stdout is the JSON, read below)
		expect_eval "host mode: its change said on stderr (old -> new, journalled, put back)" \
			'grep -q "^thpctl: ab: its host: modes change host-wide THP settings" "$TMP/err" && grep -qxF "  host:enabled=always:" "$TMP/err" && grep -qxF "$want" "$TMP/err" && grep -q "^Each is journalled in " "$TMP/err"' \
			"want '$want': $(errtail)"
		expect_json "host:enabled=always: huge pages without glibc's help" "$TMP/out" \
			'd["modes"][1]["anon_huge_peak_kb"]["median"] > 0'
		expect_settings_as_found "host mode: settings put back after the runs" "$TMP/settings.before"
		# a SIGKILL in the middle of a host-mode run: the next thpctl restores.
		# A private journal directory (test builds honour THPCTL_JOURNAL_DIR):
		# no other thpctl on the host can restore it before ours does
		JD=$TMP/journal.ab
		mkdir -m 700 "$JD"
		THPCTL_JOURNAL_DIR=$JD "$T" ab --runs 1 --warmup 0 \
			--mode host:enabled=always,defrag=never -- sleep 30 >/dev/null 2>&1 &
		BG=$!
		track_pid "$BG"
		for ((i = 0; i < 100; i++)); do
			[ "$(sysfs_choice "$THP/defrag")" = never ] && break
			sleep 0.05
		done
		sleep 0.5
		# the scenario: the host mode in force and journalled when the SIGKILL lands
		mode="enabled=$(sysfs_choice "$THP/enabled") defrag=$(sysfs_choice "$THP/defrag")"
		kids=$(descendants "$BG")
		kill -KILL "$BG" 2>/dev/null
		wait "$BG" 2>/dev/null
		BG=
		# its command outlives it: end that one (ours, by PID), not anyone's `sleep 30`
		for k in $kids; do kill -KILL "$k" 2>/dev/null; done
		expect_eval "host mode applied and journalled when SIGKILLed" \
			'[ "$mode" = "enabled=always defrag=never" ] && [ -s "$JD/journal" ] && [ -n "$kids" ]' \
			"$mode, journal: $(ls "$JD"), command pids: '$kids'"
		THPCTL_JOURNAL_DIR=$JD "$T" status >/dev/null 2>"$TMP/err.recover"
		expect_eval "host mode SIGKILLed: the next thpctl says it restored" \
			'grep -Eq "restored [0-9]+ setting\(s\) left changed by a killed thpctl" "$TMP/err.recover" && [ ! -e "$JD/journal" ]' \
			"$(head -c 300 "$TMP/err.recover")"
		expect_settings_as_found "host mode SIGKILLed: the next thpctl put everything back" "$TMP/settings.before"
	else
		skip "host modes as root" "THP enabled is not writable here"
	fi
fi
expect_sanitizers_quiet "no sanitizer reports"
summary
