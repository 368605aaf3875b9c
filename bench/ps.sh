#!/usr/bin/env bash
# Benchmark `thpctl ps` against the cost of merely reading the same files.
#
#   thpctl ps --all            vs  cat /proc/[0-9]*/smaps /proc/[0-9]*/status
#   thpctl ps --all --rollup   vs  cat /proc/[0-9]*/smaps_rollup /proc/[0-9]*/status
#   thpctl ps --all --ledger   vs  thpctl ps --all (target 1.5x: the ledger's
#                              PAGEMAP_SCAN, /proc/PID/mem samples and held walk)
#
# Each pair runs in ONE hyperfine invocation so the numbers sit side by side;
# the script prints mean(thpctl)/mean(cat) against the 1.3x target, and
# thpctl's peak RSS against the 4 MiB target. It prints figures, never
# pass/fail exit codes for timing (ARCHITECTURE.md: bench/).
#
# Before measuring it starts helpers so there is real smaps to read: two
# 256 MiB MADV_HUGEPAGE regions and one process with many small VMAs.
#
#   RUNS=N WARMUP=N   hyperfine settings (default 30 and 3)
#   THPCTL=path       binary to measure (default build/thpctl)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
H=build/tests/thp_helper
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}
NVMAS=${NVMAS:-20000}
RATIO_TARGET=1.3
RSS_TARGET_KB=4096

bench_need "$T" "$H" build/tests/ledger_helper
bench_need_cmd hyperfine
bench_init bench

start_helper() {
	local out="$TMP/helper.${#PIDS[@]}"
	bench_start "$out" 600 "$H" "$@" || { echo "bench: helper '$*' did not start: $(cat "$out")" >&2; exit 1; }
}
start_helper hugepage 256
start_helper hugepage 256
start_helper many-vmas "$NVMAS"
H=build/tests/ledger_helper start_helper sparse 256 # ledger: THPs to sample

nproc_now=$(find /proc -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
echo "thpctl ps benchmark: $(uname -r), $(hyperfine --version), $nproc_now processes in /proc"
echo "helpers: 2 x 256 MiB MADV_HUGEPAGE (pids ${PIDS[0]} ${PIDS[1]}), 1 x $NVMAS VMAs (pid ${PIDS[2]})"
echo "binary: $T; each pair in one hyperfine run, --warmup $WARMUP --runs $RUNS"
echo

# Both commands run through bash (the cat side needs its glob expanded at run
# time, as processes come and go); hyperfine subtracts the shell's start-up.
# Errors from unreadable files (e.g. PID 1 in a container) are ignored by both.
compare() {
	local label=$1 cmd_t=$2 cmd_c=$3 catname=$4 json="$TMP/bench.$RANDOM.json"
	hyperfine --warmup "$WARMUP" --runs "$RUNS" --shell=bash --style basic \
		--export-json "$json" -n "thpctl $label" "$cmd_t" -n "$catname" "$cmd_c" || {
		echo "bench: hyperfine failed for $label" >&2
		return 1
	}
	python3 - "$json" "$label" "$RATIO_TARGET" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
t, c = r[0], r[1]
ratio = t["mean"] / c["mean"]
target = float(sys.argv[3])
print(f"RESULT thpctl {sys.argv[2]}: thpctl {t['mean']*1e3:.2f} ms ± {t['stddev']*1e3:.2f}, "
      f"{c['command']} {c['mean']*1e3:.2f} ms ± {c['stddev']*1e3:.2f}, "
      f"ratio {ratio:.2f}x (target <= {target}x: {'met' if ratio <= target else 'NOT met'})")
PY
	echo
}

compare "ps --all" \
	"$T ps --all >/dev/null 2>&1" \
	"cat /proc/[0-9]*/smaps /proc/[0-9]*/status >/dev/null 2>&1; :" \
	"cat smaps + status"
compare "ps --all --rollup" \
	"$T ps --all --rollup >/dev/null 2>&1" \
	"cat /proc/[0-9]*/smaps_rollup /proc/[0-9]*/status >/dev/null 2>&1; :" \
	"cat smaps_rollup + status"
RATIO_TARGET=1.5
compare "ps --all --ledger" \
	"$T ps --all --ledger >/dev/null 2>&1" \
	"$T ps --all >/dev/null 2>&1" \
	"ps --all"

# Peak RSS (max resident set of the thpctl process itself). GNU time when
# installed; otherwise thp_helper's wait4() wrapper (not python: ru_maxrss
# survives exec, so a python parent's own RSS would be reported).
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
	how="GNU time %M"
	peak_kb() {
		/usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null 2>&1
		tail -n1 "$TMP/rss"
	}
else
	how="wait4() ru_maxrss via thp_helper maxrss"
	peak_kb() { "$H" maxrss "$@" | awk '{print $2}'; }
fi
echo "peak RSS ($how), target <= $((RSS_TARGET_KB / 1024)) MiB for ps and status:"
for args in "ps --all" "ps --all --rollup" "ps --all --json" "status" "status --json" "maps ${PIDS[0]}" "maps ${PIDS[2]}"; do
	# shellcheck disable=SC2086
	kb=$(peak_kb "$T" $args)
	case $args in
	maps*) verdict="info: maps keeps every VMA; $(wc -l <"/proc/${args#maps }/maps") VMAs" ;;
	*) if [ "$kb" -le "$RSS_TARGET_KB" ]; then verdict="met"; else verdict="NOT met"; fi ;;
	esac
	printf 'RESULT peak RSS thpctl %-18s %6s kB (%s)\n' "$args" "$kb" "$verdict"
done
