#!/usr/bin/env bash
# Live tests of `thpctl lab`: every experiment at a small size against the
# running kernel, its JSON proofs asserted with python3, and the host's THP
# settings checked against their starting values after every run, including
# after a lab run killed with SIGKILL halfway (the next thpctl command must
# restore the journalled values).
#
# Binary: build/asan/thpctl (ASan+UBSan; any sanitizer report fails the
# "sanitizers quiet" check). The sizes here are at most 64 MiB, small enough
# that ASan's cost does not matter; none of the assertions is about timing.
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "lab: N passed,
# M failed, K skipped", non-zero exit on failures). A check skips where the
# kernel lacks something, without root, or where the experiment is not
# implemented yet.
#
# As root this CHANGES host settings through thpctl (journalled, restored by
# thpctl itself); the script checks that they come back, and puts back any
# value it finds changed so the host is left as found.
#
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init lab

lab_suite_begin lab

# ---- running thpctl ----------------------------------------------------------
# lab NAME ARGS...: thpctl lab NAME ARGS --json --quiet; JSON in $TMP/NAME.json,
# stderr in $TMP/NAME.err, exit status in RC. A hung run gets SIGTERM after
# 5 minutes (thpctl restores its settings on SIGTERM).
# (--yes: mthp and khugepaged change host-wide settings, and stdin is no terminal)
lab() { lab_json "$1" "$1" 300 "${@:2}"; }

# The assertions, one python run per experiment; prints ok/not ok/skip lines.
cat >"$TMP/check.py" <<'PY'
import json, re, sys

path, name, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = sys.argv[4:]
out = []


def ok(n):
    out.append(f"ok - {n}")


def nok(n, why):
    out.append(f"not ok - {n}: {why}")


def skip(n, why):
    out.append(f"skip - {n}: {why}")


def check(n, cond, why):
    ok(n) if cond else nok(n, why)


def done():
    print("\n".join(out))
    sys.exit(0)


try:
    doc = json.load(open(path))
    e = doc["experiments"][0]
except Exception as ex:  # noqa: BLE001
    nok(f"{name}: JSON", f"unreadable: {ex}")
    done()
if e.get("experiment") != name:
    nok(f"{name}: JSON", f"experiment is {e.get('experiment')!r}")
    done()
v = e.get("verdict") or {}
if v.get("skipped"):
    text = v.get("text", "")
    if "not implemented yet" in text:
        skip(name, "not implemented yet")
    else:
        skip(name, text)
    done()
for k in ("columns", "rows", "proofs", "verdict", "wall_ms", "runs", "size_bytes"):
    if k not in e:
        nok(f"{name}: JSON", f"no {k!r}")
        done()
if name == "chase" and "few" in extra:
    # one run: 2 measurements per backing, too few for a 95% interval
    check("chase: one run is 'inconclusive: too few runs', not expected, marked inconclusive",
          v.get("expected") is False and v.get("inconclusive") is True
          and v.get("text", "").startswith("inconclusive: too few runs"),
          v.get("text", "")[:200])
else:
    check(f"{name}: verdict as expected", v.get("expected") is True, v.get("text", "")[:200])
check(f"{name}: every proof read", e.get("partial") is False,
      "partial: " + "; ".join(f"{x['key']}={x['text']}" for x in e["proofs"])[:200])
check(f"{name}: proofs are a list of key/text", isinstance(e["proofs"], list)
      and all(set(x) == {"key", "text"} for x in e["proofs"]), str(e["proofs"])[:200])
kb = size // 1024


def col(row, *names):
    """The median of the first column named like NAMES (case-insensitive), or None."""
    cells = row.get("cells", {})
    for n in names:
        for c, x in cells.items():
            if c.lower() == n.lower() and x is not None:
                return x
    return None


def med(row, *names):
    x = col(row, *names)
    return None if x is None else x["median"]


def rows(label_re):
    return [r for r in e["rows"] if re.search(label_re, r["label"])]


if name == "sparse":
    p, m = rows(r"^plain"), rows(r"^madv")
    if not p or not m:
        nok("sparse: RSS ratio", f"no plain/madv rows: {[r['label'] for r in e['rows']]}")
    else:
        rp, rm = med(p[0], "Rss"), med(m[0], "Rss")
        if not rp or rm is None:
            nok("sparse: RSS ratio", f"Rss plain {rp} madv {rm}")
        else:
            check("sparse: RSS ratio madv/plain >= 256x", rm / rp >= 256,
                  f"Rss plain {rp:.0f} kB, madv {rm:.0f} kB: {rm / rp:.1f}x")

