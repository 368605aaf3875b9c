#!/usr/bin/env bash
# The wall time of `make check` on a fresh clone of this repository (HEAD), installs
# included: what a contributor waits for. Clones into a temporary directory, runs
# `make check` there, and records the install step, the build and test run and the total
# (bench/lib.sh: bench_record; goal: 30 minutes on a 2-vCPU machine) with each suite's wall
# time (tests/run-all's "run-all: SUITE took N s" lines) in the record's detail.
#
# It takes the whole machine for 15-30 minutes and runs every live suite: run it alone, as
# root, on a freshly booted machine (`make bench-check`; not part of `make bench`). Its exit
# status is make check's.
#
#   KEEP=1   keep the clone and its log (printed) instead of removing them
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
GOAL_S=1800

bench_need_cmd git python3
bench_init bench-check
src=$(pwd)
git clone -q --no-hardlinks "$src" "$TMP/clone" || { echo "bench: cannot clone $src" >&2; exit 1; }
echo "make check on a fresh clone of $(git rev-parse --short HEAD) in $TMP/clone: $(nproc) CPUs, $(bench_load)"
t0=$(date +%s)
(cd "$TMP/clone" && make check) 2>&1 | tee "$TMP/check.log" | grep -E '^(check|run-all):|^all:'
rc=${PIPESTATUS[0]}
total=$(($(date +%s) - t0))
inst=$(sed -nE 's/^check: installs took ([0-9]+) s.*/\1/p' "$TMP/check.log" | tail -n1)
run=$(sed -nE 's/^check: (lint, )?build and test run took ([0-9]+) s.*/\2/p' "$TMP/check.log" | tail -n1)
sed -nE 's/^run-all: (.*) took ([0-9]+) s$/\1 \2/p' "$TMP/check.log" |
	python3 -c 'import json, sys; json.dump({l.split()[0]: int(l.split()[1]) for l in sys.stdin}, open(sys.argv[1], "w"), indent=1)' \
		"$TMP/suites.json"
last=$(grep -E '^all: ' "$TMP/check.log" | tail -n1)
echo "RESULT make check: $total s wall (installs ${inst:-?} s, build and tests ${run:-?} s), exit $rc; ${last:-no summary}"
bench_record make-check "$total" s title="\`make check\` on a fresh clone, installs included" \
	goal="<= $GOAL_S s" detail="@$TMP/suites.json" \
	note="installs ${inst:-?} s, build and test run ${run:-?} s (make -j$(nproc)); exit $rc; ${last:-no summary line}"
# a failure: the failing checks and suites on the terminal, and the log kept
if [ "$rc" -ne 0 ]; then
	grep -E '^not ok|^[a-z_./-]+: [0-9]+ passed, [1-9][0-9]* failed' "$TMP/check.log" | head -n 40
	KEEP=1
fi
if [ "${KEEP:-0}" = 1 ]; then
	cp "$TMP/check.log" "$src/build/bench-check.log" 2>/dev/null && echo "log: build/bench-check.log"
fi
exit "$rc"
