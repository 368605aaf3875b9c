#!/usr/bin/env bash
# Benchmark `thpctl maps PID --folios` against the kernel's own tool,
# tools/mm/thpmaps (`--pid P --rollup`), on one process of known layout:
# folio_helper maps GB GiB (default 4; GB=NM: N MiB, a multiple of 4, as make
# check's smoke runs it): half MADV_HUGEPAGE (PMD THPs), half
# touched while hugepages-64kB/enabled=always (64K mTHP; the policy is put
# back as soon as the helper is ready, and by an EXIT trap).
#
# Prints, side by side in one run: every count of both tools (they must be
# identical), wall time (hyperfine, one invocation for both), the ratio, and
# peak RSS (bench/lib.sh: bench_peak_kb). Targets: maps --folios <= 40 ms at
# 4 GiB, >= 5x faster than thpmaps, RSS <= 8 MiB. The figures are recorded
# (bench/lib.sh: bench_record). Figures only, never a pass/fail exit status
# for timing (ARCHITECTURE.md: bench/).
#
# thpmaps is a Python script in the kernel sources (6.10+); it is in no Debian
# package of its own. This script takes it from $THPMAPS, else from the cache
# /var/tmp/thpctl-bench/thpmaps, else extracts it from Debian's
# linux-source-6.12 package (apt-get download; about 150 MB, kept nowhere in
# the repository). It needs /usr/bin/python3 with numpy (apt-get install
# python3-numpy; bench only). Without it the comparison is skipped and said so.
# BENCH_OFFLINE=1 (make check's smoke, tests/live/bench_smoke.sh) fetches and
# installs nothing: without $THPMAPS or the cache, or without numpy, the
# comparison is skipped and said so.
#
# Run within a minute of nothing else: on hosts with DAMON reclaim (kdamond,
# action pageout) memory idle for ~60 s is paged out, which splits PTE-mapped
# mTHP; the script prints the 64K split counter over its own run.
#
#   GB=N|NM RUNS=N WARMUP=N THPCTL=path THPMAPS=path BENCH_OFFLINE=1
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
H=build/tests/folio_helper
GB=${GB:-4}
[[ $GB =~ ^[1-9][0-9]*M?$ ]] || { echo "bench: GB=$GB: N (GiB, even) or NM (MiB, a multiple of 4)" >&2; exit 2; }
case $GB in
*M) SZ="${GB%M} MiB" HALF="$((${GB%M} / 2)) MiB" RECSZ=${GB%M}m ;;
*) SZ="$GB GiB" HALF="$((GB / 2)) GiB" RECSZ=${GB}g ;;
esac
TARGET_MS=40 # maps --folios at 4 GiB (issue 23)
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
CACHE=/var/tmp/thpctl-bench
THPMAPS=${THPMAPS:-$CACHE/thpmaps}
PY=/usr/bin/python3
THP=/sys/kernel/mm/transparent_hugepage
F64=$THP/hugepages-64kB/enabled

bench_need "$T" "$H" build/tests/thp_helper
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (kpageflags, the per-size policy)" >&2; exit 1; }
[ -w "$F64" ] || { echo "bench: no $F64 (kernel < 6.8?)" >&2; exit 1; }
bench_need_cmd hyperfine

OLD64=$(sed -E 's/.*\[(.*)\].*/\1/' "$F64")
# shellcheck disable=SC2317 # runs from the EXIT trap (bench_cleanup)
bench_on_exit() {
	[ "$(sed -E 's/.*\[(.*)\].*/\1/' "$F64")" = "$OLD64" ] || echo "$OLD64" >"$F64"
}
bench_init bench-folios

