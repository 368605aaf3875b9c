# shellcheck shell=bash
# shellcheck disable=SC2034 # T, THP, ROOT, ...: for the suites that source this
# tests/lib.sh: the shared harness of the shell test suites (tests/golden.sh,
# tests/run-unit, tests/live/*.sh). A suite starts with
#
#   source "$(dirname "$0")/../lib.sh"    (from tests/: "$(dirname "$0")/lib.sh")
#   suite_init NAME
#
# and ends with `summary`. Sourcing sets `set -uo pipefail`, changes to the
# repository root and sets T (the thpctl under test: $THPCTL or
# build/asan/thpctl), THP (the sysfs THP directory), JOURNAL (thpctl's undo
# journal), NOBODY (a command prefix: "${NOBODY[@]}" CMD runs CMD as nobody)
# and ROOT (1 when running as root). It exports default ASAN_OPTIONS and
# UBSAN_OPTIONS (a suite may export its own first; replay_env: the offline
# suites' environment) and unsets NO_COLOR and THPCTL_JOURNAL_DIR. It exports
# THPCTL_WIDE=1 (human output not wrapped to 80 columns on a pipe, so goldens and
# greps see whole lines; tests/columns.sh unsets it to test the wrapping).
#
# Results, one line each (run-all sums the summary lines):
#   ok NAME | nok NAME DETAIL | skip NAME REASON
#       print "ok - NAME", "not ok - NAME: DETAIL", "skip - NAME: REASON"
#   relay_results LABEL      count those lines read from stdin (a checker's
#                            output); any other line fails LABEL ("#" lines pass through)
#   summary                  run the at_summary hooks, print
#                            "NAME: N passed, M failed, K skipped", exit 1 if M > 0
# Expectations, each one check (ok or nok), returning 0 when it passed:
#   expect_cmd NAME DETAIL CMD...     CMD exits 0
#   expect_eval NAME COND [DETAIL]    the shell condition string COND (eval'ed) holds
#   expect_zero NAME STATUS DETAIL    STATUS, a status the caller computed, is 0
#   expect_rc NAME WANT               RC (set by t/t_nobody) is WANT
#   expect_json NAME FILE PYEXPR [PYDETAIL]
#                                     the Python expression holds on FILE's JSON
#   expect_settings_as_found NAME BASELINE
#                                     host settings equal BASELINE, no journal left
#   expect_sanitizers_quiet NAME      no sanitizer report noted (san_note/san_scan)
# Running things:
#   need_built FILE... / need_python3   preflight: end the suite if missing
#   t ARGS / t_nobody ARGS   thpctl (as nobody): $TMP/out, $TMP/err, RC; errtail
#   san_note LABEL FILE / san_scan FILE...   remember sanitizer reports
#   as_nobody CMD...         CMD as nobody, in the foreground
#   start_helper VAR CMD...  start a helper that prints "ready PID [CHILD]"
#   track_pid PID            stop PID at exit;  stop_pid PID: now (STOP_RC)
#   descendants PID          PID's children, theirs, ... (ours to end, never by name)
#   "${DFL[@]}" CMD...       CMD with every signal at its default action: a test
#                            that sends a signal starts its target this way, so
#                            an inherited SIG_IGN (nohup: HUP; a background job
#                            of a non-interactive shell: INT, QUIT) changes nothing
#   wait_for SECONDS CMD...  poll CMD;  wait_for_line FILE ERE [PID] [SECONDS]
#   at_exit CMD / at_summary CMD      register cleanups / last checks
# Host settings: settings_snapshot FILE, settings_diff FILE,
#   settings_put_back FILE, thp_knobs, sysfs_choice FILE, wait_quiet.
#
# At exit (any exit, or INT/TERM/HUP): tracked processes are stopped (SIGTERM,
# 2 s, SIGKILL), then the at_exit commands run in the order registered, then
# $TMP is removed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

