#!/usr/bin/env bash
# JSON contract: every --json document thpctl prints is validated against its JSON Schema
# (docs/json/CMD.json, or docs/json/CMD.VARIANT.json for a command's second shape), chosen
# by the document's first key, "schema": "thpctl.CMD[.VARIANT]/1".
#   - every command of `thpctl --help` has docs/json/CMD.json (or is in NO_JSON below);
#   - every schema file is used by at least one run here (no stale schema);
#   - the runs: each recorded tree under tests/fixtures/ with --sysroot (RECORDED; JOBS at
#     a time, one per CPU), then
#     the live host (LIVE: read-only commands, dry runs, one short lab experiment, a
#     1 s trace, an ab of `true`; as root, run it under flock /tmp/thpctl-live.lock like
#     every live suite; as another user the root-only ones skip).
# A new command: its schema file (scripts/json-schema-infer drafts one from outputs) and
# one line in RECORDED or LIVE. The validator is tests/json_schema.py (python3-jsonschema).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
suite_init json-schema
need_built "$T"
need_python3
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	nok "preflight" "no python3-jsonschema (scripts/install-deps --test)"
	summary
fi

# commands without a --json document of their own (run execs CMD)
NO_JSON="run"

# the commands of the command table, as --help lists them
mapfile -t CMDS < <("$T" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
expect_eval "command list" '[ ${#CMDS[@]} -ge 10 ]' "--help listed ${#CMDS[@]} commands"
for c in "${CMDS[@]}"; do
	if [[ " $NO_JSON " == *" $c "* ]]; then
		expect_eval "$c: no JSON output, no schema" '[ ! -e docs/json/$c.json ]' \
			"docs/json/$c.json exists but $c is in NO_JSON"
	else
		expect_eval "$c has a schema" '[ -f docs/json/$c.json ]' "no docs/json/$c.json"
	fi
done

OUT=$TMP/docs
mkdir -p "$OUT"
n=0
# save ARGS...: run thpctl ARGS, keep stdout as one document (or JSON lines) for the validator
save() {
	local rc
	n=$((n + 1))
	"$T" "$@" >"$OUT/$n.json" 2>"$TMP/err"
	rc=$?
	# exit 1 is a verdict for some (snapshot diff with differences, a failed plan): the
	# document is still checked; a crash or usage error is not
	if [ "$rc" -gt 1 ] || grep -qE 'Sanitizer|runtime error:' "$TMP/err" || [ ! -s "$OUT/$n.json" ]; then
		nok "runs: $*" "exit $rc, $(tail -n2 "$TMP/err" | tr '\n' ' ')"
		rm -f "$OUT/$n.json"
		return 1
	fi
	printf '%s\n' "$*" >"$OUT/$n.args"
}

# save_bg ARGS...: as save, for the recorded trees' runs, which are independent: JOBS of them
# at once (default one per CPU); their failures are reported by saved_bg, in order
BG=()
save_bg() {
	n=$((n + 1))
	BG+=("$n")
	while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-$(nproc 2>/dev/null || echo 1)}" ]; do wait -n; done
	(
		"$T" "$@" >"$OUT/$n.json" 2>"$OUT/$n.err"
		rc=$?
		if [ "$rc" -gt 1 ] || grep -qE 'Sanitizer|runtime error:' "$OUT/$n.err" || [ ! -s "$OUT/$n.json" ]; then
			printf '%s\t%s\n' "$*" "exit $rc, $(tail -n2 "$OUT/$n.err" | tr '\n' ' ')" >"$OUT/$n.fail"
			rm -f "$OUT/$n.json"
		else
			printf '%s\n' "$*" >"$OUT/$n.args"
		fi
		rm -f "$OUT/$n.err"
	) &
}
saved_bg() {
	wait
	local i what why
	for i in "${BG[@]}"; do
		[ -f "$OUT/$i.fail" ] || continue
		IFS=$'\t' read -r what why <"$OUT/$i.fail"
		nok "runs: $what" "$why"
		rm -f "$OUT/$i.fail"
	done
}

