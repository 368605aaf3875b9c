#!/usr/bin/env bash
# watch suite: `thpctl watch` (ASan+UBSan build) against the running kernel,
# with a helper that faults in 64 MiB of MADV_HUGEPAGE memory mid-run.
#
# Each check prints "ok - NAME", "not ok - NAME: DETAILS" or
# "skip - NAME: REASON". The last line is "watch: N passed, M failed, K
# skipped"; the exit status is non-zero when any check failed. Read-only
# towards the host; every process started is stopped on exit.
#
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

T=${THPCTL:-build/asan/thpctl}
H=build/tests/thp_helper
THP=/sys/kernel/mm/transparent_hugepage
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
unset NO_COLOR

PASS=0 FAIL=0 SKIP=0
ok() { echo "ok - $1"; PASS=$((PASS + 1)); }
nok() { echo "not ok - $1: $2"; FAIL=$((FAIL + 1)); }
skip() { echo "skip - $1: $2"; SKIP=$((SKIP + 1)); }
check() { # check NAME DETAIL CMD...
	local name=$1 detail=$2
	shift 2
	if "$@"; then ok "$name"; else nok "$name" "$detail"; fi
}

TMP=$(mktemp -d /tmp/thpctl-watch.XXXXXX)
chmod 755 "$TMP"
PIDS=()
# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	sleep 0.1
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