T=${THPCTL:-build/asan/thpctl}
THP=/sys/kernel/mm/transparent_hugepage
JOURNAL=/run/thpctl/journal
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
ROOT=0
[ "$(id -u)" -eq 0 ] && ROOT=1
LIB_ASAN_GIVEN=${ASAN_OPTIONS-} LIB_UBSAN_GIVEN=${UBSAN_OPTIONS-}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
unset NO_COLOR THPCTL_JOURNAL_DIR
export THPCTL_WIDE=1

SUITE=${SUITE:-test} PASS=0 FAIL=0 SKIP=0 TMP=
SAN=() LIB_PIDS=() LIB_AT_EXIT=() LIB_AT_SUMMARY=()

# suite_init NAME: the name of the summary line, $TMP (mode 755: nobody
# reads it), the exit traps
# python3_is_debians DIR: `python3` is the one scripts/install-deps installs (/usr/bin/python3,
# with Debian's jsonschema and numpy), not one earlier on PATH: a pyenv shim is a bash script
# that costs ~200 ms a start, and the suites start python3 hundreds of times. DIR (made, 755)
# holds the link and goes first on PATH
python3_is_debians() {
	[ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ] || return 0
	mkdir -p "$1" && chmod 755 "$1" && ln -sf /usr/bin/python3 "$1/python3" && export PATH="$1:$PATH"
}

suite_init() {
	SUITE=$1
	TMP=$(mktemp -d "/tmp/thpctl-$SUITE.XXXXXX") || exit 1
	chmod 755 "$TMP"
	python3_is_debians "$TMP/.bin"
	trap lib_exit EXIT
	trap 'exit 130' INT TERM HUP
}

# replay_env: the deterministic environment of the suites that replay recorded
# trees (golden, damaged): C locale, UTC, no terminal size, and sanitizer
# reports that exit 86 (ASan) or 87 (UBSan) unless the caller exported options
replay_env() {
	export LC_ALL=C TZ=UTC
	unset COLUMNS LINES
	export ASAN_OPTIONS=${LIB_ASAN_GIVEN:-detect_leaks=1:exitcode=86}
	export UBSAN_OPTIONS=${LIB_UBSAN_GIVEN:-print_stacktrace=1:halt_on_error=1:exitcode=87}
}

# need_built FILE...: every FILE (the thpctl under test, its helpers) is
# executable, else one "preflight" failure naming the make targets and the
# suite ends; need_python3: the same for python3 (it reads the JSON)
need_built() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || { nok "preflight" "$f missing: run 'make $*'"; summary; }
	done
}
need_python3() {
	command -v python3 >/dev/null || { nok "preflight" "python3 is needed to read the JSON"; summary; }
}

# ---- results ----------------------------------------------------------------
ok() {
	echo "ok - $1"
	PASS=$((PASS + 1))
}
nok() {
	echo "not ok - $1: $2"
	FAIL=$((FAIL + 1))
}
skip() {
	echo "skip - $1: $2"
	SKIP=$((SKIP + 1))
}
relay_results() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "* | "skip - "*)
			echo "$line"
			case $line in not*) FAIL=$((FAIL + 1)) ;; *) SKIP=$((SKIP + 1)) ;; esac
			;;
		"#"*) echo "$line" ;;
		*) nok "$1" "unexpected output: $line" ;;
		esac
	done
}
at_summary() { LIB_AT_SUMMARY+=("$1"); }
summary() {
	local c hooks=("${LIB_AT_SUMMARY[@]}")
	LIB_AT_SUMMARY=()
	for c in "${hooks[@]}"; do eval "$c"; done
	echo "$SUITE: $PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" -eq 0 ]
	exit
}

