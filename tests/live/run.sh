#!/usr/bin/env bash
# Live tests: thpctl (ASan+UBSan build) against the running kernel, with
# helper processes (build/tests/thp_helper) whose memory layout is known.
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "live: N passed,
# M failed, K skipped", non-zero exit on failures). A check skips only where
# this kernel lacks the feature, or it needs root.
#
# Read-only towards the host: nothing here writes to /sys or /proc. Every
# helper started is killed on exit.
#
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init live

H=build/tests/thp_helper
CHURN_PID=
# shellcheck disable=SC2016 # evaluated at exit
at_exit 'if [ -n "$CHURN_PID" ]; then rm -f "$TMP/churn"; stop_pid "$CHURN_PID" 2; fi'

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
	THP_MODE=$(sysfs_choice "$THP/enabled")
fi
# every writable THP knob (and the hugetlb and vm ones), to prove the tests changed nothing
settings_snapshot "$TMP/settings.before"

# ---- status ------------------------------------------------------------------
t status
expect_rc "status (text) exits 0" 0
if [ "$RC" -eq 0 ] && [ -s "$TMP/out" ] && grep -q '^Policy' "$TMP/out"; then
	ok "status (text) prints a Policy section"
else
	nok "status (text) prints a Policy section" "$(head -c 300 "$TMP/out")"
fi
relay_results "status vs sysfs" < <(python3 tests/live/status_vs_sysfs.py "$T" 2>&1)
expect_out "status (text): since-boot khugepaged CPU points at --sample" "^  khugepaged CPU, recent .*not sampled: thpctl status --sample 5"
t status --json
# tuned as the files say (read through the sysroot, nothing spawned)
expect_json "status --json: tuned installed, active_profile and running as /etc/tuned and /run/tuned say" "$TMP/out" \
	"d['policy']['tuned']['installed'] == (os.path.isdir('/etc/tuned') or os.path.isdir('/usr/lib/tuned')) and d['policy']['tuned']['active_profile'] == ((open('/etc/tuned/active_profile').readline().strip() or None) if os.path.exists('/etc/tuned/active_profile') else None) and d['policy']['tuned']['running'] == os.path.exists('/run/tuned/tuned.pid')" \
	"d['policy']['tuned']"

# ---- status --sample: a recent khugepaged CPU share and counter rates --------
# counters carried: helpers fault huge pages all through the sample, so the
# delta must be above 0 and at most what /proc/vmstat moved around the command
fault_alloc() { awk '$1 == "thp_fault_alloc" { print $2 }' /proc/vmstat; }
FA0=$(fault_alloc)
(for _ in $(seq 16); do timeout -s TERM 0.2 "$H" hugepage 8 >/dev/null 2>&1; done) &
FAULTER=$!
track_pid "$FAULTER"
t status --sample 1 --json
wait "$FAULTER"
FA1=$(fault_alloc)
export FA0 FA1
expect_rc "status --sample 1 --json exits 0" 0
KHP_PID=$(grep -lx khugepaged /proc/[0-9]*/comm 2>/dev/null | head -1 | cut -d/ -f3)
export KHP_PID
if [ "$(sysfs_choice "$THP/enabled")" = never ]; then
	skip "status --sample 1: counters carried" "enabled=never: the helpers fault no huge page"
else
	expect_json "status --sample 1: recent over ~1 s, thp_fault_alloc delta > 0 while helpers faulted THPs, <= vmstat's" "$TMP/out" \
		"d['recent'] is not None and 0.9 <= d['recent']['interval_s'] <= 2.0 and 0 < d['recent']['counters']['thp_fault_alloc']['delta'] <= int(E['FA1']) - int(E['FA0'])" "d['recent'], E['FA0'], E['FA1']"
fi
if [ -n "$KHP_PID" ]; then
	expect_json "status --sample 1: khugepaged_cpu_ratio non-null, in [0, 1]" "$TMP/out" \
		"d['recent']['khugepaged_cpu_ratio'] is not None and 0 <= d['recent']['khugepaged_cpu_ratio'] <= 1 and d['recent']['khugepaged_cpu_s'] is not None" "d['recent']"
