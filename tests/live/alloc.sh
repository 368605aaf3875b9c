#!/usr/bin/env bash
# Live tests of the allocator of a process (`why`, `ps --ledger`, `ps --json`,
# `capture` and its replay): sleep(1) started with LD_PRELOAD of Debian's
# allocator libraries (libjemalloc2, libtcmalloc-minimal4, libmimalloc2.0,
# as installed by scripts/install-deps --workloads) is named with the version
# its files give, compared with dpkg's; plain sleep with libc.so.6's own
# version string (getconf); a static executable with a .go.buildinfo section
# (made here from tests/elf/gofix's section) is Go with its version, and the
# same executable stripped is "unknown"; another user's process is unknown to
# nobody; a setuid program runs with AT_SECURE. Read-only towards the host.
#
#   THPCTL=path  binary to test (default build/asan/thpctl)
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init alloc
need_built "$T"
need_python3

# upstream part of an installed package's version ("1:5.3.0-1" -> 5.3.0), or ""
pkg_ver() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | sed -n 's/^install ok installed \([0-9]*:\)\{0,1\}\(.*\)-[^-]*$/\2/p'; }
lib_path() { ls /usr/lib/*/"$1" 2>/dev/null | head -n1; }

# start_sleep VAR [ENV...]: sleep 300 with ENV, its pid in VAR
start_sleep() {
	local var=$1
	shift
	env "$@" sleep 300 &
	track_pid $!
	printf -v "$var" '%s' $!
	sleep 0.2 # the loader has mapped its libraries
}

# check_kind NAME PID KIND VERSION VSRC: ps --json names KIND, VERSION (found by VSRC)
check_kind() {
	local name=$1 pid=$2
	export KIND=$3 VER=$4 VSRC=$5
	t ps --pid "$pid" --json
	expect_rc "$name: ps --json exits 0" 0
	expect_json "$name: ps --json names $3 $4 ($5)" "$TMP/out" \
		'(a := proc(E["PID"])["allocator"])["kind"] == E["KIND"] and a["version"] == E["VER"] and a["version_from"] == E["VSRC"] and a["evidence"] is not None' \
		'json.dumps(proc(E["PID"])["allocator"])[:300]'
}
export PID

# ---- Debian's allocator libraries, preloaded ------------------------------------
for spec in "jemalloc libjemalloc2 libjemalloc.so.2 version-string" \
	"tcmalloc libtcmalloc-minimal4 libtcmalloc_minimal.so.4 version-string" \
	"mimalloc libmimalloc2.0 libmimalloc.so.2 file-name"; do
	read -r kind pkg so vsrc <<<"$spec"
	lib=$(lib_path "$so")
	ver=$(pkg_ver "$pkg")
	if [ -z "$lib" ] || [ -z "$ver" ]; then
		skip "$kind preloaded" "$pkg not installed (scripts/install-deps --workloads)"
		continue
	fi
	# mimalloc's version is its file name's (libmimalloc.so.2.0): major.minor
	[ "$kind" = mimalloc ] && ver=$(cut -d. -f1,2 <<<"$ver")
	start_sleep PID "LD_PRELOAD=$lib"
	check_kind "LD_PRELOAD=$so" "$PID" "$kind" "$ver" "$vsrc"
	if [ "$kind" = jemalloc ]; then
		JE_PID=$PID JE_VER=$ver
		t why "$PID"
		expect_out "why names jemalloc $ver, the mapped library and how the version was read" \
			"^allocator: jemalloc $ver (/usr/lib/.*/libjemalloc.so.2 mapped, /proc/$PID/maps; version from its version string, read as data); LD_PRELOAD=.*  \[/proc/$PID/maps\]$"
		t ps --ledger --pid "$PID"
		expect_out "ps --ledger: the ALLOC column says jemalloc $(cut -d. -f1,2 <<<"$ver")" \
			"^ *PID  USER  COMM  *ALLOC " "^ *$PID  root  sleep  *jemalloc $(cut -d. -f1,2 <<<"$ver")  "
	fi
done

