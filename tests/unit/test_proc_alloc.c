// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/proc_alloc.c and alloc_facts.c (a process's allocator evidence). */
#include "unit.h"

#include <elf.h>
#include <gnu/libc-version.h>

#include "elf_build.h"
#include "kernel/proc_alloc.h"
#include "kernel/proc_read.h"

static void test_alloc_lib_kinds_and_file_name_versions(UNIT_STATE)
{
	char v[ELF_VER_LEN];
	assert_int_equal(alloc_lib_kind("libc.so.6", v, sizeof(v)), AK_GLIBC);
	assert_string_equal(v, "");
	assert_int_equal(alloc_lib_kind("libc-2.31.so", v, sizeof(v)), AK_GLIBC);
	assert_string_equal(v, "2.31");
	assert_int_equal(alloc_lib_kind("libjemalloc.so.2", v, sizeof(v)), AK_JEMALLOC);
	assert_string_equal(v, ""); /* .so.2 is its ABI, not its version */
	assert_int_equal(alloc_lib_kind("libtcmalloc_minimal.so.4.5.10", v, sizeof(v)),
			 AK_TCMALLOC);
	assert_string_equal(v, "");
	assert_int_equal(alloc_lib_kind("libtcmalloc.so.4", v, sizeof(v)), AK_TCMALLOC);
	assert_int_equal(alloc_lib_kind("libmimalloc.so.2.0", v, sizeof(v)), AK_MIMALLOC);
	assert_string_equal(v, "2.0");
	assert_int_equal(alloc_lib_kind("libmimalloc-secure.so.2", v, sizeof(v)), AK_MIMALLOC);
	assert_string_equal(v, "");
	assert_int_equal(alloc_lib_kind("libjvm.so", v, sizeof(v)), AK_JVM);
	/* look-alikes */
	assert_int_equal(alloc_lib_kind("libc.so.7", v, sizeof(v)), AK_UNKNOWN);
	assert_int_equal(alloc_lib_kind("libcrypt.so.1", v, sizeof(v)), AK_UNKNOWN);
	assert_int_equal(alloc_lib_kind("libc-x.so", v, sizeof(v)), AK_UNKNOWN);
	assert_int_equal(alloc_lib_kind("libjemallocator", v, sizeof(v)), AK_UNKNOWN);
	assert_int_equal(alloc_lib_kind("libjemalloc", v, sizeof(v)), AK_UNKNOWN);
	assert_int_equal(alloc_lib_kind("libmimalloc", v, sizeof(v)), AK_UNKNOWN);
	assert_int_equal(alloc_lib_kind("", v, sizeof(v)), AK_UNKNOWN);
}

static const char maps_je[] =
	"55d0c0a00000-55d0c0a10000 r-xp 00000000 08:01 1234 /usr/bin/redis-server\n"
	"7f1000000000-7f1000020000 r--p 00000000 08:01 11 /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
	"7f1000020000-7f1000090000 r-xp 00020000 08:01 11 /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
	"7f2000000000-7f2000028000 r--p 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f3000000000-7f3000001000 r--p 00000000 08:01 13 /usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so (deleted)\n"
	"7f4000000000-7f4000001000 r--p 00000000 08:01 14 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
	"7f5000000000-7f5000001000 rw-p 00000000 00:00 0 \n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n";

