#!/usr/bin/env bash
# Live tests of `thpctl why`, `thpctl advise` and `thpctl hugetlb plan`
# against the running kernel, with helper processes of known state:
# build/tests/thp_helper (an MADV_HUGEPAGE region; a prctl-disabled parent and
# child) and a fake `redis-server` (a copy of sleep).
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "advice: N
# passed, M failed, K skipped", non-zero exit on failures). Read-only towards
# the host: these commands write nothing, and the script checks that.
#
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init advice

H=build/tests/thp_helper
LH=build/tests/ledger_helper
need_built "$T" "$H" "$LH"
need_python3
HAVE_THP=0
[ -r "$THP/enabled" ] && HAVE_THP=1
settings_snapshot "$TMP/settings.before"

# ---- why ---------------------------------------------------------------------
HP='' PF='' PF_CHILD=''
start_helper HP "$H" hugepage 16
start_helper PF "$H" prctl-fork
export HP PF PF_CHILD

if [ "$HAVE_THP" -eq 0 ]; then
	skip "why: MADV_HUGEPAGE helper" "kernel without THP"
elif [ -n "$HP" ]; then
	t why "$HP"
	expect_rc "why HP exits 0" 0
	expect_out "why HP (text) says it opted in (+ hg line)" "opted in" "^+ hg "
	expect_out "why HP (text) names the source files" "\[/proc/$HP/smaps\]" "\[/sys/kernel/mm/transparent_hugepage/defrag\]"
	t why "$HP" --json
	expect_rc "why HP --json exits 0" 0
	cp "$TMP/out" "$TMP/why-hp.json"
	expect_json "why HP --json: one hg VMA of 16 MiB, thp_enabled true" "$TMP/why-hp.json" \
		"d['vmas']['hg'] == 1 and d['vmas']['hg_kb'] == 16384 and d['thp_enabled'] is True and d['prctl_set_by'] is None" "d['vmas']"
	THP_MODE=$(sysfs_choice "$THP/enabled")
	if [ "$THP_MODE" = never ]; then
		skip "why HP --json: verdict huge" "enabled=never here"
	else
		expect_json "why HP --json: verdict huge, hg region huge" "$TMP/why-hp.json" \
			"d['verdict'] == 'huge' and d['vmas']['hg_anon_huge_kb'] >= 14336" "d['verdict'], d['vmas']"
	fi
	expect_json "why HP --json: environ readable, cgroup read" "$TMP/why-hp.json" \
		"d['environ']['readable'] is True and d['cgroup']['readable'] is True" "d['environ'], d['cgroup']"
	expect_json "why HP --json: every fact has a source" "$TMP/why-hp.json" \
		"all(f['source'] and f['text'] for f in d['facts'])" "[f for f in d['facts'] if not f['source']]"
fi
if [ -n "$PF" ]; then
	t why "$PF_CHILD"
	expect_rc "why CHILD exits 0" 0
	expect_out "why prctl CHILD (text) names the ancestor PID $PF" "PID $PF " "^- prctl "
	t --json why "$PF_CHILD"
	expect_json "why CHILD --json: prctl_set_by is the parent, verdict none" "$TMP/out" \
		"d['thp_enabled'] is False and d['prctl_set_by']['pid'] == int(E['PF']) and d['verdict'] == 'none'" \
		"d['prctl_set_by'], d['verdict']"
	t why "$PF"
	expect_out "why PARENT: set in this process (by it or by the launcher that exec'd it)" "set in this process"
fi

# khugepaged helps only a process with something to collapse (no hg under madvise: neutral)
PL=''
start_helper PL "$H" plain 8
if [ -n "$PL" ] && [ "$HAVE_THP" -eq 1 ] && [ "$(sysfs_choice "$THP/enabled")" = madvise ]; then
	t why "$PL"
	expect_eval "why: no MADV_HUGEPAGE region -> khugepaged is not shown as helping" \
		'grep -q "^= khugepaged .*nothing of it to collapse" "$TMP/out" && ! grep -q "^+ khugepaged" "$TMP/out"' \
		"$(grep khugepaged "$TMP/out" | head -c 300)"
	stop_pid "$PL"
else
	skip "why: khugepaged without hg" "enabled is not madvise here"
fi

