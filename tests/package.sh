#!/usr/bin/env bash
# Packaging: LICENSE, the version (checkout and `git archive` tree), CFLAGS /
# CPPFLAGS / LDFLAGS honoured and -Werror only for developers, test hooks
# absent from the release binary, `make install DESTDIR=` + the installed
# `thpctl status`, `make uninstall`, the exporter's unit (systemd-analyze
# verify and security, and the capability it needs, shown with setpriv), the
# shell completions. Last line "package: N passed, M failed, K skipped".
#
# Read-only towards the host: thpctl runs status and exporter --once only.
# Builds a copy of the tree (git archive) once with packager flags: ~1 min.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
# not the flags of a make that runs this suite (make check passes DEVELOPER=1 down)
unset MAKEFLAGS MFLAGS MAKELEVEL
suite_init package

REL=build/thpctl
for f in "$REL" "$T"; do
	[ -x "$f" ] || {
		nok "preflight" "$f missing: make build/thpctl build/asan/thpctl"
		summary
	}
done

# ---- LICENSE ------------------------------------------------------------------
expect_eval "LICENSE: MIT, holder 'thpctl authors'" \
	"grep -q '^MIT License' LICENSE && grep -qE '^Copyright \(c\) [0-9]{4} thpctl authors$' LICENSE"

# ---- version ----------------------------------------------------------------------
want=$(scripts/version)
got=$("$REL" --version)
expect_eval "--version prints scripts/version's '$want'" "[ \"\$got\" = 'thpctl $want' ]" "got '$got'"
got=$("$REL" -V)
expect_eval "-V is --version" "[ \"\$got\" = 'thpctl $want' ]" "got '$got'"
if git describe --tags >/dev/null 2>&1; then
	expect_eval "version from git describe --tags" "[ \"$want\" = \"$(git describe --tags --dirty)\" ]"
else
	expect_eval "no tag: VERSION ($(cat VERSION)) plus the commit" \
		"[[ \"$want\" == \"$(cat VERSION)-g$(git rev-parse --short=7 HEAD)\"* ]]" "got '$want'"
fi

# a `git archive` tree (no .git) built as a packager would: flags appended, no -Werror
ARCH=$TMP/src
mkdir -p "$ARCH"
git archive HEAD | tar -x -C "$ARCH"
# the working tree's Makefile and sources, so uncommitted changes are what is tested
cp Makefile VERSION "$ARCH/" && cp -r src scripts "$ARCH/"
PKG_CFLAGS="-O2 -g -D_FORTIFY_SOURCE=2 -DTHPCTL_PKGTEST_MARK"
# as a packager would: not under make check's DEVELOPER=1 (passed down in MAKEFLAGS)
env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS -u DEVELOPER make -C "$ARCH" -n build/thpctl \
	CFLAGS="$PKG_CFLAGS" LDFLAGS="-Wl,-z,now" >"$TMP/dry" 2>&1
cc_lines=$(grep -c -- ' -c -o build/rel/' "$TMP/dry")
expect_eval "make CFLAGS=...: every compile line ($cc_lines) carries them" \
	"[ $cc_lines -gt 50 ] && [ \$(grep -- ' -c -o build/rel/' '$TMP/dry' | grep -c -- '-DTHPCTL_PKGTEST_MARK') = $cc_lines ]"
expect_eval "make LDFLAGS=...: the link line carries them" "grep -- '-o build/thpctl ' '$TMP/dry' | grep -q -- '-Wl,-z,now'"
expect_eval "no -Werror without DEVELOPER=1" "! grep -q -- '-Werror' '$TMP/dry'"
rm -rf "$ARCH/build"
make -C "$ARCH" -n build/thpctl build/asan/src/main.o DEVELOPER=1 >"$TMP/dry" 2>&1
expect_eval "DEVELOPER=1 (make check, CI): -Werror" "grep -- '-o build/rel/src/main.o' '$TMP/dry' | grep -q -- '-Werror'"
make -C "$ARCH" -n build/asan/src/main.o >"$TMP/dry" 2>&1
expect_eval "the ASan test build: -Werror always" "grep -- '-o build/asan/src/main.o' '$TMP/dry' | grep -q -- '-Werror'"
rm -rf "$ARCH/build"
if make -C "$ARCH" -j2 build/thpctl CFLAGS="-O2 -g -D_FORTIFY_SOURCE=2" LDFLAGS="-Wl,-z,relro,-z,now" >"$TMP/build" 2>&1; then
	ok "git archive tree builds with packager flags"
	got=$("$ARCH/build/thpctl" --version)
	expect_eval "git archive build reports VERSION ($(cat VERSION))" "[ \"\$got\" = 'thpctl $(cat VERSION)' ]" "got '$got'"
	expect_eval "LDFLAGS -z now reached the binary (BIND_NOW)" \
		"readelf -d '$ARCH/build/thpctl' | grep -qE 'BIND_NOW|FLAGS.*NOW'"
