#!/usr/bin/env bash
# Live tests of the control commands against the running kernel: run,
# collapse, set, snapshot save/restore/diff and persist.
#
# Binary: build/asan/thpctl (ASan+UBSan; a sanitizer report fails the
# "sanitizers quiet" check). Helpers: build/tests/thp_helper (a process with a
# known layout) and build/tests/prctl_probe (what a `thpctl run` child sees).
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "control: N
# passed, M failed, K skipped", non-zero exit on failures).
#
# As root this CHANGES host settings through thpctl: only the khugepaged
# scan_sleep_millisecs / alloc_sleep_millisecs knobs (harmless), each time
# put back by thpctl itself (snapshot restore, the journal); the script
# records every THP knob first, checks they all come back, and writes back
# any it finds changed so the host is left as found. /etc is not touched:
# `persist --install` goes to $THPCTL_ETC (a temporary directory; test-only).
# Its units need a thpctl only root can change (not below /tmp): a copy in a
# temporary directory below /var/lib (else /root, /usr/local), removed at exit.
#
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init control

H=build/tests/thp_helper
P=build/tests/prctl_probe
unset THPCTL_TEST_SET_PAUSE THPCTL_TEST_SET_FAIL THPCTL_ETC THPCTL_WIDE
SAFE=

# shellcheck disable=SC2317 # runs at exit (at_exit), after the tracked processes are stopped
cleanup() {
	[ -e "$JOURNAL" ] && [ "$ROOT" -eq 1 ] && ! journal_owner_alive && "$T" status >/dev/null 2>&1
	# the killed-set check's own journal, if the script was interrupted there
	[ -e "$TMP/journal/journal" ] && THPCTL_JOURNAL_DIR=$TMP/journal "$T" status >/dev/null 2>&1
	settings_put_back "$TMP/base"
	# the root-only copy of thpctl for persist --install of a unit
	case ${SAFE:-} in */thpctl-control.??????) rm -rf "$SAFE" ;; esac
}
at_exit cleanup

# vma_ahp PID SIZE_KB: AnonHugePages (kB) of PID's VMA of exactly SIZE_KB
vma_ahp() {
	awk -v want="$2" '
		/^[0-9a-f]+-[0-9a-f]+ / { insz = 0; next }
		$1 == "Size:" { insz = ($2 == want) }
		insz && $1 == "AnonHugePages:" { print $2; exit }
	' "/proc/$1/smaps"
}
# no_journal_of_ours: no journal left by a set/restore (another thpctl's lab run may hold one)
no_journal_of_ours() { ! grep -qsE '^purpose (set|snapshot restore)$' "$JOURNAL"; }
status_field() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
knob() { cat "$THP/$1"; }

# ---- preflight ---------------------------------------------------------------
for f in "$T" "$H" "$P"; do
	[ -x "$f" ] || { nok "preflight" "$f missing: run 'make $T $H $P'"; summary; }
done
command -v python3 >/dev/null || { nok "preflight" "python3 is needed to read the JSON"; summary; }
# a private copy: a rebuild of $T while the tests run must not pull it from under them
cp "$T" "$TMP/thpctl" && cp "$P" "$TMP/prctl_probe" && cp "$H" "$TMP/thp_helper" &&
	chmod 755 "$TMP/thpctl" "$TMP/prctl_probe" "$TMP/thp_helper" &&
	T=$TMP/thpctl P=$TMP/prctl_probe H=$TMP/thp_helper
[ -d "$THP" ] || { skip "control" "no $THP: this kernel has no THP"; summary; }

# ==== run =====================================================================
# --thp=off: the child and its child show THP_enabled 0 (a full prctl disable)
"$T" run --thp=off -- sh -c 'sleep 30 & wait' 2>"$TMP/err" &
RUNPID=$!
track_pid "$RUNPID"
for ((i = 0; i < 100; i++)); do
	GC=$(awk '{print $1}' "/proc/$RUNPID/task/$RUNPID/children" 2>/dev/null)
	[ -n "$GC" ] && [ "$(cat "/proc/$GC/comm" 2>/dev/null)" = sleep ] && break
	sleep 0.05
done
if [ -z "$(status_field "$RUNPID" THP_enabled)" ]; then
	skip "run --thp=off: THP_enabled 0" "no THP_enabled in /proc/PID/status (kernel < 5.0)"
else
	v=$(status_field "$RUNPID" THP_enabled)
	expect_zero "run --thp=off: the command has THP_enabled 0" "$([ "$v" = 0 ]; echo $?)" "THP_enabled $v"
	v=$(status_field "${GC:-0}" THP_enabled 2>/dev/null)
	expect_zero "run --thp=off: its child (grandchild of run) has THP_enabled 0 too" \
		"$([ "${v:-x}" = 0 ]; echo $?)" "child ${GC:-none}: THP_enabled ${v:-?}"
fi
kill -TERM "$GC" "$RUNPID" 2>/dev/null
wait "$RUNPID" 2>/dev/null

out=$("$T" run --thp=off -- "$P" get 2>"$TMP/err")
expect_zero "run --thp=off: PR_GET_THP_DISABLE reads 1" "$([ "$out" = "thp_disable 1" ]; echo $?)" "$out"
out=$("$T" run --thp=off -- "$P" hugepage 8 2>"$TMP/err")
expect_zero "run --thp=off: no THP even on an MADV_HUGEPAGE region" \
	"$([ "$out" = "thp_disable 1 anon_huge_kb 0" ]; echo $?)" "$out"

# --thp=advised (6.18+): PR_GET_THP_DISABLE 3, MADV_HUGEPAGE regions still get THP
out=$("$T" run --thp=advised -- "$P" hugepage 8 2>"$TMP/err")
rc=$?
if [ "$rc" -eq 1 ] && grep -q 'needs Linux 6.18' "$TMP/err"; then
	ok "run --thp=advised: says it needs Linux 6.18 on this kernel"
	skip "run --thp=advised: PR_GET_THP_DISABLE 3" "kernel $(uname -r) has no PR_THP_DISABLE_EXCEPT_ADVISED"
