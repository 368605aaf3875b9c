#!/usr/bin/env bash
# Live tests of the folio view: `thpctl maps PID --folios`, `ps --folios`,
# `--cgroup`, `maps PID --underused`, against helper processes of known layout
# (build/tests/folio_helper):
#   layout   PMD THPs, 64K folios (aligned and mremap()ed unaligned), 16K
#            folios, small pages -> exact kB per size and mapping
#   punch    one 4 kB page punched out of every 64K folio -> partial counts
#   zeros    10 PMD THPs with 0, 1, 63, 64, 65, 128, 129, 256, 300, 512
#            all-zero subpages -> exact underused counts per max_ptes_none
#
# As root, the per-size policies hugepages-64kB/enabled and hugepages-16kB/
# enabled are set to "always" while the helpers fault their memory in, by
# this script (not by thpctl), and put back right after, and again by an
# EXIT trap: the host is left exactly as found (checked at the end).
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "folios: N
# passed, M failed, K skipped", non-zero exit on failures).
#
#   THPCTL=path   binary to test (default build/asan/thpctl)
#   THPMAPS=path  the kernel's tools/mm/thpmaps (default
#                 /var/tmp/thpctl-bench/thpmaps, fetched by bench/folios.sh);
#                 when present, its numbers are compared with thpctl's
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init folios

H=build/tests/folio_helper
THPMAPS=${THPMAPS:-/var/tmp/thpctl-bench/thpmaps}
unset THPCTL_NO_PAGEMAP_SCAN THPCTL_NO_PROBE THPCTL_PROBE THPCTL_THREADS
SAVED=() # "file value" pairs of per-size policies changed here

# shellcheck disable=SC2317 # runs from the EXIT trap too
restore_sizes() {
	local e f v
	for e in "${SAVED[@]}"; do
		f=${e%% *} v=${e#* }
		[ "$(sysfs_choice "$f")" = "$v" ] || echo "$v" >"$f"
	done
}
at_exit restore_sizes

# fcheck NAME JSON REGIONS EXPR [DETAIL]: EXPR (Python) must hold, with
#   d       the JSON document
#   R(name) a dict summing the VMAs inside helper region NAME: pmd, al<kB>,
#           un<kB>, partial, cont_pte, cont_pmd, rss, thp (all kB, anon)
#   smaps_ahp(name)  AnonHugePages (kB) of those VMAs from /proc/PID/smaps
fcheck() {
	local name=$1 file=$2 regions=$3 expr=$4 detail=${5:-}
	local msg
	if msg=$(python3 - "$file" "$regions" "$expr" "$detail" 2>&1 <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"output is not JSON: {e}"); sys.exit(1)
regs, pid = {}, None
for line in open(sys.argv[2]):
    w = line.split()
    if w and w[0] == "region":
        regs[w[1]] = (int(w[2], 16), int(w[3], 16))
    if w and w[0] == "ready":
        pid = int(w[1])
def inside(v, name):
    lo, hi = regs[name]
    return int(v["start"], 16) >= lo and int(v["end"], 16) <= hi  # hex strings
def R(name):
    out = {"pmd": 0, "partial": 0, "cont_pte": 0, "cont_pmd": 0, "rss": 0, "thp": 0, "vmas": 0}
    for v in d.get("vmas", []):
        if not inside(v, name):
            continue
        a = v["anon"]
        out["vmas"] += 1
        out["pmd"] += a["pmd_kb"] or 0
        out["partial"] += a["partial_kb"] or 0
        out["rss"] += a["rss_kb"]
        out["thp"] += a["thp_kb"]
        if a["cont"]:  # null without --cont
            out["cont_pte"] += a["cont"]["pte_kb"] or 0
            out["cont_pmd"] += a["cont"]["pmd_kb"] or 0
        for s in a["sizes"]:
            k = s["size_kb"]
            out[f"al{k}"] = out.get(f"al{k}", 0) + (s["pte_aligned_kb"] or 0)
            out[f"un{k}"] = out.get(f"un{k}", 0) + (s["pte_unaligned_kb"] or 0)
    return out
def smaps_ahp(name):
    lo, hi = regs[name]
    tot, cur = 0, False
    for line in open(f"/proc/{pid}/smaps"):
        w = line.split()
        if "-" in w[0] and not w[0].endswith(":"):
            s, e = (int(x, 16) for x in w[0].split("-"))
            cur = s >= lo and e <= hi
        elif cur and w[0] == "AnonHugePages:":
            tot += int(w[1])
    return tot
try:
    good = eval(sys.argv[3])
except Exception as e:
    print(f"{type(e).__name__}: {e}"); sys.exit(1)
if not good:
    print(eval(sys.argv[4]) if sys.argv[4] else "condition false: " + sys.argv[3])
    sys.exit(1)
PY
	); then
		ok "$name"
	else
		nok "$name" "$(tr '\n' ' ' <<<"$msg" | cut -c1-400)"
	fi
}