else
	nok "git archive tree builds with packager flags" "$(tail -n 5 "$TMP/build" | tr '\n' ' ' | cut -c1-300)"
fi

# ---- test hooks: in the ASan build only --------------------------------------------
hooks='THPCTL_TEST_SET_FAIL|THPCTL_TEST_SET_PAUSE|THPCTL_ETC|THPCTL_JOURNAL_DIR|THPCTL_TRACEFS_MOUNT'
n_rel=$(strings "$REL" | grep -cE "^($hooks)$")
n_asan=$(strings "$T" | grep -cE "^($hooks)$")
expect_eval "test hooks absent from the release binary ($n_rel), present in the ASan build ($n_asan of 5)" \
	"[ $n_rel -eq 0 ] && [ $n_asan -eq 5 ]"

# ---- make install / uninstall -------------------------------------------------------
D=$TMP/dest
make -s install DESTDIR="$D" PREFIX=/usr >"$TMP/inst" 2>&1
rc=$?
files="usr/bin/thpctl usr/libexec/thpctl/thpctl-churn usr/libexec/thpctl/thpctl-sweep.so usr/share/man/man1/thpctl.1 usr/share/bash-completion/completions/thpctl
usr/share/zsh/site-functions/_thpctl usr/share/thpctl/prometheus/thp-rules.yml
usr/share/thpctl/grafana/thpctl-dashboard.json usr/lib/systemd/system/thpctl-exporter.service etc/default/thpctl-exporter"
missing=$(for f in $files; do [ -f "$D/$f" ] || echo "$f"; done)
expect_eval "make install DESTDIR PREFIX=/usr: binary, man page, completions, rules, dashboard, unit, defaults" \
	"[ $rc -eq 0 ] && [ -z '$missing' ]" "exit $rc, missing: $missing $(tr '\n' ' ' <"$TMP/inst" | cut -c1-200)"
expect_eval "installed unit runs /usr/bin/thpctl with /etc/default/thpctl-exporter" \
	"grep -qx 'ExecStart=/usr/bin/thpctl exporter \$ARGS' '$D/usr/lib/systemd/system/thpctl-exporter.service' &&
	 grep -qx 'EnvironmentFile=-/etc/default/thpctl-exporter' '$D/usr/lib/systemd/system/thpctl-exporter.service'"
"$D/usr/bin/thpctl" status >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "the installed thpctl status: exit 0, a Policy section" "[ $rc -eq 0 ] && grep -q '^Policy' '$TMP/out'" \
	"exit $rc: $(errtail)"
expect_eval "the installed binary is build/thpctl" "cmp -s '$D/usr/bin/thpctl' '$REL'"
"$D/usr/bin/thpctl" ab --mode sweep:100 --runs 1 --warmup 0 --csv -- true >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_eval "the installed thpctl finds its sweep helper in ../libexec/thpctl/ (ab --mode sweep:100)" \
	"[ $rc -eq 0 ] && grep -q '^sweep:100,1,1,' '$TMP/out'" "exit $rc: $(errtail)"
echo "# keep" >>"$D/etc/default/thpctl-exporter"
make -s install DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1
expect_eval "make install again keeps an edited /etc/default/thpctl-exporter" "tail -n1 '$D/etc/default/thpctl-exporter' | grep -qx '# keep'"
make -s uninstall DESTDIR="$D" PREFIX=/usr >"$TMP/inst" 2>&1
left=$(cd "$D" && find . -type f | sort | tr '\n' ' ')
expect_eval "make uninstall removes all but the configuration" "[ '$left' = './etc/default/thpctl-exporter ' ]" "left: $left"