elif name == "touch":
    pmd = int(extra[0])
    m = rows(r"^madv$")
    if not m:
        nok("touch: madv row", "missing")
    else:
        f, a = med(m[0], "faults"), med(m[0], "AnonHugePages")
        check("touch: madv faults <= S/PMD + 16", f is not None and f <= size // pmd + 16,
              f"{f} faults for {size // pmd} PMDs")
        check("touch: madv AnonHugePages == S", a == kb, f"{a} kB of {kb}")
    # a speed is claimed only with its interval; with one run there is none
    t = v.get("text", "")
    check("touch: no speed claim without an interval",
          ("faster than plain" not in t and "slower than plain" not in t) or "interval" in t, t[:300])
    if e.get("runs") == 1:
        check("touch: one run: too few runs for an interval", "too few runs" in t, t[:300])

elif name == "split":
    r = [x for x in e["rows"] if med(x, "AnonHugePages") is not None and med(x, "Rss") is not None]
    if not r:
        nok("split: rows", f"no row with Rss and AnonHugePages: {[x['label'] for x in e['rows']]}")
    else:
        last = r[-1]
        a, rss = med(last, "AnonHugePages"), med(last, "Rss")
        check("split: AnonHugePages 0 after", a == 0, f"row {last['label']!r}: {a} kB")
        check("split: RSS within 1% of S", abs(rss - kb) <= kb / 100,
              f"row {last['label']!r}: Rss {rss} kB of {kb}")

elif name == "collapse":
    r = [x for x in e["rows"] if med(x, "AnonHugePages") is not None]
    if not r:
        nok("collapse: rows", f"no AnonHugePages column: {[x['label'] for x in e['rows']]}")
    else:
        a = med(r[-1], "AnonHugePages")
        check("collapse: AnonHugePages restored to S", a == kb,
              f"row {r[-1]['label']!r}: {a} kB of {kb}")

elif name == "fork":
    check("fork: verdict says split", "split" in v.get("text", ""), v.get("text", "")[:200])

elif name == "mthp":
    r = rows(r"^64K$")
    if not r:
        skip("mthp: 64K", f"no 64K row: {[x['label'] for x in e['rows']]}")
    else:
        want = size // 65536
        fa, fol = col(r[0], "anon_fault_alloc"), med(r[0], "folios")
        # anon_fault_alloc is system-wide: other processes faulting while 64K is
        # "always" add to it. The region's exact count is the kpageflags check below.
        # a lower bound only: on a busy host (compilers, other tests) others add
        # thousands while 64K is "always"; the exact proof is kpageflags below
        check("mthp: 64K anon_fault_alloc >= S/64K (host-wide: others only add)",
              fa is not None and fa["min"] >= want,
              f"anon_fault_alloc {fa} for {want} blocks (host-wide counter)")
        if fol is None:
            skip("mthp: 64K folios", "no kpageflags")
        else:
            check("mthp: 64K folios (kpageflags) == S/64K", fol == want, f"{fol} of {want}")
        a = med(r[0], "AnonHugePages")
        check("mthp: 64K AnonHugePages 0", a == 0, f"{a} kB")

elif name == "khugepaged":
    fin = [x for x in e["rows"] if "final" in x["label"]]
    full = [x for x in fin if med(x, "max_ptes_none") == 511] or fin[:1]
    if not full:
        nok("khugepaged: final row", f"none: {[x['label'] for x in e['rows']]}")
    else:
        f = full[0]
        a, fac, pc = med(f, "AnonHugePages"), med(f, "rss_factor"), med(f, "pages_collapsed")
        check("khugepaged: full collapse with --scan-sleep 100", a == kb,
              f"AnonHugePages {a} of {kb} kB by t={med(f, 't')} s")
        check("khugepaged: RSS factor ~8", fac is not None and 7.5 <= fac <= 8.5, f"{fac}x")
        check("khugepaged: pages_collapsed >= S/PMD", pc is not None and pc >= size // (2 << 20),
              f"+{pc}")
    zero = [x for x in fin if med(x, "max_ptes_none") == 0]
    if "0" in extra:
        if not zero:
            nok("khugepaged: max_ptes_none 0 run", f"no final row: {[x['label'] for x in e['rows']]}")
        else:
            z = zero[0]
            check("khugepaged: max_ptes_none 0 collapses nothing, RSS ~1x",
                  med(z, "AnonHugePages") == 0 and med(z, "rss_factor") < 1.05,
                  f"AnonHugePages {med(z, 'AnonHugePages')} kB, {med(z, 'rss_factor')}x")
done()
PY

