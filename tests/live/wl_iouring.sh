#!/usr/bin/env bash
# Live tests of `thpctl lab iouring --quick` (a real program: Debian's fio,
# scripts/install-deps --workloads): the probes checked against their own
# sources (the sysctl file, dpkg-query), each engine's row present exactly
# when its probe said it could run, the claims with a call from the three, the
# private directory gone and no fio left, the host's settings untouched; as
# root and as nobody (the probes are the current user's). Not the speed.
#
# Run it as `flock /tmp/thpctl-live.lock bash tests/live/wl_iouring.sh`.
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init wl-iouring

[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
if ! command -v fio >/dev/null; then
	skip "iouring" "fio not installed (scripts/install-deps --workloads)"
	summary
fi
wait_quiet || { skip "iouring" "another thpctl has held $JOURNAL for 5 minutes"; summary; }
settings_snapshot "$TMP/base"

# without fio: exit 1 and the install hint
mkdir -p "$TMP/nopath"
PATH=$TMP/nopath "$T" lab iouring --quick --quiet >"$TMP/missing.out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "install with scripts/install-deps --workloads (Debian: fio)" "$TMP/missing.out"; then
	ok "without fio: exit 1 and the install hint"
else
	nok "without fio: exit 1 and the install hint" "exit $rc: $(tail -n 1 "$TMP/missing.out")"
fi

disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo -)
liburing=$(dpkg-query -W -f='${Version}' liburing2 2>/dev/null || echo "not installed")

# check WHO: the JSON in $TMP/WHO.json against the probes' own sources
check() {
	python3 - "$TMP/$1.json" "$disabled" "$liburing" <<'PY'
import json, re, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
disabled, liburing = sys.argv[2], sys.argv[3]
v = e["verdict"]
assert not v["skipped"], v["text"]
p = {x["key"]: x["text"] for x in e["proofs"]}
pr = p["probes"]
m = re.match(r"kernel.io_uring_disabled (\S+).*; io_uring_setup (\S+); SQPOLL (\S+) \(uid \d+\); liburing2 (.+)$", pr)
assert m, pr
assert m.group(1) == disabled, (m.group(1), disabled)
assert m.group(4) == liburing, (m.group(4), liburing)
rows = {r["label"]: r["cells"] for r in e["rows"]}
assert "psync" in rows and "libaio" in rows, sorted(rows)
# an engine's row exists exactly when its probe said io_uring_setup works
assert ("io_uring" in rows) == (m.group(2) == "ok"), (sorted(rows), pr)
assert ("io_uring sqpoll" in rows) == (m.group(3) == "ok"), (sorted(rows), pr)
for r, c in rows.items():
    assert c["IOPS"]["median"] > 0, r
    assert c["iodepth"]["median"] == (1 if r == "psync" else 32), r
    # a clat p99 is within the 8 s the engine ran, or unknown with the proof saying why
    # (fio 3.33 under SQPOLL gave 8-17 s here: its clat maximum above its lat maximum)
    if c["clat p99"] is None:
        assert "clat p99 left out (-)" in p.get(r, ""), (r, p.get(r))
    else:
        assert 0 < c["clat p99"]["median"] < 8e6, (r, c["clat p99"])
assert v["expected"], v["text"]
claims = {c["claim"]: c for c in e["claims"]}
assert sorted(claims) == ["SQPOLL refused in VPS guests", "io_uring +12% IOPS over libaio"], sorted(claims)
for c in claims.values():
    assert c["call"] in ("confirmed", "contradicted", "inconclusive") and c["why"], c
sq = claims["SQPOLL refused in VPS guests"]
if "a guest" in sq["here"] and m.group(3) in ("ok", "EPERM"):
    assert sq["call"] == ("contradicted" if m.group(3) == "ok" else "confirmed"), sq
assert re.search(r"256 MiB file in \S+ \(\w+, removed\)", p["setup"]), p["setup"]
PY
}

