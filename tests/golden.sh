#!/usr/bin/env bash
# Golden tests: replay every recorded tree under tests/fixtures/ through thpctl
# (ASan+UBSan build) and compare stdout with tests/expected/<cmd>-<fixture>.txt
# (.json for --json). Also checks that every --json output parses, that nothing
# crashed or tripped a sanitizer, and which findings each fixture must produce.
#
#   tests/golden.sh            compare
#   tests/golden.sh --update   rewrite the expected files (then read the diff!)
#
# Environment: THPCTL=path overrides build/asan/thpctl.
# Harness: tests/lib.sh (ok/not ok lines, the last line "golden: N passed,
# M failed, 0 skipped", exit status 1 on failures).

# replay_env: a deterministic environment for the program under test
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
replay_env
suite_init golden

BIN=$T
FIX=tests/fixtures
EXP=tests/expected
update=0
case ${1:-} in
--update) update=1 ;;
"") ;;
-h | --help)
	sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "usage: tests/golden.sh [--update]" >&2
	exit 2
	;;
esac

# Findings each fixture must produce, exactly (id:severity, any order).
# A new fixture needs a line here; the ids are those of src/model/findings.c.
declare -A FINDINGS=(
	[linux-6.18-x86]="shrink-underused-noop:info"
	[linux-4.14-x86]="always-max-ptes-none:warn cow-copy:warn compact-stall:info"
	[frag-always-x86]="defrag-always:warn always-max-ptes-none:warn fault-success-low:warn compact-stall:warn deferred-split:info hugetlb-idle:warn khugepaged-cpu:warn shrink-underused-noop:info"
	[arm64-64k]="large-pmd:info mthp-no-stats:warn"
	[readonly-container]="settings-read-only:info shrink-underused-noop:info"
	[malformed]="shrink-underused-noop:info"
	[cgroups-v2-x86]="shrink-underused-noop:info"
	[numa-2node-x86]="shrink-underused-noop:info"
	[tuned-x86]="shrink-underused-noop:info tuned-sets-thp:warn"
	[alloc-x86]="shrink-underused-noop:info"
	[rhel6-x86]="defrag-always:warn always-max-ptes-none:warn cow-copy:warn"
	[sos-enabled-only]=""
)
# Fixtures that must not have a warn or crit finding (a healthy host).
HEALTHY="linux-6.18-x86"
# Fixtures whose status must say "partial" (text) / "partial": true (JSON).
PARTIAL="malformed sos-enabled-only"

if [ ! -x "$BIN" ]; then
	nok "preflight" "no $BIN: build it first (make build/asan/thpctl)"
	summary
fi

json_ok() { # FILE: whether it parses as JSON
	if command -v python3 >/dev/null 2>&1; then
		python3 -m json.tool "$1" >/dev/null 2>&1
	elif command -v jq >/dev/null 2>&1; then
		jq -e . "$1" >/dev/null 2>&1
	else
		echo "      (no python3 or jq to parse JSON)"
		return 1
	fi
}

# id:severity pairs of a status --json output (jansson prints "id" then "severity")
finding_pairs() {
	awk -F'"' '$2 == "id" { id = $4; next }
		   $2 == "severity" && id != "" { print id ":" $4; id = "" }' "$1" | LC_ALL=C sort
}

fixtures=()
for d in "$FIX"/*/; do
	[ -d "$d" ] && fixtures+=("$(basename "$d")")
done
if [ ${#fixtures[@]} -eq 0 ]; then
	nok "fixtures" "none under $FIX"
	summary
fi

cmds=("status" "status --json" "status --brief" "status --brief --json" "ps --all" "ps --all --json")
# More commands for some fixtures, '|'-separated (pids as recorded there).
declare -A EXTRA=(
	[linux-6.18-x86]="maps 30730|maps 30730 --json|maps 30734|maps 30734 --json|ps --rollup --all|ps --pid 30732,30734 --json|ps --ledger --pid 1|ps --ledger --pid 1 --json|why 30730|why 30730 --json|why 30732|why 30734|why 30734 --json|why 1|advise|advise --json|advise --workload redis --workload mongodb8|advise --workload redis --workload mongodb8 --json|advise --workload postgres,jvm|advise --workload latency-critical,throughput-batch|hugetlb plan --for 8G|hugetlb plan --for 8G --json|hugetlb plan --for 8G --page 1G --overhead 25|cgroups|cgroups --json|ps --all --by cgroup"
	[linux-4.14-x86]="maps 30730|why 30730|why 30734|advise --workload redis,postgres|hugetlb plan --for 8G"
	[malformed]="maps 30735|maps 30735 --json|maps 30730|why 30730|why 30732 --json|why 30735|advise|hugetlb plan --for 8G"
	[frag-always-x86]="why 30730|advise|advise --json|advise --workload dense-containers|hugetlb plan --for 8G|hugetlb plan --for 8G --json"
	[arm64-64k]="why 30730|advise --workload throughput-batch|hugetlb plan --for 8G"
	[readonly-container]="advise --workload mongodb"
	[cgroups-v2-x86]="cgroups|cgroups --json|cgroups --top 2|ps --all --by cgroup|ps --all --by cgroup --json|ps --by cgroup"
	[tuned-x86]="persist --format tuned|persist --format tuned --json|persist --format cmdline|hugetlb plan --for 8G --page 1G"
	[alloc-x86]="why 30740|why 30740 --json|why 30742|why 30744|why 30744 --json|ps --ledger --all|ps --ledger --all --json"
	[rhel6-x86]="maps 30730|why 30730|advise|advise --json|hugetlb plan --for 8G"
)
# Fixtures that hold too little for the usual commands: only these (ps there exits 1, no proc/).
declare -A ONLY=(
	[sos-enabled-only]="status|status --json|status --brief|status --brief --json|advise"
)

# git keeps only the x bit: put back the modes recorded in each fixture's MODES
tests/restore-modes || nok "fixture modes" "cannot restore them from MODES"
mkdir -p "$EXP"
declare -A used=()
for fx in "${fixtures[@]}"; do
	fcmds=("${cmds[@]}")
	[ -n "${ONLY[$fx]+set}" ] && IFS='|' read -r -a fcmds <<<"${ONLY[$fx]}"
	if [ -n "${EXTRA[$fx]+set}" ]; then
		IFS='|' read -r -a more <<<"${EXTRA[$fx]}"
		fcmds+=("${more[@]}")
	fi
	for cmd in "${fcmds[@]}"; do
		read -r -a argv <<<"$cmd"
		slug=${cmd// --json/}
		slug=${slug// --/-}
		slug=${slug// /-}
		slug=${slug//,/-}
		ext=txt
		[[ " $cmd " == *" --json "* ]] && ext=json
		exp="$EXP/$slug-$fx.$ext"
		used[$exp]=1
		name="$cmd  [$fx]"
		out=$TMP/out err=$TMP/err
		"$BIN" --no-color --sysroot "$FIX/$fx" "${argv[@]}" >"$out" 2>"$err"
		rc=$?
		if [ "$rc" -ne 0 ] || grep -qE 'Sanitizer|runtime error:' "$err"; then
			nok "$name" "exit status $rc"
			sed 's/^/      /' "$err" | head -40
			continue
		fi
		if [ "$update" = 1 ]; then
			if ! cmp -s "$out" "$exp" 2>/dev/null; then
				cp "$out" "$exp"
				echo "      updated $exp"
			fi
			ok "$name"
		elif [ ! -f "$exp" ]; then
			nok "$name" "no $exp (run tests/golden.sh --update and read it)"
		elif cmp -s "$out" "$exp"; then
			ok "$name"
		else
			nok "$name" "output differs from $exp"
			diff -u "$exp" "$out" | head -80 | sed 's/^/      /'
		fi
		if [ "$ext" = json ]; then
			if json_ok "$out"; then
				ok "$name: valid JSON"
			else
				nok "$name: valid JSON" "invalid JSON"
			fi
		fi
		if [ "$cmd" = "status" ]; then
			says=no
			head -n1 "$out" | grep -q 'partial' && says=yes
			if [[ " $PARTIAL " == *" $fx "* ]]; then
				if [ $says = yes ]; then
					ok "$fx: status says partial"
				else
					nok "$fx: status says partial" "not on its first line"
				fi
			elif [ $says = yes ]; then
				nok "$fx: status is not partial" "it says partial"
			else
				ok "$fx: status is not partial"
			fi
		fi
		if [ "$cmd" = "status --json" ]; then
			if [ -z "${FINDINGS[$fx]+set}" ]; then
				nok "$fx: findings" "no expected findings in the FINDINGS table of $0"
			else
				want=$(tr ' ' '\n' <<<"${FINDINGS[$fx]}" | sed '/^$/d' | LC_ALL=C sort)
				got=$(finding_pairs "$out")
				if [ "$want" = "$got" ]; then
					ok "$fx: findings ${FINDINGS[$fx]:-(none)}"
				else
					nok "$fx: findings ${FINDINGS[$fx]:-(none)}" "findings differ (- expected, + got)"
					diff <(echo "$want") <(echo "$got") | grep '^[<>]' |
						sed -e 's/^</      -/' -e 's/^>/      +/'
				fi
			fi
			if [[ " $HEALTHY " == *" $fx "* ]]; then
				if grep -qE '"severity": "(warn|crit)"' "$out"; then
					nok "$fx: no warn/crit finding" "a healthy host has a warn/crit finding"
				else
					ok "$fx: no warn/crit finding"
				fi
			fi
			want_partial=false
			[[ " $PARTIAL " == *" $fx "* ]] && want_partial=true
			if grep -q "^  \"partial\": $want_partial," "$out"; then
				ok "$fx: partial is $want_partial"
			else
				nok "$fx: partial is $want_partial" "\"partial\" is not $want_partial"
			fi
		fi
	done
done

# status: the verdict (worst finding per area) comes before the detail, one line
# per area with a finding, each naming a thpctl command; the findings' fixes are
# thpctl commands, never a raw write to /sys
for fx in "${fixtures[@]}"; do
	s=$EXP/status-$fx.txt
	[ -f "$s" ] || continue
	v=$(grep -n '^Verdict' "$s" | cut -d: -f1)
	k=$(grep -n '^Kernel' "$s" | cut -d: -f1)
	areas=$(grep -c '^  \(warn\|crit\|info\)  ' "$s")
	want=$(sed -n 's/^  \[\(warn\|crit\|info\)\] \([a-z]*\):.*/\2/p' "$s" | sort -u | wc -l)
	if [ -n "$v" ] && [ -n "$k" ] && [ "$v" -lt "$k" ] && [ "$areas" -eq "$want" ] &&
		! grep -q 'fix: *echo .*/transparent_hugepage/' "$s"; then
		ok "$fx: status verdict first, $areas area line(s), fixes as thpctl commands"
	else
		nok "$fx: status verdict first" "Verdict line ${v:-none}, Kernel line ${k:-none}, $areas area lines for $want areas, or an echo fix"
	fi