# ---- glibc ----------------------------------------------------------------------
start_sleep PID
GV=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
check_kind "plain sleep" "$PID" glibc "$GV" version-string
if [ "$ROOT" -eq 1 ]; then
	t_nobody ps --pid "$PID" --json
	expect_json "as nobody, root's sleep: unknown, maps unreadable" "$TMP/out" \
		'proc(E["PID"])["allocator"]["kind"] == "unknown" and proc(E["PID"])["allocator"]["unknown_reason"] == "maps-unreadable"'
fi

# ---- static executables: Go build info, stripped ---------------------------------
if command -v gcc >/dev/null && command -v objcopy >/dev/null && [ "$(uname -m)" = x86_64 ]; then
	printf '\t.globl _start\n\t.text\n_start:\n\tmov $34, %%eax\n\tsyscall\n\tjmp _start\n' >"$TMP/pause.S"
	if gcc -nostdlib -static -no-pie -o "$TMP/pause" "$TMP/pause.S" 2>"$TMP/cc.err" &&
		objcopy -O binary --only-section=.go.buildinfo tests/elf/gofix "$TMP/bi" &&
		objcopy --add-section .go.buildinfo="$TMP/bi" --set-section-flags .go.buildinfo=alloc,readonly,data \
			"$TMP/pause" "$TMP/gopause" 2>/dev/null && strip -o "$TMP/strippause" "$TMP/pause"; then
		"$TMP/gopause" &
		track_pid $!
		PID=$!
		"$TMP/strippause" &
		track_pid $!
		SPID=$!
		sleep 0.2
		t ps --pid "$PID" --json
		expect_json "a static executable with .go.buildinfo: go1.22.4, its DefaultGODEBUG" "$TMP/out" \
			'(a := proc(E["PID"])["allocator"])["kind"] == "go" and a["version"] == "go1.22.4" and a["evidence"] == "go-buildinfo" and a["go_default_godebug"] == "asynctimerchan=1,panicnil=1"'
		PID=$SPID
		t ps --pid "$PID" --json
		expect_json "a stripped static executable: unknown (stripped), never a guess" "$TMP/out" \
			'(a := proc(E["PID"])["allocator"])["kind"] == "unknown" and a["unknown_reason"] == "stripped" and a["version"] is None'
	else
		nok "static executables" "cannot build them: $(head -c 300 "$TMP/cc.err")"
	fi
else
	skip "static executables" "needs gcc, objcopy and x86-64"
fi

# ---- AT_SECURE: a setuid program ignores GLIBC_TUNABLES --------------------------
if [ "$ROOT" -eq 1 ]; then
	cp "$(command -v sleep)" "$TMP/suid-sleep" && chmod 4755 "$TMP/suid-sleep"
	"${NOBODY[@]}" env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$TMP/suid-sleep" 300 &
	track_pid $!
	PID=$!
	sleep 0.2
	t ps --pid "$PID" --json
	expect_json "setuid sleep: AT_SECURE from auxv; GLIBC_TUNABLES, where still in its environ, marked ignored" "$TMP/out" \
		'(a := proc(E["PID"])["allocator"])["at_secure"] is True and "at-secure" in a["notes"] and all(e["ignored"] for e in a["env"] if e["var"] == "GLIBC_TUNABLES")'
	start_sleep PID GLIBC_TUNABLES=glibc.malloc.hugetlb=1
	t ps --pid "$PID" --json
	expect_json "plain sleep: no AT_SECURE, GLIBC_TUNABLES applies to glibc" "$TMP/out" \
		'(a := proc(E["PID"])["allocator"])["at_secure"] is False and [e["applies"] and not e["ignored"] for e in a["env"]] == [True]'
else
	skip "AT_SECURE" "needs root to make a setuid copy"
fi

# ---- capture and replay ------------------------------------------------------------
if [ -n "${JE_PID:-}" ]; then
	PID=$JE_PID
	t capture -o "$TMP/cap.tar.gz" --pid "$PID"
	expect_rc "capture --pid (jemalloc) exits 0" 0
	t --sysroot "$TMP/cap.tar.gz" ps --pid "$PID" --json
	export JE_VER
	expect_json "the bundle replays jemalloc $JE_VER from capture/alloc/PID" "$TMP/out" \
		'(a := proc(E["PID"])["allocator"])["kind"] == "jemalloc" and a["version"] == E["JE_VER"] and a["recorded"] is True'
fi
summary