# MADV_HUGEPAGE shmem (python3's mmap.mmap(-1, N): MAP_SHARED|MAP_ANONYMOUS, "/dev/zero
# (deleted)") under shmem_enabled=never: the headline names shmem_enabled, not small pages
# faulted before the advice, and neither the policy nor khugepaged is said to help it
SHM='' SHM_POL=''
if [ "$HAVE_THP" -eq 1 ] && [ -r "$THP/shmem_enabled" ]; then
	SHM_POL=$(sysfs_choice "$THP/shmem_enabled")
	SHM_PMD=$THP/hugepages-$(($(cat "$THP/hpage_pmd_size") / 1024))kB/shmem_enabled
	if [ -r "$SHM_PMD" ] && [ "$(sysfs_choice "$SHM_PMD")" != inherit ]; then
		SHM_POL="hugepages-*/shmem_enabled=$(sysfs_choice "$SHM_PMD")"
	fi
fi
if [ "$SHM_POL" != never ]; then
	skip "why: MADV_HUGEPAGE shmem under shmem_enabled=never" "the PMD shmem policy here is '${SHM_POL:-unknown}'"
else
	start_helper SHM python3 -c 'import mmap, os, time
m = mmap.mmap(-1, 16 << 20)
m.madvise(mmap.MADV_HUGEPAGE)
m.write(b"x" * (16 << 20))
print("ready", os.getpid(), flush=True)
time.sleep(300)'
fi
if [ -n "$SHM" ]; then
	export SHM
	t why "$SHM"
	expect_rc "why SHMEM exits 0" 0
	expect_eval "why: hg shmem under shmem_enabled=never -> the headline names shmem_enabled=never" \
		'head -n6 "$TMP/out" | tr "\n" " " | grep -q "MADV_HUGEPAGE memory is shmem .*shmem_enabled=never allows it none" && ! grep -q "before the advice" "$TMP/out"' \
		"$(head -n6 "$TMP/out" | tr '\n' ' ' | head -c 500)"
	expect_eval "why: hg shmem under never -> policy, khugepaged and hg are not marked as helping, no stall line" \
		'! grep -qE "^\+ (policy|khugepaged|hg) " "$TMP/out" && ! grep -q "^. stall " "$TMP/out" && grep -q "^- shmem " "$TMP/out"' \
		"$(grep -E "^. (policy|khugepaged|hg|stall|shmem) " "$TMP/out" | head -c 500)"
	t ps --pid "$SHM" --json
	expect_json "ps: its REASON names shmem_enabled, not an opt-in" "$TMP/out" \
		"proc(int(E['SHM']))['reason'] == 'hg shmem kept from THP by shmem_enabled=never' and proc(int(E['SHM']))['thpeligible_vmas'] == 0" \
		"proc(int(E['SHM']))"
	t collapse "$SHM" --dry-run --vma "/dev/zero (deleted)"
	expect_out "collapse --dry-run: its shmem range is skipped, the policy named" \
		"1 skipped" "^skipped: shmem, which .*shmem_enabled=never"
	stop_pid "$SHM"
fi

# hints from the environment
: >"$TMP/helper.env"
env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 MALLOC_CONF=thp:never "$H" plain 2 >"$TMP/helper.env" 2>&1 &
ENVP=$!
track_pid "$ENVP"
wait_for_line "$TMP/helper.env" '^ready' "$ENVP" 5
t why "$ENVP" --json
expect_json "why: GLIBC_TUNABLES and MALLOC_CONF hints read from environ" "$TMP/out" \
	"sorted(h['var'] for h in d['environ']['hints']) == ['GLIBC_TUNABLES', 'MALLOC_CONF'] and [h['effect'] for h in d['environ']['hints'] if h['var'] == 'MALLOC_CONF'] == ['hinders']" \
	"d['environ']"

# a prctl'd starter that exited (a daemon that detached): the chain is broken
: >"$TMP/helper.daemon"
"$H" prctl-daemon >"$TMP/helper.daemon" 2>&1
wait_for_line "$TMP/helper.daemon" "^ready" "" 5
DAEMON=$(awk '/^ready/ {print $2; exit}' "$TMP/helper.daemon")
if [ -z "$DAEMON" ]; then
	nok "helper prctl-daemon ready" "$(head -c 300 "$TMP/helper.daemon")"
