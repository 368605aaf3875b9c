#!/usr/bin/env bash
# Live tests of `thpctl lab fileread`: random 4 KiB reads through mmap of a
# file of ours (page cache), private tmpfs mounts (huge=never/always/
# within_size), anon THP and MAP_HUGETLB. Asserts the proofs, not the speed:
# each mode's backing in its region's smaps (FilePmdMapped, ShmemPmdMapped,
# AnonHugePages, Private_Hugetlb), no faults in the timed passes, the claims
# with a call each; the host's settings as found afterwards; no mount, no
# directory and no undo file left, also after a SIGTERM (the guard's signal
# hook) and a SIGKILL (the next thpctl command as root undoes it); a nobody
# run skips with the reason.
#
# As root this CHANGES host settings through thpctl (enabled, the hugetlb
# pool; journalled and restored by thpctl) and mounts tmpfs under $TMPDIR.
# Run it as `flock /tmp/thpctl-live.lock bash tests/live/wl_fileread.sh`.
#   THPCTL=path  test another thpctl binary (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init wl-fileread

[ -x "$T" ] || { nok "binary" "$T missing (make build/asan/thpctl)"; summary; }
command -v python3 >/dev/null || { nok "python3" "needed to read the JSON"; summary; }
[ -d "$THP" ] || { skip "fileread" "no $THP: this kernel has no THP"; summary; }
BG=
TD=${TMPDIR:-/tmp}