# ---- the exporter's unit ---------------------------------------------------------------
U=$TMP/unit
make -s install PREFIX="$U" >/dev/null 2>&1
UNIT=$U/lib/systemd/system/thpctl-exporter.service
if ! command -v systemd-analyze >/dev/null; then
	skip "thpctl-exporter.service: systemd-analyze" "systemd-analyze not installed"
else
	systemd-analyze verify --man=no "$UNIT" >"$TMP/verify" 2>&1
	expect_zero "thpctl-exporter.service: systemd-analyze verify" "$?" "$(tr '\n' ' ' <"$TMP/verify" | cut -c1-300)"
	if systemd-analyze security --offline=true "$UNIT" >"$TMP/sec" 2>&1; then
		score=$(sed -nE 's/.*exposure level for thpctl-exporter.service: ([0-9.]+).*/\1/p' "$TMP/sec")
		echo "# systemd-analyze security --offline=true: exposure $score"
		expect_eval "thpctl-exporter.service: exposure ${score:-?} <= 2.5 (OK)" \
			"[ -n '$score' ] && awk 'BEGIN{exit !($score <= 2.5)}'" "$(tail -n 3 "$TMP/sec")"
	else
		skip "thpctl-exporter.service: systemd-analyze security" "--offline not supported: $(head -n1 "$TMP/sec")"
	fi
fi
expect_eval "thpctl-exporter.service: one capability, CAP_SYS_PTRACE; dynamic user; sandboxed" \
	"grep -qx 'CapabilityBoundingSet=CAP_SYS_PTRACE' '$UNIT' && grep -qx 'AmbientCapabilities=CAP_SYS_PTRACE' '$UNIT' &&
	 grep -qx 'DynamicUser=yes' '$UNIT' && grep -qx 'ProtectSystem=strict' '$UNIT' && grep -qx 'NoNewPrivileges=yes' '$UNIT'"
# why CAP_SYS_PTRACE: as an unprivileged user it is what opens other users' smaps_rollup
if [ "$ROOT" -eq 1 ] && command -v setpriv >/dev/null; then
	unread() { sed -nE 's/^thpctl_processes_unreadable ([0-9]+)$/\1/p' "$1"; }
	# a root process with 16 MiB of anonymous memory, a candidate nobody cannot read: on a
	# quiet host (a fresh boot) no other root process may pass the statm prefilter
	RH=''
	[ -x build/tests/thp_helper ] && start_helper RH build/tests/thp_helper hugepage 16
	"$REL" exporter --once >"$TMP/e.root" 2>/dev/null
	as_nobody "$REL" exporter --once >"$TMP/e.nocap" 2>/dev/null
	as_nobody --inh-caps=+sys_ptrace --ambient-caps=+sys_ptrace --bounding-set=-all,+sys_ptrace \
		"$REL" exporter --once >"$TMP/e.cap" 2>/dev/null
	r=$(unread "$TMP/e.root") n=$(unread "$TMP/e.nocap") c=$(unread "$TMP/e.cap")
	echo "# processes unreadable: root $r, nobody $n, nobody+CAP_SYS_PTRACE $c"
	expect_eval "CAP_SYS_PTRACE alone reads what root reads (unreadable: root $r, nobody $n, +cap $c)" \
		"[ -n '$r' ] && [ -n '$n' ] && [ -n '$c' ] && [ $n -gt $c ] && [ $c -le $r ]"
else
	skip "CAP_SYS_PTRACE check" "needs root and setpriv"
fi