static void test_alloc_maps_libraries_deduplicated(UNIT_STATE)
{
	struct alloc_raw r = {0};
	alloc_maps_parse(LIT(maps_je), &r);
	assert_true(r.dynamic);
	assert_int_equal(r.nlibs, 3);
	assert_int_equal(r.libs[0].kind, AK_JEMALLOC);
	assert_string_equal(r.libs[0].path, "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
	assert_true(r.libs[0].start == 0x7f1000000000ull && r.libs[0].end == 0x7f1000020000ull);
	assert_int_equal(r.libs[1].kind, AK_GLIBC);
	assert_int_equal(r.libs[2].kind, AK_JVM);
	assert_string_equal(r.libs[2].path,
			    "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so");
	assert_string_equal(r.libs[2].version, "17");
	assert_int_equal(r.libs[2].vsrc, AV_PATH);
	static const struct {
		const char *path, *want;
	} jvm[] = {
		{"/usr/lib/jvm/java-1.8.0-openjdk/jre/lib/amd64/server/libjvm.so", "8"},
		{"/opt/jdk-21.0.2/lib/server/libjvm.so", "21"},
		{"/usr/lib/jvm/temurin-11-jdk-amd64/lib/server/libjvm.so", "11"},
		{"/opt/app/lib/server/libjvm.so", ""},
		{"/opt/java-x/jdk-/libjvm.so", ""},
	};
	for (size_t i = 0; i < UNIT_LEN(jvm); i++) {
		char line[300];
		int k = snprintf(line, sizeof(line), "7f00-7f10 r--p 0 0 0 %s\n", jvm[i].path);
		struct alloc_raw j = {0};
		alloc_maps_parse(line, (size_t)k, &j);
		assert_int_equal(j.nlibs, 1);
		assert_string_equal(j.libs[0].version, jvm[i].want);
	}
	/* smaps: the same header lines among attribute lines */
	static const char smaps[] =
		"7f2000000000-7f2000028000 r--p 00000000 08:01 12 /lib/x86_64-linux-gnu/libc-2.31.so\n"
		"Size:                160 kB\nRss:  4 kB\nVmFlags: rd mr mw me sd\n"
		"00400000-00401000 r-xp 00000000 08:01 99 /tmp/thpfix/static\n";
	struct alloc_raw s = {0};
	alloc_maps_parse(LIT(smaps), &s);
	assert_int_equal(s.nlibs, 1);
	assert_string_equal(s.libs[0].version, "2.31");
	assert_int_equal(s.libs[0].vsrc, AV_FILE_NAME);
	/* a static program: no shared object */
	struct alloc_raw t = {0};
	alloc_maps_parse(LIT("00400000-00401000 r-xp 00000000 08:01 99 /tmp/static\n"), &t);
	assert_false(t.dynamic);
	assert_int_equal(t.nlibs, 0);
	/* damaged lines, an end before the start, a path too long: nothing */
	char bad[1200];
	memset(bad, 'a', sizeof(bad));
	memcpy(bad, "7f00-7f10 r--p 0 0 0 /", 22);
	memcpy(bad + sizeof(bad) - 12, "/libc.so.6\n", 11);
	struct alloc_raw u = {0};
	alloc_maps_parse(bad, sizeof(bad) - 1, &u);
	alloc_maps_parse(LIT("zz-7f10 r--p 0 0 0 /usr/lib/libc.so.6\n"
			     "7f10-7f00 r--p 0 0 0 /usr/lib/libc.so.6\n"
			     "7f00-7f10 r--p 0 0 0 usr/lib/libc.so.6\n"),
			 &u);
	assert_int_equal(u.nlibs, 0);
	/* the kernel's \012 (a newline in the path) is undone, as in smaps' names */
	struct alloc_raw nl = {0};
	alloc_maps_parse(LIT("7f00-7f10 r--p 0 0 0 /opt/a\\012b/libjemalloc.so.2\n"), &nl);
	assert_int_equal(nl.nlibs, 1);
	assert_string_equal(nl.libs[0].path, "/opt/a\nb/libjemalloc.so.2");
}

static void test_alloc_maps_at_most_max_libraries(UNIT_STATE)
{
	char text[4096];
	size_t n = 0;
	for (int i = 0; i < ALLOC_MAX_LIBS + 3; i++)
		n += (size_t)snprintf(
			text + n, sizeof(text) - n,
			"7f%02d00000000-7f%02d00001000 r--p 0 0 0 /opt/%d/libjemalloc.so.2\n", i, i,
			i);
	struct alloc_raw r = {0};
	alloc_maps_parse(text, n, &r);
	assert_int_equal(r.nlibs, ALLOC_MAX_LIBS);
}

static void test_alloc_auxv_and_status_setid(UNIT_STATE)
{
	unsigned long v[8] = {AT_PAGESZ, 4096, AT_SECURE, 1, AT_NULL, 0, 0, 0};
	assert_int_equal(auxv_at_secure((const unsigned char *)v, sizeof(v)), 1);
	v[3] = 0;
	assert_int_equal(auxv_at_secure((const unsigned char *)v, sizeof(v)), 0);
	v[2] = AT_NULL; /* ends before AT_SECURE */
	assert_int_equal(auxv_at_secure((const unsigned char *)v, sizeof(v)), -1);
	assert_int_equal(auxv_at_secure((const unsigned char *)v, 3), -1); /* cut */
	assert_int_equal(status_setid(LIT("Name:\tx\nUid:\t1000\t0\t0\t0\nGid:\t5\t5\t5\t5\n")), 1);
	assert_int_equal(status_setid(LIT("Uid:\t1000\t1000\t1000\t1000\nGid:\t5\t6\t5\t5\n")), 1);
	assert_int_equal(status_setid(LIT("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n")), 0);
	assert_int_equal(status_setid(LIT("Uid:\t0\t0\t0\t0\n")), -1);
	assert_int_equal(status_setid(LIT("Uid:\tx\nGid:\t0\t0\n")), -1);
}

static void sample_raw(struct alloc_raw *r)
{
	memset(r, 0, sizeof(*r));
	alloc_maps_parse(LIT(maps_je), r);
	snprintf(r->libs[0].version, sizeof(r->libs[0].version), "5.3.0");
	r->libs[0].vsrc = AV_STRING;
	r->libs[0].machine = EM_X86_64;
	r->libs[1].err = -EACCES;
	r->exe_err = 0;
	r->exe.machine = EM_X86_64;
	r->exe.is64 = true;
	r->exe.sections = r->exe.dynamic = r->exe.go = r->exe.go_magic = true;
	r->exe.syms = 42;
	snprintf(r->exe.go_version, sizeof(r->exe.go_version), "go1.22.4");
	snprintf(r->exe.go_godebug, sizeof(r->exe.go_godebug), "panicnil=1");
	r->exe.alloc = EA_JEMALLOC;
	snprintf(r->exe.alloc_sym, sizeof(r->exe.alloc_sym), "_rjem_malloc");
	snprintf(r->exe.version, sizeof(r->exe.version), "5.3.0");
	r->at_secure = 0;
	r->secure_from_auxv = true;
}

static void test_alloc_facts_round_trip(UNIT_STATE)
{
	struct alloc_raw r, back;
	sample_raw(&r);
	struct buf b = {0};
	assert_int_equal(alloc_raw_format(&r, &b), 0);
	assert_contains(
		b.p,
		"lib\tjemalloc\tversion-string\t0\t62\t5.3.0\t/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n");
	assert_contains(b.p, "exe_alloc\tjemalloc\t_rjem_malloc\n");
	assert_int_equal(alloc_raw_parse(b.p, b.len, &back), 0);
	assert_int_equal(back.nlibs, 3);
	assert_int_equal(back.libs[1].err, -EACCES);
	assert_string_equal(back.libs[2].version, "17");
	assert_int_equal(back.libs[2].vsrc, AV_PATH);
	assert_true(back.dynamic && back.exe.go && back.exe.go_magic && !back.exe.symtab);
	assert_string_equal(back.exe.go_version, "go1.22.4");
	assert_string_equal(back.exe.go_godebug, "panicnil=1");
	assert_int_equal(back.exe.alloc, EA_JEMALLOC);
	assert_string_equal(back.exe.version, "5.3.0");
	assert_true(back.exe.syms == 42 && back.exe.machine == EM_X86_64 && back.exe.is64);
	assert_int_equal(back.at_secure, 0);
	assert_true(back.secure_from_auxv);
	/* an exe that could not be read has no ELF lines; a path with a newline is "?" */
	r.exe_err = -EACCES;
	snprintf(r.libs[1].path, sizeof(r.libs[1].path), "/tmp/x\nlib\tjemalloc");
	assert_int_equal(alloc_raw_format(&r, &b), 0);
	assert_int_equal(alloc_raw_parse(b.p, b.len, &back), 0);
	assert_int_equal(back.exe_err, -EACCES);
	assert_string_equal(back.libs[1].path, "?");
	assert_int_equal(back.nlibs, 3);
	buf_free(&b);
}

static void test_alloc_facts_damaged(UNIT_STATE)
{
	struct alloc_raw r;
#define P(s) alloc_raw_parse(LIT(s), &r)
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nsecure\t-1\tnone\n"), 0);
	assert_int_equal(r.exe_err, -ENOENT);
	/* a newer key is skipped */
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nfuture\tx\n"), 0);
	assert_int_equal(P(""), -EINVAL);
	assert_int_equal(P("thpctl-alloc 2\nmaps\t0\nexe\t-2\n"), -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\n"), -EINVAL);	   /* no exe */
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t0\n"), -EINVAL); /* no ELF line */
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nmaps\t0\nexe\t-2\n"), -EINVAL); /* twice */
	assert_int_equal(P("thpctl-alloc 1\nmaps\t1\nexe\t-2\n"), -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t-99999\nexe\t-2\n"), -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nlib\tglibc\tnone\t0\t0\t-\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nlib\tunknown\tnone\t0\t0\t-\t/x\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nlib\tglibc\tsome\t0\t0\t-\t/x\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nlib\tglibc\tnone\t0\t0\t2 36\t/x\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nlib\tglibc\tnone\t0\t0\t-\trel\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nlib\tglibc\tnone\t0\t99999\t-\t/x\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t0\nexe_elf\t62\t64\tsections,bogus\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t0\nexe_elf\t62\t48\t-\n"), -EINVAL);
	assert_int_equal(
		P("thpctl-alloc 1\nmaps\t0\nexe\t0\nexe_elf\t62\t64\t-\nexe_alloc\tgo\tx\n"),
		-EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nexe_syms\t99999999999999999999\n"),
			 -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nsecure\t2\tauxv\n"), -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nexe_go\t\n"), -EINVAL);
	assert_int_equal(P("thpctl-alloc 1\nmaps\t0\nexe\t-2\nexe_go\tgo1.22\x01\n"), -EINVAL);
#undef P
	/* too many libraries, a NUL inside, a line too long */
	char text[4096] = "thpctl-alloc 1\nmaps\t0\nexe\t-2\n";
	for (int i = 0; i <= ALLOC_MAX_LIBS; i++)
		strcat(text, "lib\tglibc\tnone\t0\t0\t-\t/x\n");
	assert_int_equal(alloc_raw_parse(text, strlen(text), &r), -EINVAL);
	assert_int_equal(alloc_raw_parse("thpctl-alloc 1\nma\0ps\t0\n", 23, &r), -EINVAL);
	char longl[700] = "thpctl-alloc 1\nmaps\t0\nexe\t-2\nexe_go\t";
	memset(longl + strlen(longl), 'g', 600);
	assert_int_equal(alloc_raw_parse(longl, strlen(longl), &r), -EINVAL);
}

