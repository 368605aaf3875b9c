#!/usr/bin/env bash
# Live tests of what thpctl says memory costs (issue 11, items 6 and 10):
#   - collapse reports RSS before/after and the RSS it invented, and refuses a
#     range whose RSS would grow more than --max-inflate (default 2x) unless
#     --force: a 64 MiB region with one 4 KiB page written per 2 MiB would
#     grow 512 times;
#   - ps labels its AnonHuge total as a per-process sum (huge pages shared
#     after fork count in each process) beside meminfo's host-wide count.
#
# Binary: build/asan/thpctl; helper: build/tests/thp_helper (sparse,
# fork-hugepage). Changes no setting: collapse acts on the helper's memory only.
# Run under `flock /tmp/thpctl-live.lock` like every live suite.
#
# Harness: tests/lib.sh (last line "accounting: N passed, M failed, K skipped").
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init accounting

H=build/tests/thp_helper
need_built "$T" "$H"
need_python3
cp "$T" "$TMP/thpctl" && cp "$H" "$TMP/thp_helper" && chmod 755 "$TMP/thpctl" "$TMP/thp_helper" &&
	T=$TMP/thpctl H=$TMP/thp_helper
[ -d "$THP" ] || { skip "accounting" "no $THP: this kernel has no THP"; summary; }

# vma_field PID SIZE_KB FIELD: FIELD (kB) of PID's VMA of exactly SIZE_KB
vma_field() {
	awk -v want="$2" -v f="$3:" '
		/^[0-9a-f]+-[0-9a-f]+ / { insz = 0; next }
		$1 == "Size:" { insz = ($2 == want) }
		insz && $1 == f { print $2; exit }
	' "/proc/$1/smaps"
}

# ==== collapse: RSS, invented bytes, --max-inflate ============================
if [ "$ROOT" -ne 1 ]; then
	skip "collapse --max-inflate" "needs root (CAP_SYS_NICE and ptrace access)"
elif start_helper HS "$H" sparse 64; then
	rss0=$(vma_field "$HS" 65536 Rss)
	if [ -z "$rss0" ] || [ "$rss0" -ge 1024 ]; then
		# enabled=always (someone else's lab run?) made each first touch a whole THP
		skip "collapse --max-inflate" "the sparse region is not sparse (Rss ${rss0:-?} kB): enabled=$(sysfs_choice "$THP/enabled")"
	else
		t collapse "$HS" --dry-run --json
		expect_json "collapse --dry-run: 32 PMDs with 1 page each, estimated RSS growth x512" "$TMP/out" \
			'[r for r in d["ranges"] if r["bytes"] == 64 << 20 and r["present_pages"] == 32 and abs(r["rss_growth_estimate"] - 512) < 0.01]'
		t collapse "$HS" --json
		cp "$TMP/out" "$TMP/refused.json"
		expect_rc "collapse: a range over --max-inflate (default 2) is refused: exit 1" 1
		expect_json "collapse: refused with the reason, nothing attempted" "$TMP/refused.json" \
			'[r for r in d["ranges"] if r["bytes"] == 64 << 20 and not r["attempted"] and "max-inflate" in (r["skipped"] or "")] and d["max_inflate"] == 2'
		rss1=$(vma_field "$HS" 65536 Rss) ahp1=$(vma_field "$HS" 65536 AnonHugePages)
		expect_zero "collapse: refused range untouched (Rss $rss0 -> $rss1 kB, AnonHugePages ${ahp1:-?} kB)" \
			"$([ "$rss1" = "$rss0" ] && [ "${ahp1:-1}" = 0 ]; echo $?)" "Rss $rss0 -> $rss1, AHP $ahp1"
		t collapse "$HS"
		expect_zero "collapse text: the range is skipped, the reason names --max-inflate and --force" \
			"$(grep -q 'skipped' "$TMP/out" && grep -q -- '--max-inflate' "$TMP/out" && grep -q -- '--force' "$TMP/out"; echo $?)" \
			"$(head -c 400 "$TMP/out")"
		t collapse "$HS" --max-inflate 1000 --json
		expect_rc "collapse: --max-inflate above 512 is a usage error" 2
		t collapse "$HS" --force --json
		cp "$TMP/out" "$TMP/forced.json"
		if grep -q '"ENOMEM"' "$TMP/forced.json"; then
			skip "collapse --force: RSS and invented bytes" "ENOMEM: no free huge page on this host now"
		else
			expect_rc "collapse --force: exit 0" 0
			rss2=$(vma_field "$HS" 65536 Rss)
			expect_zero "collapse --force: the region's Rss grew to 64 MiB ($rss0 -> ${rss2:-?} kB)" \
				"$([ "${rss2:-0}" = 65536 ]; echo $?)" "Rss ${rss2:-?} kB"
			# invented = RSS growth of the region's VMA: 65536 - 128 kB
			expect_json "collapse --force --json: rss_before_kb 128, rss_after_kb 65536, invented_kb 65408" "$TMP/forced.json" \
				'[r for r in d["ranges"] if r["bytes"] == 64 << 20 and r["rss_before_kb"] == 128 and r["rss_after_kb"] == 65536 and r["invented_kb"] == 65408 and r["collapsed_bytes"] == 64 << 20] and d["vmrss_after_kb"] - d["vmrss_before_kb"] >= 65408'
		fi
		stop_pid "$HS"
	fi
