#!/usr/bin/env bash
# Damaged trees: copies of the recorded linux-6.18-x86 tree with one file
# replaced by a FIFO, a symlink to /dev/zero, a symlink loop, a directory, a
# file far above its kind's ceiling or a smaps with a 100 000-character line.
# Every command must finish within 5 s with exit status 0, 1 or 2, no
# sanitizer report and valid JSON, and the commands that read the damaged file
# must say "partial": true (status also names the damage in words; maps of a
# process whose smaps cannot be read at all exits 1 and names it on stderr).
#
#   tests/damaged.sh        (THPCTL=path overrides build/asan/thpctl; DAMAGED_KEEP=DIR
#                           keeps the --json documents, as N.json and N.args)
#
# The trees are checked JOBS at a time (default one per CPU), their results printed in order.
# Harness: tests/lib.sh; last line "damaged: N passed, M failed, 0 skipped".
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
replay_env
suite_init damaged

BASE=tests/fixtures/linux-6.18-x86
THPD=sys/kernel/mm/transparent_hugepage
LAYOUT=30730 # thpfix-layout in the recorded tree
NRH=sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages

if [ ! -x "$T" ]; then
	nok "preflight" "no $T: build it first (make build/asan/thpctl)"
	summary
fi
tests/restore-modes || nok "fixture modes" "cannot restore them from MODES"

# NAME|PATH|DAMAGE|COMMANDS THAT MUST SAY PARTIAL (s=status, p=ps, m=maps, h=hugetlb plan,
# a=advise)|WORDS status prints; DAMAGE rm removes PATH (a glob: every file it matches)
SPECS=(
	"vmstat-fifo|proc/vmstat|fifo|s|not a regular file"
	"vmstat-dir|proc/vmstat|dir|s|a directory"
	"meminfo-zero|proc/meminfo|zero|s|a symlink"
	"meminfo-big|proc/meminfo|big|s|too large"
	"buddyinfo-loop|proc/buddyinfo|loop|s|a symlink"
	"enabled-fifo|$THPD/enabled|fifo|s|not a regular file"
	"defrag-big|$THPD/defrag|big|s|too large"
	"max_ptes_none-zero|$THPD/khugepaged/max_ptes_none|zero|s|a symlink"
	"pmd_size-dir|$THPD/hpage_pmd_size|dir|s|a directory"
	"mthp-enabled-loop|$THPD/hugepages-64kB/enabled|loop|s|a symlink"
	"mthp-stat-fifo|$THPD/hugepages-2048kB/stats/anon_fault_alloc|fifo|s|not a regular file"
	"pmd_size-cut|$THPD/hpage_pmd_size|sed:s/2097152/209715/|s|malformed"
	"buddyinfo-row-cut|proc/buddyinfo|sed:\$s/ *[0-9]* *[0-9]* *\$//|s|buddyinfo"
	"smaps-zero|proc/$LAYOUT/smaps|zero|pm|a symlink"
	"smaps-fifo|proc/$LAYOUT/smaps|fifo|pm|not a regular file"
	"smaps-longline|proc/$LAYOUT/smaps|longline|pm|too large"
	"status-fifo|proc/$LAYOUT/status|fifo|p|"
	"status-zero|proc/$LAYOUT/status|zero|p|"
	"status-big|proc/$LAYOUT/status|big|p|"
	"stat-loop|proc/$LAYOUT/stat|loop|p|"
	"uid-hex|proc/$LAYOUT/status|sed:s/^Uid:.*/Uid:\t0x1f\t0\t0\t0/|p|"
	"thp_enabled-hex|proc/$LAYOUT/status|sed:s/^THP_enabled:.*/THP_enabled:\t0x1f/|p|"
	"vmrss-garbled|proc/$LAYOUT/status|sed:s/^VmRSS:.*/VmRSS:\t12abc kB/|pm|"
	"status-cut|proc/$LAYOUT/status|cut:200|pm|"
	"status-no-name|proc/$LAYOUT/status|sed:/^Name:/d|pm|"
	"status-crlf|proc/$LAYOUT/status|sed:s/$/\r/||"
	"anonhuge-garbled|proc/$LAYOUT/smaps|sed:16s/.*/AnonHugePages:        12abc kB/|pm|"
	"size-1e9999|proc/$LAYOUT/smaps|sed:2s/.*/Size:             1e9999 kB/|pm|"
	"size-2p64|proc/$LAYOUT/smaps|sed:2s/.*/Size:             18446744073709551616 kB/|pm|"
	"nul-header|proc/$LAYOUT/smaps|nul:26|pm|"
	"rollup-dir|proc/$LAYOUT/smaps_rollup|dir||"
	"uptime-fifo|proc/uptime|fifo||"
	"cmdline-zero|proc/cmdline|zero||"
	"mounts-fifo|proc/mounts|fifo||"
	"passwd-fifo|etc/passwd|fifo||"
	"osrelease-zero|proc/sys/kernel/osrelease|zero||"
	"hugetlb-fifo|sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages|fifo|h|"
	# a key seen twice is damage: unknown and partial, in every reader (issue 24)
	"vmstat-dup|proc/vmstat|sed:/^thp_fault_alloc /a thp_fault_alloc 0|s|thp_fault_alloc seen twice"
	"meminfo-dup|proc/meminfo|sed:/^AnonHugePages:/a AnonHugePages:       0 kB|s|AnonHugePages seen twice"
	"buddyinfo-dup|proc/buddyinfo|sed:\$p|s|a zone listed twice"
	"status-dup|proc/$LAYOUT/status|sed:/^VmRSS:/a VmRSS:\t       4 kB|pm|"
	"smaps-dup|proc/$LAYOUT/smaps|sed:241p|pm|"
	# a damaged hugetlb count is unknown, and the plan says what it could not read
	"nr_hugepages-12abc|$NRH|sed:s/.*/12abc/|sh|nr_hugepages (malformed)"
	"nr_hugepages-minus1|$NRH|sed:s/.*/-1/|sh|nr_hugepages (malformed)"
	"nr_hugepages-3.5|$NRH|sed:s/.*/3.5/|sh|nr_hugepages (malformed)"
	"nr_hugepages-hex|$NRH|sed:s/.*/0x1f/|sh|nr_hugepages (malformed)"
	"nr_hugepages-1e9999|$NRH|sed:s/.*/1e9999/|sh|nr_hugepages (malformed)"
	"nr_hugepages-empty|$NRH|sed:s/.*//|sh|nr_hugepages (malformed)"
	"nr_hugepages-2p64|$NRH|sed:s/.*/18446744073709551616/|sh|nr_hugepages (malformed)"
	# a smaps the capture could not read is absent: ps and advise count it unreadable
	"smaps-absent|proc/$LAYOUT/smaps|rm|pa|"
	# no smaps at all (a non-root --pid capture): the page size is unknown, said, not guessed
	"smaps-none|proc/*/smaps|rm|spa|the base page size"
)
CMDS=("status --json" "ps --all --json" "maps $LAYOUT --json" "why $LAYOUT --json"
	"advise --json" "hugetlb plan --for 8G --json" "status" "ps --all")

