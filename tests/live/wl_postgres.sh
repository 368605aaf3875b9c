#!/usr/bin/env bash
# Live tests of `thpctl lab postgres --quick`: a private PostgreSQL cluster
# (Debian's postgresql, scripts/install-deps --workloads) under pgbench in
# three modes. Asserted: the backing each mode proves (the postmaster's
# shared segment on 4 kB pages under never and madvise+defer, on 2048 kB
# hugetlb pages with huge_pages=on, the host-wide HugePages_Total covering
# the planned pool), figures present, both claims with a call from the
# three and a why that names its bounds, no server, directory or SysV
# segment left, the host's settings (THP and hugetlb pools) as found, and the
# same after SIGTERM in the hugetlb mode and SIGINT. As nobody it skips
# with the reason. Not the speed.
#
# Run it as the engineers do: flock /tmp/thpctl-live.lock bash tests/live/wl_postgres.sh
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init wl-postgres

[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
command -v python3 >/dev/null || { nok "python3" "needed to read the JSON"; summary; }
[ -d "$THP" ] || { skip "postgres" "no $THP: this kernel has no THP"; summary; }
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/pgbench" ]; then
	skip "postgres" "postgresql not installed (scripts/install-deps --workloads)"
	summary
fi
BG=

# as nobody: skipped with the reason, exit 0, nothing started
if [ "$ROOT" -eq 1 ] && command -v setpriv >/dev/null; then
	t_nobody lab postgres --quick --json --quiet
	if [ "$RC" -eq 0 ] && python3 - "$TMP/out" <<'PY'; then
import json, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
v = e["verdict"]
assert v["skipped"] and "needs root" in v["text"], v
assert e["rows"] == [] and e["claims"] == [], e
PY
		ok "as nobody: skipped, needs root"
	else
		nok "as nobody: skipped, needs root" "exit $RC: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
	fi
fi
if [ "$ROOT" -ne 1 ]; then
	skip "postgres --quick" "needs root"
	summary
fi

# shellcheck disable=SC2317 # runs at exit (at_exit)
cleanup() {
	if [ -n "$BG" ]; then
		kill -KILL "$BG" 2>/dev/null
		wait "$BG" 2>/dev/null
	fi
	[ -e "$JOURNAL" ] && "$T" status >/dev/null 2>&1
	settings_put_back "$TMP/base"
}
quiet_begin postgres cleanup
mkdir -m 755 "$TMP/pt"
export TMPDIR=$TMP/pt
shm_segs() { ipcs -m 2>/dev/null | awk '$3 == "postgres" || $3 == "nobody"' | wc -l; }
SEGS0=$(shm_segs)

# left NAME: nothing of a run is left (server processes, directory, SysV segments)
left() {
	local procs
	procs=$(pgrep -f -- "$TMP/pt/thpctl-pg" | tr '\n' ' ')
	if [ -z "$procs" ] && [ -z "$(ls -A "$TMP/pt")" ] && [ "$(shm_segs)" -eq "$SEGS0" ]; then
		ok "$1: no server, directory or shared memory segment left"
	else
		nok "$1: no server, directory or shared memory segment left" \
			"pids '$procs', dir: $(ls -A "$TMP/pt" | tr '\n' ' '), segments $(shm_segs) (were $SEGS0)"
	fi
	expect_settings_as_found "$1: settings as found" "$TMP/base" || settings_put_back "$TMP/base"
}

lab_json postgres pg 300 --quick
if ! lab_rc_ok "postgres --quick" pg; then
	: # said
elif out=$(python3 - "$TMP/pg.json" 2>&1 <<'PY'
import re, sys
sys.path.insert(0, "tests")
from lab_experiment import experiment
e, v, rows, med = experiment(sys.argv[1], ["madvise, defrag=defer", "never", "never, huge_pages=on"], "backing not as set")
for m in ("never", "madvise, defrag=defer"):
    assert med(m, "shm KernelPageSize") == 4, f"{m}: page size {med(m, 'shm KernelPageSize')}"
    assert med(m, "shm Hugetlb") == 0, f"{m}: hugetlb {med(m, 'shm Hugetlb')}"
h = "never, huge_pages=on"
assert med(h, "shm KernelPageSize") == 2048, med(h, "shm KernelPageSize")
assert med(h, "shm Hugetlb") > 0, med(h, "shm Hugetlb")
for m in rows:
    for c in ("tps", "latency avg", "tps per second"):
        assert med(m, c) > 0, f"{m}: {c} {med(m, c)}"
    assert rows[m]["latency stddev"] is not None, f"{m}: no stddev"
p = {x["key"]: x["text"] for x in e["proofs"]}
pool = re.search(r": (\d+) x 2048 kB pages", p["hugetlb pool"])
assert pool, p["hugetlb pool"]
assert med(h, "HugePages_Total (host)") >= int(pool.group(1)), (med(h, "HugePages_Total (host)"), pool.group(1))
assert "/anon_hugepage" in p[h + " shared memory"] or "/SYSV" in p[h + " shared memory"], p[h + " shared memory"]
assert "KernelPageSize 4 kB" in p["never shared memory"], p["never shared memory"]
assert re.match(r"PostgreSQL \d+ as (postgres|nobody),", p["setup"]), p["setup"]
assert "host-wide" in p["setup"] and "fsync=off" in p["setup"], p["setup"]
cl = e["claims"]
assert len(cl) == 2, cl
for c in cl:
    assert c["call"] in ("confirmed", "contradicted", "inconclusive"), c
    assert c["source"] and c["here"].startswith("tps "), c
    # the totals' plain ratio and the per-second estimate, each named (the call is the latter's)
    x = re.match(r"tps (\d+) \([^)]*\) vs (\d+) \(never\): ([0-9.]+)x; per-second (-|[0-9.]+x)", c["here"])
    assert x and abs(float(x.group(3)) - int(x.group(1)) / int(x.group(2))) < 0.002, c["here"]
band = {cl[0]["claim"]: "0.98..1.02", cl[1]["claim"]: ">= 0.98"}
# --quick runs one round: the modes ran one after the other, so no tps call may stand
for c in cl:
    assert c["call"] == "inconclusive", c
    assert f"crosses the edge of {band[c['claim']]}" in c["why"] or any(
        w in c["why"] for w in ("one round", "too few", "not proven", "a mode failed")), c
assert re.search(r"madvise\+defer claim \w+; hugetlb claim \w+$", v["text"]), v["text"]
PY
); then
	ok "postgres --quick: backing per mode, figures, two claims with their bounds"
else
	nok "postgres --quick: backing per mode, figures, two claims with their bounds" "$(tail -n 1 <<<"$out")"
fi
left "postgres --quick"

# stop NAME SIGNAL: start a run with SIGNAL at its default action, wait for the
# hugetlb mode (nr_hugepages changed) and its server, send SIGNAL
stop() {
	local name=$1 sig=$2 nr0 i srv
	nr0=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)
	wait_quiet
	"${DFL[@]}" "$T" lab postgres --quick --yes --quiet >/dev/null 2>"$TMP/pg-$sig.err" &
	BG=$!
	for ((i = 0; i < 900; i++)); do
		[ "$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)" != "$nr0" ] && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.1
	done
	srv=
	for ((i = 0; i < 100; i++)); do
		srv=$(pgrep -u postgres -f -- "$TMP/pt/thpctl-pg" | head -n 1)
		[ -n "$srv" ] && break
		sleep 0.1
	done
	sleep 1
	kill "-$sig" "$BG"
	wait "$BG"
	local rc=$?
	BG=
	san_note "lab postgres ($sig)" "$TMP/pg-$sig.err"
	if [ -n "$srv" ] && [ "$rc" -ne 0 ] && grep -q "interrupted" "$TMP/pg-$sig.err"; then
		ok "$name: $sig in the hugetlb mode interrupts it (exit $rc)"
	else
		nok "$name: $sig in the hugetlb mode interrupts it" "server '$srv', exit $rc: $(tail -n 1 "$TMP/pg-$sig.err")"
	fi
	left "$name"
}
stop "postgres SIGTERM" TERM
stop "postgres SIGINT" INT
expect_sanitizers_quiet "sanitizers quiet"
summary
