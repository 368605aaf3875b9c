# shellcheck shell=bash
# Shared by the bench/*.sh scripts (`source "$(dirname "$0")/lib.sh"` first):
# set -uo pipefail, the repository root as the working directory, T the
# binary to measure ($THPCTL, default build/thpctl); checks for what a bench
# needs, its temporary directory, and the processes it starts (stopped by an
# EXIT trap).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
# shellcheck disable=SC2034 # used by the scripts that source this
T=${THPCTL:-build/thpctl}
# whole lines in every output the benches parse (no wrapping at 80 columns on a pipe)
export THPCTL_WIDE=1

# bench_need FILE...: exit 1 unless every FILE (a binary `make bench` builds) is executable.
bench_need() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || { echo "bench: $f missing: run 'make bench'" >&2; exit 1; }
	done
}

# bench_need_cmd CMD...: exit 1 unless every CMD is installed.
bench_need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || { echo "bench: $c not installed (scripts/install-deps)" >&2; exit 1; }
	done
}

# bench_init NAME: TMP, a fresh directory /tmp/thpctl-NAME.XXXXXX; PIDS, the processes to stop.
# On exit: bench_on_exit (when the script defines it), then every PID gets SIGTERM, SIGKILL
# after 2 s, and TMP goes. INT, TERM and HUP exit 130 through the same trap.
bench_init() {
	TMP=$(mktemp -d "/tmp/thpctl-$1.XXXXXX")
	PIDS=()
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM HUP
}

# shellcheck disable=SC2317 # runs from the EXIT trap
bench_cleanup() {
	local p='' i
	if declare -F bench_on_exit >/dev/null; then bench_on_exit; fi
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for ((i = 0; i < 40; i++)); do
		for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && break; done
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}

# bench_start OUT TRIES COMMAND...: start COMMAND in the background (its PID appended to PIDS,
# its output into OUT) and wait up to TRIES x 50 ms for its "ready" line. Returns 1 when the
# line never came (COMMAND exited or was too slow).
bench_start() {
	local out=$1 tries=$2 i
	shift 2
	: >"$out" # exists before the first grep (the background shell opens it later)
	"$@" >"$out" 2>&1 &
	PIDS+=("$!")
	for ((i = 0; i < tries; i++)); do
		grep -q '^ready' "$out" && return 0
		kill -0 "${PIDS[-1]}" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}

# bench_peak_kb CMD [ARG]...: CMD's peak RSS in kB (its output discarded; after bench_init). GNU
# time's %M where /usr/bin/time is installed (Debian's `time` package, not on a minimal system:
# no install-deps purpose installs it), else build/tests/thp_helper maxrss (wait4(); not a python
# wrapper: ru_maxrss survives exec, so a python parent's own RSS would be reported).
# BENCH_PEAK_HOW says which, for the records' notes.
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
	BENCH_PEAK_HOW="GNU time %M"
else
	BENCH_PEAK_HOW="wait4() ru_maxrss via thp_helper maxrss"
fi
bench_peak_kb() {
	if [ "$BENCH_PEAK_HOW" = "GNU time %M" ]; then
		/usr/bin/time -f %M -o "$TMP/peak.rss" "$@" >/dev/null 2>&1
		tail -n1 "$TMP/peak.rss"
	else
		build/tests/thp_helper maxrss "$@" | awk '{print $2}'
	fi
}

# bench_load: the host's load averages now (1, 5, 15 min; /proc/loadavg), for the figures' context.
bench_load() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"; }

# ---- records: every figure a bench takes goes through bench_record --------------------------

# bench_mark: the load average and time now become the "before" of the records that follow (the
# sourcing of this file sets it once; a bench that takes several figures calls it before each).
bench_mark() {
	BENCH_LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
	BENCH_T0=$(date +%s)
}
bench_mark