damage() { # ROOT REL KIND
	local f=$1/$2
	rm -rf "$f"
	case $3 in
	rm)
		# shellcheck disable=SC2086 # PATH may be a glob: every file it matches
		rm -f $f
		;;
	fifo) mkfifo "$f" ;;
	zero) ln -s /dev/zero "$f" ;;
	loop) ln -s "$(basename "$f")" "$f" ;;
	dir) mkdir "$f" && echo 1 >"$f/x" ;;
	big) yes 1 | head -c $((1024 * 1024)) >"$f" ;;
	longline)
		{
			sed -n '1,3p' "$BASE/$2"
			printf 'Rss: %0100000d kB\n' 0
			sed -n '4,$p' "$BASE/$2"
		} >"$f"
		;;
	sed:*) sed -e "${3#sed:}" "$BASE/$2" >"$f" ;;
	cut:*) head -c "${3#cut:}" "$BASE/$2" >"$f" ;;
	nul:*) # a NUL in place of the first byte of line N
		sed -e "${3#nul:}s/^./\x00/" "$BASE/$2" >"$f" ;;
	esac
}

DOCS=$TMP/docs
mkdir -p "$DOCS"

json_partial() { # FILE: prints the top-level "partial" value, "none", or "invalid" (not JSON)
	python3 -c 'import json,sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print("invalid")
    sys.exit()
print(str(d.get("partial", "none")).lower() if isinstance(d, dict) else "none")' "$1" 2>/dev/null
}

