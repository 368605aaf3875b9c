#!/usr/bin/env bash
# The .deb in a clean Debian 12 root, the way Debian proves a package: a minimal root
# (mmdebstrap --variant=apt bookworm, from the package archive; cached in build/pkgroot/, so a
# rerun needs no network), the package installed there by apt from the archive with
# --no-install-recommends (its Depends must be enough for `thpctl status` and the exporter),
# `thpctl status` in the chroot (/proc and /sys bound read-only), the exporter started by its
# unit's ExecStart line with its EnvironmentFile (PID 1 is not systemd here) as an
# unprivileged user with the unit's one capability, scraped on loopback and stopped with
# SIGTERM; the Recommends (capture's libarchive) installed and used; then remove (the
# conffile stays) and purge, the dependencies autoremoved, and nothing left: the file tree,
# users and groups as before. Then, in the same root, `make run` with the build dependencies
# alone (scripts/install-deps --list): it installs nothing more, builds and prints status
# (PKGROOT_MAKE_RUN=0 leaves that part out).
#
#   tests/package_root.sh [DEB]   (make package-test; builds the .deb with make deb when not given)
#
# Everything runs in a private mount namespace (unshare -m): the overlay on the cached root and
# the bind mounts vanish with it, whatever happens. The root itself is thrown away (overlayfs
# upper directory in $TMP). Needs root, mmdebstrap (scripts/install-deps --package-test) and,
# the first time, the Debian archive. Starts one server, on 127.0.0.1 only.
# Last line "package-root: N passed, M failed, K skipped".

