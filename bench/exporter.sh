#!/usr/bin/env bash
# Benchmark `thpctl exporter`: CPU time per scrape with the default collection,
# against node_exporter (Debian's prometheus-node-exporter) serving the same host's
# THP facts (the meminfo collector, and vmstat with only its thp_* and compact_*
# fields) side by side, on loopback, with ~300 processes running. Each is scraped
# two ways: a fresh connection per scrape (curl, as Prometheus does after a
# connection is closed) and back to back on one keep-alive connection (wrk -c1).
# Also: host-wide only (--top-processes 0 --top-cgroups 0, recorded: both exporters run at
# once and are scraped in turn, ROUNDS rounds of BLOCK fresh scrapes each, so the guest's drift
# falls on both alike; the ratio is the median of the rounds' with its 95% interval, and the goal
# met, not met or inconclusive by that interval), processes only, cgroups
# only (where the default's CPU goes, said against the peer), --process-flags, `cat` of the files a scrape reads, and
# the exporter's RSS. Targets: less CPU per scrape than node_exporter's THP-only
# scrape; RSS <= 8 MiB. It prints figures and records them (bench/lib.sh:
# bench_record), never pass/fail exit codes for timing (ARCHITECTURE.md: bench/).
#
# As root it runs in a private PID namespace (unshare --pid --mount-proc) so that
# the process count is what the bench starts (300 `sleep`s and one thp_helper with
# 64 MiB of THP), not whatever else runs on the host; both exporters' view of /proc
# is then that namespace's. BENCH_NS=0 runs in the host's namespace instead. The
# node_exporter it starts listens on 127.0.0.1 only and is stopped by its PID.
#
#   SCRAPES=N    fresh-connection scrapes measured (default 400); wrk runs SECONDS
#   SECONDS_KA=N seconds of keep-alive scrapes (default 5)
#   NPROCS=N     sleeping helper processes (default 300)
#   ROUNDS=N BLOCK=N  the paired host-wide comparison: rounds (default 30), fresh scrapes of
#                each exporter a round (default 20)
#   WARMUP=N     scrapes of each exporter before it is measured (default 20)
#   CAT_RUNS=N   runs of `cat` of the files a scrape reads (hyperfine; default 100)
#   THPCTL=path  binary to measure (default build/thpctl)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
H=build/tests/thp_helper
SCRAPES=${SCRAPES:-400}
SECONDS_KA=${SECONDS_KA:-5}
NPROCS=${NPROCS:-300}
ROUNDS=${ROUNDS:-30}
BLOCK=${BLOCK:-20}
WARMUP=${WARMUP:-20}
CAT_RUNS=${CAT_RUNS:-100}
RSS_TARGET_KB=8192
NE=${NODE_EXPORTER:-$(command -v prometheus-node-exporter || command -v node_exporter)}

bench_need "$T" "$H"
bench_need_cmd curl wrk hyperfine python3

if [ "${BENCH_INNER:-0}" != 1 ] && [ "${BENCH_NS:-1}" = 1 ] && [ "$(id -u)" -eq 0 ] &&
	unshare --pid --fork --mount-proc true 2>/dev/null; then
	BENCH_INNER=1 NSNOTE="a private PID namespace" exec unshare --pid --fork --mount-proc "$0" "$@"
fi
NSNOTE=${NSNOTE:-"the host's PID namespace (other processes included)"}

bench_init bench-exp

for ((i = 0; i < NPROCS; i++)); do
	sleep 3600 &
	PIDS+=($!)
done
bench_start "$TMP/hp.out" 100 "$H" hugepage 64
nproc_now=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)

# cpu_ns PID: CPU time of all its threads, ns (schedstat: first field)
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'; }