# check_spec SPEC I: its damaged tree, every command on it; result lines on stdout (relayed in
# order below: the specs run JOBS at a time, one per CPU); its documents are DOCS/I*100+N.json
check_spec() {
	local name rel kind must words root cmd argv label out err start rc ms want got
	local ndoc=$(($2 * 100))
	IFS='|' read -r name rel kind must words <<<"$1"
	root=$TMP/$name
	cp -a "$BASE" "$root"
	damage "$root" "$rel" "$kind"
	for cmd in "${CMDS[@]}"; do
		read -r -a argv <<<"$cmd"
		label="$name: $cmd"
		out=$root.out err=$root.err
		start=$(date +%s%N)
		timeout -s KILL 5 "$T" --no-color --sysroot "$root" "${argv[@]}" >"$out" 2>"$err"
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		if [ "$rc" -eq 137 ] || [ "$rc" -eq 124 ]; then
			nok "$label" "did not finish within 5 s"
			continue
		fi
		if [ "$rc" -gt 2 ] || grep -qE 'Sanitizer|runtime error:' "$err"; then
			nok "$label" "exit status $rc"
			sed 's/^/#      /' "$err" | head -20
			continue
		fi
		ok "$label: finished in $ms ms, exit $rc"
		[[ " $cmd " == *" --json "* ]] || {
			if [ "${argv[0]}" = status ] && [[ $must == *s* ]]; then
				if head -n1 "$out" | grep -q "partial:.*$words"; then
					ok "$label: first line says partial ... $words"
				else
					nok "$label: first line says partial ... $words" "$(head -n1 "$out")"
				fi
			fi
			continue
		}
		got=$(json_partial "$out") # one python3 start per document: it is most of the time
		if [ "$rc" -eq 0 ] && [ "$got" = invalid ]; then
			nok "$label: valid JSON" "invalid JSON"
			continue
		fi
		# every document against its schema, damaged or not (validated after the loop)
		if [ "$rc" -le 1 ] && [ -s "$out" ]; then
			ndoc=$((ndoc + 1))
			cp "$out" "$DOCS/$ndoc.json"
			printf '%s (%s)\n' "$cmd" "$name" >"$DOCS/$ndoc.args"
		fi
		want=
		case ${argv[0]} in
		status) [[ $must == *s* ]] && want=true ;;
		ps) [[ $must == *p* ]] && want=true ;;
		maps) [[ $must == *m* ]] && want=true ;;
		hugetlb) [[ $must == *h* ]] && want=true ;;
		advise) [[ $must == *a* ]] && want=true ;;
		esac
		[ -n "$want" ] || continue
		if [ "${argv[0]}" = maps ] && [ "$rc" -eq 1 ] && [ ! -s "$out" ]; then
			if grep -q "cannot read .*smaps: $words" "$err"; then
				ok "$label: refused: $words"
			else
				nok "$label: refused: $words" "$(head -n1 "$err")"
			fi
			continue
		fi
		if [ "$got" = "$want" ]; then
			ok "$label: partial is $want"
		else
			nok "$label: partial is $want" "partial is ${got:-unreadable} (exit $rc)"
		fi
		# a damaged process keeps its row
		if [ "${argv[0]}" = ps ] && [[ $rel == proc/$LAYOUT/* ]] &&
			[[ $rel != */status || $kind == *:* ]]; then
			if grep -q "\"pid\": $LAYOUT," "$out"; then
				ok "$label: process $LAYOUT is listed"
			else
				nok "$label: process $LAYOUT is listed" "its row is gone"
			fi
		fi
	done
	rm -rf "$root"
}

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
for i in "${!SPECS[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	check_spec "${SPECS[$i]}" "$i" >"$TMP/res.$i" 2>&1 &
done
wait
for i in "${!SPECS[@]}"; do
	relay_results "damaged: ${SPECS[$i]%%|*}" <"$TMP/res.$i"
done

