// SPDX-License-Identifier: MIT
/*
 * Unit tests: the pieces `advise` detects with (src/model/workload.c,
 * src/kernel/exe.c): workload names, whether a command line is
 * intact, versions from paths and dpkg, Go binaries (ELF .go.buildinfo),
 * shared memory in maps.
 */
#include "unit.h"

#include "elf_build.h"

#include "kernel/exe.h"
#include "model/advice.h"

static void test_workload_names(UNIT_STATE)
{
	enum workload w;
	bool assumed;
	assert_int_equal(workload_parse("redis", &w, &assumed), 0);
	assert_int_equal(w, WL_REDIS);
	assert_false(assumed);
	assert_int_equal(workload_parse("mongodb", &w, &assumed), 0);
	assert_int_equal(w, WL_MONGODB7);
	assert_true(assumed);
	assert_int_equal(workload_parse("mongodb8", &w, &assumed), 0);
	assert_int_equal(w, WL_MONGODB8);
	assert_int_equal(workload_parse("dense-containers", &w, &assumed), 0);
	assert_int_equal(w, WL_DENSE);
	assert_int_equal(workload_parse("java", &w, &assumed), 0);
	assert_int_equal(w, WL_JVM);
	assert_int_equal(workload_parse("oracle", &w, &assumed), -EINVAL);
	for (int i = 0; i < WL_N; i++) {
		assert_int_equal(workload_parse(workload_name((enum workload)i), &w, &assumed), 0);
		assert_int_equal(w, i);
		assert_non_null(strstr(workload_names(), workload_name((enum workload)i)));
	}
	assert_int_equal(workload_from_comm("redis-server", NULL), WL_REDIS);
	assert_int_equal(workload_from_comm("mongod", NULL), WL_MONGODB7);
	assert_int_equal(workload_from_comm("postgres", NULL), WL_POSTGRES);
	assert_int_equal(workload_from_comm("java", NULL), WL_JVM);
	assert_int_equal(workload_from_comm("node", NULL), WL_NODE);
	assert_int_equal(workload_from_comm("redis-sentinel", NULL), -1);
	assert_int_equal(workload_from_comm("bash", NULL), -1);
	/* comm is cut at 15 bytes: the executable's name decides then */
	assert_int_equal(workload_from_comm("C2 CompilerThre", "java"), WL_JVM);
}

/* Which arguments name paths relative to the working directory, and how one is made absolute. */
static void test_relative_path_arguments(UNIT_STATE)
{
	static const struct {
		const char *arg;
		bool rel;
	} c[] = {
		{"hp.py", true},     {"./run.sh", true},	 {"conf/app.yaml", true},
		{"../data/x", true}, {"app.jar", true},		 {".", true}, /* java -cp . */
		{"..", true},	     {"my script.py", true},	 {"/etc/redis.conf", false},
		{"-c", false},	     {"--config=a.yaml", false}, {"0.5", false},
		{"v1.2.3", false},   {"127.0.0.1", false},	 {"8080", false},
		{"serve", false},    {"https://x.org/a", false}, {".bashrc", false},
		{"a.", false},	     {"x.verylongext", false},	 {"", false},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++)
		unit_row_int(c[i].arg, "arg_relative_path", arg_relative_path(c[i].arg), c[i].rel);
	char out[64];
	assert_int_equal(path_join_rel("/srv/app", "hp.py", out, sizeof(out)), 0);
	assert_string_equal(out, "/srv/app/hp.py");
	assert_int_equal(path_join_rel("/srv/app/", "././conf/a.yaml", out, sizeof(out)), 0);
	assert_string_equal(out, "/srv/app/conf/a.yaml");
	assert_int_equal(path_join_rel("/", "hp.py", out, sizeof(out)), 0);
	assert_string_equal(out, "/hp.py");
	assert_int_equal(path_join_rel("/srv/app/", ".", out, sizeof(out)), 0);
	assert_string_equal(out, "/srv/app");
	assert_int_equal(path_join_rel("/srv/app", "./.", out, sizeof(out)), 0);
	assert_string_equal(out, "/srv/app");
	char tiny[14];
	assert_int_equal(path_join_rel("/srv/app", "hp.py", tiny, sizeof(tiny)), -ENOSPC);
	assert_string_equal(tiny, "");
	char t15[15]; /* "/srv/app/hp.py" and its NUL, exactly */
	assert_int_equal(path_join_rel("/srv/app", "hp.py", t15, sizeof(t15)), 0);
	assert_string_equal(t15, "/srv/app/hp.py");
}