else
	skip "status --sample 1: khugepaged_cpu_ratio non-null" "no [khugepaged] thread (THP off or not built in)"
fi
if [ ! -s "$TMP/err" ]; then ok "status --sample 1: no progress line for one second"; else nok "status --sample 1: no progress line for one second" "$(errtail)"; fi
t status --sample 2
if [ "$RC" -eq 0 ] && grep -q '^Last 2 s (two reads' "$TMP/out" && grep -q '^  khugepaged CPU .*over the last' "$TMP/out" &&
	grep -q 'sampling for 2 s' "$TMP/err"; then
	ok "status --sample 2 (text): a 'Last 2 s' section, a progress line on stderr"
else
	nok "status --sample 2 (text): a 'Last 2 s' section, a progress line on stderr" "exit $RC; $(grep -A2 '^Last' "$TMP/out" | head -3); $(errtail)"
fi
t status --json
expect_json "status --json without --sample: recent is null" "$TMP/out" "'recent' in d and d['recent'] is None" "d.get('recent', 'absent')"
for v in 0 -1 x 61 1.5; do
	t status --sample "$v"
	expect_rc "usage error exits 2: thpctl status --sample $v" 2
done
t --sysroot tests/fixtures/linux-6.18-x86 status --sample 1
expect_rc "status --sample on a recorded tree: usage error (exit 2)" 2

# ---- helpers with known layouts ----------------------------------------------
HP='' NH='' PL='' PF='' PF_CHILD='' TS=''
start_helper HP "$H" hugepage 64
start_helper NH "$H" nohuge 16
start_helper PL "$H" plain 4
start_helper PF "$H" prctl-fork
start_helper TS "$H" threads 4
export HP NH PL PF PF_CHILD TS

# ---- ps: MADV_HUGEPAGE helper -----------------------------------------------
if [ "$HAVE_THP" -eq 0 ]; then
	skip "ps/maps: MADV_HUGEPAGE helper gets THP" "kernel has no $THP (THP not built in)"
elif [ "$THP_MODE" = never ]; then
	skip "ps/maps: MADV_HUGEPAGE helper gets THP" "THP enabled=never on this host (not changed by tests)"