else
	track_pid "$DAEMON"
	for _ in $(seq 100); do # adopted once its starter has exited
		[ "$(awk '/^PPid:/ {print $2}' "/proc/$DAEMON/status")" != "$$" ] && break
		sleep 0.05
	done
	t why "$DAEMON"
	if grep -q "^- prctl .*set by this process or by an ancestor that is gone" "$TMP/out" && ! grep -q "set in this process" "$TMP/out"; then
		ok "why DAEMON (reparented): prctl set by it or by an ancestor that is gone"
	else
		nok "why DAEMON (reparented): the chain is broken" "$(grep prctl "$TMP/out" | head -c 400)"
	fi
	export DAEMON
	t --json why "$DAEMON"
	expect_json "why DAEMON --json: prctl_set_by unknown (null)" "$TMP/out" \
		"d['thp_enabled'] is False and d['prctl_set_by'] is None" "d['prctl_set_by']"
	stop_pid "$DAEMON"
fi

# an environment blanked by the program (Redis's process title): unknown, not "no hints"
ET=''
start_helper ET "$H" title 'redis-server *:7777'
if [ -n "$ET" ]; then
	t why "$ET"
	if grep -q "^? environ .*environment overwritten by the program" "$TMP/out" && ! grep -q "no THP hints in its environment" "$TMP/out"; then
		ok "why: a blanked environ ($(tr -d '\0' <"/proc/$ET/environ" | wc -c) non-NUL bytes) is unknown"
	else
		nok "why: a blanked environ is unknown" "$(grep environ "$TMP/out" | head -c 400)"
	fi
	stop_pid "$ET"
fi

# errors
t why
expect_rc "why without a PID exits 2" 2
t why abc
expect_rc "why abc exits 2" 2
t why 999999999
expect_rc "why 999999999 (no such process) exits 1" 1
t why 2
if [ "$RC" -eq 1 ] && grep -q "kernel thread" "$TMP/err"; then ok "why 2 (kthreadd): exit 1, kernel thread"; else nok "why 2 (kthreadd)" "exit $RC; $(errtail)"; fi

if [ "$ROOT" -eq 0 ] || ! command -v setpriv >/dev/null; then
	skip "why as nobody" "needs root and setpriv"
elif [ -n "$HP" ]; then
	t_nobody why "$HP"
	expect_rc "why ROOT_PID as nobody exits 0" 0
	expect_out "why as nobody: smaps and environ 'not readable (...run as root...)'" \
		"^? vmas .*run as root" "^? environ .*run as root"
	# --hot needs root: refused before the report (it was printed whole, then exit 2)
	for j in "" --json; do
		# shellcheck disable=SC2086
		t_nobody why "$HP" --hot 1 $j
		if [ "$RC" -eq 1 ] && [ ! -s "$TMP/out" ] &&
			grep -q "why: --hot needs root (it writes /proc/$HP/clear_refs)" "$TMP/err"; then
			ok "why --hot ${j:+--json }as nobody: exit 1, refused before any output"
		else
			nok "why --hot ${j:+--json }as nobody" "exit $RC, stdout $(wc -c <"$TMP/out") bytes; $(errtail)"
		fi
	done
fi

# ---- advise ------------------------------------------------------------------
mkdir -p "$TMP/x"
cp /bin/sleep "$TMP/x/redis-server"
"$TMP/x/redis-server" 300 &
REDIS=$!
track_pid "$REDIS"
export REDIS
sleep 0.2
t advise --json
expect_rc "advise --json exits 0" 0
cp "$TMP/out" "$TMP/advise.json"
expect_json "advise: the fake redis-server is detected" "$TMP/advise.json" \
	"any(w['name'] == 'redis' and int(E['REDIS']) in w['pids'] for w in d['workloads'])" "d['workloads']"
expect_json "advise: recommends the per-process lever for it (thpctl run --thp=off -- its command)" "$TMP/advise.json" \
	"any(l['pid'] == int(E['REDIS']) and l['command'].startswith('thpctl run --thp=off -- ') and 'redis-server 300' in l['command'] for l in d['per_process'])" \
	"d['per_process']"
expect_json "advise: every setting has a reason" "$TMP/advise.json" \
	"all(s['reason'] and s['by'] for s in d['settings'])" "d['settings']"
expect_json "advise: the fake redis-server (THP_enabled 1) is not told to keep an opt-out it lacks" "$TMP/advise.json" \
	"[('keep it opted out' in l['what'], 'not opted out (THP_enabled 1)' in l['what']) for l in d['per_process'] if l['pid'] == int(E['REDIS'])] == [(False, True)]" \
	"[l['what'] for l in d['per_process'] if l['pid'] == int(E['REDIS'])]"