# start_thpctl ARGS: the exporter with ARGS on a free port; sets EP, URL. exp.err is emptied
# here, before the start: else the loop below could read the previous exporter's port (the
# background shell truncates the file only when it gets to run) and measure a closed port
start_thpctl() {
	: >"$TMP/exp.err"
	"$T" exporter --listen 127.0.0.1:0 --cache-ms 0 "$@" 2>"$TMP/exp.err" &
	EP=$!
	PIDS+=("$EP")
	local port=
	for ((i = 0; i < 100; i++)); do
		port=$(sed -nE 's|.*127\.0\.0\.1:([0-9]+)/metrics.*|\1|p' "$TMP/exp.err")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "bench: exporter did not start: $(cat "$TMP/exp.err")" >&2; exit 1; }
	URL=http://127.0.0.1:$port/metrics
}

# start_node: node_exporter with the THP collectors only, on a free loopback port; sets EP, URL
start_node() {
	local port
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$NE" --web.listen-address="127.0.0.1:$port" --web.disable-exporter-metrics \
		--collector.disable-defaults --collector.meminfo --collector.vmstat \
		--collector.vmstat.fields='^(thp_|compact_).*' >"$TMP/ne.log" 2>&1 &
	EP=$!
	PIDS+=("$EP")
	URL=http://127.0.0.1:$port/metrics
	for ((i = 0; i < 100; i++)); do
		curl -sf -o /dev/null "$URL" && return 0
		kill -0 "$EP" 2>/dev/null || break
		sleep 0.05
	done
	echo "bench: node_exporter did not start: $(tail -n 3 "$TMP/ne.log")" >&2
	return 1
}