summary() {
	if grep -lqE 'runtime error|AddressSanitizer|LeakSanitizer' "$TMP"/*.err 2>/dev/null; then
		nok "sanitizers quiet in every watch run" \
			"$(grep -hE -m1 'runtime error|Sanitizer' "$TMP"/*.err | head -3 | tr '\n' ' ' | cut -c1-300)"
	else
		ok "sanitizers quiet in every watch run"
	fi
	echo "watch: $PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" -eq 0 ]
	exit
}

for f in "$T" "$H"; do
	if [ ! -x "$f" ]; then
		nok "preflight" "$f missing: run 'make $T $H'"
		summary
	fi
done
vmstat() { awk -v k="$1" '$1 == k {print $2}' /proc/vmstat; }

# ---- usage -------------------------------------------------------------------------
for bad in "-i 0" "-i x" "-i 100000" "--count 0" "--count 1.5" "--top 0" "--top 101" "--bogus" "extra"; do
	# shellcheck disable=SC2086 # word splitting wanted
	"$T" watch $bad >/dev/null 2>"$TMP/usage.err"
	rc=$?
	check "watch $bad: usage error (2)" "exit $rc" test "$rc" -eq 2
done
"$T" watch --help >"$TMP/help.out" 2>&1
check "watch --help exits 0 and documents --top" "$(head -c 200 "$TMP/help.out")" \
	grep -q -- '--top N' "$TMP/help.out"

# ---- text, not a terminal --------------------------------------------------------------
"$T" watch -i 0.3 --count 3 >"$TMP/text.out" 2>"$TMP/text.err"
rc=$?
check "watch -i 0.3 --count 3 exits 0" "exit $rc: $(head -c 300 "$TMP/text.err")" test "$rc" -eq 0
check "a header line with units first" "$(head -n1 "$TMP/text.out" | cut -c1-200)" \
	bash -c "head -n1 '$TMP/text.out' | grep -q '^# every 0.3 s; rates in events/s'"
check "then the column names" "$(sed -n 2p "$TMP/text.out")" \
	bash -c "sed -n 2p '$TMP/text.out' | grep -qE '^time +alloc +fallback .* c_stall .* AnonHuge +freePMD +mTHP'"
n=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} ' "$TMP/text.out")
check "three lines for --count 3" "got $n: $(tr '\n' '|' <"$TMP/text.out" | cut -c1-300)" test "$n" -eq 3
check "no escape sequences when stdout is not a terminal" "found" \
	bash -c "! grep -q $'\033' '$TMP/text.out'"
# each line: time, 11 rates, AnonHugePages ("N kB" / "N.N MiB": 2 words), free PMD blocks
bad=$(awk '/^[0-9][0-9]:/ && NF < 15' "$TMP/text.out" | head -n1)
check "every line has all columns" "$bad" test -z "$bad"

# ---- JSON lines with real values -------------------------------------------------------------
HAVE_THP=0
[ -r "$THP/enabled" ] && ! grep -q '\[never\]' "$THP/enabled" && HAVE_THP=1
A=$(vmstat thp_fault_alloc)
"$T" watch --json -i 0.5 --count 6 --top 5 >"$TMP/json.out" 2>"$TMP/json.err" &
W=$!
PIDS+=("$W")
HP=
sleep 1.2
if [ "$HAVE_THP" -eq 1 ]; then
	"$H" hugepage 64 >"$TMP/hp.out" 2>&1 &
	PIDS+=($!)
	for ((i = 0; i < 100; i++)); do
		grep -q '^ready' "$TMP/hp.out" && break
		sleep 0.05
	done
	read -r word HP <"$TMP/hp.out" || true
	[ "${word:-}" = ready ] || HP=
fi
wait "$W"
rc=$?
B=$(vmstat thp_fault_alloc)
check "watch --json --count 6 exits 0" "exit $rc: $(head -c 300 "$TMP/json.err")" test "$rc" -eq 0
n=$(wc -l <"$TMP/json.out")
check "six JSON lines" "got $n" test "$n" -eq 6
export A B HP TMP
out=$(python3 - <<'PY' 2>&1
import json, os
lines = [json.loads(l) for l in open(os.environ["TMP"] + "/json.out")]
A, B = int(os.environ["A"]), int(os.environ["B"])
hp = os.environ.get("HP")
errs = []
keys = ["thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc", "thp_collapse_alloc_failed",
        "thp_split_page", "thp_split_pmd", "thp_deferred_split_page", "compact_stall",
        "compact_fail", "allocstall", "pgscan_direct"]
for i, l in enumerate(lines):
    for k in keys:
        if k not in l["rates_per_s"]:
            errs.append(f"line {i}: no rate {k}")
    iv = l["interval_s"]
    if not 0.3 < iv < 1.5:
        errs.append(f"line {i}: interval {iv}")
    d, r = l["deltas"]["thp_fault_alloc"], l["rates_per_s"]["thp_fault_alloc"]
    if d is None or abs(r - d / iv) > 1e-6 * max(1, r):
        errs.append(f"line {i}: rate {r} != delta {d} / {iv}")
    if l["free_pmd_blocks"] is None or l["anon_huge_pages_kb"] is None:
        errs.append(f"line {i}: free_pmd_blocks/anon_huge_pages_kb null")
total = sum(l["deltas"]["thp_fault_alloc"] for l in lines)
if hp:
    # the helper's 32 PMD faults happened inside the watched window
    if not 32 <= total <= B - A:
        errs.append(f"sum of thp_fault_alloc deltas {total} not in [32, {B - A}]")
    tops = [t for l in lines for t in l.get("top", []) if str(t["pid"]) == hp]
    if not tops:
        errs.append(f"helper {hp} never in top")
    elif not any(t["appeared"] and t["anon_huge_delta_kb"] == 65536 for t in tops):
        errs.append(f"helper in top but not as appeared with +65536 kB: {tops}")
elif total > B - A:
    errs.append(f"sum of deltas {total} > vmstat delta {B - A}")
print("; ".join(errs) if errs else f"ok total={total} vmstat={B - A}")
PY
)
check "JSON lines: every rate present, rate = delta / interval, sizes not null" "$out" \
	bash -c "! grep -q 'line [0-9]' <<<\"\$1\"" _ "$out"
if [ -n "$HP" ]; then
	check "sum of thp_fault_alloc deltas covers the helper's 32 faults and stays within vmstat's count" "$out" \
		bash -c "! grep -q 'sum of' <<<\"\$1\"" _ "$out"
	check "--top: the helper shows up as started with AnonHugePages +65536 kB" "$out" \
		bash -c "! grep -q 'helper' <<<\"\$1\"" _ "$out"
else
	skip "watch sees the helper's THP faults" "THP disabled (enabled=never) or helper failed"
	skip "--top sees the helper" "THP disabled or helper failed"
fi
check "watch --top leaves itself out" "$(grep -c "\"pid\":$W," "$TMP/json.out") lines name it" \
	bash -c "! grep -q '\"pid\":$W,' '$TMP/json.out'"

# ---- signals ---------------------------------------------------------------------------------
for sig in INT TERM; do
	"$T" watch -i 0.2 >"$TMP/sig.out" 2>"$TMP/sig-$sig.err" &
	W=$!
	PIDS+=("$W")
	sleep 1
	kill -"$sig" "$W"
	wait "$W"
	rc=$?
	n=$(grep -cE '^[0-9]{2}:' "$TMP/sig.out")
	check "SIG$sig ends watch with exit 0 after its lines ($n)" "exit $rc" test "$rc" -eq 0 -a "$n" -ge 2
done

# ---- a terminal: refreshed screen, colour only there and never with NO_COLOR -----------------------
if command -v script >/dev/null; then
	script -qec "$T watch -i 0.2 --count 2" /dev/null >"$TMP/tty.out" 2>"$TMP/tty.err"
	check "on a terminal: the screen is cleared and redrawn" "$(head -c 100 "$TMP/tty.out" | od -c | head -2)" \
		grep -q $'\033\\[H\033\\[2J' "$TMP/tty.out"
	check "on a terminal: colour (bold header)" "none" grep -q $'\033\\[1m' "$TMP/tty.out"
	NO_COLOR=1 script -qec "$T watch -i 0.2 --count 1" /dev/null >"$TMP/nocolor.out" 2>&1
	check "NO_COLOR: no colour on a terminal" "found" bash -c "! grep -q $'\033\\[1m' '$TMP/nocolor.out'"
	script -qec "$T watch -i 0.2 --count 1 --no-color" /dev/null >"$TMP/nocolor2.out" 2>&1
	check "--no-color: no colour on a terminal" "found" bash -c "! grep -q $'\033\\[1m' '$TMP/nocolor2.out'"
else
	skip "terminal checks" "script(1) not installed"
fi

# ---- nobody, recorded trees --------------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T" watch -i 0.3 --count 2 --top 3 \
		>"$TMP/nobody.out" 2>"$TMP/nobody.err"
	rc=$?
	check "watch --top as nobody exits 0" "exit $rc: $(head -c 300 "$TMP/nobody.err")" test "$rc" -eq 0
else
	skip "watch as nobody" "needs root for setpriv"
fi
fx=tests/fixtures/linux-6.18-x86
if [ -d "$fx" ]; then
	"$T" --sysroot "$fx" watch --json -i 0.2 --count 1 >"$TMP/fx.out" 2>"$TMP/fx.err"
	rc=$?
	out=$(python3 -c '
import json, sys
l = json.loads(open(sys.argv[1]).readline())
r = l["rates_per_s"]
bad = [k for k, v in r.items() if v not in (0, None)]
print(bad, r["thp_fault_alloc"], l["anon_huge_pages_kb"], l["free_pmd_blocks"])
' "$TMP/fx.out" 2>&1)
	# a recorded tree does not move: every rate 0, values from the tree
	want_ahp=$(awk '/^AnonHugePages:/ {print $2}' "$fx/proc/meminfo")
	check "watch on a recorded tree: exit 0, rates 0, AnonHugePages $want_ahp kB from the tree" \
		"exit $rc: $out" bash -c "test $rc -eq 0 && grep -q '^\[\] 0.0 $want_ahp [0-9]' <<<\"\$1\"" _ "$out"
fi

summary