t advise
if [ "$RC" -eq 0 ] && grep -q "^Per process" "$TMP/out" && grep -q "PID $REDIS (redis-server)" "$TMP/out"; then
	ok "advise (text): a Per process section with the fake redis-server"
else
	nok "advise (text): Per process section" "exit $RC; $(head -c 400 "$TMP/out")"
fi
# the boot default from /proc/config.gz: zlib is dlopen()ed to read it; without zlib the line
# says so, never a guessed default
if [ -r /proc/config.gz ] && [ ! -e "/boot/config-$(uname -r)" ]; then
	expect_eval "advise (text): the boot default read from /proc/config.gz" \
		'grep -q "boot default enabled=[a-z]* (CONFIG_TRANSPARENT_HUGEPAGE_[A-Z]*=y" "$TMP/out"' "$(grep -A1 "boot default" "$TMP/out")"
	export THPCTL_TEST_DL_MISSING=zlib
	t advise
	unset THPCTL_TEST_DL_MISSING
	expect_eval "advise (text), zlib missing: the boot default unknown, 'zlib could not be loaded'" \
		'[ "$RC" -eq 0 ] && tr "\n" " " <"$TMP/out" | grep -Eq "boot default of enabled unknown .*config.gz not readable: +zlib +could +not +be +loaded"' "$(grep -A2 "boot default" "$TMP/out")"
else
	skip "advise: the boot default from /proc/config.gz" "no readable /proc/config.gz, or a /boot/config-$(uname -r) read first"
fi
t advise --workload mongodb8 --json
expect_json "advise with MongoDB 8: the conflict is named, Redis opts out per process" "$TMP/out" \
	"d['mixed'] is True and any(n['kind'] == 'conflict' and 'Redis' in n['text'] for n in d['notes']) and any(l['pid'] == int(E['REDIS']) and l['needed'] for l in d['per_process'])" \
	"d['notes'], d['per_process']"
expect_json "advise with MongoDB 8: thpctl set ... enabled=always ... khugepaged/max_ptes_none=0 (or already so)" "$TMP/out" \
	"d['commands']['set'] is None or ('enabled=always' in d['commands']['set'] or [s for s in d['settings'] if s['key'] == 'enabled' and s['now'] == 'always']) and d['commands']['persist'].startswith('thpctl persist ')" \
	"d['commands'], d['settings']"
# a process title written over argv (as Redis does): no command built from it
mkdir -p "$TMP/y"
cp "$H" "$TMP/y/redis-server"
RT='' RH=''
start_helper RT "$TMP/y/redis-server" title 'redis-server *:7777'
# a Redis whose allocator madvises its heap (jemalloc thp:always): 16 MiB hg, touched
start_helper RH "$TMP/y/redis-server" hugepage 16
export RT RH TMP
t advise --json
cp "$TMP/out" "$TMP/advise2.json"
if [ -n "$RT" ]; then
	expect_json "advise: rewritten title -> no command, arguments unknown, exe named" "$TMP/advise2.json" \
		"[(l['command'], l['arguments_known'], any('its arguments are unknown' in a and E['TMP'] + '/y/redis-server ARGS' in a for a in l['alternatives'])) for l in d['per_process'] if l['pid'] == int(E['RT'])] == [(None, False, True)]" \
		"[l for l in d['per_process'] if l['pid'] == int(E['RT'])]"
fi
if [ -n "$RH" ] && [ "$HAVE_THP" -eq 1 ] && [ "$(sysfs_choice "$THP/enabled")" = madvise ]; then
	expect_json "advise: a Redis with MADV_HUGEPAGE memory under madvise needs the opt-out (not 'madvise already keeps THP off')" "$TMP/advise2.json" \
		"[(l['needed'], 'does not keep THP off' in l['reason'], 'already keeps' in l['reason']) for l in d['per_process'] if l['pid'] == int(E['RH'])] == [(True, True, False)]" \
		"[l for l in d['per_process'] if l['pid'] == int(E['RH'])]"
else
	skip "advise: Redis with MADV_HUGEPAGE memory under madvise" "enabled is not madvise here"
fi
if [ -n "$RT" ]; then
	t advise
	# the ways to opt it out: with no runnable command above them, the first is not an "or"
	block=$(awk -v p="PID $RT " 'index($0, p) == 3 { on = 1; print; next } on && /^  [^ ]/ { on = 0 } on' "$TMP/out")
	expect_eval "advise (text): no command for the rewritten title, so its first option does not begin with 'or'" \
		'[ -n "$block" ] && [ "$(sed -n 2p <<<"$block" | sed "s/^ *//" | cut -c1-3)" != "or " ]' \
		"$(head -c 400 <<<"$block")"