else
	read -r _ st _ ahp <<<"$out"
	expect_zero "run --thp=advised: the command has PR_GET_THP_DISABLE == 3" \
		"$([ "${st:-}" = 3 ]; echo $?)" "rc $rc: $out $(errtail)"
	mode=$(sysfs_choice "$THP/enabled")
	if [ "$mode" = never ]; then
		skip "run --thp=advised: MADV_HUGEPAGE region gets THP" "enabled=never on this host"
	elif [ "${ahp:-0}" -gt 0 ]; then
		ok "run --thp=advised: an MADV_HUGEPAGE region still gets THP (AnonHugePages ${ahp} kB)"
	else
		# the same without thpctl: if that gets none either, no huge page was free
		read -r _ _ _ ctl <<<"$("$P" hugepage 8)"
		if [ "${ctl:-0}" -eq 0 ]; then
			skip "run --thp=advised: MADV_HUGEPAGE region gets THP" "no THP without thpctl either (no free huge page now)"
		else
			nok "run --thp=advised: MADV_HUGEPAGE region gets THP" "AnonHugePages 0 (without thpctl: ${ctl} kB)"
		fi
	fi
	out=$("$T" run --thp=advised -- sh -c 'grep THP_enabled /proc/self/status' 2>&1)
	expect_zero "run --thp=advised: THP_enabled stays 1 (only a full disable shows 0)" \
		"$([[ "$out" =~ THP_enabled:[[:space:]]*1 ]]; echo $?)" "$out"
fi

"$T" run -- sh -c 'exit 7' 2>"$TMP/err"
rc=$?
expect_zero "run: the command's exit status passes through (7)" "$([ "$rc" = 7 ]; echo $?)" "exit $rc"
"$T" run -- "$TMP/no-such-command" 2>"$TMP/err"
rc=$?
expect_zero "run: a command not found exits 127 with a message" \
	"$([ "$rc" = 127 ] && grep -q 'No such file' "$TMP/err"; echo $?)" "exit $rc: $(errtail)"
t run
expect_rc "run: no command is a usage error (2)" 2
t run --thp=sometimes -- true
expect_rc "run: a bad --thp is a usage error (2)" 2
as_nobody "$T" run --thp=off -- "$P" get >"$TMP/out" 2>"$TMP/err"
expect_zero "run: works unprivileged (as nobody)" "$([ "$(cat "$TMP/out")" = "thp_disable 1" ]; echo $?)" \
	"$(cat "$TMP/out") $(errtail)"

# ==== collapse ================================================================
if [ "$ROOT" -ne 1 ]; then
	skip "collapse" "needs root (CAP_SYS_NICE and ptrace access)"