/* A recorded tree: facts file first, else smaps and a regular proc/PID/exe. */
static void test_alloc_read_recorded_tree(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-alloc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	static unsigned char img[8192], bi[256];
	size_t bl = go_buildinfo(bi, "go1.21.6", "");
	struct tsec s[] = {{".go.buildinfo", SHT_PROGBITS, bi, bl, 0, 0}};
	size_t n = elf_build(img, sizeof(img), s, 1, false);
	unit_put_bytes(dir, "proc/100/status",
		       LIT("Name:\tgo\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n"));
	unit_put_bytes(dir, "proc/100/smaps",
		       LIT("00400000-00401000 r-xp 0 0 0 /app\nRss: 4 kB\n"));
	unit_put_bytes(dir, "proc/100/exe", img, n);
	unit_put_bytes(dir, "proc/200/status",
		       LIT("Name:\tredis\nUid:\t7\t0\t0\t0\nGid:\t0\t0\t0\t0\n"));
	unit_put_bytes(dir, "proc/200/smaps", LIT(maps_je));
	unit_put_bytes(dir, "proc/300/status", LIT("Name:\tje\n"));
	unit_put_bytes(
		dir, "capture/alloc/300",
		LIT("thpctl-alloc 1\nmaps\t0\ndynamic\t1\n"
		    "lib\tjemalloc\tversion-string\t0\t62\t5.3.0\t/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
		    "exe\t-13\nsecure\t0\tauxv\n"));
	unit_put_bytes(dir, "proc/400/status", LIT("Name:\tbad\n"));
	unit_put_bytes(dir, "capture/alloc/400", LIT("thpctl-alloc 1\nmaps\tx\n"));
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct alloc_raw r;
	assert_int_equal(proc_alloc_read(&sr, 100, &r), 0);
	assert_false(r.from_facts || r.dynamic);
	assert_int_equal(r.maps_err, 0);
	assert_int_equal(r.exe_err, 0);
	assert_true(r.exe.go);
	assert_string_equal(r.exe.go_version, "go1.21.6");
	assert_int_equal(r.at_secure, -1); /* status: not set-id; only auxv says 0 */
	assert_int_equal(proc_alloc_read(&sr, 200, &r), 0);
	assert_int_equal(r.nlibs, 3);
	assert_int_equal(r.libs[0].err, -ENOENT); /* the library was not recorded */
	assert_int_equal(r.exe_err, -ENOENT);
	assert_int_equal(r.at_secure, 1); /* Uid 7, effective 0 */
	assert_int_equal(proc_alloc_read(&sr, 300, &r), 0);
	assert_true(r.from_facts);
	assert_string_equal(r.libs[0].version, "5.3.0");
	assert_int_equal(r.exe_err, -EACCES);
	/* damaged facts: read as if there were none */
	assert_int_equal(proc_alloc_read(&sr, 400, &r), 0);
	assert_false(r.from_facts);
	assert_int_equal(r.maps_err, -ENOENT);
	assert_int_equal(proc_alloc_read(&sr, 999, &r), -ESRCH);
	unit_tree_remove(dir, &sr);
}

