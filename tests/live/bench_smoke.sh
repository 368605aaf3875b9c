#!/usr/bin/env bash
# A smoke of every bench script `make bench` runs (bench/ps.sh, exporter.sh, folios.sh, maps.sh,
# trace.sh, ab.sh, lab.sh; bench/fuzz.sh has its smoke in tests/fuzz/run.sh, bench/check.sh is
# make check itself), so that a broken bench is found by make check, not by the next make bench
# (~20 min on a freshly booted machine). Each runs once, with the smallest parameters that still
# take its paths (6 paired rounds: the fewest that give a 95% interval; both branches of ps.sh's
# process-count runs; ab.sh's blocks in both orders), and writes its records into a temporary
# BENCH_RESULTS (lab.sh: OUT), never into bench/results/ (its git status and files are compared
# after each bench). For each bench:
#   - exit 0, within BENCH_SMOKE_LIMIT seconds (default 300);
#   - a RECORD line for each figure, naming a file in the temporary directory, and as many
#     records as RECORD lines;
#   - each expected record one JSON file of schema thpctl.bench/1 written by that bench, its value
#     a number > 0 in its unit where the figure is a time or a size (a number where it is a
#     difference), paired figures with their floor or peer, a ratio and the 95% interval in the
#     note;
#   - a peer make check does not install (node_exporter: scripts/install-deps --bench; the
#     kernel's tools/mm/thpmaps, which folios.sh fetches in make bench, not here: BENCH_OFFLINE=1)
#     compared with where it is installed, else the bench must say why in its output and in the
#     record's note;
#   - no process left behind: every process a bench starts carries BENCH_SMOKE_TAG in its
#     environment (inherited), looked for in /proc/*/environ after the bench; one left is a
#     failure (and is killed, by its PID).
# At the end the host's settings are as found (folios.sh and lab.sh change some for seconds and
# put them back). The benches' figures are not judged: they run with tiny parameters, on a host
# that is running the other suites.
#
# Root for trace.sh and folios.sh (skipped with the reason otherwise); ps.sh and exporter.sh use
# private PID namespaces as root, the host's otherwise.
#
#   BENCH_THPCTL=path      the binary the benches measure (default build/thpctl, their default)
#   BENCH_SMOKE_LIMIT=S    seconds each bench may take (default 300)
#   BENCH_SMOKE_ONLY="maps ps ..."   only those benches (the others skipped, saying so)
# shellcheck source=tests/lib.sh
# shellcheck disable=SC2016 # expect_eval evaluates its condition string itself
source "$(dirname "$0")/../lib.sh"
suite_init bench_smoke

BT=${BENCH_THPCTL:-build/thpctl}
LIMIT=${BENCH_SMOKE_LIMIT:-300}
need_built "$BT" build/tests/thp_helper build/tests/ledger_helper build/tests/folio_helper \
	build/tests/trace_workload build/tests/chase_malloc build/bench/cputime build/bench/proc_floor
need_python3
R=$TMP/results
TAG=$$.$RANDOM.$SECONDS
mkdir -p "$R"
settings_snapshot "$TMP/settings.before"

# results_state: bench/results as git and the file system see it (names, sizes, times)
results_state() {
	git status --porcelain --untracked-files=all -- bench/results 2>/dev/null
	find bench/results -printf '%P %s %T@\n' 2>/dev/null | LC_ALL=C sort
}
results_state >"$TMP/results.before"

# tagged: the PIDs of the processes whose environment holds this run's tag
tagged() { grep -lsxz "BENCH_SMOKE_TAG=$TAG" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }

# selected NAME: bench NAME is to run (BENCH_SMOKE_ONLY), else one skip line
selected() {
	[ -z "${BENCH_SMOKE_ONLY:-}" ] && return 0
	[[ " $BENCH_SMOKE_ONLY " == *" $1 "* ]] && return 0
	skip "bench/$1.sh" "not in BENCH_SMOKE_ONLY ($BENCH_SMOKE_ONLY)"
	return 1
}

