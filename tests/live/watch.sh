#!/usr/bin/env bash
# watch suite: `thpctl watch` (ASan+UBSan build) against the running kernel,
# with a helper that faults in 64 MiB of MADV_HUGEPAGE memory mid-run.
#
# Harness: tests/lib.sh (ok/not ok/skip lines, the last line "watch: N passed,
# M failed, K skipped", non-zero exit on failures). Read-only towards the host;
# every process started is stopped on exit.
#
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init watch

H=build/tests/thp_helper
# shellcheck disable=SC2016 # evaluated by summary
at_summary 'san_scan "$TMP"/*.err; expect_sanitizers_quiet "sanitizers quiet in every watch run"'

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
	expect_cmd "watch $bad: usage error (2)" "exit $rc" test "$rc" -eq 2
done
"$T" watch --help >"$TMP/help.out" 2>&1
expect_cmd "watch --help exits 0 and documents --top" "$(head -c 200 "$TMP/help.out")" \
	grep -q -- '--top N' "$TMP/help.out"

# ---- text, not a terminal --------------------------------------------------------------
# (without lib.sh's THPCTL_WIDE=1: the layout a pipe gets, 80 columns)
NOWIDE=(env -u THPCTL_WIDE -u COLUMNS)
"${NOWIDE[@]}" "$T" watch -i 0.3 --count 3 >"$TMP/text.out" 2>"$TMP/text.err"
rc=$?
expect_cmd "watch -i 0.3 --count 3 exits 0" "exit $rc: $(head -c 300 "$TMP/text.err")" test "$rc" -eq 0
expect_cmd "a header line with units first" "$(head -n1 "$TMP/text.out" | cut -c1-200)" \
	bash -c "head -n1 '$TMP/text.out' | grep -q '^# every 0.3 s; events/s of the /proc/vmstat counters'"
# a pipe is 80 columns: the compact layout, groups above short titles
expect_cmd "then the group line and the short titles (compact layout)" \
	"$(grep -A1 -m1 -- '-THP fault ' "$TMP/text.out")" \
	bash -c "grep -A1 -m1 -- '-THP fault ' '$TMP/text.out' | tr '\n' '@' |
		grep -qE '^ +-THP fault khugepaged -+split-+ compaction -+reclaim-+ Anon free@time +alloc fall alloc fail page +pmd defer stall fail stall scan Huge +PMD@$'"
n=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9] ' "$TMP/text.out") # -i 0.3: tenths of a second
expect_cmd "three lines for --count 3" "got $n: $(tr '\n' '|' <"$TMP/text.out" | cut -c1-300)" test "$n" -eq 3
expect_cmd "no escape sequences when stdout is not a terminal" "found" \
	bash -c "! grep -q $'\033' '$TMP/text.out'"
# each row: time, 11 rates, AnonHugePages ("968M"), free PMD blocks ("1506", "12k"): 14 words
bad=$(awk '/^[0-9][0-9]:/ && NF != 14' "$TMP/text.out" | head -n1)
expect_cmd "every row has all 14 columns" "$bad" test -z "$bad"
# the values are narrow: at most 4 characters ('!' after a stall), a known AnonHugePages
bad=$(awk '/^[0-9][0-9]:/ { for (i = 2; i <= NF; i++) { v = $i; sub(/!$/, "", v); if (length(v) > 4) print } }
	/^[0-9][0-9]:/ && $13 !~ /^([0-9]+|[0-9.]+[KMGT])$/' "$TMP/text.out" | head -n1)
expect_cmd "every value at most 4 characters, AnonHuge in K/M/G/T" "$bad" test -z "$bad"

# ---- the width: 80 columns on a pipe, --wide or a wide COLUMNS the one-line wide rows -----------
"${NOWIDE[@]}" "$T" watch -n 2 -i 0.2 >"$TMP/w80.out" 2>"$TMP/w80.err"
rc=$?
long=$(awk 'length > 80 { print NR ": " length " columns: " substr($0, 1, 100) }' "$TMP/w80.out" | head -n3)
n=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9] ' "$TMP/w80.out")
expect_cmd "watch -n 2 -i 0.2 on a pipe: every line fits 80 columns, 2 rows" \
	"exit $rc, $n rows; $long" bash -c "test $rc -eq 0 -a $n -eq 2 && test -z \"\$1\"" _ "$long"