# measure: CPU per scrape of EP at URL, warmed by WARMUP scrapes first: a fresh connection per
# scrape (curl, SCRAPES times), then SECONDS_KA s of back-to-back scrapes on one keep-alive
# connection (wrk -t1 -c1). Prints "fresh_ms keepalive_ms keepalive_scrapes rss_kb hwm_kb";
# stops EP.
measure() {
	local c0 c1 n fresh ka rss hwm
	for ((i = 0; i < WARMUP; i++)); do curl -s -o /dev/null "$URL"; done
	c0=$(cpu_ns "$EP")
	for ((i = 0; i < SCRAPES; i++)); do curl -s -o /dev/null "$URL"; done
	c1=$(cpu_ns "$EP")
	fresh=$(awk -v a="$c0" -v b="$c1" -v n="$SCRAPES" 'BEGIN {printf "%.3f", (b - a) / n / 1e6}')
	c0=$(cpu_ns "$EP")
	wrk -t1 -c1 -d"${SECONDS_KA}s" "$URL" >"$TMP/wrk.out" 2>&1
	c1=$(cpu_ns "$EP")
	n=$(awk '/requests in/ {print $1}' "$TMP/wrk.out")
	# wrk printed no count (it failed, or the line changed): CPU per scrape is unknown
	if [[ $n =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ]; then
		ka=$(awk -v a="$c0" -v b="$c1" -v n="$n" 'BEGIN {printf "%.3f", (b - a) / n / 1e6}')
	else
		echo "bench/exporter.sh: wrk reported no request count: $(tail -n 3 "$TMP/wrk.out")" >&2
		ka=- n=0
	fi
	curl -s "$URL" >"$TMP/last.prom"
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$EP/status")
	hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$EP/status")
	kill -TERM "$EP"
	wait "$EP" 2>/dev/null
	echo "$fresh $ka $n $rss $hwm"
}

# paired_host: thpctl's host-wide scrape (--top-processes 0 --top-cgroups 0) against
# node_exporter's, both running, scraped in turn: ROUNDS rounds of BLOCK fresh scrapes of each
# (ABBA order: a round that starts with one ends with the other first next time), the CPU of
# each block from schedstat. Prints "thp_ms ne_ms ratio lo hi rounds" (medians of the rounds;
# lo-hi the 95% interval of the ratio), or nothing when a side did not run; stops both.
paired_host() {
	local ep1 url1 ep2 url2 a b c0 c1 r out="$TMP/paired.host"
	start_thpctl --top-processes 0 --top-cgroups 0
	ep1=$EP url1=$URL
	start_node || { kill -TERM "$ep1" "$EP" 2>/dev/null; return 1; }
	ep2=$EP url2=$URL
	for ((i = 0; i < WARMUP; i++)); do curl -s -o /dev/null "$url1"; curl -s -o /dev/null "$url2"; done
	: >"$out"
	# block EP URL: CPU ms per scrape over BLOCK fresh scrapes
	block() {
		c0=$(cpu_ns "$1")
		for ((i = 0; i < BLOCK; i++)); do curl -s -o /dev/null "$2"; done
		c1=$(cpu_ns "$1")
		awk -v a="$c0" -v b="$c1" -v n="$BLOCK" 'BEGIN {printf "%.4f", (b - a) / n / 1e6}'
	}
	for ((r = 0; r < ROUNDS; r++)); do
		if ((r % 2 == 0)); then
			a=$(block "$ep1" "$url1")
			b=$(block "$ep2" "$url2")
		else
			b=$(block "$ep2" "$url2")
			a=$(block "$ep1" "$url1")
		fi
		echo "$a $b" >>"$out"
	done
	kill -TERM "$ep1" "$ep2"
	wait "$ep1" "$ep2" 2>/dev/null
	python3 - "$out" <<'PY'
import sys
sys.path.insert(0, "bench")
from paired import interval, median
pairs = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
pairs = [(a, b) for a, b in pairs if a > 0 and b > 0]
if pairs:
    r = [a / b for a, b in pairs]
    lo, hi = interval(r)
    print("%.3f %.3f %.3f %s %s %d" % (median([a for a, _ in pairs]), median([b for _, b in pairs]),
          median(r), "-" if lo is None else "%.3f" % lo, "-" if hi is None else "%.3f" % hi,
          len(pairs)))
PY
}

bench_mark
start_thpctl
read -r fresh ka kan rss hwm < <(measure)
dur=$(awk '$1 == "thpctl_scrape_duration_seconds" {printf "%.3f", $2 * 1000}' "$TMP/last.prom")
cand=$(awk '$1 == "thpctl_processes_candidates" {print $2}' "$TMP/last.prom")
seen=$(awk '$1 == "thpctl_processes_seen" {print $2}' "$TMP/last.prom")
nlines=$(grep -vc '^#' "$TMP/last.prom")
start_thpctl --top-processes 0 --top-cgroups 0
read -r fresh0 ka0 _ _ _ < <(measure)
start_thpctl --top-cgroups 0
read -r freshp kap _ _ _ < <(measure)
start_thpctl --top-processes 0
read -r freshc kac _ _ _ < <(measure)
start_thpctl --process-flags
read -r freshf kaf _ rssf _ < <(measure)

nfresh=- nka=- nkan=0 nlines_ne=-
NE_WHY=
if [ -z "$NE" ]; then
	NE_WHY="node_exporter not installed (scripts/install-deps --bench: prometheus-node-exporter)"
elif start_node; then
	read -r nfresh nka nkan _ _ < <(measure)
	nlines_ne=$(grep -vc '^#' "$TMP/last.prom")
else
	NE_WHY="node_exporter did not start (see above)"
fi
# the recorded host-wide comparison: both at once, in turn (paired_host)
ph_thp=- ph_ne=- ph_r=- ph_lo=- ph_hi=- ph_n=0
if [ -z "$NE_WHY" ]; then
	# in this shell, not a process substitution: the exporters it starts go into PIDS, which
	# the exit trap stops (an interrupted subshell would leave them running)
	paired_host >"$TMP/paired.res" || :
	read -r ph_thp ph_ne ph_r ph_lo ph_hi ph_n <"$TMP/paired.res" || :
	[ -n "$ph_thp" ] || { ph_thp=- ph_ne=- ph_r=- ph_lo=- ph_hi=- ph_n=0; }
fi

# the files one default scrape reads, for cat
HP=$(awk '{print $2}' "$TMP/hp.out")
{
	echo /proc/vmstat /proc/meminfo /proc/buddyinfo
	find /sys/kernel/mm/transparent_hugepage /sys/kernel/mm/hugepages \
		/sys/devices/system/node/node*/hugepages -type f 2>/dev/null
	pgrep -x khugepaged | sed 's|.*|/proc/&/stat|'
	ls -d /proc/[0-9]*/statm
	[ -n "$HP" ] && echo "/proc/$HP/status /proc/$HP/smaps_rollup"
} | tr ' ' '\n' | grep -v '^$' >"$TMP/files"
nfiles=$(wc -l <"$TMP/files")
: >"$TMP/empty"
# -i: a statm of a process that just exited makes cat fail; -N: no shell in between
hyperfine -N -i --warmup 5 --runs "$CAT_RUNS" --export-json "$TMP/cat.json" \
	"xargs -a $TMP/files cat" "xargs -a $TMP/empty cat" >/dev/null 2>&1
catcpu=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
cpu = [(x["user"] + x["system"]) * 1000 for x in r]
print("%.3f %.3f %.3f" % (cpu[0], r[0]["mean"] * 1000, cpu[1]))' "$TMP/cat.json" 2>/dev/null)
read -r catms catwall catstart <<<"${catcpu:-- - -}"

echo "thpctl exporter bench: $nproc_now processes in $NSNOTE ($NPROCS sleep, 1 thp_helper with 64 MiB THP), $T"
if [ -n "$NE" ]; then
	echo "  node_exporter: $NE ($("$NE" --version 2>&1 | head -n1)), collectors meminfo + vmstat (thp_*, compact_*)"
else
	echo "  node_exporter: none"
fi
echo "  at the end: $(bench_load)"
printf '  %-58s %8s ms   (%s scrapes, each a new connection)\n' "CPU per scrape, default, fresh connection" "$fresh" "$SCRAPES"
printf '  %-58s %8s ms   (%s scrapes in %s s on one connection)\n' "CPU per scrape, default, keep-alive (wrk -c1)" "$ka" "$kan" "$SECONDS_KA"
printf '  %-58s %8s ms   (wall; %s seen, %s smaps_rollup read; %s samples)\n' \
	"  collection of the last scrape (scrape_duration_seconds)" "$dur" "$seen" "$cand" "$nlines"
printf '  %-58s %8s ms   (keep-alive %s ms)\n' "CPU per scrape, host-wide only (no process, no cgroup), fresh" "$fresh0" "$ka0"
echo "    (--top-processes 0 --top-cgroups 0: node_exporter's THP facts and the per-size (mTHP),"
echo "    khugepaged, hugetlb and buddyinfo ones; no per-process or per-cgroup reads)"
printf '  %-58s %8s ms   (keep-alive %s ms)\n' "CPU per scrape, processes, no cgroup (--top-cgroups 0), fresh" "$freshp" "$kap"
printf '  %-58s %8s ms   (keep-alive %s ms)\n' "CPU per scrape, cgroups, no process (--top-processes 0), fresh" "$freshc" "$kac"
printf '  %-58s %8s ms   (keep-alive %s ms)\n' "CPU per scrape, --process-flags (full smaps), fresh" "$freshf" "$kaf"
if [ -z "$NE_WHY" ]; then
	printf '  %-58s %8s ms   (keep-alive %s ms, %s scrapes; %s samples)\n' \
		"node_exporter THP-only scrape, fresh connection" "$nfresh" "$nka" "$nkan" "$nlines_ne"
else
	echo "  node_exporter: not measured: $NE_WHY"
fi
if [ "$ph_n" -gt 0 ]; then
	printf '  %-58s %8s ms   (node_exporter %s ms; ratio %sx, 95%% interval %s-%sx,\n' \
		"host-wide only vs node_exporter, in turn, fresh" "$ph_thp" "$ph_ne" "$ph_r" "$ph_lo" "$ph_hi"
	echo "    the median of $ph_n rounds of $BLOCK scrapes each, both exporters running)"
fi
# where the default scrape's CPU goes, against the peer: the host-wide part, and what the
# per-process (statm of every process, smaps_rollup of the candidates) and per-cgroup parts
# add to it (each measured alone above); node_exporter reads neither
if [ -z "$NE_WHY" ]; then
	awk -v d="$fresh" -v h="$fresh0" -v p="$freshp" -v c="$freshc" -v ne="$nfresh" -v n="$nproc_now" \
		-v pr="$ph_r" -v lo="$ph_lo" -v hi="$ph_hi" 'BEGIN {
		if (d <= ne) { print "  default scrape below node_exporter'"'"'s: goal met"; exit }
		printf "  why the default scrape is above node_exporter'"'"'s (%.3f ms): its host-wide part is %.3f ms", ne, h
		if (pr != "-") {
			call = "neither below nor above decided: its 95% interval holds 1x"
			if (lo == "-" || hi == "-") call = "no interval"
			else if (hi + 0 < 1) call = "below it"
			else if (lo + 0 >= 1) call = "above it"
			printf " (in turn with node_exporter: %sx, %s);\n", pr, call
		}
		else printf " (%.2fx);\n", h / ne
		printf "    the processes add %.3f ms (statm of each of %d processes, ~%.1f us each, and the candidates'"'"'\n", p - h, n, (p - h) * 1000 / n
		printf "    smaps_rollup), the cgroups %.3f ms: per-process and per-cgroup facts node_exporter does not export\n", c - h
	}'
fi
printf '  %-58s %8s ms   (user+sys of xargs + cat of %s files; wall %s ms)\n' \
	"cat of the same files" "$catms" "$nfiles" "$catwall"
printf '  %-58s %8s ms   (xargs + cat of no file: process start-up)\n' "  of which starting xargs and cat" "$catstart"
printf '  %-58s %8s kB   (target <= %s kB; peak VmHWM %s kB; --process-flags %s kB)\n' \
	"exporter VmRSS after the scrapes" "$rss" "$RSS_TARGET_KB" "$hwm" "$rssf"

what="$nproc_now processes in $NSNOTE"
peer=(floor="node_exporter, THP collectors only" floor_kind=peer goal="< 1x")
[ -n "$NE_WHY" ] && peer+=(note="no peer: $NE_WHY")
bench_record exporter-cpu-fresh "$fresh" ms title="exporter CPU per scrape, a new connection each, $what" \
	floor_value="$nfresh" "${peer[@]}"
bench_record exporter-cpu-keepalive "$ka" ms \
	title="exporter CPU per scrape, back to back on one keep-alive connection, $what" \
	floor_value="$nka" "${peer[@]}"
# the host-wide row: the paired rounds' medians, met or not by the interval (inconclusive when
# it straddles 1x); without the peer, the sequential figure and no ratio
if [ "$ph_n" -gt 0 ]; then
	ph_met=$(awk -v lo="$ph_lo" -v hi="$ph_hi" 'BEGIN {
		if (lo == "-" || hi == "-") print "unknown"; else if (hi + 0 < 1) print "yes";
		else if (lo + 0 >= 1) print "no"; else print "unknown" }')
	bench_record exporter-cpu-host-fresh "$ph_thp" ms \
		title="exporter CPU per scrape, host-wide metrics only (--top-processes 0 --top-cgroups 0), a new connection each, $what" \
		floor_value="$ph_ne" ratio="$ph_r" met="$ph_met" \
		note="ratio: the median of $ph_n rounds' ratios, $BLOCK scrapes of each exporter a round, both running, in turn; 95% interval ${ph_lo}-${ph_hi}x" \
		"${peer[@]}"
else
	bench_record exporter-cpu-host-fresh "$fresh0" ms \
		title="exporter CPU per scrape, host-wide metrics only (--top-processes 0 --top-cgroups 0), a new connection each, $what" \
		floor_value="$nfresh" "${peer[@]}"
fi
bench_record exporter-rss "$rss" kB title="exporter RSS after the scrapes" goal="<= $RSS_TARGET_KB kB"
