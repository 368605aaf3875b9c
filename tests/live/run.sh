#!/usr/bin/env bash
# Live tests: thpctl (ASan+UBSan build) against the running kernel, with
# helper processes (build/tests/thp_helper) whose memory layout is known.
#
# Each check prints "ok - NAME", "not ok - NAME: DETAILS" or
# "skip - NAME: REASON" (only where this kernel lacks the feature, or the
# check needs root). The last line is "live: N passed, M failed, K skipped";
# the exit status is non-zero when any check failed.
#
# Read-only towards the host: nothing here writes to /sys or /proc. Every
# helper started is killed on exit (trap EXIT).
#
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

T=${THPCTL:-build/asan/thpctl}
H=build/tests/thp_helper
THP=/sys/kernel/mm/transparent_hugepage
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
unset NO_COLOR

PASS=0 FAIL=0 SKIP=0
ok() { echo "ok - $1"; PASS=$((PASS + 1)); }
nok() { echo "not ok - $1: $2"; FAIL=$((FAIL + 1)); }
skip() { echo "skip - $1: $2"; SKIP=$((SKIP + 1)); }

TMP=$(mktemp -d /tmp/thpctl-live.XXXXXX)
chmod 755 "$TMP" # readable by nobody (setpriv checks write nothing here)
HELPER_PIDS=()
EXTRA_PIDS=() # grandchildren (prctl-fork's child): not ours to wait for
CHURN_PID=

# shellcheck disable=SC2317 # stop_pids and cleanup run from the EXIT trap
# stop_pids PID...: SIGTERM, up to 2 s to exit, then SIGKILL
stop_pids() {
	local p i alive
	for p in "$@"; do kill -TERM "$p" 2>/dev/null; done
	for ((i = 0; i < 40; i++)); do
		alive=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" -eq 0 ] && break
		sleep 0.05
	done
	for p in "$@"; do kill -KILL "$p" 2>/dev/null; done
}
# shellcheck disable=SC2317
cleanup() {
	local p
	if [ -n "$CHURN_PID" ]; then
		rm -f "$TMP/churn"
		stop_pids "$CHURN_PID"
		wait "$CHURN_PID" 2>/dev/null
	fi
	stop_pids "${HELPER_PIDS[@]}" "${EXTRA_PIDS[@]}"
	for p in "${HELPER_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

summary() {
	echo "live: $PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" -eq 0 ]
	exit
}

# ---- running thpctl ----------------------------------------------------------
# t ARGS...: run thpctl; stdout in $TMP/out, stderr in $TMP/err, status in RC.
# Any sanitizer report is remembered and fails the "sanitizers quiet" check.
SAN=()
t() {
	"$T" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer' "$TMP/err"; then
		SAN+=("thpctl $*: $(grep -m1 -E 'runtime error|Sanitizer' "$TMP/err")")
	fi
	return 0
}
# as_nobody ARGS...: the same, as user nobody with no supplementary groups
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer' "$TMP/err"; then
		SAN+=("(nobody) thpctl $*: $(grep -m1 -E 'runtime error|Sanitizer' "$TMP/err")")
	fi
	return 0
}
errtail() { tr '\n' ' ' <"$TMP/err" | cut -c1-300; }

# jcheck NAME FILE PYEXPR [PYDETAIL]: the Python expression, with d = the
# parsed JSON, must be true. Helpers: proc(pid) -> the ps row or None,
# vmas -> maps' VMA list, E -> environment. PYDETAIL is printed on failure.
jcheck() {
	local name=$1 file=$2 expr=$3 detail=${4:-}
	local msg
	if msg=$(python3 - "$file" "$expr" "$detail" 2>&1 <<'PY'
import json, os, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"output is not JSON: {e}")
    sys.exit(1)
E = os.environ
def proc(pid):
    m = [x for x in d.get("processes", []) if x["pid"] == int(pid)]
    return m[0] if m else None
vmas = d.get("vmas", []) if isinstance(d, dict) else []
try:
    good = eval(sys.argv[2])
except Exception as e:
    print(f"{type(e).__name__}: {e}")
    sys.exit(1)
if not good:
    print(eval(sys.argv[3]) if sys.argv[3] else "condition false: " + sys.argv[2])
    sys.exit(1)
PY
	); then
		ok "$name"
	else
		nok "$name" "$(tr '\n' ' ' <<<"$msg" | cut -c1-400)"
	fi
}

