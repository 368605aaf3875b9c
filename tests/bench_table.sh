#!/usr/bin/env bash
# The benchmark tables agree with the records: scripts/bench-table --check on the repository
# (README.md and docs/benchmarks.md against bench/results/), then the check itself on a
# temporary file and records written by bench/lib.sh's bench_record: a table made from them
# passes, a newer record of one figure makes the check fail until the table is regenerated,
# a damaged record and broken markers are errors. No root, no live state, no thpctl binary.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
suite_init bench_table
need_python3
BT=scripts/bench-table

out=$("$BT" --check 2>&1)
rc=$?
expect_zero "the repository's tables agree with bench/results (scripts/bench-table --check)" "$rc" \
	"$(tail -n 20 <<<"$out")"

R=$TMP/results MD=$TMP/page.md
# record NAME VALUE [KEY=VALUE]...: one record through bench/lib.sh, as a bench writes it
record() {
	local name=$1 value=$2
	shift 2
	(BENCH_RESULTS=$R
	# shellcheck source=bench/lib.sh
	source bench/lib.sh >/dev/null
	bench_record "$name" "$value" ms "$@") >"$TMP/rec.out" 2>&1
}
record maps-10k-vmas 30.5 title='maps PID, 10 000 VMAs' floor='cat smaps' floor_value=20 goal='<= 1.5x'
expect_eval "bench_record writes a record" '[ "$(find "$R/maps-10k-vmas" -name "*.json" | wc -l)" = 1 ]' \
	"$(cat "$TMP/rec.out")"
f=$(find "$R/maps-10k-vmas" -name '*.json' | head -n1)
expect_json "the record: value, ratio from the floor, goal worked out, context" "$f" \
	'd["value"] == 30.5 and d["ratio"] == 1.525 and d["met"] is False and d["floor"]["value"] == 20 and len(d["load_before"]) == 3 and d["cpus"] >= 1 and d["kernel"] and d["uptime_s"] > 0 and d["bench"].startswith("bench/")' \
	'json.dumps(d)[:300]'
record ab-overhead 0.8 title='ab cost per run' goal='<= 1 ms' note='why | this'
record exporter-cpu - title='exporter CPU per scrape' note='wrk missing'
expect_eval "a figure that could not be taken is recorded as null" \
	'grep -q "\"value\": null" "$R"/exporter-cpu/*.json'
record bad-value 12abc
expect_eval "bench_record refuses a value that is not a number" \
	'[ ! -d "$R/bad-value" ] || [ -z "$(ls "$R/bad-value")" ]'

printf '# page\n\n<!-- bench-table:begin -->\nold text\n<!-- bench-table:end -->\n\nafter\n' >"$MD"
"$BT" --results "$R" --check "$MD" >"$TMP/c1" 2>&1
rc=$?
expect_eval "--check fails on a table that is not from the records" '[ "$rc" -eq 1 ]' "rc $rc"
"$BT" --results "$R" "$MD" >/dev/null 2>&1
"$BT" --results "$R" --check "$MD" >"$TMP/c2" 2>&1
rc=$?
expect_zero "--check passes once the table is written" "$rc" "$(cat "$TMP/c2")"
expect_eval "the table has each figure, its ratio, goal verdict and load" \
	'grep -q "| maps PID, 10 000 VMAs | 30.5 ms | cat smaps: 20 ms | 1.52x | <= 1.5x: \*\*not met\*\* |" "$MD" && grep -q "0.80 ms" "$MD" && grep -q "load [0-9.]*→[0-9.]* on [0-9]* CPUs" "$MD" && grep -q "why \\\\| this" "$MD"' \
	"$(grep '^|' "$MD" | head -n 8)"
expect_eval "the text outside the markers is kept" 'head -n 2 "$MD" | grep -q "^# page" && tail -n 1 "$MD" | grep -qx after'

sleep 1 # a newer record of one figure (records are named by the second)
record maps-10k-vmas 25 title='maps PID, 10 000 VMAs' floor='cat smaps' floor_value=20 goal='<= 1.5x'
"$BT" --results "$R" --check "$MD" >"$TMP/c3" 2>&1
rc=$?
expect_eval "--check fails when a record changed and the table was not regenerated" \
	'[ "$rc" -eq 1 ] && grep -q "^+.*| 25 ms | cat smaps: 20 ms | 1.25x | <= 1.5x: met |" "$TMP/c3"' "rc $rc: $(head -n 20 "$TMP/c3")"
"$BT" --results "$R" "$MD" >/dev/null 2>&1
expect_cmd "regenerated, it passes again" "" "$BT" --results "$R" --check "$MD"

echo '{"name": "maps-10k-vmas"' >"$R/maps-10k-vmas/29990101T000000Z.json"
"$BT" --results "$R" --check "$MD" >"$TMP/c4" 2>&1
rc=$?
expect_eval "a damaged newest record is an error, named" '[ "$rc" -eq 1 ] && grep -q 29990101T000000Z "$TMP/c4"' \
	"$(cat "$TMP/c4")"
rm -f "$R/maps-10k-vmas/29990101T000000Z.json"

printf 'x\n<!-- bench-table:begin -->\nno end\n' >"$TMP/broken.md"
"$BT" --results "$R" "$TMP/broken.md" >"$TMP/c5" 2>&1
rc=$?
expect_eval "a begin marker without an end is an error" '[ "$rc" -eq 1 ] && grep -q "without an end" "$TMP/c5"' \
	"$(cat "$TMP/c5")"