# bench_run NAME [VAR=VALUE]...: bench/NAME.sh with those parameters, BENCH_RESULTS=$R/NAME,
# THPCTL=$BT and the tag, under timeout; its output in $TMP/NAME.out, exit status in RC, its wall
# time on a "#" line. Then the checks every bench gets: exit 0, no process left, as many records
# as RECORD lines, bench/results untouched. bench_end NAME, after the bench's own checks: when
# any of its checks failed, its output's last lines as "#" lines.
bench_run() {
	local name=$1 t0=$SECONDS left i nrec nline
	shift
	FAIL0=$FAIL
	mkdir -p "$R/$name"
	env "$@" THPCTL="$BT" BENCH_RESULTS="$R/$name" BENCH_SMOKE_TAG="$TAG" \
		timeout -k 10 -s TERM "$LIMIT" "bench/$name.sh" >"$TMP/$name.out" 2>&1
	RC=$?
	echo "# bench/$name.sh $*: $((SECONDS - t0)) s wall, exit $RC, load $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ "$RC" -eq 0 ]; then
		ok "bench/$name.sh exits 0"
	else
		nok "bench/$name.sh exits 0" "exit $RC$([ "$RC" -eq 124 ] && echo " (over $LIMIT s)"): $(tail -n 6 "$TMP/$name.out" | tr '\n' ' ' | cut -c1-500)"
	fi
	# a PID namespace's processes go when its init does: give the kernel a moment
	for ((i = 0; i < 60; i++)); do
		left=$(tagged)
		[ -z "$left" ] && break
		sleep 0.05
	done
	if [ -z "$left" ]; then
		ok "bench/$name.sh leaves no process behind"
	else
		nok "bench/$name.sh leaves no process behind" \
			"$(ps -o pid=,args= -p "$(tr '\n' ',' <<<"$left" | sed 's/,$//')" | tr -s ' \n' ' ' | cut -c1-400)"
		for i in $left; do kill -KILL "$i" 2>/dev/null; done
	fi
	nrec=$(find "$R/$name" -name '*.json' | wc -l)
	nline=$(grep -c '^RECORD ' "$TMP/$name.out")
	expect_eval "bench/$name.sh: one record per RECORD line ($nline), all under the temporary BENCH_RESULTS" \
		'[ "$nrec" -gt 0 ] && [ "$nrec" -eq "$nline" ] && ! grep "^RECORD " "$TMP/$name.out" | grep -qv " -> $R/$name/"' \
		"$nrec records, $nline RECORD lines: $(grep '^RECORD ' "$TMP/$name.out" | grep -v " -> $R/$name/" | head -n 2 | tr '\n' ' ')"
	results_state >"$TMP/results.now"
	expect_eval "bench/$name.sh writes nothing into bench/results/" \
		'cmp -s "$TMP/results.before" "$TMP/results.now"' \
		"$(diff "$TMP/results.before" "$TMP/results.now" | grep '^[<>]' | head -n 3 | tr '\n' ' ')"
}

