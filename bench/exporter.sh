#!/usr/bin/env bash
# Benchmark `thpctl exporter`: CPU time per scrape with the default
# collection, against `cat` of the same files, and the exporter's RSS, with
# ~300 processes running. Targets (issue 4): <= 2 ms CPU per scrape with 300
# processes, RSS <= 8 MiB. It prints figures, never pass/fail exit codes for
# timing (ARCHITECTURE.md: bench/).
#
# As root it runs in a private PID namespace (unshare --pid --mount-proc) so
# that the process count is what the bench starts (300 `sleep`s and one
# thp_helper with 64 MiB of THP), not whatever else runs on the host; the
# exporter's view of /proc is then that namespace's. BENCH_NS=0 runs in the
# host's namespace instead.
#
#   SCRAPES=N    scrapes measured (default 2000)
#   NPROCS=N     sleeping helper processes (default 300)
#   THPCTL=path  binary to measure (default build/thpctl)
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
H=build/tests/thp_helper
SCRAPES=${SCRAPES:-2000}
NPROCS=${NPROCS:-300}
CPU_TARGET_MS=2
RSS_TARGET_KB=8192

bench_need "$T" "$H"
bench_need_cmd curl hyperfine

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

# start the exporter with ARGS on a free port; sets EP, EPORT
start() {
	"$T" exporter --listen 127.0.0.1:0 --cache-ms 0 "$@" 2>"$TMP/exp.err" &
	EP=$!
	PIDS+=("$EP")
	EPORT=
	for ((i = 0; i < 100; i++)); do
		EPORT=$(sed -nE 's|.*127\.0\.0\.1:([0-9]+)/metrics.*|\1|p' "$TMP/exp.err")
		[ -n "$EPORT" ] && break
		sleep 0.05
	done
	[ -n "$EPORT" ] || { echo "bench: exporter did not start: $(cat "$TMP/exp.err")" >&2; exit 1; }
}

# measure LABEL ARGS...: CPU per scrape over SCRAPES scrapes (one connection,
# scrapes back to back); prints "cpu_ms duration_ms rss_kb hwm_kb candidates"
measure() {
	start "$@"
	local url="http://127.0.0.1:$EPORT/metrics"
	for ((i = 0; i < 20; i++)); do curl -s -o /dev/null "$url"; done # warm: fd cache, allocator
	local c0 c1 n
	c0=$(cpu_ns "$EP")
	if command -v wrk >/dev/null; then
		# wrk -c1 keeps one keep-alive connection; count what it did
		wrk -t1 -c1 -d"$((SCRAPES / 400 + 2))s" "$url" >"$TMP/wrk.out" 2>&1
		n=$(awk '/requests in/ {print $1}' "$TMP/wrk.out")
		# wrk printed no count (it failed, or the line changed): CPU per scrape is unknown
		[[ $n =~ ^[0-9]+$ ]] || { echo "bench/exporter.sh: wrk reported no request count:" >&2; tail -3 "$TMP/wrk.out" >&2; n=0; }
	else
		n=$SCRAPES
		for ((i = 0; i < n; i++)); do curl -s -o /dev/null "$url"; done
	fi
	c1=$(cpu_ns "$EP")
	curl -s "$url" >"$TMP/last.prom"
	local dur cand rss hwm
	dur=$(awk '$1 == "thpctl_scrape_duration_seconds" {printf "%.3f", $2 * 1000}' "$TMP/last.prom")
	cand=$(awk '$1 == "thpctl_processes_candidates" {print $2}' "$TMP/last.prom")
	seen=$(awk '$1 == "thpctl_processes_seen" {print $2}' "$TMP/last.prom")
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$EP/status")
	hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$EP/status")
	kill -TERM "$EP"
	wait "$EP" 2>/dev/null
	awk -v c0="$c0" -v c1="$c1" -v n="$n" -v d="$dur" -v r="$rss" -v h="$hwm" -v c="${cand:-0}" \
		-v s="${seen:-0}" 'BEGIN {if (n > 0) printf "%.3f", (c1 - c0) / n / 1e6; else printf "-"; printf " %s %s %s %s %s %d\n", d, r, h, c, s, n}'
}

read -r cpu dur rss hwm cand seen n < <(measure)
read -r cpu0 dur0 _ _ _ _ n0 < <(measure --top-processes 0)
read -r cpuf durf rssf _ candf _ nf < <(measure --process-flags)

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
hyperfine -N -i --warmup 5 --runs 100 --export-json "$TMP/cat.json" \
	"xargs -a $TMP/files cat" "xargs -a $TMP/empty cat" >/dev/null 2>&1
catcpu=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
cpu = [(x["user"] + x["system"]) * 1000 for x in r]
print("%.3f %.3f %.3f" % (cpu[0], r[0]["mean"] * 1000, cpu[1]))' "$TMP/cat.json" 2>/dev/null)
read -r catms catwall catstart <<<"${catcpu:-- - -}"

echo "thpctl exporter bench: $nproc_now processes in $NSNOTE ($NPROCS sleep, 1 thp_helper with 64 MiB THP), $T"
echo "  at the end: $(bench_load)"
printf '  %-58s %8s ms   (target <= %s ms; %s scrapes)\n' \
	"CPU per scrape, default (statm + status/smaps_rollup)" "$cpu" "$CPU_TARGET_MS" "$n"
printf '  %-58s %8s ms   (wall; %s seen, %s smaps_rollup read)\n' \
	"  collection of the last scrape (scrape_duration_seconds)" "$dur" "$seen" "$cand"
printf '  %-58s %8s ms   (%s scrapes)\n' "CPU per scrape, --top-processes 0 (no process scan)" "$cpu0" "$n0"
printf '  %-58s %8s ms   (%s scrapes; %s smaps walked)\n' "CPU per scrape, --process-flags (full smaps)" "$cpuf" "$nf" "$candf"
printf '  %-58s %8s ms   (user+sys of xargs + cat of %s files; wall %s ms)\n' \
	"cat of the same files" "$catms" "$nfiles" "$catwall"
printf '  %-58s %8s ms   (xargs + cat of no file: process start-up)\n' "  of which starting xargs and cat" "$catstart"
printf '  %-58s %8s kB   (target <= %s kB; peak VmHWM %s kB; --process-flags %s kB)\n' \
	"exporter VmRSS after the scrapes" "$rss" "$RSS_TARGET_KB" "$hwm" "$rssf"
awk -v a="$cpu" -v b="$catms" 'BEGIN { if (b > 0 && a != "-") printf "  ratio exporter/cat (CPU per scrape)                        %8.2f\n", a / b }'
