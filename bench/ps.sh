#!/usr/bin/env bash
# Benchmark `thpctl ps` against the cost of merely reading the same files.
#
#   thpctl ps --all            vs  build/bench/proc_floor smaps (the C floor: readdir
#                                  /proc, read smaps + status into one reused buffer)
#                                  and cat /proc/[0-9]*/smaps /proc/[0-9]*/status
#   thpctl ps --all --rollup   vs  proc_floor rollup, cat of smaps_rollup + status
#   thpctl ps --all --ledger   vs  thpctl ps --all (target 1.25x: the ledger's
#                              PAGEMAP_SCAN, /proc/PID/mem samples and held walk)
#   thpctl ps --all (--rollup) vs  proc_floor smaps (rollup) at 50, 500 and 2000
#                              processes and with one process of 60 000 VMAs (FLOOR_RUNS)
#
# Each comparison runs in ONE hyperfine invocation so the numbers sit side by
# side; the script prints mean(thpctl)/mean(floor) against the target (1.1x
# for ps --all, 1.2x for --rollup) and thpctl's peak RSS against the 4 MiB
# target. The process-count runs also take each command's CPU time (user +
# system from wait4(), build/bench/cputime, the commands in turn): on a loaded
# machine the wall clock measures the run queue as much as the command, so
# both ratios are printed, with the load. Where a target is not met, a "why"
# line splits what thpctl costs above the floor into its start-up (thpctl
# --version against proc_floor none: exec, dynamic loading) and the rest per
# process. It prints figures, never pass/fail exit codes for timing
# (ARCHITECTURE.md: bench/).
#
# Before measuring it starts helpers so there is real smaps to read: two
# 256 MiB MADV_HUGEPAGE regions and one process with many small VMAs. The
# process-count runs are made in a private PID namespace (unshare --pid
# --mount-proc, as root) holding only `sleep`s started to reach the count, so
# the count is exact whatever else runs on the host; without root they run in
# the host's namespace, sleeps added up to the count.
#
#   RUNS=N WARMUP=N   hyperfine settings (default 30 and 3); cputime runs RUNS too
#   THPCTL=path       binary to measure (default build/thpctl)
#   FLOOR_RUNS="P:V ..."  process-count runs: P processes, one of them with V
#                     VMAs when V > 0 (default "50:0 500:0 2000:0 10:60000";
#                     empty: none)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
H=build/tests/thp_helper
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}
NVMAS=${NVMAS:-20000}
F=build/bench/proc_floor
C=build/bench/cputime
RATIO_TARGET=1.1
ROLLUP_TARGET=1.2
LEDGER_TARGET=1.25
RSS_TARGET_KB=4096
FLOOR_RUNS=${FLOOR_RUNS-"50:0 500:0 2000:0 10:60000"}

bench_need "$T" "$H" build/tests/ledger_helper "$F" "$C"
bench_need_cmd hyperfine

# hyperfine JSON -> one RESULT line: the first command against each of the others
# (ratio of means; the first of the others is the reference for the target)
result() {
	python3 - "$@" <<'PY'
import json, sys
path, label, target = sys.argv[1], sys.argv[2], float(sys.argv[3])
r = json.load(open(path))["results"]
t = r[0]
parts = [f"thpctl {t['mean']*1e3:.2f} ms ± {t['stddev']*1e3:.2f}"]
for i, c in enumerate(r[1:]):
    ratio = t["mean"] / c["mean"]
    s = f"{c['command']} {c['mean']*1e3:.2f} ms ± {c['stddev']*1e3:.2f}, ratio {ratio:.2f}x"
    if i == 0:
        s += f" (target <= {target}x: {'met' if ratio <= target else 'NOT met'})"
    parts.append(s)
print(f"RESULT thpctl {label}: " + "; ".join(parts))
PY
}

