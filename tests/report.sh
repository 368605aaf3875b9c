#!/usr/bin/env bash
# report suite: the HTML reports (`lab --report`, `ab --report`, `watch --record` +
# `thpctl report`) built from real runs on this host, rendered with headless
# Chromium (a PNG screenshot each, the DOM dump, the console checked for errors)
# and their tables compared with the JSON of the same run (tests/report_check.py).
#
# Run as root under `flock /tmp/thpctl-live.lock` like every live suite: the lab
# experiments map and measure memory, khugepaged and the watch recording change
# THP settings (through thpctl's journal) and the suite checks the host is left as
# found. Without root those parts skip. Without Chromium (scripts/install-deps
# --report) the rendering checks skip; the content checks still run.
#
#   THPCTL=path         test another thpctl binary (default build/asan/thpctl)
#   REPORT_IMG=FILE     also save the faults page's screenshot there (the README's)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
suite_init report
need_python3
# shellcheck disable=SC2016 # evaluated by summary
at_summary 'san_scan "$TMP"/*.err; expect_sanitizers_quiet "sanitizers quiet in every run"'
[ -x "$T" ] || { nok "preflight" "$T missing: run 'make $T'"; summary; }

CHROME=$(command -v chromium || command -v chromium-browser || true)
# Chromium as root in a VM: no sandbox (it refuses root with one), its own profile
# and HOME under $TMP (nothing written to root's), no GPU
chrome() {
	HOME=$TMP/home timeout 60 "$CHROME" --headless --disable-gpu --no-sandbox \
		--user-data-dir="$TMP/chrome" --no-first-run --hide-scrollbars "$@"
}

# render NAME PAGE: a screenshot, the DOM (with each expected svg id in it) and no console error
render() {
	local name=$1 page=$2 ids
	shift 2
	if [ -z "$CHROME" ]; then
		skip "$name: rendered" "no chromium (scripts/install-deps --report)"
		return
	fi
	mkdir -p "$TMP/home"
	chrome --window-size=800,1000 --screenshot="$TMP/$name.png" "file://$page" \
		>/dev/null 2>"$TMP/$name.shot.log"
	expect_eval "$name: screenshot is a PNG" \
		"[ \"\$(head -c 8 '$TMP/$name.png' 2>/dev/null | od -An -tx1 | tr -d ' ')\" = 89504e470d0a1a0a ]" \
		"$(tail -n 3 "$TMP/$name.shot.log")"
	# dark mode (prefers-color-scheme: dark) draws other pixels: the page's dark style applies.
	# Every page carries the one stylesheet of src/render/report.c: checked on the first page
	local light dark
	light=$(python3 tests/report_check.py pixel "$TMP/$name.png" 2>&1)
	if [ -z "${DARK_CHECKED:-}" ]; then
		DARK_CHECKED=$name
		chrome --force-dark-mode --window-size=800,1000 --screenshot="$TMP/$name.dark.png" "file://$page" \
			>/dev/null 2>&1
		dark=$(python3 tests/report_check.py pixel "$TMP/$name.dark.png" 2>&1)
		expect_eval "$name: light background in light mode, dark in dark mode (the pages' one style)" \
			"[ \"\${light%% *}\" -ge 240 ] && [ \"\${dark%% *}\" -le 40 ]" "light $light, dark $dark"
	else
		expect_eval "$name: light background (the style checked in dark mode on $DARK_CHECKED)" \
			"[ \"\${light%% *}\" -ge 240 ]" "light $light"
	fi
	chrome --enable-logging=stderr --v=0 --dump-dom "file://$page" >"$TMP/$name.dom" \
		2>"$TMP/$name.dom.log"
	expect_eval "$name: no console message or JavaScript error" \
		"! grep -E 'CONSOLE|Uncaught' '$TMP/$name.dom.log'" "$(grep -m2 -E 'CONSOLE|Uncaught' "$TMP/$name.dom.log")"
	for ids in "$@"; do
		expect_eval "$name: the rendered DOM has <svg id=$ids>" \
			"grep -q '<svg[^>]* id=\"$ids\"' '$TMP/$name.dom'"
	done
}

