#!/usr/bin/env bash
# Prometheus suite: `thpctl exporter` (ASan+UBSan build) against the running
# kernel, promtool, and a real Prometheus server scraping it.
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "prometheus: N
# passed, M failed, K skipped", non-zero exit on failures). A check skips only
# where a package cannot be installed or it needs root.
#
# All traffic goes to 127.0.0.1 on ports the kernel picks (the exporter binds
# port 0 and says which; Prometheus gets a port found free just before).
# Read-only towards the host; every process started is stopped on exit.
#
#   THPCTL=path      test another thpctl binary (default build/asan/thpctl)
#   WRK_SECONDS=N    length of the load test (default 15: a smoke; bench/exporter.sh is the long one)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init prometheus

H=build/tests/thp_helper
RULES=contrib/prometheus/thp-rules.yml
RULES_TEST=contrib/prometheus/tests/thp-rules.test.yml
WRK_SECONDS=${WRK_SECONDS:-15}
# any sanitizer report in any exporter run fails the suite
# shellcheck disable=SC2016 # evaluated by summary
at_summary 'san_scan "$TMP"/*.err; expect_sanitizers_quiet "sanitizers quiet in every exporter run"'

# ---- preflight ---------------------------------------------------------------
for f in "$T" "$H"; do
	if [ ! -x "$f" ]; then
		nok "preflight" "$f missing: run 'make $T $H'"
		summary
	fi
done
# grep reads it all: with pipefail, grep -q ending first (the help is over 4 KiB, two writes) fails the pipe by SIGPIPE
if ! "$T" exporter --help | grep -- '--listen' >/dev/null; then
	nok "preflight" "$T exporter --help does not mention --listen"
	summary
fi
HTTP=1
if "$T" exporter --help | grep 'This build has no HTTP listener' >/dev/null; then
	HTTP=0
fi
HAVE_PROMTOOL=1 HAVE_PROMETHEUS=1 HAVE_WRK=1
command -v promtool >/dev/null || HAVE_PROMTOOL=0
[ -x /usr/bin/prometheus ] || HAVE_PROMETHEUS=0
command -v wrk >/dev/null || HAVE_WRK=0
command -v curl >/dev/null || {
	nok "preflight" "curl missing: run scripts/install-deps --test"
	summary
}

# A helper with 64 MiB of MADV_HUGEPAGE memory: a process the exporter must list.
# Started with LD_PRELOAD of Debian's libjemalloc2 when installed: thp_process_allocator_info.
HP=
JE=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n1)
JE_VER=$(dpkg-query -W -f='${Version}' libjemalloc2 2>/dev/null | sed 's/^[0-9]*://; s/-[^-]*$//')
[ -n "$JE" ] && HELPER_PREFIX=(env "LD_PRELOAD=$JE")
if [ -r "$THP/enabled" ] && ! grep -q '\[never\]' "$THP/enabled"; then
	start_helper HP "$H" hugepage 64 || HP=
fi
HELPER_PREFIX=()
# (printf: mawk prints integers above 2^31 as %.6g)
hp_ahp_bytes() { awk '/^AnonHugePages:/ {printf "%.0f\n", $2 * 1024}' "/proc/$HP/smaps_rollup"; }
hp_rss_bytes() { awk '/^VmRSS:/ {printf "%.0f\n", $2 * 1024}' "/proc/$HP/status"; }

# metric FILE NAME{LABELS}: the value of the first sample line starting so
metric() { awk -v m="$2" 'index($0, m " ") == 1 || index($0, m "{") == 1 {print $NF; exit}' "$1"; }

# http PORT PATH [CURL ARGS]: status code on stdout, body in $TMP/body, headers in $TMP/hdr
http() {
	local port=$1 path=$2
	shift 2
	curl -s --max-time 10 -o "$TMP/body" -D "$TMP/hdr" -w '%{http_code}' "$@" \
		"http://127.0.0.1:$port$path"
}