/* This test program itself: glibc's libc.so.6 with the version its own string gives. */
static void test_alloc_read_self_live(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	struct alloc_raw r;
	assert_int_equal(proc_alloc_read(&sr, getpid(), &r), 0);
	assert_int_equal(r.maps_err, 0);
	assert_true(r.dynamic);
	int libc = -1;
	for (int i = 0; i < r.nlibs; i++)
		if (r.libs[i].kind == AK_GLIBC)
			libc = i;
	assert_true(libc >= 0);
	assert_int_equal(r.libs[libc].err, 0);
	assert_int_equal(r.libs[libc].vsrc, AV_STRING);
	assert_string_equal(r.libs[libc].version, gnu_get_libc_version());
	assert_int_equal(r.exe_err, 0);
	assert_true(r.exe.dynamic && !r.exe.go);
	assert_int_equal(r.at_secure, 0);
	assert_true(r.secure_from_auxv);
	/* the second read comes from the cache: the same facts */
	struct alloc_raw again;
	assert_int_equal(proc_alloc_read(&sr, getpid(), &again), 0);
	assert_string_equal(again.libs[libc].version, r.libs[libc].version);
	assert_int_equal(again.exe.syms, r.exe.syms);
	sysroot_close(&sr);
}

/* R_WALK's libraries (from a smaps walk) are those a read of maps gives in R_MAPS. */
static void assert_same_libs(const struct alloc_raw *r_maps, const struct alloc_raw *r_walk)
{
	assert_int_equal(r_walk->maps_err, r_maps->maps_err);
	assert_int_equal(r_walk->dynamic, r_maps->dynamic);
	assert_int_equal(r_walk->nlibs, r_maps->nlibs);
	for (int i = 0; i < r_maps->nlibs; i++) {
		assert_int_equal(r_walk->libs[i].kind, r_maps->libs[i].kind);
		assert_string_equal(r_walk->libs[i].path, r_maps->libs[i].path);
		assert_int_equal(r_walk->libs[i].start, r_maps->libs[i].start);
		assert_string_equal(r_walk->libs[i].version, r_maps->libs[i].version);
	}
}