tests/restore-modes || nok "fixture modes" "cannot restore them from MODES"
# Recorded trees: every command that reads the kernel, on every tree.
RECORDED=(
	"status --json" "status --brief --json" "ps --all --json" "ps --all --rollup --json"
	"ps --all --by cgroup --json" "cgroups --json" "advise --json" "advise --workload redis --json"
	"hugetlb plan --for 8G --json" "exporter --once --json" "snapshot save -"
	"ps --min-ahp 1T --json" # no process matches: its sums are unknown (null)
	"ps --all --ledger --json" # a recorded tree: every scanned part unknown (null, recorded-tree)
)
# plans of settings, on the trees whose knobs take them (malformed and readonly-container
# refuse them: tests/live/control.sh and golden.sh check those refusals)
SETTINGS=("persist --json" "persist --format cmdline --json" "set --dry-run enabled=never --json")
# PID-taking commands on the trees that recorded those processes
declare -A RECORDED_PIDS=([linux-6.18-x86]="30730 30734" [malformed]="30735" [alloc-x86]="30740 30742 30744")
for d in tests/fixtures/*/; do
	fx=$(basename "$d")
	for cmd in "${RECORDED[@]}"; do
		read -r -a argv <<<"$cmd"
		# a tree without proc/ (what sos collects of THP): ps says so and exits 1, no document
		[ -d "$d/proc" ] || [ "${argv[0]}" != ps ] || continue
		save_bg --sysroot "$d" "${argv[@]}"
	done
	case $fx in malformed | readonly-container) ;; *)
		for cmd in "${SETTINGS[@]}"; do
			read -r -a argv <<<"$cmd"
			save_bg --sysroot "$d" "${argv[@]}"
		done ;;
	esac
	for pid in ${RECORDED_PIDS[$fx]:-}; do
		save_bg --sysroot "$d" maps "$pid" --json
		save_bg --sysroot "$d" why "$pid" --json
	done
done
saved_bg

# Live host. Under run-all, the recorded trees above ran beside the live suites; the live
# part holds run-all's lock (RUN_ALL_LIVE_LOCK) so that no other suite runs thpctl meanwhile
if [ -n "${RUN_ALL_LIVE_LOCK:-}" ]; then
	exec {LIVE_LOCK_FD}>>"$RUN_ALL_LIVE_LOCK"
	t_lock=$SECONDS
	flock "$LIVE_LOCK_FD"
	echo "# json-schema: waited $((SECONDS - t_lock)) s for the live suites' lock"
fi
sleep 3600 & # ended by the cleanup registry (track_pid); long enough for a loaded host
SPID=$!
track_pid "$SPID"
snap=$TMP/snap.json
"$T" snapshot save "$snap" >/dev/null 2>&1 || nok "live: snapshot save" "cannot save $snap"
"$T" watch -i 0.2 -n 3 --record "$TMP/rec.jsonl" >/dev/null 2>&1 || nok "live: watch --record" "cannot record $TMP/rec.jsonl"
# a process that holds THP (folio_helper layout: PMD-mapped under MADV_HUGEPAGE, no file
# pages in those VMAs): the sleep above has none, so its maps --folios, --underused and why
# wrote no VMA, no largest_hg and no null share, and a wrong type there went unseen
THP_RUNS=()
if [ ! -x build/tests/folio_helper ]; then
	skip "live: maps --folios/--underused, why of a process with THP" "no build/tests/folio_helper (make build/tests/folio_helper)"
elif start_helper FH build/tests/folio_helper layout; then
	THP_RUNS=("maps $FH --folios --json" "maps $FH --folios --cont 64K --json"
		"maps $FH --underused --json" "why $FH --json")
fi
LIVE=(
	"${THP_RUNS[@]}"
	"status --json" "status --brief --json" "status --sample 1 --json" "ps --all --json"
	"ps --ledger --json" "ps --folios --json" "ps --folios --cont 64K --json"
	"maps $SPID --json" "maps $SPID --folios --cont 64K --json" "maps $SPID --underused --json"
	"why $SPID --json" "advise --json" "hugetlb plan --for 1G --json" "cgroups --json"
	"lab list --json" "exporter --once --json" "snapshot save -" "snapshot diff $snap --json"
	"snapshot restore $snap --dry-run --json" "set --dry-run defrag=madvise --json"
	"persist --json" "watch -i 0.2 -n 3 --json" "watch -i 0.2 -n 3 --top 3 --json"
	"collapse $SPID --dry-run --json"
	"snapshot save $TMP/snap2.json --json" "report $TMP/rec.jsonl -o $TMP/rec.html --json"
	"capture -o $TMP/cap.tar.gz --json" "--sysroot $TMP/cap.tar.gz status --json"
	"--sysroot $TMP/cap.tar.gz cgroups --json" "--sysroot $TMP/cap.tar.gz ps --by cgroup --json"
)
# root: they change the host (journalled and put back) or trace it
LIVE_ROOT=(
	"lab touch --quick --runs 1 --json" "trace stalls --duration 1 --json"
	"ab --runs 1 --warmup 0 --modes off,host --json -- true"
	"ab --sweep --runs 1 --warmup 0 --json -- build/tests/chase_malloc 8M 10k"
)
for cmd in "${LIVE[@]}"; do
	read -r -a argv <<<"$cmd"
	save "${argv[@]}"
done
some=--some-runs
if [ "$ROOT" = 1 ]; then
	some=
	for cmd in "${LIVE_ROOT[@]}"; do
		read -r -a argv <<<"$cmd"
		save "${argv[@]}"
	done
	# persist --install into a scratch /etc ($THPCTL_ETC, a hook of test builds only: never
	# with a binary without it): a file written, another replaced (kept, dropped), unchanged
	if grep -qa THPCTL_ETC "$T"; then
		for v in never madvise madvise; do
			THPCTL_ETC=$TMP/etc save persist "enabled=$v" --install --json
		done
	else
		skip "live: persist --install --json" "$T has no THPCTL_ETC hook (not a test build)"
	fi
else
	skip "live root-only runs" "not root: ${LIVE_ROOT[*]}"
fi
# the recording's sample lines (its first line, {"recording": ...}, is the page's header): each
# a watch line plus settings, validated as one (they had no schema key)
n=$((n + 1))
grep '"time_s"' "$TMP/rec.jsonl" >"$OUT/$n.json" 2>/dev/null
printf '%s\n' "watch --record FILE (its sample lines)" >"$OUT/$n.args"
[ -s "$OUT/$n.json" ] || { nok "runs: watch --record" "no sample line in $TMP/rec.jsonl"; rm -f "$OUT/$n.json" "$OUT/$n.args"; }
# flock -u: the lock goes even though the sleep above inherited the descriptor
[ -n "${LIVE_LOCK_FD:-}" ] && flock -u "$LIVE_LOCK_FD" && exec {LIVE_LOCK_FD}>&-

# the validator itself: a status document with one key renamed, one removed, must fail
neg=$TMP/neg
mkdir -p "$neg"
"$T" --sysroot tests/fixtures/linux-6.18-x86 status --json >"$TMP/st.json" 2>/dev/null
python3 - "$TMP/st.json" "$neg" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = dict(d)
a["policy"] = {("hpage_pmd_size" if k == "hpage_pmd_size_bytes" else k): v for k, v in d["policy"].items()}
b = {k: v for k, v in d.items() if k != "usage"}
for i, x in enumerate((a, b), 1):
    json.dump(x, open("%s/%d.json" % (sys.argv[2], i), "w"))
    open("%s/%d.args" % (sys.argv[2], i), "w").write("status --json\n")
PY
bad=$(python3 tests/json_schema.py docs/json "$neg" --some-runs | grep -c '^not ok - status --json')
expect_eval "validator: a renamed key and a missing key fail" '[ "$bad" = 2 ]' "$bad of 2 failed"

# JSON_SCHEMA_KEEP=DIR: keep the documents (N.json, N.args) there, e.g. for scripts/json-schema-infer
[ -n "${JSON_SCHEMA_KEEP:-}" ] && mkdir -p "$JSON_SCHEMA_KEEP" && cp "$OUT"/* "$JSON_SCHEMA_KEEP"/
relay_results "validator" < <(python3 tests/json_schema.py docs/json "$OUT" $some)
summary
