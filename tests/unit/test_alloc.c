// SPDX-License-Identifier: MIT
/* Unit tests: src/model/alloc.c (who manages a process's heap, from its evidence). */
#include "unit.h"

#include <elf.h>

#include "model/alloc.h"

static struct alloc_lib *lib(struct alloc_raw *r, enum alloc_kind k, const char *path,
			     const char *ver, enum alloc_vsrc vs)
{
	struct alloc_lib *l = &r->libs[r->nlibs++];
	memset(l, 0, sizeof(*l));
	l->kind = k;
	snprintf(l->path, sizeof(l->path), "%s", path);
	snprintf(l->version, sizeof(l->version), "%s", ver);
	l->vsrc = vs;
	l->machine = EM_X86_64;
	r->dynamic = true;
	return l;
}

static void raw0(struct alloc_raw *r)
{
	memset(r, 0, sizeof(*r));
	r->at_secure = -1;
	r->exe.is64 = true;
	r->exe.sections = true;
	r->exe.machine = EM_X86_64;
}

/* A decided KIND at VERSION, the version read from VSRC. */
static void expect_alloc(const struct alloc_fact *a, enum alloc_kind kind, const char *version,
			 enum alloc_vsrc vsrc)
{
	assert_int_equal(a->kind, kind);
	assert_string_equal(a->version, version);
	assert_int_equal(a->vsrc, vsrc);
}

/* The malloc under A's runtime: KIND at VERSION. */
static void expect_malloc(const struct alloc_fact *a, enum alloc_kind kind, const char *version)
{
	assert_int_equal(a->malloc_kind, kind);
	assert_string_equal(a->malloc_version, version);
}

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LIBJE "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"

static void test_alloc_preloaded_jemalloc_beats_glibc(UNIT_STATE)
{
	struct alloc_raw r;
	raw0(&r);
	lib(&r, AK_GLIBC, LIBC, "2.36", AV_STRING);
	lib(&r, AK_JEMALLOC, LIBJE, "5.3.0", AV_STRING);
	static const char env[] = "PATH=/bin\0LD_PRELOAD=" LIBJE "\0MALLOC_CONF=thp:never\0";
	struct alloc_fact a;
	alloc_decide(&r, env, sizeof(env) - 1, false, &a);
	expect_alloc(&a, AK_JEMALLOC, "5.3.0", AV_STRING);
	assert_int_equal(a.evidence, AE_MAPPED_LIB);
	assert_string_equal(a.path, LIBJE);
	assert_string_equal(a.glibc_version, "2.36");
	assert_int_equal(a.nenv, 2);
	assert_string_equal(a.env[0].var, "LD_PRELOAD");
	assert_int_equal(a.env[0].kind, AK_JEMALLOC);
	assert_true(a.env[0].applies);
	assert_string_equal(a.env[1].value, "thp:never");
	assert_true(a.env[1].applies);
	assert_int_equal(a.notes, 0);
	/* the same MALLOC_CONF in a plain glibc process configures nothing there */
	raw0(&r);
	lib(&r, AK_GLIBC, LIBC, "2.36", AV_STRING);
	alloc_decide(&r, env + 10 + 11 + sizeof(LIBJE), sizeof("MALLOC_CONF=thp:never"), false, &a);
	assert_int_equal(a.kind, AK_GLIBC);
	assert_int_equal(a.nenv, 1);
	assert_false(a.env[0].applies);
}

static void test_alloc_go_runtime_with_cgo_glibc(UNIT_STATE)
{
	struct alloc_raw r;
	raw0(&r);
	r.exe.go = r.exe.go_magic = true;
	snprintf(r.exe.go_version, sizeof(r.exe.go_version), "go1.22.4");
	snprintf(r.exe.go_godebug, sizeof(r.exe.go_godebug), "disablethp=1");
	lib(&r, AK_GLIBC, LIBC, "2.36", AV_STRING);
	static const char env[] = "GODEBUG=madvdontneed=1\0";
	struct alloc_fact a;
	alloc_decide(&r, env, sizeof(env) - 1, false, &a);
	expect_alloc(&a, AK_GO, "go1.22.4", AV_BUILDINFO);
	assert_int_equal(a.evidence, AE_GO_BUILDINFO);
	assert_string_equal(a.godebug, "disablethp=1");
	expect_malloc(&a, AK_GLIBC, "2.36");
	assert_true(a.env[0].applies);
	/* a Go build without inline version (before 1.18): Go, version unknown */
	r.exe.go_version[0] = '\0';
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.kind, AK_GO);
	assert_int_equal(a.vsrc, AV_NONE);
}