# ---- preflight ---------------------------------------------------------------
for f in "$T" "$H"; do
	[ -x "$f" ] || { nok "preflight" "$f missing (make $T $H)"; summary; }
done
command -v python3 >/dev/null || { nok "preflight" "python3 needed to read the JSON"; summary; }
[ -d "$THP" ] || { skip "folios" "no $THP: this kernel has no THP"; summary; }

# ---- usage errors (no kernel needed) ------------------------------------------
t maps 1 --cont 64K
expect_rc "maps --cont without --folios is a usage error" 2
t maps 1 --folios --underused
expect_rc "maps --folios --underused together is a usage error" 2
for bad in 3K 6K 4M 0 x; do
	t maps 1 --folios --cont "$bad"
	expect_rc "maps --cont $bad is a usage error" 2
done
t ps --cont 64K
expect_rc "ps --cont without --folios is a usage error" 2
t ps --folios --rollup
expect_rc "ps --folios --rollup is a usage error" 2
t maps --help
if [ "$RC" -eq 0 ] && grep -q 'READS THE PROCESS.S MEMORY' "$TMP/out"; then
	ok "maps --help says --underused reads the process's memory"
else
	nok "maps --help says --underused reads the process's memory" "$(head -c 200 "$TMP/out")"
fi
t ps --folios --cgroup /sys/fs/cgroup/no-such-cgroup-$$
expect_rc "ps --cgroup of a missing cgroup exits 1" 1
t maps 999999999 --folios
expect_rc "maps --folios of a missing process exits 1" 1
FIX=$(find tests/fixtures -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -n1)
if [ -n "$FIX" ]; then
	t --sysroot "$FIX" ps --folios
	if [ "$RC" -eq 1 ] && grep -q 'recorded tree' "$TMP/err"; then
		ok "ps --folios on a recorded tree exits 1 and says why"
	else
		nok "ps --folios on a recorded tree exits 1 and says why" "exit $RC: $(errtail)"
	fi
fi

# ---- the helpers, under the per-size policies --------------------------------
SIZES_OK=1
for s in 64 16; do
	[ -w "$THP/hugepages-${s}kB/enabled" ] || SIZES_OK=0
done
if [ "$ROOT" -eq 0 ]; then
	skip "exact folio sizes" "needs root (per-size policy, kpageflags)"
elif [ "$SIZES_OK" -eq 0 ]; then
	skip "exact folio sizes" "no writable hugepages-64kB/16kB (kernel < 6.8?)"
else
	before=()
	for s in 64 16; do
		f="$THP/hugepages-${s}kB/enabled"
		v=$(sysfs_choice "$f")
		before+=("$f $v")
		SAVED+=("$f $v")
	done
	fb0=$(cat "$THP"/hugepages-{64,16}kB/stats/anon_fault_fallback 2>/dev/null | awk '{s += $1} END {print s + 0}')
	echo always >"$THP/hugepages-64kB/enabled"
	echo always >"$THP/hugepages-16kB/enabled"
	start_helper LAYOUT "$H" layout
	start_helper PUNCH "$H" punch
	restore_sizes
	fb1=$(cat "$THP"/hugepages-{64,16}kB/stats/anon_fault_fallback 2>/dev/null | awk '{s += $1} END {print s + 0}')
	same=1
	for e in "${before[@]}"; do
		[ "$(sysfs_choice "${e%% *}")" = "${e#* }" ] || same=0
	done
	if [ "$same" -eq 1 ]; then ok "per-size policies restored right after the helpers started"; else nok "per-size policies restored right after the helpers started" "$(grep . "$THP"/hugepages-{64,16}kB/enabled)"; fi
	FALLBACK=$((fb1 - fb0))