elif [ -n "$HP" ]; then
	t ps --pid "$HP" --json
	expect_rc "ps --pid HP --json exits 0" 0
	cp "$TMP/out" "$TMP/ps-hp.json"
	expect_json "ps: helper listed" "$TMP/ps-hp.json" "proc(E['HP']) is not None and len(d['processes']) == 1" "d['processes']"
	expect_json "ps: hugepage helper anon_huge_kb >= 60 MiB" "$TMP/ps-hp.json" \
		"proc(E['HP'])['anon_huge_kb'] >= 61440" "proc(E['HP'])"
	expect_json "ps: hugepage helper hg_vmas == 1, hg_kb == 64 MiB" "$TMP/ps-hp.json" \
		"proc(E['HP'])['hg_vmas'] == 1 and proc(E['HP'])['hg_kb'] == 65536" "proc(E['HP'])"
	expect_json "ps: largest_hg.size_kb >= 65536" "$TMP/ps-hp.json" \
		"(proc(E['HP'])['largest_hg'] or {}).get('size_kb', 0) >= 65536" "proc(E['HP'])['largest_hg']"
	expect_json "ps: reason 'opted in by madvise'" "$TMP/ps-hp.json" \
		"proc(E['HP'])['reason'] == 'opted in by madvise'" "proc(E['HP'])['reason']"
	expect_json "ps: thp_enabled true, nh_vmas 0, thpeligible_vmas >= 1" "$TMP/ps-hp.json" \
		"proc(E['HP'])['thp_enabled'] is True and proc(E['HP'])['nh_vmas'] == 0 and proc(E['HP'])['thpeligible_vmas'] >= 1" "proc(E['HP'])"
	expect_json "ps: mode smaps, comm thp_helper, uid is ours" "$TMP/ps-hp.json" \
		"d['mode'] == 'smaps' and proc(E['HP'])['comm'] == 'thp_helper' and proc(E['HP'])['uid'] == os.getuid()" "d['mode'], proc(E['HP'])"
	# cross-check against the kernel's own rollup for the same process
	awk '/^AnonHugePages:/ {a=$2} /^Rss:/ {r=$2} END {print a, r}' "/proc/$HP/smaps_rollup" >"$TMP/rollup"
	read -r K_AHP K_RSS <"$TMP/rollup"
	export K_AHP K_RSS
	expect_json "ps: anon_huge_kb == smaps_rollup AnonHugePages" "$TMP/ps-hp.json" \
		"proc(E['HP'])['anon_huge_kb'] == int(E['K_AHP'])" "proc(E['HP'])['anon_huge_kb'], E['K_AHP']"
	expect_json "ps: rss_kb within 1 MiB of smaps_rollup Rss" "$TMP/ps-hp.json" \
		"abs(proc(E['HP'])['rss_kb'] - int(E['K_RSS'])) <= 1024" "proc(E['HP'])['rss_kb'], E['K_RSS']"

	t ps --json
	expect_rc "ps --json (default filter) exits 0" 0
	cp "$TMP/out" "$TMP/ps-default.json"
	expect_json "ps (default): lists the hugepage helper" "$TMP/ps-default.json" "proc(E['HP']) is not None" "[p['pid'] for p in d['processes']]"
	expect_json "ps (default): lists the nohuge helper" "$TMP/ps-default.json" "proc(E['NH']) is not None" "[p['pid'] for p in d['processes']]"
	expect_json "ps (default): lists both prctl helpers" "$TMP/ps-default.json" \
		"proc(E['PF']) is not None and proc(E['PF_CHILD']) is not None" "[p['pid'] for p in d['processes']]"
	expect_json "ps (default): leaves out the plain helper" "$TMP/ps-default.json" "proc(E['PL']) is None" "proc(E['PL'])"
	expect_json "ps (default): sorted by anon_huge_kb descending" "$TMP/ps-default.json" \
		"[p.get('anon_huge_kb') or 0 for p in d['processes']] == sorted([p.get('anon_huge_kb') or 0 for p in d['processes']], reverse=True)" \
		"[(p['pid'], p['anon_huge_kb']) for p in d['processes']]"
	expect_json "ps (default): totals.anon_huge_kb == sum of rows" "$TMP/ps-default.json" \
		"d['totals']['anon_huge_kb'] == sum(p['anon_huge_kb'] or 0 for p in d['processes'])" "d['totals']"
	t ps
	if [ "$RC" -eq 0 ] && grep -qE "^ *$HP " "$TMP/out"; then ok "ps (text, default): lists the hugepage helper"; else nok "ps (text, default): lists the hugepage helper" "exit $RC; $(errtail)"; fi

	t ps --all --json
	cp "$TMP/out" "$TMP/ps-all.json"
	expect_json "ps --all: lists the plain helper" "$TMP/ps-all.json" "proc(E['PL']) is not None and proc(E['PL'])['anon_huge_kb'] == 0" "proc(E['PL'])"
	expect_json "ps --all: no kernel threads (kthreadd, pid 2)" "$TMP/ps-all.json" "proc(2) is None" "proc(2)"

	t ps --min-ahp 60M --json
	expect_rc "ps --min-ahp 60M exits 0" 0
	expect_json "ps --min-ahp 60M keeps the helper" "$TMP/out" "proc(E['HP']) is not None" "[p['pid'] for p in d['processes']]"
	expect_json "ps --min-ahp 60M: every row >= 61440 kB" "$TMP/out" \
		"all((p['anon_huge_kb'] or 0) >= 61440 for p in d['processes'] if p['readable'])" "[(p['pid'], p['anon_huge_kb']) for p in d['processes']]"
	t ps --min-ahp 18446744073709551615 --json # rounded up to kB it wrapped to 0: every process
	expect_json "ps --min-ahp 2^64-1 drops the helper (no wrap to 0)" "$TMP/out" "proc(E['HP']) is None" \
		"[p['pid'] for p in d.get('processes', [])]"
	t ps --min-ahp 1G --json
	expect_rc "ps --min-ahp 1G exits 0" 0
	expect_json "ps --min-ahp 1G drops the helper" "$TMP/out" "proc(E['HP']) is None" "[p['pid'] for p in d.get('processes', [])]"
	t ps --pid "$HP" --min-ahp 1G --json
	expect_rc "ps --pid HP --min-ahp 1G (no rows) exits 0" 0
	expect_json "ps --pid HP --min-ahp 1G: empty list, JSON" "$TMP/out" "d['processes'] == []" "d['processes']"

	t ps --rollup --pid "$HP" --json
	expect_rc "ps --rollup --json exits 0" 0
	export PS_AHP
	PS_AHP=$(python3 -c 'import json,sys; print([p for p in json.load(open(sys.argv[1]))["processes"]][0]["anon_huge_kb"])' "$TMP/ps-hp.json" 2>/dev/null)
	expect_json "ps --rollup: mode rollup, same anon_huge_kb" "$TMP/out" \
		"d['mode'] == 'rollup' and proc(E['HP'])['anon_huge_kb'] == int(E['PS_AHP'])" "d['mode'], proc(E['HP'])"
	expect_json "ps --rollup: hg_vmas, nh_vmas, thpeligible_vmas null" "$TMP/out" \
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
	expect_json "ps --user $ME (owner) keeps the helper" "$TMP/out" "proc(E['HP']) is not None" "d.get('processes')"
	t ps --user "$OTHER" --pid "$HP" --json
	expect_rc "ps --user $OTHER (no rows) exits 0" 0
	expect_json "ps --user $OTHER (not the owner) drops the helper" "$TMP/out" "proc(E['HP']) is None" "d.get('processes')"

	# names by NSS on the live host: nobody (by name and by uid) selects the same
	# processes, a process running as nobody among them, shown as "nobody"
	if [ "$ROOT" = 1 ]; then
		"${NOBODY[@]}" sleep 60 & # not as_nobody: a function would run in a subshell of its own
		NB=$!
		track_pid "$NB"
		export NB
		wait_for 5 grep -q '^Uid:[[:space:]]*65534' "/proc/$NB/status"
		t ps --all --user nobody --json
		export PSNB="$TMP/ps-nobody.json"
		cp "$TMP/out" "$PSNB"
		expect_json "ps --all --user nobody: the sleep as nobody, user 'nobody'" "$TMP/out" \
			"proc(E['NB']) is not None and all(p['user'] == 'nobody' for p in d['processes'])" "d.get('processes')"
		t ps --all --user 65534 --json
		expect_json "ps --user nobody and --user 65534 select the same pids" "$TMP/out" \
			"sorted(p['pid'] for p in d['processes']) == sorted(p['pid'] for p in json.load(open(E['PSNB']))['processes']) and proc(E['NB']) is not None" "d.get('processes')"
		stop_pid "$NB" 2
		t ps --all --pid 1 --json
		expect_json "ps --pid 1: uid 0 shows as root" "$TMP/out" "proc(1) is not None and proc(1)['user'] == 'root'" "proc(1)"
	else
		skip "ps --user nobody vs 65534" "needs root to run a process as nobody"
	fi

	for key in ahp rss share hg pid comm; do
		t ps --all --sort "$key" --json
		expect_rc "ps --all --sort $key exits 0" 0
	done
	expect_json "ps --sort comm: rows sorted by comm" "$TMP/out" \
		"[p['comm'] for p in d['processes']] == sorted(p['comm'] for p in d['processes'])" "[p['comm'] for p in d['processes']][:20]"
	t ps --all --sort pid --json
	expect_json "ps --sort pid: pids ascending" "$TMP/out" \
		"[p['pid'] for p in d['processes']] == sorted(p['pid'] for p in d['processes'])" "[p['pid'] for p in d['processes']][:20]"

	# ---- maps: MADV_HUGEPAGE helper ----
	t --json maps "$HP"
	expect_rc "--json maps HP exits 0" 0
	cp "$TMP/out" "$TMP/maps-hp.json"
	expect_json "maps: exactly one hg VMA" "$TMP/maps-hp.json" "len([v for v in vmas if v['hg']]) == 1" "[v for v in vmas if v['hg']]"
	expect_json "maps: hg VMA anon_huge_kb >= 61440 and thpeligible" "$TMP/maps-hp.json" \
		"[v for v in vmas if v['hg']][0]['anon_huge_kb'] >= 61440 and [v for v in vmas if v['hg']][0]['thpeligible'] is True" \
		"[v for v in vmas if v['hg']]"
	expect_json "maps: hg VMA is 64 MiB, 2 MiB aligned" "$TMP/maps-hp.json" \
		"[(v['size_kb'], int(v['start'], 16) % (2 << 20), int(v['end'], 16) - int(v['start'], 16)) for v in vmas if v['hg']] == [(65536, 0, 64 << 20)]" \
		"[v for v in vmas if v['hg']]"
	expect_json "maps: pid, comm, thp_enabled true, no prctl setter" "$TMP/maps-hp.json" \
		"d['pid'] == int(E['HP']) and d['comm'] == 'thp_helper' and d['thp_enabled'] is True and d['prctl_set_by'] is None" \
		"{k: d[k] for k in d if k != 'vmas'}"
	expect_json "maps: totals.anon_huge_kb == sum of VMAs" "$TMP/maps-hp.json" \
		"d['totals']['anon_huge_kb'] == sum(v['anon_huge_kb'] for v in vmas)" "d['totals']"
	export MAPS_N
	MAPS_N=$(wc -l <"/proc/$HP/maps")
	expect_json "maps: one entry per /proc/PID/maps line" "$TMP/maps-hp.json" "len(vmas) == int(E['MAPS_N'])" "len(vmas), E['MAPS_N']"
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
	expect_json "ps: nohuge helper nh_vmas >= 1, nh_kb >= 16 MiB" "$TMP/out" \
		"proc(E['NH'])['nh_vmas'] >= 1 and proc(E['NH'])['nh_kb'] >= 16384" "proc(E['NH'])"
	expect_json "ps: nohuge reason 'opted out by madvise', no AnonHuge" "$TMP/out" \
		"proc(E['NH'])['reason'] == 'opted out by madvise' and proc(E['NH'])['anon_huge_kb'] == 0" "proc(E['NH'])"
	expect_json "ps: nohuge helper has no thread stack among its nh VMAs" "$TMP/out" \
		"proc(E['NH'])['nh_thread_stack_vmas'] == 0 and proc(E['NH'])['nh_thread_stack_kb'] == 0" "proc(E['NH'])"
	t why "$NH"
	if [ "$RC" -eq 0 ] && grep -q '^- nh .*opted out with MADV_NOHUGEPAGE' "$TMP/out"; then
		ok "why NH: a hindering '- nh' line (its own madvise)"
	else
		nok "why NH: a hindering '- nh' line (its own madvise)" "exit $RC; $(grep nh "$TMP/out" | head -3)"
	fi
	t --json maps "$NH"
	expect_json "maps: nohuge VMA (16 MiB) nh true, thpeligible false" "$TMP/out" \
		"[(v['size_kb'], v['thpeligible'], v['anon_huge_kb']) for v in vmas if v['nh'] and v['size_kb'] == 16384] == [(16384, False, 0)]" \
		"[v for v in vmas if v['nh']]"
