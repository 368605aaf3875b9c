#!/usr/bin/env bash
# Live tests of `thpctl lab matmul --quick` (a real program: Debian's
# python3-numpy, scripts/install-deps --workloads): the backing of each mode
# from the child's own smaps_rollup, the two claims with a call from the three,
# the BLAS named, no python child left, the host's settings as found; without
# /usr/bin/python3's numpy it must say how to install it; as nobody it skips.
# Not the speed.
#
# As root this CHANGES host settings through thpctl (journalled, restored);
# run it as `flock /tmp/thpctl-live.lock bash tests/live/wl_matmul.sh`.
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init wl-matmul

[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
[ -d "$THP" ] || { skip "matmul" "no $THP: this kernel has no THP"; summary; }

# shellcheck disable=SC2317 # runs at exit (at_exit)
cleanup() {
	[ -e "$JOURNAL" ] && [ "$ROOT" -eq 1 ] && "$T" status >/dev/null 2>&1
	settings_put_back "$TMP/base"
}
wait_quiet || { skip "matmul" "another thpctl has held $JOURNAL for 5 minutes"; summary; }
settings_snapshot "$TMP/base"
at_exit cleanup

# as nobody: a skip that says why, exit 0 (root is needed to change enabled)
t_nobody lab matmul --quick --json --quiet
if [ "$RC" -eq 0 ] && python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["experiments"][0]["verdict"]
assert v["skipped"] and "root" in v["text"], v' "$TMP/out" 2>"$TMP/py.err"; then
	ok "nobody: skipped, needs root"
else
	nok "nobody: skipped, needs root" "exit $RC: $(tail -c 200 "$TMP/out") $(tail -n 1 "$TMP/py.err")"
fi

if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	skip "matmul" "python3-numpy not installed (scripts/install-deps --workloads)"
	summary
fi
if [ "$ROOT" -eq 0 ]; then
	skip "matmul --quick" "needs root"
	summary
fi

lab_json matmul m 300 --quick
if ! lab_rc_ok "matmul --quick" m; then
	: # said
elif out=$(python3 - "$TMP/m.json" 2>&1 <<'PY'
import re, sys
sys.path.insert(0, "tests")
from lab_experiment import experiment
e, v, rows, med = experiment(sys.argv[1], ["THP off (prctl)", "always", "madvise (control)", "madvise, glibc hugetlb=1"])
n = 1536  # the quick size: 18 MiB per matrix
mat_kb = 3 * n * n * 8 / 1024
assert med("THP off (prctl)", "AnonHugePages") == 0, "THP despite PR_SET_THP_DISABLE"
assert med("madvise (control)", "AnonHugePages") <= mat_kb / 20, "THP under madvise without advice"
for m in ("madvise, glibc hugetlb=1", "always"):
    assert med(m, "AnonHugePages") >= mat_kb / 2, f"{m}: {med(m, 'AnonHugePages')} kB huge"
for m in rows:
    assert med(m, "GFLOP/s") > 0 and med(m, "Rss") >= mat_kb, m
    share = 100 * med(m, "AnonHugePages") / med(m, "Rss")
    assert abs(med(m, "huge share") - share) < 0.1, (m, share)
assert v["expected"], v["text"]
p = {x["key"]: x["text"] for x in e["proofs"]}
assert re.match(r"/\S*blas\S* \(", p["blas"]), p["blas"]
assert "N=1536" in p["setup"], p["setup"]
claims = {c["claim"]: c for c in e["claims"]}
assert sorted(claims) == ["always +18% throughput", "dTLB miss rate 8.2% -> 1.1%"], sorted(claims)
for c in claims.values():
    assert c["call"] in ("confirmed", "contradicted", "inconclusive"), c
    assert c["source"] and c["why"], c
# no PMU: the miss column is absent and the dTLB claim says so
if rows["always"].get("dTLB read miss") is None:
    assert claims["dTLB miss rate 8.2% -> 1.1%"]["call"] == "inconclusive"
    assert "no PMU" in claims["dTLB miss rate 8.2% -> 1.1%"]["why"]
if "openblas" not in p["blas"]:
    assert claims["always +18% throughput"]["call"] == "inconclusive"
# --quick is one round: no ratio claim is called from it
assert all(c["call"] == "inconclusive" for c in claims.values()), claims
PY
); then
	ok "matmul --quick: backing per mode, BLAS named, claim calls"
else
	nok "matmul --quick: backing per mode, BLAS named, claim calls" "$(tail -n 1 <<<"$out")"
fi
if pgrep -f 'np.core.multiarray._set_madvise_hugepage' >/dev/null; then
	nok "matmul: no python child left" "$(pgrep -af '_set_madvise_hugepage' | head -n 2)"
else
	ok "matmul: no python child left"
fi
expect_settings_as_found "matmul: settings as found" "$TMP/base" || settings_put_back "$TMP/base"
summary