# the console check can fail: a page with a script error is caught
if [ -n "$CHROME" ]; then
	mkdir -p "$TMP/home"
	printf '<!DOCTYPE html><html><body><script>undefined_fn()</script></body></html>\n' >"$TMP/jserr.html"
	chrome --enable-logging=stderr --v=0 --dump-dom "file://$TMP/jserr.html" >/dev/null 2>"$TMP/jserr.log"
	expect_eval "control: a script error shows in Chromium's log" "grep -q 'Uncaught' '$TMP/jserr.log'"
fi

# what every page must say it is about (report_check.py's context checks): this host, its
# kernel, this thpctl; per run the command (RC_COMMAND) and its time (RC_T0..RC_T1)
RC_HOST=$(cat /proc/sys/kernel/hostname) RC_KERNEL=$(cat /proc/sys/kernel/osrelease)
RC_VERSION=$("$T" --version | cut -d' ' -f2)
export RC_HOST RC_KERNEL RC_VERSION RC_COMMAND RC_T0 RC_T1
# run_at CMD...: RC_T0 and RC_T1 around t CMD
run_at() {
	RC_T0=$(date +%s)
	t "$@"
	RC_T1=$(date +%s)
}

# check KIND PAGE DATA [CHANGES...]: the tables against the JSON (report_check.py)
check() {
	python3 tests/report_check.py "$@" >"$TMP/check.out" 2>&1
	relay_results "report_check $1" <"$TMP/check.out"
}

# ---- (a) lab: faults and chase (and khugepaged as root), each its own page -----------
settings_snapshot "$TMP/base"
RC_COMMAND="thpctl --json lab faults --quick --runs 3 --yes --quiet --report $TMP/faults.html"
run_at --json lab faults --quick --runs 3 --yes --quiet --report "$TMP/faults.html"
cp "$TMP/out" "$TMP/faults.json"
expect_rc "lab faults --report: exit 0" 0
check lab "$TMP/faults.html" "$TMP/faults.json"
render faults "$TMP/faults.html" lab-0-faults-cdf lab-0-faults-cells-0
if [ -n "${REPORT_IMG:-}" ] && [ -s "$TMP/faults.png" ]; then
	chrome --window-size=760,640 --screenshot="$REPORT_IMG" "file://$TMP/faults.html" >/dev/null 2>&1
fi

RC_COMMAND="lab chase --size 64M,256M"
run_at --json lab chase --size 64M,256M --steps 200000 --runs 3 --quiet --report "$TMP/chase.html"
cp "$TMP/out" "$TMP/chase.json"
expect_rc "lab chase (2 sizes) --report: exit 0" 0
check lab "$TMP/chase.html" "$TMP/chase.json"
render chase "$TMP/chase.html" lab-0-chase-chase

if [ "$ROOT" -eq 1 ]; then
	RC_COMMAND="lab khugepaged --quick"
	run_at --json lab khugepaged --quick --timeout 20 --yes --quiet --report "$TMP/kh.html"
	cp "$TMP/out" "$TMP/kh.json"
	expect_rc "lab khugepaged --report: exit 0" 0
	check lab "$TMP/kh.html" "$TMP/kh.json"
	render khugepaged "$TMP/kh.html" lab-0-khugepaged-mpn-511
else
	skip "lab khugepaged --report" "needs root"
fi

# lab redis (a workload: per-round samples as strip plots), when its programs are here. Under
# run-all, tests/live/lab.sh (earlier in the same lane) ran lab redis --quick --report and left
# its page and JSON in RUN_ALL_SHARE: those are checked here, not a second 70-140 s run
SHARED=${RUN_ALL_SHARE:+$RUN_ALL_SHARE/redis}
if [ -n "$SHARED" ] && [ -s "$SHARED.html" ] && [ -s "$SHARED.json" ] && [ -s "$SHARED.times" ]; then
	RC_COMMAND="lab redis --quick"
	read -r RC_T0 RC_T1 <"$SHARED.times"
	cp "$SHARED.html" "$TMP/redis.html"
	cp "$SHARED.json" "$TMP/redis.json"
	echo "# lab redis --report: the page of tests/live/lab.sh's run in this make check"
	ok "lab redis --report: exit 0 (tests/live/lab.sh's run)"
	check lab "$TMP/redis.html" "$TMP/redis.json"
	render redis "$TMP/redis.html" lab-0-redis-set-p99 lab-0-redis-set-ops