# ---- promtool on the rules -----------------------------------------------------
if [ "$HAVE_PROMTOOL" -eq 1 ]; then
	out=$(promtool check rules "$RULES" 2>&1)
	expect_cmd "promtool check rules $RULES" "$(tr '\n' ' ' <<<"$out" | cut -c1-300)" \
		grep -q 'SUCCESS: [0-9]* rules found' <<<"$out"
	# exactly the glob the README and the rules file give: every *.yml there is a rule file
	# (the promtool unit tests live in contrib/prometheus/tests/)
	# shellcheck disable=SC2086
	out=$(promtool check rules contrib/prometheus/*.yml 2>&1)
	rc=$?
	expect_cmd "promtool check rules contrib/prometheus/*.yml" "rc $rc: $(tr '\n' ' ' <<<"$out" | cut -c1-300)" \
		test "$rc" -eq 0
	out=$(promtool test rules "$RULES_TEST" 2>&1)
	rc=$?
	expect_cmd "promtool test rules $RULES_TEST" "$(tr '\n' ' ' <<<"$out" | cut -c1-600)" \
		test "$rc" -eq 0
else
	skip "promtool check rules" "promtool not installed (Debian package prometheus: scripts/install-deps --test)"
	skip "promtool check rules contrib/prometheus/*.yml" "promtool not installed"
	skip "promtool test rules" "promtool not installed"
fi

# ---- usage ---------------------------------------------------------------------
"$T" exporter --json >/dev/null 2>"$TMP/usage.err"
expect_cmd "exporter --json without --once is a usage error (2)" "exit $?" test $? -eq 2
"$T" exporter --listen nonsense >/dev/null 2>>"$TMP/usage.err"
expect_cmd "exporter --listen nonsense is a usage error (2)" "exit $?" test $? -eq 2
"$T" exporter --listen 127.0.0.1:70000 >/dev/null 2>>"$TMP/usage.err"
expect_cmd "exporter --listen with port 70000 is a usage error (2)" "exit $?" test $? -eq 2
: >"$TMP/plainfile"
"$T" exporter --textfile "$TMP/plainfile" --once >/dev/null 2>>"$TMP/usage.err"
expect_cmd "exporter --textfile on a regular file is a usage error (2)" "exit $?" test $? -eq 2
"$T" exporter --textfile "$TMP/no/such/dir" --once >/dev/null 2>>"$TMP/usage.err"
expect_cmd "exporter --textfile under a missing parent is a usage error (2)" "exit $?" test $? -eq 2
"$T" exporter --top-processes 5000 >/dev/null 2>>"$TMP/usage.err"
expect_cmd "exporter --top-processes 5000 is a usage error (2)" "exit $?" test $? -eq 2
"$T" exporter --bogus >/dev/null 2>>"$TMP/usage.err"
expect_cmd "exporter --bogus is a usage error (2)" "exit $?" test $? -eq 2

# ---- --once to stdout: real values --------------------------------------------------
A=$(awk '$1 == "thp_fault_alloc" {print $2}' /proc/vmstat)
"$T" exporter --once >"$TMP/once.prom" 2>"$TMP/once.err"
rc=$?
B=$(awk '$1 == "thp_fault_alloc" {print $2}' /proc/vmstat)
expect_cmd "exporter --once exits 0" "exit $rc: $(head -c 300 "$TMP/once.err")" test "$rc" -eq 0
if [ "$HAVE_PROMTOOL" -eq 1 ]; then
	out=$(promtool check metrics <"$TMP/once.prom" 2>&1)
	rc=$?
	expect_cmd "promtool check metrics on --once output reports nothing" "rc $rc: $(head -c 400 <<<"$out")" \
		test "$rc" -eq 0 -a -z "$out"
fi
if [ -n "$A" ]; then
	V=$(metric "$TMP/once.prom" thp_fault_alloc_total)
	expect_cmd "thp_fault_alloc_total between /proc/vmstat before and after ($A <= ${V:-none} <= $B)" \
		"got '${V:-}'" test -n "$V" -a "${V:-0}" -ge "$A" -a "${V:-0}" -le "$B"
fi
# every metric the rules read is one the exporter writes (a renamed metric leaves a rule silent)
missing=""
for m in $(grep -oE '\b(thp|thpctl)_[a-z0-9_]+' "$RULES" | sort -u); do
	grep -q "^# TYPE $m " "$TMP/once.prom" || missing="$missing $m"
done
expect_eval "every metric in $RULES is exported (--once)" '[ -z "$missing" ]' "not exported:$missing"
# compaction and reclaim are not THP's own counters: the kernel's names under thpctl_vmstat_
expect_eval "no thp_compact_*/thp_allocstall/thp_pgscan_* families" \
	'! grep -qE "^# TYPE thp_(compact_|allocstall|pgscan_|pgsteal_)" "$TMP/once.prom"' \
	"$(grep -E '^# TYPE thp_(compact_|allocstall|pgscan_|pgsteal_)' "$TMP/once.prom" | head -3)"
for k in thp_fault_fallback thp_collapse_alloc thp_split_pmd compact_stall compact_fail; do
	v=$(awk -v k="$k" '$1 == k {print $2}' /proc/vmstat)
	[ -n "$v" ] || continue
	name=$k
	[[ $k == compact_* ]] && name=thpctl_vmstat_$k
	got=$(metric "$TMP/once.prom" "${name}_total")
	# these move rarely; allow the few events of the moment between the two reads
	expect_cmd "${name}_total equals /proc/vmstat $k ($v)" "got '${got:-}'" \
		test -n "$got" -a "${got:-0}" -ge "$((v - 50))" -a "${got:-0}" -le "$((v + 50))"
done
if [ -r "$THP/hpage_pmd_size" ]; then
	want=$(cat "$THP/hpage_pmd_size")
	got=$(metric "$TMP/once.prom" thp_hpage_pmd_size_bytes)
	expect_cmd "thp_hpage_pmd_size_bytes equals sysfs ($want)" "got '${got:-}'" test "${got:-}" = "$want"
	want=$(sysfs_choice "$THP/enabled")
	expect_cmd "thp_setting_info{knob=\"enabled\"} says value=\"$want\" like sysfs" \
		"$(grep '^thp_setting_info{knob="enabled"' "$TMP/once.prom")" \
		grep -qx "thp_setting_info{knob=\"enabled\",value=\"$want\"} 1" "$TMP/once.prom"
	want=$(cat "$THP/khugepaged/max_ptes_none")
	got=$(metric "$TMP/once.prom" thp_khugepaged_max_ptes_none)
	expect_cmd "thp_khugepaged_max_ptes_none equals sysfs ($want)" "got '${got:-}'" test "${got:-}" = "$want"
	want=$(($(cat "$THP/khugepaged/scan_sleep_millisecs") / 1000))
	got=$(metric "$TMP/once.prom" thp_khugepaged_scan_sleep_seconds)
	expect_cmd "thp_khugepaged_scan_sleep_seconds is scan_sleep_millisecs / 1000 ($want)" "got '${got:-}'" \
		test "${got%%.*}" = "$want"
	if [ -d "$THP/hugepages-64kB/stats" ]; then
		want=$(cat "$THP/hugepages-64kB/stats/nr_anon" 2>/dev/null)
		got=$(metric "$TMP/once.prom" 'thp_mthp_nr_anon{size="64kB"}')
		expect_cmd "thp_mthp_nr_anon{size=\"64kB\"} equals stats/nr_anon ($want)" "got '${got:-}'" \
			test "${got:-x}" = "${want:-y}"
	fi
fi
# thp_cgroup_*: the root memory cgroup's anon THP is its memory.stat's (v2 anon_thp, v1
# total_rss_huge), and --top-cgroups bounds the series
cgstat= cgkey=
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cgstat=/sys/fs/cgroup/memory.stat cgkey=anon_thp
elif [ -r /sys/fs/cgroup/memory/memory.stat ]; then
	cgstat=/sys/fs/cgroup/memory/memory.stat cgkey=total_rss_huge
fi
if [ -n "$cgstat" ] && [ -r "$cgstat" ]; then
	want=$(awk -v k="$cgkey" '$1 == k {print $2}' "$cgstat")
	got=$(metric "$TMP/once.prom" 'thp_cgroup_anon_thp_bytes{cgroup="/"}')
	expect_cmd "thp_cgroup_anon_thp_bytes{cgroup=\"/\"} is $cgstat $cgkey (~${want:-none})" "got '${got:-}'" \
		python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(a - b) > 256 << 20)" "${got:--1}" "${want:--9999999999}"
	ncg=$(metric "$TMP/once.prom" thpctl_cgroups_seen)
	"$T" exporter --once --top-cgroups 2 >"$TMP/cg2.prom" 2>>"$TMP/once.err"
	n=$(grep -c '^thp_cgroup_anon_thp_bytes{' "$TMP/cg2.prom")
	want=$((ncg < 2 ? ncg : 2))
	expect_cmd "--top-cgroups 2: $want thp_cgroup_anon_thp_bytes series of $ncg cgroups" "got $n" test "$n" = "$want"
	"$T" exporter --once --top-cgroups 0 >"$TMP/cg0.prom" 2>>"$TMP/once.err"
	expect_cmd "--top-cgroups 0: no thp_cgroup_ series" "$(grep -m1 '^thp_cgroup_' "$TMP/cg0.prom")" \
		test "$(grep -c '^thp_cgroup_' "$TMP/cg0.prom")" = 0
