#!/usr/bin/env bash
# Benchmark `thpctl maps PID` on a process of many VMAs against `cat /proc/PID/smaps`
# (the floor: the kernel's own cost of the file maps reads), run in turn (build/bench/cputime):
# wall and CPU time, the ratio (target <= 1.5x) with its interval, and the peak RSS of
# maps. thp_helper many-vmas N maps N one-page VMAs that do not merge, every page
# touched, so smaps is N entries and the ledger (held: pagemap + kpageflags) has N pages
# to look at. Prints and records the figures (bench/lib.sh: bench_record); never a
# pass/fail exit status for timing (ARCHITECTURE.md: bench/).
#
#   VMAS=N        VMAs of the helper (default 10000)
#   RUNS=N WARMUP=N   rounds and warm-up rounds (default 30, 3)
#   THPCTL=path   binary to measure (default build/thpctl)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
H=build/tests/thp_helper
VMAS=${VMAS:-10000}
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}
TARGET=1.5

C=build/bench/cputime
bench_need "$T" "$H" "$C"
bench_need_cmd python3
bench_init bench-maps

bench_start "$TMP/helper" 600 "$H" many-vmas "$VMAS" ||
	{ echo "bench: many-vmas $VMAS did not start: $(cat "$TMP/helper")" >&2; exit 1; }
P=${PIDS[-1]}
n=$(wc -l <"/proc/$P/maps")
echo "thpctl maps benchmark: $(uname -r), $(nproc) CPUs, $T"
echo "process: thp_helper many-vmas $VMAS (pid $P): $n VMAs, smaps $(wc -c <"/proc/$P/smaps") bytes"
echo "at start: $(bench_load)"
bench_mark
# thpctl maps, cat smaps and maps --json in turn, RUNS rounds (build/bench/cputime): the ratio is
# the median of the rounds' and its 95% interval decides the goal (bench/paired.py)
"$C" "$RUNS" "$WARMUP" "$T maps $P" "cat /proc/$P/smaps" "$T maps $P --json" >"$TMP/ct.txt" ||
	{ echo "bench: cputime failed" >&2; exit 1; }
echo "after the timings: $(bench_load)"
res=$(python3 bench/paired.py "$TMP/ct.txt" "maps PID of $n VMAs / cat smaps" "$TARGET" "maps --json") ||
	exit 1
grep -v '^REC ' <<<"$res"
read -r _ v f r met note < <(grep '^REC ' <<<"$res")
bench_record "maps-vmas-$VMAS" "$v" ms title="\`maps PID\`, a process of $n VMAs" \
	floor="cat /proc/PID/smaps" floor_value="$f" ratio="$r" goal="<= ${TARGET}x" met="$met" \
	note="$note; above the floor: parsing smaps, the ledger (PAGEMAP_SCAN of VMAs holding a whole PMD block; the pagemap + kpageflags walk only when the host's counters show a partially mapped folio or an mTHP), and the table"
kb=$(bench_peak_kb "$T" maps "$P")
echo "RESULT peak RSS: thpctl maps of $n VMAs: $kb kB"
bench_record "maps-vmas-$VMAS-rss" "$kb" kB title="peak RSS of \`maps PID\`, $n VMAs" \
	note="maps keeps every VMA (64 bytes each) and makes the table's rows one at a time; $BENCH_PEAK_HOW"