# run_check NAME SIZE ARGS...: run lab NAME at SIZE, assert, check the settings.
run_check() {
	local name=$1 size=$2
	shift 2
	lab "$name" --size "$size" "$@"
	if [ "$RC" -ne 0 ]; then
		nok "$name: exit status" "$RC: $(grep -v '^thpctl: /' "$TMP/$name.err" | tail -n 2 | tr '\n' ' ')"
	else
		# the checker prints finished lines: count them
		relay_results "$name: checker" < <(python3 "$TMP/check.py" "$TMP/$name.json" "$name" "$(to_bytes "$size")" "${CHECK_ARGS[@]}" 2>&1)
	fi
	check_settings "$name"
}

to_bytes() {
	case $1 in
	*G) echo $((${1%G} << 30)) ;;
	*M) echo $((${1%M} << 20)) ;;
	*K) echo $((${1%K} << 10)) ;;
	*) echo "$1" ;;
	esac
}

PMD=$(cat "$THP/hpage_pmd_size" 2>/dev/null || echo 2097152)

# ---- the experiments, as root ---------------------------------------------------
if [ "$ROOT" -eq 0 ]; then
	skip "experiments as root" "needs root"
else
	CHECK_ARGS=()
	run_check sparse 64M --runs 1
	CHECK_ARGS=("$PMD")
	run_check touch 64M --runs 1
	CHECK_ARGS=(few)
	run_check chase 64M --runs 1 --steps 1000000
	CHECK_ARGS=()
	run_check fork 64M --runs 1
	run_check faults 64M --runs 1
	run_check split 64M --runs 1
	run_check collapse 64M --runs 1
	run_check mthp 64M --runs 3 --sizes 64K
	# the PMD size at always as found: mthp sets it aside for the run (journalled)
	# and sees 64K folios, or says "not tested"; before, it passed with none
	PMDF=$THP/hugepages-$((PMD >> 10))kB/enabled
	if [ -f "$PMDF" ] && [ -f "$THP/hugepages-64kB/enabled" ]; then
		echo always >"$PMDF"
		lab mthp --size 64M --runs 1 --sizes 64K
		settings_put_back "$TMP/base" # the test's own write, before the check
		python3 - "$TMP/mthp.json" <<'PY' >"$TMP/mthp.chk" 2>&1
import json, re, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
t = e["verdict"]["text"]
p = [x for x in e["proofs"] if x["key"] == "64K"]
assert p, f"no 64K proof: {e['proofs']}"
m = re.search(r"64K folios (\d+) of (\d+)", p[0]["text"])
assert m, p[0]["text"]
seen = int(m.group(1))
if t.startswith("as expected"):
    assert seen > 0, f"as expected with no 64K folio: {t}"
    assert any(x["key"] == "set aside" and "2048K" in x["text"] for x in e["proofs"]), "PMD size not set aside"
else:
    assert t.startswith("not tested"), t