/* proc_read's smaps walk into .alloc_walk, then proc_alloc_read_walked: what maps would give. */
static void walked(const struct sysroot *sr, pid_t pid, struct alloc_raw *r)
{
	struct proc_info pi = {0};
	memset(r, 0, sizeof(*r));
	pi.alloc_walk = r;
	assert_int_equal(proc_read(sr, pid, PROC_SMAPS, &pi), 0);
	assert_int_equal(pi.smaps_err, 0);
	proc_info_free(&pi);
	assert_int_equal(proc_alloc_read_walked(sr, pid, r), 0);
}

/* This process (glibc, libcmocka, the sanitizers' libraries) and a recorded jemalloc one. */
static void test_alloc_read_walked_equals_maps(UNIT_STATE)
{
	static struct alloc_raw by_maps, by_walk;
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	assert_int_equal(proc_alloc_read(&sr, getpid(), &by_maps), 0);
	walked(&sr, getpid(), &by_walk);
	assert_true(by_maps.nlibs >= 1); /* glibc at least */
	assert_same_libs(&by_maps, &by_walk);
	sysroot_close(&sr);

	char dir[] = "/tmp/thpctl-allocw-XXXXXX";
	assert_non_null(mkdtemp(dir));
	unit_put_bytes(dir, "proc/200/status", LIT("Name:\tredis\nUid:\t7\t0\t0\t0\n"));
	unit_put_bytes(dir, "proc/200/smaps", LIT(maps_je));
	assert_int_equal(sysroot_open(&sr, dir), 0);
	assert_int_equal(proc_alloc_read(&sr, 200, &by_maps), 0);
	walked(&sr, 200, &by_walk);
	assert_int_equal(by_maps.nlibs, 3);
	assert_same_libs(&by_maps, &by_walk);
	unit_tree_remove(dir, &sr);
}

