#!/usr/bin/env bash
# Live tests of `thpctl trace stalls` against the running kernel: usage and
# unprivileged errors; a trace while the lab's fragmenter provokes direct
# compaction (`lab faults --fragment --size 64M`) sees paired stalls of the
# lab process; a trace while `echo 1 > /proc/sys/vm/compact_memory` runs
# sees that shell's compaction; --pid keeps to one process; SIGINT and
# SIGTERM end the trace with results; a SIGKILLed trace's instance is
# removed by the next thpctl command; the namespace mount fallback. After
# every run tracefs is as found (mounted or not, no instance left), no undo
# journal is left, and the host's THP settings are as found.
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "trace: N
# passed, M failed, K skipped", non-zero exit on failures).
#
#   THPCTL=path  the thpctl under test (default build/asan/thpctl)
#   LAB=path     the thpctl whose fragmenter provokes compaction (default
#                build/thpctl: the fragmenter fills GiBs, which is slow
#                under ASan)
# shellcheck disable=SC2016 # expect_eval evals its single-quoted condition
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init trace

LAB=${LAB:-build/thpctl}
RUN=/run/thpctl
unset THPCTL_TRACEFS_MOUNT

[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
command -v python3 >/dev/null || { nok "python3" "needed to read the JSON"; summary; }

# an instance left by a killed trace: any thpctl command removes it
# shellcheck disable=SC2016 # evaluated at exit
at_exit '[ "$ROOT" -eq 1 ] && "$T" status >/dev/null 2>&1'

# ---- usage, no root needed ---------------------------------------------------
"$T" trace >/dev/null 2>&1
RC=$?
expect_eval "trace without a subcommand: usage error" '[ $RC -eq 2 ]'
"$T" trace nosuch >/dev/null 2>"$TMP/err"
RC=$?
expect_eval "unknown trace: usage error" '[ $RC -eq 2 ] && grep -q "unknown trace" "$TMP/err"'
"$T" trace stalls --duration abc >/dev/null 2>&1
RC=$?
expect_eval "--duration abc: usage error" '[ $RC -eq 2 ]'
"$T" trace stalls --pid 0 >/dev/null 2>&1
RC=$?
expect_eval "--pid 0: usage error" '[ $RC -eq 2 ]'
"$T" trace stalls --help >"$TMP/help" 2>&1
RC=$?
expect_eval "--help" '[ $RC -eq 0 ] && grep -q "instances/thpctl-<pid>" "$TMP/help"'
FIX=$(find tests/fixtures -mindepth 1 -maxdepth 1 -type d | head -n1)
if [ -n "$FIX" ]; then
	"$T" --sysroot "$FIX" trace stalls --duration 1 >/dev/null 2>"$TMP/err"
	RC=$?
	expect_eval "--sysroot: refused (the running kernel only)" \
		'[ $RC -eq 1 ] && grep -q "not with --sysroot" "$TMP/err"'
fi

# ---- unprivileged -------------------------------------------------------------
unpriv() { # runs thpctl trace stalls without root; exit status in RC
	if [ "$ROOT" -eq 1 ]; then
		as_nobody "$T" trace stalls --duration 1 \
			>"$TMP/out" 2>"$TMP/err"
	else
		"$T" trace stalls --duration 1 >"$TMP/out" 2>"$TMP/err"
	fi
	RC=$?
}
if [ "$ROOT" -eq 1 ] && ! command -v setpriv >/dev/null; then
	skip "unprivileged" "setpriv (util-linux) not installed"
else
	unpriv
	expect_eval "unprivileged: exit 1 with a clear message" \
		'[ $RC -eq 1 ] && grep -q "needs root" "$TMP/err" && [ ! -s "$TMP/out" ]' \
		"exit $RC, stderr: $(head -c 300 "$TMP/err")"
	san_note "unprivileged" "$TMP/err"
fi

if [ "$ROOT" -eq 0 ]; then
	skip "live traces" "need root"
	summary
fi
if ! grep -qw tracefs /proc/filesystems; then
	skip "live traces" "this kernel has no tracefs"
	summary
fi

# ---- host state: tracefs, undo journal, THP settings --------------------------
# tracefs_mounts: where tracefs is mounted on the host (sorted)
tracefs_mounts() { awk '$3 == "tracefs" { print $2 }' /proc/mounts | sort; }
# instances: the tracefs instances, seen through a private mount when the host has none
instances() {
	local m
	m=$(tracefs_mounts | head -n1)
	if [ -n "$m" ]; then
		find "$m/instances" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort
	else
		unshare -m sh -c 'mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
			ls /sys/kernel/tracing/instances' 2>/dev/null | sort
	fi
}
# event_on NAME: whether instance NAME has mm_compaction_begin enabled (it is tracing)
event_on() {
	local m f
	m=$(tracefs_mounts | head -n1)
	f=instances/$1/events/compaction/mm_compaction_begin/enable
	if [ -n "$m" ]; then
		[ "$(cat "$m/$f" 2>/dev/null)" = 1 ]
	else
		[ "$(unshare -m sh -c "mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
			cat /sys/kernel/tracing/$f" 2>/dev/null)" = 1 ]
	fi
}
wait_quiet || { skip "live traces" "another thpctl has held $JOURNAL for 5 minutes"; summary; }
"$T" status >/dev/null 2>&1 # restores what an earlier killed thpctl left, first
tracefs_mounts >"$TMP/mounts.base"
instances | grep -v '^thpctl-' >"$TMP/inst.base"
settings_snapshot "$TMP/settings.base"
MOUNTED=0
[ -s "$TMP/mounts.base" ] && MOUNTED=1
echo "# trace.sh: tracefs mounted on the host: $([ $MOUNTED -eq 1 ] && tr '\n' ' ' <"$TMP/mounts.base" || echo no)"

# as_found NAME: tracefs mounts and instances, undo files and THP settings as at the start
as_found() {
	local d
	d=$(diff <(tracefs_mounts) "$TMP/mounts.base" | grep -E '^[<>]' | tr '\n' ' ')
	expect_eval "$1: tracefs mounts as found" '[ -z "$d" ]' "changed: $d"
	d=$(diff <(instances | grep -v "^thpctl-") "$TMP/inst.base" | grep -E '^[<>]' | tr '\n' ' ')
	local ours
	ours=$(instances | grep '^thpctl-' | tr '\n' ' ')
	expect_eval "$1: no instance left" '[ -z "$d" ] && [ -z "$ours" ]' "changed: $d ours: $ours"
	ours=$(find "$RUN" -maxdepth 1 -name 'undo.*' 2>/dev/null | tr '\n' ' ')
	expect_eval "$1: no undo journal left" '[ -z "$ours" ]' "left: $ours"
	expect_settings_as_found "$1: THP settings as found" "$TMP/settings.base"
}

# start_trace NAME ARGS...: thpctl trace stalls ARGS --json in the background;
# TPID its pid, output in $TMP/NAME.json and .err; returns once it traces
start_trace() {
	local name=$1 i
	shift
	"$T" trace stalls "$@" --json >"$TMP/$name.json" 2>"$TMP/$name.err" &
	TPID=$!
	track_pid "$TPID"
	for ((i = 0; i < 100; i++)); do
		event_on "thpctl-$TPID" && return 0
		kill -0 "$TPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# stop_trace SIGNAL: end the background trace, exit status in RC
stop_trace() {
	kill "-$1" "$TPID" 2>/dev/null
	wait "$TPID"
	RC=$?
}

cat >"$TMP/check.py" <<'PY'
import json, sys

path, name, want = sys.argv[1], sys.argv[2], sys.argv[3:]
opts = dict(w.split("=", 1) for w in want)
out = []


def check(n, cond, why):
    out.append(f"ok - {name}: {n}" if cond else f"not ok - {name}: {n}: {why}")


try:
    d = json.load(open(path))
except Exception as ex:  # noqa: BLE001
    print(f"not ok - {name}: JSON: unreadable: {ex}")
    sys.exit(0)
for k in ("tracefs", "events", "stalls", "totals", "histogram", "collapse", "overhead"):
    check(f"JSON has {k}", k in d, f"keys {sorted(d)}")
tf = d.get("tracefs", {})
check("private instance named after the tracer", tf.get("instance") == f"thpctl-{opts['tpid']}",
      tf.get("instance"))
check("private mount iff tracefs was not mounted",
      tf.get("private_mount") == (opts["mounted"] == "0"), tf)
if "where" in opts:
    check(f"tracefs via {opts['where']}", tf.get("where") == opts["where"], tf.get("where"))
check("clock mono", tf.get("clock") == "mono", tf.get("clock"))
oh = d.get("overhead", {})
n = oh.get("events", -1)
check("overhead counts events", n == sum(v for v in d["events"].values()), oh)
check("overhead: per-event cost measured", isinstance(oh.get("record_ns_per_event"), float)
      and 0 <= oh["record_ns_per_event"] < 100000, oh.get("record_ns_per_event"))
# it read something, so it spent CPU doing it: above 0, and one thread's worth at most
check("overhead: reader CPU measured", oh.get("bytes_read", 0) > 0
      and oh.get("reader_cpu_ms", 0) > 0 and 0 < oh.get("reader_cpu_pct", 0) <= 100, oh)
check("no events lost", d.get("lost_events") == 0, d.get("lost_events"))
check("every line parsed", d.get("unparsed_lines") == 0, d.get("unparsed_lines"))
if opts.get("interrupted"):
    check("interrupted", d.get("interrupted") is (opts["interrupted"] == "1"), d.get("interrupted"))
# stalls of one process: at least one paired begin/end, consistent figures
if "stalled" in opts:
    pid = int(opts["stalled"])
    rows = [s for s in d["stalls"] if s["pid"] == pid and s["kind"] == "compaction"]
    check(f"paired compaction stalls of pid {pid}", rows and rows[0]["count"] >= 1,
          [(s["pid"], s["comm"], s["kind"], s["count"]) for s in d["stalls"]][:8])
    if rows:
        r = rows[0]
        check("p50 <= p99 <= max, total >= max",
              r["p50_us"] <= r["p99_us"] <= r["max_us"] <= r["total_us"] + 1e-9, r)
        check("why: end status counted for each stall", sum(r["status"].values()) == r["count"],
              r["status"])
        if opts.get("order"):
            check(f"order {opts['order']} asked for", r["orders"].get(opts["order"], 0) >= 1,
                  r["orders"])
    t = d["totals"]["compaction"]
    hist = sum(b["compaction"] for b in d["histogram"])
    check("histogram holds every compaction stall", hist == t["count"], (hist, t["count"]))
    check("pairs <= begins", t["count"] <= d["events"]["mm_compaction_begin"], t)
if "only" in opts:
    pids = {s["pid"] for s in d["stalls"]}
    check(f"--pid {opts['only']}: no other process", pids <= {int(opts["only"])}, pids)
print("\n".join(out))
PY
# verify NAME ARGS...: the JSON checks
verify() {
	local name=$1
	shift
	python3 "$TMP/check.py" "$TMP/$name.json" "$name" "tpid=$TPID" "mounted=$MOUNTED" "$@" >"$TMP/res" 2>&1
	relay_results "$name: checker" <"$TMP/res"
	san_note "$name" "$TMP/$name.err"
}

# ---- 1. a short trace, text output ---------------------------------------------
timeout 60 "$T" trace stalls --duration 1 >"$TMP/short.txt" 2>"$TMP/short.err"
RC=$?
expect_eval "short: exit 0" '[ $RC -eq 0 ]' "exit $RC: $(head -c 300 "$TMP/short.err")"
expect_eval "short: the report's sections" \
	'grep -q "^Compaction and reclaim stalls: traced" "$TMP/short.txt" &&
	 grep -q "^Who waited" "$TMP/short.txt" && grep -q "^Collapse" "$TMP/short.txt" &&
	 grep -q "^Tracing overhead: .* per event .* events lost" "$TMP/short.txt"'
san_note "short" "$TMP/short.err"
as_found "short"

# ---- 2. compact_memory: the writing shell compacts, in its own context -----------
# (a one-shot action like drop_caches, not a setting: nothing to restore)
if [ -w /proc/sys/vm/compact_memory ]; then
	if start_trace compact --duration 0; then
		sh -c 'echo $$ >"$1"; echo 1 >/proc/sys/vm/compact_memory' sh "$TMP/shpid"
		stop_trace INT
		expect_eval "compact_memory: SIGINT ends the trace with exit 0" '[ $RC -eq 0 ]' "exit $RC"
		verify compact "stalled=$(cat "$TMP/shpid")" interrupted=1
	else
		nok "compact_memory" "the trace did not start: $(head -c 300 "$TMP/compact.err")"
	fi
	as_found "compact_memory"
else
	skip "compact_memory" "/proc/sys/vm/compact_memory not writable"
fi

# ---- 3. --pid: only that process ------------------------------------------------
if [ -w /proc/sys/vm/compact_memory ]; then
	mkfifo "$TMP/go"
	# waits for "go", then compacts
	sh -c 'read -r _ <"$1"; echo 1 >/proc/sys/vm/compact_memory' sh "$TMP/go" &
	SHP=$!
	track_pid "$SHP"
	if start_trace pid --pid "$SHP" --duration 0; then
		echo go >"$TMP/go"
		# another process compacts at the same time: not to be seen
		sh -c 'echo 1 >/proc/sys/vm/compact_memory' &
		OTHER=$!
		wait "$SHP" "$OTHER"
		stop_trace TERM
		expect_eval "--pid: SIGTERM ends the trace with exit 0" '[ $RC -eq 0 ]' "exit $RC"
		verify pid "stalled=$SHP" "only=$SHP"
	else
		nok "--pid" "the trace did not start: $(head -c 300 "$TMP/pid.err")"
	fi
	as_found "--pid"
fi

# ---- 4. the lab's fragmenter provokes direct compaction of THP faults -----------
if [ ! -x "$LAB" ]; then
	skip "fragmenter" "$LAB missing (make build/thpctl)"
elif ! wait_quiet; then
	skip "fragmenter" "another thpctl holds $JOURNAL"
else
	# frag_run: trace while the lab faults THP under the fragmenter; 1 when it did not start
	frag_run() {
		start_trace frag --duration 0 || return 1
		"$LAB" lab faults --fragment --size 64M --runs 1 --yes --quiet --json \
			>"$TMP/lab.json" 2>"$TMP/lab.err" &
		LABPID=$! # the lab itself (its stalls are what we look for), not a timeout wrapper
		track_pid "$LABPID"
		# a watchdog: it restores its settings on SIGTERM. Its output goes nowhere, and its
		# sleep is killed with it: a sleep left holding our stdout keeps run-all's tee waiting
		(sleep 300 && kill -TERM "$LABPID" 2>/dev/null) >/dev/null 2>&1 &
		DOG=$!
		wait "$LABPID"
		LRC=$?
		pkill -P "$DOG" 2>/dev/null
		kill "$DOG" 2>/dev/null
		stop_trace INT
		if [ "$LRC" -ne 0 ] || grep -q '"partial": *true' "$TMP/lab.json"; then
			echo "# trace.sh: the lab run was not clean (exit $LRC): $(head -c 300 "$TMP/lab.err")"
		fi
	}
	# whether the fragmenter got the lab to compact depends on the host's free memory at the
	# time: a run without a compaction stall of the lab is tried again (3 runs at most), and
	# the checks below still require the stall
	frag_compacted() {
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(s["pid"] == int(sys.argv[2]) and s["kind"] == "compaction" for s in d["stalls"]) else 1)' \
			"$TMP/frag.json" "$LABPID" 2>/dev/null
	}
	if frag_run; then
		for try in 2 3; do
			frag_compacted && break
			echo "# trace.sh: no compaction stall of the lab in this run; run $try of 3"
			as_found "fragmenter (run $((try - 1)))"
			frag_run || break
		done
		expect_eval "fragmenter: trace exit 0" '[ $RC -eq 0 ]' "exit $RC: $(head -c 300 "$TMP/frag.err")"
		verify frag "stalled=$LABPID" order=9 interrupted=1
	else
		nok "fragmenter" "the trace did not start: $(head -c 300 "$TMP/frag.err")"
	fi
	as_found "fragmenter"
fi

# ---- 5. SIGKILL: the next thpctl command removes the instance -------------------
if start_trace kill --duration 0; then
	KP=$TPID
	expect_eval "SIGKILL: undo journal written while tracing" '[ -s "$RUN/undo.$KP" ]'
	kill -KILL "$KP"
	wait "$KP" 2>/dev/null
	expect_eval "SIGKILL: the instance outlives the process" 'instances | grep -qx "thpctl-$KP"'
	"$T" status >/dev/null 2>"$TMP/recover.err"
	expect_eval "SIGKILL: the next command says it removed it" \
		'grep -q "removed tracefs instance thpctl-$KP" "$TMP/recover.err"' \
		"$(head -c 300 "$TMP/recover.err")"
	san_note "recover" "$TMP/recover.err"
	as_found "SIGKILL"
else
	nok "SIGKILL" "the trace did not start: $(head -c 300 "$TMP/kill.err")"
fi

# ---- 6. the mount fallback of kernels before 5.2 (own mount namespace) ---------
if [ "$MOUNTED" -eq 1 ]; then
	skip "namespace fallback" "tracefs is mounted on the host: no private mount made"
else
	THPCTL_TRACEFS_MOUNT=ns timeout 60 "$T" trace stalls --duration 1 --json >"$TMP/ns.json" 2>"$TMP/ns.err"
	RC=$?
	expect_eval "namespace fallback: exit 0" '[ $RC -eq 0 ]' "exit $RC: $(head -c 300 "$TMP/ns.err")"
	python3 - "$TMP/ns.json" >"$TMP/res" 2>&1 <<'PY'
import json, sys
try:
    w = json.load(open(sys.argv[1]))["tracefs"]["where"]
except Exception as ex:  # noqa: BLE001
    w = f"unreadable JSON: {ex}"
print("ok - namespace fallback: private mount namespace" if w == "private mount namespace"
      else f"not ok - namespace fallback: private mount namespace: {w}")
PY
	relay_results "namespace fallback: checker" <"$TMP/res"
	san_note "ns" "$TMP/ns.err"
	as_found "namespace fallback"
fi

expect_sanitizers_quiet "sanitizers quiet"
summary