elif [ "$ROOT" -eq 1 ] && command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
	RC_COMMAND="lab redis --quick"
	run_at --json lab redis --quick --yes --quiet --report "$TMP/redis.html"
	cp "$TMP/out" "$TMP/redis.json"
	expect_rc "lab redis --report: exit 0" 0
	check lab "$TMP/redis.html" "$TMP/redis.json"
	render redis "$TMP/redis.html" lab-0-redis-set-p99 lab-0-redis-set-ops
else
	skip "lab redis --report" "needs root and redis-server, redis-benchmark (scripts/install-deps --workloads)"
fi

# ---- (b) ab on a tiny command, with a hostile argument in the page's command line ----
RC_COMMAND="ab --runs 5 --warmup 0 --modes off,host --report $TMP/ab.html -- sh -c 'head -c 8000000 /dev/zero | cksum >/dev/null' '<img src=x onerror=alert(1)>'"
run_at --json ab --runs 5 --warmup 0 --modes off,host --report "$TMP/ab.html" -- \
	sh -c 'head -c 8000000 /dev/zero | cksum >/dev/null' '<img src=x onerror=alert(1)>'
cp "$TMP/out" "$TMP/ab.json"
expect_rc "ab --report: exit 0" 0
check ab "$TMP/ab.html" "$TMP/ab.json"
expect_eval "ab: the command's argument is escaped, not markup" \
	"! grep -q '<img' '$TMP/ab.html' && grep -q '&lt;img src=x onerror=alert(1)&gt;' '$TMP/ab.html'"
render ab "$TMP/ab.html" ab-wall ab-ratio ab-rss

# ---- (c) watch --record while defrag changes through `thpctl set`, then report ---------
if [ "$ROOT" -eq 1 ] && [ -w "$THP/defrag" ]; then
	d0=$(sysfs_choice "$THP/defrag")
	d1=defer
	[ "$d0" = defer ] && d1=madvise
	# in a time zone 5:30 east of UTC: the page's local time and axis are the recording host's
	RC_COMMAND="thpctl watch -i 0.3 -n 14 --record $TMP/w.jsonl" RC_T0=$(date +%s)
	TZ=Asia/Kolkata "$T" watch -i 0.3 -n 14 --record "$TMP/w.jsonl" >/dev/null 2>"$TMP/watch.err" &
	wpid=$!
	track_pid "$wpid"
	sleep 1.2
	t set "defrag=$d1"
	expect_rc "set defrag=$d1 during the recording: exit 0" 0
	sleep 1.5
	t set "defrag=$d0"
	expect_rc "set defrag=$d0 (back) during the recording: exit 0" 0
	wait "$wpid"
	expect_zero "watch --record: exit 0" $? "$(tail -n 3 "$TMP/watch.err")"
	san_note "watch --record" "$TMP/watch.err"
	RC_T1=$(date +%s)
	t report "$TMP/w.jsonl" -o "$TMP/w.html"
	expect_rc "report FILE.jsonl -o PAGE: exit 0" 0
	TZ=Asia/Kolkata check watch "$TMP/w.html" "$TMP/w.jsonl" "defrag: $d0 -> $d1" "defrag: $d1 -> $d0"
	expect_eval "watch: the page's local time is the recording host's (UTC+05:30), not this one's" \
		"grep -q 'IST (UTC+05:30), the data host' '$TMP/w.html' && grep -q '>local time (UTC+05:30)</text>' '$TMP/w.html'"
	render watch "$TMP/w.html" watch-rates watch-anonhuge
else
	skip "watch --record with a setting change" "needs root and a writable $THP/defrag"
fi
expect_settings_as_found "host settings as found after the lab runs and the recording" "$TMP/base"