done

# every thpctl command a report suggests runs as printed (verdict and findings: more, fix,
# persist; advise: set, persist): no usage error (exit 2) on its own tree. A set is run with
# --dry-run and a persist without --install (they would write), and not on a tree whose
# settings are read-only (they are for the host there: finding settings-read-only); a
# command that needs the live host (watch) may refuse the tree, saying so; 3 s at most each
suggested() { # JSON FILE: one suggested thpctl command a line, a "  # comment" cut off
	python3 - "$1" <<'PY'
import json, sys
def walk(o, key=None):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from walk(v, k)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v, key)
    elif isinstance(o, str) and key in ("more", "fix", "persist", "set") and o.startswith("thpctl "):
        yield o.split("  #")[0].strip()
for c in sorted(set(walk(json.load(open(sys.argv[1]))))):
    print(c)
PY
}
ran=0 bad=""
for fx in "${fixtures[@]}"; do
	"$BIN" --no-color --sysroot "$FIX/$fx" status --json >"$TMP/sugg-s.json" 2>/dev/null
	ro=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["policy"]["writable"] is False))' "$TMP/sugg-s.json" 2>/dev/null)
	"$BIN" --no-color --sysroot "$FIX/$fx" advise --json >"$TMP/sugg-a.json" 2>/dev/null
	while IFS= read -r line; do
		read -r -a w <<<"${line#thpctl }"
		case ${w[0]} in
		set | persist) [ "$ro" = 1 ] && continue ;;
		esac
		case ${w[0]} in
		set) w+=(--dry-run) ;;
		persist) for i in "${!w[@]}"; do [ "${w[$i]}" = --install ] && unset "w[$i]"; done ;;
		esac
		timeout 3 "$BIN" --no-color --sysroot "$FIX/$fx" "${w[@]}" >/dev/null 2>"$TMP/sugg.err"
		rc=$?
		ran=$((ran + 1))
		[ "$rc" -eq 2 ] && grep -qE 'a recorded tree does not move|not with --sysroot' "$TMP/sugg.err" && continue
		if [ "$rc" -eq 2 ] || grep -qE 'Sanitizer|runtime error:' "$TMP/sugg.err"; then
			bad+=" [$fx: $line: exit $rc: $(head -c 120 "$TMP/sugg.err" | tr '\n' ' ')]"
		fi
	done < <(cat <(suggested "$TMP/sugg-s.json") <(suggested "$TMP/sugg-a.json") | sort -u)
done
if [ "$ran" -gt 20 ] && [ -z "$bad" ]; then
	ok "every suggested thpctl command parses ($ran run on the recorded trees)"
else
	nok "suggested thpctl commands parse" "$ran run;${bad:- too few}"
fi

# status: a '-' cell (not the verdict's severity column) comes with the legend line that says
# what it means; a cmdline read without transparent_hugepage= is "not set", not '-'; sizes
# with no attempts say so, not '-'
for fx in "${fixtures[@]}"; do
	for s in "$EXP/status-$fx.txt" "$EXP/status-brief-$fx.txt"; do
		[ -f "$s" ] || continue
		dashes=$(grep -v '^  -     no finding in' "$s" | grep -cE '(  |^)-( |$)')
		legend=$(grep -c "^  '-': " "$s")
		if { [ "$dashes" -gt 0 ] && [ "$legend" = 1 ]; } || { [ "$dashes" = 0 ] && [ "$legend" = 0 ]; }; then
			ok "$(basename "$s"): $dashes line(s) with '-', $legend legend line"
		else
			nok "$(basename "$s"): a legend line exactly when '-' is shown" "$dashes line(s) with '-', $legend legend line(s)"
		fi
	done