/*
 * A library deleted since it was mapped (an upgrade): its path in the process's root is the
 * new file, so the live fallback through proc/PID/root must not read its version there.
 */
static void test_alloc_deleted_library_version_not_from_its_replacement(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-allocd-XXXXXX";
	assert_non_null(mkdtemp(dir));
	static unsigned char img[8192];
	static const char ro[] = "x\0005.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c\0";
	struct tsec s[] = {{".rodata", SHT_PROGBITS, ro, sizeof(ro), 0, 0}};
	size_t n = elf_build(img, sizeof(img), s, 1, false);
	assert_true(n > 0);
#define JE "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
	unit_put_bytes(dir, "proc/500/status", LIT("Name:\tredis\n"));
	unit_put_bytes(dir, "proc/500/maps",
		       LIT("7f1000000000-7f1000020000 r--p 00000000 08:01 11 " JE " (deleted)\n"));
	unit_put_bytes(dir, "proc/500/root" JE, img, n);
	unit_put_bytes(dir, "proc/501/status", LIT("Name:\tredis\n"));
	unit_put_bytes(dir, "proc/501/maps",
		       LIT("7f1000000000-7f1000020000 r--p 00000000 08:01 12 " JE "\n"));
	unit_put_bytes(dir, "proc/501/root" JE, img, n);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	sr.live = true; /* the live reader: no map_files here, so it falls back to proc/PID/root */
	struct alloc_raw r;
	assert_int_equal(proc_alloc_read(&sr, 501, &r), 0);
	assert_int_equal(r.nlibs, 1);
	assert_false(r.libs[0].deleted);
	assert_string_equal(r.libs[0].version, "5.3.0"); /* the file mapped is the one there */
	assert_int_equal(r.libs[0].vsrc, AV_STRING);
	assert_int_equal(proc_alloc_read(&sr, 500, &r), 0);
	assert_int_equal(r.nlibs, 1);
	assert_string_equal(r.libs[0].path, JE);
	assert_true(r.libs[0].deleted);
	assert_string_equal(r.libs[0].version, ""); /* unknown, not the replacement's */
	assert_int_equal(r.libs[0].vsrc, AV_NONE);
	assert_int_equal(r.libs[0].err, -ENOENT); /* map_files could not be opened */
#undef JE
	sr.live = false;
	unit_tree_remove(dir, &sr);
}

UNIT_TESTS(test_alloc_lib_kinds_and_file_name_versions, test_alloc_maps_libraries_deduplicated,
	   test_alloc_maps_at_most_max_libraries, test_alloc_auxv_and_status_setid,
	   test_alloc_facts_round_trip, test_alloc_facts_damaged, test_alloc_read_recorded_tree,
	   test_alloc_read_self_live, test_alloc_read_walked_equals_maps,
	   test_alloc_deleted_library_version_not_from_its_replacement)