# ---- the part that runs in the private mount namespace ---------------------------------
# inner TMP BASE ARCHIVES DEB: prints "ok - ", "not ok - ", "skip - " and "#" lines only
inner() {
	local TMP=$1 BASE=$2 ARCHIVES=$3 DEB=$4 SRC=${5:-} R=$1/root
	ok() { echo "ok - $1"; }
	nok() { echo "not ok - $1: $2"; }
	check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-$2}"; fi; }
	tailof() { tail -n "${2:-3}" "$1" 2>/dev/null | tr '\n' ' ' | cut -c1-300; }
	in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"; }
	# the tree as find sees it, without what dpkg, apt and the kernel own
	snap() {
		(cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
			-o -path ./run -o -path ./var/cache -o -path ./var/lib/apt -o -path ./var/lib/dpkg \
			-o -path ./var/log \) -prune -o -printf '%y %m %u:%g %p\n' | LC_ALL=C sort)
	}

	mkdir -p "$R" "$TMP/upper" "$TMP/work"
	mount --make-rprivate / || { nok "private mount namespace" "mount --make-rprivate failed"; return; }
	if ! mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$TMP/upper,workdir=$TMP/work" "$R" 2>"$TMP/ovl"; then
		echo "# no overlayfs ($(tailof "$TMP/ovl" 1)): a copy of the root"
		cp -a "$BASE/." "$R/"
	fi
	mount --bind /dev "$R/dev"
	mount -o bind,ro /proc "$R/proc"
	mount -o bind,ro /sys "$R/sys"
	[ -d /sys/fs/cgroup ] && mount -o bind,ro /sys/fs/cgroup "$R/sys/fs/cgroup" 2>/dev/null
	mount --bind "$ARCHIVES" "$R/var/cache/apt/archives"
	mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
	cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
	check "the clean root is Debian 12 (bookworm)" "grep -q '^VERSION_CODENAME=bookworm' '$R/etc/os-release'"
	snap >"$TMP/before"
	cp "$R/etc/passwd" "$TMP/passwd" && cp "$R/etc/group" "$TMP/group"

	# ---- install: apt resolves the Depends from the archive (cached .debs offline) ----
	cp "$DEB" "$R/tmp/thpctl.deb"
	install_deb() { in_root apt-get install -y --no-install-recommends /tmp/thpctl.deb >"$TMP/inst" 2>&1; }
	if ! install_deb; then
		# the lists of a cached root can be older than the archive: refresh them once
		in_root apt-get update -q >"$TMP/upd" 2>&1
		install_deb
	fi
	local rc=$?
	check "apt-get install --no-install-recommends ./thpctl.deb: exit 0" "[ $rc -eq 0 ]" "exit $rc: $(tailof "$TMP/inst")"
	[ $rc -eq 0 ] || return
	local depends recommends
	depends=$(dpkg-deb -f "$DEB" Depends) recommends=$(dpkg-deb -f "$DEB" Recommends)
	installed() { in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
	# every Depends is installed (by apt, from the archive), no Recommends is
	local p missing="" extra=""
	for p in $(sed -E 's/\([^)]*\)//g; s/[,|]/ /g' <<<"$depends"); do installed "$p" || missing="$missing $p"; done
	for p in $(sed -E 's/\([^)]*\)//g; s/[,|]/ /g' <<<"$recommends"); do installed "$p" && extra="$extra $p"; done
	check "Depends ($depends) installed, Recommends ($recommends) not" "[ -z '$missing' ] && [ -z '$extra' ]" \
		"missing:$missing; recommends installed:$extra"

	# ---- thpctl status, as root, /proc and /sys read-only ----
	in_root thpctl status >"$TMP/status" 2>"$TMP/status.err"
	rc=$?
	check "thpctl status in the clean root: exit 0, a Policy section" "[ $rc -eq 0 ] && grep -q '^Policy' '$TMP/status'" \
		"exit $rc: $(tailof "$TMP/status.err")"
	in_root thpctl --version >"$TMP/ver" 2>&1
	check "thpctl --version: $(dpkg-deb -f "$DEB" Version)" "grep -qx 'thpctl $(dpkg-deb -f "$DEB" Version)' '$TMP/ver'" \
		"got $(tailof "$TMP/ver" 1)"

	# ---- the exporter, as its unit starts it ----
	local unit=$R/lib/systemd/system/thpctl-exporter.service execstart envf
	execstart=$(sed -n 's/^ExecStart=//p' "$unit")
	envf=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$unit")
	check "the unit: one ExecStart (thpctl exporter \$ARGS), EnvironmentFile $envf in the package" \
		"[ \"\$execstart\" = '/usr/bin/thpctl exporter \$ARGS' ] && [ -f '$R$envf' ]" "ExecStart '$execstart', EnvironmentFile '$envf'"
	# the admin's edit: a port the kernel picks (the default, 9799, may be taken on a test host)
	sed -i 's/^ARGS=.*/ARGS="--listen 127.0.0.1:0"/' "$R$envf"
	# DynamicUser= and AmbientCapabilities=CAP_SYS_PTRACE, as setpriv does them
	chroot "$R" /usr/bin/env -i PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all,+sys_ptrace --ambient-caps=+sys_ptrace --bounding-set=-all,+sys_ptrace \
		sh -c "set -a; . '$envf'; set +a; exec $execstart" >"$TMP/exp.out" 2>"$TMP/exp.err" &
	local xpid=$! port="" i
	for i in $(seq 1 100); do
		port=$(sed -nE 's|.*listening on http://127\.0\.0\.1:([0-9]+)/metrics.*|\1|p' "$TMP/exp.err")
		[ -n "$port" ] && break
		kill -0 "$xpid" 2>/dev/null || break
		sleep 0.1
	done
	check "the exporter (ExecStart, as uid 65534 with CAP_SYS_PTRACE) listens on 127.0.0.1" "[ -n '$port' ]" \
		"$(tailof "$TMP/exp.err")"
	if [ -n "$port" ]; then
		local code
		code=$(curl -s -o "$TMP/metrics" -w '%{http_code}' "http://127.0.0.1:$port/metrics")
		check "scrape on loopback: 200, thp_ and thpctl_ metrics" \
			"[ '$code' = 200 ] && grep -q '^thpctl_build_info' '$TMP/metrics' && grep -q '^thp_setting_info' '$TMP/metrics'" \
			"HTTP $code, $(head -c 200 "$TMP/metrics")"
		code=$(curl -s -o "$TMP/landing" -w '%{http_code}' "http://127.0.0.1:$port/")
		check "GET /: 200, a page linking /metrics" "[ '$code' = 200 ] && grep -q 'href=\"/metrics\"' '$TMP/landing'" \
			"HTTP $code, $(head -c 200 "$TMP/landing")"
	fi
	kill -TERM "$xpid" 2>/dev/null
	wait "$xpid"
	rc=$?
	check "SIGTERM stops the exporter with exit 0 (systemctl stop)" "[ $rc -eq 0 ]" "exit $rc: $(tailof "$TMP/exp.err")"

	# ---- the Recommends: capture and --sysroot FILE.tar.gz need libarchive ----
	in_root thpctl capture -o /tmp/host.tar.gz >"$TMP/cap" 2>&1
	rc=$?
	check "capture without the Recommends: exit 1, says it cannot write bundles" \
		"[ $rc -eq 1 ] && grep -q 'cannot write bundles' '$TMP/cap'" "exit $rc: $(tailof "$TMP/cap")"
	for p in $(sed -E 's/\([^)]*\)//g; s/[,|]/ /g' <<<"$recommends"); do
		# as apt installs a Recommends: automatically, so autoremove takes it with the package
		in_root apt-get install -y "$p" >"$TMP/inst" 2>&1 && in_root apt-mark auto "$p" >/dev/null ||
			nok "apt-get install $p" "$(tailof "$TMP/inst")"
	done
	in_root thpctl capture -o /tmp/host.tar.gz >"$TMP/cap" 2>&1 &&
		in_root thpctl --sysroot /tmp/host.tar.gz status >"$TMP/cap.status" 2>>"$TMP/cap"
	rc=$?
	check "with the Recommends ($recommends): capture, then status of the bundle" \
		"[ $rc -eq 0 ] && grep -q '^Policy' '$TMP/cap.status'" "exit $rc: $(tailof "$TMP/cap")"

	# ---- remove, purge, autoremove: nothing left ----
	in_root apt-get remove -y thpctl >"$TMP/rm" 2>&1
	rc=$?
	check "apt-get remove: the conffile $envf stays, the binary goes" \
		"[ $rc -eq 0 ] && [ -f '$R$envf' ] && [ ! -e '$R/usr/bin/thpctl' ]" "exit $rc: $(tailof "$TMP/rm")"
	in_root apt-get purge -y thpctl >"$TMP/rm" 2>&1 && in_root apt-get autoremove --purge -y >>"$TMP/rm" 2>&1
	rc=$?
	check "apt-get purge thpctl, autoremove --purge: exit 0, no thpctl in dpkg" \
		"[ $rc -eq 0 ] && ! in_root dpkg-query -W thpctl >/dev/null 2>&1" "exit $rc: $(tailof "$TMP/rm")"
	snap >"$TMP/after"
	check "nothing left: the root's files and directories as before the install" \
		"cmp -s '$TMP/before' '$TMP/after'" "$(diff "$TMP/before" "$TMP/after" | grep '^[<>]' | head -n 8 | tr '\n' ' ')"
	check "no user or group added or left" "cmp -s '$TMP/passwd' '$R/etc/passwd' && cmp -s '$TMP/group' '$R/etc/group'" \
		"$(diff "$TMP/passwd" "$R/etc/passwd"; diff "$TMP/group" "$R/etc/group")"
	[ -n "$SRC" ] && make_run
}