else
	skip "thp_cgroup_* against memory.stat" "no memory cgroup hierarchy readable here"
fi
want=$(awk '/^AnonHugePages:/ {printf "%.0f\n", $2 * 1024}' /proc/meminfo)
got=$(metric "$TMP/once.prom" thp_meminfo_anon_huge_pages_bytes)
expect_cmd "thp_meminfo_anon_huge_pages_bytes is meminfo AnonHugePages in bytes (~$want)" "got '${got:-}'" \
	python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(a - b) > 256 << 20)" "${got:-0}" "${want:-1}"
want=$(awk '$2 == "0," && $4 == "Normal" {print $15}' /proc/buddyinfo)
got=$(metric "$TMP/once.prom" 'thp_buddy_free_blocks{node="0",zone="Normal",order="10"}')
if [ -n "$want" ]; then
	expect_cmd "thp_buddy_free_blocks for Normal order 10 present and plausible (buddyinfo now $want)" \
		"got '${got:-}'" test -n "$got"
fi
# --once --json: the same scrape as JSON
"$T" exporter --once --json >"$TMP/once.json" 2>"$TMP/once-json.err"
rc=$?
out=$(python3 - "$TMP/once.json" "$THP/hpage_pmd_size" <<'PY' 2>&1
import json, sys
doc = json.load(open(sys.argv[1]))
assert next(iter(doc)) == "schema" and doc["schema"] == "thpctl.exporter/1", doc.get("schema")
d = {f["name"]: f for f in doc["families"]}
f = d["thp_hpage_pmd_size_bytes"]
want = int(open(sys.argv[2]).read())
ok = f["type"] == "gauge" and f["samples"][0]["value"] == want and d["thp_fault_alloc_total"]["type"] == "counter"
print("ok" if ok else f"got {f}")
PY
)
expect_cmd "exporter --once --json: families with type and values (hpage_pmd_size as in sysfs)" "exit $rc: $out" \
	test "$rc" -eq 0 -a "$out" = ok

for fam in thp_fault_alloc_total thp_setting_info thp_buddy_free_blocks thpctl_scrape_duration_seconds thpctl_scrape_errors; do
	expect_cmd "family $fam has HELP and TYPE" "missing" \
		grep -q "^# TYPE $fam " "$TMP/once.prom"
done
expect_cmd "thpctl_scrape_errors is 0 on this host" "$(grep '^thpctl_scrape_errors' "$TMP/once.prom")" \
	grep -qx 'thpctl_scrape_errors 0' "$TMP/once.prom"