# the documents of every damaged tree against docs/json/ (tests/json_schema.py)
# DAMAGED_KEEP=DIR: keep the documents (N.json, N.args) there
[ -n "${DAMAGED_KEEP:-}" ] && mkdir -p "$DAMAGED_KEEP" && cp "$DOCS"/* "$DAMAGED_KEEP"/
if python3 -c 'import jsonschema' 2>/dev/null; then
	relay_results "schemas" < <(python3 tests/json_schema.py docs/json "$DOCS" --runs-only)
else
	skip "schemas" "no python3-jsonschema (scripts/install-deps)"
fi

# The damaged value itself, in the text and the JSON of one run: unknown in both (they
# agree), never the first copy, the last copy or a plausible 0.
# value NAME ARGS... -- PYEXPR [TEXT-ERE]: the JSON of ARGS --json holds PYEXPR; the text
# of ARGS matches TEXT-ERE (when given)
value() {
	local name=$1 root=$TMP/$1 spec n rel kind
	shift
	# check_spec removed its tree: damage a fresh copy the same way
	for spec in "${SPECS[@]}"; do
		IFS='|' read -r n rel kind _ <<<"$spec"
		[ "$n" = "$name" ] && [ ! -d "$root" ] && cp -a "$BASE" "$root" && damage "$root" "$rel" "$kind"
	done
	local args=()
	while [ "$1" != -- ]; do args+=("$1") && shift; done
	shift
	timeout -s KILL 5 "$T" --no-color --sysroot "$root" "${args[@]}" --json >"$TMP/v.json" 2>/dev/null
	expect_json "$name: ${args[*]} --json: $1" "$TMP/v.json" "$1"
	[ -n "${2:-}" ] || return 0
	timeout -s KILL 5 "$T" --no-color --sysroot "$root" "${args[@]}" >"$TMP/v.txt" 2>/dev/null
	if grep -qE -- "$2" "$TMP/v.txt"; then
		ok "$name: ${args[*]}: text /$2/"
	else
		nok "$name: ${args[*]}: text /$2/" "$(grep -m3 -iE 'fault success|AnonHuge|RSS|reserve' "$TMP/v.txt" | tr '\n' '|')"
	fi
}
value vmstat-dup status -- 'd["since_boot"]["vmstat"].get("thp_fault_alloc") is None and d["since_boot"]["fault_success"] is None' \
	'^  PMD fault success +-$'
value meminfo-dup status -- 'd["usage"]["meminfo_kb"]["AnonHugePages"] is None' '^  AnonHugePages +-$'
value buddyinfo-dup status -- '[(z["node"], z["zone"]) for z in d["since_boot"]["buddyinfo"]] == [(0, "DMA"), (0, "DMA32")]'
value status-dup ps --all -- "proc($LAYOUT)['rss_kb'] is None" "^ *$LAYOUT +[^ ]+ +thpfix-layout +- "
value smaps-dup maps $LAYOUT -- 'd["totals"]["anon_huge_kb"] is None and d["partial"] is True'
for v in 12abc minus1 3.5 hex 1e9999 empty 2p64; do
	value nr_hugepages-$v hugetlb plan --for 8G -- \
		'd["reserved_now"] is None and d["needed"] is None and d["partial"] is True and any("nr_hugepages" in u for u in d["unread"])' \
		'^  reserve  unknown: nr_hugepages'
done

# A bundle of the cgroups tree with a cgroup named with control bytes and bytes >= 0x80
# (extracted: the replay counts it and flags it near its limit, like the live host) and a
# member refused (a .. name): status and cgroups say partial and name it, the warning
# escapes its TAB as \x09.
python3 - tests/fixtures/cgroups-v2-x86 "$TMP/ctl.tar.gz" <<'PY'
import io, os, sys, tarfile
src, bundle = sys.argv[1:3]
red = b"sys/fs/cgroup/system.slice/redis.service"
odd = b"sys/fs/cgroup/system.slice/trial-\x1b[31mred\t\xc3\xa9\xff"
def name(b):
    return b.decode("utf-8", "surrogateescape")
with tarfile.open(bundle, "w:gz", format=tarfile.GNU_FORMAT) as t:
    for root, dirs, files in os.walk(src.encode()):
        for f in files:
            full = os.path.join(root, f)
            rel = os.path.relpath(full, src.encode())
            t.add(name(full), arcname=name(rel))
            if rel.startswith(red + b"/"):
                data = b"" if f == b"cgroup.procs" else open(full, "rb").read()
                i = tarfile.TarInfo(name(odd + rel[len(red):]))
                i.size = len(data)
                t.addfile(i, io.BytesIO(data))
    i = tarfile.TarInfo("../evil\tname")
    i.size = 2
    t.addfile(i, io.BytesIO(b"x\n"))
PY
value ctl.tar.gz cgroups -- 'd["count"] == 7 and d["partial"] is True and any("../evil\\x09name" in m for m in d["missing"]) and len([f for f in d["flags"] if "/trial-" in f["cgroup"]]) == 1' \
	'partial: not in this replay, so cgroups may be missing: 1 bundle member skipped \(not extracted\): \.\./evil\\x09name$'
value ctl.tar.gz cgroups -- 'True' '^  /system\.slice/trial-\\x1b\[31mred\\x09é\\xff '
value ctl.tar.gz status -- 'd["partial"] is True and d["missing"] == ["bundle member ../evil\\x09name (skipped)"]' \
	'^thpctl status  \(partial: 1 bundle member skipped \(not extracted\): \.\./evil\\x09name\)$'
# every command over the replay says partial and names the member, not status and cgroups
# alone: ps (of a process read whole), advise, hugetlb plan, why (its key only when partial)
SKIP_NOTE='partial: 1 bundle member skipped \(not extracted\): \.\./evil\\x09name$'
value ctl.tar.gz ps --pid 30730 -- 'd["partial"] is True' "^$SKIP_NOTE"
# (its JSON is partial here anyway: one process of the tree is unreadable; the note is what is new)
value ctl.tar.gz ps --by cgroup -- 'd["partial"] is True' "^$SKIP_NOTE"
value ctl.tar.gz advise -- 'd["partial"] is True and "bundle member ../evil\\x09name (skipped)" in d["missing"]' \
	"^  $SKIP_NOTE"
value ctl.tar.gz hugetlb plan --for 1G -- \
	'd["partial"] is True and d["unread"] == ["bundle member ../evil\\x09name (skipped)"]' "^  $SKIP_NOTE"
value ctl.tar.gz why 30730 -- 'd["partial"] is True and d["missing"] == ["bundle member ../evil\\x09name (skipped)"]' \
	"^  $SKIP_NOTE"
# the same tree extracted whole: none of them partial (why has no partial key then)
python3 - tests/fixtures/cgroups-v2-x86 "$TMP/whole.tar.gz" "$TMP/many.tar.gz" <<'PY'
import io, os, sys, tarfile
src, whole, many = sys.argv[1:4]
for bundle, n in ((whole, 0), (many, 6)):
    with tarfile.open(bundle, "w:gz", format=tarfile.GNU_FORMAT) as t:
        for e in sorted(os.listdir(src)):
            t.add(os.path.join(src, e), arcname=e)
        for k in range(n):
            i = tarfile.TarInfo("/abs/m%d" % k)
            i.size = 2
            t.addfile(i, io.BytesIO(b"x\n"))
PY
value whole.tar.gz ps --pid 30730 -- 'd["partial"] is False'
value whole.tar.gz hugetlb plan --for 1G -- 'd["partial"] is False and d["unread"] == []'
value whole.tar.gz why 30730 -- '"partial" not in d and "missing" not in d'
value whole.tar.gz status -- 'd["partial"] is False and d["missing"] == []'
# more members skipped than named: the first four, and how many in all
value many.tar.gz status -- 'd["partial"] is True and d["missing"][-1] == "2 more bundle members (skipped)"' \
	'partial: 6 bundle members skipped \(not extracted\): /abs/m0, /abs/m1,'
value many.tar.gz ps --pid 30730 -- 'd["partial"] is True' '/abs/m3 and 2 more$'
"$T" --no-color --sysroot "$TMP/ctl.tar.gz" status >/dev/null 2>"$TMP/ctl.err"
expect_eval "ctl.tar.gz: the skip warning escapes the TAB" \
	"grep -qF \"member '../evil\\\\x09name' skipped\" '$TMP/ctl.err'" "$(head -c 300 "$TMP/ctl.err")"

# A cgroups tree with one memory.stat unreadable (a directory) and one cgroup without anon:
# anon and its ratio unknown (null, '-') and not applicable (null, 'n/a'); their documents
# and the bundle's against docs/json/cgroups.json and status.json
cg=$TMP/cgdmg
cp -a tests/fixtures/cgroups-v2-x86 "$cg"
u=$cg/sys/fs/cgroup/user.slice/user-1000.slice/memory.stat
sed -i 's/^anon .*/anon 0/; s/^anon_thp .*/anon_thp 0/' "$u"
rm -f "$cg/sys/fs/cgroup/system.slice/redis.service/memory.stat"
mkdir "$cg/sys/fs/cgroup/system.slice/redis.service/memory.stat"
value cgdmg cgroups -- '[(c["anon_bytes"], c["anon_thp_bytes"], c["near_limit_with_thp"]) for c in d["cgroups"] if c["path"] == "/system.slice/redis.service"] == [(None, None, None)] and [c["anon_thp_ratio"] for c in d["cgroups"] if c["path"] == "/user.slice/user-1000.slice"] == [None]' \
	'^  /user\.slice/user-1000\.slice +0 kB +n/a '
