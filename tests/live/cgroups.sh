#!/usr/bin/env bash
# Live tests of `thpctl cgroups` with memory cgroups made for the test: a
# parent with a THP helper inside (build/tests/thp_helper hugepage 48) and a
# nested child with the prctl-fork helpers (THP_enabled 0). The parent's limit
# is set just above its usage (95%), so it must be flagged near-limit-thp; the
# values reported must be those of its files.
#
# Changes the host only by creating the two cgroups (removed on exit, helpers
# killed first); no THP setting is touched. Needs root and a memory cgroup
# hierarchy (v1 memory/ or v2 with memory in the root's subtree_control).
# Run under `flock /tmp/thpctl-live.lock`.
#
# Harness: tests/lib.sh ("cgroups: N passed, M failed, K skipped").
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init cgroups

H=build/tests/thp_helper
for f in "$T" "$H"; do
	if [ ! -x "$f" ]; then
		nok "preflight" "$f missing: run 'make $T $H'"
		summary
	fi
done
if [ "$ROOT" -ne 1 ]; then
	skip "cgroups with a limit and a THP helper" "needs root"
	summary
fi
if grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	CG_VER=2 BASE=/sys/fs/cgroup MAXF=memory.max CURF=memory.current
elif [ -w /sys/fs/cgroup/memory/cgroup.procs ]; then
	CG_VER=1 BASE=/sys/fs/cgroup/memory MAXF=memory.limit_in_bytes CURF=memory.usage_in_bytes
else
	skip "cgroups with a limit and a THP helper" "no writable memory cgroup hierarchy"
	summary
fi
if [ "$(sysfs_choice "$THP/enabled" 2>/dev/null)" = never ]; then
	skip "cgroups with a limit and a THP helper" "THP enabled=never: the helper gets no THP"
	summary
fi

NAME=thpctl-live-$$
CG=$BASE/$NAME
KID=$CG/nothp
# shellcheck disable=SC2016 # evaluated at exit, after the helpers are killed
at_exit 'rmdir "$KID" 2>/dev/null; rmdir "$CG" 2>/dev/null; [ -d "$CG" ] && echo "# cgroups: could not remove $CG"'
mkdir "$CG" && mkdir "$KID" || {
	nok "create $CG and $KID" "mkdir failed"
	summary
}
echo $((512 << 20)) >"$CG/$MAXF"
# each helper starts inside its cgroup (its memory is charged where it faults)
HP='' PF='' PF_CHILD=''
HELPER_PREFIX=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG")
start_helper HP "$H" hugepage 48
HELPER_PREFIX=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$KID")
start_helper PF "$H" prctl-fork
HELPER_PREFIX=()
if [ -z "$HP" ] || [ -z "$PF" ]; then summary; fi
HP_AHP=$(awk '/^AnonHugePages:/ {print $2 * 1024}' "/proc/$HP/smaps_rollup")
if [ "${HP_AHP:-0}" -ge $((40 << 20)) ]; then
	ok "helper in $NAME has $HP_AHP bytes of AnonHugePages"
else
	nok "helper in $NAME has THP" "AnonHugePages ${HP_AHP:-?} bytes"
fi

# ---- a limit far above its usage: listed, not flagged --------------------------
t cgroups --json
expect_rc "cgroups --json exits 0" 0
export NAME HP_AHP CG_VER
expect_json "/$NAME: v$CG_VER, anon_thp >= the helper's AnonHugePages, memory.max 512 MiB, 3 processes, 2 with THP disabled, not flagged" "$TMP/out" \
	"d['cgroup_version'] == int(E['CG_VER']) and [c for c in d['cgroups'] if c['path'] == '/' + E['NAME'] and c['anon_thp_bytes'] >= int(E['HP_AHP']) and c['memory_max_limited'] is True and c['memory_max_bytes'] == 512 << 20 and c['procs'] == 3 and c['procs_thp_disabled'] == 2 and c['procs_status_unreadable'] == 0 and c['near_limit_with_thp'] is False and 0 < c['anon_thp_ratio'] <= 1]" \
	"[c for c in d['cgroups'] if c['path'].startswith('/' + E['NAME'])]"
expect_json "/$NAME/nothp: 2 processes, both THP disabled, no limit of its own" "$TMP/out" \
	"[c for c in d['cgroups'] if c['path'] == '/' + E['NAME'] + '/nothp' and c['procs'] == 2 and c['procs_thp_disabled'] == 2 and c['memory_max_limited'] is False and c['memory_max_bytes'] is None]" \
	"[c for c in d['cgroups'] if c['path'].startswith('/' + E['NAME'])]"

# ---- the limit just above its usage: flagged ------------------------------------
CUR=$(cat "$CG/$CURF")
LIM=$(((CUR + CUR / 20 + 4095) / 4096 * 4096)) # ~95% used
if echo "$LIM" >"$CG/$MAXF" 2>/dev/null; then
	ok "limit of $NAME set to $LIM bytes (usage $CUR)"