fi
[ -n "$RT" ] && stop_pid "$RT"
[ -n "$RH" ] && stop_pid "$RH"

# a multi-call binary named through a symlink (as Debian's redis-server -> redis-check-rdb):
# the command is built from argv[0], which leads to the running program, not /proc/PID/exe
mkdir -p "$TMP/mc"
cp /bin/sleep "$TMP/mc/multicall"
ln -sf multicall "$TMP/mc/redis-server"
"$TMP/mc/redis-server" 300 &
MC=$!
track_pid "$MC"
export MC TMP
sleep 0.2
t advise --json
cp "$TMP/out" "$TMP/advise-mc.json"
expect_json "advise: the command starts argv[0] (the symlink), checked to lead to the running program" "$TMP/advise-mc.json" \
	"[(l['command'], l['program'], l['program_checked']) for l in d['per_process'] if l['pid'] == int(E['MC'])] == [('thpctl run --thp=off -- ' + E['TMP'] + '/mc/redis-server 300', E['TMP'] + '/mc/redis-server', True)]" \
	"[l for l in d['per_process'] if l['pid'] == int(E['MC'])]"
prog=$(python3 -c 'import json,sys,os; print([l["program"] for l in json.load(open(sys.argv[1]))["per_process"] if l["pid"] == int(os.environ["MC"])][0])' "$TMP/advise-mc.json" 2>/dev/null)
expect_eval "advise: the command's program resolves to the running executable" \
	'[ -n "$prog" ] && [ "$(readlink -f "$prog")" = "$(readlink -f /proc/$MC/exe)" ]' "$prog vs $(readlink /proc/$MC/exe)"
stop_pid "$MC"
# started from its own directory with relative paths (a copy of tail named redis-server, run as
# ./redis-server -f redis.conf [out/dump.rdb]): what is there is made absolute against
# /proc/PID/cwd; what is not (an output yet to be written) keeps the command in that directory
mkdir -p "$TMP/rel"
cp /usr/bin/tail "$TMP/rel/redis-server"
: >"$TMP/rel/redis.conf"
for missing in "" out/dump.rdb; do
	# shellcheck disable=SC2086 # $missing: no word or one
	(cd "$TMP/rel" && exec ./redis-server -f redis.conf $missing >/dev/null 2>&1) &
	REL=$!
	track_pid "$REL"
	export REL
	sleep 0.3
	t advise --json
	cp "$TMP/out" "$TMP/advise-rel.json"
	if [ -z "$missing" ]; then
		want="'thpctl run --thp=off -- ' + E['TMP'] + '/rel/redis-server -f ' + E['TMP'] + '/rel/redis.conf'"
		name="advise: a relative path argument made absolute against the process's cwd"
	else
		want="'cd ' + E['TMP'] + '/rel && thpctl run --thp=off -- ' + E['TMP'] + '/rel/redis-server -f ' + E['TMP'] + '/rel/redis.conf out/dump.rdb'"
		name="advise: a relative path not found there keeps the command in its cwd (cd DIR &&)"
	fi
	expect_json "$name" "$TMP/advise-rel.json" \
		"[(l['command'], l['command_note']) for l in d['per_process'] if l['pid'] == int(E['REL'])] == [($want, None)]" \
		"[l['command'] for l in d['per_process'] if l['pid'] == int(E['REL'])]"
	stop_pid "$REL"
done
# the real thing, where installed: Redis writes its title over argv, the exe is redis-check-rdb
if [ "$(readlink -f /usr/bin/redis-server 2>/dev/null)" != /usr/bin/redis-check-rdb ]; then
	skip "advise: Debian's redis-server" "no /usr/bin/redis-server -> redis-check-rdb here"
else
	/usr/bin/redis-server --port 0 --unixsocket "$TMP/redis.sock" --save '' --appendonly no --daemonize no >"$TMP/redis.log" 2>&1 &
	RS=$!
	track_pid "$RS"
	export RS
	for _ in $(seq 50); do grep -q 'Ready to accept' "$TMP/redis.log" && break; sleep 0.1; done
	t advise --json
	expect_json "advise: a real Debian redis-server is named redis-server in its command, never redis-check-rdb" "$TMP/out" \
		"[('redis-check-rdb' in json.dumps(l), '/usr/bin/redis-server' in ' '.join([l['command'] or ''] + l['alternatives'])) for l in d['per_process'] if l['pid'] == int(E['RS'])] == [(False, True)]" \
		"[l for l in d['per_process'] if l['pid'] == int(E['RS'])]"
	stop_pid "$RS"