# leftovers: mounts, private directories, undo files of dead thpctl runs ("" when none)
leftovers() {
	local f pid
	grep -o 'thpctl-fileread[^ ]* ' /proc/mounts | tr '\n' ' '
	find "$TD" -maxdepth 1 -name 'thpctl-fileread.*' 2>/dev/null | tr '\n' ' '
	for f in /run/thpctl/undo.*; do
		[ -e "$f" ] || continue
		pid=${f##*.}
		kill -0 "$pid" 2>/dev/null || printf '%s ' "$f"
	done
}

# none NAME TEXT: ok when TEXT is empty, else not ok with it
none() { if [ -z "$2" ]; then ok "$1"; else nok "$1" "$2"; fi; }

# shellcheck disable=SC2317 # runs at exit (at_exit)
cleanup() {
	if [ -n "$BG" ]; then
		kill -KILL "$BG" 2>/dev/null
		wait "$BG" 2>/dev/null
	fi
	[ "$ROOT" -eq 1 ] && "$T" status >/dev/null 2>&1 # undoes a killed run's mounts
	settings_put_back "$TMP/base"
}

# ---- as nobody: a clean skip with the reason --------------------------------
t_nobody lab fileread --quick --json --quiet
expect_json "nobody: skipped, says it needs root" "$TMP/out" \
	"d['experiments'][0]['verdict']['skipped'] and 'root' in d['experiments'][0]['verdict']['text']" \
	"d['experiments'][0]['verdict']"
# shellcheck disable=SC2016 # expanded by expect_eval's eval
expect_eval "nobody: exit 0 or 1, no crash" '[ "$RC" -le 1 ]' "exit $RC: $(errtail)"

if [ "$ROOT" -ne 1 ]; then
	skip "fileread (root)" "needs root"
	summary
fi
quiet_begin fileread cleanup
L0=$(leftovers)
none "no leftovers before" "$L0"

# ---- a full --quick run --------------------------------------------------------
timeout -s TERM 300 "$T" lab fileread --quick --yes --json --quiet >"$TMP/fr.json" 2>"$TMP/fr.err"
RC=$?
san_note "lab fileread" "$TMP/fr.err"
expect_rc "lab fileread --quick: exit 0" 0
python3 - "$TMP/fr.json" >"$TMP/checks" <<'PY'
import json, sys
out = []
def check(n, cond, why):
    out.append(f"ok - {n}" if cond else f"not ok - {n}: {why}")
try:
    e = json.load(open(sys.argv[1]))["experiments"][0]
except Exception as ex:  # noqa: BLE001
    print(f"not ok - fileread: JSON: {ex}")
    sys.exit(0)
v = e["verdict"]
check("verdict as expected (backing proven in every mode)", v["expected"] is True, v["text"][:300])
check("every proof read", e["partial"] is False, str(e["proofs"])[:300])
kb = e["size_bytes"] // 1024
pages = e["size_bytes"] // 4096
rows = {r["label"]: r["cells"] for r in e["rows"]}
def med(label, col):
    c = rows.get(label, {}).get(col)
    return None if c is None else c["median"]
def lo(label, col):
    c = rows.get(label, {}).get(col)
    return None if c is None else c["min"]
fs = [l for l in rows if l.endswith(" MADV_NOHUGEPAGE") and not l.startswith("anon")]
check("a page cache 4K row names its filesystem", len(fs) == 1, list(rows))
fsname = fs[0].split(" ")[0] if fs else "?"
proofs = {p["key"]: p["text"] for p in e["proofs"]}
check("setup proof names the filesystem (statfs)", proofs.get("setup", "").startswith(fsname + " file"),
      proofs.get("setup"))
want = {
    f"{fsname} MADV_NOHUGEPAGE": ("FilePmdMapped", 0),
    "tmpfs huge=never": ("ShmemPmdMapped", 0),
    "tmpfs huge=always": ("ShmemPmdMapped", kb),
    "tmpfs huge=within_size": ("ShmemPmdMapped", kb),
    "anon MADV_NOHUGEPAGE": ("AnonHugePages", 0),
    "anon, enabled=always": ("AnonHugePages", kb),
    "anon MADV_HUGEPAGE, madvise": ("AnonHugePages", kb),
}
hugetlb_skipped = proofs.get("hugetlb pool", "").startswith("MAP_HUGETLB skipped")
if not hugetlb_skipped:
    want["MAP_HUGETLB"] = ("Private_Hugetlb", kb)
else:
    out.append("skip - MAP_HUGETLB: " + proofs["hugetlb pool"][:120])
for label, (col, k) in want.items():
    c = rows.get(label, {}).get(col)
    check(f"{label}: {col} {k} kB in every run", c is not None and c["min"] == k and c["max"] == k,
          c)
for label in (f"{fsname} enabled=never", f"{fsname} enabled=always"):
    c = rows.get(label, {}).get("FilePmdMapped")
    check(f"{label}: FilePmdMapped read (a number, not null)", c is not None and c["min"] >= 0, c)
for label in rows:
    check(f"{label}: no fault in the timed passes", med(label, "timed faults") == 0,
          rows[label].get("timed faults"))
check("anon 4K: a fault per page to fill it", (lo("anon MADV_NOHUGEPAGE", "faults") or 0) >= pages,
      rows.get("anon MADV_NOHUGEPAGE", {}).get("faults"))
check("anon THP: a fault per PMD, not per page",
      0 < (med("anon MADV_HUGEPAGE, madvise", "faults") or 0) < pages // 100,
      rows.get("anon MADV_HUGEPAGE, madvise", {}).get("faults"))
cl = e.get("claims", [])
check("six claims", len(cl) == 6, [c.get("claim") for c in cl])
check("each claim has a call from the three and a why",
      all(c["call"] in ("confirmed", "contradicted", "inconclusive") and c["why"] for c in cl),
      [(c["claim"], c["call"]) for c in cl])
check("claims name the field report by what it measured",
      all("random 4 KiB reads" in c["source"] or "hand run" in c["source"] for c in cl),
      [c["source"] for c in cl])
check("enabled finding in the verdict", "enabled for the " + fsname in v["text"], v["text"])
print("\n".join(out))
PY
relay_results fileread <"$TMP/checks"
expect_settings_as_found "settings as found after the run" "$TMP/base" || settings_put_back "$TMP/base"
L=$(leftovers)
none "no mount, directory or undo file left" "$L"

# ---- interrupted: SIGTERM (the guard's hook) and SIGKILL (the next command) ----
# start_bg: a run in the background; waits until its third tmpfs mount is up
start_bg() {
	"${DFL[@]}" "$T" lab fileread --quick --yes --quiet >/dev/null 2>"$TMP/bg.err" &
	BG=$!
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "thpctl-fileread.*mnt-within_size" /proc/mounts && return 0
		kill -0 "$BG" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
if start_bg; then
	sleep 1
	kill -TERM "$BG"
	wait "$BG" 2>/dev/null
	BG=
	L=$(leftovers)
	none "SIGTERM: mounts and directory removed by the signal hook" "$L"
	expect_settings_as_found "SIGTERM: settings as found" "$TMP/base" || settings_put_back "$TMP/base"
else
	nok "SIGTERM: run started" "no mount within 60 s: $(head -c 300 "$TMP/bg.err")"
fi
if start_bg; then
	sleep 1
	kill -KILL "$BG"
	wait "$BG" 2>/dev/null
	BG=
	L=$(leftovers)
	if [ -n "$L" ]; then ok "SIGKILL: the mounts outlive the killed run"; else nok "SIGKILL: the mounts outlive the killed run" "none left"; fi
	t status
	# shellcheck disable=SC2016 # expanded by expect_eval's eval
	expect_eval "SIGKILL: the next command says what it removed" \
		'grep -q "removed lab directory" "$TMP/err"' "stderr: $(errtail)"
	L=$(leftovers)
	none "SIGKILL: the next thpctl command removed mounts and directory" "$L"
	expect_settings_as_found "SIGKILL: settings as found" "$TMP/base" || settings_put_back "$TMP/base"
else
	nok "SIGKILL: run started" "no mount within 60 s: $(head -c 300 "$TMP/bg.err")"
fi
expect_sanitizers_quiet "sanitizers quiet"
summary