static void test_alloc_static_rust_jemalloc_from_symbols(UNIT_STATE)
{
	struct alloc_raw r;
	raw0(&r);
	r.exe.symtab = true;
	r.exe.syms = 9000;
	r.exe.alloc = EA_JEMALLOC;
	snprintf(r.exe.alloc_sym, sizeof(r.exe.alloc_sym), "_rjem_malloc");
	snprintf(r.exe.version, sizeof(r.exe.version), "5.3.0");
	struct alloc_fact a;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.kind, AK_JEMALLOC);
	assert_int_equal(a.evidence, AE_EXE_SYMBOL);
	assert_string_equal(a.symbol, "_rjem_malloc");
	assert_string_equal(a.version, "5.3.0");
	assert_int_equal(a.vsrc, AV_STRING);
	/* glibc's _int_malloc in a dynamic executable is no evidence over its libc.so.6 */
	raw0(&r);
	r.exe.alloc = EA_GLIBC;
	lib(&r, AK_GLIBC, LIBC, "", AV_NONE);
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.kind, AK_GLIBC);
	assert_int_equal(a.evidence, AE_MAPPED_LIB);
	assert_int_equal(a.vsrc, AV_NONE);
}

static void test_alloc_unknown_is_never_a_guess(UNIT_STATE)
{
	struct alloc_raw r;
	struct alloc_fact a;
	/* a stripped static binary */
	raw0(&r);
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.kind, AK_UNKNOWN);
	assert_int_equal(a.why_unknown, AU_STRIPPED);
	/* static with symbols, none an allocator's (musl's malloc is no marker) */
	r.exe.symtab = true;
	r.exe.syms = 40;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.why_unknown, AU_NO_MARKER);
	/* dynamic without a known libc (musl) */
	raw0(&r);
	r.dynamic = true;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.why_unknown, AU_NO_MARKER);
	/* another user's process: maps unreadable */
	raw0(&r);
	r.maps_err = r.exe_err = -EACCES;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.why_unknown, AU_MAPS_UNREADABLE);
	/* a recorded tree without maps nor executable */
	r.maps_err = r.exe_err = -ENOENT;
	alloc_decide(&r, NULL, 0, true, &a);
	assert_int_equal(a.why_unknown, AU_NOT_RECORDED);
	/* static, its executable unreadable live, not recorded in a tree, not ELF */
	raw0(&r);
	r.exe_err = -EACCES;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.why_unknown, AU_EXE_UNREADABLE);
	r.exe_err = -ENOENT;
	alloc_decide(&r, NULL, 0, true, &a);
	assert_int_equal(a.why_unknown, AU_NOT_RECORDED);
	r.exe_err = -EINVAL;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.why_unknown, AU_NOT_ELF);
	/* environment alone never names the allocator */
	static const char env[] = "MALLOC_CONF=thp:always\0LD_PRELOAD=/x/libjemalloc.so.2\0";
	alloc_decide(&r, env, sizeof(env) - 1, false, &a);
	assert_int_equal(a.kind, AK_UNKNOWN);
	assert_int_equal(a.nenv, 2);
	assert_false(a.env[0].applies || a.env[1].applies);
}

static void test_alloc_glibc_243_aarch64_default_and_at_secure(UNIT_STATE)
{
	struct alloc_raw r;
	struct alloc_fact a;
	raw0(&r);
	r.exe.machine = EM_AARCH64;
	lib(&r, AK_GLIBC, "/usr/lib/aarch64-linux-gnu/libc.so.6", "2.43", AV_STRING);
	r.at_secure = 0;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.notes, AN_GLIBC_HUGETLB_DEFAULT);
	/* turned off by GLIBC_TUNABLES, honoured */
	static const char off[] = "GLIBC_TUNABLES=glibc.malloc.hugetlb=0\0";
	alloc_decide(&r, off, sizeof(off) - 1, false, &a);
	assert_int_equal(a.notes, 0);
	assert_true(a.env[0].applies && !a.env[0].ignored);
	/* ... but a setuid program ignores GLIBC_TUNABLES: the default stays */
	r.at_secure = 1;
	alloc_decide(&r, off, sizeof(off) - 1, false, &a);
	assert_int_equal(a.notes, AN_GLIBC_HUGETLB_DEFAULT | AN_TUNABLES_IGNORED | AN_SECURE);
	assert_true(a.env[0].ignored);
	/* not on x86-64, not before 2.43, not with the machine unknown */
	r.at_secure = 0;
	r.exe.machine = EM_X86_64;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.notes, 0);
	r.exe.machine = EM_AARCH64;
	snprintf(r.libs[0].version, sizeof(r.libs[0].version), "2.42");
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.notes, 0);
	snprintf(r.libs[0].version, sizeof(r.libs[0].version), "3.0");
	r.exe_err = -EACCES;
	r.libs[0].machine = 0;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.notes, 0);
	r.libs[0].machine = EM_AARCH64;
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.notes, AN_GLIBC_HUGETLB_DEFAULT);
	/* GLIBC_TUNABLES without a malloc tunable is not about the allocator */
	static const char other[] = "GLIBC_TUNABLES=glibc.rtld.nns=2\0";
	alloc_decide(&r, other, sizeof(other) - 1, false, &a);
	assert_int_equal(a.nenv, 0);
}

