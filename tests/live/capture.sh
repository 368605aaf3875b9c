#!/usr/bin/env bash
# Live tests of `thpctl capture` and `--sysroot FILE.tar.gz`:
#   - as root: a bundle of this host replays through --sysroot with the same
#     settings and knob values as the live `status --json` (counters may move);
#     its files equal the live sysfs knobs; a process's environ keeps the THP
#     variables and redacts every other value (a planted secret appears
#     nowhere in the bundle); the private extraction directory is gone after;
#   - as nobody: a capture records what it can read and names what it could not;
#   - hostile bundles (tests/live/capture_hostile.py): absolute names, ..
#     escapes, symlinks, hard links, devices, FIFOs, a member over the size
#     cap, too many members or bytes, a 2 MiB pax record, truncated/corrupt gzip: a warning and the member
#     skipped, or exit 1 with a clear error; nothing written outside the
#     extraction directory; no hang (each run under timeout);
#   - a capture whose manifest says the THP tree was not recorded prints "not
#     recorded" for the mTHP line, one that recorded it whole "none".
# Changes nothing on the host. Run under `flock /tmp/thpctl-live.lock`.
#
# Harness: tests/lib.sh ("capture: N passed, M failed, K skipped").
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init capture
need_built "$T"
need_python3

TD=$TMP/tmpdir # TMPDIR of every run: extraction directories must not stay there
mkdir -p "$TD"
chmod 1777 "$TD"
tmpdir_empty() { [ -z "$(ls -A "$TD")" ]; }
# tx ARGS: thpctl with TMPDIR=$TD under a timeout (124: it hung)
tx() {
	TMPDIR=$TD timeout 120 "$T" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	san_note "thpctl $*" "$TMP/err"
}

# ---- libarchive is loaded by capture and the bundle reader only ----------------
REL=${THPCTL_REL:-build/thpctl}
if [ -x "$REL" ]; then
	expect_eval "$REL does not link libarchive (capture and --sysroot FILE.tar.gz load it)" \
		"! readelf -d '$REL' | grep -q 'NEEDED.*libarchive'" "$(readelf -d "$REL" | grep NEEDED | tr -s ' ' | cut -c1-300)"
else
	skip "$REL does not link libarchive" "$REL missing (make build/thpctl)"
fi

# ---- hostile bundles (no root needed) ----------------------------------------
H=$TMP/hostile OUTSIDE=$TMP/outside
mkdir -p "$H" "$OUTSIDE"
if ! python3 tests/live/capture_hostile.py "$H" "$OUTSIDE" 2>"$TMP/err"; then
	nok "hostile bundles built" "$(errtail)"
