#!/usr/bin/env bash
# The man page: `mandoc -Tlint` reports nothing (style included), and it cannot drift from
# the program: every command of `thpctl --help` has an entry in COMMANDS and every option of
# `thpctl CMD --help` appears in it; the global options in OPTIONS (tests/man_help.py).
# No root, no live state.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
suite_init man
need_built "$T"
need_python3
MAN=man/thpctl.1

if command -v mandoc >/dev/null; then
	out=$(mandoc -Tlint "$MAN" 2>&1)
	rc=$?
	expect_eval "mandoc -Tlint $MAN reports nothing" '[ "$rc" -eq 0 ] && [ -z "$out" ]' \
		"rc $rc: $(head -n5 <<<"$out" | tr '\n' ' ')"
else
	skip "mandoc -Tlint $MAN" "mandoc not installed (scripts/install-deps --test)"
fi

relay_results "man vs --help" < <(python3 tests/man_help.py "$T" "$MAN")

# the check itself: the page without --cache-ms (an exporter option) must fail exporter
sed 's/\\fB\\-\\-cache\\-ms\\fR//g' "$MAN" >"$TMP/cut.1"
if grep -q 'cache\\-ms' "$TMP/cut.1"; then
	nok "man check: a dropped option" "the test's sed left --cache-ms in the page"
else
	got=$(python3 tests/man_help.py "$T" "$TMP/cut.1" | grep -c '^not ok - man: exporter options not in its entry: --cache-ms$')
	expect_eval "man check: a dropped option (exporter --cache-ms) fails" '[ "$got" = 1 ]' "got $got"
fi
summary