# ---- the kernel's tool --------------------------------------------------------
THPMAPS_WHY=
get_thpmaps() {
	local given=$THPMAPS
	[ -r "$THPMAPS" ] && return 0
	THPMAPS=$CACHE/thpmaps
	[ -r "$THPMAPS" ] && return 0
	if [ "${BENCH_OFFLINE:-0}" = 1 ]; then
		[ "$given" = "$THPMAPS" ] || given="$given or $THPMAPS"
		THPMAPS_WHY="no thpmaps at $given, and BENCH_OFFLINE=1 fetches nothing (make bench fetches it from Debian's linux-source)"
		return 1
	fi
	command -v apt-get >/dev/null || { THPMAPS_WHY="no apt-get to fetch linux-source"; return 1; }
	local pkg d
	pkg=$(apt-cache search --names-only '^linux-source-6\.[0-9]+$' 2>/dev/null | awk '{print $1}' |
		sort -t. -k2,2n | tail -n1)
	case $pkg in
	linux-source-6.1[0-9] | linux-source-6.[2-9][0-9]) ;;
	*)
		THPMAPS_WHY="no linux-source package of 6.10 or later in the apt sources (thpmaps came in 6.10)"
		return 1
		;;
	esac
	d=$(mktemp -d /var/tmp/thpctl-src.XXXXXX)
	echo "fetching tools/mm/thpmaps from Debian's $pkg (about 150 MB, not kept) ..." >&2
	if (cd "$d" && apt-get download "$pkg" >/dev/null 2>&1) &&
		dpkg-deb --fsys-tarfile "$d"/*.deb | tar -xO --wildcards '*/linux-source-*.tar.xz' >"$d/src.tar.xz" 2>/dev/null &&
		tar -xJf "$d/src.tar.xz" -C "$d" --wildcards '*/tools/mm/thpmaps' 2>/dev/null; then
		mkdir -p "$CACHE" && cp "$(find "$d" -path '*/tools/mm/thpmaps' | head -n1)" "$THPMAPS"
	fi
	rm -rf "$d"
	[ -r "$THPMAPS" ] || { THPMAPS_WHY="could not download or extract $pkg"; return 1; }
}
HAVE_TM=0
if get_thpmaps; then
	if [ "${BENCH_OFFLINE:-0}" != 1 ] && ! $PY -c 'import numpy' 2>/dev/null; then
		apt-get install -y python3-numpy >/dev/null 2>&1
	fi
	if $PY -c 'import numpy' 2>/dev/null; then
		HAVE_TM=1
	else
		THPMAPS_WHY="$PY has no numpy (apt-get install python3-numpy)"
	fi
fi

# ---- the process ----------------------------------------------------------------
split0=$(cat "$THP/hugepages-64kB/stats/split" 2>/dev/null || echo 0)
echo always >"$F64"
bench_start "$TMP/helper" 1200 "$H" bench "$GB"
HPID=${PIDS[-1]}
echo "$OLD64" >"$F64"
grep -q "^ready $HPID\$" "$TMP/helper" || { echo "bench: helper failed: $(cat "$TMP/helper")" >&2; exit 1; }
P=$HPID

echo "thpctl folio benchmark: $(uname -r), $(nproc) CPUs, $(hyperfine --version)"
echo "at start: $(bench_load)"
echo "process: folio_helper bench $GB (pid $P): $HALF MADV_HUGEPAGE + $HALF under hugepages-64kB=always (policy restored to '$OLD64' at once)"
grep '^region' "$TMP/helper" | sed 's/^/  /'
echo "binary: $T"
if [ "$HAVE_TM" -eq 1 ]; then
	echo "thpmaps: $THPMAPS (the kernel's tools/mm/thpmaps, $(md5sum <"$THPMAPS" | cut -c1-12)), $PY $($PY -c 'import numpy; print("numpy", numpy.__version__)')"
else
	echo "thpmaps: NOT AVAILABLE: $THPMAPS_WHY; comparing thpctl's own reading methods only"
fi
echo