else
	# CASE RC PATTERN: a run of status --json on the bundle exits RC, stderr matches PATTERN
	hostile() {
		local c=$1 want=$2 pat=$3
		THPCTL_TEST_TARX_LIMITS=${LIMITS:-} tx --sysroot "$H/$c.tar.gz" status --json
		if [ "$RC" -ne "$want" ]; then
			nok "hostile $c: exit $want" "exit $RC; stderr: $(errtail)"
		elif ! grep -Eq -- "$pat" "$TMP/err"; then
			nok "hostile $c: says '$pat'" "stderr: $(errtail)"
		elif [ -n "$(ls -A "$OUTSIDE")" ]; then
			nok "hostile $c: nothing outside" "$(ls -A "$OUTSIDE")"
		elif ! tmpdir_empty; then
			nok "hostile $c: extraction directory removed" "$(ls -A "$TD")"
		else
			ok "hostile $c: exit $want, '$pat', nothing outside, temp dir gone"
		fi
	}
	hostile absolute 0 "member '/.*escaped-absolute' skipped: an absolute name"
	hostile dotdot 0 "member 'proc/\.\./.*escaped-dotdot' skipped: .*\.\. component"
	hostile dotdot-lead 0 "member '\.\./escaped-dotdot-lead' skipped"
	hostile symlink 0 "member 'sys/out' skipped: a symlink"
	hostile hardlink 0 "member 'proc/uptime' skipped: a hard link"
	hostile device 0 "member 'proc/zoneinfo' skipped: a device node"
	hostile fifo 0 "member 'proc/pagetypeinfo' skipped: a FIFO"
	hostile duplicate 0 "member 'proc/vmstat' skipped: a duplicate name"
	hostile huge 1 "proc/smaps-huge: a member of 268435457 bytes \(at most 268435456\)"
	LIMITS=1048576,8388608,2000 hostile many 1 "more than 2000 members"
	LIMITS=1048576,8388608,2000 hostile total 1 "proc/big/7: the members pass 8388608 bytes in all"
	hostile pax 1 "Special header too large"
	hostile truncated 1 "not a tar.gz bundle: truncated gzip input|corrupt or truncated"
	hostile corrupt 1 "not a tar.gz bundle|corrupt or truncated"
	hostile garbage 1 "not a tar.gz bundle"
	hostile empty 1 "not a tar.gz bundle"
	# what was skipped is not read either: the duplicate's value, the link targets
	tx --sysroot "$H/duplicate.tar.gz" status --json
	expect_json "duplicate: the first proc/vmstat is the one read" "$TMP/out" \
		'd["since_boot"]["vmstat"]["nr_anon_transparent_hugepages"] == 3' 'd["since_boot"]["vmstat"]'
	tx --sysroot "$H/good.tar.gz" status
	expect_rc "the valid part of a bundle replays (status exit 0)" 0
	expect_eval "its release is the recorded one" "grep -q '6.1.0-hostile' '$TMP/out'" "$(head -c 300 "$TMP/out")"
	mkfifo "$TMP/fifo.tar.gz"
	tx --sysroot "$TMP/fifo.tar.gz" status
	expect_eval "a FIFO as --sysroot: exit 1, no hang" "[ $RC -eq 1 ]" "exit $RC: $(errtail)"
fi

if [ "$ROOT" -ne 1 ]; then
	skip "capture of this host" "needs root"
	summary
fi

# ---- capture as root, replay, compare ----------------------------------------
SECRET=hunter2-$RANDOM$RANDOM
env -i MALLOC_CONF=thp:always,narenas:2 GODEBUG=http2debug=1,disablethp=1 \
	GLIBC_TUNABLES=glibc.malloc.hugetlb=1 SECRET_TOKEN="$SECRET" PATH=/usr/bin:/bin \
	sleep 600 &
HP=$!
track_pid "$HP"
wait_for 5 test -r "/proc/$HP/environ"
B=$TMP/host.tar.gz
tx capture -o "$B" --pid "$HP"
expect_rc "capture --pid: exit 0" 0
expect_eval "capture says what it wrote" "grep -q '^wrote $B: [0-9]* files' '$TMP/out'" "$(head -c 300 "$TMP/out")"
tar -tzf "$B" >"$TMP/members" 2>"$TMP/err"
missing=''
for m in proc/vmstat proc/meminfo proc/buddyinfo proc/pagetypeinfo proc/zoneinfo proc/cmdline \
	proc/sys/kernel/osrelease proc/sys/vm/overcommit_memory proc/mounts \
	sys/kernel/mm/transparent_hugepage/enabled sys/kernel/mm/transparent_hugepage/defrag \
	sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan \
	capture/status.json capture/status.txt capture/version capture/manifest \
	"proc/$HP/status" "proc/$HP/stat" "proc/$HP/smaps" "proc/$HP/smaps_rollup" \
	"proc/$HP/cmdline" "proc/$HP/comm" "proc/$HP/cgroup" "proc/$HP/environ"; do
	grep -qx -- "$m" "$TMP/members" || missing="$missing $m"
