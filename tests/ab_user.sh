#!/usr/bin/env bash
# `thpctl ab` as a new user meets it, with --modes host only (no mode that changes a host
# setting, no root needed; nothing host-wide is written): its usage errors, MAXRSS against
# time(1)'s, a --metric that never matches, a failing and a timed-out command, the header's
# quoted command at 80 columns, one run, and the wording. Runs live thpctl commands: the
# live lane of tests/run-all.
#
#   THPCTL=path  binary to test (default build/asan/thpctl)
# shellcheck disable=SC2016 # expect_eval and expect_json evaluate their strings later
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
suite_init ab-user
need_built "$T"
need_python3
AB=(ab --modes host)

# ---- usage errors: exit 2, the message names the range -----------------------------------
for v in 0 -1 86401 junk 1.5 '' 99999999999999999999; do
	t "${AB[@]}" --timeout "$v" -- true
	expect_eval "--timeout '$v': a usage error naming 1..86400" \
		'[ "$RC" = 2 ] && grep -q "^thpctl: ab: --timeout takes whole seconds, 1\.\.86400, not '"'$v'"'" "$TMP/err" && [ ! -s "$TMP/out" ]' \
		"exit $RC; $(errtail)"
done
t "${AB[@]}" --timeout 86400 --runs 1 --warmup 0 -- true
expect_rc "--timeout 86400 (the most) runs" 0
t "${AB[@]}" --runs 0 -- true
expect_eval "--runs 0: a usage error naming 1..64" \
	'[ "$RC" = 2 ] && grep -q "runs per mode, 1\.\.64, not .0." "$TMP/err"' "$(errtail)"
t "${AB[@]}" --warmup 11 -- true
expect_eval "--warmup 11: a usage error naming 0..10" \
	'[ "$RC" = 2 ] && grep -q "runs per mode, 0\.\.10, not .11." "$TMP/err"' "$(errtail)"

# ---- MAXRSS is the command's own, as time(1) reports it --------------------------------------
# a shell holding 48 MiB in a variable: far above the pages fork copies from this thpctl
# (ASan's included, ~10 MiB), so both figures are the command's own peak
BIG=(sh -c 'x=$(head -c 50331648 /dev/zero | tr "\0" a); echo ${#x}')
if [ -x /usr/bin/time ]; then
	ref=$(for i in 1 2 3; do /usr/bin/time -f %M "${BIG[@]}" 2>&1 >/dev/null | tail -n1; done |
		sort -n | sed -n 2p)
	t "${AB[@]}" --runs 3 --warmup 0 --json -- "${BIG[@]}"
	export REF=$ref
	expect_json "MAXRSS of a 48 MiB shell: time(1)'s ($ref kB) within 15%" "$TMP/out" \
		'abs(d["modes"][0]["maxrss_kb"]["median"] / int(E["REF"]) - 1) < 0.15 and int(E["REF"]) > 49152' \
		'(d["modes"][0]["maxrss_kb"], E["REF"])'
else
	skip "MAXRSS against time(1)'s" "no /usr/bin/time (GNU time)"
fi

summary