static void test_cmdline_intact(UNIT_STATE)
{
	/* as started: argv[0] the exe path, or a name or path ending in its name */
	assert_int_equal(cmdline_intact(LIT("/usr/bin/redis-server\0/etc/redis/redis.conf\0"),
					"/usr/bin/redis-server"),
			 1);
	assert_int_equal(
		cmdline_intact(LIT("redis-server\0--port\0007777\0"), "/usr/bin/redis-server"), 1);
	assert_int_equal(cmdline_intact(LIT("/usr/local/bin/postgres\0-D\0/srv/pg\0"),
					"/usr/lib/postgresql/15/bin/postgres"),
			 1);
	/* Redis's process title, NUL-padded over argv and environ (recorded) */
	assert_int_equal(
		cmdline_intact(LIT("redis-server *:7777\0\0\0\0\0\0\0\0"), "/usr/bin/redis-server"),
		0);
	/* PostgreSQL's "postgres: checkpointer" (no NUL after a title longer than argv) */
	assert_int_equal(cmdline_intact(LIT("postgres: checkpointer "),
					"/usr/lib/postgresql/15/bin/postgres"),
			 0);
	/* a title with a single trailing NUL still names something else */
	assert_int_equal(cmdline_intact(LIT("redis-server *:7777\0"), "/usr/bin/redis-server"), 0);
	assert_int_equal(cmdline_intact(LIT("\0"), "/usr/bin/x"), 0);
	assert_int_equal(cmdline_intact("", 0, "/usr/bin/x"), 0);
}