# ---- completions -----------------------------------------------------------------------
mkdir -p "$TMP/comp/tree" && : >"$TMP/comp/case.tar.gz" && : >"$TMP/comp/notes.txt"
comp=$(PATH="$PWD/build:$PATH" CT="$TMP/comp" bash -c '
	source contrib/completion/thpctl.bash
	complete -p thpctl
	c() { COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _thpctl; echo "$*|${COMPREPLY[*]}"; }
	c "thpctl st"; c "thpctl s"; c "thpctl ps --so"; c "thpctl ps --sort c"
	c "thpctl persist --format sy"; c "thpctl persist --format tu"; c "thpctl set khugepaged/max_ptes_n"; c "thpctl set enabled="
	c "thpctl lab ch"; c "thpctl snapshot d"
	COMP_LINE="thpctl maps $$"; COMP_POINT=${#COMP_LINE}; _thpctl
	[[ " ${COMPREPLY[*]} " == *" $$ "* || " ${COMPREPLY[*]} " == *" $$:bash "* ]] && echo "thpctl maps PID|PID (comm)"
	c "thpctl --color a"
	c "thpctl exporter --li"; c "thpctl exporter --top-c"; c "thpctl ps --by c"; c "thpctl re"; c "thpctl watch --rec"
	c "thpctl ca"; c "thpctl capture --al"; c "thpctl --sysroot $CT/"' 2>&1)
want_comp="complete -F _thpctl thpctl
thpctl st|status
thpctl s|status set snapshot
thpctl ps --so|--sort
thpctl ps --sort c|comm
thpctl persist --format sy|systemd sysctl
thpctl persist --format tu|tuned
thpctl set khugepaged/max_ptes_n|khugepaged/max_ptes_none=
thpctl set enabled=|$(tr -d '[]' <"$THP/enabled" | xargs -n1 | sort | xargs)
thpctl lab ch|chase
thpctl snapshot d|diff
thpctl maps PID|PID (comm)
thpctl --color a|auto always
thpctl exporter --li|--listen
thpctl exporter --top-c|--top-cgroups
thpctl ps --by c|cgroup
thpctl re|report
thpctl watch --rec|--record
thpctl ca|capture
thpctl capture --al|--all-processes
thpctl --sysroot $TMP/comp/|$TMP/comp/tree $TMP/comp/case.tar.gz"
if [ "$comp" = "$want_comp" ]; then
	ok "bash completion: complete -p, commands, options from --help, values, keys, experiments, PIDs"
else
	nok "bash completion" "$(diff <(echo "$want_comp") <(echo "$comp") | tr '\n' ' ' | cut -c1-400)"
fi
if command -v zsh >/dev/null; then
	zsh -n contrib/completion/_thpctl 2>"$TMP/zsh"
	expect_zero "zsh completion parses (zsh -n)" "$?" "$(head -c 300 "$TMP/zsh")"
else
	skip "zsh completion parses" "zsh not installed"
fi

# ---- command line: colour, errors, snapshot diff ------------------------------------------
ESC=$'\e'
"$T" --color=always status >"$TMP/out" 2>&1
expect_eval "--color=always: escapes without a tty" "grep -q \"\$ESC\" '$TMP/out'"
"$T" status --color never >"$TMP/out" 2>&1
expect_eval "--color never (after the command): no escapes" "! grep -q \"\$ESC\" '$TMP/out'"
# hugetlb reads its subcommand past the global options, their values too
"$T" hugetlb --color never plan --for 1G >"$TMP/out" 2>&1
expect_eval "hugetlb --color never plan: the value is not the subcommand" \
	"grep -q '^hugetlb plan: 1 GiB' '$TMP/out'" "$(head -c 200 "$TMP/out")"
if command -v script >/dev/null; then
	TERM=dumb script -qec "$T status" /dev/null >"$TMP/tty" 2>&1 </dev/null
	expect_eval "TERM=dumb on a tty: no escapes" "! grep -q \"\$ESC\" '$TMP/tty'"
	TERM=xterm script -qec "$T --color=never status" /dev/null >"$TMP/tty" 2>&1 </dev/null
	expect_eval "--color=never on a tty: no escapes" "! grep -q \"\$ESC\" '$TMP/tty'"
	TERM=xterm script -qec "$T --color=auto status" /dev/null >"$TMP/tty" 2>&1 </dev/null
	expect_eval "--color=auto on a tty (TERM=xterm): escapes" "grep -q \"\$ESC\" '$TMP/tty'"
else
	skip "colour on a tty" "script (util-linux) not installed"
fi
t --color=sometimes status
expect_eval "--color=sometimes: exit 2, 'thpctl: --color takes auto, always or never'" \
	"[ $RC -eq 2 ] && grep -q '^thpctl: --color takes auto, always or never' '$TMP/err'" "exit $RC: $(errtail)"
"./$T" --bogus >"$TMP/out" 2>"$TMP/err"
RC=$?
expect_eval "top-level parser errors say 'thpctl:', not the path (./$T)" \
	"[ $RC -eq 2 ] && head -n1 '$TMP/err' | grep -q \"^thpctl: unrecognized option '--bogus'\"" "exit $RC: $(errtail)"
# on a recorded tree: other engineers' live runs change this host's knobs for a while
FX=(--sysroot tests/fixtures/linux-6.18-x86)
t "${FX[@]}" snapshot save "$TMP/snap.json"
t "${FX[@]}" snapshot diff "$TMP/snap.json"
expect_eval "snapshot diff, no differences: exit 0" "[ $RC -eq 0 ] && grep -q '^no differences' '$TMP/out'" "exit $RC: $(head -c 200 "$TMP/out")"
python3 - "$TMP/snap.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = d["knobs"]
k["khugepaged/pages_to_scan"] = str(int(k["khugepaged/pages_to_scan"]) + 1)
json.dump(d, open(sys.argv[1], "w"))
PY
t "${FX[@]}" snapshot diff "$TMP/snap.json"
expect_eval "snapshot diff, one difference: exit 1 (like diff(1)), naming it" \
	"[ $RC -eq 1 ] && grep -q 'pages_to_scan' '$TMP/out'" "exit $RC: $(head -c 200 "$TMP/out") $(errtail)"
t "${FX[@]}" snapshot diff "$TMP/snap.json" --json
expect_eval "snapshot diff --json, one difference: exit 1" "[ $RC -eq 1 ]" "exit $RC"

# ---- scripts/install-deps: what each target installs ---------------------------------------
build_pkgs=$(scripts/install-deps --list | sort | tr '\n' ' ')
test_pkgs=$(scripts/install-deps --test --list | sort | tr '\n' ' ')
bench_pkgs=$(scripts/install-deps --bench --list | sort | tr '\n' ' ')
nonbuild=""
for p in prometheus wrk hyperfine clang clang-format cppcheck libcmocka-dev chromium redis-server \
	postgresql python3-numpy fio curl lintian mmdebstrap; do
	[[ " $build_pkgs" == *" $p "* ]] && nonbuild="$nonbuild $p"
done
expect_eval "install-deps (make run): the build deps only, no test or bench tool" "[[ ' $build_pkgs' == *' libjansson-dev '* ]] && [ -z '$nonbuild' ]" \
	"also installs:$nonbuild"
# hyperfine too: tests/live/bench_smoke.sh runs the benches that time with it; node_exporter
# stays --bench's (the smoke says the peer is missing)
expect_eval "install-deps --test (make check): prometheus, wrk, cmocka, clang, openssl, hyperfine; no node_exporter" \
	"[[ ' $test_pkgs' == *' prometheus '* && ' $test_pkgs' == *' wrk '* && ' $test_pkgs' == *' libcmocka-dev '* &&
	   ' $test_pkgs' == *' clang '* && ' $test_pkgs' == *' openssl '* && ' $test_pkgs' == *' hyperfine '* &&
	   ' $test_pkgs' != *' prometheus-node-exporter '* ]]" "$test_pkgs"
