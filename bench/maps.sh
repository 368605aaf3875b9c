#!/usr/bin/env bash
# Benchmark `thpctl maps PID` on a process of many VMAs against `cat /proc/PID/smaps`
# (the floor: the kernel's own cost of the file maps reads), side by side in one hyperfine
# run: wall time, user and system CPU, the ratio (target <= 1.5x), and the peak RSS of
# maps. thp_helper many-vmas N maps N one-page VMAs that do not merge, every page
# touched, so smaps is N entries and the ledger (held: pagemap + kpageflags) has N pages
# to look at. Prints and records the figures (bench/lib.sh: bench_record); never a
# pass/fail exit status for timing (ARCHITECTURE.md: bench/).
#
#   VMAS=N        VMAs of the helper (default 10000)
#   RUNS=N WARMUP=N   hyperfine settings (default 30, 3)
#   THPCTL=path   binary to measure (default build/thpctl)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
H=build/tests/thp_helper
VMAS=${VMAS:-10000}
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}
TARGET=1.5

bench_need "$T" "$H"
bench_need_cmd hyperfine python3
bench_init bench-maps

bench_start "$TMP/helper" 600 "$H" many-vmas "$VMAS" ||
	{ echo "bench: many-vmas $VMAS did not start: $(cat "$TMP/helper")" >&2; exit 1; }
P=${PIDS[-1]}
n=$(wc -l <"/proc/$P/maps")
echo "thpctl maps benchmark: $(uname -r), $(nproc) CPUs, $(hyperfine --version), $T"
echo "process: thp_helper many-vmas $VMAS (pid $P): $n VMAs, smaps $(wc -c <"/proc/$P/smaps") bytes"
echo "at start: $(bench_load)"
bench_mark
hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style basic --export-json "$TMP/hf.json" \
	-n "thpctl maps" "$T maps $P" -n "cat smaps" "cat /proc/$P/smaps" \
	-n "thpctl maps --json" "$T maps $P --json" >"$TMP/hf.txt" 2>&1 ||
	{ cat "$TMP/hf.txt"; echo "bench: hyperfine failed" >&2; exit 1; }
grep -E 'Time|Range|^Benchmark' "$TMP/hf.txt"
echo "after the timings: $(bench_load)"
python3 - "$TMP/hf.json" "$TARGET" >"$TMP/res.txt" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
t, c, j = r["thpctl maps"], r["cat smaps"], r["thpctl maps --json"]
target = float(sys.argv[2])
for x in (t, c, j):
    print(f"  {x['command']:20} mean {x['mean']*1e3:7.1f} ms ± {x['stddev']*1e3:.1f}, "
          f"user {x['user']*1e3:6.1f} ms, system {x['system']*1e3:6.1f} ms")
ratio = t["mean"] / c["mean"]
cpu = (t["user"] + t["system"]) / (c["user"] + c["system"])
print(f"RESULT thpctl maps / cat smaps: {ratio:.2f}x wall (target <= {target}x: "
      f"{'met' if ratio <= target else 'NOT met'}), {cpu:.2f}x CPU (user + system: the smaps walk, "
      f"the ledger's pagemap walk and the table); --json {j['mean'] / c['mean']:.2f}x")
print(f"REC {t['mean']*1e3:.3f} {c['mean']*1e3:.3f} {cpu:.2f}")
PY
grep -v '^REC ' "$TMP/res.txt"
read -r _ v f cpu < <(grep '^REC ' "$TMP/res.txt")
bench_record "maps-vmas-$VMAS" "$v" ms title="\`maps PID\`, a process of $n VMAs" \
	floor="cat /proc/PID/smaps" floor_value="$f" goal="<= ${TARGET}x" \
	note="maps PID of $n VMAs: ${cpu}x the CPU time (user + system) of cat smaps; above the floor: parsing smaps, the ledger (PAGEMAP_SCAN of VMAs holding a whole PMD block; the pagemap + kpageflags walk only when the host's counters show a partially mapped folio or an mTHP), and the table"
kb=$(/usr/bin/time -f %M "$T" maps "$P" 2>&1 >/dev/null | tail -n1)
echo "RESULT peak RSS: thpctl maps of $n VMAs: $kb kB"
bench_record "maps-vmas-$VMAS-rss" "$kb" kB title="peak RSS of \`maps PID\`, $n VMAs" \
	note="maps keeps every VMA's row until the table is printed"
