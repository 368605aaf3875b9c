#!/usr/bin/env bash
# Benchmark `thpctl ab` against hyperfine on the same commands, side by side:
#   1. build/tests/chase_malloc SIZE STEPS: ab's median wall time (mode host)
#      against hyperfine's median of the same command, their runs in
#      interleaved blocks (they should agree within the noise);
#   2. `true`: ab's own cost per run (fork, exec, wait4, vmstat before and
#      after, smaps_rollup sampling) as ab's median minus hyperfine's median
#      (-N, no shell), against the target of <= 1 ms and <= 1% of a run.
# It prints and records figures (bench/lib.sh: bench_record), never pass/fail
# exit codes for timing.
#
#   RUNS=N        runs per side (default 20), in blocks of BLOCK_RUNS (default 5)
#   SIZE, STEPS   chase_malloc arguments (default 256M 1M)
#   NUMPY_RUNS=N NUMPY_N=N   the numpy matrix multiply: runs per mode (default 5), matrix size
#                 (default 2000)
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

# The command's own time drifts on this guest (first touch of guest memory,
# memory handed back to the host): one block of ab then one of hyperfine gave
# 1.12x and, minutes later, 0.94x. So the runs go in blocks of BLOCK_RUNS, in
# the order ab hf hf ab ab hf hf ab (ABBA cancels a steady drift), each block
# with one warm-up, and the medians of the pooled runs are compared.
BLOCK_RUNS=${BLOCK_RUNS:-5}
nblocks=$(((RUNS + BLOCK_RUNS - 1) / BLOCK_RUNS))
bench_mark
for ((i = 0; i < nblocks; i++)); do
	for side in ab hf; do
		# ABBA: even blocks ab first, odd blocks hyperfine first
		if ((i % 2)); then side=$([ "$side" = ab ] && echo hf || echo ab); fi
		if [ "$side" = ab ]; then
			"$T" ab --runs "$BLOCK_RUNS" --warmup 1 --modes host --json -- "$C" "$SIZE" "$STEPS" \
				>"$TMP/ab.$i.json" 2>/dev/null
		else
			hyperfine -N --warmup 1 --runs "$BLOCK_RUNS" --export-json "$TMP/hf.$i.json" \
				"$C $SIZE $STEPS" >/dev/null 2>&1
		fi
	done
done
read -r a h < <(python3 - "$TMP" "$nblocks" <<'PY'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
ab, hf = [], []
for i in range(n):
    ab += [r["wall_s"] for r in json.load(open(f"{d}/ab.{i}.json"))["modes"][0]["runs"] if r["ok"]]
    hf += json.load(open(f"{d}/hf.{i}.json"))["results"][0]["times"]
print(statistics.median(ab), statistics.median(hf))
PY
)
chase=$a
python3 - "$a" "$h" "$nblocks" "$BLOCK_RUNS" <<'PY'
import sys
a, h = float(sys.argv[1]), float(sys.argv[2])
print(f"RESULT chase_malloc median wall: ab {a*1e3:.1f} ms, hyperfine {h*1e3:.1f} ms, ratio {a/h:.3f} "
      f"({sys.argv[3]} blocks of {sys.argv[4]} runs each, ab and hyperfine in ABBA order)")
PY
am=$(awk -v x="$a" 'BEGIN {printf "%.3f", x * 1e3}') hm=$(awk -v x="$h" 'BEGIN {printf "%.3f", x * 1e3}')
ok=$(awk -v a="$a" -v h="$h" 'BEGIN {r = a / h; print (r >= 0.95 && r <= 1.05) ? "yes" : "no"}')
bench_record ab-accuracy "$am" ms \
	title="ab's median wall time of chase_malloc $SIZE $STEPS ($((nblocks * BLOCK_RUNS)) runs in $nblocks blocks, interleaved with hyperfine's)" \
	floor="hyperfine's median of the same command" floor_kind=peer floor_value="$hm" \
	goal="0.95-1.05x" met="$ok"

bench_mark
"$T" ab --runs "$TRUE_RUNS" --warmup 3 --modes host --json -- true >"$TMP/ab0.json" 2>/dev/null
hyperfine -N --warmup 3 --runs "$TRUE_RUNS" --export-json "$TMP/hf0.json" true >/dev/null 2>&1
a=$(median_ab "$TMP/ab0.json") h=$(median_hf "$TMP/hf0.json") c=$chase
python3 - "$a" "$h" "$c" <<'PY'
import sys
try:
    a, h, c = (float(x) for x in sys.argv[1:])
except ValueError:
    print("RESULT ab overhead per run: unknown (a median was not read: ab %r, hyperfine %r, "
          "chase_malloc %r); target <= 1 ms and <= 1%%: inconclusive" % tuple(sys.argv[1:]))
    sys.exit(0)
o = a - h
print(f"RESULT ab overhead per run: {o*1e3:.2f} ms (ab {a*1e3:.2f} ms vs hyperfine {h*1e3:.2f} ms for `true`), "
      f"{100*o/c:.2f}% of a chase_malloc run; target <= 1 ms and <= 1%: "
      f"{'met' if o <= 1e-3 and o <= 0.01 * c else 'NOT met'}")
PY
# the record's goal and verdict are the RESULT line's: both limits; a median that is not a
# number (ab or hyperfine failed) is an unknown figure, never a difference against 0
num='^[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$'
if [[ $a =~ $num && $h =~ $num && $c =~ $num ]]; then
	om=$(awk -v a="$a" -v h="$h" -v c="$c" 'BEGIN { o = a - h; print (o <= 0.001 && o <= 0.01 * c) ? "yes" : "no" }')
	ov=$(awk -v a="$a" -v h="$h" 'BEGIN {printf "%.3f", (a - h) * 1e3}')
	onote=()
else
	om=unknown ov=- onote=(note="a median was not read: ab '$a', hyperfine '$h', chase_malloc '$c'")
fi
bench_record ab-overhead "$ov" ms \
	title="ab's own cost per run: its median wall time of \`true\` minus hyperfine's ($TRUE_RUNS runs each)" \
	goal="<= 1 ms and <= 1% of a chase_malloc run" met="$om" "${onote[@]}"

# a real program: numpy matrix multiply (Debian's python3-numpy; numpy
# madvises large arrays itself, so `off` is the mode that changes something)
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	echo
	n=${NUMPY_N:-2000}
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "bench: NUMPY_N=$n is not a number" >&2; exit 2; }
	echo "numpy ${n}x$n matrix multiply, modes off and host (${NUMPY_RUNS:-5} runs each):"
	"$T" ab --runs "${NUMPY_RUNS:-5}" --warmup 1 --modes off,host -- /usr/bin/python3 -c \
		"import numpy as np; a = np.random.rand($n, $n); [a @ a for _ in range(3)]" 2>/dev/null
else
	echo "numpy: skipped (python3-numpy not installed: scripts/install-deps --bench)"
fi