fi

# ---- thread stacks helper ----------------------------------------------------
# 4 pthreads: glibc maps each stack with MAP_STACK and a guard page below it;
# since 6.7 the kernel marks those mappings nh (c4608d1bf7c6): not an opt-out.
if [ -n "$TS" ]; then
	if ! grep -q '^VmFlags:.* nh' "/proc/$TS/smaps" 2>/dev/null; then
		skip "thread stacks are not an opt-out" "no nh VMA in the helper: MAP_STACK is not nh before 6.7"
	else
		t ps --pid "$TS" --json
		expect_json "ps TS: 8 nh VMAs, all 8 thread stacks and guards" "$TMP/out" \
			"proc(E['TS'])['nh_vmas'] == 8 and proc(E['TS'])['nh_thread_stack_vmas'] == 8 and proc(E['TS'])['nh_thread_stack_kb'] == proc(E['TS'])['nh_kb']" "proc(E['TS'])"
		expect_json "ps TS: reason names the kernel, not madvise" "$TMP/out" \
			"proc(E['TS'])['reason'] == 'none (thread stacks: nh set by the kernel for MAP_STACK)'" "proc(E['TS'])['reason']"
		t ps --json
		expect_json "ps (default list): TS not listed (thread stacks alone are not THP-related)" "$TMP/out" \
			"proc(E['TS']) is None and proc(E['NH']) is not None" "[p['pid'] for p in d['processes']]"
		t why "$TS"
		if [ "$RC" -eq 0 ] && ! grep -q '^- nh' "$TMP/out" &&
			grep -q '^= nh .*no VMA opted out with MADV_NOHUGEPAGE: its 8 nh VMAs are thread stacks' "$TMP/out" &&
			grep -q '^= stack .*4 thread stacks .*nh set by the kernel for MAP_STACK' "$TMP/out"; then
			ok "why TS: no '- nh' line; a neutral (=) line for 4 thread stacks"
		else
			nok "why TS: no '- nh' line; a neutral (=) line for 4 thread stacks" "exit $RC; $(grep -E 'nh|stack' "$TMP/out" | head -4)"
		fi
		t why --json "$TS"
		expect_json "why --json TS: vmas.thread_stacks 4, nh_thread_stack_vmas 8" "$TMP/out" \
			"d['vmas']['thread_stacks'] == 4 and d['vmas']['nh_thread_stack_vmas'] == 8 and d['vmas']['nh'] == 8" "d['vmas']"
	fi