fi

# advice for a workload must not contradict its process's own ledger: a "java" whose
# MADV_HUGEPAGE heap is mostly never written gets no -XX:+UseTransparentHugePages
mkdir -p "$TMP/j"
ln -sf "$(readlink -f "$LH")" "$TMP/j/java"
JV=''
start_helper JV "$TMP/j/java" sparse 256
if [ -n "$JV" ] && [ "$ROOT" -eq 1 ]; then
	export JV
	t advise --workload jvm --json
	cp "$TMP/out" "$TMP/advise-jvm.json"
	expect_json "advise --workload jvm: its ledger flags invented, so no +UseTransparentHugePages for it" "$TMP/advise-jvm.json" \
		"any(f['pid'] == int(E['JV']) and f['mechanism'] in ('sparse-at-fault', 'fault-or-collapse') for f in d['flagged']) and [(l['what'].startswith('add -XX:+UseTransparentHugePages'), l['what'].startswith('do not add')) for l in d['per_process'] if l['pid'] == int(E['JV'])] == [(False, True)]" \
		"[l for l in d['per_process'] if l['pid'] == int(E['JV'])], [f['pid'] for f in d['flagged']]"
	t advise
	expect_eval "advise (text): what to change comes first and names the flagged java" \
		'[ "$(head -n1 "$TMP/out" | cut -c1-14)" = "What to change" ] && grep -q "^  PID $JV (java)" "$TMP/out"' \
		"$(head -3 "$TMP/out" | tr '\n' ' ')"
	stop_pid "$JV"
elif [ -n "$JV" ]; then
	skip "advise --workload jvm vs its ledger" "needs root (the ledger reads /proc/PID/mem)"
	stop_pid "$JV"
fi

# 200 thread stacks from plain mmap (no MAP_STACK) under enabled=always: each takes a huge
# page it barely touches; advise must list the process and name its thread stacks (and why
# must end with the same). The host goes back through `thpctl set` and at exit.
EN0=$(sysfs_choice "$THP/enabled" 2>/dev/null)
# shellcheck disable=SC2317 # runs from the EXIT trap too
restore_enabled() { [ -n "$EN0" ] && [ "$(sysfs_choice "$THP/enabled")" != "$EN0" ] && "$T" set enabled="$EN0" >/dev/null; }
if [ "$ROOT" -eq 1 ] && [ -w "$THP/enabled" ] && [ "$EN0" = madvise ]; then
	at_exit restore_enabled
	ST=''
	if "$T" set enabled=always >/dev/null 2>"$TMP/set.err"; then
		start_helper ST "$LH" stacks 200
		sleep 0.5
	else
		nok "thpctl set enabled=always" "$(head -c 300 "$TMP/set.err")"
	fi
	if [ -n "$ST" ]; then
		export ST
		t advise --json
		cp "$TMP/out" "$TMP/advise-st.json"
		t why "$ST" --json
		cp "$TMP/out" "$TMP/why-st.json"
		stop_pid "$ST"
	fi
	restore_enabled
	expect_eval "enabled put back to $EN0 after the stacks case" '[ "$(sysfs_choice "$THP/enabled")" = "$EN0" ]'
	if [ -n "$ST" ]; then
		expect_json "advise: the 200-stack process is flagged (invented: at fault, or fault-or-collapse where the host counted both), its part: thread stacks without MAP_STACK" "$TMP/advise-st.json" \
			"[(f['mechanism'], f['responsible']['name'], f['responsible']['threads_in_huge_vmas'] >= 190, f['cost_kb'] > 300 * 1024, f['fixes'][0]['fix']) for f in d['flagged'] if f['pid'] == int(E['ST'])] in ([(m, 'thread-stacks', True, True, 'map-stack')] for m in ('sparse-at-fault', 'fault-or-collapse'))" \
			"[f for f in d['flagged'] if f['pid'] == int(E['ST'])]"
		expect_json "advise: each fix says the bytes it saves, the host knob who else it reaches" "$TMP/advise-st.json" \
			"all(x['saves_kb'] is not None and x['saves_kb'] > 0 for f in d['flagged'] if f['pid'] == int(E['ST']) for x in f['fixes']) and any(x['fix'] == 'host-enabled-madvise' and x['other_processes'] is not None for f in d['flagged'] if f['pid'] == int(E['ST']) for x in f['fixes'])" \
			"[f['fixes'] for f in d['flagged'] if f['pid'] == int(E['ST'])]"
		expect_json "why: its last block is the same remedy (thread stacks, MAP_STACK first)" "$TMP/why-st.json" \
			"d['what_to_change'] is not None and d['what_to_change']['responsible']['name'] == 'thread-stacks' and d['what_to_change']['fixes'][0]['fix'] == 'map-stack'" \
			"d['what_to_change'], d['summary']"
	fi