# ps --by cgroup: the process whose smaps is unreadable is in its cgroup's row (UNREADABLE),
# the header counts it, and the footer is the column's sum
value cgdmg ps --by cgroup -- 'd["processes"] == 4 and d["unreadable"] == 1 and [(g["processes"], g["unreadable"]) for g in d["groups"] if g["cgroup"] == "/"] == [(1, 1)]' \
	'^Processes by memory cgroup \(cgroup v2, from cgroup.procs\): 4 processes, 1 of them unreadable$'
CGDOCS=$TMP/cgdocs
mkdir -p "$CGDOCS"
n=0
for root in "$cg" "$TMP/ctl.tar.gz"; do
	for cmd in "cgroups --json" "status --json"; do
		n=$((n + 1))
		read -r -a argv <<<"$cmd"
		timeout -s KILL 5 "$T" --sysroot "$root" "${argv[@]}" >"$CGDOCS/$n.json" 2>/dev/null
		printf '%s (%s)\n' "$cmd" "${root##*/}" >"$CGDOCS/$n.args"
	done
done
if python3 -c 'import jsonschema' 2>/dev/null; then
	relay_results "schemas (cgroups)" < <(python3 tests/json_schema.py docs/json "$CGDOCS" --runs-only)
else
	skip "schemas (cgroups)" "no python3-jsonschema (scripts/install-deps)"