else
	nok "limit of $NAME set to $LIM bytes" "write refused"
fi
export LIM
t cgroups --json
expect_json "/$NAME at ~95% of memory.max with THP: near_limit_with_thp true, in flags, memory_max_bytes $LIM" "$TMP/out" \
	"[c for c in d['cgroups'] if c['path'] == '/' + E['NAME'] and c['near_limit_with_thp'] is True and c['memory_max_bytes'] == int(E['LIM']) and c['memory_use_ratio'] >= 0.9] and [f for f in d['flags'] if f['cgroup'] == '/' + E['NAME'] and f['id'] == 'near-limit-thp']" \
	"[c for c in d['cgroups'] if c['path'] == '/' + E['NAME']], d['flags']"
t cgroups
expect_out "cgroups (text): the flag names /$NAME, host-wide counter labelled" \
	"^  \[warn\] near-limit-thp: /$NAME uses .* of $MAXF .* and holds .* of anon THP$" \
	"^Host-wide, all cgroups since boot: thp_fault_fallback_charge [0-9]"
# as nobody: memory.stat and status are world-readable, the same cgroups come out
t_nobody cgroups --json
expect_json "cgroups --json as nobody: /$NAME with its THP and the flag" "$TMP/out" \
	"[c for c in d['cgroups'] if c['path'] == '/' + E['NAME'] and c['anon_thp_bytes'] >= int(E['HP_AHP']) and c['near_limit_with_thp'] is True]"

# ---- why: the cgroup at ~95% of its limit stands in the way, headroom beside the limit
export CURF BASE
t why "$HP" --json
expect_rc "why HELPER --json exits 0" 0
expect_json "why: /$NAME tight (usage over 90%), limit $LIM, headroom = limit - usage, absolute limit_file and usage_file" "$TMP/out" \
	"(c := d['cgroup'])['path'] == '/' + E['NAME'] and c['limit_known'] is True and c['tight'] is True and c['limit_bytes'] == int(E['LIM']) and c['headroom_bytes'] == c['limit_bytes'] - c['usage_bytes'] and c['limit_file'].startswith(E['BASE'] + '/' + E['NAME'] + '/') and c['usage_file'] == E['BASE'] + '/' + E['NAME'] + '/' + E['CURF'] and [f for f in d['facts'] if f['topic'] == 'cgroup' and f['effect'] == 'hinders']" \
	"d['cgroup'], [f for f in d['facts'] if f['topic'] == 'cgroup']"
t why "$HP"
expect_out "why (text): the cgroup line says '-' with its usage against the limit" \
	"^- cgroup *memory cgroup /$NAME (v$CG_VER) uses .* of its .* limit"

# ---- ps --by cgroup: the helper's AnonHugePages under its own cgroup, the prctl pair under nothp
t ps --all --by cgroup --json
expect_rc "ps --all --by cgroup --json exits 0" 0
expect_json "ps --by cgroup: /$NAME holds 1 process with the helper's AnonHugePages, /$NAME/nothp 2 processes" "$TMP/out" \
	"d['by'] == 'cgroup' and d['cgroup_version'] == int(E['CG_VER']) and [g for g in d['groups'] if g['cgroup'] == '/' + E['NAME'] and g['processes'] == 1 and g['anon_huge_pages_bytes'] >= int(E['HP_AHP']) - (4 << 20)] and [g for g in d['groups'] if g['cgroup'] == '/' + E['NAME'] + '/nothp' and g['processes'] == 2]" \
	"[g for g in d['groups'] if g['cgroup'] and g['cgroup'].startswith('/' + E['NAME'])]"
# ---- the exporter: the test cgroup among thp_cgroup_* with its limit
t exporter --once --top-cgroups 1000
expect_rc "exporter --once --top-cgroups 1000 exits 0" 0
got=$(awk -v m="thp_cgroup_memory_max_bytes{cgroup=\"/$NAME\"}" '$1 == m {print $2}' "$TMP/out")
expect_cmd "exporter: thp_cgroup_memory_max_bytes{cgroup=\"/$NAME\"} is the limit ($LIM)" "got '${got:-}'" test "${got:-x}" = "$LIM"
got=$(awk -v m="thp_cgroup_processes_thp_disabled{cgroup=\"/$NAME/nothp\"}" '$1 == m {print $2}' "$TMP/out")
expect_cmd "exporter: thp_cgroup_processes_thp_disabled of /$NAME/nothp is 2" "got '${got:-}'" test "${got:-x}" = 2
got=$(awk -v m="thp_cgroup_anon_thp_bytes{cgroup=\"/$NAME\"}" '$1 == m {print $2}' "$TMP/out")
expect_cmd "exporter: thp_cgroup_anon_thp_bytes of /$NAME >= the helper's AnonHugePages ($HP_AHP)" "got '${got:-}'" \
	test "${got:-0}" -ge "$HP_AHP"

stop_pid "$HP"
stop_pid "$PF"
expect_sanitizers_quiet "sanitizers quiet in every thpctl run"
summary