for how in "--wide" "COLUMNS=160"; do
	if [ "$how" = --wide ]; then
		"${NOWIDE[@]}" "$T" watch --wide -n 2 -i 0.2 >"$TMP/wide.out" 2>"$TMP/wide.err"
	else
		"${NOWIDE[@]}" COLUMNS=160 "$T" watch -n 2 -i 0.2 >"$TMP/wide.out" 2>"$TMP/wide.err"
	fi
	rc=$?
	# the title line, then two rows of one line each: time, 11 rates, "N kB"/"N.N MiB", free
	rows=$(grep -cE '^[0-9]{2}:' "$TMP/wide.out")
	bad=$(awk '/^[0-9][0-9]:/ && (NF < 15 || length < 140)' "$TMP/wide.out" | head -n1)
	expect_cmd "$how: the wide title line and 2 one-line wide rows" \
		"exit $rc, $rows rows: $(grep -m1 '^time' "$TMP/wide.out" | cut -c1-120) $bad" \
		bash -c "test $rc -eq 0 -a $rows -eq 2 && test -z \"\$1\" &&
			grep -qE '^time +alloc +fallback +collapse +coll_fail .* c_stall .* AnonHuge +freePMD +mTHP$' '$TMP/wide.out' &&
			! grep -q -- '-THP fault ' '$TMP/wide.out'" _ "$bad"
done

# ---- JSON lines with real values -------------------------------------------------------------
HAVE_THP=0
[ -r "$THP/enabled" ] && ! grep -q '\[never\]' "$THP/enabled" && HAVE_THP=1
A=$(vmstat thp_fault_alloc)
"$T" watch --json -i 0.5 --count 8 --top 5 >"$TMP/json.out" 2>"$TMP/json.err" &
W=$!
track_pid "$W"
HP=
sleep 1.2
if [ "$HAVE_THP" -eq 1 ]; then
	start_helper HP "$H" hugepage 64 || HP=
fi
wait "$W"
rc=$?
B=$(vmstat thp_fault_alloc)
expect_cmd "watch --json --count 8 exits 0" "exit $rc: $(head -c 300 "$TMP/json.err")" test "$rc" -eq 0
n=$(wc -l <"$TMP/json.out")
expect_cmd "eight JSON lines" "got $n" test "$n" -eq 8
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
    # it may still be faulting its 64 MiB when it first shows: it appears with some of it,
    # and its deltas over the lines it shows in add up to what it has at its last line: all
    # 64 MiB, or less only when that is the last line of the run (a loaded host: the helper
    # still faulting when watch ended)
    else:
        last = tops[-1]
        in_last = any(str(t["pid"]) == hp for t in lines[-1].get("top", []))
        if not any(t["appeared"] and t["anon_huge_delta_kb"] > 0 for t in tops) or \
                sum(t["anon_huge_delta_kb"] for t in tops) != last["anon_huge_kb"] or \
                not (last["anon_huge_kb"] == 65536 or (in_last and 0 < last["anon_huge_kb"] < 65536)):
            errs.append(f"helper in top but not as appeared with deltas adding up to +65536 kB "
                        f"(or to what it had at the run's last line): {tops}")
elif total > B - A:
    errs.append(f"sum of deltas {total} > vmstat delta {B - A}")
print("; ".join(errs) if errs else f"ok total={total} vmstat={B - A}")
PY
)
expect_cmd "JSON lines: every rate present, rate = delta / interval, sizes not null" "$out" \
	bash -c "! grep -q 'line [0-9]' <<<\"\$1\"" _ "$out"