# expect_rc NAME WANT: check RC (set by t/as_nobody) against WANT
expect_rc() {
	if [ "$RC" -eq "$2" ]; then ok "$1"; else nok "$1" "exit $RC, want $2; stderr: $(errtail)"; fi
}

# ---- helpers -----------------------------------------------------------------
# start_helper VAR MODE [ARGS]: start thp_helper, wait for "ready PID [CHILD]",
# set VAR=PID (and VAR_CHILD=CHILD). Returns 1 if it never became ready.
start_helper() {
	local var=$1
	shift
	local out="$TMP/helper.$var"
	"$H" "$@" >"$out" 2>&1 &
	local pid=$! i word hp hc
	HELPER_PIDS+=("$pid")
	for ((i = 0; i < 200; i++)); do
		grep -q '^ready' "$out" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	read -r word hp hc <"$out"
	if [ "${word:-}" != ready ] || [ "$hp" != "$pid" ]; then
		nok "helper $* ready" "$(tr '\n' ' ' <"$out")"
		return 1
	fi
	printf -v "$var" '%s' "$pid"
	if [ -n "${hc:-}" ]; then
		printf -v "${var}_CHILD" '%s' "$hc"
		EXTRA_PIDS+=("$hc")
	fi
	return 0
}

# ---- preflight ---------------------------------------------------------------
for f in "$T" "$H"; do
	if [ ! -x "$f" ]; then
		nok "preflight" "$f missing: run 'make $T $H' (or 'make live')"
		summary
	fi
done
if [ ! -r "$THP/enabled" ]; then
	HAVE_THP=0
else
	HAVE_THP=1
	THP_MODE=$(sed -E 's/.*\[(.*)\].*/\1/' "$THP/enabled")
fi
IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1
settings_snapshot() {
	# every writable THP knob, to prove the tests changed nothing
	[ "$HAVE_THP" -eq 1 ] || return 0
	find "$THP" -type f -perm -u+w ! -path '*/stats/*' -print0 | sort -z | xargs -0 grep -H . 2>/dev/null
}
settings_snapshot >"$TMP/settings.before"

# ---- status ------------------------------------------------------------------
t status
expect_rc "status (text) exits 0" 0
if [ "$RC" -eq 0 ] && [ -s "$TMP/out" ] && grep -q '^Policy' "$TMP/out"; then
	ok "status (text) prints a Policy section"
else
	nok "status (text) prints a Policy section" "$(head -c 300 "$TMP/out")"
fi
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*)
		rest=${line#not ok - }
		nok "${rest%%: *}" "${rest#*: }"
		;;
	"skip - "*)
		rest=${line#skip - }
		skip "${rest%%: *}" "${rest#*: }"
		;;
	"#"*) echo "$line" ;;
	*) nok "status vs sysfs" "unexpected output: $line" ;;
	esac
done < <(python3 tests/live/status_vs_sysfs.py "$T" 2>&1)

# ---- helpers with known layouts ----------------------------------------------
HP='' NH='' PL='' PF='' PF_CHILD=''
start_helper HP hugepage 64
start_helper NH nohuge 16
start_helper PL plain 4
start_helper PF prctl-fork
export HP NH PL PF PF_CHILD

# ---- ps: MADV_HUGEPAGE helper -----------------------------------------------
if [ "$HAVE_THP" -eq 0 ]; then
	skip "ps/maps: MADV_HUGEPAGE helper gets THP" "kernel has no $THP (THP not built in)"