fi

# Derived figures beyond 64 bits, and valid values at the top of the u64 range: exact
# (a u128 and an exact decimal), never wrapped, saturated or refused.
M=18446744073709551615
wide=$TMP/wide
cp -a "$BASE" "$wide"
echo $M >"$wide/$NRH"
echo $M >"$wide/${NRH%/*}/free_hugepages"
sed -i "\$s/.*/Node 0, zone   Normal$(printf " $M%.0s" {1..11})/" "$wide/proc/buddyinfo"
sed -i "s/^VmRSS:.*/VmRSS:\t$M kB/" "$wide/proc/$LAYOUT/status"
sed -i "s/^VmRSS:.*/VmRSS:\t9223372036854775808 kB/" "$wide/proc/30732/status"
value wide status -- 'd["partial"] is False and [z["free_pmd_blocks"] for z in d["since_boot"]["buddyinfo"] if z["zone"] == "Normal"] == [3 * (2**64 - 1)]' \
	'hugetlb pool of 18446744073709551615 x 2048 kB \(36893488147419103230 MiB\)'
value wide status -- 'True' '^ +0 +Normal +55340232221128654845 +110680464442257309690 MiB$'
value wide ps --all -- "proc($LAYOUT)['rss_kb'] == 2**64 - 1 and proc(30732)['rss_kb'] == 2**63 and d['damaged'] == 0 and d['totals']['rss_kb'] == sum(p['rss_kb'] for p in d['processes'])" \
	"^ *$LAYOUT .* 17179869184.00 TiB "
value wide hugetlb plan --for 8G -- 'd["reserved_now"] == 2**64 - 1 and d["needed"] == 0 and d["partial"] is False'

# A capture of a tree whose mTHP directories cannot be read (mode 000, captured as nobody):
# each is "unreadable", never "writeonly" (a mode test for files), the THP tree "partial",
# and its replay says the sizes were not recorded (null) and partial, never "none".
cap_as() { if [ "$(id -u)" = 0 ]; then as_nobody "$@"; else "$@"; fi; }
cp -a "$BASE" "$TMP/mthp000"
chmod 000 "$TMP/mthp000/$THPD"/hugepages-*kB
mkdir -m 777 "$TMP/capout"
cap_as "$T" --sysroot "$TMP/mthp000" capture -o "$TMP/capout/mthp.tar.gz" >/dev/null 2>&1
tar -xzOf "$TMP/capout/mthp.tar.gz" capture/manifest >"$TMP/mthp.manifest" 2>/dev/null
expect_eval "capture of unreadable mTHP directories: each unreadable, the THP tree partial" \
	"[ \"\$(grep -c '^unreadable $THPD/hugepages-[0-9]*kB Permission denied\$' '$TMP/mthp.manifest')\" = 9 ] && ! grep -q '^writeonly' '$TMP/mthp.manifest' && grep -qx 'partial $THPD' '$TMP/mthp.manifest'" \
	"$(grep "$THPD" "$TMP/mthp.manifest" | tr '\n' '|')"