# expect_records NAME SPEC...: each SPEC "RECORD|CHECK|..." one check of bench NAME's record:
# one JSON file, schema thpctl.bench/1, its name, bench/NAME.sh, a RECORD line naming the file,
# and each CHECK:
#   time=UNIT | size=UNIT   the value a number > 0, in UNIT
#   number=UNIT             the value a number (a difference: any sign), in UNIT
#   floor | peer            the floor's value in the same run a number > 0 (peer: kind peer)
#   ratio                   a ratio > 0
#   interval                the note holds the 95% interval ("95% interval LO-HIx")
#   nopeer                  neither a floor value nor a ratio
#   note=TEXT               the note holds TEXT
#   lab                     the detail lists lab quick's experiments, each with its wall time
expect_records() {
	local name=$1
	shift
	# a process substitution, not a pipe: relay_results counts in this shell; python's errors
	# (stderr) are lines it fails
	relay_results "bench/$name.sh: records" < <(python3 - "$R/$name" "$name" "$TMP/$name.out" "$@" 2>&1 <<'PY'
import glob, json, re, sys

d, bench, out, *specs = sys.argv[1:]
text = open(out).read()
def isnum(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)
for spec in specs:
    name, *checks = spec.split("|")
    label = f"bench/{bench}.sh: record {name}: " + ", ".join(checks or ["schema"])
    files = sorted(glob.glob(f"{d}/{name}/*.json"))
    if len(files) != 1:
        print(f"not ok - {label}: {len(files)} JSON files in {d}/{name}, want 1")
        continue
    try:
        r = json.load(open(files[0]))
    except ValueError as e:
        print(f"not ok - {label}: {files[0]} is not JSON: {e}")
        continue
    bad = []
    if r.get("schema") != "thpctl.bench/1":
        bad.append(f"schema {r.get('schema')!r}")
    if r.get("name") != name or r.get("bench") != f"bench/{bench}.sh":
        bad.append(f"name {r.get('name')!r}, bench {r.get('bench')!r}")
    if not re.search(rf"^RECORD {re.escape(name)}: .* -> {re.escape(files[0])}$", text, re.M):
        bad.append("no RECORD line naming its file")
    v, unit, note = r.get("value"), r.get("unit"), r.get("note") or ""
    fl = r.get("floor") or {}
    for c in checks:
        k, _, arg = c.partition("=")
        if k in ("time", "size", "number"):
            if not isnum(v) or (k != "number" and v <= 0):
                bad.append(f"value {v!r}, want a number{'' if k == 'number' else ' > 0'}")
            if unit != arg:
                bad.append(f"unit {unit!r}, want {arg!r}")
        elif k in ("floor", "peer"):
            if not isnum(fl.get("value")) or fl["value"] <= 0:
                bad.append(f"floor {fl or None!r}, want its value > 0")
            elif k == "peer" and fl.get("kind") != "peer":
                bad.append(f"floor kind {fl.get('kind')!r}, want 'peer'")
        elif k == "ratio":
            if not isnum(r.get("ratio")) or r["ratio"] <= 0:
                bad.append(f"ratio {r.get('ratio')!r}, want > 0")
        elif k == "interval":
            if not re.search(r"95% interval [0-9.]+-[0-9.]+x", note):
                bad.append(f"no 95% interval in the note {note[:200]!r}")
        elif k == "nopeer":
            if fl.get("value") is not None or r.get("ratio") is not None:
                bad.append(f"a floor value {fl.get('value')!r} or ratio {r.get('ratio')!r} without the peer")
        elif k == "note":
            if arg not in note:
                bad.append(f"note {note[:200]!r} lacks {arg!r}")
        elif k == "lab":
            ex = (r.get("detail") or {}).get("experiments") or []
            if not ex or not all(isnum(e.get("wall_ms")) and e["wall_ms"] > 0 for e in ex):
                bad.append(f"detail experiments {json.dumps(ex)[:200]}")
        else:
            bad.append(f"unknown check {c!r} (tests/live/bench_smoke.sh)")
    if bad:
        print(f"not ok - {label}: " + "; ".join(bad)[:600])
    else:
        print(f"ok - {label}")
PY
	)
}

# expect_said BENCH NAME ERE...: every ERE in the bench's output (grep -E), else its first lines
expect_said() {
	local bench=$1 name=$2 p
	shift 2
	for p in "$@"; do
		if ! grep -qE -- "$p" "$TMP/$bench.out"; then
			nok "bench/$bench.sh: $name" "no /$p/ in: $(grep -v '^RECORD ' "$TMP/$bench.out" | head -c 400 | tr '\n' ' ')"
			return 1
		fi
	done
	ok "bench/$bench.sh: $name"
}
bench_end() {
	[ "$FAIL" -eq "$FAIL0" ] && return 0
	echo "# bench/$1.sh printed (last 40 lines):"
	tail -n 40 "$TMP/$1.out" | sed 's/^/#   /'
}
PAIRED="time=ms|floor|ratio|interval"

# exporter_cpu_ok: the six "CPU per scrape" lines of exporter.sh's output each with a figure > 0,
# and the keep-alive one beside it > 0 (0 or '-': the scrapes did not reach that exporter)
exporter_cpu_ok() {
	python3 - "$TMP/exporter.out" <<'PY'
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("  CPU per scrape, ")]
bad = []
for l in rows:
    m = re.search(r"\s(\S+) ms\s", l)
    ka = re.search(r"\(keep-alive (\S+) ms", l)
    figs = [m.group(1) if m else "?"] + ([ka.group(1)] if ka else [])
    if not all(re.fullmatch(r"[0-9.]+", f) and float(f) > 0 for f in figs):
        bad.append(" ".join(l.split()))
if len(rows) != 6 or bad:
    print(f"{len(rows)} lines (want 6); " + " | ".join(bad)[:400])
    sys.exit(1)