elif [ "$THP_MODE" = never ]; then
	skip "ps/maps: MADV_HUGEPAGE helper gets THP" "THP enabled=never on this host (not changed by tests)"
elif [ -n "$HP" ]; then
	t ps --pid "$HP" --json
	expect_rc "ps --pid HP --json exits 0" 0
	cp "$TMP/out" "$TMP/ps-hp.json"
	jcheck "ps: helper listed" "$TMP/ps-hp.json" "proc(E['HP']) is not None and len(d['processes']) == 1" "d['processes']"
	jcheck "ps: hugepage helper anon_huge_kb >= 60 MiB" "$TMP/ps-hp.json" \
		"proc(E['HP'])['anon_huge_kb'] >= 61440" "proc(E['HP'])"
	jcheck "ps: hugepage helper hg_vmas == 1, hg_kb == 64 MiB" "$TMP/ps-hp.json" \
		"proc(E['HP'])['hg_vmas'] == 1 and proc(E['HP'])['hg_kb'] == 65536" "proc(E['HP'])"
	jcheck "ps: largest_hg.size_kb >= 65536" "$TMP/ps-hp.json" \
		"(proc(E['HP'])['largest_hg'] or {}).get('size_kb', 0) >= 65536" "proc(E['HP'])['largest_hg']"
	jcheck "ps: reason 'opted in by madvise'" "$TMP/ps-hp.json" \
		"proc(E['HP'])['reason'] == 'opted in by madvise'" "proc(E['HP'])['reason']"
	jcheck "ps: thp_enabled true, nh_vmas 0, thpeligible_vmas >= 1" "$TMP/ps-hp.json" \
		"proc(E['HP'])['thp_enabled'] is True and proc(E['HP'])['nh_vmas'] == 0 and proc(E['HP'])['thpeligible_vmas'] >= 1" "proc(E['HP'])"
	jcheck "ps: mode smaps, comm thp_helper, uid is ours" "$TMP/ps-hp.json" \
		"d['mode'] == 'smaps' and proc(E['HP'])['comm'] == 'thp_helper' and proc(E['HP'])['uid'] == os.getuid()" "d['mode'], proc(E['HP'])"
	# cross-check against the kernel's own rollup for the same process
	awk '/^AnonHugePages:/ {a=$2} /^Rss:/ {r=$2} END {print a, r}' "/proc/$HP/smaps_rollup" >"$TMP/rollup"
	read -r K_AHP K_RSS <"$TMP/rollup"
	export K_AHP K_RSS
	jcheck "ps: anon_huge_kb == smaps_rollup AnonHugePages" "$TMP/ps-hp.json" \
		"proc(E['HP'])['anon_huge_kb'] == int(E['K_AHP'])" "proc(E['HP'])['anon_huge_kb'], E['K_AHP']"
	jcheck "ps: rss_kb within 1 MiB of smaps_rollup Rss" "$TMP/ps-hp.json" \
		"abs(proc(E['HP'])['rss_kb'] - int(E['K_RSS'])) <= 1024" "proc(E['HP'])['rss_kb'], E['K_RSS']"

	t ps --json
	expect_rc "ps --json (default filter) exits 0" 0
	cp "$TMP/out" "$TMP/ps-default.json"
	jcheck "ps (default): lists the hugepage helper" "$TMP/ps-default.json" "proc(E['HP']) is not None" "[p['pid'] for p in d['processes']]"
	jcheck "ps (default): lists the nohuge helper" "$TMP/ps-default.json" "proc(E['NH']) is not None" "[p['pid'] for p in d['processes']]"
	jcheck "ps (default): lists both prctl helpers" "$TMP/ps-default.json" \
		"proc(E['PF']) is not None and proc(E['PF_CHILD']) is not None" "[p['pid'] for p in d['processes']]"
	jcheck "ps (default): leaves out the plain helper" "$TMP/ps-default.json" "proc(E['PL']) is None" "proc(E['PL'])"
	jcheck "ps (default): sorted by anon_huge_kb descending" "$TMP/ps-default.json" \
		"[p.get('anon_huge_kb') or 0 for p in d['processes']] == sorted([p.get('anon_huge_kb') or 0 for p in d['processes']], reverse=True)" \
		"[(p['pid'], p['anon_huge_kb']) for p in d['processes']]"
	jcheck "ps (default): totals.anon_huge_kb == sum of rows" "$TMP/ps-default.json" \
		"d['totals']['anon_huge_kb'] == sum(p['anon_huge_kb'] or 0 for p in d['processes'])" "d['totals']"
	t ps
	if [ "$RC" -eq 0 ] && grep -qE "^ *$HP " "$TMP/out"; then ok "ps (text, default): lists the hugepage helper"; else nok "ps (text, default): lists the hugepage helper" "exit $RC; $(errtail)"; fi

	t ps --all --json
	cp "$TMP/out" "$TMP/ps-all.json"
	jcheck "ps --all: lists the plain helper" "$TMP/ps-all.json" "proc(E['PL']) is not None and proc(E['PL'])['anon_huge_kb'] == 0" "proc(E['PL'])"
	jcheck "ps --all: no kernel threads (kthreadd, pid 2)" "$TMP/ps-all.json" "proc(2) is None" "proc(2)"

	t ps --min-ahp 60M --json
	expect_rc "ps --min-ahp 60M exits 0" 0
	jcheck "ps --min-ahp 60M keeps the helper" "$TMP/out" "proc(E['HP']) is not None" "[p['pid'] for p in d['processes']]"
	jcheck "ps --min-ahp 60M: every row >= 61440 kB" "$TMP/out" \
		"all((p['anon_huge_kb'] or 0) >= 61440 for p in d['processes'] if p['readable'])" "[(p['pid'], p['anon_huge_kb']) for p in d['processes']]"
	t ps --min-ahp 1G --json
	expect_rc "ps --min-ahp 1G exits 0" 0
	jcheck "ps --min-ahp 1G drops the helper" "$TMP/out" "proc(E['HP']) is None" "[p['pid'] for p in d.get('processes', [])]"
	t ps --pid "$HP" --min-ahp 1G --json
	expect_rc "ps --pid HP --min-ahp 1G (no rows) exits 0" 0
	jcheck "ps --pid HP --min-ahp 1G: empty list, JSON" "$TMP/out" "d['processes'] == []" "d['processes']"

	t ps --rollup --pid "$HP" --json
	expect_rc "ps --rollup --json exits 0" 0
	export PS_AHP
	PS_AHP=$(python3 -c 'import json,sys; print([p for p in json.load(open(sys.argv[1]))["processes"]][0]["anon_huge_kb"])' "$TMP/ps-hp.json" 2>/dev/null)
	jcheck "ps --rollup: mode rollup, same anon_huge_kb" "$TMP/out" \
		"d['mode'] == 'rollup' and proc(E['HP'])['anon_huge_kb'] == int(E['PS_AHP'])" "d['mode'], proc(E['HP'])"
	jcheck "ps --rollup: hg_vmas, nh_vmas, thpeligible_vmas null" "$TMP/out" \
		"proc(E['HP'])['hg_vmas'] is None and proc(E['HP'])['nh_vmas'] is None and proc(E['HP'])['thpeligible_vmas'] is None and d['totals']['hg_vmas'] is None" "proc(E['HP'])"

	t ps --pid "$HP"
	if [ "$RC" -eq 0 ] && grep -q "$HP" "$TMP/out" && grep -q "opted in by madvise" "$TMP/out"; then
		ok "ps --pid HP (text): pid and 'opted in by madvise'"
	else
		nok "ps --pid HP (text): pid and 'opted in by madvise'" "exit $RC; $(head -c 300 "$TMP/out")"
	fi

	ME=$(id -un)
	OTHER=65534
	[ "$(id -u)" -eq 65534 ] && OTHER=0
	t ps --user "$ME" --pid "$HP" --json
	jcheck "ps --user $ME (owner) keeps the helper" "$TMP/out" "proc(E['HP']) is not None" "d.get('processes')"
	t ps --user "$OTHER" --pid "$HP" --json
	expect_rc "ps --user $OTHER (no rows) exits 0" 0
	jcheck "ps --user $OTHER (not the owner) drops the helper" "$TMP/out" "proc(E['HP']) is None" "d.get('processes')"

	for key in ahp rss share hg pid comm; do
		t ps --all --sort "$key" --json
		expect_rc "ps --all --sort $key exits 0" 0
	done
	jcheck "ps --sort comm: rows sorted by comm" "$TMP/out" \
		"[p['comm'] for p in d['processes']] == sorted(p['comm'] for p in d['processes'])" "[p['comm'] for p in d['processes']][:20]"
	t ps --all --sort pid --json
	jcheck "ps --sort pid: pids ascending" "$TMP/out" \
		"[p['pid'] for p in d['processes']] == sorted(p['pid'] for p in d['processes'])" "[p['pid'] for p in d['processes']][:20]"

	# ---- maps: MADV_HUGEPAGE helper ----
	t --json maps "$HP"
	expect_rc "--json maps HP exits 0" 0
	cp "$TMP/out" "$TMP/maps-hp.json"
	jcheck "maps: exactly one hg VMA" "$TMP/maps-hp.json" "len([v for v in vmas if v['hg']]) == 1" "[v for v in vmas if v['hg']]"
	jcheck "maps: hg VMA anon_huge_kb >= 61440 and thpeligible" "$TMP/maps-hp.json" \
		"[v for v in vmas if v['hg']][0]['anon_huge_kb'] >= 61440 and [v for v in vmas if v['hg']][0]['thpeligible'] is True" \
		"[v for v in vmas if v['hg']]"
	jcheck "maps: hg VMA is 64 MiB, 2 MiB aligned" "$TMP/maps-hp.json" \
		"[(v['size_kb'], int(v['start'], 16) % (2 << 20), int(v['end'], 16) - int(v['start'], 16)) for v in vmas if v['hg']] == [(65536, 0, 64 << 20)]" \
		"[v for v in vmas if v['hg']]"
	jcheck "maps: pid, comm, thp_enabled true, no prctl setter" "$TMP/maps-hp.json" \
		"d['pid'] == int(E['HP']) and d['comm'] == 'thp_helper' and d['thp_enabled'] is True and d['prctl_set_by'] is None" \
		"{k: d[k] for k in d if k != 'vmas'}"
	jcheck "maps: totals.anon_huge_kb == sum of VMAs" "$TMP/maps-hp.json" \
		"d['totals']['anon_huge_kb'] == sum(v['anon_huge_kb'] for v in vmas)" "d['totals']"
	export MAPS_N
	MAPS_N=$(wc -l <"/proc/$HP/maps")
	jcheck "maps: one entry per /proc/PID/maps line" "$TMP/maps-hp.json" "len(vmas) == int(E['MAPS_N'])" "len(vmas), E['MAPS_N']"
	t maps "$HP" --json
	if [ "$RC" -eq 0 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" 2>/dev/null; then
		ok "maps PID --json (option after the PID, as its usage shows)"
	else
		nok "maps PID --json (option after the PID, as its usage shows)" "exit $RC; stderr: $(errtail | cut -c1-120)"
	fi
	t maps "$HP"
	if [ "$RC" -eq 0 ] && grep -qE ' hg +' "$TMP/out"; then ok "maps HP (text): an hg row"; else nok "maps HP (text): an hg row" "exit $RC; $(errtail)"; fi
else
	nok "ps/maps: MADV_HUGEPAGE helper" "helper did not start"
fi

# ---- nohuge helper -----------------------------------------------------------
if [ -n "$NH" ]; then
	t ps --pid "$NH" --json
	expect_rc "ps --pid NH --json exits 0" 0
	jcheck "ps: nohuge helper nh_vmas >= 1, nh_kb >= 16 MiB" "$TMP/out" \
		"proc(E['NH'])['nh_vmas'] >= 1 and proc(E['NH'])['nh_kb'] >= 16384" "proc(E['NH'])"
	jcheck "ps: nohuge reason 'opted out by madvise', no AnonHuge" "$TMP/out" \
		"proc(E['NH'])['reason'] == 'opted out by madvise' and proc(E['NH'])['anon_huge_kb'] == 0" "proc(E['NH'])"
	t --json maps "$NH"
	jcheck "maps: nohuge VMA (16 MiB) nh true, thpeligible false" "$TMP/out" \
		"[(v['size_kb'], v['thpeligible'], v['anon_huge_kb']) for v in vmas if v['nh'] and v['size_kb'] == 16384] == [(16384, False, 0)]" \
		"[v for v in vmas if v['nh']]"
fi

# ---- prctl helper ------------------------------------------------------------
if [ -n "$PF" ]; then
	t ps --pid "$PF,$PF_CHILD" --json
	expect_rc "ps --pid PARENT,CHILD exits 0" 0
	jcheck "ps: prctl parent and child thp_enabled false" "$TMP/out" \
		"proc(E['PF'])['thp_enabled'] is False and proc(E['PF_CHILD'])['thp_enabled'] is False" "d['processes']"
	jcheck "ps: prctl reason 'THP disabled by prctl'" "$TMP/out" \
		"all(proc(E[k])['reason'] == 'THP disabled by prctl' for k in ('PF', 'PF_CHILD'))" "[p['reason'] for p in d['processes']]"
	jcheck "ps: prctl child's ppid is the parent" "$TMP/out" "proc(E['PF_CHILD'])['ppid'] == int(E['PF'])" "proc(E['PF_CHILD'])"
	t --json maps "$PF_CHILD"
	expect_rc "--json maps CHILD exits 0" 0
	jcheck "maps CHILD: prctl_set_by.pid == parent" "$TMP/out" \
		"d['thp_enabled'] is False and (d['prctl_set_by'] or {}).get('pid') == int(E['PF'])" "{k: d[k] for k in d if k != 'vmas'}"
	jcheck "maps CHILD: prctl_ancestors == [parent], chain not cut" "$TMP/out" \
		"[a['pid'] for a in d['prctl_ancestors']] == [int(E['PF'])] and d['prctl_chain_cut'] is False" "d['prctl_ancestors'], d['prctl_chain_cut']"
	t --json maps "$PF"
	jcheck "maps PARENT: prctl_set_by is the parent itself" "$TMP/out" \
		"d['thp_enabled'] is False and (d['prctl_set_by'] or {}).get('pid') == int(E['PF']) and d['prctl_ancestors'] == []" \
		"{k: d[k] for k in d if k != 'vmas'}"
	t maps "$PF_CHILD"
	if [ "$RC" -eq 0 ] && grep -q "PID $PF " "$TMP/out"; then
		ok "maps CHILD (text) names the parent pid"
	else
		nok "maps CHILD (text) names the parent pid" "exit $RC; $(head -c 300 "$TMP/out")"
	fi
fi

# ---- as nobody ---------------------------------------------------------------
if [ "$IS_ROOT" -eq 0 ]; then
	skip "as nobody" "needs root (setpriv)"
elif ! command -v setpriv >/dev/null; then
	skip "as nobody" "setpriv (util-linux) not installed"
else
	as_nobody status
	expect_rc "status as nobody exits 0" 0
	if grep -qi "not writable" "$TMP/out"; then ok "status as nobody: 'not writable' finding in text"; else nok "status as nobody: 'not writable' finding in text" "$(grep -i writ "$TMP/out" | head -3)"; fi
	as_nobody status --json
	expect_rc "status --json as nobody exits 0" 0
	jcheck "status --json as nobody: settings-read-only finding, writable false" "$TMP/out" \
		"'settings-read-only' in [f['id'] for f in d['findings']] and d['policy']['writable'] is False" \
		"[f['id'] for f in d['findings']], d['policy']['writable'], d['policy']['write_error']"
	as_nobody ps
	expect_rc "ps as nobody exits 0" 0
	if grep -q "not readable" "$TMP/out"; then ok "ps as nobody (text): 'not readable'"; else nok "ps as nobody (text): 'not readable'" "$(tail -n 3 "$TMP/out")"; fi
	as_nobody ps --json
	expect_rc "ps --json as nobody exits 0" 0
	jcheck "ps --json as nobody: unreadable > 0, partial true" "$TMP/out" \
		"d['unreadable'] > 0 and d['partial'] is True" "d['unreadable'], d['partial']"
	if [ -n "$HP" ]; then
		as_nobody maps "$HP"
		if [ "$RC" -eq 1 ] && grep -q "$HP" "$TMP/err"; then
			ok "maps ROOT_PID as nobody: exit 1 with a message"
		else
			nok "maps ROOT_PID as nobody: exit 1 with a message" "exit $RC; stderr: $(errtail)"
		fi
	fi
fi

# ---- usage and runtime errors ------------------------------------------------
for args in "ps --sort bogus" "maps" "maps abc" "maps 0" "maps 1 2" "nosuchcmd" "ps --min-ahp x" "ps --pid 0" "ps --pid 1,abc" "ps --bogus" "status extra" "ps --user no-such-user-xyz"; do
	# shellcheck disable=SC2086
	t $args
	expect_rc "usage error exits 2: thpctl $args" 2
done
t maps 999999999
expect_rc "maps 999999999 (no such process) exits 1" 1
if grep -qi "no such process" "$TMP/err"; then ok "maps 999999999: 'no such process' message"; else nok "maps 999999999: 'no such process' message" "$(errtail)"; fi
# a free PID below pid_max
FREE=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while [ -e "/proc/$FREE" ]; do FREE=$((FREE - 1)); done
t maps "$FREE"
expect_rc "maps FREE_PID (below pid_max, unused) exits 1" 1
t maps 2
if [ "$RC" -eq 1 ] && [ -s "$TMP/err" ]; then ok "maps 2 (kernel thread): exit 1 with a message"; else nok "maps 2 (kernel thread): exit 1 with a message" "exit $RC; $(errtail)"; fi
t --sysroot /nonexistent status
expect_rc "--sysroot /nonexistent status exits 1" 1
if [ -s "$TMP/err" ]; then ok "--sysroot /nonexistent: message on stderr"; else nok "--sysroot /nonexistent: message on stderr" "empty stderr"; fi

# ---- colour ------------------------------------------------------------------
ESC=$'\e'
for args in status ps "maps $$"; do
	# shellcheck disable=SC2086
	t $args
	if grep -q "$ESC" "$TMP/out" "$TMP/err"; then nok "no escapes when not a tty: $args" "escape sequence found"; else ok "no escapes when not a tty: $args"; fi
done
if command -v script >/dev/null; then
	tty_run() { script -qec "$1" /dev/null >"$TMP/tty" 2>&1 </dev/null; }
	tty_run "$T status"
	if grep -q "$ESC" "$TMP/tty"; then ok "colour on a tty: status"; else nok "colour on a tty: status" "no escape sequence"; fi
	tty_run "NO_COLOR=1 $T status"
	if grep -q "$ESC" "$TMP/tty"; then nok "NO_COLOR=1 on a tty: no escapes" "escape found: $(grep -m1 -o "$ESC.\{0,6\}" "$TMP/tty" | cat -v)"; else ok "NO_COLOR=1 on a tty: no escapes"; fi
	for args in "--no-color status" "status --no-color" "--no-color ps --all" "ps --all --no-color" "--no-color maps $$"; do
		tty_run "$T $args"
		if grep -q "$ESC" "$TMP/tty"; then nok "$args on a tty: no escapes" "escape found"; else ok "$args on a tty: no escapes"; fi
	done
else
	skip "colour on a tty" "script (util-linux) not installed"
fi

# ---- processes exiting mid-scan ----------------------------------------------
touch "$TMP/churn"
(
	# sleeps, and helpers that map 4 MiB of THP and are SIGKILLed at random
	# moments (SIGKILL: no race with the helper's own handler set-up;
	# --foreground: timeout signals only the helper and reaps it)
	while [ -e "$TMP/churn" ]; do
		for i in $(seq 50); do sleep "0.0$((RANDOM % 10))" & done
		for i in 1 2 3; do timeout --foreground -s KILL "0.$((RANDOM % 3 + 1))" "$H" hugepage 4 >/dev/null 2>&1 & done
		wait
	done
) &
CHURN_PID=$!
sleep 0.2
bad=
for i in 1 2 3 4 5 6; do
	t ps --all --json
	if [ "$RC" -ne 0 ]; then bad="run $i: exit $RC: $(errtail)"; break; fi
	if ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["errors"] == 0, "errors=%d" % d["errors"]' "$TMP/out" 2>"$TMP/perr"; then
		bad="run $i: $(tail -n1 "$TMP/perr")"
		break
	fi
	t ps --all --rollup --json
	if [ "$RC" -ne 0 ]; then bad="rollup run $i: exit $RC: $(errtail)"; break; fi
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" 2>/dev/null || { bad="rollup run $i: invalid JSON"; break; }
done
rm -f "$TMP/churn"
wait "$CHURN_PID" 2>/dev/null
CHURN_PID=
if [ -z "$bad" ]; then ok "ps --all [--rollup] --json x6 while processes come and go: exit 0, JSON, errors 0"; else nok "ps --all --json while processes come and go" "$bad"; fi

# ---- helpers end cleanly on SIGTERM -------------------------------------------
if [ -n "$HP" ]; then
	kill -TERM "$HP"
	wait "$HP"
	rc=$?
	if [ "$rc" -eq 0 ]; then ok "helper exits 0 on SIGTERM"; else nok "helper exits 0 on SIGTERM" "exit $rc"; fi
fi
if [ -n "$PF" ]; then
	kill -TERM "$PF"
	wait "$PF"
	rc=$?
	for ((i = 0; i < 40; i++)); do kill -0 "$PF_CHILD" 2>/dev/null || break; sleep 0.05; done
	if [ "$rc" -eq 0 ] && ! kill -0 "$PF_CHILD" 2>/dev/null; then
		ok "prctl-fork helper exits 0 on SIGTERM and takes its child along"
	else
		nok "prctl-fork helper exits 0 on SIGTERM and takes its child along" "exit $rc; child alive: $(kill -0 "$PF_CHILD" 2>/dev/null && echo yes || echo no)"
	fi
fi

# ---- nothing changed, sanitizers quiet ----------------------------------------
settings_snapshot >"$TMP/settings.after"
if cmp -s "$TMP/settings.before" "$TMP/settings.after"; then
	ok "host THP settings unchanged by the tests ($(wc -l <"$TMP/settings.after") knobs)"
else
	nok "host THP settings unchanged by the tests" "$(diff "$TMP/settings.before" "$TMP/settings.after" | tr '\n' ' ' | cut -c1-300)"
fi
if [ "${#SAN[@]}" -eq 0 ]; then
	ok "sanitizers quiet in every thpctl run"
else
	nok "sanitizers quiet in every thpctl run" "$(printf '%s | ' "${SAN[@]}" | cut -c1-600)"
fi

summary