fi

# ---- prctl helper ------------------------------------------------------------
if [ -n "$PF" ]; then
	t ps --pid "$PF,$PF_CHILD" --json
	expect_rc "ps --pid PARENT,CHILD exits 0" 0
	expect_json "ps: prctl parent and child thp_enabled false" "$TMP/out" \
		"proc(E['PF'])['thp_enabled'] is False and proc(E['PF_CHILD'])['thp_enabled'] is False" "d['processes']"
	expect_json "ps: prctl reason 'THP disabled by prctl'" "$TMP/out" \
		"all(proc(E[k])['reason'] == 'THP disabled by prctl' for k in ('PF', 'PF_CHILD'))" "[p['reason'] for p in d['processes']]"
	expect_json "ps: prctl child's ppid is the parent" "$TMP/out" "proc(E['PF_CHILD'])['ppid'] == int(E['PF'])" "proc(E['PF_CHILD'])"
	t --json maps "$PF_CHILD"
	expect_rc "--json maps CHILD exits 0" 0
	expect_json "maps CHILD: prctl_set_by.pid == parent" "$TMP/out" \
		"d['thp_enabled'] is False and (d['prctl_set_by'] or {}).get('pid') == int(E['PF'])" "{k: d[k] for k in d if k != 'vmas'}"
	expect_json "maps CHILD: prctl_ancestors == [parent], chain not cut" "$TMP/out" \
		"[a['pid'] for a in d['prctl_ancestors']] == [int(E['PF'])] and d['prctl_chain_cut'] is False" "d['prctl_ancestors'], d['prctl_chain_cut']"
	t --json maps "$PF"
	expect_json "maps PARENT: prctl_set_by is the parent itself" "$TMP/out" \
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
if [ "$ROOT" -eq 0 ]; then
	skip "as nobody" "needs root (setpriv)"