# make_run: in the same root (clean again), the build dependencies alone (scripts/install-deps
# --list), then `make run` in a copy of the tree: it installs nothing more, builds, runs status
make_run() {
	local pkgs before after rc
	pkgs=$(cd "$SRC" && scripts/install-deps --list | tr '\n' ' ')
	in_root apt-get install -y --no-install-recommends $pkgs >"$TMP/bdeps" 2>&1
	rc=$?
	check "the build dependencies alone (install-deps --list: $pkgs): installed" "[ $rc -eq 0 ]" \
		"exit $rc: $(tailof "$TMP/bdeps")"
	[ $rc -eq 0 ] || return
	mkdir -p "$R/src"
	(cd "$SRC" && git ls-files -z -co --exclude-standard | tar -c --null -T -) | tar -x -C "$R/src"
	rm -rf "$R/src/build"
	in_root sh -c 'cd /src && scripts/install-deps --dry-run' >"$TMP/dry" 2>&1
	check "with the build deps only, make run's install-deps --dry-run lists nothing" "[ ! -s '$TMP/dry' ]" \
		"lists: $(tailof "$TMP/dry" 5)"
	before=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
	local t0=$SECONDS
	in_root sh -c 'cd /src && MAKEFLAGS=-j2 make run' >"$TMP/run" 2>&1
	rc=$?
	after=$(in_root dpkg-query -W -f='${Package}\n' | wc -l)
	echo "# make run in the clean root: $((SECONDS - t0)) s"
	check "make run with the build deps only: exit 0, thpctl status printed (Policy), no package added ($before -> $after)" \
		"[ $rc -eq 0 ] && grep -q '^Policy' '$TMP/run' && [ $before -eq $after ]" "exit $rc: $(tailof "$TMP/run" 4)"
}
if [ "${1:-}" = --inner ]; then
	shift
	inner "$@"
	exit 0
