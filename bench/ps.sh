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
# Each comparison runs thpctl and its floor in turn, round after round (build/bench/cputime,
# no shell): a burst of load or the guest's drift falls on both alike. The ratio is the median
# of the rounds' ratios with its 95% interval, and the goal met, not met or inconclusive by
# that interval (bench/paired.py); cat's ratio to the floor is shown beside. The script prints
# those and thpctl's peak RSS against the 4 MiB target, and records each comparison
# (bench/lib.sh: bench_record; the table in docs/benchmarks.md is made from the records). It prints
# figures, never pass/fail exit codes for timing (ARCHITECTURE.md: bench/).
#
# Before measuring it starts helpers so there is real smaps to read: two
# 256 MiB MADV_HUGEPAGE regions and one process with many small VMAs. The
# process-count runs are made in a private PID namespace (unshare --pid
# --mount-proc, as root) holding only `sleep`s started to reach the count, so
# the count is exact whatever else runs on the host; without root they run in
# the host's namespace, sleeps added up to the count.
#
#   RUNS=N WARMUP=N   rounds and warm-up rounds (default 30 and 3)
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

# paired RECORD TITLE TARGET CMD FLOOR [FLOOR_NAME [CMD NAME]...]: CMD and FLOOR (and the
# others, shown as ratios to FLOOR) run in turn, RUNS rounds (build/bench/cputime, no shell), the
# ratio the median of the rounds' with its 95% interval, the goal met, not met or inconclusive
# by that interval (bench/paired.py). FLOOR_NAME: what the record calls FLOOR (default
# "proc_floor ARG").
paired() {
	local rec=$1 title=$2 target=$3 cmd=$4 floor=$5 fname=${6:-"$F ${5#* }"} out="$TMP/paired.$RANDOM"
	local cmds=("$cmd" "$floor") names=() res v f r met note
	shift $(($# < 6 ? $# : 6))
	while [ $# -ge 2 ]; do
		cmds+=("$1")
		names+=("$2")
		shift 2
	done
	bench_mark
	"$C" "$RUNS" "$WARMUP" "${cmds[@]}" >"$out" || { echo "bench: cputime failed for $title" >&2; exit 1; }
	res=$(python3 bench/paired.py "$out" "$title" "$target" "${names[@]}") || exit 1
	grep -v '^REC ' <<<"$res"
	read -r _ v f r met note < <(grep '^REC ' <<<"$res")
	bench_record "$rec" "$v" ms title="$title" floor="$fname" floor_value="$f" ratio="$r" \
		goal="<= ${target}x" met="$met" note="$note"
}

# Inner run of one FLOOR_RUNS entry (BENCH_FLOOR=P:V), in the namespace it was started in.
floor_inner() {
	local want=${BENCH_FLOOR%%:*} vmas=${BENCH_FLOOR#*:} now need i
	bench_init bench-floor
	if [ "$vmas" -gt 0 ]; then
		local out="$TMP/vmas.out"
		bench_start "$out" 600 "$H" many-vmas "$vmas" ||
			{ echo "bench: many-vmas $vmas did not start: $(cat "$out")" >&2; exit 1; }
	fi
	now=$(find /proc -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
	need=$((want - now - 2)) # cputime and the command it measures are the last two
	for ((i = 0; i < need; i++)); do
		sleep 3600 &
		PIDS+=("$!")
	done
	now=$(find /proc -mindepth 1 -maxdepth 1 -name '[0-9]*' | wc -l)
	local what="$((now + 2)) processes" name="ps-all-floor-$want"
	export NPROCS=$((now + 2))
	[ "$vmas" -gt 0 ] && what+=" (one of $(wc -l <"/proc/${PIDS[0]}/maps") VMAs)" name="ps-all-floor-vmas-$vmas"
	if [ "$vmas" -gt 0 ]; then
		paired "$name" "\`ps --all\`, $what in $NSNOTE" "$RATIO_TARGET" "$T ps --all" "$F smaps"
		return
	fi
	# the split of the gap, in the same rounds (bench/paired.py): start-up (--version vs the
	# floor's none), thpctl's fixed work (ps --pid 1, one process), the rest a process
	paired "$name" "\`ps --all\`, $what in $NSNOTE" "$RATIO_TARGET" "$T ps --all" "$F smaps" "" \
		"$T --version" version "$F none" none "$T ps --pid 1" one
	paired "ps-rollup-floor-$want" "\`ps --all --rollup\`, $what in $NSNOTE" "$ROLLUP_TARGET" \
		"$T ps --all --rollup" "$F rollup" "" \
		"$T --version" version "$F none" none "$T ps --pid 1 --rollup" one
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
echo "binary: $T; each comparison $RUNS rounds run in turn after $WARMUP warm-up rounds"
echo "at start: $(bench_load)"
echo

# The host's own processes: thpctl, its C floor and cat of the same files (a script, its glob
# expanded at run time as processes come and go; cat's errors on unreadable files ignored, as
# thpctl and the floor skip them) in turn (paired).
printf 'cat /proc/[0-9]*/smaps /proc/[0-9]*/status >/dev/null 2>&1\nexit 0\n' >"$TMP/cat-smaps.sh"
printf 'cat /proc/[0-9]*/smaps_rollup /proc/[0-9]*/status >/dev/null 2>&1\nexit 0\n' >"$TMP/cat-rollup.sh"
HOSTWHAT="on the host ($nproc_now processes, one of $NVMAS VMAs)"
paired ps-all-host "\`ps --all\` $HOSTWHAT" "$RATIO_TARGET" "$T ps --all" "$F smaps" \
	"C floor smaps + status" "bash $TMP/cat-smaps.sh" "cat smaps + status"
echo
paired ps-rollup-host "\`ps --all --rollup\` $HOSTWHAT" "$ROLLUP_TARGET" "$T ps --all --rollup" \
	"$F rollup" "C floor smaps_rollup + status" "bash $TMP/cat-rollup.sh" "cat smaps_rollup + status"
echo
paired ps-ledger-host "\`ps --all --ledger\` $HOSTWHAT" "$LEDGER_TARGET" "$T ps --all --ledger" \
	"$T ps --all" "ps --all"
echo

# thpctl's start-up above the floor's (exec, shared libraries, option parsing): the part of
# every gap below that does not grow with the processes
bench_mark
hyperfine -N --warmup 20 --runs 200 --style none --export-json "$TMP/startup.json" \
	"$T --version" "$F none" >/dev/null 2>&1 || { echo "bench: hyperfine failed (start-up)" >&2; exit 1; }
STARTUP_MS=$(python3 - "$TMP/startup.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"{(r[0]['median'] - r[1]['median']) * 1e3:.3f}")
PY
)
export STARTUP_MS
echo "start-up: thpctl --version $STARTUP_MS ms above proc_floor none (medians, 200 runs)"
echo

# ps against the C floor by process count, each in a PID namespace of its own
if [ -n "$FLOOR_RUNS" ]; then
	echo "ps --all and ps --all --rollup vs the C floor (build/bench/cputime: $RUNS pairs run in turn, no shell), by process count:"
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

# Peak RSS (max resident set of the thpctl process itself): bench/lib.sh bench_peak_kb
echo "peak RSS ($BENCH_PEAK_HOW), target <= $((RSS_TARGET_KB / 1024)) MiB for every command but maps:"
bench_mark
max_kb=0 max_what=
for args in "ps --all" "ps --all --rollup" "ps --all --json" "status" "status --json" "why ${PIDS[0]}" "advise" \
	"maps ${PIDS[0]}" "maps ${PIDS[2]}"; do
	# shellcheck disable=SC2086
	kb=$(bench_peak_kb "$T" $args)
	case $args in
	maps*) verdict="info: maps keeps every VMA; $(wc -l <"/proc/${args#maps }/maps") VMAs" ;;
	*)
		if [ "${kb:-0}" -gt 0 ] && [ "$kb" -le "$RSS_TARGET_KB" ]; then verdict="met"; else verdict="NOT met"; fi
		[ "${kb:-0}" -gt "$max_kb" ] && max_kb=$kb max_what=$args
		;;
	esac
	printf 'RESULT peak RSS thpctl %-18s %6s kB (%s)\n' "$args" "$kb" "$verdict"
done
bench_record peak-rss "$max_kb" kB title="peak RSS, the largest of ps --all (--rollup, --json), status (--json), why, advise" \
	goal="<= $RSS_TARGET_KB kB" note="peak RSS ($BENCH_PEAK_HOW) of each command on this host; the largest was \`$max_what\`"
echo "at end: $(bench_load)"