else
	skip "advise: 200 thread stacks under enabled=always" "needs root, a writable enabled and enabled=madvise as found"
fi

# the version of a real PostgreSQL from dpkg, not from its path
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
if [ "$ROOT" -eq 0 ] || [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ] || ! id postgres >/dev/null 2>&1; then
	skip "advise: PostgreSQL version from dpkg" "needs root, PostgreSQL and its postgres user"
else
	PGD=$(mktemp -d /tmp/thpctl-pg.XXXXXX) # the postgres user cannot enter $TMP
	chown postgres "$PGD"
	PGV=$(dpkg-query -W -f='${Version}' "$(dpkg -S "$PGBIN/postgres" | cut -d: -f1)")
	export PGV
	if setpriv --reuid postgres --regid postgres --clear-groups "$PGBIN/initdb" -D "$PGD/data" >"$PGD/initdb.log" 2>&1 &&
		setpriv --reuid postgres --regid postgres --clear-groups "$PGBIN/pg_ctl" -D "$PGD/data" -w -l "$PGD/log" \
			-o "-k $PGD -p 54399 -c listen_addresses=''" start >/dev/null 2>&1; then
		PGPID=$(head -n1 "$PGD/data/postmaster.pid")
		export PGPID
		t advise --json
		expect_json "advise: PostgreSQL $PGV: version major.minor from dpkg (its path says only the major)" "$TMP/out" \
			"[(w['version'], w['version_source'].startswith('dpkg: ')) for w in d['workloads'] if w['name'] == 'postgres' and int(E['PGPID']) in w['pids']] == [('.'.join(E['PGV'].split('-')[0].split(':')[-1].split('.')[:2]), True)]" \
			"d['workloads']"
		setpriv --reuid postgres --regid postgres --clear-groups "$PGBIN/pg_ctl" -D "$PGD/data" -m immediate stop >/dev/null 2>&1
	else
		nok "advise: a PostgreSQL to look at starts" "$(tail -n3 "$PGD/initdb.log" "$PGD/log" 2>/dev/null | tr '\n' ' ')"
	fi
	rm -rf "$PGD"
fi

t advise --workload nosuch
expect_rc "advise --workload nosuch exits 2" 2
t advise extra
expect_rc "advise extra (operand) exits 2" 2

# ---- the restart command, pasted ----------------------------------------------
# a `python3 -c` whose script has newlines, a tab, a quote and an ESC, with a sparse
# MADV_HUGEPAGE region (flagged: sparse at fault), and arguments with a space, none and a
# byte that is not UTF-8: the `thpctl run --thp=off -- ...` that why and advise print (text at
# 80 columns, JSON) runs its exact argv once pasted into bash (tests/live/paste_check.py)
PYS=$'import mmap, os, time\nm = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)\nm.madvise(mmap.MADV_HUGEPAGE)  # \e[2J \'hg\'\nfor i in range(0, 64 << 20, 2 << 20):\n\tm[i] = 1\nprint(\'ready\', os.getpid(), flush=True)\ntime.sleep(600)'
PQ=''
if [ "$HAVE_THP" -eq 0 ] || [ "$(sysfs_choice "$THP/enabled")" = never ]; then
	skip "the restart command of a python3 -c, pasted" "THP is off here"
elif ! python3 -c 'import mmap; mmap.MADV_HUGEPAGE' 2>/dev/null; then
	skip "the restart command of a python3 -c, pasted" "python3 without mmap.madvise (3.8+)"