# Inner run of one FLOOR_RUNS entry (BENCH_FLOOR=P:V), in the namespace it was started in.
floor_inner() {
	local want=${BENCH_FLOOR%%:*} vmas=${BENCH_FLOOR#*:} now need i json
	bench_init bench-floor
	if [ "$vmas" -gt 0 ]; then
		local out="$TMP/vmas.out"
		bench_start "$out" 600 "$H" many-vmas "$vmas" ||
			{ echo "bench: many-vmas $vmas did not start: $(cat "$out")" >&2; exit 1; }
	fi
	now=$(find /proc -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
	need=$((want - now - 2)) # hyperfine and the command it measures are the last two
	for ((i = 0; i < need; i++)); do
		sleep 3600 &
		PIDS+=("$!")
	done
	now=$(find /proc -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
	json="$TMP/floor.json"
	local what="$((now + 2)) processes"
	[ "$vmas" -gt 0 ] && what+=" (one of $(wc -l <"/proc/${PIDS[0]}/maps") VMAs)"
	echo "$what in $NSNOTE, at start: $(bench_load)"
	hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style none --export-json "$json" \
		"$T ps --all" "$F smaps" "$T ps --all --rollup" "$F rollup" >/dev/null 2>&1 ||
		{ echo "bench: hyperfine failed" >&2; exit 1; }
	"$C" "$RUNS" "$WARMUP" "$T ps --all" "$F smaps" "$T ps --all --rollup" "$F rollup" \
		"$T --version" "$F none" >"$TMP/cpu" || { echo "bench: cputime failed" >&2; exit 1; }
	floor_result "$json" "$TMP/cpu" "$((now + 2))" "ps --all, $what" "$RATIO_TARGET" 0
	floor_result "$json" "$TMP/cpu" "$((now + 2))" "ps --all --rollup, $what" "$ROLLUP_TARGET" 2
	echo "  at end: $(bench_load)"
}

# floor_result JSON CPU NPROCS LABEL TARGET I: thpctl (command I of JSON and CPU) against
# the floor (I+1), wall and CPU ratios; when the wall target is not met, why (start-up
# from cputime's last two lines, the rest per process).
floor_result() {
	python3 - "$@" <<'PY'
import json, sys
path, cpupath, nproc, label, target, i = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), int(sys.argv[6])
r = json.load(open(path))["results"]
cpu = [l.split() for l in open(cpupath)]  # cpu MEDIAN MIN wall MEDIAN CMD...
t, f = r[i], r[i + 1]
ratio = t["mean"] / f["mean"]
ct, cf = float(cpu[i][1]), float(cpu[i + 1][1])
start_t, start_f = float(cpu[-2][1]), float(cpu[-1][1])
met = ratio <= target
print(f"RESULT thpctl {label}: thpctl {t['mean']*1e3:.2f} ms ± {t['stddev']*1e3:.2f}, floor "
      f"{f['mean']*1e3:.2f} ms ± {f['stddev']*1e3:.2f}, ratio {ratio:.2f}x (target <= {target}x: "
      f"{'met' if met else 'NOT met'}); CPU (median user+sys) {ct:.2f} vs {cf:.2f} ms, {ct / cf:.2f}x")
if not met:
    extra = ct - cf
    start = start_t - start_f
    rest = extra - start
    print(f"  why: thpctl's CPU above the floor is {extra:.2f} ms: {start:.2f} ms its start-up "
          f"(thpctl --version {start_t:.2f} ms vs proc_floor none {start_f:.2f} ms: exec of a larger "
          f"binary, libjansson/libz/libm, not the files), {rest:.2f} ms the rest, {rest * 1000 / max(nproc, 1):.1f} us "
          f"per process (parsing status and smaps, one proc/PID handle per process so that a "
          f"reused pid is never mixed in); without the start-up the CPU ratio is "
          f"{(ct - start) / cf:.2f}x; a wall ratio above the CPU ratio is the run queue (load)")
PY
}
if [ -n "${BENCH_FLOOR:-}" ]; then
	NSNOTE=${NSNOTE:-"the host's PID namespace"}
	floor_inner
	exit 0
fi

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
echo "binary: $T; each comparison in one hyperfine run, --warmup $WARMUP --runs $RUNS"
echo "at start: $(bench_load)"
echo

# Every command runs through bash (the cat side needs its glob expanded at run
# time, as processes come and go); hyperfine subtracts the shell's start-up.
# Errors from unreadable files (e.g. PID 1 in a container) are ignored by all.
# compare LABEL TARGET CMD NAME [CMD NAME]...: the first is thpctl.
compare() {
	local label=$1 target=$2 json="$TMP/bench.$RANDOM.json" args=()
	shift 2
	while [ $# -ge 2 ]; do
		args+=(-n "$2" "$1")
		shift 2
	done
	hyperfine --warmup "$WARMUP" --runs "$RUNS" --shell=bash --style basic \
		--export-json "$json" "${args[@]}" || {
		echo "bench: hyperfine failed for $label" >&2
		return 1
	}
	result "$json" "$label" "$target"
	echo
}

compare "ps --all" "$RATIO_TARGET" \
	"$T ps --all >/dev/null 2>&1" "thpctl ps --all" \
	"$F smaps" "C floor smaps + status" \
	"cat /proc/[0-9]*/smaps /proc/[0-9]*/status >/dev/null 2>&1; :" "cat smaps + status"
compare "ps --all --rollup" "$ROLLUP_TARGET" \
	"$T ps --all --rollup >/dev/null 2>&1" "thpctl ps --all --rollup" \
	"$F rollup" "C floor smaps_rollup + status" \
	"cat /proc/[0-9]*/smaps_rollup /proc/[0-9]*/status >/dev/null 2>&1; :" "cat smaps_rollup + status"
compare "ps --all --ledger" "$LEDGER_TARGET" \
	"$T ps --all --ledger >/dev/null 2>&1" "thpctl ps --all --ledger" \
	"$T ps --all >/dev/null 2>&1" "ps --all"

# ps against the C floor by process count, each in a PID namespace of its own
if [ -n "$FLOOR_RUNS" ]; then
	echo "ps --all and ps --all --rollup vs the C floor (hyperfine -N, no shell; CPU from cputime), by process count:"
	for run in $FLOOR_RUNS; do
		if [ "$(id -u)" -eq 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
			BENCH_FLOOR=$run NSNOTE="a private PID namespace" \
				unshare --pid --fork --mount-proc "$0"
		else
			BENCH_FLOOR=$run "$0"
		fi
	done
	echo
fi

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
echo "peak RSS ($how), target <= $((RSS_TARGET_KB / 1024)) MiB for every command but maps:"
for args in "ps --all" "ps --all --rollup" "ps --all --json" "status" "status --json" "why ${PIDS[0]}" "advise" \
	"maps ${PIDS[0]}" "maps ${PIDS[2]}"; do
	# shellcheck disable=SC2086
	kb=$(peak_kb "$T" $args)
	case $args in
	maps*) verdict="info: maps keeps every VMA; $(wc -l <"/proc/${args#maps }/maps") VMAs" ;;
	*) if [ "${kb:-0}" -gt 0 ] && [ "$kb" -le "$RSS_TARGET_KB" ]; then verdict="met"; else verdict="NOT met"; fi ;;
	esac
	printf 'RESULT peak RSS thpctl %-18s %6s kB (%s)\n' "$args" "$kb" "$verdict"
done
echo "at end: $(bench_load)"