else
	if start_helper HP "$H" plain 32; then
		before=$(vma_ahp "$HP" 32768)
		t collapse "$HP" --dry-run --json
		cp "$TMP/out" "$TMP/dry.json"
		expect_rc "collapse --dry-run: exit 0" 0
		expect_json "collapse --dry-run: lists the 32 MiB region (16 huge pages), collapses nothing" "$TMP/dry.json" \
			'any(r["bytes"] == 32 << 20 and r["pmds"] == 16 and not r["attempted"] for r in d["ranges"])'
		after=$(vma_ahp "$HP" 32768)
		expect_zero "collapse --dry-run: AnonHugePages unchanged" "$([ "$before" = "$after" ]; echo $?)" \
			"$before -> $after kB"
		t collapse "$HP" --json
		cp "$TMP/out" "$TMP/collapse.json"
		if [ "${before:-0}" != 0 ]; then
			# PMD-mapped already are not tried (nor counted as collapsed)
			skip "collapse: AnonHugePages reaches the region size" "the plain region has ${before:-?} kB of THP before: enabled=$(sysfs_choice "$THP/enabled")"
		elif grep -q '"ENOMEM"' "$TMP/collapse.json"; then
			skip "collapse: AnonHugePages reaches the region size" "ENOMEM: no free huge page on this host now"
		else
			expect_rc "collapse: exit 0" 0
			after=$(vma_ahp "$HP" 32768)
			expect_zero "collapse: the helper's plain region is now all huge (AnonHugePages $before -> ${after:-?} kB, region 32768 kB)" \
				"$([ "${after:-0}" = 32768 ]; echo $?)" "AnonHugePages ${after:-?} kB"
			expect_json "collapse --json: per range bytes collapsed, AnonHugePages before/after and time" "$TMP/collapse.json" \
				'[r for r in d["ranges"] if r["bytes"] == 32 << 20 and r["collapsed_bytes"] == 32 << 20 and r["anon_huge_after_kb"] == 32768 and r["ms"] >= 0 and "anon_huge_before_kb" in r]'
		fi
		# a --vma no VMA has is a typo, not "nothing to collapse": exit 1, named, escaped
		t collapse "$HP" --vma '[haep]' --dry-run
		expect_zero "collapse --vma NAME matching no VMA: exit 1, names it and how --vma matches" \
			"$([ "$RC" = 1 ] && grep -qF -- "--vma '[haep]' names no VMA of process $HP" "$TMP/err" && grep -qF "thpctl maps $HP" "$TMP/err" && ! grep -q 'nothing to collapse' "$TMP/out"; echo $?)" \
			"exit $RC: $(errtail) $(head -c 200 "$TMP/out")"
		t collapse "$HP" --vma '[stack]' --dry-run
		expect_zero "collapse --vma [stack] (matched, no whole huge page): skipped with the reason, no 'names no VMA'" \
			"$(grep -q 'holds no whole aligned huge page' "$TMP/out" && ! grep -q 'names no VMA' "$TMP/err"; echo $?)" \
			"exit $RC: $(errtail) $(head -c 300 "$TMP/out")"
		# a --range under one huge page: shown as asked (it showed START-START, 0 kB, when START
		# was aligned), and the dry run exits 1 as the run would (it exited 0, the run 1)
		rs=$(python3 -c 'import json, sys; print(next(r["start"] for r in json.load(open(sys.argv[1]))["ranges"] if r["bytes"] == 32 << 20))' "$TMP/dry.json")
		re=$(printf '%x' $((0x${rs#0x} + 4096)))
		t collapse "$HP" --range "${rs#0x}-$re" --dry-run
		expect_zero "collapse --range within one huge page, --dry-run: exit 1, the range as asked, 4 kB" \
			"$([ "$RC" = 1 ] && grep -qE "^0*${rs#0x}-0*$re +\[anon\] +4 kB" "$TMP/out" && grep -q 'holds no whole aligned huge page' "$TMP/out"; echo $?)" \
			"exit $RC: $(head -c 400 "$TMP/out")"
		t collapse "$HP"
		expect_zero "collapse: text output has the range table" \
			"$(grep -q 'AnonHugePages' "$TMP/out" && grep -qE '^[0-9a-f]{12}-[0-9a-f]{12} ' "$TMP/out"; echo $?)" \
			"$(head -c 300 "$TMP/out")"
		stop_pid "$HP"
	fi
	# --range: only that part (unaligned ends shrink to whole huge pages)
	if start_helper HR "$H" plain 16; then
		range=
		while read -r r perms _ _ _ name; do
			{ [ "$perms" = rw-p ] && [ -z "${name:-}" ]; } || continue
			[ $((0x${r#*-} - 0x${r%-*})) -eq 16777216 ] && range=$r && break
		done <"/proc/$HR/maps"
		if [ -z "$range" ]; then
			skip "collapse --range" "cannot find the helper's 16 MiB VMA in its maps"
		else
			s=$((0x${range%-*} + 0x100000)) e=$((0x${range%-*} + 0x500000))
			t collapse "$HR" --range "$(printf '%x-%x' "$s" "$e")" --json
			expect_json "collapse --range: shrunk to the one whole huge page inside" "$TMP/out" \
				'len(d["ranges"]) == 1 and d["ranges"][0]["pmds"] == 1 and d["ranges"][0]["bytes"] == 2 << 20'
		fi
		stop_pid "$HR"
	fi
	# a region PMD-mapped already is no work: skipped with the count, nothing planned
	if start_helper HH "$H" hugepage 16; then
		if [ "$(vma_ahp "$HH" 16384)" != 16384 ]; then
			skip "collapse --dry-run: already huge" "the hugepage region got $(vma_ahp "$HH" 16384) of 16384 kB THP (enabled=$(sysfs_choice "$THP/enabled"))"
		else
			t collapse "$HH" --dry-run --json
			expect_json "collapse --dry-run: a 100% PMD-mapped region is skipped as already huge, 0 planned" "$TMP/out" \
				'[r for r in d["ranges"] if r["bytes"] == 16 << 20 and r["huge_pmds"] == 8 and r["planned_pmds"] == 0 and (r["skipped"] or "").startswith("already huge: 8 of 8 PMD ranges") and r["rss_growth_estimate"] is None]'
			t collapse "$HH" --dry-run
			expect_zero "collapse --dry-run text: the reason names the count" \
				"$(grep -q '^skipped: already huge: 8 of 8 PMD ranges PMD-mapped' "$TMP/out"; echo $?)" "$(head -c 400 "$TMP/out")"
			# a run: the range skipped whole counts its 8 as not tried, as its words say (0 before)
			t collapse "$HH" --json
			expect_json "collapse --json: a range skipped as already huge counts 8 already huge, 0 empty" "$TMP/out" \
				'[r for r in d["ranges"] if r["bytes"] == 16 << 20 and not r["attempted"] and r["already_huge_pmds"] == 8 and r["empty_pmds"] == 0]'
		fi
		stop_pid "$HH"
	fi
	# nh regions are skipped; --force tries and gets EINVAL, explained
	if start_helper HN "$H" nohuge 8; then
		t collapse "$HN"
		expect_zero "collapse: an nh VMA is skipped with the reason (exit 1: nothing done)" \
			"$([ "$RC" = 1 ] && grep -q 'MADV_NOHUGEPAGE' "$TMP/out"; echo $?)" "exit $RC: $(head -c 300 "$TMP/out")"
		t collapse "$HN" --json
		expect_json "collapse --json: an nh range, never looked at, has null empty and already-huge counts" "$TMP/out" \
			'[r for r in d["ranges"] if r["skipped"] and "MADV_NOHUGEPAGE" in r["skipped"] and r["empty_pmds"] is None and r["already_huge_pmds"] is None]'
		t collapse "$HN" --force
		expect_zero "collapse --force on nh: EINVAL, explained" \
			"$([ "$RC" = 1 ] && grep -q '^EINVAL: ' "$TMP/out"; echo $?)" "exit $RC: $(head -c 300 "$TMP/out")"
		stop_pid "$HN"
	fi
	# a process with THP disabled by prctl (started through thpctl run)
	HELPER_PREFIX=("$T" run --thp=off --)
	if start_helper HD "$H" plain 8; then
		t collapse "$HD"
		expect_zero "collapse: a THP_enabled 0 process is skipped with the reason" \
			"$([ "$RC" = 1 ] && grep -q 'prctl' "$TMP/out"; echo $?)" "exit $RC: $(head -c 300 "$TMP/out")"
		stop_pid "$HD"
	fi
	HELPER_PREFIX=()
	# unprivileged: EPERM explained (nobody on nobody's own process: no CAP_SYS_NICE)
	HELPER_PREFIX=("${NOBODY[@]}")
	if start_helper HU "$H" plain 8; then
		t_nobody collapse "$HU"
		expect_zero "collapse unprivileged: exit 1, 'needs root', CAP_SYS_NICE named" \
			"$([ "$RC" = 1 ] && grep -q 'needs root' "$TMP/err" && grep -q 'CAP_SYS_NICE' "$TMP/out"; echo $?)" \
			"exit $RC: $(errtail) $(head -c 200 "$TMP/out")"
		stop_pid "$HU"
	fi
	HELPER_PREFIX=()
	t collapse 999999999
	expect_rc "collapse: an absent PID exits 1" 1
	t collapse
	expect_rc "collapse: no PID is a usage error" 2
	t collapse 1 --range zz
	expect_rc "collapse: a bad --range is a usage error" 2
fi

# ==== set, snapshot ===========================================================
S_KEY=khugepaged/scan_sleep_millisecs
A_KEY=khugepaged/alloc_sleep_millisecs
if ! wait_quiet; then
	skip "set/snapshot" "another thpctl has held $JOURNAL for 5 minutes"
	summary
fi
# a journal left by a killed run: let thpctl put it back first, so the baseline is real
[ -e "$JOURNAL" ] && [ "$ROOT" -eq 1 ] && "$T" status >/dev/null 2>&1
settings_snapshot "$TMP/base"
nknobs=$(thp_knobs | wc -l)

t snapshot save "$TMP/snap0.json"
expect_rc "snapshot save: exit 0" 0
expect_json "snapshot save: every writable knob ($nknobs), kernel release and date" "$TMP/snap0.json" \
	"d['thpctl_snapshot'] == 1 and len(d['knobs']) == $nknobs and d['kernel'] == '$(uname -r)' and d['date'].endswith('Z')"
t snapshot diff "$TMP/snap0.json"
expect_zero "snapshot diff: no differences right after save" "$(grep -q '^no differences' "$TMP/out"; echo $?)" \
	"$(head -c 300 "$TMP/out")"

S0=$(knob $S_KEY) A0=$(knob $A_KEY)
S1=$((S0 + 1)) A1=$((A0 + 1))

t set --dry-run "$S_KEY=$S1" "$A_KEY=$A1"
expect_zero "set --dry-run: prints the shell lines, writes nothing" \
	"$([ "$RC" = 0 ] && grep -qx "echo $S1 > $THP/$S_KEY" "$TMP/out" && [ "$(knob $S_KEY)" = "$S0" ]; echo $?)" \
	"exit $RC: $(head -c 200 "$TMP/out")"
t set "$S_KEY=$S1" "enabled=sometimes"
expect_zero "set with one invalid value: exit 2, names it, writes nothing" \
	"$([ "$RC" = 2 ] && grep -q "enabled: 'sometimes' is not offered" "$TMP/err" && [ "$(knob $S_KEY)" = "$S0" ] && no_journal_of_ours; echo $?)" \
	"exit $RC, $S_KEY=$(knob $S_KEY): $(errtail)"
t set "khugepaged/max_ptes_none=100000"
expect_rc "set: max_ptes_none above HPAGE_PMD_NR-1 is refused (2)" 2
t set "hpage_pmd_size=4096"
expect_rc "set: a read-only file is refused (2)" 2
t --sysroot tests/fixtures/arm64-64k set --dry-run khugepaged/max_ptes_none=8191
expect_rc "set --dry-run on a recorded arm64 64K tree: 8191 allowed (HPAGE_PMD_NR 8192)" 0
t --sysroot tests/fixtures/arm64-64k set khugepaged/max_ptes_none=8191
expect_rc "set on a recorded tree without --dry-run: usage error" 2

if [ "$ROOT" -ne 1 ]; then
	skip "set/snapshot restore" "needs root"
else
	t_nobody set "$S_KEY=$S1"
	expect_zero "set unprivileged: exit 1 with 'needs root', nothing written" \
		"$([ "$RC" = 1 ] && grep -q 'needs root' "$TMP/err" && [ "$(knob $S_KEY)" = "$S0" ]; echo $?)" \
		"exit $RC: $(errtail)"

	# a completed set stays, also across the next command (committed, not rolled back)
	wait_quiet
	t set "$S_KEY=$S1" "$A_KEY=$A1"
	expect_zero "set: exit 0, prints old -> new per key" \
		"$([ "$RC" = 0 ] && grep -qx "$S_KEY: $S0 -> $S1" "$TMP/out" && grep -qx "$A_KEY: $A0 -> $A1" "$TMP/out"; echo $?)" \
		"exit $RC: $(head -c 200 "$TMP/out") $(errtail)"
	"$T" status >/dev/null 2>&1
	expect_zero "set: a completed set stays after the next command (no journal left)" \
		"$([ "$(knob $S_KEY)" = "$S1" ] && [ "$(knob $A_KEY)" = "$A1" ] && no_journal_of_ours; echo $?)" \
		"$S_KEY=$(knob $S_KEY) $A_KEY=$(knob $A_KEY) journal: $(ls "$JOURNAL" 2>&1)"
	t snapshot diff "$TMP/snap0.json" --json
	expect_json "snapshot diff: names both changed knobs with file and current values" "$TMP/out" \
		"{x['key']: (x['file'], x['current']) for x in d['diff'] if x['key'] in ('$S_KEY', '$A_KEY')} == {'$S_KEY': ('$S0', '$S1'), '$A_KEY': ('$A0', '$A1')}"
	t snapshot save "$TMP/snap1.json"
	wait_quiet
	t snapshot restore "$TMP/snap0.json"
	expect_zero "snapshot restore: exit 0, both knobs back" \
		"$([ "$RC" = 0 ] && [ "$(knob $S_KEY)" = "$S0" ] && [ "$(knob $A_KEY)" = "$A0" ] && no_journal_of_ours; echo $?)" \
		"exit $RC: $S_KEY=$(knob $S_KEY) $A_KEY=$(knob $A_KEY) $(errtail)"
	wait_quiet
	t snapshot save "$TMP/snap2.json"
	python3 - "$TMP/snap0.json" "$TMP/snap1.json" "$TMP/snap2.json" >"$TMP/rt" 2>&1 <<'PY'
import json, sys
a, b, c = (json.load(open(p))["knobs"] for p in sys.argv[1:])
assert a == c, f"after restore: {set(a.items()) ^ set(c.items())}"
assert a != b, "the set did not show in the second snapshot"
PY
	expect_zero "snapshot save/restore round-trips (save, set, restore, save: equal)" "$?" "$(cat "$TMP/rt")"
	t snapshot diff "$TMP/snap0.json"
	expect_zero "snapshot diff: no differences after restore" "$(grep -q '^no differences' "$TMP/out"; echo $?)" \
		"$(head -c 300 "$TMP/out")"

	# a set killed between two writes is rolled back by the next command
	wait_quiet
	# (a journal of our own: any other thpctl started meanwhile would restore the shared one)
	export THPCTL_JOURNAL_DIR=$TMP/journal
	THPCTL_TEST_SET_PAUSE=8 "$T" set "$S_KEY=$S1" "$A_KEY=$A1" >"$TMP/killed.out" 2>"$TMP/killed.err" &
	KP=$!
	track_pid "$KP"
	for ((i = 0; i < 100; i++)); do
		[ "$(knob $S_KEY)" = "$S1" ] && break
		sleep 0.05
	done
	half_s=$(knob $S_KEY) half_a=$(knob $A_KEY)
	kill -KILL "$KP" 2>/dev/null
	wait "$KP" 2>/dev/null
	expect_zero "set killed halfway: first knob written, second not, journal on disk" \
		"$([ "$half_s" = "$S1" ] && [ "$half_a" = "$A0" ] && [ -e "$THPCTL_JOURNAL_DIR/journal" ]; echo $?)" \
		"$S_KEY=$half_s $A_KEY=$half_a journal: $(ls "$THPCTL_JOURNAL_DIR" 2>&1)"
	"$T" status >/dev/null 2>"$TMP/err"
	expect_zero "set killed halfway: the next thpctl command rolls it back and says so" \
		"$([ "$(knob $S_KEY)" = "$S0" ] && [ "$(knob $A_KEY)" = "$A0" ] && [ ! -e "$THPCTL_JOURNAL_DIR/journal" ] && grep -q "restored 1 setting(s) left changed by a killed thpctl (set, pid [0-9]*): $THP/$S_KEY=$S0" "$TMP/err"; echo $?)" \
		"$S_KEY=$(knob $S_KEY) $A_KEY=$(knob $A_KEY): $(errtail)"
	unset THPCTL_JOURNAL_DIR

	# a write that fails: the ones written are put back, exit 1
	wait_quiet
	THPCTL_TEST_SET_FAIL=$A_KEY "$T" set "$S_KEY=$S1" "$A_KEY=$A1" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	san_note "set (failing write)" "$TMP/err"
	expect_zero "set: a failing write rolls back the ones written (exit 1)" \
		"$([ "$RC" = 1 ] && [ "$(knob $S_KEY)" = "$S0" ] && [ "$(knob $A_KEY)" = "$A0" ] && grep -q 'rolled back' "$TMP/out" && no_journal_of_ours; echo $?)" \
		"exit $RC, $S_KEY=$(knob $S_KEY): $(head -c 200 "$TMP/out") $(errtail)"

	# a set whose values all read as asked still takes the lock (it said "(unchanged)", exit
	# 0, at once, and the held set's value stayed): without --wait it names the holder, with
	# --wait it re-reads under the lock and writes; --dry-run takes no lock
	wait_quiet
	export THPCTL_JOURNAL_DIR=$TMP/journal-held
	THPCTL_TEST_SET_PAUSE=4 "$T" set "$A_KEY=$A1" "$S_KEY=$S1" >"$TMP/held.out" 2>"$TMP/held.err" &
	HELD=$!
	track_pid "$HELD"
	for ((i = 0; i < 100; i++)); do
		[ "$(knob $A_KEY)" = "$A1" ] && break
		sleep 0.05
	done
	# the held set has written A1 and pauses before S1: S reads S0 now
	t set --dry-run "$S_KEY=$S0"
	expect_zero "set --dry-run of the current value while another set holds the lock: exit 0 at once, no lock" \
		"$([ "$RC" = 0 ] && grep -qx "# $S_KEY is already $S0" "$TMP/out" && kill -0 "$HELD" 2>/dev/null; echo $?)" \
		"exit $RC: $(head -c 200 "$TMP/out") $(errtail)"
	t set "$S_KEY=$S0"
	expect_zero "set of the current value while another set holds the lock: exit 1 naming the holder, not '(unchanged)'" \
		"$([ "$RC" = 1 ] && grep -q 'another thpctl, pid [0-9]* (set), is changing settings' "$TMP/err" && ! grep -q unchanged "$TMP/out"; echo $?)" \
		"exit $RC: $(head -c 200 "$TMP/out") $(errtail)"
	t set --wait "$S_KEY=$S0"
	wait "$HELD"
	held_rc=$?
	expect_zero "set --wait of the value read before the lock: waits for the held set, re-reads $S1 under the lock and writes $S0" \
		"$([ "$RC" = 0 ] && [ "$held_rc" = 0 ] && grep -qx "$S_KEY: $S1 -> $S0" "$TMP/out" && [ "$(knob $S_KEY)" = "$S0" ]; echo $?)" \
		"exit $RC (held set: $held_rc): $(head -c 200 "$TMP/out") $(errtail); $S_KEY=$(knob $S_KEY)"
	t set "$A_KEY=$A0"
	unset THPCTL_JOURNAL_DIR

	# --json of a set, a restore and a rolled-back set (exit 1): each valid against its schema,
	# "shell" null (it was missing: "'shell' is a required property")
	wait_quiet
	jd=$TMP/jsondocs
	mkdir -p "$jd"
	"$T" set "$S_KEY=$S1" --json >"$jd/1.json" 2>"$TMP/err"
	rc1=$?
	echo "set $S_KEY=$S1 --json" >"$jd/1.args"
	wait_quiet
	"$T" snapshot restore "$TMP/snap0.json" --json >"$jd/2.json" 2>"$TMP/err"
	rc2=$?
	echo "snapshot restore FILE --json" >"$jd/2.args"
	wait_quiet
	THPCTL_TEST_SET_FAIL=$A_KEY "$T" set "$S_KEY=$S1" "$A_KEY=$A1" --json >"$jd/3.json" 2>"$TMP/err"
	rc3=$?
	echo "set $S_KEY=$S1 $A_KEY=$A1 --json (write failed, rolled back)" >"$jd/3.args"
	python3 tests/json_schema.py docs/json "$jd" --runs-only >"$TMP/val" 2>&1
	expect_zero "set/restore --json (written, restored, rolled back: exit 0 0 1): valid against their schemas, shell null" \
		"$([ "$rc1$rc2$rc3" = 001 ] && ! grep -q '^not ok' "$TMP/val" && [ "$(grep -c '^ok' "$TMP/val")" = 3 ] &&
			python3 -c 'import json, sys; sys.exit(0 if all(json.load(open(f))["shell"] is None for f in sys.argv[1:]) else 1)' "$jd"/[123].json &&
			[ "$(knob $S_KEY)" = "$S0" ] && [ "$(knob $A_KEY)" = "$A0" ]; echo $?)" \
		"exit $rc1 $rc2 $rc3: $(tr '\n' ' ' <"$TMP/val" | head -c 400)"

	# restore: knobs this kernel lacks are skipped and named; nothing applicable: exit 1
	python3 - "$TMP/snap0.json" "$TMP/foreign.json" "$TMP/none.json" "$TMP/badval.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["knobs"]["hugepages-3kB/enabled"] = "never"
d["knobs"]["khugepaged/" + "nonexistent_knob"] = "1"
json.dump(d, open(sys.argv[2], "w"))
json.dump({"thpctl_snapshot": 1, "kernel": "x", "date": "", "knobs": {"hugepages-3kB/enabled": "never"}}, open(sys.argv[3], "w"))
d = json.load(open(sys.argv[1]))
d["knobs"]["enabled"] = "sometimes"
json.dump(d, open(sys.argv[4], "w"))
PY
	t snapshot restore "$TMP/foreign.json"
	expect_zero "snapshot restore: knobs not on this kernel are skipped and named (exit 0)" \
		"$([ "$RC" = 0 ] && grep -q 'hugepages-3kB/enabled: skipped: not on this kernel' "$TMP/err"; echo $?)" \
		"exit $RC: $(errtail)"
	t snapshot restore "$TMP/none.json"
	expect_rc "snapshot restore: nothing applicable exits 1" 1
	t snapshot restore "$TMP/badval.json"
	expect_zero "snapshot restore: a value this kernel does not offer: exit 1, nothing written" \
		"$([ "$RC" = 1 ] && grep -q "enabled: 'sometimes'" "$TMP/err"; echo $?)" "exit $RC: $(errtail)"
	echo '{"not": "a snapshot"}' >"$TMP/junk.json"
	t snapshot restore "$TMP/junk.json"
	expect_rc "snapshot restore: not a snapshot exits 1" 1
fi

# ==== persist =================================================================
# persist_rel FORMAT: where --install puts FORMAT's file, below /etc
persist_rel() {
	case $1 in
	tmpfiles) echo tmpfiles.d/thpctl.conf ;;
	systemd) echo systemd/system/thpctl-thp.service ;;
	sysctl) echo sysctl.d/80-thpctl-hugetlb.conf ;;
	tuned) echo tuned/thpctl/tuned.conf ;;
	esac
}
# undo_line: the command printed under "to undo it" in $TMP/out (one line: THPCTL_WIDE)
undo_line() { sed -n '/^to undo it, as root/{n;s/^  //;p;q}' "$TMP/out"; }

# --install over a file that is there and different: the old one kept as FILE.thpctl-old,
# "replaced", the lines it loses listed, and the undo that puts it back (root, $THPCTL_ETC)
persist_replace_checks() {
	local e=$TMP/etc-old p f bin path
	p=$e/tmpfiles.d/thpctl.conf
	mkdir -p "$e/tmpfiles.d"
	printf '# by hand\nw %s/defrag - - - - defer\nw %s/khugepaged/defrag - - - - 0\nw %s/enabled - - - - never\n' \
		"$THP" "$THP" "$THP" >"$p"
	cp "$p" "$TMP/old.conf"
	THPCTL_ETC=$e THPCTL_WIDE=1 "$T" persist --install enabled=never >"$TMP/out" 2>"$TMP/err"
	RC=$?
	san_note "persist --install over a file" "$TMP/err"
	"$T" persist enabled=never >"$TMP/printed" 2>/dev/null
	expect_zero "persist --install over another file: 'replaced', the new file as printed, the old one kept as thpctl.conf.thpctl-old" \
		"$([ "$RC" = 0 ] && grep -qxF "replaced $p (1 setting(s))" "$TMP/out" && cmp -s "$p" "$TMP/printed" &&
			cmp -s "$p.thpctl-old" "$TMP/old.conf" && grep -qxF "the file it replaced is kept as $p.thpctl-old" "$TMP/out"; echo $?)" \
		"exit $RC: $(cat "$TMP/out") $(errtail)"
	printf 'lines of the old file that the new one does not have (2):\n  w %s/defrag - - - - defer\n  w %s/khugepaged/defrag - - - - 0\n' \
		"$THP" "$THP" >"$TMP/want"
	expect_zero "persist --install over another file: lists exactly the 2 settings it drops (defrag=defer, khugepaged/defrag=0)" \
		"$(grep -A2 '^lines of the old file' "$TMP/out" | cmp -s - "$TMP/want"; echo $?)" "$(cat "$TMP/out")"
	expect_zero "persist --install over another file: the undo is 'mv $p.thpctl-old $p', and it puts the old file back" \
		"$([ "$(undo_line)" = "mv $p.thpctl-old $p" ] && eval "$(undo_line)" && cmp -s "$p" "$TMP/old.conf" &&
			[ ! -e "$p.thpctl-old" ]; echo $?)" "$(cat "$TMP/out")"

	# --json, sysctl: replaced, kept, dropped, undo; then a third file is refused while the
	# kept one is there, and the same file again is unchanged with the same undo
	p=$e/sysctl.d/80-thpctl-hugetlb.conf
	mkdir -p "$e/sysctl.d"
	printf 'vm.nr_hugepages = 7\nvm.swappiness = 10\n' >"$p"
	cp "$p" "$TMP/old.conf"
	THPCTL_ETC=$e "$T" persist --format sysctl vm.nr_hugepages=7 --install --json >"$TMP/out" 2>"$TMP/err"
	RC=$?
	P=$p expect_json "persist --install --json over another file: replaced, kept, dropped ['vm.swappiness = 10'], undo mv" "$TMP/out" \
		"d['installed'] == E['P'] and d['replaced'] is True and d['unchanged'] is False and d['kept'] == E['P'] + '.thpctl-old' and d['dropped'] == ['vm.swappiness = 10'] and d['undo'] == 'mv %s.thpctl-old %s' % (E['P'], E['P'])"
	cp "$p" "$TMP/new.conf"
	THPCTL_ETC=$e "$T" persist --format sysctl vm.nr_hugepages=8 --install >"$TMP/out" 2>"$TMP/err"
	RC=$?
	expect_zero "persist --install while a kept file is there: refused (exit 1), names it, changes neither file" \
		"$([ "$RC" = 1 ] && grep -qF "$p.thpctl-old still holds the file an earlier --install replaced" "$TMP/err" &&
			cmp -s "$p" "$TMP/new.conf" && cmp -s "$p.thpctl-old" "$TMP/old.conf"; echo $?)" "exit $RC: $(errtail)"
	THPCTL_ETC=$e "$T" persist --format sysctl vm.nr_hugepages=7 --install --json >"$TMP/out" 2>"$TMP/err"
	P=$p expect_json "persist --install of the same file again: unchanged, the undo still puts the kept file back" "$TMP/out" \
		"d['unchanged'] is True and d['replaced'] is False and d['dropped'] is None and d['undo'] == 'mv %s.thpctl-old %s' % (E['P'], E['P'])"

	# every format: a file of other content is kept, its line listed, the undo a mv
	e=$TMP/etc-junk
	for f in tmpfiles systemd sysctl tuned; do
		bin=$T
		if [ "$f" = systemd ]; then
			[ -n "$SAFE" ] || continue
			bin=$SAFE/thpctl
		fi
		path=$e/$(persist_rel "$f")
		mkdir -p "$(dirname "$path")"
		echo 'junk = 1' >"$path"
		THPCTL_ETC=$e THPCTL_WIDE=1 "$bin" persist --format "$f" --install >"$TMP/out" 2>"$TMP/err"
		RC=$?
		want="mv $path.thpctl-old $path"
		[ "$f" = systemd ] && want="$want && systemctl daemon-reload"
		expect_zero "persist --install $f over another file: replaced, kept, 'junk = 1' listed, undo '$want'" \
			"$([ "$RC" = 0 ] && grep -q "^replaced $path " "$TMP/out" && [ "$(cat "$path.thpctl-old")" = 'junk = 1' ] &&
				grep -qx '  junk = 1' "$TMP/out" && [ "$(undo_line)" = "$want" ]; echo $?)" "exit $RC: $(cat "$TMP/out") $(errtail)"
	done
}