PY
}

# ---- maps.sh: maps PID against cat smaps, paired ---------------------------------------------
if selected maps; then
	bench_run maps VMAS=200 RUNS=6 WARMUP=1
	expect_records maps "maps-vmas-200|$PAIRED" "maps-vmas-200-rss|size=kB"
	bench_end maps
fi

# ---- ps.sh: the host rows, start-up, both kinds of process-count run, peak RSS --------------
if selected ps; then
	bench_run ps RUNS=6 WARMUP=1 NVMAS=200 FLOOR_RUNS="20:0 10:200"
	expect_records ps "ps-all-host|$PAIRED" "ps-rollup-host|$PAIRED" "ps-ledger-host|$PAIRED" \
		"ps-all-floor-20|$PAIRED" "ps-rollup-floor-20|$PAIRED" "ps-all-floor-vmas-200|$PAIRED" \
		"peak-rss|size=kB"
	expect_said ps "start-up line, the gap split into start-up and fixed work, a peak RSS per command" \
		'^start-up: thpctl --version -?[0-9.]+ ms above proc_floor none' \
		'of which start-up [-+][0-9.]+ ms .*fixed work' '^RESULT peak RSS thpctl advise +[0-9]+ kB'
	bench_end ps
fi

# ---- exporter.sh: thpctl's exporter, node_exporter where installed ---------------------------
if selected exporter; then
	NE=${NODE_EXPORTER:-$(command -v prometheus-node-exporter || command -v node_exporter)}
	bench_run exporter SCRAPES=3 SECONDS_KA=1 NPROCS=5 ROUNDS=6 BLOCK=2 WARMUP=2 CAT_RUNS=3
	if [ -n "$NE" ]; then
		expect_records exporter "exporter-cpu-fresh|time=ms|peer|ratio" \
			"exporter-cpu-keepalive|time=ms|peer|ratio" \
			"exporter-cpu-host-fresh|time=ms|peer|ratio|interval" "exporter-rss|size=kB"
		expect_said exporter "node_exporter ($NE) measured, and in turn with thpctl" \
			'node_exporter THP-only scrape, fresh connection +[0-9.]+ ms' \
			'host-wide only vs node_exporter, in turn, fresh +[0-9.]+ ms'
	else
		why="no peer: node_exporter not installed"
		expect_records exporter "exporter-cpu-fresh|time=ms|nopeer|note=$why" \
			"exporter-cpu-keepalive|time=ms|nopeer|note=$why" \
			"exporter-cpu-host-fresh|time=ms|nopeer|note=$why" "exporter-rss|size=kB"
		expect_said exporter "says node_exporter is not installed (scripts/install-deps --bench)" \
			'node_exporter: not measured: node_exporter not installed'
	fi
	if msg=$(exporter_cpu_ok); then
		ok "bench/exporter.sh: every scrape configuration measured, fresh and keep-alive (> 0 ms)"
	else
		nok "bench/exporter.sh: every scrape configuration measured, fresh and keep-alive (> 0 ms)" "$msg"
	fi
	expect_said exporter "cat of the same files timed" 'cat of the same files +[0-9.]+ ms'
	bench_end exporter
fi

# ---- folios.sh: maps --folios, the kernel's thpmaps where it is here (nothing fetched) -------
if [ "$ROOT" -eq 0 ]; then
	skip "bench/folios.sh" "needs root (kpageflags, hugepages-64kB/enabled)"
elif [ ! -w "$THP/hugepages-64kB/enabled" ]; then
	skip "bench/folios.sh" "no writable $THP/hugepages-64kB/enabled (kernel < 6.8?)"
