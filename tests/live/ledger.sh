#!/usr/bin/env bash
# Live tests of the per-process THP ledger (`why`, `maps`, `ps --ledger`)
# against build/tests/ledger_helper processes whose ledger is known:
#   healthy  hg, every page written          -> huge-backed, ~nothing invented
#   sparse   hg, one byte per 2 MiB          -> ~all huge-backed invented, flagged
#   split    hg, then 511 of 512 pages unmapped per PMD -> held (deferred split)
#   creep    300 of 512 pages per PMD, then hg -> khugepaged may add 212 per PMD
# Read-only towards the host.
#
#   THPCTL=path  binary to test (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init ledger

H=build/tests/ledger_helper
need_built "$T" "$H"
if [ ! -r "$THP/enabled" ] || [ "$(sysfs_choice "$THP/enabled")" = never ]; then
	skip "ledger" "THP is absent or enabled=never on this host"
	summary
fi
ROOT=0
[ "$(id -u)" -eq 0 ] && ROOT=1

start_helper HEALTHY "$H" healthy 64 || summary
start_helper SPARSE "$H" sparse 256 || summary
start_helper SPLIT "$H" split 128 || summary
start_helper CREEP "$H" creep 64 || summary
export SPARSE HEALTHY TMP

# ---- healthy ---------------------------------------------------------------
t why "$HEALTHY" --json
expect_rc "why healthy exits 0" 0
cp "$TMP/out" "$TMP/healthy.json"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["ledger"]["huge_backed_kb"] >= 32768 else 1)' "$TMP/healthy.json" 2>/dev/null; then
	expect_json "healthy: little invented, not flagged" "$TMP/healthy.json" \
		'd["ledger"]["invented_kb"] is not None and d["ledger"]["invented_kb"] <= d["ledger"]["huge_backed_kb"] // 20 and d["ledger"]["invented_flagged"] is False and d["ledger"]["invented_method"] == "sampled" and d["ledger"]["invented_samples_per_thp"] == 8'
	expect_json "healthy: every THP sampled" "$TMP/healthy.json" \
		'd["ledger"]["pmd_thps"] == d["ledger"]["huge_backed_kb"] // 2048 and d["ledger"]["pmd_thps_sampled"] == d["ledger"]["pmd_thps"]'
else
	skip "healthy: little invented" "the helper got under half of its 64 MiB as huge pages (no free huge pages?)"
	skip "healthy: every THP sampled" "as above"
fi

# ---- sparse: 1 byte per 2 MiB ------------------------------------------------
t why "$SPARSE" --json
cp "$TMP/out" "$TMP/sparse.json"
expect_json "sparse: invented close to all of huge-backed, flagged" "$TMP/sparse.json" \
	'd["ledger"]["huge_backed_kb"] > 65536 and d["ledger"]["invented_kb"] >= d["ledger"]["huge_backed_kb"] * 0.95 and d["ledger"]["invented_flagged"] is True'
expect_json "sparse: the summary says it is mostly never written" "$TMP/sparse.json" \
	'"never written" in d["summary"] and "invented" in d["summary"]'
t why "$SPARSE"
expect_eval "sparse: text ledger flags it and names the method" \
	'grep -q "FLAGGED" "$TMP/out" && grep -q "estimate, k=8 per THP" "$TMP/out"' \
	"$(grep -A5 '^ledger' "$TMP/out" | tr '\n' ' ')"
if [ "$ROOT" = 1 ]; then
	# the estimate against the exact scan of every subpage (maps --underused)
	t maps "$SPARSE" --underused --json
	if [ "$RC" -eq 0 ]; then
		expect_json "sparse: estimate within 2% of the exact --underused count" "$TMP/out" \
			'abs(json.load(open(E["TMP"]+"/sparse.json"))["ledger"]["invented_kb"] - d["zero_kb"]) <= 0.02 * d["zero_kb"]' \
			'(json.load(open(E["TMP"]+"/sparse.json"))["ledger"]["invented_kb"], d["zero_kb"])'
	else
		skip "sparse: estimate vs exact" "maps --underused failed: $(errtail)"
	fi
fi

# ---- split: deferred split --------------------------------------------------
t why "$SPLIT" --json
cp "$TMP/out" "$TMP/split.json"
if [ "$ROOT" = 1 ]; then
	# khugepaged may have collapsed some ranges meanwhile (1 resident page of 512
	# qualifies at max_ptes_none=511): those freed their partial folio
	expect_json "split: 64 partially mapped THPs (or collapsed since), 2044 kB held each" "$TMP/split.json" \
		'd["ledger"]["partially_mapped_folios"] + d["ledger"]["huge_backed_kb"] // 2048 == 64 and d["ledger"]["held_kb"] == d["ledger"]["partially_mapped_folios"] * 2044 and d["ledger"]["partially_mapped_folios"] > 0'
	expect_json "split: the summary says held, charged, deferred split (not 'got none')" "$TMP/split.json" \
		'd["ledger"]["huge_backed_kb"] > 0 or ("deferred-split" in d["summary"] and "charged" in d["summary"] and "got none" not in d["summary"])'