# ---- where a page may not go ------------------------------------------------------------
# the span of N intervals is N intervals: the first began its interval_s before its time_s
printf '{"time_s":%s,"interval_s":1.0,"rates_per_s":{}}\n' 100 101 102 >"$TMP/three.jsonl"
t report "$TMP/three.jsonl" -o "$TMP/three.html"
expect_eval "report of 3 intervals of 1 s: '3 intervals over 3.0 s'" \
	"[ $RC = 0 ] && grep -q '3 intervals over 3.0 s;' '$TMP/three.html'" "$(grep -o '[0-9]* intervals* over [^;]*' "$TMP/three.html")"
printf '{"time_s":1,"rates_per_s":{}}\n' >"$TMP/one.jsonl" # no header: an older recording
mkfifo "$TMP/fifo"
t report "$TMP/one.jsonl" -o "$TMP/fifo"
expect_eval "report -o FIFO: refused (exit 1), still a FIFO" "[ $RC = 1 ] && [ -p '$TMP/fifo' ]"
echo keep >"$TMP/target"
ln -s "$TMP/target" "$TMP/link"
t report "$TMP/one.jsonl" -o "$TMP/link"
expect_eval "report -o SYMLINK: refused (exit 1), its target untouched" \
	"[ $RC = 1 ] && [ -L '$TMP/link' ] && [ \"\$(cat '$TMP/target')\" = keep ]"
t watch -n 1 --record "$TMP/fifo"
expect_eval "watch --record FIFO: refused (exit 1)" "[ $RC = 1 ] && [ -p '$TMP/fifo' ]"
cp "$TMP/one.jsonl" "$TMP/keep.jsonl"
t watch -i 0.2 -n 1 --record "$TMP/keep.jsonl"
expect_eval "watch --record onto an earlier recording: refused (exit 1), the recording kept" \
	"[ $RC = 1 ] && grep -q 'already holds' '$TMP/err' && cmp -s '$TMP/one.jsonl' '$TMP/keep.jsonl'"
t report "$TMP/keep.jsonl" -o "$TMP/../$(basename "$TMP")/keep.jsonl"
expect_eval "report -o the recording itself (another spelling): usage error (2), the recording kept" \
	"[ $RC = 2 ] && grep -q 'is the recording itself' '$TMP/err' && cmp -s '$TMP/one.jsonl' '$TMP/keep.jsonl'"
t report "$TMP/one.jsonl" -o "$TMP/one.html"
expect_eval "report of one interval: exit 0, a page with the rates chart" \
	"[ $RC = 0 ] && grep -q 'id=\"watch-rates\"' '$TMP/one.html'"
expect_eval "report of a recording without a header: host and kernel unknown, and why" \
	"grep -q '<tr><th>host</th><td>unknown</td></tr>' '$TMP/one.html' && grep -q 'has no header line' '$TMP/one.html'"
printf 'not json\n' >"$TMP/bad.jsonl"
t report "$TMP/bad.jsonl" -o "$TMP/bad.html"
expect_eval "report of a non-JSON line: exit 1, names the line, no page" \
	"[ $RC = 1 ] && grep -q 'line 1' '$TMP/err' && [ ! -e '$TMP/bad.html' ]"
# a NUL byte is damage, not the recording's end; every line counts, empty ones too
printf '{"time_s":1,"rates_per_s":{}}\n\0{"time_s":2,"rates_per_s":{}}\n' >"$TMP/nul.jsonl"
t report "$TMP/nul.jsonl" -o "$TMP/nul.html"
expect_eval "report of a recording with a NUL byte: exit 1, names the line and the NUL, no page" \
	"[ $RC = 1 ] && grep -q 'nul.jsonl line 2 holds a NUL byte' '$TMP/err' && [ ! -e '$TMP/nul.html' ]"
printf '{"time_s":1,"rates_per_s":{}}\n\n\nnot json\n' >"$TMP/gap.jsonl"
t report "$TMP/gap.jsonl" -o "$TMP/gap.html"
expect_eval "report of a bad line after empty lines: its own number (line 4)" \
	"[ $RC = 1 ] && grep -q 'gap.jsonl line 4 is not a JSON object' '$TMP/err'"
t report "$TMP/one.jsonl"
expect_rc "report without -o: usage error (2)" 2

summary