value capout/mthp.tar.gz status -- \
	'd["partial"] is True and d["kernel"]["capabilities"]["mthp_sizes_kb"] is None and d["kernel"]["capabilities"]["per_size_stats"] is None and "sys/kernel/mm/transparent_hugepage (not recorded whole)" in d["missing"]' \
	'^  mTHP sizes \(anon\) +not recorded \(the capture has no complete'
chmod 755 "$TMP/mthp000/$THPD"/hugepages-*kB

# A capture where it may not write (its default name in a directory it cannot write to): exit 1,
# and the message says to name a writable place with -o
mkdir -m 755 "$TMP/capro"
cap_rc=$(Tabs=$(realpath "$T") Babs=$(realpath "$BASE") && cd "$TMP/capro" && { cap_as "$Tabs" --sysroot "$Babs" capture >/dev/null 2>"$TMP/capro.err"; echo $?; })
expect_eval "capture into a directory it cannot write: exit 1, says to use -o" \
	"[ '$cap_rc' = 1 ] && grep -q 'Permission denied: name a writable place with -o DIR/FILE.tar.gz' '$TMP/capro.err'" \
	"rc $cap_rc: $(cat "$TMP/capro.err")"

# A replay of a bundle whose reader went away (`... status | head -3`): thpctl dies of SIGPIPE
# as before, and its extracted thpctl-sysroot.* directory is removed first
mkdir -m 700 "$TMP/pipetmp"
pipe_rc=$(TMPDIR=$TMP/pipetmp python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
print(subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL).returncode)' \
	"$T" --sysroot "$TMP/whole.tar.gz" status)
expect_eval "bundle replay killed by SIGPIPE: exit by the signal, temporary directory removed" \
	"[ '$pipe_rc' = -13 ] && [ -z \"\$(ls -A '$TMP/pipetmp')\" ]" "rc $pipe_rc, left: $(ls -A "$TMP/pipetmp")"

# A capture from a recorded tree: a PID given twice (--pid P,P --pid P) is recorded once (no
# duplicate member, no warning in the replay), and by default no process but khugepaged (thpctl's
# own PID is not in the tree: no "gone" line, nothing said to have exited)
"$T" --sysroot "$BASE" capture --pid "$LAYOUT,$LAYOUT" --pid "$LAYOUT" -o "$TMP/capout/dup.tar.gz" \
	--json >"$TMP/dup.out" 2>/dev/null
"$T" --sysroot "$TMP/capout/dup.tar.gz" ps --all --json >/dev/null 2>"$TMP/dup.err"
tar -tzf "$TMP/capout/dup.tar.gz" >"$TMP/dup.list" 2>/dev/null
expect_eval "capture --pid P,P --pid P: each member once, the replay warns of none" \
	"[ -z \"\$(sort '$TMP/dup.list' | uniq -d)\" ] && grep -qx 'proc/$LAYOUT/smaps' '$TMP/dup.list' && ! grep -q duplicate '$TMP/dup.err' && python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d[\"processes\"] == 2 and d[\"processes_exited\"] == 0))' '$TMP/dup.out'" \
	"$(sort "$TMP/dup.list" | uniq -d | head -3 | tr '\n' ' ') $(head -c 300 "$TMP/dup.err")"
"$T" --sysroot "$BASE" capture -o "$TMP/capout/self.tar.gz" --json >"$TMP/self.out" 2>"$TMP/self.err"
tar -xzOf "$TMP/capout/self.tar.gz" capture/manifest >"$TMP/self.manifest" 2>/dev/null
expect_eval "capture from a tree: thpctl's own PID not recorded, nothing said to have exited" \
	"python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d[\"processes\"] == 1 and d[\"processes_exited\"] == 0))' '$TMP/self.out' && ! grep -q '^gone ' '$TMP/self.manifest' && ! grep -q 'exited' '$TMP/self.err'" \
	"$(cat "$TMP/self.out" "$TMP/self.err" | head -c 400)"