fi

# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL
suite_init package-root
start=$(date +%s)

if [ "$ROOT" -ne 1 ]; then
	skip "clean-root install" "needs root (chroot, mounts)"
	summary
fi
for c in mmdebstrap unshare curl dpkg-deb; do
	command -v "$c" >/dev/null || { skip "clean-root install" "$c missing (scripts/install-deps --package-test)"; summary; }
done

# the .deb: given, or built from this tree
DEB=${1:-}
if [ -z "$DEB" ]; then
	if ! make deb >"$TMP/deb" 2>&1; then
		nok "make deb" "$(grep -E '^E: |error' "$TMP/deb" | head -n 5 | tr '\n' ' ' | cut -c1-400)"
		summary
	fi
	DEB=$(ls build/deb/thpctl_"$(cat VERSION)"_*.deb | head -n1)
fi
[ -f "$DEB" ] || { nok "the .deb" "$DEB: no such file"; summary; }
DEB=$(realpath "$DEB")

# the clean root: built once from the archive, then reused (PKGROOT_REFRESH=1 rebuilds it)
CACHE=build/pkgroot
BASE=$CACHE/bookworm
mkdir -p "$CACHE/archives/partial"
if [ -n "${PKGROOT_REFRESH:-}" ] || [ ! -f "$BASE/etc/os-release" ]; then
	rm -rf "$BASE" "$BASE.new"
	t0=$(date +%s)
	if ! mmdebstrap --variant=apt --mode=root --skip=cleanup/apt/lists bookworm "$BASE.new" \
		>"$TMP/mmdebstrap" 2>&1; then
		rm -rf "$BASE.new"
		skip "clean-root install" "mmdebstrap bookworm failed (no Debian archive?): $(tail -n 2 "$TMP/mmdebstrap" | tr '\n' ' ' | cut -c1-200)"
		summary
	fi
	mv "$BASE.new" "$BASE"
	echo "# built the clean root $BASE (mmdebstrap --variant=apt bookworm): $(($(date +%s) - t0)) s"
else
	echo "# the clean root: $BASE, cached (built $(date -r "$BASE/etc/os-release" +%F))"
fi

# PKGROOT_MAKE_RUN=0: not the `make run` part (build deps into the root, a build there: minutes)
SRC=$PWD
[ "${PKGROOT_MAKE_RUN:-1}" = 0 ] && SRC=
relay_results "clean root" < <(unshare --mount --propagation private -- "$0" --inner "$TMP" \
	"$(realpath "$BASE")" "$(realpath "$CACHE/archives")" "$DEB" "$SRC" 2>"$TMP/inner.err")
[ -s "$TMP/inner.err" ] && echo "# stderr: $(head -c 300 "$TMP/inner.err" | tr '\n' ' ')"
echo "# package-root wall time: $(($(date +%s) - start)) s"
summary
