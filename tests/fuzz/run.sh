#!/usr/bin/env bash
# The fuzz suite: runs each libFuzzer harness build/fuzz/fuzz_NAME (sources in
# tests/fuzz/, built by `make fuzzers`) for FUZZ_SECONDS seconds (default 4: a smoke in make check),
# starting from the seeds in tests/fuzz/corpus/NAME/ (read-only: new inputs go
# to a temporary directory). One result line per harness with its executions
# and rate; a crash, a sanitizer report, a leak, a timeout (10 s) or a failed
# property is "not ok" and its input is kept in build/fuzz/findings/.
# Skips, saying why, when clang cannot build libFuzzer harnesses. FUZZ_JOBS harnesses run at
# once (default: one per CPU).
#
#   tests/fuzz/run.sh [NAME...]           (make fuzz: FUZZ_SECONDS=60)
#
# Last line: "fuzz: N passed, M failed, K skipped" (tests/lib.sh).
FUZZ_SECONDS=${FUZZ_SECONDS:-4}
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init fuzz

case ${1:-} in
-h | --help)
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac

if ! why=$(tests/fuzz/probe); then
	skip "fuzz harnesses" "$why"
	summary
fi

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		n=${f##*/fuzz_}
		names+=("${n%.c}")
	done
fi

mkdir -p build/fuzz/findings
# fuzz_one NAME: run one harness; its result into $TMP/res-NAME ("ok"/"nok" line, its
# detail) and $TMP/execs-NAME. Run FUZZ_JOBS of them at once (default one per CPU: each
# harness is one process on one CPU, so its FUZZ_SECONDS are the same depth either way).
fuzz_one() {
	local n=$1 bin=build/fuzz/fuzz_$1 res=$TMP/res-$1
	if [ ! -x "$bin" ]; then
		printf 'nok\tfuzz %s\tno %s (make fuzzers)\n' "$n" "$bin" >"$res"
		return
	fi
	local seeds=tests/fuzz/corpus/$n work=$TMP/corpus-$n log=$TMP/log-$n
	: >"$res"
	[ -d "$seeds" ] || printf 'nok\tfuzz %s: seeds\tno %s\n' "$n" "$seeds" >>"$res"
	mkdir -p "$work"
	# leaks are findings too; -timeout: one input may take at most 10 s
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
		"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$TMP/art-$n-" "$work" "$seeds" >"$log" 2>&1
	local rc=$? execs rss secs arts a
	execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n1)
	rss=$(sed -nE 's/^stat::peak_rss_mb: *([0-9]+).*/\1/p' "$log" | tail -n1)
	secs=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log" | tail -n1)
	[ -n "$secs" ] && [ "$secs" -gt 0 ] || secs=$FUZZ_SECONDS
	arts=$(ls "$TMP"/art-"$n"-* 2>/dev/null)
	if [ "$rc" -ne 0 ] || [ -n "$arts" ] || [ -z "$execs" ]; then
		printf 'nok\tfuzz %s\texit status %s after %s executions\n' "$n" "$rc" "${execs:-?}" >>"$res"
		for a in $arts; do
			cp "$a" build/fuzz/findings/
			echo "      input kept: build/fuzz/findings/${a##*/}" >>"$res"
		done
		grep -m1 -A12 -E 'ERROR: |runtime error|property failed|deadly signal' "$log" | sed 's/^/      /' >>"$res"
		return
	fi
	echo "$execs" >"$TMP/execs-$n"
	printf 'ok\tfuzz %s: %s executions in %s s (%s/s, peak RSS %s MB), no finding\n' \
		"$n" "$execs" "$secs" "$((execs / secs))" "${rss:-?}" >>"$res"
}
jobs_max=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
for n in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	fuzz_one "$n" &
done
wait
total=0
for n in "${names[@]}"; do
	while IFS=$'\t' read -r kind name detail; do
		case $kind in
		ok) ok "$name" ;;
		nok) nok "$name" "$detail" ;;
		*) echo "$kind" ;; # a detail line of the one before
		esac
	done <"$TMP/res-$n"
	[ -f "$TMP/execs-$n" ] && total=$((total + $(cat "$TMP/execs-$n")))
done
echo "# fuzz: $total executions in all"
summary