static void test_dpkg_owner(UNIT_STATE)
{
	static const char list[] = "/.\n/usr\n/usr/lib/postgresql/15/bin\n"
				   "/usr/lib/postgresql/15/bin/postgres\n";
	assert_int_equal(dpkg_list_has(LIT(list), "/usr/lib/postgresql/15/bin/postgres"), 1);
	assert_int_equal(dpkg_list_has(LIT(list), "/usr/lib/postgresql/15/bin/post"), 0);
	assert_int_equal(dpkg_list_has(LIT(list), "/usr/lib/postgresql/15"), 0);
	char dir[] = "/tmp/thpctl-dpkg.XXXXXX";
	assert_non_null(mkdtemp(dir));
	unit_mkdirs(dir, "var/lib/dpkg/info");
	unit_put(dir, "var/lib/dpkg/info/postgresql-15.list", list);
	unit_put(dir, "var/lib/dpkg/info/libc6:amd64.list",
		 "/.\n/lib/x86_64-linux-gnu/libc.so.6\n");
	unit_put(dir, "var/lib/dpkg/info/postgresql-15.md5sums", "/usr/bin/redis-server\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	char pkg[64];
	assert_int_equal(dpkg_owner(&sr, "/usr/lib/postgresql/15/bin/postgres", pkg, sizeof(pkg)),
			 0);
	assert_string_equal(pkg, "postgresql-15");
	/* usrmerge: /usr/lib/... listed as /lib/...; ":arch" dropped */
	assert_int_equal(dpkg_owner(&sr, "/usr/lib/x86_64-linux-gnu/libc.so.6", pkg, sizeof(pkg)),
			 0);
	assert_string_equal(pkg, "libc6");
	/* only .list files count */
	assert_int_equal(dpkg_owner(&sr, "/usr/bin/redis-server", pkg, sizeof(pkg)), -ENOENT);
	sysroot_close(&sr);
}

static void test_versions(UNIT_STATE)
{
	int v[2];
	/* a whole path component is a major alone: PostgreSQL 15.18 is not "15.0" */
	assert_int_equal(version_from_path("/usr/lib/postgresql/15/bin/postgres", v), 0);
	assert_int_equal(v[0], 15);
	assert_int_equal(v[1], -1);
	assert_int_equal(version_parse_mm("15.18-0+deb12u1", v), 0);
	assert_int_equal(v[0], 15);
	assert_int_equal(v[1], 18);
	assert_int_equal(
		version_from_path("/opt/mongodb-linux-x86_64-ubuntu2204-8.0.4/bin/mongod", v), 0);
	assert_int_equal(v[0], 8);
	assert_int_equal(v[1], 0);
	assert_int_equal(version_from_path("/usr/bin/mongod", v), -ENOENT);
	assert_int_equal(version_from_path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java", v),
			 -ENOENT);
	assert_int_equal(version_parse_mm("1:8.0.4-1~deb12", v), 0);
	assert_int_equal(v[0], 8);
	assert_int_equal(version_parse_mm("5:7.0.15-1~deb12u1", v), 0);
	assert_int_equal(v[0], 7);
	assert_int_equal(v[1], 0);
	assert_int_equal(version_parse_mm("x1", v), -EINVAL);

	static const char dpkg[] = "Package: redis-tools\n"
				   "Status: install ok installed\n"
				   "Version: 5:7.0.15-1~deb12u1\n"
				   "\n"
				   "Package: mongodb-org-server\n"
				   "Status: deinstall ok config-files\n"
				   "Version: 7.0.2\n"
				   "\n"
				   "Package: redis-server\n"
				   "Status: install ok installed\n"
				   "Priority: optional\n"
				   "Version: 5:7.0.15-1~deb12u1\n";
	char out[64];
	assert_int_equal(dpkg_status_version(LIT(dpkg), "redis-server", out, sizeof(out)), 0);
	assert_string_equal(out, "5:7.0.15-1~deb12u1");
	/* removed packages do not count */
	assert_int_equal(dpkg_status_version(LIT(dpkg), "mongodb-org-server", out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(dpkg_status_version(LIT(dpkg), "redis", out, sizeof(out)), -ENOENT);
}

/* A minimal ELF64 image (elf_build.h): one SECTION holding Go build info for GOVER. */
static size_t make_elf(unsigned char *img, size_t cap, const char *section, const char *gover)
{
	unsigned char bi[64] = {0};
	go_buildinfo(bi, gover, "");
	const struct tsec s = {section, SHT_PROGBITS, bi, sizeof(bi), 0, 0};
	return elf_build(img, cap, &s, 1, false);
}

static void test_go_buildinfo(UNIT_STATE)
{
	unsigned char img[1024];
	char ver[32];
	struct mem_src m = {img, make_elf(img, sizeof(img), ".go.buildinfo", "go1.22.5")};
	assert_int_equal(elf_go_version(mem_src_read, &m, ver, sizeof(ver)), 1);
	assert_string_equal(ver, "go1.22.5");
	m.n = make_elf(img, sizeof(img), ".data", "go1.22.5");
	assert_int_equal(elf_go_version(mem_src_read, &m, ver, sizeof(ver)), 0);
	/* not ELF, cut short, section headers out of the file */
	m.n = make_elf(img, sizeof(img), ".go.buildinfo", "go1.21.6");
	img[0] = 'X';
	assert_int_equal(elf_go_version(mem_src_read, &m, ver, sizeof(ver)), -EINVAL);
	img[0] = 0x7f;
	struct mem_src cut = {img, 40};
	assert_int_equal(elf_go_version(mem_src_read, &cut, ver, sizeof(ver)), -EINVAL);
	((Elf64_Ehdr *)img)->e_shoff = 1u << 30;
	assert_int_equal(elf_go_version(mem_src_read, &m, ver, sizeof(ver)), -EINVAL);
	/* a version string with a length beyond the section is not copied */
	m.n = make_elf(img, sizeof(img), ".go.buildinfo", "go1.22.5");
	img[sizeof(Elf64_Ehdr) + 32] = 200;
	assert_int_equal(elf_go_version(mem_src_read, &m, ver, sizeof(ver)), 1);
	assert_string_equal(ver, "");
}

static void test_maps_shared(UNIT_STATE)
{
	static const char maps[] =
		"55d0c0a00000-55d0c0b00000 r-xp 00000000 08:01 1234 /usr/lib/postgresql/15/bin/postgres\n"
		"7f0000000000-7f0008a00000 rw-s 00000000 00:01 5678 /dev/zero (deleted)\n"
		"7f0010000000-7f0010100000 rw-s 00000000 00:19 42 /dev/shm/PostgreSQL.123\n"
		"7f0020000000-7f0020001000 rw-s 00000000 00:01 9 /SYSV0052e2c1 (deleted)\n"
		"7f0030000000-7f0030200000 rw-p 00000000 00:00 0 \n";
	uint64_t kb;
	bool ht;
	assert_int_equal(maps_largest_shared(LIT(maps), &kb, &ht), 0);
	assert_int_equal(kb, 0x8a00000 / 1024);
	assert_false(ht);
	static const char huge[] =
		"7f0000000000-7f0040000000 rw-s 00000000 00:0f 77 /anon_hugepage (deleted)\n";
	assert_int_equal(maps_largest_shared(LIT(huge), &kb, &ht), 0);
	assert_int_equal(kb, 1u << 20);
	assert_true(ht);
	assert_int_equal(maps_largest_shared(LIT("garbage\n"), &kb, &ht), -ENOENT);
}

/* The file check behind dpkg versions: this process runs /proc/self/exe's file, not another;
 * a recorded tree keeps no exe link (unknown, -ENOENT); a missing process is unknown. */
static void test_exe_is_path(UNIT_STATE)
{
	(void)state;
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "/"), 0);
	char self[4096];
	assert_int_equal(exe_self_path(self, sizeof(self)), 0);
	assert_int_equal(exe_is_path(&sr, getpid(), self), 1);
	assert_int_equal(exe_is_path(&sr, getpid(), "/bin/sh"), 0);
	assert_true(exe_is_path(&sr, getpid(), "/nonexistent/redis-server") < 0);
	assert_true(exe_is_path(&sr, 0x7ffffff0, self) < 0);
	sysroot_close(&sr);
	char dir[] = "/tmp/thpctl-exeis.XXXXXX";
	assert_non_null(mkdtemp(dir));
	unit_mkdir(dir, "proc");
	assert_int_equal(sysroot_open(&sr, dir), 0);
	assert_int_equal(exe_is_path(&sr, 1, self), -ENOENT);
	unit_tree_remove(dir, &sr);
}

UNIT_TESTS(test_workload_names, test_relative_path_arguments, test_cmdline_intact, test_dpkg_owner,
	   test_versions, test_go_buildinfo, test_maps_shared, test_exe_is_path)
