#!/usr/bin/env bash
# The cost of `thpctl trace stalls` to the traced tasks and to the host.
#
# Workload (build/tests/trace_workload SIZE_MB CALLS): MADV_COLLAPSE, CALLS
# times, over SIZE_MB that is already PMD-mapped; every call fires
# huge_memory:mm_khugepaged_scan_pmd once per PMD and copies nothing, so the
# loop is about as tracepoint-dense as THP work gets. It runs RUNS times
# untraced, then RUNS times while `thpctl trace stalls` traces every task.
# The difference of the medians per event is what one recorded event costs
# the task that fires it; thpctl's own figures (its trace_marker calibration,
# its CPU per event, events lost) come from its JSON.
#
# Prints and records figures (bench/lib.sh: bench_record), never pass/fail
# (ARCHITECTURE.md: bench/). Root only.
#
#   RUNS=N SIZE_MB=N CALLS=N   (default 10, 512, 200)
#   THPCTL=path                binary to measure (default build/thpctl)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
W=build/tests/trace_workload
RUNS=${RUNS:-10}
SIZE_MB=${SIZE_MB:-512}
CALLS=${CALLS:-200}

bench_need "$T" "$W"
[ "$(id -u)" -eq 0 ] || { echo "bench: trace stalls needs root" >&2; exit 1; }

TP=
# shellcheck disable=SC2317 # runs from the EXIT trap (bench_cleanup)
bench_on_exit() {
	[ -n "$TP" ] && kill -INT "$TP" 2>/dev/null && wait "$TP" 2>/dev/null
}
bench_init bench

# runs FILE: RUNS workload runs, "events N ns T" lines into FILE
runs() {
	local i
	: >"$1"
	for ((i = 0; i < RUNS; i++)); do
		"$W" "$SIZE_MB" "$CALLS" >>"$1" || { echo "bench: $W failed" >&2; exit 1; }
	done
}

"$W" "$SIZE_MB" 1 >/dev/null || exit 1 # warm-up; fails early without MADV_COLLAPSE
runs "$TMP/untraced"
"$T" trace stalls --duration 0 --json >"$TMP/trace.json" 2>"$TMP/trace.err" &
TP=$!
sleep 1.5 # set up: instance, calibration, events enabled
runs "$TMP/traced"
kill -INT "$TP"
wait "$TP"
rc=$?
TP=
[ "$rc" -eq 0 ] || { echo "bench: trace stalls exited $rc: $(cat "$TMP/trace.err")" >&2; exit 1; }

python3 - "$TMP/untraced" "$TMP/traced" "$TMP/trace.json" "$SIZE_MB" "$CALLS" "$RUNS" >"$TMP/res.txt" <<'PY'
import json, statistics, sys

def load(p):
    rows = [l.split() for l in open(p)]
    return int(rows[0][1]), statistics.median(int(r[3]) for r in rows)

ev, base = load(sys.argv[1])
_, traced = load(sys.argv[2])
d = json.load(open(sys.argv[3]))
size, calls, runs = sys.argv[4:7]
oh = d["overhead"]
added = (traced - base) / ev
print(f"workload: MADV_COLLAPSE x {calls} over {size} MiB already PMD-mapped = {ev} "
      f"mm_khugepaged_scan_pmd events per run, {runs} runs each way")
print(f"  untraced  median {base / 1e6:8.2f} ms  {base / ev:7.0f} ns per event")
print(f"  traced    median {traced / 1e6:8.2f} ms  {traced / ev:7.0f} ns per event "
      f"({traced / base:.1f}x)")
print(f"  => recording one event costs the traced task ~{added:.0f} ns "
      f"(thpctl's trace_marker calibration in the same run: {oh['record_ns_per_event']:.0f} ns)")
print(f"  reader (thpctl): {oh['reader_cpu_ms']:.0f} ms CPU for {oh['events']} events = "
      f"{oh['reader_us_per_event']:.2f} us per event; {d['lost_events']} events lost "
      f"(ring buffer full: {ev * 1e9 / traced / 1e6:.1f} M events/s here)")
print(f"  for scale: a stall is 2 events (begin + end), ~{2 * added / 1000:.1f} us of tracing, "
      f"against stalls of tens of us to ms")
print(f"REC {added:.1f} {oh['reader_us_per_event']:.3f} {d['lost_events']}")
PY
grep -v '^REC ' "$TMP/res.txt"
read -r _ ns rus lost < <(grep '^REC ' "$TMP/res.txt")
bench_record trace-event-cost "$ns" ns \
	title="\`trace stalls\`: what recording one event costs the traced task (MADV_COLLAPSE loop)" \
	note="the reader (thpctl) spent $rus us of CPU per event; $lost events lost"
