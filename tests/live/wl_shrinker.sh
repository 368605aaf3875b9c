#!/usr/bin/env bash
# Live tests of `thpctl lab shrinker --quick`: a child with a mostly-zero
# MADV_HUGEPAGE region in a memory cgroup of its own under memory pressure at
# max_ptes_none 511, 64 and 0. Asserted: three rows with the child's THPs
# made (AnonHugePages before = the region) and both measures read; both
# claims with a call and a why; the record /var/lib/thpctl/lab-shrinker
# written for this kernel and cited by `status` (the shrink-underused-noop
# finding, or its absence when this kernel split at 511); no cgroup left, the
# host's settings as found; a SIGKILLed run's cgroup removed by the next
# thpctl command run as root. As nobody it skips with the reason. Wall time
# of the run is printed.
#
# Run it as the engineers do: flock /work/live.lock tests/live/wl_shrinker.sh
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init wl-shrinker

[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
need_python3
[ -f "$THP/shrink_underused" ] || { skip "shrinker" "no $THP/shrink_underused (kernel < 6.12)"; summary; }

if [ "$ROOT" -eq 1 ] && command -v setpriv >/dev/null; then
	t_nobody lab shrinker --quick --json --quiet
	if [ "$RC" -eq 0 ] && python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["experiments"][0]; sys.exit(0 if e["verdict"]["skipped"] and "needs root" in e["verdict"]["text"] and e["rows"] == [] else 1)' "$TMP/out"; then
		ok "as nobody: skipped, needs root"
	else
		nok "as nobody: skipped, needs root" "exit $RC: $(head -c 300 "$TMP/out")"
	fi
fi
[ "$ROOT" -eq 1 ] || { skip "shrinker --quick" "needs root"; summary; }

REC=/var/lib/thpctl/lab-shrinker
BG=
# shellcheck disable=SC2317 # runs at exit (at_exit)
cleanup() {
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
	[ -e "$JOURNAL" ] && "$T" status >/dev/null 2>&1
	settings_put_back "$TMP/base"
	[ -f "$TMP/rec.saved" ] && cp "$TMP/rec.saved" "$REC"
}
wait_quiet || { skip "shrinker" "another thpctl has held $JOURNAL for 5 minutes"; summary; }
settings_snapshot "$TMP/base"
[ -f "$REC" ] && cp "$REC" "$TMP/rec.saved"
at_exit cleanup
cgroups_left() { find /sys/fs/cgroup -maxdepth 2 -name 'thpctl-lab-*' 2>/dev/null | tr '\n' ' '; }

lab_json shrinker sh 300 --quick
if ! lab_rc_ok "shrinker --quick" sh; then
	: # said
elif out=$(python3 - "$TMP/sh.json" 2>&1 <<'PY'
import sys
sys.path.insert(0, "tests")
from lab_experiment import experiment
e, v, rows, med = experiment(sys.argv[1], ["max_ptes_none=0", "max_ptes_none=511", "max_ptes_none=64"], "no THPs made")
size_kb = e["size_bytes"] // 1024
for l, c in rows.items():
    assert c["AnonHugePages before"]["median"] >= size_kb * 0.9, (l, c["AnonHugePages before"])
    assert c["THPs"]["median"] >= 1 and c["AnonHugePages after"] is not None, (l, c)
    assert c["thp_underused_split_page (host)"] is not None, (l, c)
p = {x["key"]: x["text"] for x in e["proofs"]}
for l in rows:
    assert p[l].startswith("pressure: memory."), p[l]
assert p["record"].startswith("/var/lib/thpctl/lab-shrinker"), p["record"]
cl = e["claims"]
assert len(cl) == 2, cl
for c in cl:
    assert c["call"] in ("confirmed", "contradicted", "inconclusive") and c["why"] and c["here"], c
PY
); then
	ok "shrinker --quick: three phases with their THPs, both measures read, two claims"
else
	nok "shrinker --quick: phases, measures, claims" "$(tail -n 1 <<<"$out")"
fi
expect_eval "shrinker --quick: no lab cgroup left" '[ -z "$(cgroups_left)" ]' "left: $(cgroups_left)"
expect_settings_as_found "shrinker --quick: settings as found" "$TMP/base" || settings_put_back "$TMP/base"

# the record, for this kernel, and what status makes of it
rel=$(uname -r)
expect_eval "the record names this kernel ($rel)" "grep -qx 'kernel $rel' '$REC'" "$(head -n 3 "$REC" 2>/dev/null | tr '\n' ' ')"
t status --json
if python3 - "$TMP/out" "$REC" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "shrink-underused-noop"]
rec = open(sys.argv[2]).read().split("\n")
mpn = int(open("/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none").read())
top = [l.split() for l in rec if l.startswith(f"phase {mpn} ")]
split_here = top and int(top[0][5]) < int(top[0][4]) // 2
if split_here:
    assert not f, "the finding fired although this kernel split at max_ptes_none=%d" % mpn
elif f:
    assert "thpctl lab shrinker on this kernel" in f[0]["evidence"], f[0]["evidence"]
    assert "not measured" not in f[0]["evidence"], f[0]["evidence"]
PY
	ok "status cites the record (or drops the finding when this kernel split at max_ptes_none)"
else
	nok "status cites the record" "$(python3 -c 'import json,sys; print([x["evidence"] for x in json.load(open(sys.argv[1]))["findings"]])' "$TMP/out" 2>&1 | head -c 300)"
fi

# SIGKILL mid-run: the cgroup is removed by the next root command, settings put back
wait_quiet
"$T" lab shrinker --quick --yes --quiet >/dev/null 2>"$TMP/kill.err" &
BG=$!
# up to 60 s for its cgroup: a busy make check took longer than 15 s to get there once
for ((i = 0; i < 1200; i++)); do
	[ -n "$(cgroups_left)" ] && break
	sleep 0.05
done
kill -KILL "$BG"
wait "$BG" 2>/dev/null
BG=
left=$(cgroups_left)
"$T" status >/dev/null 2>"$TMP/rec.err"
expect_eval "SIGKILL mid-run: its cgroup (${left:-none seen}) removed by the next root thpctl" \
	'[ -z "$(cgroups_left)" ] && grep -q "removed lab memory cgroup /sys/fs/cgroup/.*thpctl-lab-shrinker-" "$TMP/rec.err"' \
	"left after: $(cgroups_left); $(head -c 300 "$TMP/rec.err")"
expect_settings_as_found "SIGKILL mid-run: settings as found" "$TMP/base" || settings_put_back "$TMP/base"
expect_sanitizers_quiet "sanitizers quiet"
summary