fi

# first: partially mapped folios are the first a memory shrinker splits
if [ -n "${PUNCH:-}" ]; then
	t maps "$PUNCH" --folios --json
	if [ "${FALLBACK:-0}" -gt 0 ]; then
		skip "punch: partial counts" "mTHP allocations fell back meanwhile"
	else
		fcheck "punch: 16 x 15 pages left of 64K folios are 960 kB partial, none whole" "$TMP/out" "$TMP/helper.PUNCH" \
			'R("64k-punched")["partial"] == 960 and R("64k-punched")["al64"] == 0 and R("64k-punched")["rss"] == 960' \
			'R("64k-punched")'
	fi
fi

if [ -n "${LAYOUT:-}" ]; then
	t maps "$LAYOUT" --folios --cont 64K --json
	cp "$TMP/out" "$TMP/layout.json"
	expect_rc "maps --folios --cont 64K (layout) exits 0" 0
	fcheck "layout: method is exact (pagemap+kpageflags)" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
		'd["method"].startswith("pagemap+kpageflags") and d["partial"] is False' 'd["method"]'
	fcheck "layout: pmd region is 4096 kB PMD-mapped" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
		'R("pmd")["pmd"] == 4096 and R("pmd")["thp"] == 4096' 'R("pmd")'
	fcheck "layout: PMD-mapped kB equals smaps AnonHugePages" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
		'R("pmd")["pmd"] == smaps_ahp("pmd")' '(R("pmd"), smaps_ahp("pmd"))'
	if [ "${FALLBACK:-0}" -gt 0 ]; then
		skip "layout: exact mTHP sizes" "$FALLBACK mTHP allocations fell back to small pages meanwhile"
	else
		fcheck "layout: 64k region is 1024 kB of aligned 64K folios" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
			'R("64k")["al64"] == 1024 and R("64k")["thp"] == 1024 and R("64k")["partial"] == 0' 'R("64k")'
		fcheck "layout: 64k-unaligned region is 1024 kB of unaligned 64K folios" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
			'R("64k-unaligned")["un64"] == 1024 and R("64k-unaligned")["al64"] == 0' 'R("64k-unaligned")'
		fcheck "layout: 16k region is 16 VMAs, 512 kB of aligned 16K folios" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
			'R("16k")["al16"] == 512 and R("16k")["vmas"] == 16 and R("16k")["thp"] == 512' 'R("16k")'
		fcheck "layout: --cont 64K blocks: 64k 1024 kB PTE, 16k none, unaligned none, pmd 4096 kB PMD" \
			"$TMP/layout.json" "$TMP/helper.LAYOUT" \
			'R("64k")["cont_pte"] == 1024 and R("16k")["cont_pte"] == 0 and R("64k-unaligned")["cont_pte"] == 0 and R("pmd")["cont_pmd"] == 4096' \
			'(R("64k"), R("16k"), R("pmd"))'
	fi
	fcheck "layout: the MADV_NOHUGEPAGE region has no THP (no VMA listed)" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
		'R("small")["thp"] == 0 and R("small")["vmas"] == 0' 'R("small")'
	fcheck "layout: totals add up the VMAs" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
		'd["totals"]["anon"]["thp_kb"] == sum(v["anon"]["thp_kb"] for v in d["vmas"])' 'd["totals"]["anon"]'

	# the same numbers by every way of reading
	norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d.pop(k) for k in ("elapsed_ms","method")]; print(json.dumps(d, sort_keys=True))' "$1"; }
	norm "$TMP/layout.json" >"$TMP/layout.norm"
	for v in THPCTL_NO_PROBE=1 THPCTL_PROBE=1 THPCTL_THREADS=1 THPCTL_THREADS=4 THPCTL_NO_PAGEMAP_SCAN=1; do
		env "$v" "$T" maps "$LAYOUT" --folios --cont 64K --json >"$TMP/alt.json" 2>"$TMP/err"
		if norm "$TMP/alt.json" | cmp -s - "$TMP/layout.norm"; then
			ok "layout: $v gives the same numbers"
		else
			nok "layout: $v gives the same numbers" "$(norm "$TMP/alt.json" | cut -c1-200)"
		fi
	done

	t maps "$LAYOUT" --folios
	if [ "$RC" -eq 0 ] && grep -q 'PTE unaligned' "$TMP/out" && grep -q '^process RSS' "$TMP/out"; then
		ok "maps --folios (text) shows the mappings"
	else
		nok "maps --folios (text) shows the mappings" "exit $RC: $(head -c 300 "$TMP/out")"
	fi

	# ps --folios: the rollup of the same process
	t ps --folios --pid "$LAYOUT" --json
	cp "$TMP/out" "$TMP/ps.json"
	fcheck "ps --folios --pid: the rollup equals maps' totals" "$TMP/ps.json" "$TMP/helper.LAYOUT" \
		'[p for p in d["processes"] if p["pid"] == '"$LAYOUT"'][0]["anon"]["thp_kb"] == json.load(open("'"$TMP/layout.json"'"))["totals"]["anon"]["thp_kb"]' \
		'd["processes"]'
	# NUMA: every THP page is on a node of the block map; with one node, all on it
	NNODES=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
	fcheck "layout: THP by NUMA node adds up to its THP, none of unknown node" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
		'sum(d["numa"]["thp_bytes_by_node"].values()) == (d["totals"]["anon"]["thp_kb"] + d["totals"]["file"]["thp_kb"]) * 1024 and d["numa"]["thp_bytes_unknown_node"] == 0' \
		'd["numa"], d["totals"]["anon"]["thp_kb"], d["totals"]["file"]["thp_kb"]'
	if [ "$NNODES" -eq 1 ]; then
		fcheck "layout: one NUMA node holds all its THP, not remote" "$TMP/layout.json" "$TMP/helper.LAYOUT" \
			'list(d["numa"]["thp_bytes_by_node"]) == ["0"] and d["numa"]["allowed_nodes"] == [0] and d["numa"]["remote_thp"] is False and d["numa"]["remote_share"] == 0' \
			'd["numa"]'
		fcheck "ps --folios: the same split for the helper" "$TMP/ps.json" "$TMP/helper.LAYOUT" \
			'[p for p in d["processes"] if p["pid"] == '"$LAYOUT"'][0]["numa"] == json.load(open("'"$TMP/layout.json"'"))["numa"]' \
			'[p.get("numa") for p in d["processes"]]'
		t maps "$LAYOUT" --folios
		expect_out "maps --folios (text): node0 holds 100% of the THP" \
			"^THP by NUMA node (frame -> memory block -> node): node0 [0-9.]* [kMG]i*B (100\.0%); threads may run on node 0$"
	fi
	t ps --folios --pid "$LAYOUT,${PUNCH:-$LAYOUT}"
	if [ "$RC" -eq 0 ] && grep -qE "^ *$LAYOUT +" "$TMP/out" && head -n1 "$TMP/out" | grep -q '64kB'; then
		ok "ps --folios (text) lists the helper, a column per size"
	else
		nok "ps --folios (text) lists the helper, a column per size" "exit $RC: $(head -c 300 "$TMP/out")"
	fi
	# a PID asked for and not there says why, beside the row of the one that is (exit 0)
	t ps --folios --pid "$LAYOUT,999999"
	expect_eval "ps --folios --pid LAYOUT,999999: the helper's row, and why 999999 has none" \
		"[ $RC -eq 0 ] && grep -qE '^ *$LAYOUT +' '$TMP/out' && grep -q 'no such process 999999' '$TMP/err'" \
		"exit $RC: $(head -c 200 "$TMP/err")"
	# --cont 64K: a column of the memory in aligned 64 kB blocks, as much as maps counts
	t --wide ps --folios --cont 64K --pid "$LAYOUT"
	cp "$TMP/out" "$TMP/cont.txt"
	t maps "$LAYOUT" --folios --cont 64K --json
	got=$(python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
end = lines[0].index("64kB_blk") + len("64kB_blk")  # the column is right-aligned under it
row = [l for l in lines if l.split()[:1] == [sys.argv[3]]][0]
t = json.load(open(sys.argv[2]))["totals"]
want = sum(t[k]["cont"]["pmd_kb"] + (t[k]["cont"]["pte_kb"] or 0) for k in ("anon", "file"))
cell = row[:end].split("  ")[-1].strip()
shown = {"kB": 1, "MiB": 1024, "GiB": 1 << 20}
v, u = cell.split()
print("ok" if want > 0 and abs(float(v) * shown[u] - want) <= 0.05 * shown[u] else "ps %s, maps %d kB" % (cell, want))
' "$TMP/cont.txt" "$TMP/out" "$LAYOUT" 2>&1)
	expect_eval "ps --folios --cont 64K: a 64kB_blk column, the memory maps --folios --cont counts" \
		"[ '$got' = ok ]" "$got"

	# --cgroup: the helper is in this script's cgroup
	CG=$(awk -F: '$3 != "/" && $3 != "" {print $2 ":" $3}' /proc/self/cgroup | while IFS=: read -r ctl path; do
		ctl=${ctl#name=}
		for base in "/sys/fs/cgroup/$ctl" "/sys/fs/cgroup"; do
			[ -n "$ctl" ] || base=/sys/fs/cgroup/unified
			[ -r "$base$path/cgroup.procs" ] && { echo "$base$path"; break 2; }
		done
	done | head -n1)
	if [ -z "$CG" ]; then
		skip "ps --folios --cgroup" "this shell sits in no readable non-root cgroup"
	else
		t ps --folios --cgroup "$CG" --json
		fcheck "ps --folios --cgroup $CG includes the helper" "$TMP/out" "$TMP/helper.LAYOUT" \
			'any(p["pid"] == '"$LAYOUT"' for p in d["processes"]) and d["cgroup"] == "'"$CG"'"' \
			'[p["pid"] for p in d["processes"]]'
		parent=${CG%/*}
		if [ "$parent" != /sys/fs/cgroup ] && [ -r "$parent/cgroup.procs" ]; then
			t ps --cgroup "${parent#/sys/fs/cgroup/}" --all --json
			fcheck "ps --cgroup PARENT (relative) takes the helper's cgroup recursively" "$TMP/out" "$TMP/helper.LAYOUT" \
				'any(p["pid"] == '"$LAYOUT"' for p in d["processes"])' '[p["pid"] for p in d["processes"]]'
		fi
	fi

	# the kernel's own tool, when it is here
	if [ -r "$THPMAPS" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		/usr/bin/python3 "$THPMAPS" --pid "$LAYOUT" --rollup --cont 64K --inc-empty >"$TMP/thpmaps.txt" 2>&1
		if python3 - "$TMP/thpmaps.txt" "$TMP/layout.json" >"$TMP/cmp.txt" 2>&1 <<'PY'; then
import json, re, sys
tm = {}
for line in open(sys.argv[1]):
    m = re.match(r"^([A-Za-z0-9-]+):\s+(\d+) kB", line)
    if m:
        tm[m.group(1)] = int(m.group(2))
d = json.load(open(sys.argv[2]))["totals"]
bad = []
for ty in ("anon", "file"):
    a = d[ty]
    ours = {f"{ty}-thp-pmd-aligned-2048kB": a["pmd_kb"], f"{ty}-thp-pte-partial": a["partial_kb"],
            f"{ty}-cont-pmd-aligned-64kB": a["cont"]["pmd_kb"], f"{ty}-cont-pte-aligned-64kB": a["cont"]["pte_kb"]}
    for s in a["sizes"]:
        if s["size_kb"] >= 16:
            ours[f"{ty}-thp-pte-aligned-{s['size_kb']}kB"] = s["pte_aligned_kb"]
            ours[f"{ty}-thp-pte-unaligned-{s['size_kb']}kB"] = s["pte_unaligned_kb"]
    for k, v in ours.items():
        if k in tm and tm[k] != v:
            bad.append(f"{k}: thpmaps {tm[k]} thpctl {v}")
if not tm:
    bad.append("thpmaps printed nothing")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
			ok "layout: same numbers as the kernel's tools/mm/thpmaps"
		else
			nok "layout: same numbers as the kernel's tools/mm/thpmaps" "$(head -c 300 "$TMP/cmp.txt")"
		fi
	else
		skip "layout: compared with tools/mm/thpmaps" "$THPMAPS or python3-numpy missing (bench/folios.sh fetches it)"
	fi
fi

# ---- --underused ---------------------------------------------------------------
if start_helper ZEROS "$H" zeros; then
	t maps "$ZEROS" --underused --json
	expect_rc "maps --underused exits 0" 0
	fcheck "underused: 10 THPs, 1518 zero subpages" "$TMP/out" "$TMP/helper.ZEROS" \
		'd["thps"] == 10 and d["zero_subpages"] == 1518 and d["bytes_read"] == 10 * 2097152' \
		'(d["thps"], d["zero_subpages"], d["bytes_read"])'
	fcheck "underused: split and freed at 0/64/128/256/511" "$TMP/out" "$TMP/helper.ZEROS" \
		'[(x["max_ptes_none"], x["thps_split"], x["zero_subpages_freed"]) for x in d["thresholds"]] == [(0, 9, 1518), (64, 6, 1390), (128, 4, 1197), (256, 2, 812), (511, 0, 0)]' \
		'd["thresholds"]'
	fcheck "underused: histogram is the helper's" "$TMP/out" "$TMP/helper.ZEROS" \
		'sorted((h["zero_subpages"], h["thps"]) for h in d["histogram"]) == [(0,1),(1,1),(63,1),(64,1),(65,1),(128,1),(129,1),(256,1),(300,1),(512,1)]' \
		'd["histogram"]'
	t maps "$ZEROS" --underused
	if [ "$RC" -eq 0 ] && grep -q "through /proc/$ZEROS/mem in [0-9.]* ms" "$TMP/out"; then
		ok "maps --underused (text) says what it read and how long it took"
	else
		nok "maps --underused (text) says what it read and how long it took" "$(head -c 300 "$TMP/out")"
	fi
fi

# ---- without CAP_SYS_ADMIN --------------------------------------------------------
if [ "$ROOT" -eq 0 ] || ! command -v setpriv >/dev/null; then
	skip "as nobody" "needs root and setpriv to switch users"
elif ! as_nobody test -x "$T"; then
	skip "as nobody" "$T is not executable by nobody"
else
	HELPER_PREFIX=("${NOBODY[@]}")
	start_helper NZEROS "$H" zeros
	started=$?
	HELPER_PREFIX=()
	if [ "$started" -eq 0 ]; then
		t_nobody maps "$NZEROS" --folios --json
		expect_rc "nobody: maps --folios of its own process exits 0" 0
		fcheck "nobody: partial, says why, PMD-mapped seen, PTE-mapped unknown" "$TMP/out" "$TMP/helper.NZEROS" \
			'd["partial"] is True and "CAP_SYS_ADMIN" in d["partial_reason"] and d["method"].startswith("smaps") and R("zeros")["pmd"] == 20480 and d["totals"]["anon"]["partial_kb"] is None' \
			'(d["method"], R("zeros"))'
		t_nobody maps "$NZEROS" --folios
		if grep -q '^partial: PFNs are hidden' "$TMP/out"; then ok "nobody: text says partial and why"; else nok "nobody: text says partial and why" "$(head -c 300 "$TMP/out")"; fi
		t_nobody maps "$NZEROS" --underused --json
		fcheck "nobody: --underused of its own process counts the same zero subpages" "$TMP/out" "$TMP/helper.NZEROS" \
			'd["thps"] == 10 and d["zero_subpages"] == 1518' '(d.get("thps"), d.get("zero_subpages"))'
	fi
	if [ -n "${LAYOUT:-}" ]; then
		t_nobody maps "$LAYOUT" --folios
		expect_rc "nobody: maps --folios of root's process exits 1" 1
		t_nobody ps --folios --all --json
		fcheck "nobody: ps --folios counts root's processes as not readable" "$TMP/out" "$TMP/helper.LAYOUT" \
			'd["partial"] is True and d["unreadable"] > 0' '(d["partial"], d["unreadable"])'
	fi
fi

# ---- the end -----------------------------------------------------------------------
if [ "${#SAVED[@]}" -gt 0 ]; then
	restore_sizes
	same=1
	for e in "${SAVED[@]}"; do
		[ "$(sysfs_choice "${e%% *}")" = "${e#* }" ] || same=0
	done
	if [ "$same" -eq 1 ]; then ok "host per-size policies as found"; else nok "host per-size policies as found" "$(grep . "$THP"/hugepages-{64,16}kB/enabled)"; fi
fi
expect_sanitizers_quiet "sanitizers quiet"
summary