done
s=$EXP/status-linux-6.18-x86.txt
if grep -q '^  cmdline transparent_hugepage=     not set$' "$s" &&
	grep -q '^  8kB fault success            -$' "$s" && grep -q '^  16kB fault success           no attempts yet$' "$s" &&
	grep -q "^  '-': no anon THP of that size (shmem/file only); hugetlb resv is counted for all nodes only$" "$s" &&
	grep -q '^  cmdline transparent_hugepage=     -$' "$EXP/status-sos-enabled-only.txt" &&
	grep -q "^  '-': no such file or counter, or not readable (partial, above); unknown" "$EXP/status-sos-enabled-only.txt" &&
	grep -q "^  '-': no such file or counter in the recorded tree; hugetlb resv" "$EXP/status-rhel6-x86.txt"; then
	ok "status: cmdline 'not set' (6.18) vs '-' (not recorded), 8kB shmem-only, 16kB no attempts, each legend"
else
	nok "status: cmdline, 8kB, 16kB and the legend" "$(grep -e cmdline -e '8kB fault' -e "'-'" "$s" | tr '\n' '|')"
fi

# tables fit a terminal (script(1) gives a pty, wrapped as a user sees it: THPCTL_WIDE unset):
# names cut with '~' only where the row then fits, numbers whole, sentences wrapped and never
# cut; not a terminal: nothing cut, whatever COLUMNS says
if command -v script >/dev/null 2>&1; then
	fx=$FIX/frag-always-x86
	tty_status() {
		env -u THPCTL_WIDE COLUMNS="$1" script -qec "$BIN --no-color --sysroot $fx status" \
			/dev/null | tr -d '\r' >"$TMP/tty"
	}
	tty_status 80
	long=$(awk 'length($0) > 80' "$TMP/tty" | head -3)
	if [ -s "$TMP/tty" ] && [ -z "$long" ] &&
		grep -q '^  warn  hugetlb  *hugetlb pool of 512 x 2048 kB (1024 MiB) is reserved and$' "$TMP/tty" &&
		! grep -q '~' "$TMP/tty" &&
		grep -q '^  khugepaged/alloc_sleep_millisecs  60000$' "$TMP/tty"; then
		ok "status on an 80-column terminal: verdict wrapped whole, tables fit, no name cut (a long value wraps), numbers whole"
	else
		nok "status on an 80-column terminal" "lines over 80: ${long:-none}; cut: $(grep -m1 '~' "$TMP/tty"); $(grep -m1 'warn  hugetlb' "$TMP/tty")"
	fi
	tty_status 40
	long=$(awk 'length($0) > 40' "$TMP/tty" | head -3)
	if [ -z "$long" ] && grep -q '^  PMD size (hpage_pmd_size)      2048 kB$' "$TMP/tty" &&
		grep -q '^  khugepage~_ptes_none  511$' "$TMP/tty" &&
		grep -q '^  khugepage~_ptes_swap  64$' "$TMP/tty"; then
		ok "status on a 40-column terminal: names cut in the middle with '~' where the row then fits, values whole"
	else
		nok "status on a 40-column terminal" "lines over 40: ${long:-none}; $(grep -m2 -e 'PMD size' -e ptes_swap "$TMP/tty")"
	fi
	COLUMNS=40 "$BIN" --no-color --sysroot "$fx" status >"$TMP/pipe"
	if cmp -s "$TMP/pipe" "$EXP/status-frag-always-x86.txt" && ! grep -q '~' "$TMP/pipe"; then
		ok "status into a pipe with COLUMNS=40: nothing cut"
	else
		nok "status into a pipe with COLUMNS=40" "output differs from the golden file"
	fi
else
	skip "status on a terminal" "no script(1)"
fi
# u64 counters above 2^63-1 come out exactly in JSON (jansson alone would clamp them):
# the recorded 6.18 tree with two vmstat counters set to 2^64-1 and 2^63
u64=$TMP/u64-tree
rm -rf "$u64" && cp -a "$FIX/linux-6.18-x86" "$u64" &&
	sed -i -e 's/^thp_split_page .*/thp_split_page 18446744073709551615/' \
		-e 's/^thp_deferred_split_page .*/thp_deferred_split_page 9223372036854775808/' \
		"$u64/proc/vmstat"
for cmd in "status --json" "exporter --once --json"; do
	read -r -a argv <<<"$cmd"
	"$BIN" --no-color --sysroot "$u64" "${argv[@]}" >"$TMP/u64.json" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		nok "u64 exact: $cmd" "exit status $rc"
		continue
	fi
	if python3 - "$TMP/u64.json" "$cmd" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
want = [18446744073709551615, 9223372036854775808]
if sys.argv[2].startswith("status"):
    vm = d["since_boot"]["vmstat"]
    got = [vm["thp_split_page"], vm["thp_deferred_split_page"]]
else:
    by = {m["name"]: m["samples"][0]["value"] for m in d["families"]}
    got = [by["thp_split_page_total"], by["thp_deferred_split_page_total"]]
print("      got", got)
sys.exit(0 if got == want else 1)
PY
		ok "u64 exact: $cmd (2^64-1 and 2^63 as JSON numbers)"
	else
		nok "u64 exact: $cmd" "2^64-1 / 2^63 not exact, or invalid JSON"
		grep -nE '18446744073709551615|9223372036854775808|9223372036854775807' "$TMP/u64.json" |
			head -5 | sed 's/^/      /'
	fi
done
rm -rf "$u64"

# absent in a recorded tree is not absent in the kernel: a 6.18 tree without its
# hugepages-<size>kB/ directories says "not recorded", never "kernel < 6.8"; the
# overflowing success ratio of the same tree is unknown, never above 100%
nr=$TMP/no-mthp-tree
rm -rf "$nr" && cp -a "$FIX/linux-6.18-x86" "$nr" && rm -rf "$nr"/sys/kernel/mm/transparent_hugepage/hugepages-* &&
	sed -i -e 's/^thp_fault_alloc .*/thp_fault_alloc 18446744073709551615/' \
		-e 's/^thp_fault_fallback .*/thp_fault_fallback 9223372036854775807/' "$nr/proc/vmstat"
"$BIN" --no-color --sysroot "$nr" status >"$TMP/nr.txt" 2>/dev/null
if grep -q 'mTHP sizes (anon) *not recorded (kernel 6.18' "$TMP/nr.txt" && ! grep -q 'kernel < 6.8' "$TMP/nr.txt"; then
	ok "a 6.18 tree without mTHP directories: not recorded, not 'kernel < 6.8'"
else
	nok "mTHP not recorded" "$(grep -m1 'mTHP sizes' "$TMP/nr.txt")"
fi
if ! grep -qE '[0-9]{3,}\.[0-9]%|[2-9][0-9]{2}\.[0-9]%' "$TMP/nr.txt" && grep -q 'PMD fault success *-' "$TMP/nr.txt"; then
	ok "a success ratio whose sum overflows is '-', never above 100%"
else
	nok "success ratio overflow" "$(grep -m1 'fault success' "$TMP/nr.txt")"
fi
rm -rf "$nr"

# RHEL 6 keeps THP under redhat_transparent_hugepage/: read it as the THP tree
rh=$TMP/rhel6-tree
rm -rf "$rh" && cp -a "$FIX/linux-4.14-x86" "$rh" &&
	mv "$rh/sys/kernel/mm/transparent_hugepage" "$rh/sys/kernel/mm/redhat_transparent_hugepage" &&
	echo 2.6.32-754.el6.x86_64 >"$rh/proc/sys/kernel/osrelease"