# ---- expectations -----------------------------------------------------------
expect_cmd() {
	local name=$1 detail=$2
	shift 2
	if "$@"; then ok "$name"; else nok "$name" "$detail"; fi
}
expect_eval() {
	if eval "$2"; then ok "$1"; else nok "$1" "${3:-$2}"; fi
}
expect_zero() {
	if [ "$2" -eq 0 ]; then ok "$1"; else nok "$1" "$3"; fi
}
errtail() { tr '\n' ' ' <"$TMP/err" | cut -c1-300; }
# expect_out NAME PATTERN...: ok when every grep PATTERN is in $TMP/out; else its first 400 bytes
expect_out() {
	local name=$1 p
	shift
	for p in "$@"; do
		grep -q -- "$p" "$TMP/out" || { nok "$name" "$(head -c 400 "$TMP/out")"; return; }
	done
	ok "$name"
}
expect_rc() {
	if [ "$RC" -eq "$2" ]; then ok "$1"; else nok "$1" "exit $RC, want $2; stderr: $(errtail)"; fi
}
# expect_json: in PYEXPR and PYDETAIL (printed on failure), d is the parsed
# JSON, E the environment, proc(pid) the "processes" row of pid or None,
# vmas the "vmas" list
expect_json() {
	local name=$1 msg
	if msg=$(python3 - "$2" "$3" "${4:-}" 2>&1 <<'PY'
import json, os, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"output is not JSON: {e}")
    sys.exit(1)
E = os.environ
def proc(pid):
    m = [x for x in d.get("processes", []) if x["pid"] == int(pid)]
    return m[0] if m else None
vmas = d.get("vmas", []) if isinstance(d, dict) else []
try:
    good = eval(sys.argv[2])
except Exception as e:
    print(f"{type(e).__name__}: {e}")
    sys.exit(1)
if not good:
    print(eval(sys.argv[3]) if sys.argv[3] else
          "condition false: " + sys.argv[2] + " in " + json.dumps(d)[:300])
    sys.exit(1)
PY
	); then
		ok "$name"
	else
		nok "$name" "$(tr '\n' ' ' <<<"$msg" | cut -c1-400)"
	fi
}

# ---- sanitizers ---------------------------------------------------------------
LIB_SAN_RE='runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer'
# san_note LABEL FILE: remember a sanitizer report in FILE
san_note() {
	if grep -qE "$LIB_SAN_RE" "$2" 2>/dev/null; then
		SAN+=("$1: $(grep -m1 -E 'runtime error|Sanitizer' "$2")")
	fi
	return 0
}
# san_scan FILE...: san_note each file under its own name
san_scan() {
	local f
	for f in "$@"; do san_note "$f" "$f"; done
}
expect_sanitizers_quiet() {
	if [ "${#SAN[@]}" -eq 0 ]; then
		ok "$1"
	else
		nok "$1" "$(printf '%s | ' "${SAN[@]}" | cut -c1-600)"
	fi
}

# ---- running thpctl and helpers ----------------------------------------------
t() {
	"$T" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	san_note "thpctl $*" "$TMP/err"
}
as_nobody() { "${NOBODY[@]}" "$@"; }
t_nobody() {
	"${NOBODY[@]}" "$T" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	san_note "(nobody) thpctl $*" "$TMP/err"
}