# ---- counts, side by side ---------------------------------------------------------
"$T" maps "$P" --folios --cont 64K --json >"$TMP/thpctl.json"
"$T" ps --folios --pid "$P" --cont 64K --json >"$TMP/ps.json"
[ "$HAVE_TM" -eq 1 ] && $PY "$THPMAPS" --pid "$P" --rollup --cont 64K --inc-empty >"$TMP/thpmaps.txt" 2>&1
for v in THPCTL_NO_PAGEMAP_SCAN THPCTL_NO_PROBE THPCTL_PROBE; do
	env "$v=1" "$T" maps "$P" --folios --cont 64K --json >"$TMP/$v.json"
done
python3 - "$TMP" "$HAVE_TM" <<'PY'
import json, re, sys
tmp, have = sys.argv[1], sys.argv[2] == "1"
d = json.load(open(f"{tmp}/thpctl.json"))
ours = {}
for ty in ("anon", "file"):
    a = d["totals"][ty]
    ours[f"{ty}-thp-pmd-aligned-2048kB"] = a["pmd_kb"]
    for s in a["sizes"]:
        if s["size_kb"] >= 16:
            ours[f"{ty}-thp-pte-aligned-{s['size_kb']}kB"] = s["pte_aligned_kb"]
            ours[f"{ty}-thp-pte-unaligned-{s['size_kb']}kB"] = s["pte_unaligned_kb"]
    ours[f"{ty}-thp-pte-partial"] = a["partial_kb"]
    ours[f"{ty}-cont-pmd-aligned-64kB"] = a["cont"]["pmd_kb"]
    ours[f"{ty}-cont-pte-aligned-64kB"] = a["cont"]["pte_kb"]
tm = {}
if have:
    text = open(f"{tmp}/thpmaps.txt").read()
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z0-9-]+):\s+(\d+) kB", line)
        if m:
            tm[m.group(1)] = int(m.group(2))
    if not tm:
        print("thpmaps printed no counts:", text[:500])
alts = {v: json.load(open(f"{tmp}/{v}.json"))["totals"] for v in ("THPCTL_NO_PAGEMAP_SCAN", "THPCTL_NO_PROBE", "THPCTL_PROBE")}
ps = json.load(open(f"{tmp}/ps.json"))["processes"][0]
same_alt = all(alts[v] == d["totals"] for v in alts)
print(f"{'count (kB)':34} {'thpmaps':>10} {'thpctl':>10}  same")
diff = 0
for k in sorted(set(ours) | set(tm)):
    a, b = tm.get(k), ours.get(k)
    if not a and not b:
        continue
    same = "yes" if a == b else ("-" if not have else "NO")
    diff += same == "NO"
    print(f"{k:34} {a if a is not None else '-':>10} {b if b is not None else '-':>10}  {same}")
nz = sum(1 for k in ours if ours[k] or tm.get(k))
print(f"RESULT counts: {'identical' if have and not diff else 'DIFFERENT' if have else 'thpmaps not run'}"
      f" ({nz} non-zero counts{'' if have else ''}); thpctl without PAGEMAP_SCAN, without and"
      f" with the two-frame proof: {'identical' if same_alt else 'DIFFERENT'}; ps --folios rollup"
      f" {'equals' if ps['anon'] == d['totals']['anon'] else 'DIFFERS from'} maps totals")
PY
echo

# ---- wall time ---------------------------------------------------------------------
cmds=(-n "thpctl maps --folios" "$T maps $P --folios")
[ "$HAVE_TM" -eq 1 ] && cmds+=(-n "thpmaps --rollup" "$PY $THPMAPS --pid $P --rollup")
hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style basic --export-json "$TMP/hf.json" \
	"${cmds[@]}" >"$TMP/hf.txt" 2>&1 || { cat "$TMP/hf.txt"; echo "bench: hyperfine failed" >&2; exit 1; }