# bench/paired.py: the verdict of a paired comparison follows its interval, not the median alone
# pairs FILE N A B: N rounds of build/bench/cputime's run lines, thpctl A ms + jitter, floor B ms
pairs() {
	python3 - "$@" <<'PY'
import sys
path, n, a, b = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
with open(path, "w") as f:
    f.write(f"cpu {a} {a} wall {a} thpctl\ncpu {b} {b} wall {b} floor\n")
    for r in range(n):
        j = (r % 7 - 3) * 0.01  # -3% .. +3%, the same for both commands of a round
        f.write(f"run {r} 0 {a * (1 + j):.3f} {a:.3f}\nrun {r} 1 {b * (1 + j) * (1 + (r % 5 - 2) * 0.03):.3f} {b:.3f}\n")
PY
}
PAIRED=bench/paired.py
pairs "$TMP/p1" 30 10 10 # 1.00x
rec=$(python3 "$PAIRED" "$TMP/p1" x 1.1 | grep '^REC')
expect_eval "paired: a ratio whose whole interval is under the target is met ($rec)" \
	'[ "$(cut -d" " -f5 <<<"$rec")" = yes ] && grep -q "95% interval 0.9[0-9]-1.0[0-9]x" <<<"$rec"'
pairs "$TMP/p2" 30 13 10 # 1.30x
rec=$(python3 "$PAIRED" "$TMP/p2" x 1.1 | grep '^REC')
expect_eval "paired: a ratio whose whole interval is over the target is not met ($rec)" \
	'[ "$(cut -d" " -f5 <<<"$rec")" = no ] && grep -q "^REC [0-9.]* [0-9.]* 1.3000 " <<<"$rec"'
pairs "$TMP/p3" 30 11 10 # 1.10x, the interval across 1.1
out=$(python3 "$PAIRED" "$TMP/p3" x 1.1)
expect_eval "paired: an interval across the target is inconclusive, said so" \
	'grep -q "^REC .* unknown " <<<"$out" && grep -q "inconclusive: the interval spans the target" <<<"$out"' "$out"
pairs "$TMP/p4" 5 10 20 # too few pairs for a 95% interval
out=$(python3 "$PAIRED" "$TMP/p4" x 1.1)
expect_eval "paired: 5 pairs give no interval and no verdict (not 'met' at 0.5x)" \
	'grep -q "^REC .* unknown " <<<"$out" && grep -q "too few for a 95% interval" <<<"$out"' "$out"
: >"$TMP/p5"
python3 "$PAIRED" "$TMP/p5" x 1.1 >/dev/null 2>"$TMP/p5.err"
rc=$?
expect_eval "paired: no pair is an error (exit 1), said" '[ "$rc" -eq 1 ] && grep -q "no pair" "$TMP/p5.err"' \
	"rc $rc: $(cat "$TMP/p5.err")"
# the split of the gap by the extras "version", "none" and "one" (bench/ps.sh's process-count
# runs): thpctl 6.5, floor 5.0, --version 1.2, floor none 0.8, one process 1.9 ms, 50 processes:
# start-up 0.4, fixed 1.9 - 1.2 - (5.0 - 0.8) / 50 = 0.616, the rest (1.5 - 1.016) / 49 = 9.9 us
python3 - "$TMP/p6" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for r in range(30):
        for c, ms in enumerate((6.5, 5.0, 1.2, 0.8, 1.9)):
            f.write(f"run {r} {c} {ms:.3f} {ms:.3f}\n")
PY
out=$(NPROCS=50 STARTUP_MS=9 python3 "$PAIRED" "$TMP/p6" x 1.2 version none one)
expect_eval "paired: start-up, fixed work and the rest a process, from the same rounds" \
	'grep -q "of which start-up +0.40 ms .*fixed work +0.62 ms .*floor.s 84 us a process.*the rest +9.9 us a process (50); .* alone are 20% of the floor" <<<"$out"' "$out"
expect_eval "paired: start-up and fixed work over the goal's allowance: not reachable by parsing, said" \
	'grep -q "the goal.s whole 20% allowance: at 50 processes it cannot be met by parsing faster" <<<"$out"' "$out"
out=$(NPROCS=50 python3 "$PAIRED" "$TMP/p6" x 1.5 version none one)
expect_eval "paired: under the allowance, what it leaves a process ((2.5 - 1.016) ms / 50)" \
	'grep -q "(the goal leaves 29.7 us a process for the rest)" <<<"$out" && ! grep -q "cannot be met" <<<"$out"' "$out"
# cputime's run lines, when it is built (bench/cputime.c): RUNS x commands, in the order they ran
if [ -x build/bench/cputime ]; then
	build/bench/cputime 3 0 true "true x" >"$TMP/ct" 2>&1
	expect_eval "cputime: 2 summary lines, then 6 run lines in turn (0 0, 0 1, 1 0 ...)" \
		'[ "$(grep -c "^cpu " "$TMP/ct")" = 2 ] && [ "$(grep "^run " "$TMP/ct" | cut -d" " -f2,3 | tr "\n" ,)" = "0 0,0 1,1 0,1 1,2 0,2 1," ]' \
		"$(cat "$TMP/ct")"
else
	skip "cputime's run lines" "build/bench/cputime not built (make check and make bench build it)"
fi

summary