# run WHO CMD...: lab iouring --quick --json with TMPDIR a fresh directory; its checks
run() {
	local who=$1 out
	shift
	mkdir -p "$TMP/$who-tmp"
	chmod 1777 "$TMP/$who-tmp"
	TMPDIR=$TMP/$who-tmp timeout -s TERM 300 "$@" "$T" lab iouring --quick --json --quiet \
		>"$TMP/$who.json" 2>"$TMP/$who.err"
	RC=$?
	san_note "lab iouring ($who)" "$TMP/$who.err"
	if [ "$RC" -ne 0 ]; then
		nok "$who: exit status" "$RC: $(tail -n 2 "$TMP/$who.err" | tr '\n' ' ')"
	elif out=$(check "$who" 2>&1); then
		ok "$who: probes as their sources say, engine rows iff probes ok, claim calls"
	else
		nok "$who: probes as their sources say, engine rows iff probes ok, claim calls" "$(tail -n 1 <<<"$out")"
	fi
	if [ -z "$(ls -A "$TMP/$who-tmp")" ]; then
		ok "$who: private directory removed"
	else
		nok "$who: private directory removed" "$(ls "$TMP/$who-tmp")"
	fi
}

# data_laid DIR: fio's file under DIR/thpctl-iouring.*/ is laid out whole (--quick: 256 MiB)
data_laid() {
	local f
	for f in "$1"/thpctl-iouring.*/data; do
		[ "$(stat -c %s "$f" 2>/dev/null)" = $((256 << 20)) ] && return 0
	done
	return 1
}

# sigterm WHO CMD...: SIGTERM to lab iouring while fio runs: its directory (and the file
# fio reads) gone, and every process it started (fio, a job fio forked) ended. The
# processes are the descendants of this run's thpctl, captured before the signal, and any
# process whose command line names this run's private file.
sigterm() {
	local who=$1 bg fio pids p alive=
	shift
	mkdir -p "$TMP/$who-sig"
	chmod 1777 "$TMP/$who-sig"
	TMPDIR=$TMP/$who-sig "${DFL[@]}" "$@" "$T" lab iouring --quick --quiet \
		>/dev/null 2>"$TMP/$who-sig.err" &
	bg=$!
	wait_for 60 pgrep -P "$bg" -x fio >/dev/null
	fio=$(pgrep -P "$bg" -x fio)
	# fio is past its layout: the file is whole and the job reads it
	wait_for 60 data_laid "$TMP/$who-sig"
	sleep 2
	pids=$(descendants "$bg")
	kill -TERM "$bg"
	wait "$bg"
	# and any process still reading this run's own file (a job forked after the capture)
	pids+=" $(pgrep -f -- "--filename=$TMP/$who-sig/" | tr '\n' ' ')"
	for p in $pids; do
		wait_for 2 test ! -d "/proc/$p" || alive+=" $p($(cat "/proc/$p/comm" 2>/dev/null))"
	done
	san_note "lab iouring ($who, SIGTERM)" "$TMP/$who-sig.err"
	if [ -z "$fio" ]; then
		nok "$who: SIGTERM during fio" "fio never started: $(tail -n 2 "$TMP/$who-sig.err" | tr '\n' ' ')"
	elif [ -z "$(ls -A "$TMP/$who-sig")" ] && [ -z "$alive" ]; then
		ok "$who: SIGTERM during fio: directory removed, fio ($fio) and its jobs ended"
	else
		nok "$who: SIGTERM during fio: directory removed, fio and its jobs ended" \
			"left: $(find "$TMP/$who-sig" -mindepth 1 | tr '\n' ' '); alive:${alive:- none}"
		for p in $alive; do kill -KILL "${p%%(*}" 2>/dev/null; done
		rm -rf "${TMP:?}/$who-sig"/thpctl-iouring.*
	fi
}

if [ "$ROOT" -eq 1 ]; then
	run root env
	sigterm root env
	# a TMPDIR of 80 characters, the longest lab iouring takes: fio's --filename whole (it
	# was cut at 96 bytes from a 62-character TMPDIR on: fio wrote its 256 MiB beside the
	# private directory, and no cleanup knew that file)
	pad=$((80 - ${#TMP} - 5))
	if [ "$pad" -ge 1 ]; then
		run "$(printf '%*s' "$pad" '' | tr ' ' L)" env
	else
		skip "80-character TMPDIR" "$TMP is too long to make one under it"
	fi
else
	skip "root" "not root"
fi
run nobody "${NOBODY[@]}"
[ "$ROOT" -eq 1 ] && sigterm nobody "${NOBODY[@]}"
if pgrep -x fio >/dev/null && pgrep -af 'fio --name=thpctl' >/dev/null; then
	nok "no fio left" "$(pgrep -af 'fio --name=thpctl' | head -n 2)"
else
	ok "no fio left"
fi
expect_settings_as_found "iouring: settings as found (it changes none)" "$TMP/base"
summary