else
	expect_json "split: held unknown without root, never 0" "$TMP/split.json" \
		'd["ledger"]["held_kb"] is None and d["ledger"]["held_unknown"] == "denied"'
fi

# ---- creep ------------------------------------------------------------------
t why "$CREEP" --json
cp "$TMP/out" "$TMP/creep.json"
expect_json "creep: 212 pages per uncollapsed PMD range at max_ptes_none=511" "$TMP/creep.json" \
	'd["ledger"]["max_ptes_none"] != 511 or (d["ledger"]["creep_max_kb"] == d["ledger"]["creep_pmd_ranges"] * 848 and d["ledger"]["creep_pmd_ranges"] + d["ledger"]["huge_backed_kb"] // 2048 == 32)'

# ---- ps --ledger ---------------------------------------------------------------
t ps --ledger --json --pid "$SPARSE,$HEALTHY,$SPLIT"
expect_rc "ps --ledger exits 0" 0
expect_json "ps --ledger: rows carry the ledger, the sparse one flagged" "$TMP/out" \
	'proc(E["SPARSE"])["ledger"]["invented_flagged"] is True and proc(E["HEALTHY"])["ledger"]["invented_kb"] is not None' \
	'[(p["pid"], p.get("ledger")) for p in d["processes"]]'
t ps --ledger --pid "$SPARSE"
expect_eval "ps --ledger text: INVENTED column, estimate marked ~" \
	'grep -q "INVENTED" "$TMP/out" && grep -q "~" "$TMP/out" && grep -q "invented>25%" "$TMP/out"' "$(head -3 "$TMP/out" | tr '\n' ' ')"
t ps --ledger --rollup
expect_rc "ps --ledger --rollup is a usage error" 2
# the ledger's VMAs come from ps's own smaps walk: smaps is opened once per process
if command -v strace >/dev/null; then
	strace -f -qq -e trace=openat -o "$TMP/strace" "$T" ps --ledger --pid "$SPARSE" >/dev/null 2>&1
	nsmaps=$(grep -c '"smaps"' "$TMP/strace")
	expect_eval "ps --ledger: one smaps walk per process (smaps opened $nsmaps time(s))" \
		'[ "$nsmaps" -eq 1 ]' "$(grep -E 'smaps|proc/[0-9]' "$TMP/strace" | head -5 | tr '\n' ' ')"
else
	skip "ps --ledger: one smaps walk per process" "no strace (scripts/install-deps)"
fi

# ---- exporter --process-ledger ------------------------------------------------
mkdir -p "$TMP/tf"
t exporter --once --textfile "$TMP/tf" --process-ledger --top-processes 50
expect_rc "exporter --process-ledger --once exits 0" 0
expect_eval "exporter: the sparse helper's invented bytes >= 95% of its AnonHugePages" \
	'awk -v p="$SPARSE" '"'"'$1 ~ "^thp_process_anon_huge_pages_bytes\\{pid=\"" p "\"" {a=$2} $1 ~ "^thp_process_invented_bytes\\{pid=\"" p "\"" {i=$2} END {exit !(a > 0 && i >= 0.95 * a)}'"'"' "$TMP/tf/thp.prom"' \
	"$(grep -E "pid=\"$SPARSE\"" "$TMP/tf/thp.prom" | tr '\n' ' ')"
if command -v promtool >/dev/null; then
	expect_eval "exporter --process-ledger output passes promtool check metrics" \
		'promtool check metrics <"$TMP/tf/thp.prom" >/dev/null 2>"$TMP/promtool.err"' "$(head -c 300 "$TMP/promtool.err" 2>/dev/null)"
fi

# ---- as another user --------------------------------------------------------
if [ "$ROOT" = 1 ]; then
	HELPER_PREFIX=("${NOBODY[@]}")
	start_helper NSPLIT "$H" split 16 && {
		t_nobody why "$NSPLIT" --json
		expect_json "nobody: held unknown (needs root), invented known" "$TMP/out" \
			'd["ledger"]["held_kb"] is None and d["ledger"]["held_unknown"] == "denied" and d["ledger"]["invented_kb"] is not None'
	}
	HELPER_PREFIX=()
fi

expect_sanitizers_quiet "no sanitizer reports"
summary
