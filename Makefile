# thpctl — see, measure and control Transparent Huge Pages.
#   make          build/thpctl (-O2)
#   make run      install missing build deps, build, run `thpctl status` on this host
#   make check    install missing build and test deps, make lint, build with ASan+UBSan, run all tests
#   make static   build/thpctl-static (static libc + jansson)
#   make fuzz     build the libFuzzer harnesses (clang) and run each for FUZZ_SECONDS (60)
#   make fmt | lint | bench | bench-check | clean | install | uninstall | deb | version
#
# Packagers: CFLAGS, CPPFLAGS and LDFLAGS (environment or command line) come
# after the project's own flags; -Werror only with DEVELOPER=1 (make check and
# .ci/run set it; the ASan test build always has it). PREFIX, DESTDIR,
# BINDIR, LIBEXECDIR, MANDIR, SYSCONFDIR, UNITDIR, BASHCOMPDIR, ZSHCOMPDIR: make install.

CC        ?= gcc
PKG_CONFIG ?= pkg-config
PREFIX    ?= /usr/local
# the version: `git describe --tags` in a checkout; without a tag, the release
# in VERSION plus the commit; VERSION alone in a tree without git (git archive)
VERSION   := $(shell scripts/version)

JANSSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
# libjansson is linked statically where its archive is installed (libjansson-dev ships it):
# mapping the shared library cost each start of thpctl ~0.05 ms (ps --rollup of 50 processes: ~5 ms).
# thpctl links no libm either: sqrt, floor, ceil and round are instructions under MATH_CFLAGS,
# and the report's charts dlopen() libm for log10 (src/render/svg.c; ~0.07 ms a start).
JANSSON_A      := $(shell $(CC) -print-file-name=libjansson.a)
comma          := ,
JANSSON_LIBS   := $(if $(filter /%,$(JANSSON_A)),-Wl$(comma)-Bstatic -ljansson -Wl$(comma)-Bdynamic,\
	$(shell $(PKG_CONFIG) --libs jansson 2>/dev/null || echo -ljansson))
