#!/usr/bin/env bash
# Benchmark `thpctl lab quick`: its wall time against the 60 s target (2
# cores), and each experiment's own wall_ms from the JSON. Prints the figures
# and records them (bench/lib.sh: bench_record; each experiment's wall time in
# the record's detail). It prints figures,
# never pass/fail exit codes for timing (ARCHITECTURE.md: bench/); it exits
# non-zero only when the run itself fails.
#
# As root, lab quick changes host settings for the mthp experiment
# (journalled and restored by thpctl); without root that part is skipped.
#
#   THPCTL=path   binary to measure (default build/thpctl)
#   RUNS=N        lab quick --runs N (default: lab quick's own; the record's title says N)
#   OUT=dir       where the record goes (default $BENCH_RESULTS, else bench/results: bench_record)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-${BENCH_RESULTS:-bench/results}}
TARGET_S=60

bench_need "$T"
bench_need_cmd python3
bench_init bench-lab

echo "thpctl lab quick benchmark: $(uname -r), $(nproc) CPUs, $(id -un), binary $T"
args=(quick ${RUNS:+--runs "$RUNS"} --yes --json --quiet)
t0=$(date +%s.%N)
"$T" lab "${args[@]}" >"$TMP/quick.json" 2>"$TMP/quick.err"
rc=$?
t1=$(date +%s.%N)
if [ "$rc" -ne 0 ]; then
	echo "bench: thpctl lab quick exited $rc: $(tail -n 3 "$TMP/quick.err")" >&2
	exit 1
fi
dest="$TMP/detail.json"
python3 - "$TMP/quick.json" "$t0" "$t1" "$TARGET_S" "$dest" "$(nproc)" <<'PY'
import json, sys

path, t0, t1, target, dest, ncpu = sys.argv[1:7]
doc = json.load(open(path))
wall = float(t1) - float(t0)
target = float(target)
exps = []
for e in doc["experiments"]:
    v = e["verdict"]
    state = ("skipped" if v["skipped"] else "as expected" if v["expected"]
             else "inconclusive" if v.get("inconclusive") else "UNEXPECTED")
    exps.append({"experiment": e["experiment"], "wall_ms": e["wall_ms"], "verdict": state,
                 "size_bytes": e["size_bytes"], "runs": e["runs"]})
    print(f"  {e['experiment']:<11} {e['wall_ms'] / 1e3:7.2f} s  {state}")
summed = sum(x["wall_ms"] for x in exps) / 1e3
print(f"  {'(sum)':<11} {summed:7.2f} s  (the rest is start-up, probes and output)")
print(f"RESULT thpctl lab quick: {wall:.1f} s wall on {ncpu} CPUs "
      f"(target <= {target:.0f} s: {'met' if wall <= target else 'NOT met'})")
json.dump({"kernel": doc["kernel"], "root": doc["root"], "cpus": int(ncpu),
           "wall_s": round(wall, 3), "target_s": target, "experiments": exps},
          open(dest, "w"), indent=2)
PY
BENCH_RESULTS=$OUT bench_record lab-quick "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')" s \
	title="\`lab quick${RUNS:+ --runs $RUNS}\` wall time ($(id -un))" goal="<= $TARGET_S s" detail="@$dest"