if [ -n "$HP" ]; then
	expect_cmd "sum of thp_fault_alloc deltas covers the helper's 32 faults and stays within vmstat's count" "$out" \
		bash -c "! grep -q 'sum of' <<<\"\$1\"" _ "$out"
	expect_cmd "--top: the helper shows up as started with AnonHugePages +65536 kB" "$out" \
		bash -c "! grep -q 'helper' <<<\"\$1\"" _ "$out"
else
	skip "watch sees the helper's THP faults" "THP disabled (enabled=never) or helper failed"
	skip "--top sees the helper" "THP disabled or helper failed"
fi
expect_cmd "watch --top leaves itself out" "$(grep -c "\"pid\":$W," "$TMP/json.out") lines name it" \
	bash -c "! grep -q '\"pid\":$W,' '$TMP/json.out'"

# ---- signals ---------------------------------------------------------------------------------
for sig in INT TERM; do
	"${DFL[@]}" "$T" watch -i 0.2 >"$TMP/sig.out" 2>"$TMP/sig-$sig.err" &
	W=$!
	track_pid "$W"
	sleep 1
	kill -"$sig" "$W"
	wait "$W"
	rc=$?
	n=$(grep -cE '^[0-9]{2}:' "$TMP/sig.out")
	expect_cmd "SIG$sig ends watch with exit 0 after its lines ($n)" "exit $rc" test "$rc" -eq 0 -a "$n" -ge 2
done

# ---- a terminal: refreshed screen, colour only there and never with NO_COLOR -----------------------
if command -v script >/dev/null; then
	script -qec "$T watch -i 0.2 --count 2" /dev/null >"$TMP/tty.out" 2>"$TMP/tty.err"
	expect_cmd "on a terminal: the screen is cleared and redrawn" "$(head -c 100 "$TMP/tty.out" | od -c | head -2)" \
		grep -q $'\033\\[H\033\\[2J' "$TMP/tty.out"
	expect_cmd "on a terminal: colour (bold header)" "none" grep -q $'\033\\[1m' "$TMP/tty.out"
	NO_COLOR=1 script -qec "$T watch -i 0.2 --count 1" /dev/null >"$TMP/nocolor.out" 2>&1
	expect_cmd "NO_COLOR: no colour on a terminal" "found" bash -c "! grep -q $'\033\\[1m' '$TMP/nocolor.out'"
	script -qec "$T watch -i 0.2 --count 1 --no-color" /dev/null >"$TMP/nocolor2.out" 2>&1
	expect_cmd "--no-color: no colour on a terminal" "found" bash -c "! grep -q $'\033\\[1m' '$TMP/nocolor2.out'"
else
	skip "terminal checks" "script(1) not installed"
fi

# ---- nobody, recorded trees --------------------------------------------------------------------
if [ "$ROOT" -eq 1 ]; then
	as_nobody "$T" watch -i 0.3 --count 2 --top 3 \
		>"$TMP/nobody.out" 2>"$TMP/nobody.err"
	rc=$?
	expect_cmd "watch --top as nobody exits 0" "exit $rc: $(head -c 300 "$TMP/nobody.err")" test "$rc" -eq 0
	# root's processes (init at least) cannot be read by nobody: said once, with the count
	expect_cmd "watch --top as nobody: the unreadable processes said once on stderr" \
		"$(head -c 300 "$TMP/nobody.err")" \
		bash -c "test \$(grep -c 'process(es) whose smaps_rollup this user cannot read' '$TMP/nobody.err') -eq 1"
else
	skip "watch as nobody" "needs root for setpriv"
fi
fx=tests/fixtures/linux-6.18-x86
if [ -d "$fx" ]; then
	"$T" --sysroot "$fx" watch --json -i 0.2 --count 1 >"$TMP/fx.out" 2>"$TMP/fx.err"
	rc=$?
	# a recorded tree does not move: its rates are unknown, not 0 (status --sample refuses too)
	expect_cmd "watch on a recorded tree: refused (exit 2), nothing on stdout, says why" \
		"exit $rc: $(head -c 300 "$TMP/fx.err")" \
		bash -c "test $rc -eq 2 && test ! -s '$TMP/fx.out' && grep -q 'a recorded tree does not move' '$TMP/fx.err'"
fi

summary
