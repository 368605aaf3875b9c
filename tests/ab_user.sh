#!/usr/bin/env bash
# `thpctl ab` as a new user meets it, with --modes host only (no mode that changes a host
# setting, no root needed; nothing host-wide is written): its usage errors, MAXRSS against
# time(1)'s, a --metric that never matches, a failing and a timed-out command, the header's
# quoted command at 80 columns, one run, and the wording. Runs live thpctl commands: the
# live lane of tests/run-all.
#
#   THPCTL=path  binary to test (default build/asan/thpctl)
# shellcheck disable=SC2016,SC2034 # expect_eval and expect_json evaluate their strings later
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
suite_init ab-user
need_built "$T"
need_python3
AB=(ab --modes host)
# a failed run's log directory is kept (and named): in this suite's own directory, removed at exit
export TMPDIR=$TMP

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

# a mode's name is printed in the result: a control byte in it is refused, shown escaped
t ab --modes "$(printf 'env:X=a\033[31mb')" -- true
expect_eval "a mode holding ESC: a usage error, the name escaped" \
	'[ "$RC" = 2 ] && grep -q "mode .env:X=a\\\\x1b\\[31mb. holds a control character" "$TMP/err" && ! grep -q "$(printf "\033")" "$TMP/err"' \
	"exit $RC; $(errtail)"

# ab killed outright (SIGKILL, no hook runs): the command it started goes with it
(exec "$T" ab --runs 1 --warmup 0 --modes host -- sleep 60 >/dev/null 2>&1) &
abpid=$!
child=
for _ in $(seq 100); do
	child=$(pgrep -P "$abpid" -x sleep) && break
	sleep 0.1
done
kill -KILL "$abpid"
wait "$abpid" 2>/dev/null
gone=0
for _ in $(seq 50); do
	st=$(awk '/^State:/ {print $2}' "/proc/${child:-0}/status" 2>/dev/null)
	if [ -z "$st" ] || [ "$st" = Z ]; then gone=1 && break; fi
	sleep 0.1
done
expect_eval "ab killed by SIGKILL: its command ends too (PR_SET_PDEATHSIG)" \
	'[ -n "$child" ] && [ "$gone" = 1 ]' "sleep pid '${child}', still there: $((1 - gone))"
[ "$gone" = 1 ] || [ -z "$child" ] || kill "$child" 2>/dev/null

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

# ---- --metric: a regex that never matches is said, never a 0 ------------------------------
t "${AB[@]}" --runs 3 --warmup 0 --metric 'v+=val=([0-9]+)' --metric 'lat-=latency ([0-9.]+)' \
	-- sh -c 'echo val=42'
expect_eval "text: the metric that matched has its median over 3 of 3 runs" \
	'[ "$RC" = 0 ] && grep -q "^    v (higher is better): median 42 (42-42) over 3 of 3 runs$" "$TMP/out"' \
	"$(head -c 600 "$TMP/out")"
expect_eval "text: the one that never matched is unknown, and why" \
	'grep -q "^    lat (lower is better): unknown: the regex matched the output of none of the 3 runs$" "$TMP/out" && ! grep -q "lat (lower is better): median" "$TMP/out"' \
	"$(head -c 600 "$TMP/out")"
t "${AB[@]}" --runs 3 --warmup 0 --json --metric 'v+=val=([0-9]+)' --metric 'lat-=latency ([0-9.]+)' \
	-- sh -c 'echo val=42'
expect_json "JSON: matched_runs 3 and 0, value null with reason no-match" "$TMP/out" \
	'(lambda m: m["v"]["matched_runs"] == 3 and m["v"]["value"]["median"] == 42 and m["v"]["reason"] is None and m["lat"]["matched_runs"] == 0 and m["lat"]["runs"] == 3 and m["lat"]["value"] is None and m["lat"]["reason"] == "no-match")(d["modes"][0]["metrics"])' \
	'd["modes"][0]["metrics"]'
expect_json "JSON: the metrics as given (name, regex, direction)" "$TMP/out" \
	'd["metrics"] == [{"name": "v", "regex": "val=([0-9]+)", "higher_is_better": True}, {"name": "lat", "regex": "latency ([0-9.]+)", "higher_is_better": False}]'
t "${AB[@]}" --metric 'v+=a' --metric 'v-=b' -- true
expect_eval "--metric NAME twice: a usage error" '[ "$RC" = 2 ] && grep -q "given twice" "$TMP/err"' "$(errtail)"

# ---- a failing command, a timed-out one: exit 1, the reason in the verdict --------------
t "${AB[@]}" --runs 2 -- sh -c 'echo boom-output; exit 3'
expect_eval "exit 3 in the warm-up run: exit 1, the verdict and stderr say which run and status" \
	'[ "$RC" = 1 ] && grep -q "^  host: not compared: its warm-up run 1 exited with status 3;" "$TMP/out" && grep -q "warm-up run 1 exited with status 3" "$TMP/err" && grep -q "^boom-output$" "$TMP/err"' \
	"$(head -c 400 "$TMP/out") / $(errtail)"
