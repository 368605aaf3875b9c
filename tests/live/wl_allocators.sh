#!/usr/bin/env bash
# Live tests of `thpctl lab allocators --quick`: thpctl-churn under glibc's
# malloc and Debian's libjemalloc2, libtcmalloc-minimal4 and libmimalloc2.0
# (LD_PRELOAD; scripts/install-deps --workloads), under enabled=madvise,
# always, always with max_ptes_none=0 and always with each allocator's own
# knob, two rounds. Asserted: a row per mode and installed allocator with
# live bytes and heap RSS; each child named by thpctl's own detection with the
# version dpkg has; THP at fault under always (AnonHugePages > 0) and none
# under madvise for glibc; jemalloc's knob (MALLOC_CONF=thp:never) leaves no
# AnonHugePages, nor does prctl where an allocator has no opt-out of its own
# (glibc; a mimalloc without allow_thp), and the knobs proof says which; the three claims with a call and a why; the host's settings
# as found and no child left, also after SIGTERM. As nobody it skips with the
# reason. Not the speed. Wall time of the run is printed.
#
# Run it as the engineers do: flock /work/live.lock tests/live/wl_allocators.sh
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl; the
#   children are build/thpctl-churn, not sanitized)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init wl-allocators

[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
[ -x build/thpctl-churn ] || { nok "thpctl-churn" "build/thpctl-churn missing (make build/thpctl-churn)"; summary; }
need_python3
[ -d "$THP" ] || { skip "allocators" "no $THP: this kernel has no THP"; summary; }

if [ "$ROOT" -eq 1 ] && command -v setpriv >/dev/null; then
	t_nobody lab allocators --quick --json --quiet
	if [ "$RC" -eq 0 ] && python3 - "$TMP/out" <<'PY'; then
import json, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
assert e["verdict"]["skipped"] and "needs root" in e["verdict"]["text"], e["verdict"]
assert e["rows"] == [] and e["claims"] == [], e
PY
		ok "as nobody: skipped, needs root"
	else
		nok "as nobody: skipped, needs root" "exit $RC: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
	fi
fi
[ "$ROOT" -eq 1 ] || { skip "allocators --quick" "needs root"; summary; }

BG=
# shellcheck disable=SC2317 # runs at exit (at_exit)
cleanup() {
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
	[ -e "$JOURNAL" ] && "$T" status >/dev/null 2>&1
	settings_put_back "$TMP/base"
}
wait_quiet || { skip "allocators" "another thpctl has held $JOURNAL for 5 minutes"; summary; }
settings_snapshot "$TMP/base"
at_exit cleanup
children() { pgrep -f -- "$(pwd)/build/thpctl-churn" | tr '\n' ' '; }

# what dpkg says of each allocator: "jemalloc 5.3.0" lines for the check below
vers=$TMP/vers
: >"$vers"
for spec in "jemalloc libjemalloc2" "tcmalloc libtcmalloc-minimal4" "mimalloc libmimalloc2.0"; do
	read -r k p <<<"$spec"
	v=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null | sed -n 's/^install ok installed \([0-9]*:\)\{0,1\}\(.*\)-[^-]*$/\2/p')
	[ -n "$v" ] && echo "$k $v" >>"$vers"
done
echo "glibc $(getconf GNU_LIBC_VERSION | awk '{print $2}')" >>"$vers"

lab_json allocators al 600 --quick
if ! lab_rc_ok "allocators --quick" al; then
	: # said
elif out=$(python3 - "$TMP/al.json" "$vers" 2>&1 <<'PY'
import re, sys
sys.path.insert(0, "tests")
from lab_experiment import experiment
e, v, rows, med = experiment(sys.argv[1], expected_why="THP at fault under always not proven")
assert e["runs"] == 2, e["runs"]
vers = dict(l.split() for l in open(sys.argv[2]))
p = {x["key"]: x["text"] for x in e["proofs"]}
allocs = [a for a in ("glibc", "jemalloc", "tcmalloc", "mimalloc") if f"madvise {a}" in rows]
assert "glibc" in allocs, sorted(rows)
for a in allocs:
    for m in ("madvise", "always", "always mpn=0", "always+knob"):
        c = rows[f"{m} {a}"]
        assert c["live"]["median"] > 0 and c["heap RSS"]["median"] > 0, (m, a, c)
    want = vers.get(a)
    got = re.match(rf"named {a} (\S+) by thpctl \(mapped-library ", p[f"{a} child"])
    assert got, p[f"{a} child"]
    if want and a != "mimalloc":   # mimalloc: major.minor from its file name
        assert got.group(1) == want, (a, got.group(1), want)
assert med("madvise glibc", "AnonHugePages") == 0, med("madvise glibc", "AnonHugePages")
assert max(med(f"always {a}", "AnonHugePages") for a in allocs) > 0
if "jemalloc" in allocs:
    assert med("always+knob jemalloc", "AnonHugePages") == 0, "MALLOC_CONF=thp:never left THPs"
# always+knob: an allocator's own opt-out only where it has one, else prctl, and said so
k = p["knobs"]
assert "glibc prctl (glibc has no THP opt-out: glibc.malloc.hugetlb=0 is its default)" in k, k
assert med("always+knob glibc", "AnonHugePages") == 0, "glibc under prctl left THPs"
if "mimalloc" in allocs:
    so = re.search(r"mimalloc: (\S+)", p["allocators"]).group(1)
    if b"allow_thp\0" in open(so, "rb").read():
        assert "mimalloc MIMALLOC_ALLOW_THP=0" in k, k
    else:  # Debian 12's 2.0.9: MIMALLOC_ALLOW_THP would be ignored
        assert "mimalloc prctl (no knob in this mimalloc: no allow_thp option)" in k, k
        assert med("always+knob mimalloc", "AnonHugePages") == 0, "mimalloc under prctl left THPs"
cl = e["claims"]
assert [c["source"].split(" ")[0] for c in cl] == ["ergo-node", "YugabyteDB", "Ingens"], cl
for c in cl:
    assert c["call"] in ("confirmed", "contradicted", "inconclusive") and c["why"] and c["here"], c
    assert "rounds" in c["here"] or c["call"] == "inconclusive", c
assert "scan_sleep" in p and "khugepaged" in p, sorted(p)
PY
); then
	ok "allocators --quick: a row per mode and allocator, children named as dpkg says, THP proven under always, three claims"
else
	nok "allocators --quick: rows, names, backing, claims" "$(tail -n 1 <<<"$out")"
fi
expect_eval "allocators --quick: no thpctl-churn left" '[ -z "$(children)" ]' "left: $(children)"
expect_settings_as_found "allocators --quick: settings as found" "$TMP/base" || settings_put_back "$TMP/base"

# SIGTERM mid-run: settings put back, children gone
wait_quiet
"$T" lab allocators --quick --yes --quiet >/dev/null 2>"$TMP/term.err" &
BG=$!
for ((i = 0; i < 600; i++)); do
	[ -n "$(children)" ] && break
	sleep 0.1
done
sleep 1
kill -TERM "$BG"
wait "$BG"
rc=$?
BG=
sleep 0.5
expect_eval "SIGTERM mid-run: exit non-zero, no thpctl-churn left" '[ "$rc" -ne 0 ] && [ -z "$(children)" ]' \
	"exit $rc, left: $(children)"
expect_settings_as_found "SIGTERM mid-run: settings as found" "$TMP/base" || settings_put_back "$TMP/base"
expect_sanitizers_quiet "sanitizers quiet"
summary