# bench_record NAME VALUE UNIT [KEY=VALUE]...: one figure as one JSON record, written to
# $BENCH_RESULTS/NAME/DATE.json (default bench/results, committed; scripts/bench-table makes the
# table of the newest record of each NAME), and one line "RECORD NAME: VALUE UNIT ..." on stdout.
# NAME is [a-z0-9-]+; VALUE a number, or '-' when the bench could not take it (then say why in
# note=). KEYs:
#   title=TEXT        what the figure is (the table's first column)
#   floor=TEXT        what it is compared with: the floor (the least the work costs) or a peer
#   floor_kind=floor|peer   (default floor)
#   floor_value=N     that one's figure in the same run, same UNIT; ratio = VALUE / floor_value
#   ratio=N           a ratio given directly (when the floor is not one number)
#   goal=TEXT         the target, e.g. '<= 40 ms' (the value) or '<= 1.1x' (the ratio): met is
#                     worked out from it; met=yes|no|unknown when the goal is not one comparison
#   note=TEXT         anything the figure needs to be read right (why a goal cannot be met here)
#   detail=@FILE      a JSON document kept with the record (a breakdown)
# The record also holds the commit (and whether the tree had uncommitted changes), kernel, CPUs
# and their model, memory, the load average at bench_mark and now, uptime, and the date.
bench_record() {
	local name=$1 value=$2 unit=$3 dir=${BENCH_RESULTS:-bench/results}
	shift 3
	[[ $name =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "bench_record: bad name '$name'" >&2; return 1; }
	local commit dirty=false
	commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
	[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && dirty=true
	mkdir -p "$dir/$name" || return 1
	python3 - "$dir/$name" "$name" "$value" "$unit" "$commit" "$dirty" "$BENCH_LOAD0" \
		"$BENCH_T0" "$0" "$@" <<'PY'
import json, os, re, sys, time
d, name, value, unit, commit, dirty, load0, t0, script, *kv = sys.argv[1:]
def num(s):
    try:
        x = float(s)
    except ValueError:
        return None
    return int(x) if x.is_integer() and "." not in s and "e" not in s.lower() else x
opts = {}
for a in kv:
    k, _, v = a.partition("=")
    if k not in ("title", "floor", "floor_kind", "floor_value", "ratio", "goal", "met", "note",
                 "detail"):
        sys.exit(f"bench_record: unknown key {k}")
    opts[k] = v
val = None if value == "-" else num(value)
if value != "-" and val is None:
    sys.exit(f"bench_record: {name}: value '{value}' is not a number")
fv = num(opts["floor_value"]) if opts.get("floor_value", "-") != "-" else None
ratio = num(opts["ratio"]) if opts.get("ratio", "-") != "-" else None
if ratio is None and fv and val is not None:
    ratio = round(val / fv, 4)
up = float(open("/proc/uptime").read().split()[0])
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
              if l.startswith("model name")), None)
mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:")), None)
now = time.time()
rec = {
    "schema": "thpctl.bench/1",
    "name": name,
    "title": opts.get("title", name),
    "bench": "bench/" + os.path.basename(script),
    "value": val,
    "unit": unit,
    "floor": None if "floor" not in opts else {
        "what": opts["floor"], "kind": opts.get("floor_kind", "floor"), "value": fv},
    "ratio": ratio,
    "goal": opts.get("goal"),
    "met": {"yes": True, "no": False}.get(opts.get("met", "auto")),
    "note": opts.get("note"),
    "commit": commit,
    "dirty": dirty == "true",
    "kernel": os.uname().release,
    "cpus": os.cpu_count(),
    "cpu_model": model,
    "mem_kb": mem,
    "load_before": [float(x) for x in load0.split()],
    "load_after": [float(x) for x in open("/proc/loadavg").read().split()[:3]],
    "seconds": round(now - float(t0)),
    "uptime_s": round(up),
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
}
g = re.fullmatch(r"(<=|<|>=|>)\s*([0-9.]+)\s*(x|\S+)?", rec["goal"] or "")
if opts.get("met", "auto") == "auto" and g:  # '<= 40 ms' against the value, '<= 1.1x' the ratio
    x = ratio if g.group(3) == "x" else val if g.group(3) in (None, unit) else None
    if x is not None:
        lim = float(g.group(2))
        rec["met"] = {"<=": x <= lim, "<": x < lim, ">=": x >= lim, ">": x > lim}[g.group(1)]
if opts.get("detail"):
    rec["detail"] = json.load(open(opts["detail"].removeprefix("@")))
path = os.path.join(d, time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now)) + ".json")
n = 1
while os.path.exists(path):  # two records of one name in a second
    n += 1
    path = os.path.join(d, time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now)) + f"-{n}.json")
with open(path + ".tmp", "w") as f:
    json.dump(rec, f, indent=1)
    f.write("\n")
os.rename(path + ".tmp", path)
extra = ""
if rec["floor"]:
    extra += f" vs {rec['floor']['what']}" + (f" {fv} {unit}" if fv is not None else "")
if ratio is not None:
    extra += f", ratio {ratio:.2f}x"
if rec["goal"]:
    extra += f" (goal {rec['goal']}: " + {True: "met", False: "NOT met", None: "inconclusive"}[rec["met"]] + ")"
print(f"RECORD {name}: {value} {unit}{extra}; load {load0} -> "
      f"{' '.join(open('/proc/loadavg').read().split()[:3])}, up {up / 60:.0f} min -> {path}")
PY
}