# --install of a unit that would run as root at boot a thpctl that others could change:
# refused, naming the path (a copy below /tmp, in a directory writable by all, by a group,
# and one owned by nobody), and no unit written
persist_unit_exe_checks() {
	local e=$TMP/etc-exe unit bin want
	unit=$e/systemd/system/thpctl-thp.service
	if [ "$(stat -c %u /tmp)" = 0 ] && (((8#$(stat -c %a /tmp) & 8#002) != 0)); then
		THPCTL_ETC=$e "$T" persist --format systemd --install >"$TMP/out" 2>"$TMP/err"
		RC=$?
		want="but /tmp is writable by every user (mode $(printf %04o "$((8#$(stat -c %a /tmp)))"))"
		expect_zero "persist --install systemd of a thpctl below /tmp: refused (exit 1), '$want', no unit" \
			"$([ "$RC" = 1 ] && grep -qF "run $T as root at every boot, $want" "$TMP/err" && [ ! -e "$unit" ]; echo $?)" \
			"exit $RC: $(errtail)"
	fi
	[ -n "$SAFE" ] || { skip "persist --install systemd: an unsafe thpctl refused" "no root-only directory for thpctl"; return; }
	if ! { mkdir -m 0777 "$SAFE/open" && mkdir -m 0775 "$SAFE/group" &&
		cp "$T" "$SAFE/open/thpctl" && cp "$T" "$SAFE/group/thpctl" && cp "$T" "$SAFE/nobody-thpctl" &&
		chmod 755 "$SAFE/open/thpctl" "$SAFE/group/thpctl" "$SAFE/nobody-thpctl" &&
		chown nobody "$SAFE/nobody-thpctl"; }; then
		nok "persist --install systemd: unsafe copies" "cannot make them in $SAFE"
		return
	fi
	for bin in open/thpctl group/thpctl nobody-thpctl; do
		case $bin in
		open/*) want="but $SAFE/open is writable by every user (mode 0777)" ;;
		group/*) want="but $SAFE/group is writable by its group (mode 0775)" ;;
		*) want="but $SAFE/nobody-thpctl is owned by uid $(id -u nobody), not root" ;;
		esac
		THPCTL_ETC=$e "$SAFE/$bin" persist --format systemd --install >"$TMP/out" 2>"$TMP/err"
		RC=$?
		san_note "persist --install systemd ($bin)" "$TMP/err"
		expect_zero "persist --install systemd of $bin: refused (exit 1), '${want#"but $SAFE/"}', no unit" \
			"$([ "$RC" = 1 ] && grep -qF "$want, so another user could change what runs" "$TMP/err" &&
				grep -qF 'make install' "$TMP/err" && [ ! -e "$unit" ]; echo $?)" "exit $RC: $(errtail)"
	done
	THPCTL_ETC=$e "$SAFE/thpctl" persist --format systemd --install >"$TMP/out" 2>"$TMP/err"
	RC=$?
	expect_zero "persist --install systemd of a root-only $SAFE/thpctl: written, ExecStart= runs it" \
		"$([ "$RC" = 0 ] && grep -q "^ExecStart=$SAFE/thpctl set --wait" "$unit"; echo $?)" "exit $RC: $(errtail)"
}

t persist --format tmpfiles
expect_zero "persist tmpfiles: one 'w' line per writable knob ($nknobs)" \
	"$([ "$RC" = 0 ] && [ "$(grep -c "^w $THP/" "$TMP/out")" = "$nknobs" ] && grep -qx "w $THP/$S_KEY - - - - $(knob $S_KEY)" "$TMP/out"; echo $?)" \
	"exit $RC: $(grep -c '^w ' "$TMP/out") lines"
cp "$TMP/out" "$TMP/tmpfiles.conf"
t persist --format systemd
cp "$TMP/out" "$TMP/thpctl-thp.service"
# the unit's one command: ExecStart= with its continuation lines joined
unit_cmd() { sed -n '/^ExecStart=/,/[^\\]$/p' "$1" | sed -e 's/^ExecStart=//' -e 's/\\$//' | tr -s '\t\n' '  '; }
expect_zero "persist systemd: a oneshot unit, one ExecStart (no '-') running thpctl set with $nknobs knobs" \
	"$([ "$RC" = 0 ] && grep -qx 'Type=oneshot' "$TMP/out" && [ "$(grep -c '^ExecStart=' "$TMP/out")" = 1 ] &&
		[ "$(unit_cmd "$TMP/out" | wc -w)" = $((nknobs + 3)) ] && unit_cmd "$TMP/out" | grep -q "^$(realpath "$T") set --wait " &&
		unit_cmd "$TMP/out" | grep -qw "$S_KEY=$(knob $S_KEY)"; echo $?)" \
	"exit $RC: $(unit_cmd "$TMP/out" | cut -c1-200)"
# the unit's command as it is, with --dry-run: every knob accepted (the values are the current ones)
read -ra ucmd < <(unit_cmd "$TMP/out")
"${ucmd[0]}" "${ucmd[1]}" --dry-run "${ucmd[@]:2}" >"$TMP/unit.out" 2>&1
expect_zero "persist systemd: the unit's thpctl set --dry-run accepts all $nknobs knobs (exit 0)" "$?" \
	"$(tr '\n' ' ' <"$TMP/unit.out" | cut -c1-300)"
# a knob this kernel lacks: the command fails, so the unit fails (no '-' prefix)
"${ucmd[0]}" "${ucmd[1]}" --dry-run "${ucmd[@]:2}" hugepages-3kB/enabled=never >"$TMP/unit.out" 2>&1
rc=$?
expect_zero "persist systemd: with a knob this kernel lacks the unit's command exits 2, naming it" \
	"$([ "$rc" = 2 ] && grep -q 'hugepages-3kB' "$TMP/unit.out"; echo $?)" "exit $rc: $(tr '\n' ' ' <"$TMP/unit.out" | cut -c1-300)"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$TMP/thpctl-thp.service" >"$TMP/verify" 2>&1
	expect_zero "persist systemd: systemd-analyze verify accepts the unit" "$?" "$(tr '\n' ' ' <"$TMP/verify" | cut -c1-300)"
else
	skip "persist systemd: systemd-analyze verify" "systemd-analyze not installed"
fi
mode=$(sysfs_choice "$THP/enabled")
t persist --format cmdline
expect_zero "persist cmdline: transparent_hugepage=$mode, defrag listed as having no parameter" \
	"$([ "$RC" = 0 ] && grep -qE "^transparent_hugepage=$mode( |$)" "$TMP/out" && grep -q 'defrag=' "$TMP/out"; echo $?)" \
	"exit $RC: $(head -c 300 "$TMP/out")"
rel=$(uname -r | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
if [ -f "$THP/hugepages-2048kB/enabled" ] &&
	[ "$(printf '6.12\n%s\n' "$rel" | sort -V | head -n1)" = 6.12 ]; then
	expect_zero "persist cmdline: thp_anon= on a 6.12+ kernel with per-size directories" \
		"$(grep -qE '(^| )thp_anon=[^ ]*2M:' "$TMP/out"; echo $?)" "$(head -c 300 "$TMP/out")"
else
	skip "persist cmdline: thp_anon=" "kernel $(uname -r) predates it (6.12) or has no per-size directories"
fi
t persist --format sysctl
expect_zero "persist sysctl: vm.nr_hugepages = the current value" \
	"$([ "$RC" = 0 ] && grep -qx "vm.nr_hugepages = $(cat /proc/sys/vm/nr_hugepages)" "$TMP/out"; echo $?)" \
	"exit $RC: $(head -c 300 "$TMP/out")"
t persist --format sysctl vm.nr_hugepages=128
expect_zero "persist sysctl KEY=VALUE: only what was given" \
	"$([ "$RC" = 0 ] && grep -qx 'vm.nr_hugepages = 128' "$TMP/out" && ! grep -q overcommit "$TMP/out"; echo $?)" "$(head -c 300 "$TMP/out")"
t persist enabled=never "$S_KEY=$S0"
expect_zero "persist KEY=VALUE: exactly those knobs" \
	"$([ "$RC" = 0 ] && [ "$(grep -c '^w ' "$TMP/out")" = 2 ] && grep -qx "w $THP/enabled - - - - never" "$TMP/out"; echo $?)" \
	"exit $RC: $(head -c 300 "$TMP/out")"
t persist enabled=sometimes
expect_rc "persist: an invalid value is a usage error" 2
t persist --format yaml
expect_rc "persist: an unknown format is a usage error" 2
t persist --format cmdline --install
expect_rc "persist --install cmdline: refused (boot loader), usage error" 2
t persist --format tuned
expect_zero "persist tuned: include=, [vm] transparent_hugepages=$mode, one [sysfs] line per other knob" \
	"$([ "$RC" = 0 ] && grep -qx '^include=[A-Za-z0-9_.-]*' "$TMP/out" && grep -qx "transparent_hugepages=$mode" "$TMP/out" &&
		[ "$(grep -c "^$THP/" "$TMP/out")" = $((nknobs - 1)) ] && [ "$(grep -c '^\[sysfs\]$' "$TMP/out")" = 1 ]; echo $?)" \
	"exit $RC: $(head -c 400 "$TMP/out")"
t persist --format tuned --tuned-parent virtual-guest enabled=never
expect_zero "persist tuned --tuned-parent: include=virtual-guest, only enabled" \
	"$([ "$RC" = 0 ] && grep -qx 'include=virtual-guest' "$TMP/out" && grep -qx 'transparent_hugepages=never' "$TMP/out" && ! grep -q '^\[sysfs\]' "$TMP/out"; echo $?)" \
	"exit $RC: $(head -c 400 "$TMP/out")"
t persist --format tuned --tuned-parent '../x'
expect_rc "persist tuned: a parent that is not a profile name is a usage error" 2
t persist --format tmpfiles --tuned-parent balanced
expect_rc "persist: --tuned-parent without --format tuned is a usage error" 2
t persist --format tmpfiles --json
expect_json "persist --json: format and text" "$TMP/out" "d['format'] == 'tmpfiles' and d['text'].count('\\nw ') == $nknobs and d['installed'] is None"

if [ "$ROOT" -eq 1 ]; then
	# a copy of thpctl that only root can change, for the units --install writes (it
	# refuses one below /tmp): in the first of these directories whose every directory up
	# to / is root's, not writable by group or others, and not a link
	root_only_path() {
		local p=$1
		while :; do
			[ ! -L "$p" ] && [ "$(stat -c %u "$p")" = 0 ] &&
				(((8#$(stat -c %a "$p") & 8#022) == 0)) || return 1
			[ "$p" = / ] && return 0
			p=$(dirname "$p")
		done
	}
	for d in /var/lib /root /usr/local; do
		root_only_path "$d" || continue
		SAFE=$(mktemp -d "$d/thpctl-control.XXXXXX") || continue
		chmod 755 "$SAFE" && cp "$T" "$SAFE/thpctl" && chmod 755 "$SAFE/thpctl" &&
			"$SAFE/thpctl" --version >/dev/null 2>&1 && break
		rm -rf "$SAFE"
		SAFE=
	done
	ETC=$TMP/etc
	for f in tmpfiles systemd sysctl tuned; do
		bin=$T
		if [ "$f" = systemd ]; then
			[ -n "$SAFE" ] || { skip "persist --install systemd" "no root-only directory for thpctl (/var/lib, /root, /usr/local)"; continue; }
			bin=$SAFE/thpctl
		fi
		THPCTL_ETC=$ETC "$bin" persist --format "$f" --install >"$TMP/out" 2>"$TMP/err"
		RC=$?
		san_note "persist --install $f" "$TMP/err"
		path=$ETC/$(persist_rel "$f")
		"$bin" persist --format "$f" >"$TMP/printed" 2>/dev/null
		expect_zero "persist --install $f: writes $path as printed and says where" \
			"$([ "$RC" = 0 ] && cmp -s "$path" "$TMP/printed" && grep -q "^wrote $path" "$TMP/out"; echo $?)" \
			"exit $RC: $(cat "$TMP/out") $(errtail)"
		expect_zero "persist --install $f: prints the command that undoes it (rm $path), keeps no old file" \
			"$(grep -q '^to undo it, as root' "$TMP/out" && tr -d '\\\n' <"$TMP/out" | tr -s ' ' | grep -qF "rm $path" &&
				[ ! -e "$path.thpctl-old" ]; echo $?)" \
			"$(cat "$TMP/out")"
		apply=
		case $f in
		tmpfiles) apply="systemd-tmpfiles --create $path" ;;
		sysctl) apply="sysctl -p $path" ;;
		esac
		[ -z "$apply" ] || expect_zero "persist --install $f: the command that applies it now on lines of its own ($apply)" \
			"$(grep -q 'now:$' "$TMP/out" && sed -n '/now:$/,/^[^ ]/p' "$TMP/out" | tr -d '\\\n' | tr -s ' ' | grep -qF " $apply"; echo $?)" \
			"$(cat "$TMP/out")"
	done
	if [ -n "$SAFE" ]; then
		THPCTL_ETC=$ETC "$SAFE/thpctl" persist --format systemd --install >"$TMP/out" 2>&1
		expect_zero "persist --install systemd: not enabled, says the command to enable; unchanged the second time" \
			"$(grep -q 'systemctl enable' "$TMP/out" && grep -q '^unchanged:' "$TMP/out" && [ ! -e "$ETC/systemd/system/basic.target.wants" ]; echo $?)" \
			"$(cat "$TMP/out")"
	fi
	persist_replace_checks
	persist_unit_exe_checks
	t_nobody persist --format tmpfiles --install
	expect_zero "persist --install unprivileged: exit 1, 'needs root'" \
		"$([ "$RC" = 1 ] && grep -q 'needs root' "$TMP/err"; echo $?)" "exit $RC: $(errtail)"
else
	skip "persist --install" "needs root"
fi

# ==== the host as found =======================================================
expect_settings_as_found "host THP settings as found ($nknobs knobs, no journal left)" "$TMP/base" ||
	settings_put_back "$TMP/base"
expect_sanitizers_quiet "sanitizers quiet"
summary