expect_eval "install-deps --bench (make bench): hyperfine, wrk" \
	"[[ ' $bench_pkgs' == *' hyperfine '* && ' $bench_pkgs' == *' wrk '* ]]" "$bench_pkgs"
# debian/control's Build-Depends and install-deps' build list name the same packages
bd=$(sed -n '/^Build-Depends:/,/^[A-Z][a-z-]*: /p' debian/control | sed -E '1s/^Build-Depends://; 2,$ {/^[A-Z]/d}; s/\([^)]*\)//g; s/,/ /g' |
	tr ' ' '\n' | grep -v -e '^$' -e '^debhelper-compat' | sort | tr '\n' ' ')
missing=$(for p in $bd; do [[ " $build_pkgs" == *" $p "* ]] || echo "$p"; done | tr '\n' ' ')
expect_eval "every Build-Depends of debian/control ($bd) is in install-deps' build list" \
	"[ -n '$bd' ] && [ -z '$missing' ]" "missing: $missing"
make -n run >"$TMP/run.n" 2>&1
make -n check >"$TMP/check.n" 2>&1
expect_eval "make run installs the build deps only (install-deps without an option), make check --test" \
	"grep -qx 'scripts/install-deps' '$TMP/run.n' && grep -qE '(^|; )scripts/install-deps --test( |;|\$)' '$TMP/check.n'"