"$BIN" --no-color --sysroot "$rh" status --json >"$TMP/rh.json" 2>/dev/null
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ids=[f["id"] for f in d["findings"]]; sys.exit(0 if d["kernel"]["capabilities"]["thp"] is True and "cow-copy" in ids else 1)' "$TMP/rh.json" 2>/dev/null; then
	ok "a RHEL 6 tree (redhat_transparent_hugepage/): THP built in, the COW-copy finding"
else
	nok "RHEL 6 tree" "$(head -c 300 "$TMP/rh.json")"
fi
rm -rf "$rh"

# RHEL 6 writes go where its knobs are: set --dry-run and persist name redhat_transparent_hugepage/
rh6=$FIX/rhel6-x86
if "$BIN" --no-color --sysroot "$rh6" set --dry-run enabled=never >"$TMP/rh6set.txt" 2>&1 &&
	grep -qx 'echo never > /sys/kernel/mm/redhat_transparent_hugepage/enabled' "$TMP/rh6set.txt" &&
	"$BIN" --no-color --sysroot "$rh6" persist enabled=never >"$TMP/rh6p.txt" 2>&1 &&
	grep -q '^w /sys/kernel/mm/redhat_transparent_hugepage/enabled - - - - never$' "$TMP/rh6p.txt" &&
	! grep -q '/transparent_hugepage/' "$TMP/rh6set.txt" "$TMP/rh6p.txt"; then
	ok "a RHEL 6 tree: set --dry-run and persist write under redhat_transparent_hugepage/"
else
	nok "RHEL 6 write paths" "$(cat "$TMP/rh6set.txt" "$TMP/rh6p.txt" | head -c 400)"
fi

# cgroup v1 (sys/fs/cgroup/memory): total_rss_huge as anon THP, 2^63-4096 as "max", the v2-only
# columns left out of the table and null in JSON, the near-limit flag on the child; the kernel
# thread (38) not counted, a PID not recorded (4242) unknown, not gone
v1=$TMP/cgroup-v1-tree
rm -rf "$v1" && cp -a "$FIX/linux-6.18-x86" "$v1" && mkdir -p "$v1/sys/fs/cgroup/memory/app" &&
	printf '1\n38\n30730\n' >"$v1/sys/fs/cgroup/memory/cgroup.procs" &&
	printf 'rss 8253440\nrss_huge 0\ntotal_rss 86540288\ntotal_rss_huge 8388608\n' >"$v1/sys/fs/cgroup/memory/memory.stat" &&
	echo 3402305536 >"$v1/sys/fs/cgroup/memory/memory.usage_in_bytes" &&
	echo 9223372036854771712 >"$v1/sys/fs/cgroup/memory/memory.limit_in_bytes" &&
	printf '30732\n30734\n4242\n' >"$v1/sys/fs/cgroup/memory/app/cgroup.procs" &&
	printf 'rss 8503296\nrss_huge 4194304\ntotal_rss 8503296\ntotal_rss_huge 4194304\n' >"$v1/sys/fs/cgroup/memory/app/memory.stat" &&
	echo 99614720 >"$v1/sys/fs/cgroup/memory/app/memory.usage_in_bytes" &&
	echo 104857600 >"$v1/sys/fs/cgroup/memory/app/memory.limit_in_bytes"
"$BIN" --no-color --sysroot "$v1" cgroups >"$TMP/v1.txt" 2>&1
"$BIN" --no-color --sysroot "$v1" cgroups --json >"$TMP/v1.json" 2>&1
if grep -q '^Memory cgroups: cgroup v1 at /sys/fs/cgroup/memory, 2 cgroups$' "$TMP/v1.txt" &&
	grep -q "^  CURRENT of / (v1 memory.usage_in_bytes) is the kernel's estimate for the whole host: page cache + anon, no kernel memory; a child's CURRENT counts its kernel memory too, so it can be larger than the root's$" "$TMP/v1.txt" &&
	grep -q "^  USE none: no limit (MAX max)$" "$TMP/v1.txt" &&
	grep -q '^  /        8192 kB      9.7%  3.17 GiB        max   none      5     2+1?$' "$TMP/v1.txt" &&
	grep -q '^  not in any memory.stat shown (unknown): file_thp shmem_thp thp_fault_alloc thp_collapse_alloc$' "$TMP/v1.txt" &&
	grep -q '^  CGROUP  ANON_THP  THP/ANON   CURRENT  *MAX  *USE  PROCS  THP_OFF$' "$TMP/v1.txt" &&
	grep -q '^  /app     4096 kB     49.3%  95.0 MiB  100.0 MiB  95.0%      3     2+1?$' "$TMP/v1.txt" &&
	grep -q '^  \[warn\] near-limit-thp: /app uses 95.0 MiB of memory.limit_in_bytes 100.0 MiB (95.0%) and holds 4096 kB of anon THP$' "$TMP/v1.txt" &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r, a = d["cgroups"]
sys.exit(0 if d["cgroup_version"] == 1 and d["hierarchy"] == "/sys/fs/cgroup/memory" and r["path"] == "/" and r["anon_thp_bytes"] == 8388608 and r["memory_max_limited"] is False
         and r["procs"] == 5 and r["procs_thp_disabled"] == 2 and a["path"] == "/app" and a["procs_status_unreadable"] == 1 and a["anon_thp_bytes"] == 4194304
         and a["file_thp_bytes"] is None and a["thp_fault_alloc"] is None and a["memory_max_bytes"] == 104857600
         and a["near_limit_with_thp"] is True else 1)' "$TMP/v1.json"; then
	ok "cgroups on a v1 tree: /sys/fs/cgroup/memory, total_rss_huge, no limit at 2^63-4096, v2-only columns out / null, /app flagged, the root's CURRENT an estimate, USE none: no limit, the flag names memory.limit_in_bytes"
else
	nok "cgroups on a v1 tree" "$(head -c 900 "$TMP/v1.txt" | tr '\n' '|')"
fi
rm -rf "$v1"

# --json and a PID with nothing to show (docs/json.md): stdout empty, exit 1, why on stderr,
# the same words from maps, why and ps. In the 6.18 tree: no proc/999999; pid 38 is
# khugepaged, recorded with its stat only (PF_KTHREAD); a copy adds a zombie (no VmRSS,
# stat state Z), a process whose status is damaged and a thread (proc/TID: Tgid another)
zt=$TMP/pid-errors-tree
rm -rf "$zt" && cp -a "$FIX/linux-6.18-x86" "$zt" && mkdir -p "$zt/proc/4243" "$zt/proc/4244" &&
	printf 'Name:\tdefunct\nTgid:\t4243\nPPid:\t1\nUid:\t0\t0\t0\t0\n' >"$zt/proc/4243/status" &&
	sed -e 's/^38 (khugepaged) S 2 0 0 0 -1 2097216/4243 (defunct) Z 1 0 0 0 -1 4227084/' \
		"$zt/proc/38/stat" >"$zt/proc/4243/stat" &&
	echo garbage >"$zt/proc/4244/status" &&
	cp -a "$zt/proc/30730" "$zt/proc/30731" &&
	sed -i 's/^Pid:\t30730$/Pid:\t30731/' "$zt/proc/30731/status" &&
	sed -e 's/^38 (khugepaged) S 2 0 0 0 -1 2097216/4244 (app) S 1 0 0 0 -1 4194560/' \
		"$zt/proc/38/stat" >"$zt/proc/4244/stat"