expect_eval "no memory heading over no line" '! grep -q "^memory" "$TMP/out"' "$(head -c 400 "$TMP/out")"
t0=$(date +%s)
t "${AB[@]}" --runs 1 --warmup 0 --timeout 1 -- sleep 30
expect_eval "--timeout 1 of sleep 30: killed within seconds, exit 1, said" \
	'[ "$RC" = 1 ] && [ $(($(date +%s) - t0)) -lt 10 ] && grep -q "its run 1 ran past --timeout 1 s and was killed" "$TMP/out"' \
	"$(head -c 400 "$TMP/out") / $(errtail)"
t "${AB[@]}" --runs 1 --warmup 0 --json -- /nonexistent/thpctl-ab-user
expect_json "a command not found: failure not-started, ENOENT" "$TMP/out" \
	'd["modes"][0]["failure"] == {"run": 1, "warmup": False, "kind": "not-started", "code": 2}'

# ---- the header: the command quoted, wrapped at 80 columns; 1 run; the options ----------
ARGS=(sh -c 'for i in 1 2 3; do :; done; echo "$0 $1"' 'an argument with spaces' "it's" $'ctl\e[2J' '')
env -u THPCTL_WIDE COLUMNS=80 "$T" "${AB[@]}" --runs 1 --warmup 0 -- "${ARGS[@]}" >"$TMP/out" 2>"$TMP/err"
widest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/out")
# the command's lines (the 2nd on, while one ends in " \"), read back by bash: the same words
joined='' n=2
while :; do
	line=$(sed -n "${n}p" "$TMP/out")
	part=${line% \\}
	joined+="${part#"${part%%[! ]*}"} "
	[ "$part" = "$line" ] && break
	n=$((n + 1))
done
got=()
eval "got=($joined)"
same=1
[ "${#got[@]}" = "${#ARGS[@]}" ] || same=0
for i in "${!ARGS[@]}"; do [ "${got[$i]-}" = "${ARGS[$i]}" ] || same=0; done
expect_eval "COLUMNS=80: '1 run per mode, no warm-up run', lines within 80 (widest $widest), wrapped on $((n - 1)) lines" \
	'[ "$widest" -le 80 ] && [ "$n" -ge 3 ] && grep -q "^thpctl ab: 1 run per mode, no warm-up run; the command:$" "$TMP/out"' \
	"$(head -c 500 "$TMP/out")"
expect_eval "the quoted command reads back as the same ${#ARGS[@]} words (spaces, a quote, ESC, an empty one)" \
	'[ "$same" = 1 ]' "read back: $(printf '<%q> ' "${got[@]}")"
expect_eval "no raw control byte in the output" '! grep -q $'"'"'\x1b'"'"' "$TMP/out"'
t ab --sysroot /tmp -- true
expect_eval "--sysroot: a usage error, as its help says" \
	'[ "$RC" = 2 ] && "$T" ab --help | grep -q "^--sysroot is a usage error here"' "$(errtail)"

"$T" ab --help >"$TMP/help" 2>&1
expect_eval "--help names the estimator whole and every range" \
	'grep -q "(Hodges-Lehmann estimate of the ratio" "$TMP/help" && grep -q "1\.\.64)" "$TMP/help" && grep -q "0\.\.10)" "$TMP/help" && grep -q "1\.\.86400)" "$TMP/help" && grep -q "^  --mode M " "$TMP/help"' \
	"$(head -c 400 "$TMP/help")"

# ---- the README's example is what ab prints now (numbers, units and wrapping aside) ------
C=build/tests/chase_malloc
if [ -x "$C" ]; then
	# shellcheck disable=SC2016 # the README's command line, as written there
	# (the command line and its continuation lines, ending in a backslash, are not output)
	ex=$(awk '/^\$ thpctl ab --runs 4 --modes host / { on = 1; cont = /\\$/; next }
		on && cont { cont = /\\$/; next } on && /^dTLB:|^```/ { exit } on' README.md)
	env -u THPCTL_WIDE -u COLUMNS "$T" ab --runs 4 --modes host --metric 'ns-=ns_per_access ([0-9.]+)' \
		-- "$C" 128M 1000000 2>"$TMP/err" | awk '/^dTLB:/ { exit } 1' >"$TMP/out"
	norm() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/\b(kB|MiB|GiB)\b/U/g' | tr -s ' \n' '  '; }
	expect_eval "README's ab example: the lines ab prints now ($(wc -l <<<"$ex") lines)" \
		'[ -n "$ex" ] && [ "$(norm <<<"$ex")" = "$(norm <"$TMP/out")" ]' \
		"README: $(norm <<<"$ex" | cut -c1-300) / now: $(norm <"$TMP/out" | cut -c1-300)"
else
	skip "README's ab example" "no $C (make $C)"
fi

summary