MATH_CFLAGS    := -fno-math-errno -fno-trapping-math
CMOCKA_LIBS    := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# The libraries thpctl dlopen()s are named in one table, src/dlopen.libs (the .deb's
# Depends and Recommends come from it too). $(call dlopen_row,VAR,N): field N of row VAR;
# $(call dlopen_soname,VAR): the SONAME of the library built against, else the table's.
DLOPEN_TABLE := src/dlopen.libs
dlopen_row = $(shell awk '$$1 == "$(1)" {print $$$(2)}' $(DLOPEN_TABLE))
dlopen_soname = $(or $(shell readelf -d "$$($(CC) -print-file-name=$(call dlopen_row,$(1),2).so)" \
	2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p'),$(call dlopen_row,$(1),3))

# The HTTP listener of `thpctl exporter` (libmicrohttpd). HTTP=0 builds without it
# (then only --textfile and --once). The dynamic build does not link it: the
# exporter dlopen()s it (MHD_SONAME, read from the library built against) when it
# starts listening, so no other command maps it and its TLS stack (src/cmd/mhd_load.h).
# The static build links it only when libmicrohttpd and its dependencies
# (gnutls, p11-kit, ...) link statically: Debian ships no static p11-kit, so
# `make static` leaves it out there.
HTTP ?= $(shell $(PKG_CONFIG) --exists libmicrohttpd 2>/dev/null && echo 1 || echo 0)
# --web.config.file of the listener: libyaml (the YAML) and libcrypt (bcrypt). The dynamic build
# dlopen()s them when a --web.config.file is read (YAML_SONAME, CRYPT_SONAME: src/util/dl.h);
# the static build links them
WEB_LIBS = $(shell $(PKG_CONFIG) --libs yaml-0.1 2>/dev/null || echo -lyaml) \
	$(shell $(PKG_CONFIG) --libs libcrypt 2>/dev/null || echo -lcrypt)
ifeq ($(HTTP),1)
MHD_SONAME ?= $(call dlopen_soname,MHD)
YAML_SONAME ?= $(call dlopen_soname,YAML)
CRYPT_SONAME ?= $(call dlopen_soname,CRYPT)
MHD_CFLAGS := -DTHPCTL_HTTP=1 -DTHPCTL_MHD_SONAME='"$(MHD_SONAME)"' \
	-DTHPCTL_YAML_SONAME='"$(YAML_SONAME)"' -DTHPCTL_CRYPT_SONAME='"$(CRYPT_SONAME)"' \
	$(shell $(PKG_CONFIG) --cflags libmicrohttpd 2>/dev/null)
# dlopen: in libc since glibc 2.34, in libdl before
MHD_LIBS   := $(shell printf '\043include <dlfcn.h>\nint main(void){return !dlopen;}' | \
	$(CC) -x c - -o /dev/null >/dev/null 2>&1 || echo -ldl)
endif
STATIC_HTTP ?= $(shell printf 'int main(void){return 0;}' | $(CC) -static -x c - -o /dev/null \
	$$($(PKG_CONFIG) --static --libs libmicrohttpd 2>/dev/null) >/dev/null 2>&1 && echo 1 || echo 0)

# /proc/config.gz (the kernel's THP build default, `advise`): zlib when it is there, dlopen()ed
# when the file is read (ZLIB_SONAME: src/util/dl.h); the static build links it (ZLIB_LIBS).
ZLIB ?= $(shell $(PKG_CONFIG) --exists zlib 2>/dev/null && echo 1 || echo 0)
ifeq ($(ZLIB),1)
ZLIB_SONAME ?= $(call dlopen_soname,ZLIB)
ZLIB_CFLAGS := -DTHPCTL_ZLIB=1 -DTHPCTL_ZLIB_SONAME='"$(ZLIB_SONAME)"'
ZLIB_LIBS   := $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
endif

# libm: log10 for the report's log-scale charts, dlopen()ed when a chart is drawn (LIBM_SONAME:
# src/util/dl_libs.h); the static build links it
LIBM_SONAME ?= $(call dlopen_soname,LIBM)
LIBM_CFLAGS := -DTHPCTL_LIBM_SONAME='"$(LIBM_SONAME)"'

# thpctl capture and --sysroot FILE.tar.gz: libarchive (tar + gzip). The dynamic build does not
# link it: capture and the bundle reader dlopen() it (ARCHIVE_SONAME, read from the library
# built against), so no other command maps it and its dependencies (libxml2, ICU, libstdc++:
# ~3 MB of peak RSS; src/util/archive_load.h). The static build links it only when libarchive
# and all its dependencies link statically (Debian 12 ships no static libacl, libzstd,
# liblz4): else capture and --sysroot FILE.tar.gz say so and exit 1 (THPCTL_NO_ARCHIVE).
ARCHIVE_SONAME ?= $(call dlopen_soname,ARCHIVE)
ARCHIVE_CFLAGS := $(shell $(PKG_CONFIG) --cflags libarchive 2>/dev/null) \
	-DTHPCTL_ARCHIVE_SONAME='"$(ARCHIVE_SONAME)"'
ARCHIVE_LIBS   := $(shell printf '\043include <dlfcn.h>\nint main(void){return !dlopen;}' | \
	$(CC) -x c - -o /dev/null >/dev/null 2>&1 || echo -ldl)
ARCHIVE_STATIC_LIBS = $(shell $(PKG_CONFIG) --static --libs libarchive 2>/dev/null || echo -larchive)
STATIC_ARCHIVE ?= $(shell printf 'int main(void){return 0;}' | $(CC) -static -x c - -o /dev/null \
	$$($(PKG_CONFIG) --static --libs libarchive 2>/dev/null) >/dev/null 2>&1 && echo 1 || echo 0)

WARN    := -Wall -Wextra $(if $(filter 1,$(DEVELOPER)),-Werror) -Wformat=2 -Wshadow -Wstrict-prototypes -Wno-format-truncation
BASE    := -std=gnu11 -D_GNU_SOURCE $(WARN) $(MATH_CFLAGS) $(JANSSON_CFLAGS) -MMD -MP $(ZLIB_CFLAGS) $(ARCHIVE_CFLAGS) \
	$(LIBM_CFLAGS)
REL_CFLAGS  := $(BASE) -O2 -g $(MHD_CFLAGS) $(CPPFLAGS) $(CFLAGS)
ASAN_CFLAGS := $(BASE) -Werror -DTHPCTL_TEST_HOOKS=1 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all $(MHD_CFLAGS)
# static: no NSS (glibc's needs its shared modules at runtime): user names from /etc/passwd
STAT_CFLAGS  = $(BASE) -O2 -g -DTHPCTL_NO_NSS=1 -DTHPCTL_LIBS_LINKED=1 $(if $(filter 1,$(STATIC_HTTP)),-DTHPCTL_HTTP=1 -DTHPCTL_HTTP_LINKED=1) \
	$(if $(filter 1,$(STATIC_ARCHIVE)),-DTHPCTL_ARCHIVE_LINKED=1,-DTHPCTL_NO_ARCHIVE=1) $(CPPFLAGS) $(CFLAGS)
STAT_LIBS    = $(if $(filter 1,$(STATIC_HTTP)),$(shell $(PKG_CONFIG) --static --libs libmicrohttpd) $(WEB_LIBS))

SRC     := $(sort $(wildcard src/*.c src/*/*.c))
LIBSRC  := $(filter-out src/main.c,$(SRC))
TESTSRC := $(sort $(wildcard tests/unit/test_*.c))
HELPSRC := $(sort $(wildcard tests/live/*.c))
FUZZSRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
BENCHSRC := $(sort $(wildcard bench/*.c))

REL_OBJ  := $(SRC:%.c=build/rel/%.o)
ASAN_OBJ := $(SRC:%.c=build/asan/%.o)
ASAN_LIB := $(LIBSRC:%.c=build/asan/%.o)
STAT_OBJ := $(SRC:%.c=build/static/%.o)
TESTS    := $(TESTSRC:tests/unit/%.c=build/asan/tests/%)
HELPERS  := $(HELPSRC:tests/live/%.c=build/tests/%) build/tests/chase_static
BENCHBIN := $(BENCHSRC:bench/%.c=build/bench/%)

# libFuzzer harnesses (tests/fuzz/): clang with -fsanitize=fuzzer,address,undefined; the
# library objects built once with fuzzer-no-link into an archive, so each harness links only
# what its parser needs. tests/fuzz/probe says whether this clang has libFuzzer.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := $(filter-out -Wno-format-truncation,$(BASE)) -Wno-unknown-warning-option \
	-Wno-shadow -Wno-format-nonliteral \
	-DTHPCTL_TEST_HOOKS=1 -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all $(MHD_CFLAGS)
FUZZ_OBJ := $(LIBSRC:%.c=build/fuzz/%.o)
FUZZERS  := $(FUZZSRC:tests/fuzz/%.c=build/fuzz/%)

.PHONY: all run check test unit golden damaged live static fmt fmt-check lint bench bench-check clean install deps update-golden fuzz fuzzers fuzzers-if-clang \
	uninstall version deb print-dlopen package-test

all: build/thpctl build/thpctl-churn build/thpctl-sweep.so

# thpctl-churn: the workload `lab allocators` runs under each heap allocator (LD_PRELOAD): a
# program of its own, not sanitized (an allocator must own a process from its start)
CHURNSRC := src/lab/helper/thpctl-churn.c
build/thpctl-churn: $(CHURNSRC) build/rel/flags
	$(CC) $(REL_CFLAGS) $(LDFLAGS) -pthread -o $@ $(CHURNSRC) $(MHD_LIBS)

# thpctl-sweep.so: the LD_PRELOAD helper of `ab --sweep` (MADV_HUGEPAGE/NOHUGEPAGE on a share of
# each big anonymous region's 2 MiB slots); not sanitized (it is loaded into the measured program)
SWEEPSRC := src/lab/helper/thpctl-sweep.c
build/thpctl-sweep.so: $(SWEEPSRC) build/rel/flags
	$(CC) $(REL_CFLAGS) $(LDFLAGS) -shared -fPIC -o $@ $(SWEEPSRC) $(ARCHIVE_LIBS)

build/thpctl: $(REL_OBJ)
	$(CC) $(REL_CFLAGS) $(LDFLAGS) -o $@ $^ $(JANSSON_LIBS) $(MHD_LIBS) $(ARCHIVE_LIBS) -lpthread

build/asan/thpctl: $(ASAN_OBJ)
	$(CC) $(ASAN_CFLAGS) -o $@ $^ $(JANSSON_LIBS) $(MHD_LIBS) $(ARCHIVE_LIBS) -lpthread

build/thpctl-static: $(STAT_OBJ)
	$(CC) $(STAT_CFLAGS) $(LDFLAGS) -static -o $@ $^ $(STAT_LIBS) $(shell $(PKG_CONFIG) --static --libs jansson 2>/dev/null || echo -ljansson) -lm $(ZLIB_LIBS) $(if $(filter 1,$(STATIC_ARCHIVE)),$(ARCHIVE_STATIC_LIBS)) -lpthread

# only util/version.o holds the version (build/version changes with it); objects
# rebuild when their flags change (build/KIND/flags: DEVELOPER=1, CFLAGS=...)
flags_stamp = $(shell mkdir -p $(1))$(if $(filter-out $(file <$(1)/flags),$(2))$(filter-out $(2),$(file <$(1)/flags)),$(file >$(1)/flags,$(2)))
$(call flags_stamp,build,$(VERSION))
$(call flags_stamp,build/rel,$(REL_CFLAGS) $(LDFLAGS))
$(call flags_stamp,build/asan,$(ASAN_CFLAGS))
$(REL_OBJ) $(HELPERS): build/rel/flags
$(ASAN_OBJ): build/asan/flags
build/rel/src/util/version.o build/asan/src/util/version.o build/static/src/util/version.o: build/flags
build/rel/src/util/version.o: REL_CFLAGS += -DTHPCTL_VERSION='"$(VERSION)"'
build/asan/src/util/version.o: ASAN_CFLAGS += -DTHPCTL_VERSION='"$(VERSION)"'
build/static/src/util/version.o: STAT_CFLAGS += -DTHPCTL_VERSION='"$(VERSION)"'

build/rel/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) -c -o $@ $<

build/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -c -o $@ $<

build/static/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(STAT_CFLAGS) -c -o $@ $<

build/asan/tests/%: tests/unit/%.c $(ASAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ASAN_CFLAGS) -Isrc -o $@ $^ $(JANSSON_LIBS) $(CMOCKA_LIBS) $(MHD_LIBS) $(ARCHIVE_LIBS) $(UNIT_LIBS) -lm -lpthread

# test_kconfig writes its gzip files with zlib itself (thpctl dlopen()s it)
build/asan/tests/test_kconfig: UNIT_LIBS = $(ZLIB_LIBS)

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

build/fuzz/libthpctl.a: $(FUZZ_OBJ)
	rm -f $@ && ar rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/libthpctl.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Isrc -o $@ $< build/fuzz/libthpctl.a \
		$(JANSSON_LIBS) $(MHD_LIBS) $(ARCHIVE_LIBS) -lm -lpthread

fuzzers: $(FUZZERS)

# make check: the harnesses when clang has libFuzzer (else the fuzz suite says why it skips)
fuzzers-if-clang:
	@if FUZZ_CC=$(FUZZ_CC) tests/fuzz/probe >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory fuzzers; fi

fuzz: fuzzers
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

# live-test helpers: plain -O2, no sanitizers (they map and touch real memory)
build/tests/%: tests/live/%.c $(wildcard tests/live/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) -pthread -Isrc -o $@ $<

# the chase program linked statically: ab --sweep falls back to host settings for it (an
# LD_PRELOAD helper never loads into a static program): tests/live/sweep.sh
build/tests/chase_static: tests/live/chase_malloc.c
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) -static -Isrc -o $@ $<

# bench helpers (the C floors the benches compare with): plain -O2
build/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) -o $@ $<

deps:
	@scripts/install-deps

run: deps
	@$(MAKE) --no-print-directory build/thpctl
	build/thpctl status

# STATIC_HTTP is probed once here (a test link) and handed down
static:
	@$(MAKE) --no-print-directory build/thpctl-static STATIC_HTTP=$(STATIC_HTTP)

# make check: the build and test dependencies (scripts/install-deps --test; `make run` installs
# the build deps only), make lint, then the builds in parallel (JOBS, default one per CPU: the
# ASan objects, the unit tests and the fuzz harnesses) while the programs only the tests need
# (workloads, chromium) install beside them (network and dpkg, not the compilers), then every
# suite; each step says its wall time and the installs' output comes after the build's
CHECK_BUILD = build/thpctl build/thpctl-churn build/thpctl-sweep.so build/asan/thpctl $(TESTS) $(HELPERS) $(BENCHBIN) fuzzers-if-clang
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check:
	@t0=$$(date +%s); scripts/install-deps --test || exit 1; \
	echo "check: build and test dependencies took $$(($$(date +%s) - t0)) s"; mkdir -p build; \
	( scripts/install-deps --workloads || echo "check: the workload programs (redis, postgresql, python3-numpy, fio) are not all installed: their lab smokes skip"; \
	  scripts/install-deps --report || echo "check: no chromium: the report suite's rendering checks skip"; \
	  echo "check: installs took $$(($$(date +%s) - t0)) s (the tests' programs beside the build)" ) >build/check-installs.log 2>&1 & ip=$$!; \
	t1=$$(date +%s); $(MAKE) --no-print-directory lint; lrc=$$?; \
	$(MAKE) --no-print-directory -j$(JOBS) $(CHECK_BUILD) DEVELOPER=1; brc=$$?; \
	wait $$ip; cat build/check-installs.log; \
	if [ $$lrc -ne 0 ]; then echo "check: make lint failed (exit $$lrc)"; exit $$lrc; fi; \
	if [ $$brc -ne 0 ]; then echo "check: build failed (exit $$brc)"; exit $$brc; fi; \
	$(MAKE) --no-print-directory -j$(JOBS) test DEVELOPER=1; rc=$$?; \
	echo "check: lint, build and test run took $$(($$(date +%s) - t1)) s (make -j$(JOBS))"; exit $$rc

test: $(CHECK_BUILD)
	@tests/run-all

unit: $(TESTS)
	@tests/run-unit

golden: build/asan/thpctl
	@tests/golden.sh

damaged: build/asan/thpctl
	@tests/damaged.sh

update-golden: build/asan/thpctl
	@tests/golden.sh --update

live: build/asan/thpctl build/thpctl-churn build/thpctl-sweep.so $(HELPERS)
	@tests/live/run.sh

# make bench: every figure, recorded under bench/results/ (bench/lib.sh: bench_record), then the
# benchmark tables rewritten from the records (scripts/bench-table; docs/benchmarks.md)
bench: build/thpctl $(HELPERS) $(BENCHBIN) fuzzers-if-clang
	@scripts/install-deps --bench
	bench/ps.sh
	bench/lab.sh
	bench/exporter.sh
	bench/folios.sh
	bench/maps.sh
	bench/trace.sh
	bench/ab.sh
	bench/fuzz.sh
	$(MAKE) --no-print-directory build/asan/thpctl && MUTANTS=320 tests/mutate.py
	SAFETY_PAIRS=200 tests/live/safety.sh
	scripts/bench-table

# make bench-check: make check on a fresh clone, timed and recorded (15-30 min of the whole machine)
bench-check:
	bench/check.sh
	scripts/bench-table

fmt:
	clang-format -i $(SRC) $(CHURNSRC) $(SWEEPSRC) $(wildcard src/*.h src/*/*.h) $(TESTSRC) $(HELPSRC) $(wildcard tests/live/*.h) $(FUZZSRC) tests/fuzz/fuzz.h $(BENCHSRC)

fmt-check:
	clang-format --dry-run --Werror $(SRC) $(CHURNSRC) $(SWEEPSRC) $(wildcard src/*.h src/*/*.h) $(TESTSRC) $(HELPSRC) $(wildcard tests/live/*.h) $(FUZZSRC) tests/fuzz/fuzz.h $(BENCHSRC)

# varFuncNullUB: the NULL that ends json_obj()'s pairs is glibc's ((void *)0), a pointer (the
# declaration has __attribute__((sentinel)), which gcc checks)
lint: fmt-check
	scripts/check-structure
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--std=c11 --inline-suppr -D_GNU_SOURCE -DTHPCTL_ARCHIVE_SONAME='"$(ARCHIVE_SONAME)"' $(LIBM_CFLAGS) \
		--suppress=missingIncludeSystem --suppress=varFuncNullUB src

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, the man page, the
# bash and zsh completions, the alert rules, the Grafana dashboard, the exporter's unit and its
# /etc/default file (kept when present: it is the admin's)
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DATADIR     ?= $(PREFIX)/share/thpctl
SYSCONFDIR  ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR     ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
LIBEXECDIR  ?= $(PREFIX)/libexec
INSTALLED := $(BINDIR)/thpctl $(LIBEXECDIR)/thpctl/thpctl-churn $(LIBEXECDIR)/thpctl/thpctl-sweep.so $(MANDIR)/man1/thpctl.1 $(BASHCOMPDIR)/thpctl \
	$(ZSHCOMPDIR)/_thpctl $(DATADIR)/prometheus/thp-rules.yml \
	$(DATADIR)/grafana/thpctl-dashboard.json $(UNITDIR)/thpctl-exporter.service

install: build/thpctl build/thpctl-churn build/thpctl-sweep.so
	install -D -m 0755 build/thpctl $(DESTDIR)$(BINDIR)/thpctl
	install -D -m 0755 build/thpctl-churn $(DESTDIR)$(LIBEXECDIR)/thpctl/thpctl-churn
	install -D -m 0644 build/thpctl-sweep.so $(DESTDIR)$(LIBEXECDIR)/thpctl/thpctl-sweep.so
	install -D -m 0644 man/thpctl.1 $(DESTDIR)$(MANDIR)/man1/thpctl.1
	install -D -m 0644 contrib/completion/thpctl.bash $(DESTDIR)$(BASHCOMPDIR)/thpctl
	install -D -m 0644 contrib/completion/_thpctl $(DESTDIR)$(ZSHCOMPDIR)/_thpctl
	install -D -m 0644 contrib/prometheus/thp-rules.yml $(DESTDIR)$(DATADIR)/prometheus/thp-rules.yml
	install -D -m 0644 contrib/grafana/thpctl-dashboard.json \
		$(DESTDIR)$(DATADIR)/grafana/thpctl-dashboard.json
	@mkdir -p $(DESTDIR)$(UNITDIR)
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		contrib/systemd/thpctl-exporter.service.in >$(DESTDIR)$(UNITDIR)/thpctl-exporter.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/thpctl-exporter.service
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/thpctl-exporter ] || \
		install -D -m 0644 contrib/systemd/thpctl-exporter.default \
		$(DESTDIR)$(SYSCONFDIR)/default/thpctl-exporter

# leaves $(SYSCONFDIR)/default/thpctl-exporter (configuration) in place
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR)/grafana $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(LIBEXECDIR)/thpctl 2>/dev/null

version:
	@echo $(VERSION)

# make package-test: the .deb installed from the archive into a clean Debian 12 root, run (status,
# the exporter by its unit's ExecStart), removed and purged (tests/package_root.sh; the root is
# cached in build/pkgroot/). Needs root and, the first time, the Debian archive.
package-test:
	@scripts/install-deps --package-test
	@tests/package_root.sh

# this build's dlopen()ed libraries, one a line: VAR SONAME FIELD (scripts/dlopen-deps)
DLOPEN_BUILT := $(if $(filter 1,$(HTTP)),MHD YAML CRYPT) ARCHIVE $(if $(filter 1,$(ZLIB)),ZLIB) LIBM
print-dlopen:
	@$(foreach v,$(DLOPEN_BUILT),echo '$(v) $($(v)_SONAME) $(call dlopen_row,$(v),4)';)

# make deb: the .deb from a copy of this tree (tracked and untracked files, as
# they are) in build/deb/thpctl-VERSION, so dpkg-buildpackage's output lands in
# build/deb/ (thpctl_VERSION_ARCH.deb), then lintian on it (errors fail)
DEB_VERSION = $(shell cat VERSION)
deb:
	@scripts/install-deps --deb
	rm -rf build/deb && mkdir -p build/deb/thpctl-$(DEB_VERSION)
	git ls-files -z -co --exclude-standard | tar -c --null -T - | tar -x -C build/deb/thpctl-$(DEB_VERSION)
	cd build/deb/thpctl-$(DEB_VERSION) && dpkg-buildpackage -b -us -uc
	lintian --fail-on error build/deb/thpctl_$(DEB_VERSION)_*.deb

clean:
	rm -rf build

-include $(REL_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(STAT_OBJ:.o=.d) $(TESTS:=.d) $(FUZZ_OBJ:.o=.d) $(FUZZERS:=.d)