pid_err() { # ARGS...: run on the copy; "RC|STDOUT BYTES|STDERR" on stdout
	"$BIN" --no-color --sysroot "$zt" "$@" >"$TMP/pe.out" 2>"$TMP/pe.err"
	local rc=$?
	echo "$rc|$(wc -c <"$TMP/pe.out")|$(cat "$TMP/pe.err")"
}
for c in "maps 999999 --json|maps|process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" \
	"why 999999 --json|why|process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" \
	"ps --pid 999999 --json|ps|process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" \
	"ps --pid 999999 --by cgroup --json|ps|process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" \
	"maps 999999|maps|process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" \
	"maps 38 --json|maps|process 38 is a kernel thread: it has no memory map to show" \
	"why 38 --json|why|process 38 is a kernel thread: it has no memory map to show" \
	"ps --pid 38 --json|ps|process 38 is a kernel thread: it has no memory map to show" \
	"ps --pid 38|ps|process 38 is a kernel thread: it has no memory map to show" \
	"maps 4243 --json|maps|process 4243 is a zombie (exited, not yet reaped): it has no memory map to show" \
	"ps --pid 4243 --json|ps|process 4243 is a zombie (exited, not yet reaped): it has no memory map to show" \
	"why 4244 --json|why|process 4244: its status cannot be read (malformed)" \
	"why 30731|why|30731 is a thread of process 30730, whose memory map it shares: ask about 30730" \
	"maps 30731 --json|maps|30731 is a thread of process 30730, whose memory map it shares: ask about 30730"; do
	IFS='|' read -r args who msg <<<"$c"
	read -r -a argv <<<"$args"
	got=$(pid_err "${argv[@]}")
	want="1|0|thpctl: $who: $msg"
	if [ "$got" = "$want" ]; then
		ok "$args: exit 1, nothing on stdout, '$msg'"
	else
		nok "$args: exit 1, nothing on stdout, '$msg'" "got '$got'"
	fi
done
# a list: a line for each PID with nothing to show; one that has a row is shown, exit 0, and the
# others still say why they are not
got=$(pid_err ps --pid 38,999999 --json)
if [ "$got" = "1|0|thpctl: ps: process 38 is a kernel thread: it has no memory map to show
thpctl: ps: process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" ] && [ "$(pid_err ps --pid 30730,999999 --json | cut -d'|' -f1,3)" = "0|thpctl: ps: process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" ]; then
	ok "ps --pid 38,999999 --json: a line for each, exit 1; with 30730: its row, exit 0, a line for 999999"
else
	nok "ps --pid 38,999999 --json" "got '$got'"
fi
# set refused before any write (a value this kernel does not take): exit 2, no document
got=$(pid_err set enabled=sometimes --dry-run --json | head -n1 | cut -d"|" -f1,2)
if [ "$got" = "2|0" ]; then
	ok "set enabled=sometimes --dry-run --json: exit 2, nothing on stdout"
else
	nok "set enabled=sometimes --dry-run --json: exit 2, nothing on stdout" "got '$got'"
fi
rm -rf "$zt"

# the dry runs' shell lines at 80 columns: broken only between words (" \"), so sh reads the
# same commands (the stdout filter broke "echo within_size >" from its path)
for c in "set --dry-run hugepages-64kB/shmem_enabled=within_size enabled=always" \
	"--sysroot $FIX/linux-4.14-x86 snapshot restore $TMP/s618.snap --dry-run"; do
	[ -e "$TMP/s618.snap" ] || "$BIN" --sysroot "$FIX/linux-6.18-x86" snapshot save "$TMP/s618.snap" >/dev/null 2>&1
	read -r -a argv <<<"$c"
	[ "${argv[0]}" = --sysroot ] || argv=(--sysroot "$FIX/linux-6.18-x86" "${argv[@]}")
	COLUMNS=80 "$BIN" --no-color "${argv[@]}" >"$TMP/sh.out" 2>/dev/null
	if sh -n "$TMP/sh.out" 2>"$TMP/sh.err" && grep -q '^echo ' "$TMP/sh.out" &&
		[ "$(sed -e :a -e '/\\$/N; s/ \\\n *//; ta' "$TMP/sh.out" | grep -c '^echo [^ ]* > /sys/kernel/mm/transparent_hugepage/[^ ]*$')" = "$(grep -c '^echo ' "$TMP/sh.out")" ]; then
		ok "$c at 80 columns: sh -n reads its lines, each an 'echo VALUE > PATH'"
	else
		nok "$c at 80 columns: sh -n reads its lines" "$(cat "$TMP/sh.err") $(head -c 300 "$TMP/sh.out")"
	fi
done
# a snapshot with a key seen twice is damaged: refused, the key named (the last used to win)
printf '{"thpctl_snapshot": 1, "kernel": "x", "date": "",\n "knobs": {"defrag": "madvise", "defrag": "never"}}\n' >"$TMP/dup.snap"
for v in "diff" "restore --dry-run"; do
	read -r -a argv <<<"$v"
	"$BIN" --no-color --sysroot "$FIX/linux-6.18-x86" snapshot "${argv[0]}" "$TMP/dup.snap" "${argv[@]:1}" >"$TMP/dup.out" 2>"$TMP/dup.err"
	rc=$?
	want=1 # restore: a failure; diff: trouble, 2 as diff(1) has it (1 is "they differ")
	[ "$v" = diff ] && want=2
	if [ "$rc" = "$want" ] && [ ! -s "$TMP/dup.out" ] && [ "$(cat "$TMP/dup.err")" = "thpctl: snapshot: $TMP/dup.snap: line 2: the key \"defrag\" is given twice (a damaged snapshot)" ]; then
		ok "snapshot $v: a key seen twice is refused, named (exit $want)"
	else
		nok "snapshot $v: a key seen twice is refused" "exit $rc: $(head -c 300 "$TMP/dup.err") $(head -c 200 "$TMP/dup.out")"
	fi
done

# advise --json says partial on a damaged tree (it had no such field)
"$BIN" --no-color --sysroot "$FIX/malformed" advise --json >"$TMP/adv.json" 2>/dev/null
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["partial"] is True and d["missing"] else 1)' "$TMP/adv.json" 2>/dev/null; then
	ok "advise --json on the malformed tree: partial true, missing files listed"
else
	nok "advise --json partial" "$(head -c 300 "$TMP/adv.json")"
fi

# the exporter says once, at its first collection, how many processes it could not read (here:
# not recorded); a text file rewritten every second for 3.5 s says it once, not per rewrite
mkdir -p "$TMP/tf"
timeout -s TERM 3.5 "$BIN" --no-color --sysroot "$FIX/linux-6.18-x86" exporter --textfile "$TMP/tf" \
	-i 1 >/dev/null 2>"$TMP/tf.err"
rc=$?
want="thpctl: exporter: 1 process not recorded in $FIX/linux-6.18-x86 (smaps_rollup unreadable at capture): left out of the per-process metrics"
if [ "$rc" -eq 124 ] && [ "$(cat "$TMP/tf.err")" = "$want" ] &&
	grep -q '^thpctl_processes_unreadable 1$' "$TMP/tf/thp.prom"; then
	ok "exporter --textfile, 4 collections: one line on the unreadable process, not one per collection"
else
	nok "exporter: the unreadable processes said once" "exit $rc, stderr: $(head -c 600 "$TMP/tf.err")"
fi

