# thpctl — see, measure and control Transparent Huge Pages.
#   make          build/thpctl (-O2)
#   make run      install missing deps, build, run `thpctl status` on this host
#   make check    install missing deps, build with ASan+UBSan, run all tests
#   make static   build/thpctl-static (static libc + jansson)
#   make fmt | lint | bench | clean | install

CC        ?= gcc
PKG_CONFIG ?= pkg-config
PREFIX    ?= /usr/local
VERSION   := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

JANSSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
JANSSON_LIBS   := $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null || echo -ljansson) -lm
CMOCKA_LIBS    := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

# The HTTP listener of `thpctl exporter` (libmicrohttpd). HTTP=0 builds without it
# (then only --textfile and --once). The dynamic build does not link it: the
# exporter dlopen()s it (MHD_SONAME, read from the library built against) when it
# starts listening, so no other command maps it and its TLS stack (src/cmd/mhd_load.h).
# The static build links it only when libmicrohttpd and its dependencies
# (gnutls, p11-kit, ...) link statically: Debian ships no static p11-kit, so
# `make static` leaves it out there.
HTTP ?= $(shell $(PKG_CONFIG) --exists libmicrohttpd 2>/dev/null && echo 1 || echo 0)
ifeq ($(HTTP),1)
MHD_SONAME ?= $(or $(shell readelf -d "$$($(CC) -print-file-name=libmicrohttpd.so)" 2>/dev/null | \
	sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p'),libmicrohttpd.so.12)
MHD_CFLAGS := -DTHPCTL_HTTP=1 -DTHPCTL_MHD_SONAME='"$(MHD_SONAME)"' \
	$(shell $(PKG_CONFIG) --cflags libmicrohttpd 2>/dev/null)
# dlopen: in libc since glibc 2.34, in libdl before
MHD_LIBS   := $(shell printf '\043include <dlfcn.h>\nint main(void){return !dlopen;}' | \
	$(CC) -x c - -o /dev/null >/dev/null 2>&1 || echo -ldl)
endif
STATIC_HTTP ?= $(shell printf 'int main(void){return 0;}' | $(CC) -static -x c - -o /dev/null \
	$$($(PKG_CONFIG) --static --libs libmicrohttpd 2>/dev/null) >/dev/null 2>&1 && echo 1 || echo 0)

# /proc/config.gz (the kernel's THP build default, `advise`): zlib when it is there.
ZLIB ?= $(shell $(PKG_CONFIG) --exists zlib 2>/dev/null && echo 1 || echo 0)
ifeq ($(ZLIB),1)
ZLIB_CFLAGS := -DTHPCTL_ZLIB=1
ZLIB_LIBS   := $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
endif

WARN    := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes -Wno-format-truncation
BASE    := -std=gnu11 -D_GNU_SOURCE -DTHPCTL_VERSION='"$(VERSION)"' $(WARN) $(JANSSON_CFLAGS) -MMD -MP $(ZLIB_CFLAGS)
REL_CFLAGS  := $(BASE) -O2 -g $(MHD_CFLAGS)
ASAN_CFLAGS := $(BASE) -DTHPCTL_TEST_HOOKS=1 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all $(MHD_CFLAGS)
STAT_CFLAGS  = $(BASE) -O2 -g $(if $(filter 1,$(STATIC_HTTP)),-DTHPCTL_HTTP=1 -DTHPCTL_HTTP_LINKED=1)
STAT_LIBS    = $(if $(filter 1,$(STATIC_HTTP)),$(shell $(PKG_CONFIG) --static --libs libmicrohttpd))

SRC     := $(sort $(wildcard src/*.c src/*/*.c))
LIBSRC  := $(filter-out src/main.c,$(SRC))
TESTSRC := $(sort $(wildcard tests/unit/test_*.c))
HELPSRC := $(sort $(wildcard tests/live/*.c))
BENCHSRC := $(sort $(wildcard bench/*.c))

REL_OBJ  := $(SRC:%.c=build/rel/%.o)
ASAN_OBJ := $(SRC:%.c=build/asan/%.o)
ASAN_LIB := $(LIBSRC:%.c=build/asan/%.o)
STAT_OBJ := $(SRC:%.c=build/static/%.o)
TESTS    := $(TESTSRC:tests/unit/%.c=build/asan/tests/%)
HELPERS  := $(HELPSRC:tests/live/%.c=build/tests/%)
BENCHBIN := $(BENCHSRC:bench/%.c=build/bench/%)

.PHONY: all run check test unit golden live static fmt fmt-check lint bench clean install deps update-golden

all: build/thpctl

build/thpctl: $(REL_OBJ)
	$(CC) $(REL_CFLAGS) -o $@ $^ $(JANSSON_LIBS) $(MHD_LIBS) $(ZLIB_LIBS) -lpthread

build/asan/thpctl: $(ASAN_OBJ)
	$(CC) $(ASAN_CFLAGS) -o $@ $^ $(JANSSON_LIBS) $(MHD_LIBS) $(ZLIB_LIBS) -lpthread

build/thpctl-static: $(STAT_OBJ)
	$(CC) $(STAT_CFLAGS) -static -o $@ $^ $(STAT_LIBS) $(shell $(PKG_CONFIG) --static --libs jansson 2>/dev/null || echo -ljansson) -lm $(ZLIB_LIBS) -lpthread

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
	$(CC) $(ASAN_CFLAGS) -Isrc -o $@ $^ $(JANSSON_LIBS) $(CMOCKA_LIBS) $(MHD_LIBS) $(ZLIB_LIBS) -lpthread

# live-test helpers: plain -O2, no sanitizers (they map and touch real memory)
build/tests/%: tests/live/%.c $(wildcard tests/live/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(REL_CFLAGS) -Isrc -o $@ $<

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

check: deps
	@$(MAKE) --no-print-directory test

test: build/thpctl build/asan/thpctl $(TESTS) $(HELPERS)
	@tests/run-all

unit: $(TESTS)
	@tests/run-unit

golden: build/asan/thpctl
	@tests/golden.sh

update-golden: build/asan/thpctl
	@tests/golden.sh --update

live: build/asan/thpctl $(HELPERS)
	@tests/live/run.sh

bench: build/thpctl $(HELPERS) $(BENCHBIN)
	bench/ps.sh
	bench/lab.sh
	bench/exporter.sh
	bench/folios.sh
	bench/trace.sh

fmt:
	clang-format -i $(SRC) $(wildcard src/*.h src/*/*.h) $(TESTSRC) $(HELPSRC) $(wildcard tests/live/*.h) $(BENCHSRC)

fmt-check:
	clang-format --dry-run --Werror $(SRC) $(wildcard src/*.h src/*/*.h) $(TESTSRC) $(HELPSRC) $(wildcard tests/live/*.h) $(BENCHSRC)

lint: fmt-check
	scripts/check-structure
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--std=c11 --inline-suppr -D_GNU_SOURCE --suppress=missingIncludeSystem src

install: build/thpctl
	install -D -m 0755 build/thpctl $(DESTDIR)$(PREFIX)/bin/thpctl
	install -D -m 0644 man/thpctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/thpctl.1

clean:
	rm -rf build

-include $(REL_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(STAT_OBJ:.o=.d) $(TESTS:=.d)