fi
# a fully written region is under the limit: collapsed (x1.0 estimated)
if [ "$ROOT" -eq 1 ] && start_helper HP "$H" plain 8; then
	t collapse "$HP" --dry-run --json
	if [ "$(vma_field "$HP" 8192 AnonHugePages)" != 0 ]; then
		# PMD-mapped THPs are no work: not planned, no estimate there
		skip "collapse --dry-run: x1.0" "the plain region has THP already: enabled=$(sysfs_choice "$THP/enabled")"
	else
		expect_json "collapse --dry-run: a fully written region is estimated x1.0" "$TMP/out" \
			'[r for r in d["ranges"] if r["bytes"] == 8 << 20 and r["present_pages"] == 2048 and abs(r["rss_growth_estimate"] - 1) < 0.01 and r["skipped"] is None and r["planned_pmds"] == 4 and r["huge_pmds"] == 0]'
	fi
	stop_pid "$HP"
fi

# ==== ps totals: huge pages shared after fork ==================================
if start_helper HF "$H" fork-hugepage 16; then
	export HF HF_CHILD
	ahp=$(vma_field "$HF" 16384 AnonHugePages)
	cahp=$(vma_field "$HF_CHILD" 16384 AnonHugePages)
	if [ "${ahp:-0}" -lt 16384 ] || [ "${cahp:-0}" -lt 16384 ]; then
		skip "ps totals after fork" "no 16 MiB of THP in parent and child (${ahp:-?} / ${cahp:-?} kB; enabled=$(sysfs_choice "$THP/enabled"))"
	else
		t ps --pid "$HF,$HF_CHILD" --json
		expect_json "ps --json: parent and child each show the 16 MiB of shared THPs, read live" "$TMP/out" \
			'proc(E["HF"])["anon_huge_kb"] >= 16384 and proc(E["HF_CHILD"])["anon_huge_kb"] >= 16384 and d["source"] == "live"' \
			'[d["source"], d["processes"]]'
		expect_json "ps --json totals: the sum counts them twice, labelled per-process, host-wide beside it" "$TMP/out" \
			'd["totals"]["anon_huge_kb"] >= 32768 and d["totals"]["anon_huge_kb_is_per_process_sum"] is True and isinstance(d["totals"]["host_anon_huge_pages_kb"], int)'
		t ps --pid "$HF,$HF_CHILD"
		host=$(awk '$1 == "AnonHugePages:" { print $2 }' /proc/meminfo)
		expect_zero "ps text: the total is labelled a per-process sum (fork), meminfo shown as host-wide (${host:-?} kB now)" \
			"$(grep -q '^total AnonHuge .* is a per-process sum: a huge page shared after fork counts in each process' "$TMP/out" &&
				grep -q 'host-wide AnonHugePages (meminfo' "$TMP/out"; echo $?)" "$(tail -n 3 "$TMP/out")"
	fi
	stop_pid "$HF"
fi

expect_sanitizers_quiet "sanitizers quiet"
summary