elif selected folios; then
	TM=${THPMAPS:-/var/tmp/thpctl-bench/thpmaps}
	[ -r "$TM" ] || TM=/var/tmp/thpctl-bench/thpmaps
	wait_quiet
	bench_run folios GB=64M RUNS=2 WARMUP=1 BENCH_OFFLINE=1
	if [ -r "$TM" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		expect_records folios "maps-folios-64m|time=ms|peer|ratio" "maps-folios-64m-rss|size=kB"
		expect_said folios "thpmaps ($TM) run: every count identical" '^RESULT counts: identical'
	else
		expect_records folios "maps-folios-64m|time=ms|nopeer|note=thpmaps not run: " \
			"maps-folios-64m-rss|size=kB"
		expect_said folios "says why thpmaps was not run" '^thpmaps: NOT AVAILABLE: .+' \
			'^RESULT counts: thpmaps not run'
		expect_eval "bench/folios.sh: nothing fetched (BENCH_OFFLINE=1)" \
			'! grep -q "^fetching tools/mm/thpmaps" "$TMP/folios.out"' "$(grep fetching "$TMP/folios.out")"
	fi
	expect_said folios "thpctl's reading methods agree, ps --folios with maps" \
		'without and with the two-frame proof: identical' 'ps --folios rollup equals maps totals'
	bench_end folios
fi

# ---- trace.sh: what recording an event costs ------------------------------------------------
if [ "$ROOT" -eq 0 ]; then
	skip "bench/trace.sh" "needs root (trace stalls)"
elif ! grep -qw tracefs /proc/filesystems; then
	skip "bench/trace.sh" "this kernel has no tracefs"
elif ! build/tests/trace_workload 2 1 >/dev/null 2>&1; then
	skip "bench/trace.sh" "build/tests/trace_workload fails here (no MADV_COLLAPSE: kernel < 6.1?)"
elif selected trace; then
	bench_run trace RUNS=2 SIZE_MB=8 CALLS=5
	expect_records trace "trace-event-cost|number=ns|note=events lost"
	expect_said trace "untraced and traced runs, the reader's cost" \
		'untraced +median +[0-9.]+ ms' 'traced +median +[0-9.]+ ms' 'reader \(thpctl\): [0-9]+ ms CPU'
	bench_end trace
fi

# ---- ab.sh: ab against hyperfine, both block orders, the numpy run --------------------------
if selected ab; then
	bench_run ab RUNS=2 BLOCK_RUNS=1 TRUE_RUNS=3 SIZE=8M STEPS=10K NUMPY_RUNS=1 NUMPY_N=200
	expect_records ab "ab-accuracy|time=ms|peer|ratio" "ab-overhead|number=ms"
	expect_said ab "chase_malloc in 2 blocks of 1 run each, ABBA" \
		'^RESULT chase_malloc median wall: .*2 blocks of 1 runs each'
	# the overhead record's verdict is the RESULT line's (both limits, 1 ms and 1% of a run)
	said=$(sed -nE 's/^RESULT ab overhead per run: .*: (met|NOT met)$/\1/p' "$TMP/ab.out")
	rec=$(python3 -c 'import glob, json, sys
m = json.load(open(sorted(glob.glob(sys.argv[1] + "/ab-overhead/*.json"))[-1]))["met"]
print({True: "met", False: "NOT met"}.get(m, "-"))' "$R/ab" 2>/dev/null)
	if [ -n "$said" ] && [ "$said" = "$rec" ]; then
		ok "bench/ab.sh: the ab-overhead record says what its RESULT line says ($said)"
	else
		nok "bench/ab.sh: the ab-overhead record says what its RESULT line says" \
			"RESULT '${said:-none}', record '${rec:--}'"
	fi
	if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		expect_said ab "the numpy matrix multiply under off and host" '^numpy 200x200 matrix multiply' \
			'^off +1 ' '^host +1 '
	else
		expect_said ab "says numpy is not installed" '^numpy: skipped \(python3-numpy not installed'
	fi
	bench_end ab
fi

# ---- lab.sh: lab quick (--runs 1: ~10-20 s) --------------------------------------------------
if selected lab; then
	wait_quiet
	bench_run lab OUT="$R/lab" RUNS=1
	expect_records lab "lab-quick|time=s|lab"
	expect_said lab "each experiment's wall time and verdict" '^RESULT thpctl lab quick: [0-9.]+ s wall' \
		'^  touch +[0-9.]+ s '
	bench_end lab
fi

# ---- the host as found --------------------------------------------------------------------
expect_settings_as_found "host THP settings as found after the benches" "$TMP/settings.before"
results_state >"$TMP/results.now"
expect_eval "bench/results/ unchanged (git status and files)" 'cmp -s "$TMP/results.before" "$TMP/results.now"' \
	"$(diff "$TMP/results.before" "$TMP/results.now" | head -n 5 | tr '\n' ' ')"
summary
