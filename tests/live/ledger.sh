#!/usr/bin/env bash
# Live tests of the per-process THP ledger (`why`, `maps`, `ps --ledger`)
# against build/tests/ledger_helper processes whose ledger is known:
#   healthy  hg, every page written          -> huge-backed, ~nothing invented
#   sparse   hg, one byte per 2 MiB          -> ~all huge-backed invented, flagged
#   split    hg, then 511 of 512 pages unmapped per PMD -> held (deferred split)
#   creep    300 of 512 pages per PMD, then hg -> khugepaged may add 212 per PMD
# and the rebuilt cases of issue 22 (the first line of why names the largest cost):
#   recollapse  split, then 8 of 64 ranges collapsed again -> huge pages beside 111.8 MiB held
#   creep16     one page in 16 touched before hg -> small pages, khugepaged may add 240 MiB
#   lazyfree    hg, written, MADV_FREE of all but one page per 2 MiB -> LazyFree, RSS stays
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

# ---- held from the host's counters (6.12+), before any helper splits a folio ----
# yes: every nr_anon_partially_mapped and every nr_anon below PMD size is 0; no: one is
# not; missing: an anon size without the count (before 6.12)
host_no_held() {
	local d kb pmd_kb
	pmd_kb=$(($(cat "$THP/hpage_pmd_size") / 1024))
	for d in "$THP"/hugepages-*kB; do
		kb=${d##*hugepages-}
		kb=${kb%kB}
		if [ ! -e "$d/stats/nr_anon_partially_mapped" ]; then
			[ -e "$d/enabled" ] && { echo missing; return; }
			continue
		fi
		[ "$(cat "$d/stats/nr_anon_partially_mapped")" = 0 ] || { echo no; return; }
		if [ "$kb" -lt "$pmd_kb" ] && [ "$(cat "$d/stats/nr_anon")" != 0 ]; then
			echo no
			return
		fi
	done
	echo yes
}
before=$(host_no_held)
t why "$$" --json
after=$(host_no_held)
if [ "$before" = yes ] && [ "$after" = yes ]; then
	expect_json "counters all 0: held 0 from the host's counters, no walk, even for mTHP" "$TMP/out" \
		'd["ledger"]["held_kb"] == 0 and d["ledger"]["held_method"] == "host_counters" and d["ledger"]["held_unknown"] is None and d["ledger"]["mthp_kb_by_folio_kb"] == {}'
	t why "$$"
	expect_eval "counters all 0 (text): held names the counters" \
		'grep -q "held         0 kB  (nothing is held anywhere" "$TMP/out" && grep -q "nr_anon_partially_mapped" "$TMP/out"' \
		"$(grep -A2 '^  held' "$TMP/out" | tr '\n' ' ')"
elif [ "$before" = no ] && [ "$after" = no ]; then
	expect_json "a partial folio or mTHP on the host: the walk decides (or held unknown without root)" "$TMP/out" \
		'd["ledger"]["held_method"] == "walk" if d["ledger"]["held_kb"] is not None else d["ledger"]["held_unknown"] == "denied"'
else
	skip "held from the host's counters" "counters: $before before, $after after (moved meanwhile, or before 6.12)"
fi

# a process of small VMAs only: no whole PMD block, so nothing to invent or creep; with the
# counters at 0 (no held walk) not one PAGEMAP_SCAN is made
start_helper SMALL build/tests/thp_helper many-vmas 2000 && {
	before=$(host_no_held)
	if command -v strace >/dev/null; then
		# LeakSanitizer does not run under ptrace
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=ioctl \
			-o "$TMP/strace.small" "$T" maps "$SMALL" --json >"$TMP/out" 2>&1
	else
		"$T" maps "$SMALL" --json >"$TMP/out" 2>&1
	fi
	after=$(host_no_held)
	expect_json "small VMAs only: invented and creep 0, known" "$TMP/out" \
		'd["ledger"]["invented_kb"] == 0 and d["ledger"]["creep_max_kb"] == 0 and len(d["vmas"]) >= 2000'
	if [ "$before" = yes ] && [ "$after" = yes ] && [ -s "$TMP/strace.small" ]; then
		nscan=$(grep -c '0x66, 0x10' "$TMP/strace.small")
		expect_eval "small VMAs only, counters 0: no PAGEMAP_SCAN ($nscan)" '[ "$nscan" -eq 0 ]' \
			"$(grep ioctl "$TMP/strace.small" | head -3 | tr '\n' ' ')"
	else
		skip "small VMAs only: no PAGEMAP_SCAN" "counters $before/$after, or no strace"
	fi
}

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
	'grep -q "FLAGGED" "$TMP/out" && grep -qE "an estimate: [0-9]+ of the [0-9]+ subpages read were all-zero" "$TMP/out" && grep -q "8 of each THP.s 512" "$TMP/out"' \
	"$(grep -A5 '^ledger' "$TMP/out" | tr '\n' ' ')"
if [ "$ROOT" = 1 ]; then
	# the estimate against the exact scan of every subpage (maps --underused)
	t maps "$SPARSE" --underused
	expect_eval "maps --underused: memory is given back only under memory pressure, said so" \
		'grep -q "given back under pressure" "$TMP/out" && grep -q "gives memory back only under memory pressure" "$TMP/out" && ! grep -q "memory given back" "$TMP/out"' \
		"$(grep -i 'given back' "$TMP/out" | head -3 | tr '\n' ' ')"
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
	expect_json "split: the summary says held by deferred split, charged (not 'got none'), huge pages or not" "$TMP/split.json" \
		'"held by deferred split" in d["summary"] and "charged" in d["summary"] and "got none" not in d["summary"]'
else
	expect_json "split: held unknown without root, never 0" "$TMP/split.json" \
		'd["ledger"]["held_kb"] is None and d["ledger"]["held_unknown"] == "denied"'
fi

# ---- creep ------------------------------------------------------------------
t why "$CREEP" --json
cp "$TMP/out" "$TMP/creep.json"
expect_json "creep: 212 pages per uncollapsed PMD range at max_ptes_none=511" "$TMP/creep.json" \
	'd["ledger"]["max_ptes_none"] != 511 or (d["ledger"]["creep_max_kb"] == d["ledger"]["creep_pmd_ranges"] * 848 and d["ledger"]["creep_pmd_ranges"] + d["ledger"]["huge_backed_kb"] // 2048 == 32)'

# ---- issue 22: the first line of why names the largest cost --------------------
RECOL='' CREEP16='' LAZY=''
start_helper RECOL "$H" recollapse 128
start_helper CREEP16 "$H" creep16 256
start_helper LAZY "$H" lazyfree 256
export RECOL CREEP16 LAZY
if [ -z "$RECOL" ]; then
	: # start_helper said why
elif [ "$ROOT" = 1 ]; then
	t why "$RECOL" --json
	cp "$TMP/out" "$TMP/recol.json"
	expect_json "recollapse: huge pages beside >100 MiB held; the first line names the held bytes" "$TMP/recol.json" \
		'd["ledger"]["huge_backed_kb"] > 0 and d["ledger"]["held_kb"] > 102400 and d["ledger"]["largest_flagged_cost"] == "held" and "is held by deferred split" in d["summary"] and "charged to its memory cgroup" in d["summary"]' \
		'(d["summary"], d["ledger"]["huge_backed_kb"], d["ledger"]["held_kb"])'
	t why "$RECOL"
	expect_eval "recollapse (text): what to change, for the deferred split" \
		'grep -q "^what to change" "$TMP/out" && grep -q "mechanism   deferred split after frees" "$TMP/out"' \
		"$(sed -n '/^what to change/,$p' "$TMP/out" | head -4 | tr '\n' ' ')"
else
	skip "recollapse: held" "needs root (pagemap PFNs, kpageflags)"
fi
if [ -n "$CREEP16" ]; then
	t why "$CREEP16" --json
	cp "$TMP/out" "$TMP/creep16.json"
	expect_json "creep16: faulted as small pages before the advice; khugepaged may add the ledger's creep" "$TMP/creep16.json" \
		'd["ledger"]["creep_max_kb"] > 200 * 1024 and d["ledger"]["largest_flagged_cost"] == "creep" and "faulted as small pages before the advice" in d["summary"] and "khugepaged may add up to" in d["summary"] and "not touched yet" not in d["summary"]' \
		'(d["summary"], d["ledger"]["creep_max_kb"])'
	t why "$CREEP16"
	creep_words=$(awk '/^  creep/ { print $4, $5; exit }' "$TMP/out")
	expect_eval "creep16: the first line's bound is the ledger's ($creep_words)" \
		'[ -n "$creep_words" ] && head -n1 "$TMP/out" | grep -qF "khugepaged may add up to $creep_words"' \
		"$(head -n1 "$TMP/out")"
fi
if [ -n "$LAZY" ]; then
	t why "$LAZY" --json
	cp "$TMP/out" "$TMP/lazy.json"
	expect_json "lazyfree: RSS stays, AnonHugePages 0, ~all of it LazyFree, the first line says lazily freed" "$TMP/lazy.json" \
		'd["vmas"]["rss_kb"] >= 240 * 1024 and d["ledger"]["huge_backed_kb"] == 0 and d["ledger"]["lazyfree_kb"] >= 240 * 1024 and d["ledger"]["largest_flagged_cost"] == "lazyfree" and "lazily freed (MADV_FREE)" in d["summary"] and "got none" not in d["summary"]' \
		'(d["summary"], d["vmas"]["rss_kb"], d["ledger"]["lazyfree_kb"])'
	t why "$LAZY"
	expect_eval "lazyfree (text): a lazy free line in the ledger, reclaimed only under memory pressure" \
		'grep -q "^  lazy free .*freed with MADV_FREE but still mapped" "$TMP/out" && grep -q "reclaimed only under memory pressure" "$TMP/out"' \
		"$(grep -A1 'lazy free' "$TMP/out" | tr '\n' ' ')"
	t ps --ledger --json --pid "$LAZY"
	expect_json "ps --ledger --json: lazyfree_kb of the lazyfree helper" "$TMP/out" \
		'proc(E["LAZY"])["ledger"]["lazyfree_kb"] >= 240 * 1024'
	t ps --ledger --pid "$LAZY"
	expect_eval "ps --ledger text: a LAZYFREE column, the row flagged lazyfree>25%" \
		'grep -q "LAZYFREE" "$TMP/out" && grep -q "lazyfree>25%" "$TMP/out"' "$(head -3 "$TMP/out" | tr '\n' ' ')"
	t maps "$LAZY" --json
	expect_json "maps --json: the ledger's lazyfree_kb" "$TMP/out" 'd["ledger"]["lazyfree_kb"] >= 240 * 1024'
fi

# ---- ps --ledger ---------------------------------------------------------------
t ps --ledger --json --pid "$SPARSE,$HEALTHY,$SPLIT"
expect_rc "ps --ledger exits 0" 0
expect_json "ps --ledger: rows carry the ledger, the sparse one flagged" "$TMP/out" \
	'proc(E["SPARSE"])["ledger"]["invented_flagged"] is True and proc(E["HEALTHY"])["ledger"]["invented_kb"] is not None' \
	'[(p["pid"], p.get("ledger")) for p in d["processes"]]'
t ps --ledger --pid "$SPARSE"
expect_eval "ps --ledger text: INVENTED column, estimate marked ~" \
	'grep -q "INVENTED" "$TMP/out" && grep -q "~" "$TMP/out" && grep -q "invented>25%" "$TMP/out"' "$(head -3 "$TMP/out" | tr '\n' ' ')"
# HELD of a process whose folio walk was skipped (no THP, no hg, not enabled=always) is "-"
# with the line that says why; one whose walk ran has a number and no such line
t ps --ledger --json --pid "$$"
cp "$TMP/out" "$TMP/self.json"
skipped=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["processes"][0]["ledger"]; print(1 if p["held_unknown"] == "not-asked" else 0)' "$TMP/self.json" 2>/dev/null)
t ps --ledger --pid "$$"
if [ "$skipped" = 1 ]; then
	expect_eval "ps --ledger: HELD - of a process not walked is explained" \
		'grep -q "^HELD -: not looked for in 1 process without" "$TMP/out"' "$(tail -n 8 "$TMP/out" | tr '\n' ' ')"
else
	expect_eval "ps --ledger: no 'not looked for' line when the walk ran (held_unknown ${skipped:-?})" \
		'[ "$skipped" = 0 ] && ! grep -q "not looked for" "$TMP/out"' "$(tail -n 8 "$TMP/out" | tr '\n' ' ')"
fi
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
if [ -n "$LAZY" ]; then
	# it has no AnonHugePages: exported only with --min-process-ahp 0
	t exporter --once --textfile "$TMP/tf" --process-ledger --top-processes 1000 --min-process-ahp 0
	expect_eval "exporter: the lazyfree helper's LazyFree bytes" \
		'awk -v p="$LAZY" '"'"'$1 ~ "^thp_process_lazyfree_bytes\\{pid=\"" p "\"" && $2 >= 240 * 1048576 {f=1} END {exit !f}'"'"' "$TMP/tf/thp.prom"' \
		"$(grep -E "pid=\"$LAZY\"" "$TMP/tf/thp.prom" | tr '\n' ' ')"
fi
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