# --textfile DIR: a missing (mistyped) DIR is refused, named and not made; --mkdir makes it
tf() { "$BIN" --no-color --wide --sysroot "$FIX/linux-6.18-x86" exporter --once --textfile "$@"; }
tf "$TMP/tf-missing" >/dev/null 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 2 ] && [ ! -e "$TMP/tf-missing" ] &&
	[ "$(head -n1 "$TMP/err")" = "thpctl: exporter: --textfile $TMP/tf-missing: no such directory (create it, or add --mkdir)" ]; then
	ok "exporter --textfile MISSING: exit 2, named, not created"
else
	nok "exporter --textfile MISSING" "exit $rc, $(ls -d "$TMP/tf-missing" 2>&1), stderr: $(head -c 300 "$TMP/err")"
fi
tf "$TMP/tf-missing" --mkdir >/dev/null 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(stat -c %a "$TMP/tf-missing")" = 755 ] &&
	grep -q '^thpctl_processes_unreadable 1$' "$TMP/tf-missing/thp.prom"; then
	ok "exporter --textfile MISSING --mkdir: created (0755), thp.prom written"
else
	nok "exporter --textfile MISSING --mkdir" "exit $rc, stderr: $(head -c 300 "$TMP/err")"
fi
# under the unit's UMask=0077 too (node_exporter, another user, must enter it); a directory
# that exists keeps its mode
(umask 077 && tf "$TMP/tf-umask" --mkdir >/dev/null 2>"$TMP/err")
rc=$?
mkdir -m 0700 "$TMP/tf-had"
(umask 077 && tf "$TMP/tf-had" --mkdir >/dev/null 2>>"$TMP/err")
rc2=$?
expect_eval "exporter --textfile MISSING --mkdir under umask 077: 0755; an existing 0700 one kept" \
	'[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$(stat -c %a "$TMP/tf-umask")" = 755 ] &&
	[ "$(stat -c %a "$TMP/tf-had")" = 700 ]' \
	"exit $rc/$rc2, modes $(stat -c %a "$TMP/tf-umask" "$TMP/tf-had" 2>&1), stderr: $(head -c 300 "$TMP/err")"
"$BIN" --no-color --wide exporter --once --mkdir >/dev/null 2>"$TMP/err"
rc=$?
expect_eval "exporter --mkdir without --textfile DIR: exit 2" \
	'[ "$rc" -eq 2 ] && grep -q "^thpctl: exporter: --mkdir goes with --textfile DIR" "$TMP/err"' \
	"exit $rc: $(head -c 300 "$TMP/err")"

# usage errors: exit 2, one prefix ("thpctl: CMD: ", getopt's too), the valid values named
while IFS='|' read -r cmd want; do
	read -r -a argv <<<"$cmd"
	"$BIN" --no-color --wide --sysroot "$FIX/linux-6.18-x86" "${argv[@]}" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(head -n1 "$TMP/err")" = "$want" ]; then
		ok "usage error: $cmd"
	else
		nok "usage error: $cmd" "exit $rc, first line: $(head -n1 "$TMP/err") (want: $want)"
	fi
done <<'EOF_CASES'
ps --by nonsense|thpctl: ps: --by takes cgroup (sums per memory cgroup), not 'nonsense'
ps --sort size|thpctl: ps: --sort takes ahp, rss, share, hg, pid or comm, not 'size'
ps --bogus|thpctl: ps: unrecognized option '--bogus'
why --bogus 1|thpctl: why: unrecognized option '--bogus'
trace stalls --bogus|thpctl: trace stalls: unrecognized option '--bogus'
trace nothing|thpctl: trace: unknown trace 'nothing' (the only one: stalls)
why 1 --hot 1|thpctl: why: --hot clears and then reads the live process's referenced bits; a recorded tree has no process to ask
watch -n 1|thpctl: watch: rates need the live host's counters twice; a recorded tree does not move (its counters: thpctl --sysroot DIR status)
status --brief --sample 1|thpctl: status: --brief has no section for --sample's rates: use one or the other (the full report shows the sample)
exporter -i 5|thpctl: exporter: -i/--interval is the --textfile rewrite interval: not without --textfile
exporter -i 5 --listen 127.0.0.1:0|thpctl: exporter: -i/--interval is the --textfile rewrite interval: not without --textfile
exporter --once -i 5 --textfile -|thpctl: exporter: -i/--interval is the --textfile rewrite interval: not with --once (one write)
exporter --once --listen 127.0.0.1:0|thpctl: exporter: --once collects once and exits: it starts no listener, so not with --listen
exporter --once --cache-ms 500|thpctl: exporter: --cache-ms lets close scrapes share a collection: --once serves one, so not with --once
exporter --cache-ms 0 --once --textfile -|thpctl: exporter: --cache-ms lets close scrapes share a collection: --once serves one, so not with --once
exporter --once --json --textfile /tmp|thpctl: exporter: --json prints the scrape to stdout: not with --textfile (which writes the Prometheus text)
exporter --json|thpctl: exporter: --json goes with --once (to stdout): it prints one scrape as JSON
EOF_CASES

# a plan the recorded host cannot carry out is refused (exit 1), naming what it has instead
while IFS='|' read -r cmd want; do
	read -r -a argv <<<"$cmd"
	"$BIN" --no-color --wide --sysroot "$FIX/linux-6.18-x86" "${argv[@]}" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_eval "refused: $cmd" '[ "$rc" -eq 1 ] && [ ! -s "$TMP/out" ] && [ "$(cat "$TMP/err")" = "$want" ]' \
		"exit $rc: $(head -c 300 "$TMP/err")"
done <<'EOF_CASES'
hugetlb plan --for 8G --node 3|thpctl: hugetlb plan: node 3 is not on this host (/sys/devices/system/node); its nodes: 0
hugetlb plan --for 8G --page 64K|thpctl: hugetlb plan: this kernel has no 64K hugetlb pages (no /sys/kernel/mm/hugepages/hugepages-64kB); its sizes: 2M, 1G
EOF_CASES

# a tree that recorded nodes but no hugetlb pool: a node it lacks is the reason given, not the size
nt="$TMP/nopools"
cp -r "$FIX/linux-6.18-x86" "$nt" && rm -rf "$nt/sys/kernel/mm/hugepages" "$nt"/sys/devices/system/node/node*/hugepages
"$BIN" --no-color --wide --sysroot "$nt" hugetlb plan --for 8G --node 3 >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "refused on a tree without pools: the node it lacks, not a size" \
	'[ "$rc" -eq 1 ] && [ ! -s "$TMP/out" ] && [ "$(cat "$TMP/err")" = "thpctl: hugetlb plan: node 3 is not on this host (/sys/devices/system/node); its nodes: 0" ]' \
	"exit $rc: $(head -c 300 "$TMP/err")"
# without --node: whether its kernel has the size, and what the pool holds, are unknown (an
# sos report): no line that could shrink a pool it did not record, never a pool of 0
"$BIN" --no-color --wide --sysroot "$nt" hugetlb plan --for 8G >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "hugetlb plan on a tree without pools: unknown, said why, no lines" \
	'[ "$rc" -eq 0 ] && grep -qx "  reserve  unknown: this tree records no hugetlb pool (no sys/kernel/mm/hugepages), so whether its kernel has 2M pages, and what the pool holds, is unknown" "$TMP/out" &&
	! grep -q "nr_hugepages\|this kernel has no\|echo " "$TMP/out"' "exit $rc: $(head -c 600 "$TMP/out")"