PY
		if [ -s "$TMP/mthp.chk" ]; then
			nok "mthp: PMD size at always: 64K folios seen or 'not tested'" "$(tail -n 1 "$TMP/mthp.chk")"
		else
			ok "mthp: PMD size at always: 64K folios seen or 'not tested'"
		fi
		check_settings "mthp (PMD at always)"
	else
		skip "mthp: PMD size at always" "no per-size enabled for the PMD size or 64K"
	fi
	CHECK_ARGS=(0)
	# as root by default: scan_sleep 10 ms, max_ptes_none 511 then 0 (the creep)
	run_check khugepaged 64M --timeout 30
	if grep -q 'creep: RSS' "$TMP/khugepaged.json"; then
		ok "khugepaged: default run shows the creep"
	else
		nok "khugepaged: default run shows the creep" "$(grep -o '"text": "[^"]*' "$TMP/khugepaged.json" | tail -n 1 | head -c 300)"
	fi
	run_check khugepaged 64M --scan-sleep 100 --timeout 30 --max-ptes-none 0
	# a timeout too short for a full scan at scan_sleep 10 s: inconclusive, never as expected
	lab khugepaged --size 64M --scan-sleep 10000 --timeout 2 --max-ptes-none 64
	python3 - "$TMP/khugepaged.json" <<'PY' >"$TMP/kh.chk" 2>&1
import json, sys
v = json.load(open(sys.argv[1]))["experiments"][0]["verdict"]
assert v["expected"] is False and v["text"].startswith("inconclusive"), v["text"]
assert "did not complete a full scan in 2 s" in v["text"], v["text"]
PY
	if [ -s "$TMP/kh.chk" ]; then
		nok "khugepaged: no full scan in 2 s is inconclusive" "$(tail -n 1 "$TMP/kh.chk")"
	else
		ok "khugepaged: no full scan in 2 s is inconclusive"
	fi
	check_settings "khugepaged (timeout)"
	CHECK_ARGS=()
	run_check fallback 64M --runs 1
	run_check fragment 64M --runs 1
fi

# ---- redis: a real program (scripts/install-deps --workloads) -------------------
# lab redis --quick: five modes, its proofs and claim calls asserted (not the speed),
# the server stopped and its directory gone; then SIGINT halfway stops it too, and
# SIGTERM during a BGSAVE leaves neither the directory nor the BGSAVE child.
redis_check() {
	python3 - "$TMP/redis.json" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
v = e["verdict"]
assert not v["skipped"], v["text"]
assert v["expected"], f"backing not as set: {v['text']}"
rows = {r["label"]: r["cells"] for r in e["rows"]}
assert sorted(rows) == ["always, disable-thp no", "always, disable-thp yes", "madvise (control)",
                        "madvise, jemalloc thp:always", "never (prctl)"], sorted(rows)
med = lambda m, c: rows[m][c]["median"]
assert med("never (prctl)", "AnonHugePages before") == 0, "THP with the server's prctl"
assert med("always, disable-thp no", "AnonHugePages before") >= 10240, "no THP with disable-thp no"
assert med("always, disable-thp yes", "AnonHugePages before") <= med("always, disable-thp no", "AnonHugePages before") / 20
# madvise: THP only through jemalloc's MADV_HUGEPAGE (MALLOC_CONF=thp:always)
assert med("madvise (control)", "AnonHugePages before") < 10240, "THP under madvise without MALLOC_CONF"
assert med("madvise, jemalloc thp:always", "AnonHugePages before") >= 10240, "no THP from jemalloc thp:always"
for m in rows:
    for c in ("SET", "GET", "SET p99", "fork", "SETs in BGSAVE"):
        assert med(m, c) > 0, f"{m}: {c} {med(m, c)}"
p = {x["key"]: x["text"] for x in e["proofs"]}
claims = {c["claim"].split()[0]: c for c in e["claims"]}
assert sorted(claims) == ["fork", "one", "p99"], sorted(claims)
for c in claims.values():
    assert c["call"] in ("confirmed", "contradicted", "inconclusive") and c["why"], c
assert "host-wide" in claims["one"]["here"], claims["one"]
assert re.match(r"Redis \d+\.\d+", p["setup"]), p["setup"]
assert re.match(r"/\S*libjemalloc\S* mapped", p["jemalloc"]), p["jemalloc"]
assert p["always, disable-thp yes server"].endswith("THP_enabled 0"), "disable-thp yes: no prctl seen"
# never without enabled=never: the server started under our prctl
assert p["never (prctl) server"].endswith("THP_enabled 0"), p["never (prctl) server"]
# --quick is one round: no claim is called from it
for c in claims.values():
    assert c["call"] == "inconclusive", c
assert "one round" in claims["p99"]["why"] or claims["p99"]["why"].startswith("no THP"), claims["p99"]
assert e["advice"] and e["advice"].startswith("For Redis here: "), e["advice"]
# the undecided advice quotes the p99 why's first clause whole (it once cut it mid-word at 60)
if claims["p99"]["call"] == "inconclusive":
    first = claims["p99"]["why"].split(":")[0]
    assert f"inconclusive: {first});" in e["advice"], (e["advice"], claims["p99"]["why"])
assert e["load"] and len(e["load"]["before"]) == 3 and "load" in p, e["load"]
assert p["madvise, jemalloc thp:always server"].endswith("THP_enabled 1"), p["madvise, jemalloc thp:always server"]
assert re.search(r"p99 claim \w+; fork claim \w+; BGSAVE-shreds claim \w+", v["text"]), v["text"]
PY
}

# gone_or_zombie PID: no such process, or one that has exited and waits for its reaper
gone_or_zombie() { [ ! -e "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }

# SIGTERM while a BGSAVE writes its temp-PID.rdb (TMPDIR=$TMP/rtmp): the server stopped, its
# BGSAVE child (the PID in the file's name) ended, the directory gone, the settings back
redis_sigterm_bgsave() {
	local f='' srv='' kid='' i
	wait_quiet
	"${DFL[@]}" "$T" lab redis --quick --yes --quiet >/dev/null 2>"$TMP/redis-term.err" &
	BG=$!
	for ((i = 0; i < 2400; i++)); do
		f=$(compgen -G "$TMP/rtmp/thpctl-redis.*/temp-*.rdb" | head -n 1)
		[ -n "$f" ] && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	srv=$(pgrep -P "$BG" -x redis-server)
	kid=${f##*/temp-}
	kid=${kid%.rdb}
	kill -TERM "$BG"
	wait "$BG"
	BG=
	if [ -z "$f" ]; then
		nok "redis: SIGTERM during a BGSAVE" "no temp-*.rdb seen: $(tail -n 2 "$TMP/redis-term.err" | tr '\n' ' ')"
	elif [ -z "$(ls -A "$TMP/rtmp")" ] && gone_or_zombie "$srv" && wait_for 3 gone_or_zombie "$kid"; then
		ok "redis: SIGTERM during a BGSAVE: server and its BGSAVE child ended, directory gone"
	else
		nok "redis: SIGTERM during a BGSAVE: server and its BGSAVE child ended, directory gone" \
			"server '$srv', BGSAVE child '$kid' ($(cat "/proc/$kid/comm" 2>/dev/null || echo gone)), left: $(find "$TMP/rtmp" -mindepth 1 | tr '\n' ' ')"
		rm -rf "$TMP/rtmp"/thpctl-redis.*
	fi
	san_note "lab redis (SIGTERM in BGSAVE)" "$TMP/redis-term.err"
	check_settings "redis (SIGTERM in BGSAVE)"
}

# every mode failing (a redis-benchmark earlier on PATH that exits 1): exit 1, the verdict
# inconclusive saying so, no row, and no figure printed as -1 in a claim, proof or verdict
redis_all_failed() {
	local out
	mkdir -p "$TMP/fakebench"
	printf '#!/bin/sh\nexit 1\n' >"$TMP/fakebench/redis-benchmark"
	chmod 755 "$TMP/fakebench/redis-benchmark"
	PATH=$TMP/fakebench:$PATH lab_json redis redis-fail 300 --quick
	cat >"$TMP/redis-fail.py" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
v = e["verdict"]
assert v["inconclusive"] and not v["expected"], v
assert v["text"].startswith("inconclusive: no mode gave figures"), v["text"]
assert e["rows"] == [], e["rows"]
texts = [v["text"]] + [p["text"] for p in e["proofs"]]
texts += [c[k] for c in e["claims"] for k in ("here", "why")]
bad = [t for t in texts if re.search(r"(?<![\w.])-1\b", t)]
assert not bad, bad
assert not [c for c in e["claims"] if c["why"].startswith("no THP")], e["claims"]
PY
	if [ "$RC" = 1 ] && out=$(python3 "$TMP/redis-fail.py" "$TMP/redis-fail.json" 2>&1); then
		ok "redis: every mode failed: exit 1, inconclusive, no -1 shown"
	else
		nok "redis: every mode failed: exit 1, inconclusive, no -1 shown" "exit $RC: $(tail -n 1 <<<"$out")"
	fi
	check_settings "redis (every mode failed)"
}

if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
	skip "redis" "redis-server/redis-benchmark not installed (scripts/install-deps --workloads)"
else
	# missing programs: exit 1 and the install hint, root or not
	mkdir -p "$TMP/nopath"
	PATH=$TMP/nopath "$T" lab redis --quick --yes --quiet >"$TMP/redis-missing.out" 2>&1
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "install with scripts/install-deps --workloads" "$TMP/redis-missing.out"; then
		ok "redis: without redis-server: exit 1 and the install hint"
	else
		nok "redis: without redis-server: exit 1 and the install hint" "exit $rc: $(tail -n 1 "$TMP/redis-missing.out")"
	fi
	if [ "$ROOT" -eq 0 ]; then
		skip "redis --quick" "needs root"
	else
		mkdir -p "$TMP/rtmp"
		export TMPDIR=$TMP/rtmp
		t0=$(date +%s)
		lab redis --quick --report "$TMP/redis.html"
		# run-all: report.sh checks this run's page instead of running lab redis again
		if [ "$RC" -eq 0 ] && [ -n "${RUN_ALL_SHARE:-}" ] && [ -d "$RUN_ALL_SHARE" ]; then
			cp "$TMP/redis.json" "$TMP/redis.html" "$RUN_ALL_SHARE/" &&
				echo "$t0 $(date +%s)" >"$RUN_ALL_SHARE/redis.times"
		fi
		if [ "$RC" -ne 0 ]; then
			nok "redis --quick: exit status" "$RC: $(grep -v '^thpctl: /' "$TMP/redis.err" | tail -n 2 | tr '\n' ' ')"
		elif out=$(redis_check 2>&1); then
			ok "redis --quick: backing per mode, figures, claim calls"
		else
			nok "redis --quick: backing per mode, figures, claim calls" "$(tail -n 1 <<<"$out")"
		fi
		if [ -z "$(ls -A "$TMP/rtmp")" ]; then
			ok "redis: its directory is gone"
		else
			nok "redis: its directory is gone" "$(ls "$TMP/rtmp")"
		fi
		check_settings "redis"
		# SIGINT while the server runs: stopped, directory removed, settings back
		wait_quiet
		"${DFL[@]}" "$T" lab redis --quick --yes --quiet >/dev/null 2>"$TMP/redis-int.err" &
		BG=$!
		srv=
		for _ in $(seq 100); do
			srv=$(pgrep -P "$BG" -x redis-server)
			[ -n "$srv" ] && break
			sleep 0.1
		done
		sleep 0.5
		kill -INT "$BG"
		wait "$BG"
		BG=
		if [ -n "$srv" ] && ! kill -0 "$srv" 2>/dev/null && [ -z "$(ls -A "$TMP/rtmp")" ]; then
			ok "redis: SIGINT stops the server and removes its directory"
		else
			nok "redis: SIGINT stops the server and removes its directory" "server pid '${srv}', left: $(ls "$TMP/rtmp")"
		fi
		san_note "lab redis (SIGINT)" "$TMP/redis-int.err"
		check_settings "redis (SIGINT)"
		redis_sigterm_bgsave
		redis_all_failed
		unset TMPDIR
	fi
fi

# ---- another thpctl holding the settings lock: the skip says so, not "needs root" ----
if [ "$ROOT" -eq 1 ]; then
	K=$THP/khugepaged/scan_sleep_millisecs K2=$THP/khugepaged/alloc_sleep_millisecs
	v1=$(cat "$K") v2=$(cat "$K2")
	# a set that pauses 5 s between its two writes holds the lock meanwhile
	THPCTL_TEST_SET_PAUSE=5 "${DFL[@]}" "$T" set "khugepaged/scan_sleep_millisecs=$((v1 + 7))" \
		"khugepaged/alloc_sleep_millisecs=$((v2 + 7))" >/dev/null 2>"$TMP/holder.err" &
	HP=$!
	wait_for 5 grep -qx "$((v1 + 7))" "$K"
	"$T" lab fallback --size 32M --runs 1 --yes --json --quiet >"$TMP/held.json" 2>"$TMP/held.err"
	RC=$?
	wait "$HP"
	settings_put_back "$TMP/base"
	HP=$HP expect_json "lock held by another thpctl: fallback skipped naming it (pid $HP, set), not 'needs root' alone" "$TMP/held.json" \
		'd["experiments"][0]["verdict"]["skipped"] and ("here: another thpctl, pid " + E["HP"] + " (set), is changing settings (--wait waits for it)") in d["experiments"][0]["verdict"]["text"]' \
		'd["experiments"][0]["verdict"]["text"]'
	check_settings "lock held"
fi

# ---- SIGKILL halfway: the next thpctl command restores --------------------------
# kill_check NAME FILE WANT ARGS...: start `lab ARGS`, wait until FILE reads
# WANT, SIGKILL it; the value must still be changed and journalled; then
# `thpctl status` must put it back and remove the journal. The journal lives
# in a private directory (test builds honour THPCTL_JOURNAL_DIR): any other
# thpctl on the host would otherwise restore it first and these checks could
# not tell.
kill_check() {
	local name=$1 file=$2 want=$3 i cur jd=$TMP/journal.$RANDOM
	shift 3
	mkdir -m 700 "$jd"
	wait_quiet
	THPCTL_JOURNAL_DIR=$jd "$T" lab "$@" --yes --quiet >/dev/null 2>"$TMP/kill.err" &
	BG=$!
	for ((i = 0; i < 200; i++)); do
		cur=$(cat "$file")
		[[ $cur == "$want" || $cur == *"[$want]"* ]] && break
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.05
	done
	if ! [[ $cur == "$want" || $cur == *"[$want]"* ]]; then
		nok "$name: setting changed by the run" "$file is '$cur' ($(tail -n 1 "$TMP/kill.err"))"
		kill -KILL "$BG" 2>/dev/null
		wait "$BG" 2>/dev/null
		BG=
		THPCTL_JOURNAL_DIR=$jd "$T" status >/dev/null 2>&1
		check_settings "$name"
		return
	fi
	kill -KILL "$BG"
	wait "$BG" 2>/dev/null
	BG=
	cur=$(cat "$file")
	if [[ $cur == "$want" || $cur == *"[$want]"* ]] && [ -s "$jd/journal" ]; then
		ok "$name: still changed after SIGKILL, journal at $jd/journal"
	else
		nok "$name: still changed after SIGKILL" "$file '$cur', journal $(ls -l "$jd" 2>&1)"
	fi
	THPCTL_JOURNAL_DIR=$jd "$T" status >/dev/null 2>"$TMP/recover.err"
	if [ -e "$jd/journal" ]; then
		nok "$name: thpctl status restores" "journal still there"
	elif grep -q "restored .* /${file#/}=" "$TMP/recover.err"; then
		ok "$name: thpctl status restores and says so"
	else
		nok "$name: thpctl status restores" "no 'restored' message: $(head -c 200 "$TMP/recover.err")"
	fi
	check_settings "$name"
}

if [ "$ROOT" -eq 0 ]; then
	skip "SIGKILL recovery" "needs root"
else
	old=$(cat "$THP/khugepaged/scan_sleep_millisecs")
	ms=54321
	[ "$old" = "$ms" ] && ms=54322
	kill_check "SIGKILL khugepaged" "$THP/khugepaged/scan_sleep_millisecs" "$ms" \
		khugepaged --scan-sleep "$ms" --size 64M --timeout 120
	if [ -f "$THP/hugepages-64kB/enabled" ] && grep -q '\[never\]' "$THP/hugepages-64kB/enabled"; then
		# --state cold sleeps 6 s before each run: the size sits at always meanwhile
		kill_check "SIGKILL mthp" "$THP/hugepages-64kB/enabled" always \
			mthp --sizes 64K --size 64M --runs 20 --state cold
	else
		skip "SIGKILL mthp" "no hugepages-64kB/enabled at never here"
	fi
fi

# ---- a host-wide change with another THP user present: asked, refused, or named -----
# lab mthp sets hugepages-64kB/enabled=always host-wide. With a helper holding
# huge pages: without a terminal and without --yes it refuses and changes
# nothing; on a terminal a "no" changes nothing; with --yes it names the helper
# and the duration before it changes anything.
H=build/tests/thp_helper
if [ "$ROOT" -eq 0 ]; then
	skip "host-wide change notice" "needs root"
elif ! [ -x "$H" ] || ! [ -f "$THP/hugepages-64kB/enabled" ]; then
	skip "host-wide change notice" "no $H (make $H) or no hugepages-64kB here"
elif start_helper HP "$H" hugepage 16; then
	"$T" lab mthp --sizes 64K --size 16M --runs 1 --quiet </dev/null >"$TMP/ask.out" 2>"$TMP/ask.err"
	rc=$?
	expect_eval "no terminal, no --yes: refused, exit 2, nothing changed" \
		'[ "$rc" = 2 ] && grep -q "refused without a terminal" "$TMP/ask.err" && grep -q -- "--yes" "$TMP/ask.err" && [ -z "$(settings_diff "$TMP/base")" ] && ! [ -e "$JOURNAL" ] && [ ! -s "$TMP/ask.out" ]' \
		"exit $rc: $(head -c 300 "$TMP/ask.err"); changed: $(settings_diff "$TMP/base")"
	if command -v script >/dev/null; then
		echo n | script -qec "$T lab mthp --sizes 64K --size 16M --runs 1 --quiet" /dev/null >"$TMP/tty.out" 2>&1
		rc=$?
		expect_eval "on a terminal, answered no: nothing changed, the helper named" \
			'grep -q "not confirmed, nothing was changed" "$TMP/tty.out" && grep -q "^ *$HP thp_helper" "$TMP/tty.out" && [ -z "$(settings_diff "$TMP/base")" ]' \
			"exit $rc: $(tr -d '\r' <"$TMP/tty.out" | tail -n 3 | tr '\n' ' ')"
	else
		skip "on a terminal, answered no" "no script(1)"
	fi
	timeout -s TERM 300 "$T" lab mthp --sizes 64K --size 16M --runs 1 --yes --json </dev/null \
		>"$TMP/yes.json" 2>"$TMP/yes.err"
	rc=$?
	san_note "lab mthp --yes" "$TMP/yes.err"
	# the notice comes first: before the first write ("thpctl: /sys/...") or progress line
	first_progress=$(grep -nE "^thpctl( lab)?: " "$TMP/yes.err" | head -n 1 | cut -d: -f1)
	named=$(grep -n "^ *$HP thp_helper (AnonHugePages [1-9][0-9]* kB)" "$TMP/yes.err" | head -n 1 | cut -d: -f1)
	expect_eval "--yes: runs, naming the helper and the duration before the first change" \
		'[ "$rc" = 0 ] && [ -n "$named" ] && [ "${first_progress:-999999}" -gt "$named" ] && grep -q "^  mthp (about [0-9]* s): hugepages-<size>kB/enabled=always" "$TMP/yes.err"' \
		"exit $rc, named at line '${named}', first progress at line '${first_progress}': $(head -c 400 "$TMP/yes.err")"
	check_settings "lab mthp --yes"
	stop_pid "$HP"
fi

# ---- unprivileged ---------------------------------------------------------------
if [ "$ROOT" -eq 0 ]; then
	skip "as nobody" "needs root (setpriv)"
elif ! command -v setpriv >/dev/null; then
	skip "as nobody" "setpriv (util-linux) not installed"
else
	t_nobody lab mthp --sizes 64K --size 16M --runs 1 --json --quiet
	if [ "$RC" -ne 0 ]; then
		nok "as nobody: lab mthp skips" "exit $RC: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
	else
		python3 - "$TMP/out" <<'PY' >"$TMP/nobody.chk" 2>&1
import json, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
v = e["verdict"]
assert v["skipped"] is True, f"not skipped: {v}"
assert "root" in v["text"], f"reason lacks 'root': {v['text']}"
PY
		if [ -s "$TMP/nobody.chk" ]; then
			nok "as nobody: lab mthp skips with a reason" "$(tail -n 1 "$TMP/nobody.chk")"
		else
			ok "as nobody: lab mthp skips with a reason"
		fi
	fi
	check_settings "as nobody: lab mthp"
	t_nobody lab touch --size 16M --runs 1 --json --quiet
	if [ "$RC" -ne 0 ]; then
		nok "as nobody: lab touch" "exit $RC: $(tail -n 2 "$TMP/err" | tr '\n' ' ')"
	else
		python3 - "$TMP/out" <<'PY' >"$TMP/nobody.chk" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
e = d["experiments"][0]
assert d["root"] is False, "root: true as nobody"
assert not e["verdict"]["skipped"], f"skipped: {e['verdict']['text']}"
assert e["verdict"]["expected"], f"unexpected: {e['verdict']['text']}"
assert [r for r in e["rows"] if r["label"] == "madv"], "no madv row"
PY
		if [ -s "$TMP/nobody.chk" ]; then
			nok "as nobody: lab touch --size 16M works" "$(tail -n 1 "$TMP/nobody.chk")"
		else
			ok "as nobody: lab touch --size 16M works"
		fi
	fi
	check_settings "as nobody: lab touch"
fi

# an experiment skipped before it sets its title still says what it is (its `lab list` line):
# thpctl alone in a directory, no thpctl-churn beside it, skips allocators
mkdir -p "$TMP/lonely" && cp "$T" "$TMP/lonely/thpctl"
"$TMP/lonely/thpctl" lab allocators --quick --yes --json >"$TMP/lonely.json" 2>"$TMP/lonely.err"
expect_eval "a skipped experiment keeps a title (lab allocators without thpctl-churn)" \
	'python3 -c "import json,sys; e=json.load(open(sys.argv[1]))[\"experiments\"][0]; assert e[\"verdict\"][\"skipped\"] and e[\"title\"].startswith(\"glibc, jemalloc\"), e" "$TMP/lonely.json"' \
	"$(head -c 300 "$TMP/lonely.json") $(tail -n 2 "$TMP/lonely.err")"

# a group's closing line counts the skipped experiments and names them: with no workload
# program on PATH (and, as nobody, no root) every one of lab workloads skips at once
if [ "$ROOT" = 1 ]; then
	chmod 755 "$TMP" "$TMP/lonely" "$TMP/lonely/thpctl"
	"${NOBODY[@]}" env PATH=/nonexistent "$TMP/lonely/thpctl" lab workloads --quick \
		>"$TMP/lonely-wl.out" 2>"$TMP/lonely-wl.err"
	rc=$?
	san_note "(nobody) lab workloads, no workload program" "$TMP/lonely-wl.err"
	expect_eval "a group whose experiments all skipped says so on its closing line (exit 0)" \
		'[ "$rc" = 0 ] && tr "\n" " " <"$TMP/lonely-wl.out" | grep -qE "lab workloads: ([0-9]+) experiments in [0-9.]+ s wall \([0-9.]+ s CPU\), all \1 +skipped \(redis, +fileread"' \
		"exit $rc: $(tail -n 3 "$TMP/lonely-wl.out")"
else
	skip "a group's closing line names its skipped experiments" "needs root (runs as nobody)"
fi

expect_sanitizers_quiet "sanitizers quiet"
summary
