#!/usr/bin/env bash
# Benchmark `thpctl ab` against hyperfine on the same commands, side by side:
#   1. build/tests/chase_malloc SIZE STEPS: ab's median wall time (mode host)
#      against hyperfine's median of the same command (they should agree
#      within the noise; both print their spread);
#   2. `true`: ab's own cost per run (fork, exec, wait4, vmstat before and
#      after, smaps_rollup sampling) as ab's median minus hyperfine's median
#      (-N, no shell), against the target of <= 1 ms and <= 1% of a run.
# It prints and records figures (bench/lib.sh: bench_record), never pass/fail
# exit codes for timing.
#
#   RUNS=N        runs per side (default 20)
#   SIZE, STEPS   chase_malloc arguments (default 256M 1M)
#   THPCTL=path   binary to measure (default build/thpctl)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
C=build/tests/chase_malloc
RUNS=${RUNS:-20}
TRUE_RUNS=${TRUE_RUNS:-64} # `true` is short: more runs for a steady median (ab takes 64 at most)
SIZE=${SIZE:-256M}
STEPS=${STEPS:-1M}
bench_need "$T" "$C"
bench_need_cmd hyperfine python3
bench_init ab

echo "thpctl ab benchmark: $(uname -r), $(hyperfine --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
median_ab() { # median wall of mode host from ab's JSON
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["modes"][0]["wall_s"]["median"])' "$1"
}
median_hf() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"
}

bench_mark
"$T" ab --runs "$RUNS" --warmup 1 --modes host --json -- "$C" "$SIZE" "$STEPS" >"$TMP/ab.json" 2>/dev/null
hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$TMP/hf.json" "$C $SIZE $STEPS" >/dev/null 2>&1
a=$(median_ab "$TMP/ab.json") h=$(median_hf "$TMP/hf.json")
python3 - "$a" "$h" <<'PY'
import sys
a, h = float(sys.argv[1]), float(sys.argv[2])
print(f"RESULT chase_malloc median wall: ab {a*1e3:.1f} ms, hyperfine {h*1e3:.1f} ms, ratio {a/h:.3f}")
PY
am=$(awk -v x="$a" 'BEGIN {printf "%.3f", x * 1e3}') hm=$(awk -v x="$h" 'BEGIN {printf "%.3f", x * 1e3}')
ok=$(awk -v a="$a" -v h="$h" 'BEGIN {r = a / h; print (r >= 0.95 && r <= 1.05) ? "yes" : "no"}')
bench_record ab-accuracy "$am" ms title="ab's median wall time of chase_malloc $SIZE $STEPS ($RUNS runs)" \
	floor="hyperfine's median of the same command" floor_kind=peer floor_value="$hm" \
	goal="0.95-1.05x" met="$ok"

bench_mark
"$T" ab --runs "$TRUE_RUNS" --warmup 3 --modes host --json -- true >"$TMP/ab0.json" 2>/dev/null
hyperfine -N --warmup 3 --runs "$TRUE_RUNS" --export-json "$TMP/hf0.json" true >/dev/null 2>&1
a=$(median_ab "$TMP/ab0.json") h=$(median_hf "$TMP/hf0.json") c=$(median_ab "$TMP/ab.json")
python3 - "$a" "$h" "$c" <<'PY'
import sys
a, h, c = (float(x) for x in sys.argv[1:])
o = a - h
print(f"RESULT ab overhead per run: {o*1e3:.2f} ms (ab {a*1e3:.2f} ms vs hyperfine {h*1e3:.2f} ms for `true`), "
      f"{100*o/c:.2f}% of a chase_malloc run; target <= 1 ms and <= 1%: "
      f"{'met' if o <= 1e-3 and o <= 0.01 * c else 'NOT met'}")
PY
bench_record ab-overhead "$(awk -v a="$a" -v h="$h" 'BEGIN {printf "%.3f", (a - h) * 1e3}')" ms \
	title="ab's own cost per run: its median wall time of \`true\` minus hyperfine's ($TRUE_RUNS runs each)" \
	goal="<= 1 ms"

# a real program: numpy matrix multiply (Debian's python3-numpy; numpy
# madvises large arrays itself, so `off` is the mode that changes something)
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	echo
	echo "numpy 2000x2000 matrix multiply, modes off and host (${NUMPY_RUNS:-5} runs each):"
	"$T" ab --runs "${NUMPY_RUNS:-5}" --warmup 1 --modes off,host -- /usr/bin/python3 -c \
		'import numpy as np; a = np.random.rand(2000, 2000); [a @ a for _ in range(3)]' 2>/dev/null
else
	echo "numpy: skipped (python3-numpy not installed: scripts/install-deps --bench)"
fi