elif start_helper PQ python3 -c "$PYS" '' 'two words' $'\xff'; then
	sleep 0.5
	{
		env -u THPCTL_WIDE COLUMNS=80 "$T" why "$PQ" >"$TMP/why.txt"
		"$T" why "$PQ" --json >"$TMP/why.json"
		env -u THPCTL_WIDE COLUMNS=80 "$T" advise >"$TMP/advise.txt"
		"$T" advise --json >"$TMP/advise.json"
	} 2>"$TMP/pq.err"
	san_note "thpctl why/advise of the python3 -c helper" "$TMP/pq.err"
	if python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["what_to_change"] is None)' "$TMP/why.json"; then
		relay_results "paste check" < <(python3 tests/live/paste_check.py "$PQ" "$TMP")
	else
		skip "the restart command of a python3 -c, pasted" "its sparse region was not flagged (no huge pages at fault?)"
	fi
	stop_pid "$PQ"
fi

# ---- hugetlb plan ------------------------------------------------------------
HPSZ=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)
export HPSZ
if [ -z "$HPSZ" ]; then
	skip "hugetlb plan" "no Hugepagesize in /proc/meminfo (no hugetlb)"
else
	t hugetlb plan --for 1G --json
	expect_rc "hugetlb plan --for 1G --json exits 0" 0
	expect_json "hugetlb plan --for 1G: pages = 1 GiB / Hugepagesize, a sysctl line" "$TMP/out" \
		"d['pages'] == (1 << 20) // int(E['HPSZ']) and d['runtime_commands'][0] == 'sysctl -w vm.nr_hugepages=%d' % d['pages'] and d['fits'] is True" \
		"d['pages'], d['runtime_commands']"
	t hugetlb plan --for 1G --overhead 25 --page 1G --json
	if [ -d /sys/kernel/mm/hugepages/hugepages-1048576kB ]; then
		expect_json "hugetlb plan 1G pages: 2 pages, boot line, per-size sysfs" "$TMP/out" \
			"d['pages'] == 2 and d['cmdline'] == 'hugepagesz=1G hugepages=2' and 'hugepages-1048576kB/nr_hugepages' in d['runtime_commands'][0]" \
			"d"
	else
		skip "hugetlb plan 1G pages" "no 1G hugetlb pages on this kernel"
	fi
	t hugetlb plan --for 100T
	if [ "$RC" -eq 0 ] && grep -q "fits     no" "$TMP/out"; then ok "hugetlb plan --for 100T: does not fit"; else nok "hugetlb plan --for 100T" "exit $RC; $(head -c 300 "$TMP/out")"; fi
	# at 80 columns the node's long sysfs path: the echo is broken only between its words
	# (" \" continues it); the tmpfiles.d line, too wide for one line, is the command that
	# appends it to its file (a line of the file cannot be continued), each as the JSON has it
	if [ -d /sys/devices/system/node/node0 ]; then
		t hugetlb plan --for 1G --node 0 --json
		cp "$TMP/out" "$TMP/plan-node.json"
		export PLAN_TXT="$TMP/plan-node.txt"
		env -u THPCTL_WIDE COLUMNS=80 "$T" hugetlb plan --for 1G --node 0 >"$PLAN_TXT" 2>"$TMP/err"
		# shellcheck disable=SC2016 # Python, not shell
		ex='(lambda t: d["runtime_commands"][0] in __import__("re").sub(r" \\\n *", " ", t) and ("echo " + d["persist_line"] + " >> " + d["persist_file"] + "\n") in __import__("re").sub(r" \\\n *", " ", t))(open(E["PLAN_TXT"]).read())'
		expect_json "hugetlb plan --node 0 at 80 columns: the echo whole (joined at its ' \\'), the tmpfiles.d line as the echo that appends it" \
			"$TMP/plan-node.json" "$ex" "open(E['PLAN_TXT']).read()[-600:]"
	fi
fi
t hugetlb plan --for 1G --node 1023
expect_eval "hugetlb plan on a node this host lacks: exit 1, its nodes named, no plan" \
	'[ "$RC" -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "node 1023 is not on this host (/sys/devices/system/node); its nodes: 0" "$TMP/err"' \
	"exit $RC: $(head -c 300 "$TMP/err")"
for args in "hugetlb" "hugetlb plan" "hugetlb plan --for x" "hugetlb plan --for 1G --page 3M" "hugetlb plan --for 1G --node abc" "hugetlb nosuch"; do
	# shellcheck disable=SC2086
	t $args
	expect_rc "usage error exits 2: thpctl $args" 2
done

# ---- nothing changed, sanitizers quiet ----------------------------------------
expect_settings_as_found "host THP and hugetlb settings unchanged ($(wc -l <"$TMP/settings.before") knobs)" \
	"$TMP/settings.before"
expect_sanitizers_quiet "sanitizers quiet in every thpctl run"
summary