track_pid() { LIB_PIDS+=("$@"); }
# env --default-signal: coreutils 9.0+ (Debian 12 has 9.1)
DFL=(env --default-signal)
# descendants PID: the PIDs below PID (children first), one per line
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}
# stop_pid PID [SECONDS]: SIGTERM, up to SECONDS (5) to exit, SIGKILL; its
# exit status in STOP_RC (when it is a child of this shell)
stop_pid() {
	local p=$1 i
	kill -TERM "$p" 2>/dev/null
	for ((i = 0; i < ${2:-5} * 20; i++)); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	# shellcheck disable=SC2034 # for the caller
	STOP_RC=$?
}
# wait_for SECONDS CMD...: run CMD every 0.05 s until it succeeds (return 0)
# or SECONDS have passed (return 1)
wait_for() {
	local i n=$(($1 * 20))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	"$@"
}
# wait_for_line FILE ERE [PID] [SECONDS]: until FILE has a line matching ERE;
# gives up early when PID has exited, after SECONDS (20) at the latest
wait_for_line() {
	local i n=$((${4:-20} * 20))
	for ((i = 0; i < n; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		[ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null && break
		sleep 0.05
	done
	grep -qE "$2" "$1" 2>/dev/null
}
# start_helper VAR CMD...: start CMD (after the prefix array HELPER_PREFIX, if
# set) with its output in $TMP/helper.VAR; wait for its line "ready PID
# [CHILD]"; set VAR=PID (and VAR_CHILD=CHILD); track them. Without a prefix PID
# must be the process started. On failure: a failed check, return 1.
start_helper() {
	local var=$1 out="$TMP/helper.$1" pid word='' hp='' hc=''
	shift
	: >"$out"
	"${HELPER_PREFIX[@]}" "$@" >"$out" 2>&1 &
	pid=$!
	track_pid "$pid"
	wait_for_line "$out" '^ready' "$pid"
	read -r word hp hc < <(grep -m1 '^ready' "$out")
	if [ "${word:-}" != ready ] || { [ "${#HELPER_PREFIX[@]}" -eq 0 ] && [ "$hp" != "$pid" ]; }; then
		nok "helper $* ready" "$(tr '\n' ' ' <"$out" | cut -c1-300)"
		return 1
	fi
	[ "$hp" != "$pid" ] && track_pid "$hp"
	printf -v "$var" '%s' "$hp"
	if [ -n "${hc:-}" ]; then
		printf -v "${var}_CHILD" '%s' "$hc"
		track_pid "$hc"
	fi
	return 0
}
HELPER_PREFIX=()

# ---- exit ---------------------------------------------------------------------
at_exit() { LIB_AT_EXIT+=("$1"); }
# shellcheck disable=SC2317 # runs from the EXIT trap
lib_exit() {
	local p i alive c
	for p in "${LIB_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for ((i = 0; i < 40; i++)); do
		alive=0
		for p in "${LIB_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" -eq 0 ] && break
		sleep 0.05
	done
	for p in "${LIB_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${LIB_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	for c in "${LIB_AT_EXIT[@]}"; do eval "$c"; done
	[ -n "$TMP" ] && rm -rf "$TMP"
}

# ---- host settings --------------------------------------------------------------
# sysfs_choice FILE: the [selected] word of a sysfs choice file
sysfs_choice() { sed -E 's/.*\[(.*)\].*/\1/' "$1"; }
# thp_knobs: every writable THP knob, "key=value" (key relative to $THP)
thp_knobs() {
	local f
	[ -d "$THP" ] || return 0
	find "$THP" -type f -perm -u+w ! -path '*/stats/*' | LC_ALL=C sort | while IFS= read -r f; do
		printf '%s=%s\n' "${f#"$THP"/}" "$(cat "$f" 2>/dev/null)"
	done
}
# settings_snapshot FILE: the host's THP knobs, hugetlb pool sizes and the vm
# sysctls thpctl's experiments touch, "path=value", into FILE
settings_snapshot() {
	local f
	{
		thp_knobs | sed "s|^|$THP/|"
		find /sys/kernel/mm/hugepages -type f -perm -u+w 2>/dev/null | LC_ALL=C sort |
			while IFS= read -r f; do printf '%s=%s\n' "$f" "$(cat "$f" 2>/dev/null)"; done
		for f in compaction_proactiveness extfrag_threshold watermark_scale_factor \
			watermark_boost_factor; do
			[ -r "/proc/sys/vm/$f" ] && printf '%s=%s\n' "/proc/sys/vm/$f" "$(cat "/proc/sys/vm/$f")"
		done
	} >"$1"
}
# settings_diff BASELINE: what differs from BASELINE, on one line ("" if nothing)
settings_diff() {
	local now
	now=$(mktemp)
	settings_snapshot "$now"
	diff "$now" "$1" | grep -E '^[<>]' | tr '\n' ' '
	rm -f "$now"
}
# settings_put_back BASELINE: as root, write back every value that differs
settings_put_back() {
	local line path val word
	[ "$ROOT" -eq 1 ] && [ -f "$1" ] || return 0
	while IFS= read -r line; do
		path=${line%%=*} val=${line#*=}
		[ "$(cat "$path" 2>/dev/null)" = "$val" ] && continue
		word=$(sed -nE 's/.*\[([^]]+)\].*/\1/p' <<<"$val")
		echo "# $SUITE: putting back $path = ${word:-$val}"
		echo "${word:-$val}" >"$path" 2>/dev/null
	done <"$1"
}
# journal_owner_alive: a live thpctl (other than $BG, a run of the suite's own)
# holds the settings lock: a POSIX lock on "lock" beside the journal, listed in
# /proc/locks by inode
journal_owner_alive() {
	local ino
	ino=$(stat -c %i "${JOURNAL%/*}/lock" 2>/dev/null) || return 1
	awk -v i=":$ino" -v bg="${BG:-x}" '$2 == "POSIX" && $5 != bg &&
		substr($6, length($6) - length(i) + 1) == i { f = 1 } END { exit !f }' /proc/locks
}
# wait_quiet: wait (up to 5 minutes) while another thpctl holds the journal:
# its temporary changes must enter no baseline and no check
wait_quiet() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ -e "$JOURNAL" ] && journal_owner_alive || return 0
		[ "$i" -eq 0 ] && echo "# $SUITE: another thpctl holds $JOURNAL: waiting for it"
		sleep 1
	done
	return 1
}
expect_settings_as_found() {
	local d
	if ! wait_quiet; then
		nok "$1" "another thpctl has held $JOURNAL for 5 minutes"
		return 1
	fi
	d=$(settings_diff "$2")
	if [ -n "$d" ]; then
		nok "$1" "changed: $d"
	elif [ -e "$JOURNAL" ]; then
		nok "$1" "journal $JOURNAL left behind"
	else
		ok "$1"
		return 0
	fi
	return 1
}

# lab_suite_begin NAME: the start every suite of host-changing lab runs shares (lab.sh,
# tlb.sh): the binary, python3 and THP present; no other thpctl changing settings; a
# journal left by a killed run restored first so the baseline ($TMP/base) is the real one;
# at exit, a background run ($BG, set by the suite) killed and the settings put back.
# check_settings NAME: the settings equal the baseline and no journal is left, else they
# are put back.
BG=
check_settings() {
	expect_settings_as_found "$1: settings as found" "$TMP/base" || settings_put_back "$TMP/base"
}
# shellcheck disable=SC2317 # runs at exit (at_exit)
lab_suite_cleanup() {
	if [ -n "$BG" ]; then
		kill -KILL "$BG" 2>/dev/null
		wait "$BG" 2>/dev/null
	fi
	# a journal left by a killed run: any thpctl command restores it
	[ -e "$JOURNAL" ] && [ "$ROOT" -eq 1 ] && "$T" status >/dev/null 2>&1
	settings_put_back "$TMP/base"
}
# lab_json NAME FILE SECONDS ARGS...: `thpctl lab NAME ARGS --yes --json --quiet` once no other
# thpctl holds the journal (wait_quiet); SIGTERM after SECONDS (thpctl puts its settings back on
# it). Its JSON in $TMP/FILE.json, stderr in $TMP/FILE.err, exit status in RC; its wall time and
# the load on a "# " line; sanitizer reports noted
lab_json() {
	local name=$1 f=$2 t=$3 start=$SECONDS
	shift 3
	wait_quiet
	timeout -s TERM "$t" "$T" lab "$name" "$@" --yes --json --quiet >"$TMP/$f.json" 2>"$TMP/$f.err"
	RC=$?
	echo "# lab $name $*: $((SECONDS - start)) s wall, load $(cut -d' ' -f1-3 /proc/loadavg)"
	san_note "lab $name" "$TMP/$f.err"
}
# lab_rc_ok WHAT FILE: true when RC is 0; else a failed check "WHAT: exit status" with the last
# lines of $TMP/FILE.err (the settings lines thpctl announces left out)
lab_rc_ok() {
	[ "$RC" -eq 0 ] && return 0
	nok "$1: exit status" "$RC: $(grep -v '^thpctl: /' "$TMP/$2.err" | tail -n 2 | tr '\n' ' ')"
	return 1
}
# start_exporter VAR [ARGS...]: `thpctl exporter --listen 127.0.0.1:0 ARGS` in the background
# (tracked; signals at their defaults; as nobody when RUN_AS=nobody), waits up to 10 s for its
# "listening on SCHEME://127.0.0.1:PORT/metrics" line (SCHEME: EXPORTER_SCHEME, default http)
# and sets VAR_PID and VAR_PORT; false when it said no port
start_exporter() {
	local var=$1 scheme=${EXPORTER_SCHEME:-http} err="$TMP/exporter.$1.err" port= pid
	shift
	if [ "${RUN_AS:-}" = nobody ]; then
		"${NOBODY[@]}" "$T" exporter --listen 127.0.0.1:0 "$@" 2>"$err" &
	else
		"${DFL[@]}" "$T" exporter --listen 127.0.0.1:0 "$@" 2>"$err" &
	fi
	pid=$!
	track_pid "$pid"
	wait_for_line "$err" "listening on $scheme://127\.0\.0\.1:[0-9]+/metrics" "$pid" 10
	port=$(sed -nE "s|.*listening on $scheme://127\.0\.0\.1:([0-9]+)/metrics.*|\1|p" "$err")
	printf -v "${var}_PID" '%s' "$pid"
	printf -v "${var}_PORT" '%s' "$port"
	[ -n "$port" ]
}
# start_prometheus RULES PORT[=INSTANCE]...: /usr/bin/prometheus on a free loopback port (PPORT),
# scraping each exporter port every second (labelled instance=INSTANCE where given), with the rule
# file RULES, its data under $TMP/tsdb; tracked, its PID in PROM
start_prometheus() {
	local rules=$1 t
	shift
	PPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	{
		printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n'
		printf 'rule_files:\n  - %s\n' "$PWD/$rules"
		printf 'scrape_configs:\n  - job_name: thpctl\n    static_configs:\n'
		for t in "$@"; do
			printf "      - targets: ['127.0.0.1:%s']\n" "${t%%=*}"
			[ "$t" = "${t#*=}" ] || printf '        labels: {instance: %s}\n' "${t#*=}"
		done
	} >"$TMP/prometheus.yml"
	/usr/bin/prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
		--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$TMP/prometheus.log" 2>&1 &
	PROM=$!
	track_pid "$PROM"
}
# quiet_begin NAME CLEANUP: once no other thpctl holds the journal (NAME skipped after 5
# minutes), any journal a killed run left is put back, the settings as found go to $TMP/base
# and CLEANUP runs at exit
quiet_begin() {
	if ! wait_quiet; then
		skip "$1" "another thpctl has held $JOURNAL for 5 minutes"
		summary
	fi
	[ -e "$JOURNAL" ] && "$T" status >/dev/null 2>&1
	settings_snapshot "$TMP/base"
	at_exit "$2"
}
lab_suite_begin() {
	[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
	command -v python3 >/dev/null || { nok "python3" "needed to read the JSON"; summary; }
	[ -d "$THP" ] || { skip "$1" "no $THP: this kernel has no THP"; summary; }
	if ! wait_quiet; then
		skip "$1" "another thpctl has held $JOURNAL for 5 minutes"
		summary
	fi
	if [ -e "$JOURNAL" ] && [ "$ROOT" -eq 1 ]; then
		echo "# $1: $JOURNAL exists before the tests: restoring it first"
		"$T" status >/dev/null 2>&1
	fi
	settings_snapshot "$TMP/base"
	at_exit lab_suite_cleanup
	grep -q "^$THP/enabled=" "$TMP/base" || { nok "settings" "cannot read $THP/enabled"; summary; }
}