if [ "$(pgrep -x khugepaged | head -n1)" ]; then
	kp=$(pgrep -x khugepaged | head -n1)
	want=$(awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$kp/stat")
	got=$(metric "$TMP/once.prom" thp_khugepaged_cpu_seconds_total)
	expect_cmd "thp_khugepaged_cpu_seconds_total matches khugepaged's /proc/PID/stat ($want s)" "got '${got:-}'" \
		python3 -c "import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 0.5)" "${got:-1e9}" "$want"
fi

# per-process metrics: the helper, with its own smaps_rollup and status
if [ -n "$HP" ] && [ "$ROOT" -eq 1 ]; then
	want=$(hp_ahp_bytes)
	got=$(metric "$TMP/once.prom" "thp_process_anon_huge_pages_bytes{pid=\"$HP\",comm=\"thp_helper\"}")
	expect_cmd "thp_process_anon_huge_pages_bytes of the 64 MiB helper equals its smaps_rollup ($want)" \
		"got '${got:-absent}'" test "${got:-x}" = "$want" -a "$want" -ge $((60 << 20))
	want=$(hp_rss_bytes)
	got=$(metric "$TMP/once.prom" "thp_process_rss_bytes{pid=\"$HP\",comm=\"thp_helper\"}")
	expect_cmd "thp_process_rss_bytes of the helper equals its VmRSS ($want)" "got '${got:-absent}'" \
		test "${got:-x}" = "$want"
	got=$(metric "$TMP/once.prom" "thp_process_thp_enabled{pid=\"$HP\",comm=\"thp_helper\"}")
	expect_cmd "thp_process_thp_enabled of the helper is 1" "got '${got:-absent}'" test "${got:-x}" = 1
	expect_cmd "no hg bytes without --process-flags" "present" \
		bash -c "! grep -q '^thp_process_hugepage_advised_bytes' '$TMP/once.prom'"
	"$T" exporter --once --process-flags >"$TMP/flags.prom" 2>"$TMP/flags.err"
	got=$(metric "$TMP/flags.prom" "thp_process_hugepage_advised_bytes{pid=\"$HP\",comm=\"thp_helper\"}")
	expect_cmd "--process-flags: the helper's MADV_HUGEPAGE bytes >= 64 MiB" "got '${got:-absent}'" \
		test "${got:-0}" -ge $((64 << 20))
	"$T" exporter --once --process-ledger >"$TMP/ledger.prom" 2>"$TMP/ledger.err"
	got=$(grep "^thp_process_allocator_info{pid=\"$HP\"," "$TMP/ledger.prom")
	if [ -n "$JE" ] && [ -n "$JE_VER" ]; then
		want="allocator=\"jemalloc\",version=\"$JE_VER\",evidence=\"mapped-library\"} 1"
		expect_cmd "--process-ledger: the helper preloaded with $JE is jemalloc $JE_VER (libjemalloc2)" \
			"got '${got:-absent}'" test "${got#*comm=\"thp_helper\",}" = "$want"
	else
		expect_cmd "--process-ledger: the helper's allocator is glibc" "got '${got:-absent}'" \
			grep -q 'allocator="glibc",version="[0-9]' <<<"$got"
	fi
	expect_cmd "no thp_process_allocator_info without --process-ledger" "present" \
		bash -c "! grep -q '^thp_process_allocator_info' '$TMP/once.prom'"
	if [ "$HAVE_PROMTOOL" -eq 1 ]; then
		out=$(promtool check metrics <"$TMP/ledger.prom" 2>&1)
		expect_cmd "promtool check metrics on the --process-ledger output reports nothing" \
			"$(head -c 400 <<<"$out")" test -z "$out"
	fi
	"$T" exporter --once --top-processes 1 >"$TMP/top1.prom" 2>"$TMP/top1.err"
	n=$(grep -c '^thp_process_anon_huge_pages_bytes{' "$TMP/top1.prom")
	expect_cmd "--top-processes 1 exports one process" "got $n" test "$n" -eq 1
	"$T" exporter --once --min-process-ahp 1T >"$TMP/min.prom" 2>"$TMP/min.err"
	expect_cmd "--min-process-ahp 1T exports no process" "$(grep -c '^thp_process_' "$TMP/min.prom") lines" \
		bash -c "! grep -q '^thp_process_' '$TMP/min.prom'"
	# the largest size: its kB rounded up wrapped to 0, so every process was exported
	"$T" exporter --once --min-process-ahp 18446744073709551615 >"$TMP/max.prom" 2>"$TMP/max.err"
	expect_cmd "--min-process-ahp 2^64-1 exports no process (no wrap to 0)" \
		"$(grep -c '^thp_process_' "$TMP/max.prom") lines" \
		bash -c "! grep -q '^thp_process_' '$TMP/max.prom'"
	"$T" exporter --once --top-processes 0 >"$TMP/top0.prom" 2>"$TMP/top0.err"
	expect_cmd "--top-processes 0: no per-process families" "present" \
		bash -c "! grep -q -e '^thp_process_' -e '^thpctl_processes_' '$TMP/top0.prom'"
else
	skip "per-process metrics of a THP helper" "needs root and THP enabled (madvise or always)"
fi

# as nobody: works, processes of others counted as unreadable
if [ "$ROOT" -eq 1 ]; then
	as_nobody "$T" exporter --once \
		>"$TMP/nobody.prom" 2>"$TMP/nobody.err"
	rc=$?
	expect_cmd "exporter --once as nobody exits 0" "exit $rc: $(head -c 300 "$TMP/nobody.err")" test "$rc" -eq 0
	if [ -n "$HP" ]; then
		expect_cmd "as nobody: root's helper is not exported" "present" \
			bash -c "! grep -q 'pid=\"$HP\"' '$TMP/nobody.prom'"
		got=$(metric "$TMP/nobody.prom" thpctl_processes_unreadable)
		expect_cmd "as nobody: thpctl_processes_unreadable >= 1 (the helper)" "got '${got:-}'" \
			test "${got:-0}" -ge 1
		# and says so on stderr, once, with that count and what reads them
		n=$(grep -c 'could not be read' "$TMP/nobody.err")
		expect_cmd "as nobody: one stderr line names the $got unreadable processes and the way" \
			"$n lines: $(head -c 400 "$TMP/nobody.err")" \
			bash -c "[ $n = 1 ] && grep -q '^thpctl: exporter: $got process.* could not be read (smaps_rollup: permission denied):.*run as root, as the process.s owner or with CAP_SYS_PTRACE to include them$' '$TMP/nobody.err'"
	fi
	got=$(metric "$TMP/nobody.prom" thp_fault_alloc_total)
	expect_cmd "as nobody: system metrics still there" "thp_fault_alloc_total '${got:-}'" test -n "$got"
	if [ "$HAVE_PROMTOOL" -eq 1 ]; then
		out=$(promtool check metrics <"$TMP/nobody.prom" 2>&1)
		expect_cmd "promtool check metrics on the nobody scrape reports nothing" "$out" test -z "$out"
	fi
else
	skip "exporter as nobody" "needs root for setpriv"
fi

# recorded trees: every value comes from the tree
for fx in tests/fixtures/*/; do
	[ -f "$fx/proc/vmstat" ] || continue
	name=$(basename "$fx")
	"$T" --sysroot "$fx" exporter --once >"$TMP/fx-$name.prom" 2>"$TMP/fx-$name.err"
	rc=$?
	want=$(awk '$1 == "thp_fault_alloc" {print $2}' "$fx/proc/vmstat")
	got=$(metric "$TMP/fx-$name.prom" thp_fault_alloc_total)
	expect_cmd "recorded tree $name: exit 0 and thp_fault_alloc_total = $want" "exit $rc, got '${got:-}'" \
		test "$rc" -eq 0 -a "${got:-x}" = "$want"
	if [ "$HAVE_PROMTOOL" -eq 1 ]; then
		out=$(promtool check metrics <"$TMP/fx-$name.prom" 2>&1)
		expect_cmd "recorded tree $name: promtool check metrics reports nothing" "$(head -c 300 <<<"$out")" \
			test -z "$out"
	fi
	en="$fx/sys/kernel/mm/transparent_hugepage/enabled"
	if [ -f "$en" ] && grep -q '\[' "$en"; then
		want=$(sysfs_choice "$en")
		expect_cmd "recorded tree $name: thp_setting_info enabled=$want" "$(grep -m1 '^thp_setting_info' "$TMP/fx-$name.prom")" \
			grep -qx "thp_setting_info{knob=\"enabled\",value=\"$want\"} 1" "$TMP/fx-$name.prom"
	fi
done

# ---- --textfile -------------------------------------------------------------------
TF="$TMP/textfile"
"$T" exporter --once --textfile "$TF" >"$TMP/tf-once.out" 2>"$TMP/tf-once.err"
rc=$?
expect_cmd "--once --textfile MISSING: exit 2, names it, creates nothing" \
	"exit $rc, $(ls -ld "$TF" 2>&1): $(head -c 300 "$TMP/tf-once.err")" \
	bash -c "[ $rc = 2 ] && [ ! -e '$TF' ] && grep -q -- '--textfile $TF: no such directory' '$TMP/tf-once.err'"
"$T" exporter --once --textfile "$TF" --mkdir >"$TMP/tf-once.out" 2>"$TMP/tf-once.err"
rc=$?
expect_cmd "--once --textfile --mkdir exits 0, prints nothing, creates the missing directory" \
	"exit $rc, stdout $(wc -c <"$TMP/tf-once.out") bytes, $(ls -ld "$TF" 2>&1)" \
	test "$rc" -eq 0 -a ! -s "$TMP/tf-once.out" -a -d "$TF"
expect_cmd "--textfile wrote thp.prom, mode 0644" "$(ls -l "$TF" | tr '\n' ' ')" \
	test "$(stat -c %a "$TF/thp.prom" 2>/dev/null)" = 644
expect_cmd "--textfile left no temporary file" "$(ls -A "$TF" | tr '\n' ' ')" test "$(ls -A "$TF")" = thp.prom
if [ "$HAVE_PROMTOOL" -eq 1 ]; then
	out=$(promtool check metrics <"$TF/thp.prom" 2>&1)
	expect_cmd "promtool check metrics on thp.prom reports nothing" "$(head -c 300 <<<"$out")" test -z "$out"
fi
# long-running: rewritten every second by rename (a new inode each time); a
# reader never sees a partial file
"$T" exporter --textfile "$TF" -i 1 2>"$TMP/tf.err" &
TFP=$!
track_pid "$TFP"
sleep 0.5
ino1=$(stat -c %i "$TF/thp.prom")
python3 - "$TF/thp.prom" >"$TMP/tf-reader.out" 2>&1 <<'PY'
import sys, time
end = time.time() + 3.2
n = bad = 0
while time.time() < end:
    with open(sys.argv[1], "rb") as f:
        d = f.read()
    n += 1
    if not d.endswith(b"\n") or b"\nthpctl_build_info{" not in d:
        bad += 1
print(n, bad)
PY
read -r nreads nbad <"$TMP/tf-reader.out"
ino2=$(stat -c %i "$TF/thp.prom")
expect_cmd "--textfile -i 1 rewrites thp.prom by rename (inode $ino1 -> $ino2)" "same inode" test "$ino1" != "$ino2"
expect_cmd "a reader never sees a partial thp.prom (${nreads:-0} reads)" "$(cat "$TMP/tf-reader.out")" \
	test "${nreads:-0}" -gt 100 -a "${nbad:-1}" -eq 0
expect_cmd "--textfile alone starts no HTTP listener" "$(cat "$TMP/tf.err")" \
	bash -c "! grep -q listening '$TMP/tf.err'"
stop_pid "$TFP"
expect_cmd "--textfile exporter exits 0 on SIGTERM" "exit $STOP_RC" test "$STOP_RC" -eq 0
expect_cmd "no temporary file left behind" "$(ls -A "$TF" | tr '\n' ' ')" test "$(ls -A "$TF")" = thp.prom

if [ "$HTTP" -eq 0 ]; then
	skip "HTTP listener checks" "this thpctl was built without libmicrohttpd"
	summary
fi

# ---- libmicrohttpd is loaded by the exporter only ---------------------------------
# (in test builds THPCTL_TEST_DL_MISSING=libmicrohttpd makes it missing: util/dl.c): without it, the
# exporter says what is missing and what to do, and exits 1 instead of listening.
if [ "$HTTP" -eq 1 ]; then
	THPCTL_TEST_DL_MISSING=libmicrohttpd timeout 10 "$T" exporter --listen 127.0.0.1:0 \
		>"$TMP/nomhd.out" 2>"$TMP/nomhd.err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q 'cannot load libmicrohttpd.*thpctl-test-missing\.so.*--textfile DIR or --once' "$TMP/nomhd.err" &&
		! grep -q 'listening on' "$TMP/nomhd.err"; then
		ok "exporter without libmicrohttpd: exit 1, names the library and the way out"
	else
		nok "exporter without libmicrohttpd: exit 1, names the library and the way out" "exit $rc: $(head -c 300 "$TMP/nomhd.err")"
	fi
fi

# ---- --textfile and --listen together: scrapes get the textfile loop's newest body ----
# --cache-ms 60000: HTTP never collects here, so a scrape can only be the loop's body. Before,
# the first scrape got 500 (no response made yet) and later ones the first body again.
mkdir -p "$TMP/tfl"
if start_exporter L --textfile "$TMP/tfl" -i 1 --cache-ms 60000; then
	wait_for_line "$TMP/tfl/thp.prom" "^thpctl_collections_total " "$L_PID" 10
	c1=$(http "$L_PORT" /metrics)
	n1=$(sed -n 's/^thpctl_collections_total //p' "$TMP/body")
	sleep 2.5
	c2=$(http "$L_PORT" /metrics)
	n2=$(sed -n 's/^thpctl_collections_total //p' "$TMP/body")
	expect_cmd "--textfile with --listen: scrapes 200 and follow the loop's collections" \
		"codes $c1 $c2, thpctl_collections_total $n1 then $n2" \
		test "$c1" = 200 -a "$c2" = 200 -a "${n1:-0}" -ge 1 -a "${n2:-0}" -gt "${n1:-0}"
	stop_pid "$L_PID"
else
	nok "--textfile with --listen starts" "$(head -c 300 "$TMP/exporter.L.err")"
fi

# ---- HTTP -----------------------------------------------------------------------------
if ! start_exporter E; then
	nok "exporter listens on 127.0.0.1:0" "$(head -c 300 "$TMP/exporter.E.err")"
	summary
fi
ok "exporter listens on 127.0.0.1:$E_PORT (port 0: picked by the kernel)"
code=$(http "$E_PORT" /metrics)
expect_cmd "GET /metrics: 200" "got $code" test "$code" = 200
expect_cmd "Content-Type is the text format 0.0.4" "$(grep -i '^content-type' "$TMP/hdr")" \
	grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$TMP/hdr"
if [ "$HAVE_PROMTOOL" -eq 1 ]; then
	out=$(promtool check metrics <"$TMP/body" 2>&1)
	rc=$?
	expect_cmd "promtool check metrics on a real scrape reports nothing" "rc $rc: $(head -c 400 <<<"$out")" \
		test "$rc" -eq 0 -a -z "$out"
else
	skip "promtool check metrics on a real scrape" "promtool not installed"
fi
cp "$TMP/body" "$TMP/scrape1.prom"
code=$(http "$E_PORT" /metrics -I)
expect_cmd "HEAD /metrics: 200" "got $code" test "$code" = 200
for m in POST PUT DELETE PATCH; do
	code=$(http "$E_PORT" /metrics -X "$m" -d x)
	expect_cmd "$m /metrics: 405 with Allow: GET, HEAD" "got $code $(grep -i '^allow' "$TMP/hdr")" \
		bash -c "test '$code' = 405 && grep -qi '^allow: GET, HEAD' '$TMP/hdr'"
done
for p in /metricsx /metrics/ /favicon.ico /index.html '/metrics?x=1/../'; do
	code=$(http "$E_PORT" "$p")
	want=404
	[ "$p" = '/metrics?x=1/../' ] && want=200 # the query string is not the path
	expect_cmd "GET $p: $want" "got $code" test "$code" = "$want"
done
# scrapes within --cache-ms (1 s) share one collection
c1=$(curl -s "http://127.0.0.1:$E_PORT/metrics" | awk '$1 == "thpctl_collections_total" {print $2}')
c2=$(curl -s "http://127.0.0.1:$E_PORT/metrics" | awk '$1 == "thpctl_collections_total" {print $2}')
sleep 1.1
c3=$(curl -s "http://127.0.0.1:$E_PORT/metrics" | awk '$1 == "thpctl_collections_total" {print $2}')
expect_cmd "two scrapes within 1 s share a collection, a later one collects ($c1 $c2 $c3)" "" \
	test -n "$c1" -a "$c1" = "$c2" -a "${c3:-0}" -gt "${c1:-0}"

# stalled clients: connections that send nothing or half a request do not block a scrape
python3 - "$E_PORT" >"$TMP/stall.out" 2>&1 <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
socks = []
for i in range(16):
    s = socket.create_connection(("127.0.0.1", port))
    if i % 2:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
    socks.append(s)
print("stalled", len(socks), flush=True)
time.sleep(6)
PY
STALL=$!
track_pid "$STALL"
wait_for_line "$TMP/stall.out" stalled "$STALL" 5
t0=$(date +%s%N)
code=$(http "$E_PORT" /metrics)
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
expect_cmd "16 stalled connections do not block a concurrent scrape (200 in $ms ms)" \
	"got $code after $ms ms; $(cat "$TMP/stall.out")" test "$code" = 200 -a "$ms" -lt 1500
wait "$STALL" 2>/dev/null

# ---- a real Prometheus server -------------------------------------------------------------
if [ "$HAVE_PROMETHEUS" -eq 1 ]; then
	start_prometheus "$RULES" "$E_PORT"
	# pq EXPR: the first result's value (or a label with PQ_LABEL=name), "" if none
	pq() {
		curl -s --max-time 5 "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
			python3 -c '
import json, os, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
except Exception:
    sys.exit(0)
if r:
    l = os.environ.get("PQ_LABEL")
    print(r[0]["metric"].get(l, "") if l else r[0]["value"][1])'
	}
	up=
	for ((i = 0; i < 300; i++)); do
		up=$(pq 'up{job="thpctl"}')
		[ "$up" = 1 ] && break
		kill -0 "$PROM" 2>/dev/null || break
		sleep 0.1
	done
	expect_cmd "Prometheus (127.0.0.1:$PPORT) scrapes the exporter: up == 1" \
		"up='${up:-}'; $(tail -c 300 "$TMP/prometheus.log")" test "$up" = 1
	# a counter: the value Prometheus holds lies between vmstat before and after its scrape
	A=$(awk '$1 == "thp_fault_alloc" {print $2}' /proc/vmstat)
	sleep 2.5 # at least one scrape after A (1 s interval, 1 s exporter cache)
	V=$(pq 'thp_fault_alloc_total{job="thpctl"}')
	B=$(awk '$1 == "thp_fault_alloc" {print $2}' /proc/vmstat)
	expect_cmd "Prometheus' thp_fault_alloc_total is /proc/vmstat's ($A <= ${V:-none} <= $B)" "" \
		test -n "$V" -a "${V:-0}" -ge "$A" -a "${V:-0}" -le "$B"
	want=$(cat "$THP/hpage_pmd_size" 2>/dev/null)
	V=$(pq 'thp_hpage_pmd_size_bytes{job="thpctl"}')
	expect_cmd "Prometheus' thp_hpage_pmd_size_bytes equals sysfs ($want)" "got '${V:-}'" test "${V:-x}" = "$want"
	# a setting as an info metric (another test may flip it: compare when sysfs held still)
	for ((i = 0; i < 3; i++)); do
		s1=$(sysfs_choice "$THP/enabled")
		sleep 2.2
		V=$(PQ_LABEL=value pq 'thp_setting_info{job="thpctl",knob="enabled"}')
		s2=$(sysfs_choice "$THP/enabled")
		[ "$s1" = "$s2" ] && break
	done
	expect_cmd "Prometheus' thp_setting_info{knob=\"enabled\"} has value=\"$s2\" like sysfs" "got '${V:-}'" \
		test "${V:-x}" = "$s2"
	want=$(cat "$THP/khugepaged/max_ptes_none" 2>/dev/null)
	V=$(pq 'thp_khugepaged_max_ptes_none{job="thpctl"}')
	expect_cmd "Prometheus' thp_khugepaged_max_ptes_none equals sysfs ($want)" "got '${V:-}'" test "${V:-x}" = "$want"
	if [ -n "$HP" ] && [ "$ROOT" -eq 1 ]; then
		want=$(hp_ahp_bytes)
		V=$(pq "thp_process_anon_huge_pages_bytes{job=\"thpctl\",pid=\"$HP\"}")
		expect_cmd "Prometheus' AnonHugePages of the helper equals its smaps_rollup ($want)" "got '${V:-}'" \
			test "${V:-x}" = "$want"
	fi
	# the rules file loads and evaluates in the real server
	n=$(curl -s "http://127.0.0.1:$PPORT/api/v1/rules" | python3 -c '
import json, sys
g = json.load(sys.stdin)["data"]["groups"]
rules = [r for x in g for r in x["rules"]]
print(len(rules), sum(r.get("health") == "ok" for r in rules))')
	expect_cmd "Prometheus loaded the rules file, every rule healthy ($n)" "" \
		bash -c "read a b <<<'$n'; test \"\$a\" -ge 10 -a \"\$a\" = \"\$b\""
	V=$(pq 'count(thp:compact_stall:rate5m)')
	expect_cmd "recording rule thp:compact_stall:rate5m has a series" "got '${V:-}'" test "${V:-0}" = 1
	V=$(pq 'scrape_samples_scraped{job="thpctl"}')
	expect_cmd "Prometheus ingested every sample of a scrape (${V:-0} samples)" "got '${V:-}'" \
		test "${V:-0}" -ge 200
	stop_pid "$PROM"
else
	skip "a real Prometheus server" "/usr/bin/prometheus not installed (Debian package prometheus: scripts/install-deps --test)"
fi

# ---- load: wrk ---------------------------------------------------------------------------------
# Under ASan (5 s): no errors, no sanitizer report with 8 concurrent clients.
# Then WRK_SECONDS against the release build for flat RSS: ASan's quarantine
# keeps freed memory (up to 256 MiB) by design, so its RSS says nothing.
REL=${THPCTL_REL:-build/thpctl}
if [ "$HAVE_WRK" -eq 1 ]; then
	wrk -t2 -c8 -d5s "http://127.0.0.1:$E_PORT/metrics" >"$TMP/wrk-asan.out" 2>&1
	reqs=$(awk '/requests in/ {print $1}' "$TMP/wrk-asan.out")
	expect_cmd "wrk -t2 -c8 -d5s against the ASan build: ${reqs:-0} requests, no non-2xx, no socket errors" \
		"$(tr '\n' ' ' <"$TMP/wrk-asan.out" | cut -c1-400)" \
		bash -c "test '${reqs:-0}' -gt 100 && ! grep -qE 'Non-2xx|Socket errors' '$TMP/wrk-asan.out'"
	if [ -x "$REL" ] && T="$REL" start_exporter R; then
		url="http://127.0.0.1:$R_PORT/metrics"
		wrk -t2 -c8 -d2s "$url" >/dev/null 2>&1 # warm up
		rss0=$(awk '/^VmRSS:/ {print $2}' "/proc/$R_PID/status")
		wrk -t2 -c8 -d"${WRK_SECONDS}s" "$url" >"$TMP/wrk.out" 2>&1
		rss1=$(awk '/^VmRSS:/ {print $2}' "/proc/$R_PID/status")
		reqs=$(awk '/requests in/ {print $1}' "$TMP/wrk.out")
		expect_cmd "wrk -t2 -c8 -d${WRK_SECONDS}s ($REL): ${reqs:-0} requests served" \
			"$(tr '\n' ' ' <"$TMP/wrk.out" | cut -c1-400)" test "${reqs:-0}" -gt 1000
		expect_cmd "wrk: no non-2xx responses, no socket errors" \
			"$(grep -E 'Non-2xx|Socket errors' "$TMP/wrk.out" | tr '\n' ' ')" \
			bash -c "! grep -qE 'Non-2xx|Socket errors' '$TMP/wrk.out'"
		# flat: within 512 kB or 5 %
		expect_cmd "exporter RSS flat under load (VmRSS ${rss0:-?} kB -> ${rss1:-?} kB)" "grew" \
			python3 -c "import sys; a, b = int(sys.argv[1]), int(sys.argv[2]); sys.exit(b - a > max(512, a // 20))" \
			"${rss0:-0}" "${rss1:-999999999}"
		expect_cmd "exporter RSS under 8 MiB after the load (${rss1:-?} kB)" "" test "${rss1:-999999}" -le 8192
		stop_pid "$R_PID"
		expect_cmd "release exporter exits 0 on SIGTERM after the load" "exit $STOP_RC" test "$STOP_RC" -eq 0
	else
		nok "release exporter for the load test" "$REL missing or did not start"
	fi
	code=$(http "$E_PORT" /metrics)
	expect_cmd "still serving after the load (200)" "got $code" test "$code" = 200
else
	skip "wrk load test" "wrk not installed (scripts/install-deps --test)"
fi

stop_pid "$E_PID"
expect_cmd "exporter exits 0 on SIGTERM" "exit $STOP_RC; $(tail -c 300 "$TMP/exporter.E.err")" test "$STOP_RC" -eq 0
if start_exporter I; then
	curl -s -o /dev/null "http://127.0.0.1:$I_PORT/metrics"
	kill -INT "$I_PID"
	wait "$I_PID"
	rc=$?
	expect_cmd "exporter exits 0 on SIGINT" "exit $rc" test "$rc" -eq 0
fi

# as nobody over HTTP
if [ "$ROOT" -eq 1 ]; then
	if RUN_AS=nobody start_exporter N --cache-ms 0; then
		code=$(http "$N_PORT" /metrics)
		expect_cmd "exporter as nobody serves /metrics (200)" "got $code" test "$code" = 200
		got=$(metric "$TMP/body" thpctl_processes_unreadable)
		expect_cmd "as nobody over HTTP: thpctl_processes_unreadable present (${got:-})" "absent" test -n "$got"
		# three more scrapes, each a collection (--cache-ms 0): the unreadable ones said once
		for _ in 1 2 3; do
			http "$N_PORT" /metrics >/dev/null
			sleep 0.2
		done
		n=$(grep -c 'could not be read' "$TMP/exporter.N.err")
		expect_cmd "as nobody over HTTP, 4 scrapes: one line on the unreadable processes, not one per scrape" \
			"$n lines: $(head -c 400 "$TMP/exporter.N.err")" \
			bash -c "[ $n = 1 ] && grep -q 'to include them (said once)$' '$TMP/exporter.N.err'"
		stop_pid "$N_PID"
		expect_cmd "exporter as nobody exits 0 on SIGTERM" "exit $STOP_RC" test "$STOP_RC" -eq 0
	else
		nok "exporter as nobody listens" "$(head -c 300 "$TMP/exporter.N.err")"
	fi
fi

# the port is in use: a runtime failure (1), not a usage error
if start_exporter P; then
	"$T" exporter --listen "127.0.0.1:$P_PORT" >/dev/null 2>"$TMP/inuse.err"
	rc=$?
	expect_cmd "a port in use: exit 1 with a message" "exit $rc: $(head -c 200 "$TMP/inuse.err")" \
		bash -c "test $rc -eq 1 && grep -q 'cannot listen' '$TMP/inuse.err'"
	stop_pid "$P_PID"
fi

summary