elif ! command -v setpriv >/dev/null; then
	skip "as nobody" "setpriv (util-linux) not installed"
else
	t_nobody status
	expect_rc "status as nobody exits 0" 0
	if grep -qi "not writable" "$TMP/out"; then ok "status as nobody: 'not writable' finding in text"; else nok "status as nobody: 'not writable' finding in text" "$(grep -i writ "$TMP/out" | head -3)"; fi
	t_nobody status --json
	expect_rc "status --json as nobody exits 0" 0
	expect_json "status --json as nobody: settings-read-only finding, writable false" "$TMP/out" \
		"'settings-read-only' in [f['id'] for f in d['findings']] and d['policy']['writable'] is False" \
		"[f['id'] for f in d['findings']], d['policy']['writable'], d['policy']['write_error']"
	t_nobody ps
	expect_rc "ps as nobody exits 0" 0
	if grep -q "not readable" "$TMP/out"; then ok "ps as nobody (text): 'not readable'"; else nok "ps as nobody (text): 'not readable'" "$(tail -n 3 "$TMP/out")"; fi
	t_nobody ps --json
	expect_rc "ps --json as nobody exits 0" 0
	expect_json "ps --json as nobody: unreadable > 0, partial true" "$TMP/out" \
		"d['unreadable'] > 0 and d['partial'] is True" "d['unreadable'], d['partial']"
	if [ -n "$HP" ]; then
		t_nobody maps "$HP"
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
# --json and a PID with nothing to show: nothing on stdout, the reason on stderr (docs/json.md);
# kthreadd is pid 2 in the initial PID namespace (as this suite's host)
for args in "maps $FREE --json" "why $FREE --json" "ps --pid $FREE --json" "ps --pid 2 --json" "why 2 --json"; do
	# shellcheck disable=SC2086
	t $args
	case $args in *" 2 "*) want="is a kernel thread: it has no memory map to show" ;; *) want="no such process $FREE" ;; esac
	if [ "$RC" -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "$want" "$TMP/err"; then
		ok "$args: exit 1, stdout empty, '$want'"
	else
		nok "$args: exit 1, stdout empty, '$want'" "exit $RC, $(wc -c <"$TMP/out") bytes out; $(errtail)"
	fi
done
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

# ---- footprint: the release build's peak RSS -----------------------------------
# Every command but the exporter runs without libmicrohttpd and its TLS stack
# (dlopen()ed by the exporter only): peak RSS under 4 MiB (README). Measured on
# build/thpctl (-O2; the sanitizer build's RSS says nothing), via wait4().
REL=${THPCTL_REL:-build/thpctl}
if [ ! -x "$REL" ]; then
	skip "footprint" "$REL missing (make build/thpctl)"
else
	if readelf -d "$REL" 2>/dev/null | grep -q 'NEEDED.*microhttpd'; then
		nok "$REL does not link libmicrohttpd (the exporter loads it)" "$(readelf -d "$REL" | grep NEEDED | tr -s ' ' | cut -c1-300)"
	else
		ok "$REL does not link libmicrohttpd (the exporter loads it)"
	fi
	for args in "ps --all" "ps --all --json" "status" "status --json" "why ${NH:-1}" "advise" "hugetlb plan --for 1G" "maps $$"; do
		# shellcheck disable=SC2086
		read -r _ kb _ rc < <("$H" maxrss "$REL" $args)
		if [ "${rc:-1}" -le 1 ] && [ "${kb:-0}" -gt 0 ] && [ "$kb" -lt 4096 ]; then
			ok "peak RSS of '$args' under 4 MiB ($kb kB)"
		else
			nok "peak RSS of '$args' under 4 MiB" "$kb kB, exit ${rc:-?}"
		fi
	done
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

# ---- cgroups: every memory cgroup, read-only ------------------------------------
# the hierarchy as the kernel mounts it: v2 with memory in cgroup.controllers, else v1 memory/
CG_ROOT='' CG_VER=''
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	if [ -z "$CG_ROOT" ] && grep -qw memory "$d/cgroup.controllers" 2>/dev/null; then CG_ROOT=$d CG_VER=2; fi
done
if [ -z "$CG_ROOT" ] && [ -r /sys/fs/cgroup/memory/memory.stat ]; then CG_ROOT=/sys/fs/cgroup/memory CG_VER=1; fi
t cgroups --json
expect_rc "cgroups --json exits 0" 0
if [ -z "$CG_ROOT" ]; then
	expect_json "cgroups --json: no memory hierarchy on this host, none reported" "$TMP/out" \
		"d['cgroup_version'] is None and d['cgroups'] == []"
else
	# the root's children (directories), with their memory.max / limit_in_bytes as the files say
	CG_KIDS=$(for k in "$CG_ROOT"/*/; do
		[ -e "$k/cgroup.procs" ] || continue
		n=$(basename "$k")
		if [ "$CG_VER" = 2 ]; then m=$(cat "$k/memory.max" 2>/dev/null); else m=$(cat "$k/memory.limit_in_bytes" 2>/dev/null); fi
		[ -n "$m" ] && echo "/$n ${m}"
	done)
	export CG_KIDS CG_VER
	expect_json "cgroups --json: v$CG_VER, the root and each of its $(wc -l <<<"$CG_KIDS") children with its memory.max" "$TMP/out" \
		"d['cgroup_version'] == int(E['CG_VER']) and any(c['path'] == '/' for c in d['cgroups']) and all(any(c['path'] == k and (c['memory_max_bytes'] == (None if m in ('max', '9223372036854771712') else int(m))) for c in d['cgroups']) for k, m in (l.split() for l in E['CG_KIDS'].splitlines() if l))" \
		"[(c['path'], c['memory_max_bytes']) for c in d['cgroups']], E['CG_KIDS']"
	expect_json "cgroups --json: sorted by anon_thp_bytes, root counts every process below it" "$TMP/out" \
		"(lambda a: a == sorted(a, reverse=True))([-1 if c['anon_thp_bytes'] is None else c['anon_thp_bytes'] for c in d['cgroups']]) and [c for c in d['cgroups'] if c['path'] == '/'][0]['procs'] >= max(c['procs'] for c in d['cgroups'])"
	# the hugepage helper's cgroup holds at least it, and at least its THP (charged there)
	if [ -n "$HP" ]; then
		if [ "$CG_VER" = 2 ]; then HP_CG=$(sed -n 's/^0:://p' "/proc/$HP/cgroup"); else HP_CG=$(sed -n 's/^[0-9]*:\([^:]*,\)\{0,1\}memory\(,[^:]*\)\{0,1\}://p' "/proc/$HP/cgroup"); fi
		HP_AHP=$(awk '/^AnonHugePages:/ {print $2 * 1024}' "/proc/$HP/smaps_rollup")
		export HP_CG HP_AHP
		expect_json "cgroups --json: the helper's cgroup ${HP_CG:-?} lists >= 1 process and >= its AnonHugePages ($HP_AHP bytes) in anon_thp" "$TMP/out" \
			"[c for c in d['cgroups'] if c['path'] == E['HP_CG'] and c['procs'] >= 1 and c['anon_thp_bytes'] >= int(E['HP_AHP'])]" \
			"[c for c in d['cgroups'] if c['path'] == E['HP_CG']]"
	fi
fi
t cgroups --top 1
if [ "$RC" -eq 0 ] && grep -q '^Host-wide, all cgroups since boot: thp_fault_fallback_charge [0-9]' "$TMP/out"; then
	ok "cgroups --top 1 (text): exits 0, the host-wide thp_fault_fallback_charge labelled host-wide"
else
	nok "cgroups --top 1 (text)" "exit $RC; $(head -c 300 "$TMP/out")"
fi
t cgroups --top 0
expect_rc "cgroups --top 0: usage error (exit 2)" 2

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
expect_settings_as_found "host THP settings unchanged by the tests ($(wc -l <"$TMP/settings.before") knobs)" \
	"$TMP/settings.before"
expect_sanitizers_quiet "sanitizers quiet in every thpctl run"

summary