static void test_alloc_jvm_and_several_allocators(UNIT_STATE)
{
	struct alloc_raw r;
	struct alloc_fact a;
	raw0(&r);
	lib(&r, AK_GLIBC, LIBC, "2.36", AV_STRING);
	lib(&r, AK_JVM, "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", "17", AV_PATH);
	lib(&r, AK_TCMALLOC, "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4.5.10", "2.10",
	    AV_STRING);
	lib(&r, AK_MIMALLOC, "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0", "2.0", AV_FILE_NAME);
	static const char env[] = "JAVA_TOOL_OPTIONS=-XX:+UseTransparentHugePages\0";
	alloc_decide(&r, env, sizeof(env) - 1, false, &a);
	expect_alloc(&a, AK_JVM, "17", AV_PATH);
	expect_malloc(&a, AK_TCMALLOC, "2.10");
	assert_int_equal(a.notes, AN_SEVERAL);
	assert_true(a.env[0].applies);
	int mm[2];
	assert_true(alloc_version_mm("2.36", mm) && mm[0] == 2 && mm[1] == 36);
	assert_false(alloc_version_mm("go1.22", mm));
	assert_false(alloc_version_mm("17", mm));
	assert_false(alloc_version_mm("2.", mm));
}

/* glibc from a mapped libc.so.6 is proven only by a whole .symtab without another allocator */
static void test_alloc_glibc_unproven_without_the_exe_symbols(UNIT_STATE)
{
	static const struct {
		const char *name;
		bool symtab, cut, recorded;
		int exe_err;
		enum alloc_doubt want;
	} c[] = {
		{"symtab read whole", true, false, false, 0, AD_NONE},
		{"stripped (Rust, static jemalloc)", false, false, false, 0, AD_EXE_STRIPPED},
		{"symtab damaged", true, true, false, 0, AD_SYMS_CUT},
		{"exe unreadable", true, false, false, -EACCES, AD_EXE_UNREADABLE},
		{"exe not ELF", true, false, false, -EINVAL, AD_EXE_UNREADABLE},
		{"exe not recorded", true, false, true, -ENOENT, AD_EXE_NOT_RECORDED},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		struct alloc_raw r;
		struct alloc_fact a;
		raw0(&r);
		r.exe.symtab = c[i].symtab;
		r.exe.syms_cut = c[i].cut;
		r.exe.syms = c[i].symtab ? 5000 : 0;
		r.exe_err = c[i].exe_err;
		lib(&r, AK_GLIBC, LIBC, "2.36", AV_STRING);
		alloc_decide(&r, NULL, 0, c[i].recorded, &a);
		unit_row_int(c[i].name, "kind", a.kind, AK_GLIBC);
		unit_row_int(c[i].name, "doubt", a.doubt, c[i].want);
		unit_row_int(c[i].name, "malloc_doubt", a.malloc_doubt, c[i].want);
	}
	/* a Go program's C heap: Go is proven by its build info, glibc beside it is not */
	struct alloc_raw r;
	struct alloc_fact a;
	raw0(&r);
	r.exe.go = r.exe.go_magic = true;
	lib(&r, AK_GLIBC, LIBC, "2.36", AV_STRING);
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.kind, AK_GO);
	assert_int_equal(a.doubt, AD_NONE);
	assert_int_equal(a.malloc_doubt, AD_EXE_STRIPPED);
	/* a jemalloc library mapped is its own evidence */
	raw0(&r);
	lib(&r, AK_GLIBC, LIBC, "2.36", AV_STRING);
	lib(&r, AK_JEMALLOC, LIBJE, "5.3.0", AV_STRING);
	alloc_decide(&r, NULL, 0, false, &a);
	assert_int_equal(a.kind, AK_JEMALLOC);
	assert_int_equal(a.doubt, AD_NONE);
	assert_string_equal(alloc_doubt_name(AD_EXE_STRIPPED), "exe-stripped");
	assert_string_equal(alloc_doubt_name(AD_SYMS_CUT), "exe-symbols-unreadable");
}

UNIT_TESTS(test_alloc_preloaded_jemalloc_beats_glibc, test_alloc_go_runtime_with_cgo_glibc,
	   test_alloc_static_rust_jemalloc_from_symbols, test_alloc_unknown_is_never_a_guess,
	   test_alloc_glibc_243_aarch64_default_and_at_secure,
	   test_alloc_jvm_and_several_allocators, test_alloc_glibc_unproven_without_the_exe_symbols)