grep -E 'Time|Range|^Benchmark' "$TMP/hf.txt"
echo "after the timings: $(bench_load)"
for i in $(seq 5); do "$T" maps "$P" --folios --json; done >"$TMP/el.json"
python3 - "$TMP/hf.json" "$TMP/el.json" "$TARGET_MS" >"$TMP/res.txt" <<'PY'
import json, sys, statistics
r = json.load(open(sys.argv[1]))["results"]
el = [json.loads(x)["elapsed_ms"] for x in open(sys.argv[2]).read().replace("}\n{", "}\x00{").split("\x00")]
target = float(sys.argv[3])
t = r[0]
print(f"RESULT wall: thpctl maps --folios {t['mean']*1e3:.1f} ms ± {t['stddev']*1e3:.1f} "
      f"(min {t['min']*1e3:.1f}; its own read time median {statistics.median(el):.1f} ms), "
      f"target <= {target:.0f} ms: {'met' if t['mean'] * 1e3 <= target else 'NOT met'}")
peer = "-"
if len(r) > 1:
    m = r[1]
    ratio = m["mean"] / t["mean"]
    peer = f"{m['mean']*1e3:.3f}"
    print(f"RESULT wall: thpmaps --rollup {m['mean']*1e3:.1f} ms ± {m['stddev']*1e3:.1f}; "
          f"thpctl is {ratio:.1f}x faster (target >= 5x: {'met' if ratio >= 5 else 'NOT met'})")
print(f"REC {t['mean']*1e3:.3f} {peer}")
PY
grep -v '^REC ' "$TMP/res.txt"
read -r _ v peer < <(grep '^REC ' "$TMP/res.txt")
rec=(title="\`maps --folios\`, a $SZ process (half PMD THP, half 64K mTHP)" goal="<= $TARGET_MS ms")
if [ "$HAVE_TM" -eq 1 ]; then
	rec+=(floor="the kernel's tools/mm/thpmaps --rollup" floor_kind=peer floor_value="$peer")
else
	rec+=(note="thpmaps not run: $THPMAPS_WHY")
fi
bench_record "maps-folios-$RECSZ" "$v" ms "${rec[@]}"

# other ways of reading, for the record
hyperfine -N --warmup 1 --runs "$RUNS" --style basic --export-json "$TMP/hf2.json" \
	-n "1 thread" "env THPCTL_THREADS=1 $T maps $P --folios" \
	-n "every frame read" "env THPCTL_NO_PROBE=1 $T maps $P --folios" \
	-n "proof from 64K, untimed" "env THPCTL_PROBE=1 $T maps $P --folios" \
	-n "no PAGEMAP_SCAN (< 6.7)" "env THPCTL_NO_PAGEMAP_SCAN=1 $T maps $P --folios" >/dev/null 2>&1 &&
	python3 - "$TMP/hf2.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    name, mean, sd = r["command"], r["mean"] * 1e3, r["stddev"] * 1e3
    print(f"  variant {name:24} {mean:7.1f} ms ± {sd:.1f}")
PY
echo

# ---- peak RSS (bench/lib.sh: bench_peak_kb) ---------------------------------------
kb=$(bench_peak_kb "$T" maps "$P" --folios)
echo "RESULT peak RSS: thpctl maps --folios $kb kB (target <= 8192 kB: $([ "$kb" -le 8192 ] && echo met || echo NOT met))"
bench_record "maps-folios-$RECSZ-rss" "$kb" kB title="peak RSS of \`maps --folios\`, the $SZ process" \
	goal="<= 8192 kB"
kb=$(bench_peak_kb "$T" maps "$P" --folios --json)
echo "RESULT peak RSS: thpctl maps --folios --json $kb kB"
kb=$(bench_peak_kb "$T" ps --folios)
echo "RESULT peak RSS: thpctl ps --folios (all processes) $kb kB"
if [ "$HAVE_TM" -eq 1 ]; then
	kb=$(bench_peak_kb $PY "$THPMAPS" --pid "$P" --rollup)
	echo "RESULT peak RSS: thpmaps --rollup $kb kB"
fi
split1=$(cat "$THP/hugepages-64kB/stats/split" 2>/dev/null || echo 0)
echo "64K folios split on this host during the run: $((split1 - split0)) (should be 0: the helper's layout held)"