rm -f "$nt/proc/buddyinfo"
"$BIN" --sysroot "$nt" hugetlb plan --for 8G --json >"$TMP/out" 2>"$TMP/err"
expect_eval "hugetlb plan --json on a tree without pools or buddyinfo: null, never 0" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d[\"reserved_now\"] is None and d[\"available_now\"] is None and d[\"needed\"] is None and d[\"free_blocks\"] is None and d[\"runtime\"] == \"unknown\" and d[\"runtime_commands\"] == [] and d[\"partial\"] is True))" "$TMP/out"' \
	"$(head -c 600 "$TMP/out")"
# a tree with nothing readable is no plan: exit 1 before any output, as status says
mkdir -p "$TMP/empty-tree"
"$BIN" --sysroot "$TMP/empty-tree" hugetlb plan --for 8G >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "hugetlb plan on an empty tree: exit 1, nothing readable" \
	'[ "$rc" -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "hugetlb plan: nothing readable under" "$TMP/err"' \
	"exit $rc: $(head -c 300 "$TMP/out") / $(head -c 300 "$TMP/err")"

# a pool in use (a user's tree: nr_hugepages 300, 10 free): the 250 pages of --for 500M are
# not "already there"; the lines grow the pool by the 240 missing to 540, never to 250
ht="$TMP/hugetlb-in-use"
cp -r "$FIX/linux-6.18-x86" "$ht" && hp="$ht/sys/kernel/mm/hugepages/hugepages-2048kB" &&
	echo 300 >"$hp/nr_hugepages" && echo 10 >"$hp/free_hugepages" &&
	sed -i 's/^HugePages_Total:.*/HugePages_Total:     300/; s/^HugePages_Free:.*/HugePages_Free:       10/' "$ht/proc/meminfo"
"$BIN" --no-color --wide --sysroot "$ht" hugetlb plan --for 500M >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "hugetlb plan on a pool in use: the shortfall, the pool grown, never shrunk" \
	'[ "$rc" -eq 0 ] && grep -q "^  reserve  now: 240 more pages needed (the 2M pool has 300 pages, 10 free, " "$TMP/out" &&
	grep -qx "  sysctl -w vm.nr_hugepages=540" "$TMP/out" && grep -qx "  vm.nr_hugepages = 540" "$TMP/out" &&
	! grep -q "=250\|= 250\|already" "$TMP/out"' "exit $rc: $(head -c 600 "$TMP/out")"
"$BIN" --no-color --wide --sysroot "$ht" hugetlb plan --for 500M --json >"$TMP/out" 2>"$TMP/err"
expect_eval "hugetlb plan --json on a pool in use: needed 240, target 540" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d[\"runtime\"] == \"now\" and d[\"reserved_now\"] == 300 and d[\"available_now\"] == 10 and d[\"needed\"] == 240 and d[\"target_pages\"] == 540 and d[\"runtime_commands\"] == [\"sysctl -w vm.nr_hugepages=540\"]))" "$TMP/out"' \
	"$(head -c 600 "$TMP/out")"
echo 300 >"$hp/free_hugepages"
"$BIN" --no-color --wide --sysroot "$ht" hugetlb plan --for 500M >"$TMP/out" 2>"$TMP/err"
expect_eval "hugetlb plan on a free pool: nothing to do, the boot-time value keeps 300" \
	'grep -q "^  reserve  nothing to do: the 2M pool has 300 pages, 300 free" "$TMP/out" &&
	grep -qx "Reserve now: nothing to do (the pool.s free pages cover it)." "$TMP/out" &&
	grep -qx "  vm.nr_hugepages = 300" "$TMP/out" && ! grep -q "sysctl -w" "$TMP/out"' "$(head -c 600 "$TMP/out")"

# --node judges compaction by the node's own MemFree: node 1 has 512 MiB free of a host with
# GiBs free, so 8 GiB cannot be assembled there; unreadable, it is unknown, never the host's
nn="$TMP/numa-memfree"
cp -r "$FIX/numa-2node-x86" "$nn"
"$BIN" --no-color --wide --sysroot "$nn" hugetlb plan --for 8G --node 1 >"$TMP/out" 2>"$TMP/err"
expect_eval "hugetlb plan --node without the node's meminfo: unknown, not the host's MemFree" \
	'grep -q "^  reserve  unknown: 4096 more pages needed .*MemFree of the node is not readable" "$TMP/out" &&
	! grep -q "MemFree is" "$TMP/out"' "$(head -c 600 "$TMP/out")"
printf 'Node 1 MemTotal:       12582912 kB\nNode 1 MemFree:          524288 kB\n' \
	>"$nn/sys/devices/system/node/node1/meminfo"
"$BIN" --no-color --wide --sysroot "$nn" hugetlb plan --for 8G --node 1 --json >"$TMP/out" 2>"$TMP/err"
expect_eval "hugetlb plan --node with 512 MiB free on the node: at boot, not compaction" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d[\"runtime\"] == \"boot\" and \"free memory of the node\" in d[\"runtime_reason\"]))" "$TMP/out"' \
	"$(head -c 600 "$TMP/out")"

# a usage error shows the synopsis, not the whole help: the message stays in sight
"$BIN" --no-color --wide ps --bogus >/dev/null 2>"$TMP/err"
rc=$?
expect_eval "ps --bogus: message, synopsis (3 lines), where the options are" \
	'[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 5 ] && sed -n 2p "$TMP/err" | grep -q "^usage: thpctl ps " &&
	[ "$(tail -n1 "$TMP/err")" = "'"'thpctl ps --help' for all its options."'" ]' "exit $rc: $(cat "$TMP/err")"
"$BIN" --no-color --wide trace stalls --bogus >/dev/null 2>"$TMP/err"
rc=$?
expect_eval "trace stalls --bogus: its own synopsis and help command" \
	'[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 3 ] &&
	[ "$(tail -n1 "$TMP/err")" = "'"'thpctl trace stalls --help' for all its options."'" ]' "exit $rc: $(cat "$TMP/err")"
# trace with no kind, and run --json (run execs CMD: no result of its own): a usage error like
# any other, the message, the synopsis and where the options are; not the whole help
for args in "trace" "run --json -- true" "--json run -- true"; do
	read -r -a argv <<<"$args"
	"$BIN" --no-color --wide "${argv[@]}" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	c=${args#--json }
	c=${c%% *}
	expect_eval "$args: a usage error, the synopsis, the hint, nothing on stdout" \
		'[ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 3 ] &&
		sed -n 2p "$TMP/err" | grep -q "^usage: thpctl $c " &&
		[ "$(tail -n1 "$TMP/err")" = "'"'thpctl \$c --help' for all its options."'" ]' \
		"exit $rc: $(cat "$TMP/err" "$TMP/out")"
done
# each option once in a command's help (trace and watch listed --json twice)
for c in trace watch run; do
	dup=$("$BIN" --wide "$c" --help | grep -oE "^ +--[a-z=-]+" | sort | uniq -d | tr -d " ")
	expect_eval "$c --help: each option listed once" '[ -z "$dup" ]' "twice: $dup"
done
# ps --pid A,B where B is not there: A's row, and why B is not shown (exit 0: something to show)
"$BIN" --no-color --wide --sysroot "$FIX/linux-6.18-x86" ps --pid 30732,999999 >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "ps --pid 30732,999999: the row of 30732, a message for 999999, exit 0" \
	'[ "$rc" -eq 0 ] && grep -q "^30732 " "$TMP/out" && [ "$(cat "$TMP/err")" = "thpctl: ps: process 999999 is not in this recorded tree (thpctl capture records a process only when given --pid 999999 or --all-processes)" ]' \
	"exit $rc: $(head -c 300 "$TMP/err")"
# ps --ledger on a recorded tree: its invented, held and creep are unknown (null): partial
"$BIN" --sysroot "$FIX/linux-6.18-x86" ps --pid 30732 --ledger --json >"$TMP/out" 2>/dev/null
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["processes"][0]["ledger"]
print(d["partial"], d["unreadable"], l["invented_kb"], l["invented_unknown"])' "$TMP/out" 2>&1)
expect_eval "ps --ledger --json on a tree: the ledger unknown (recorded-tree), partial true" \
	'[ "$got" = "True 0 None recorded-tree" ]' "$got"
# a bad global option: getopt's message, the global synopsis and where the rest is (4 lines)
for bad in "--bogus status" "--sysroot"; do
	read -r -a argv <<<"$bad"
	"$BIN" "${argv[@]}" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_eval "thpctl $bad: message, synopsis, where the commands and options are" \
		'[ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 4 ] &&
		sed -n 2p "$TMP/err" | grep -q "^usage: thpctl \[--sysroot" &&
		[ "$(tail -n1 "$TMP/err")" = "'"'thpctl --help' for the commands and all options."'" ]' "exit $rc: $(cat "$TMP/err")"
done
# `thpctl help [COMMAND]`: the help on stdout, exit 0; an unknown one: the list of commands, exit 2
"$BIN" --no-color --wide help >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "help: the global usage, exit 0" \
	'[ "$rc" -eq 0 ] && head -n1 "$TMP/out" | grep -q "^usage: thpctl " && grep -q "^  capture " "$TMP/out" && [ ! -s "$TMP/err" ]' \
	"exit $rc: $(head -c 300 "$TMP/out") / $(head -c 300 "$TMP/err")"
"$BIN" --no-color --wide help help >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "help help: the global usage, exit 0" \
	'[ "$rc" -eq 0 ] && head -n1 "$TMP/out" | grep -q "^usage: thpctl " && [ ! -s "$TMP/err" ]' "exit $rc"
# any usage error ends with where the options are, the unknown option's synopsis or not
"$BIN" --no-color --wide --sysroot "$FIX/linux-6.18-x86" ps --sort size >/dev/null 2>"$TMP/err"
rc=$?
expect_eval "ps --sort size: the message, then where the options are" \
	'[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 2 ] &&
	[ "$(tail -n1 "$TMP/err")" = "'"'thpctl ps --help' for all its options."'" ]' "exit $rc: $(cat "$TMP/err")"
"$BIN" --no-color --wide help ps >"$TMP/out" 2>"$TMP/err"
rc=$?
"$BIN" --no-color --wide ps --help >"$TMP/want" 2>&1
expect_eval "help ps: the same text as ps --help, exit 0" \
	'[ "$rc" -eq 0 ] && cmp -s "$TMP/out" "$TMP/want" && [ ! -s "$TMP/err" ]' "exit $rc: $(head -c 300 "$TMP/err")"
for args in "help nothing" "nothing"; do
	# shellcheck disable=SC2086
	"$BIN" --no-color --wide $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_eval "$args: unknown command, the commands listed, exit 2" \
		'[ "$rc" -eq 2 ] && [ "$(head -n1 "$TMP/err")" = "thpctl: unknown command '"'nothing'"'" ] &&
		grep -q "^commands: status ps maps " "$TMP/err" && grep -q " capture$" "$TMP/err" && [ ! -s "$TMP/out" ]' \
		"exit $rc: $(head -c 300 "$TMP/err")"
done

# no command at all: said, the commands listed, exit 2; not the whole help (README: a usage
# error prints the message and a hint)
for args in "" "--json"; do
	# shellcheck disable=SC2086
	"$BIN" --no-color $args >"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_eval "thpctl ${args:-alone}: no command, the commands listed, exit 2, not the whole help" \
		'[ "$rc" -eq 2 ] && [ "$(head -n1 "$TMP/err")" = "thpctl: no command given" ] &&
		grep -q "^commands: status ps maps " "$TMP/err" && [ "$(wc -l <"$TMP/err")" -le 5 ] &&
		! grep -q "^options:" "$TMP/err" && [ ! -s "$TMP/out" ]' "exit $rc: $(head -c 300 "$TMP/err")"
done

# snapshot diff on a damaged tree: "garbage" in enabled (no [selection], no number) and two
# selections in defrag are unreadable, each shown so, and said partial by name (it said
# "left out" of knobs it showed, and took "garbage" for a value)
od="$TMP/odd-knobs"
cp -r "$FIX/linux-6.18-x86" "$od"
"$BIN" --sysroot "$od" snapshot save "$TMP/odd.snap" >/dev/null 2>&1
echo garbage >"$od/sys/kernel/mm/transparent_hugepage/enabled"
echo "always [defer] [madvise] never" >"$od/sys/kernel/mm/transparent_hugepage/defrag"
"$BIN" --no-color --wide --sysroot "$od" snapshot diff "$TMP/odd.snap" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "snapshot diff on damaged knobs: unreadable here, partial by name, no 'left out'" \
	'[ "$rc" -eq 1 ] && grep -Eq "^enabled +madvise +\(unreadable here\)$" "$TMP/out" &&
	grep -Eq "^defrag +madvise +\(unreadable here\)$" "$TMP/out" && ! grep -q garbage "$TMP/out" &&
	grep -qx "thpctl: snapshot diff: partial: 2 knob(s) could not be read here (defrag, enabled): whether they differ is unknown" "$TMP/err" &&
	! grep -q "left out" "$TMP/err"' "exit $rc: $(head -c 300 "$TMP/out") / $(head -c 300 "$TMP/err")"
# trouble is 2, as diff(1) has it (1 is "they differ"): a missing FILE, one that is not a
# snapshot; said in one line, no --help hint, nothing on stdout
echo '{}' >"$TMP/not-a-snapshot.json"
for f in "$TMP/no-such.snap" "$TMP/not-a-snapshot.json"; do
	"$BIN" --sysroot "$FIX/linux-6.18-x86" snapshot diff "$f" --json >"$TMP/out" 2>"$TMP/err"
	rc=$?
	expect_eval "snapshot diff ${f##*/}: exit 2 (trouble, like diff(1)), one line, no document" \
		'[ "$rc" -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		grep -q "^thpctl: snapshot: " "$TMP/err"' "exit $rc: $(head -c 300 "$TMP/err")"
done

# README (Exit status): an output that fits a pipe's buffer is written whole first, so a reader
# that stops after one line costs no SIGPIPE; it was written 4 KiB at a time and `status |
# head -1` died of SIGPIPE about every other run (20 runs of each: a miss is all but certain)
pipe_rcs=
for i in $(seq 20); do
	for args in "status" "status --json" "advise"; do
		# shellcheck disable=SC2086
		"$BIN" --no-color --sysroot "$FIX/linux-6.18-x86" $args 2>/dev/null | head -n1 >/dev/null
		pipe_rcs+="${PIPESTATUS[0]} "
	done
done
expect_eval "status, status --json and advise into head -1: exit 0 every time, no SIGPIPE" \
	'[ -z "$(tr " " "\n" <<<"$pipe_rcs" | grep -vx "0" | grep .)" ]' "exits: $pipe_rcs"

for f in "$EXP"/*; do
	[ -f "$f" ] && [ -z "${used[$f]:-}" ] && echo "golden: note: $f belongs to no fixture/command"
done
summary