done
expect_eval "the bundle holds every host and process file" "[ -z '$missing' ]" "missing:$missing"
n_live=$(find /sys/kernel/mm/transparent_hugepage -mindepth 2 -maxdepth 2 -path '*/hugepages-*kB/enabled' | wc -l)
n_rec=$(grep -c '^sys/kernel/mm/transparent_hugepage/hugepages-[0-9]*kB/enabled$' "$TMP/members")
expect_eval "every mTHP size directory recorded ($n_live)" "[ $n_live -eq $n_rec ]" "live $n_live, recorded $n_rec"
X=$TMP/x
mkdir -p "$X"
tar -xzf "$B" -C "$X"
diffs=''
while IFS= read -r f; do
	rel=${f#/}
	# counters: per-size stats, and khugepaged's two (a scan may end after the capture)
	case $rel in */stats/* | */khugepaged/full_scans | */khugepaged/pages_collapsed) continue ;; esac
	[ -r "$f" ] || continue
	# through a pipe: sysfs files report a size of 4096, which cmp would compare
	cat -- "$f" | cmp -s - "$X/$rel" || diffs="$diffs $rel"
done < <(find /sys/kernel/mm/transparent_hugepage -type f)
expect_eval "every recorded THP knob equals the live file" "[ -z '$diffs' ]" "differ:$diffs"
envf=$X/proc/$HP/environ
expect_eval "environ keeps MALLOC_CONF and GLIBC_TUNABLES whole" \
	"tr '\0' '\n' <'$envf' | grep -qx 'MALLOC_CONF=thp:always,narenas:2' && tr '\0' '\n' <'$envf' | grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1'" \
	"$(tr '\0' ' ' <"$envf")"
expect_eval "environ keeps only GODEBUG's disablethp item" \
	"tr '\0' '\n' <'$envf' | grep -qx 'GODEBUG=disablethp=1,<redacted>'" "$(tr '\0' ' ' <"$envf")"
expect_eval "environ redacts every other value (SECRET_TOKEN, PATH)" \
	"tr '\0' '\n' <'$envf' | grep -qx 'SECRET_TOKEN=<redacted>' && tr '\0' '\n' <'$envf' | grep -qx 'PATH=<redacted>'" \
	"$(tr '\0' ' ' <"$envf")"
expect_eval "the planted secret is nowhere in the bundle" "! gzip -dc '$B' | grep -aq '$SECRET'" "found $SECRET"