# a host with the build deps only (dpkg-query answers for them alone): make run installs
# nothing, make check lists the test tools
mkdir -p "$TMP/shim"
printf '#!/bin/sh\nfor p in %s; do [ "$p" = "$3" ] && { printf "install ok installed"; exit 0; }; done\nexit 1\n' \
	"$build_pkgs" >"$TMP/shim/dpkg-query"
chmod +x "$TMP/shim/dpkg-query"
dry_run=$(PATH="$TMP/shim:$PATH" scripts/install-deps --dry-run)
dry_test=$(PATH="$TMP/shim:$PATH" scripts/install-deps --test --dry-run | tr '\n' ' ')
expect_eval "only the build deps installed: make run's install-deps --dry-run lists nothing" "[ -z '$dry_run' ]" "lists: $dry_run"
expect_eval "only the build deps installed: --test --dry-run lists the test tools ($dry_test)" \
	"[[ ' $dry_test' == *' prometheus '* && ' $dry_test' != *' libjansson-dev '* ]]" "$dry_test"
scripts/install-deps --bogus >/dev/null 2>&1
expect_eval "install-deps --bogus: exit 2" "[ $? -eq 2 ]"

# ---- the dlopen()ed libraries: one table, src/dlopen.libs ---------------------------------
# the sonames this build dlopen()s (make print-dlopen, from the table) are in the binary, and
# no source file names a soname of its own; debian/control takes the relations from it
bad=""
while read -r var soname field; do
	grep -q "^$var " src/dlopen.libs || bad="$bad $var not in the table;"
	strings "$REL" | grep -x -- "$soname" >/dev/null || bad="$bad $REL does not name $soname;"
	[[ "$field" == Depends || "$field" == Recommends ]] || bad="$bad $var: field $field;"
done < <(make -s --no-print-directory print-dlopen)
expect_eval "make print-dlopen: each library of src/dlopen.libs, its soname in $REL" \
	"[ -z '$bad' ] && [ \$(make -s --no-print-directory print-dlopen | wc -l) -eq \$(grep -vc '^#' src/dlopen.libs) ]" "$bad"
# start-up: the release binary maps libc alone (libjansson linked in from its archive where
# installed, libm dlopen()ed by the report's charts; ~0.12 ms a start, bench/ps.sh's start-up)
needed=$(readelf -d "$REL" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | paste -sd ' ')
if [ -e "$(${CC:-cc} -print-file-name=libjansson.a)" ]; then
	expect_eval "$REL needs libc alone ($needed)" "[ '$needed' = 'libc.so.6' ]"
else
	expect_eval "$REL needs no libm ($needed)" "! echo '$needed' | grep -q libm"
fi
# (in the files that dlopen(): libc.so.6 recognised in maps and the allocators lab preloads
# are names of other processes' libraries, not libraries thpctl loads)
lit=$(grep -rlE 'dlopen\(' src | xargs -r grep -nE '"lib[a-z0-9_-]+\.so\.[0-9]+"' | head -n 3 | tr '\n' ' ')
expect_eval "no soname literal where src/ calls dlopen() (the table is the one place)" "[ -z '$lit' ]" "$lit"
expect_eval "debian/control: Depends \${thpctl:Depends}, Recommends \${thpctl:Recommends}, no table package by name" \
	"grep -qx 'Depends: .*\${thpctl:Depends}' debian/control && grep -qx 'Recommends: \${thpctl:Recommends}' debian/control &&
	 ! grep -qE '^(Depends|Recommends):.*(libmicrohttpd|libarchive)' debian/control"
scripts/dlopen-deps >"$TMP/substvars" 2>&1
# (each Recommends with its shlibs version: libyaml-0-2, libcrypt1, libarchive13, zlib1g here)
expect_eval "scripts/dlopen-deps: the substvars from dpkg-query (Depends libmicrohttpd12 and libc6 for libm; Recommends libarchive13 and the three small ones)" \
	"grep -qx 'thpctl:Depends=libmicrohttpd12 (>= [0-9.]*), libc6 (>= [0-9.]*)' '$TMP/substvars' && grep -qxE 'thpctl:Recommends=(((libyaml-0-2|libcrypt1|libarchive13|zlib1g) \\(>= [0-9.:a-z-]+\\))(, |\$)){4}' '$TMP/substvars'" \
	"$(tr '\n' ' ' <"$TMP/substvars")"

