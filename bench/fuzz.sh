#!/usr/bin/env bash
# Executions per second of each libFuzzer harness (tests/fuzz/, built by
# `make fuzzers`): each runs SECONDS from its seeds in tests/fuzz/corpus/ and
# this prints its executions, rate and peak RSS, and the time one harness
# would need for 10 M executions (the issue's goal per harness).
#
# Prints and records figures (bench/lib.sh: bench_record), never pass/fail (a
# finding is the fuzz suite's business: tests/fuzz/run.sh). Runs one harness at a
# time (one CPU).
#
#   SECONDS_EACH=N   (default 30)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
S=${SECONDS_EACH:-30}
if ! why=$(tests/fuzz/probe); then
	echo "bench/fuzz.sh: $why"
	exit 0
fi
tmp=$(mktemp -d /tmp/thpctl-bench-fuzz.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '%-14s %12s %10s %8s %14s\n' harness executions exec/s RSS_MB "10M execs in"
for bin in build/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	case $bin in *.d | *.o) continue ;; esac
	n=${bin##*/fuzz_}
	mkdir -p "$tmp/$n"
	"$bin" -max_total_time="$S" -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$tmp/art-$n-" "$tmp/$n" "tests/fuzz/corpus/$n" >"$tmp/log" 2>&1
	rc=$?
	e=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$tmp/log" | tail -n1)
	r=$(sed -nE 's/^stat::peak_rss_mb: *([0-9]+).*/\1/p' "$tmp/log" | tail -n1)
	t=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$tmp/log" | tail -n1)
	[ -n "${t:-}" ] && [ "$t" -gt 0 ] || t=$S
	if [ -z "${e:-}" ] || [ "$rc" -ne 0 ]; then
		printf '%-14s %12s %10s %8s %14s\n' "$n" "finding" "-" "-" "(exit $rc: run tests/fuzz/run.sh $n)"
		continue
	fi
	rate=$((e / t))
	need=$((rate > 0 ? 10000000 / rate : 0))
	printf '%-14s %12s %10s %8s %13ss\n' "$n" "$e" "$rate" "${r:-?}" "$need"
	echo "$rate $n" >>"$tmp/rates"
done
echo "(${S} s each, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg) at the end)"
if [ -s "$tmp/rates" ]; then
	read -r slow sname < <(sort -n "$tmp/rates" | head -n1)
	read -r fast fname < <(sort -rn "$tmp/rates" | head -n1)
	bench_record fuzz-slowest "$slow" execs/s \
		title="executions per second of the slowest fuzz harness ($sname; ${S} s each, ASan+UBSan)" \
		note="$(wc -l <"$tmp/rates") harnesses, $slow/s ($sname) to $fast/s ($fname)"
fi