# A tree with nothing readable: exit 1 and stdout empty, not even a document (docs/json.md);
# advise and exporter --once printed a whole one before exiting 1
mkdir -p "$TMP/nothing"
for c in status advise "exporter --once"; do
	for j in "" --json; do
		# shellcheck disable=SC2086 # the command and its option are words
		"$T" --sysroot "$TMP/nothing" $c $j >"$TMP/nothing.out" 2>"$TMP/nothing.err"
		rc=$?
		expect_eval "$c${j:+ $j} on a tree with nothing readable: exit 1, stdout empty, the reason" \
			"[ $rc = 1 ] && [ ! -s '$TMP/nothing.out' ] && grep -q 'nothing readable' '$TMP/nothing.err'" \
			"exit $rc, $(wc -c <"$TMP/nothing.out") bytes out: $(head -c 200 "$TMP/nothing.err")"
	done
done

# persist of every knob as it is, with one unreadable (malformed: enabled): refused, exit 1, no
# config printed (it printed one without enabled and exited 0), the knob named
for f in "" --json "--format cmdline"; do
	# shellcheck disable=SC2086 # the option and its value are words
	"$T" --sysroot tests/fixtures/malformed persist $f >"$TMP/persist.out" 2>"$TMP/persist.err"
	rc=$?
	expect_eval "persist${f:+ $f} with an unreadable knob: exit 1, nothing printed, the knob named" \
		"[ $rc = 1 ] && [ ! -s '$TMP/persist.out' ] && grep -q 'could not be read (enabled)' '$TMP/persist.err'" \
		"exit $rc: $(head -c 200 "$TMP/persist.out") $(head -c 200 "$TMP/persist.err")"
done

# snapshot save never replaces what is not a regular file (it renamed its file over /dev/full)
mkfifo "$TMP/save.fifo"
ln -s "$TMP/save.target" "$TMP/save.link"
for f in "$TMP/save.fifo" "$TMP/save.link"; do
	"$T" --sysroot "$BASE" snapshot save "$f" >/dev/null 2>"$TMP/save.err"
	rc=$?
	expect_eval "snapshot save ${f##*/}: refused (exit 1, not a regular file), left as it was" \
		"[ $rc = 1 ] && grep -q 'not a regular file' '$TMP/save.err' && [ ! -f '$f' ] && [ ! -e '$TMP/save.target' ]" \
		"exit $rc: $(head -c 200 "$TMP/save.err"); $(ls -l "$f")"
done
[ -p "$TMP/save.fifo" ] && [ -L "$TMP/save.link" ]
expect_zero "snapshot save: the FIFO and the symlink are still what they were" $? \
	"$(ls -l "$TMP/save.fifo" "$TMP/save.link")"
# the exporter's text file is never renamed over a FIFO either, and says why in words
mkdir "$TMP/prom" && mkfifo "$TMP/prom/thp.prom"
"$T" --sysroot "$BASE" exporter --once --textfile "$TMP/prom" >/dev/null 2>"$TMP/prom.err"
rc=$?
expect_eval "exporter --textfile over a FIFO: exit 1, 'not a regular file', the FIFO kept" \
	"[ $rc = 1 ] && grep -q 'thp.prom: not a regular file' '$TMP/prom.err' && [ -p '$TMP/prom/thp.prom' ]" \
	"exit $rc: $(head -c 200 "$TMP/prom.err")"
"$T" --sysroot "$BASE" snapshot save "$TMP/save.json" >/dev/null 2>"$TMP/save.err"
expect_zero "snapshot save to a new regular file still works" $? "$(head -c 200 "$TMP/save.err")"

# A capture interrupted (SIGINT at different moments): under its name either a whole bundle
# or nothing, never a partial one, and no temporary file left beside it
mkdir "$TMP/intr"
intr_bad=
for d in $(seq 0.04 0.015 0.4); do
	timeout -s INT "$d" "$T" --sysroot "$BASE" capture --all-processes -o "$TMP/intr/c$d.tar.gz" \
		>/dev/null 2>&1
	if [ -e "$TMP/intr/c$d.tar.gz" ] && ! tar -tzf "$TMP/intr/c$d.tar.gz" capture/manifest >/dev/null 2>&1; then
		intr_bad+=" c$d.tar.gz (damaged)"
	fi
done
intr_left=$(find "$TMP/intr" -name '.*' -type f)
expect_eval "capture interrupted by SIGINT: a whole bundle or none, no temporary file left" \
	"[ -z '$intr_bad' ] && [ -z '$intr_left' ]" "bad:$intr_bad left: $intr_left"
summary