# replay: settings and knob values as live; counters may move
tx status --json
cp "$TMP/out" "$TMP/live.json"
tx --sysroot "$B" status --json
cp "$TMP/out" "$TMP/rec.json"
expect_rc "--sysroot BUNDLE status --json: exit 0" 0
expect_eval "the extraction directory is removed at exit" tmpdir_empty "$(ls -A "$TD")"
cmp_msg=$(python3 - "$TMP/live.json" "$TMP/out" <<'PY'
import json, sys
live, rec = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
def diffs(a, b, path="policy"):
    """The paths where A and B differ, with both values (short)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in diffs(a.get(k), b.get(k), path + "." + k)]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in diffs(x, y, "%s[%d]" % (path, i))]
    return [] if a == b else ["%s: live %s, replay %s" % (path, json.dumps(a)[:120], json.dumps(b)[:120])]
# khugepaged's pages_collapsed and full_scans are counters inside the policy object: a scan
# that ends between the capture and the live read moves them (CI: a failure here), so they
# compare as "the live one no smaller"
lk, rk = (dict(d["policy"].get("khugepaged") or {}) for d in (live, rec))
for k in ("pages_collapsed", "full_scans"):
    a_, b_ = lk.pop(k, None), rk.pop(k, None)
    if not (isinstance(a_, int) and isinstance(b_, int) and a_ >= b_):
        bad.append("policy.khugepaged.%s: live %r, replay %r" % (k, a_, b_))
lp, rp = dict(live["policy"], khugepaged=lk), dict(rec["policy"], khugepaged=rk)
if lp != rp:
    bad.append("; ".join(diffs(lp, rp)[:6]))
for k in ("release", "pmd_size_bytes", "page_size_bytes"):
    if live["kernel"].get(k) != rec["kernel"].get(k):
        bad.append("kernel.%s %r != %r" % (k, live["kernel"].get(k), rec["kernel"].get(k)))
lc, rc = live["kernel"]["capabilities"], rec["kernel"]["capabilities"]
for k in ("thp", "mthp_sizes_kb", "per_size_stats", "shrink_underused"):
    if lc.get(k) != rc.get(k):
        bad.append("capabilities.%s %r != %r" % (k, lc.get(k), rc.get(k)))
if rc.get("madv_collapse") is not None:
    bad.append("madv_collapse probed on a recorded tree: %r" % rc.get("madv_collapse"))
print("; ".join(bad))
PY
)
expect_eval "replayed settings, knobs and capabilities equal the live ones" "[ -z \"\$cmp_msg\" ]" "$cmp_msg"
tx --sysroot "$B" status
expect_eval "text status of the bundle names the live mTHP sizes" \
	"[ $RC -eq 0 ] && grep -Eq 'mTHP sizes \(anon\) +$n_live: ' '$TMP/out'" "exit $RC: $(grep mTHP "$TMP/out")"
# the EXCEPT_ADVISED probe the capture made is shown as the capture's, not as probed here
expect_eval "text status of the bundle: PR_THP_DISABLE_EXCEPT_ADVISED as the capture probed it" \
	"grep -Eq 'PR_THP_DISABLE_EXCEPT_ADVISED +(yes|no) \(as probed by the capture\)$' '$TMP/out'" \
	"$(grep EXCEPT_ADVISED "$TMP/out")"
tx --sysroot "$B" ps --all --json
expect_json "ps --all on the bundle lists the recorded process, its source a capture" "$TMP/out" \
	"any(p['pid'] == $HP for p in d['processes']) and d['source'] == 'capture'" \
	"[p['pid'] for p in d['processes']], d['source']"
expect_eval "the extraction directory is removed after ps too" tmpdir_empty "$(ls -A "$TD")"
tx --sysroot "$B" ps --all
expect_eval "ps on a capture says it lists only the processes the capture recorded" \
	"[ $RC -eq 0 ] && grep -q 'thpctl capture: only the processes it recorded' '$TMP/out'" "exit $RC: $(tail -n3 "$TMP/out")"
tx --sysroot "$B" why 999999
expect_eval "why of a process the capture did not record: not in this recorded tree (exit 1)" \
	"[ $RC -eq 1 ] && grep -q 'process 999999 is not in this recorded tree' '$TMP/err'" "exit $RC: $(errtail)"

# the same bundle through a plain extraction: a capture is a fixture tree
tx --sysroot "$X" status --json
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(a["policy"]!=b["policy"])' \
	"$TMP/out" "$TMP/rec.json"
expect_zero "tar -x of the bundle replays as a directory (the same policy as the bundle)" $? "policy differs"

# options
: >"$TMP/exists.tar.gz"
tx capture -o "$TMP/exists.tar.gz"
expect_eval "an existing -o file is not replaced (exit 1, still empty)" \
	"[ $RC -eq 1 ] && [ ! -s '$TMP/exists.tar.gz' ]" "exit $RC: $(errtail)"
tx capture -o "$TMP/both.tar.gz" --pid 1 --all-processes
expect_eval "--pid with --all-processes: usage error, no file" "[ $RC -eq 2 ] && [ ! -e '$TMP/both.tar.gz' ]" "exit $RC"
tx capture -o "$TMP/all.tar.gz" --all-processes --json
expect_json "--all-processes records many processes" "$TMP/out" \
	'd["processes"] >= 10 and d["files"] > 100 and d["compressed_bytes"] > 0' 'd'

# ---- as nobody ---------------------------------------------------------------
mkdir -m 0777 "$TMP/nb"
TMPDIR=$TD timeout 120 "${NOBODY[@]}" "$T" capture -o "$TMP/nb/n.tar.gz" --pid 1 >"$TMP/out" 2>"$TMP/err"
RC=$?
san_note "(nobody) capture" "$TMP/err"
expect_rc "capture as nobody: exit 0 with what it can read" 0
expect_eval "as nobody it names what it could not read" \
	"grep -q 'not recorded: /proc/1/environ' '$TMP/err' && gzip -dc '$TMP/nb/n.tar.gz' | tar -xOf - capture/manifest | grep -q '^unreadable proc/1/environ'" \
	"$(errtail)"
TMPDIR=$TD timeout 60 "${NOBODY[@]}" "$T" --sysroot "$TMP/nb/n.tar.gz" status >"$TMP/out" 2>"$TMP/err"
RC=$?
expect_rc "its bundle replays as nobody" 0
expect_eval "and its temp dir is gone" tmpdir_empty "$(ls -A "$TD")"
# a non-root --pid capture holds no readable smaps: capture/version gives the page size
tx --sysroot "$TMP/nb/n.tar.gz" status
expect_eval "(nobody --pid 1) replay: a base page size and the PMD blocks table" \
	"grep -Eq '^  base page +[0-9]+ kB' '$TMP/out' && grep -q 'free blocks of order >= 9 (PMD) per zone' '$TMP/out'" \
	"$(grep -E 'base page|free blocks|free PMD' "$TMP/out")"
tx --sysroot "$TMP/nb/n.tar.gz" status --json
expect_json "(nobody --pid 1) replay JSON: page_size_bytes and pmd_order known" "$TMP/out" \
	'd["kernel"]["page_size_bytes"] and d["since_boot"]["pmd_order"] == 9' 'd["kernel"]["page_size_bytes"]'
gzip -dc "$TMP/nb/n.tar.gz" | tar -xOf - capture/version >"$TMP/ver"
expect_eval "capture/version records page_size" "grep -Eq '^page_size [0-9]+$' '$TMP/ver'" "$(cat "$TMP/ver")"
# the same bundle without that line (an older capture): partial, the page size named
python3 - "$TMP/nb/n.tar.gz" "$TMP/nopage.tar.gz" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1]) as i, tarfile.open(sys.argv[2], "w:gz") as o:
    for m in i:
        data = i.extractfile(m).read() if m.isfile() else None
        if m.name == "capture/version":
            data = b"".join(l for l in io.BytesIO(data) if not l.startswith(b"page_size "))
            m.size = len(data)
        o.addfile(m, io.BytesIO(data) if data is not None else None)
PY
tx --sysroot "$TMP/nopage.tar.gz" status --json
expect_json "no smaps, no page_size line: partial, the base page size missing" "$TMP/out" \
	'd["partial"] is True and any("base page size" in x for x in d["missing"])' 'd["missing"]'
tx --sysroot "$TMP/nopage.tar.gz" status
expect_eval "and the text says the PMD blocks are unknown (no silent drop)" \
	"grep -q 'free PMD blocks per zone: unknown' '$TMP/out'" "$(head -n1 "$TMP/out")"
# ps over no readable process: totals unknown, not 0
tx --sysroot "$TMP/nb/n.tar.gz" ps
expect_eval "(nobody --pid 1) replay ps: totals '-', not 0 kB" \
	"grep -Eq '^total +0 procs +- +-' '$TMP/out'" "$(grep '^total' "$TMP/out")"
tx --sysroot "$TMP/nb/n.tar.gz" ps --json
expect_json "and null totals in JSON" "$TMP/out" \
	'd["totals"]["rss_kb"] is None and d["totals"]["anon_huge_kb"] is None' 'd["totals"]'
# --pid: a PID that does not exist is the user's error; an empty piece a usage error
tx capture -o "$TMP/nopid.tar.gz" --pid 999997
expect_eval "capture --pid of no process: exit 1 naming it, no bundle" \
	"[ $RC -eq 1 ] && [ ! -e '$TMP/nopid.tar.gz' ] && grep -q 'no such process 999997' '$TMP/err'" "exit $RC: $(errtail)"
tx capture -o "$TMP/empty.tar.gz" --pid 1,,2
expect_eval "capture --pid 1,,2: usage error, no file" "[ $RC -eq 2 ] && [ ! -e '$TMP/empty.tar.gz' ]" "exit $RC"
# advise on a nobody --all-processes replay counts the unreadable processes as ps does
TMPDIR=$TD timeout 120 "${NOBODY[@]}" "$T" capture -o "$TMP/nb/all.tar.gz" --all-processes >"$TMP/out" 2>"$TMP/err"
tx --sysroot "$TMP/nb/all.tar.gz" ps --all --json
cp "$TMP/out" "$TMP/ps-all.json"
tx --sysroot "$TMP/nb/all.tar.gz" advise --json
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); a=json.load(open(sys.argv[2])); sys.exit(not (p["unreadable"] > 0 and a["partial"] is True and a["unreadable"] == p["unreadable"]))' \
	"$TMP/ps-all.json" "$TMP/out"
expect_zero "(nobody --all-processes) replay advise: partial, unreadable as ps counts it" $? \
	"$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print(a["partial"], a["unreadable"])' "$TMP/out")"

# why on a replay: the PR_THP_DISABLE_EXCEPT_ADVISED caveat as live (the probe in status.json)
if gzip -dc "$B" | tar -xOf - capture/status.json | grep -q '"pr_thp_disable_except_advised": true'; then
	tx --sysroot "$B" why "$HP"
	expect_eval "replay why: the EXCEPT_ADVISED caveat the recorded kernel has" \
		"grep -q 'PR_THP_DISABLE_EXCEPT_ADVISED' '$TMP/out' || ! grep -q 'THP_enabled 1' '$TMP/out'" "$(grep prctl "$TMP/out")"
fi

# ---- not recorded vs the kernel lacks it ------------------------------------
python3 - "$B" "$TMP/nothp.tar.gz" "$TMP/whole.tar.gz" <<'PY'
import io, re, sys, tarfile
src, nothp, whole = sys.argv[1:4]
mthp = re.compile(r"^sys/kernel/mm/transparent_hugepage/hugepages-")
for out, keep_line in ((nothp, False), (whole, True)):
    with tarfile.open(src) as i, tarfile.open(out, "w:gz") as o:
        for m in i:
            if mthp.match(m.name):
                continue
            data = i.extractfile(m).read() if m.isfile() else None
            if m.name == "capture/manifest" and not keep_line:
                data = b"".join(l for l in io.BytesIO(data) if b" sys/kernel/mm/transparent_hugepage\n" not in l)
                m.size = len(data)
            o.addfile(m, io.BytesIO(data) if data is not None else None)
PY
tx --sysroot "$TMP/nothp.tar.gz" status
expect_eval "a capture without the THP tree's record: mTHP 'not recorded'" \
	"grep -Eq 'mTHP sizes \(anon\) +not recorded' '$TMP/out'" "$(grep mTHP "$TMP/out")"
tx --sysroot "$TMP/nothp.tar.gz" status --json
expect_json "and null mthp_sizes_kb in JSON" "$TMP/out" 'd["kernel"]["capabilities"]["mthp_sizes_kb"] is None' 'd["kernel"]["capabilities"]'
tx --sysroot "$TMP/whole.tar.gz" status
expect_eval "a capture that recorded the tree whole without mTHP dirs: 'none'" \
	"grep -Eq 'mTHP sizes \(anon\) +none' '$TMP/out'" "$(grep mTHP "$TMP/out")"
tx --sysroot "$TMP/whole.tar.gz" status --json
expect_json "and an empty mthp_sizes_kb in JSON" "$TMP/out" 'd["kernel"]["capabilities"]["mthp_sizes_kb"] == []' 'd["kernel"]["capabilities"]'

expect_sanitizers_quiet "no sanitizer report"
summary
