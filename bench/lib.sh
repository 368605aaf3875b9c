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

# bench_load: the host's load averages now (1, 5, 15 min; /proc/loadavg), for the figures' context.
bench_load() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"; }