# ---- the .deb ------------------------------------------------------------------------
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null || ! command -v lintian >/dev/null; then
	skip "make deb" "dpkg-buildpackage, dh or lintian missing (scripts/install-deps --deb)"
else
	make deb >"$TMP/deb" 2>&1
	rc=$?
	V=$(cat VERSION)
	DEB=$(ls build/deb/thpctl_"$V"_*.deb 2>/dev/null | head -n1)
	expect_eval "make deb: dpkg-buildpackage -b and lintian (no errors) pass" "[ $rc -eq 0 ] && [ -f '$DEB' ]" \
		"exit $rc: $(grep -E '^E: |error' "$TMP/deb" | head -n 5 | tr '\n' ' ' | cut -c1-400)"
	if [ -f "$DEB" ]; then
		X=$TMP/deb-root
		dpkg-deb -x "$DEB" "$X"
		"$X/usr/bin/thpctl" status >"$TMP/out" 2>"$TMP/err"
		rc=$?
		expect_eval "the .deb's thpctl (dpkg-deb -x) status: exit 0, a Policy section" \
			"[ $rc -eq 0 ] && grep -q '^Policy' '$TMP/out'" "exit $rc: $(errtail)"
		got=$("$X/usr/bin/thpctl" --version)
		expect_eval "the .deb's thpctl --version is VERSION ($V)" "[ \"\$got\" = 'thpctl $V' ]" "got '$got'"
		missing=$(for f in usr/libexec/thpctl/thpctl-churn usr/libexec/thpctl/thpctl-sweep.so usr/share/man/man1/thpctl.1.gz usr/share/bash-completion/completions/thpctl \
			usr/share/zsh/vendor-completions/_thpctl lib/systemd/system/thpctl-exporter.service \
			etc/default/thpctl-exporter usr/share/thpctl/prometheus/thp-rules.yml \
			usr/share/thpctl/grafana/thpctl-dashboard.json usr/share/doc/thpctl/copyright; do
			[ -f "$X/$f" ] || echo "$f"; done)
		expect_eval "the .deb holds the man page, completions, unit, defaults, rules, dashboard, copyright" "[ -z '$missing' ]" "missing: $missing"
		expect_eval "the .deb's binary is hardened (dpkg-buildflags reached it: BIND_NOW, PIE)" \
			"readelf -d '$X/usr/bin/thpctl' | grep -q 'BIND_NOW' && readelf -h '$X/usr/bin/thpctl' | grep -q 'DYN'"
		expect_eval "/etc/default/thpctl-exporter is a conffile" \
			"dpkg-deb -I '$DEB' conffiles | grep -qx /etc/default/thpctl-exporter"
		# the dlopen()ed libraries: the .deb's fields from the one table (src/dlopen.libs)
		bad=""
		while read -r var soname field pkg; do
			got=$(dpkg-deb -f "$DEB" "$field" | tr ',' '\n' | sed -E 's/^ *//; s/ .*//')
			other=$([ "$field" = Depends ] && echo Recommends || echo Depends)
			grep -qx "$pkg" <<<"$got" || bad="$bad $var: $pkg not in $field;"
			dpkg-deb -f "$DEB" "$other" | tr ',' '\n' | sed -E 's/^ *//; s/ .*//' | grep -qx "$pkg" &&
				bad="$bad $var: $pkg also in $other;"
			strings "$X/usr/bin/thpctl" | grep -x -- "$soname" >/dev/null || bad="$bad $var: the binary does not name $soname;"
		done < <(scripts/dlopen-deps --table)
		expect_eval "the .deb declares each dlopen()ed library as src/dlopen.libs says ($(dpkg-deb -f "$DEB" Depends); Recommends: $(dpkg-deb -f "$DEB" Recommends))" \
			"[ -z '$bad' ] && [ \$(scripts/dlopen-deps --table | wc -l) -ge 2 ]" "$bad"
		m=$(dpkg-deb -f "$DEB" Maintainer)
		expect_eval "Maintainer '$m': the project's identity, not example.org; the changelog's too" \
			"[[ '$m' =~ ^[^\<]+\ \<[^@]+@[^\>]+\>$ && '$m' != *example.org* ]] && grep -qF -- ' -- $m  ' debian/changelog"
	fi
fi

expect_sanitizers_quiet "sanitizers quiet"
summary
