// SPDX-License-Identifier: MIT
/* Unit tests: whether the installed systemd knows a unit setting (kernel/systemd_probe.c). */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/systemd_probe.h"

static void test_bytes(UNIT_STATE)
{
	static const char lib[] = "\x7f"
				  "ELF\0\0Service.MemoryMax\0Service.MemoryTHP\0";
	assert_true(systemd_bytes_have(lib, sizeof(lib), "Service.MemoryTHP", 17));
	assert_false(systemd_bytes_have(lib, sizeof(lib), "Service.MemoryZSwapMax", 22));
	assert_false(systemd_bytes_have(lib, 3, "Service.MemoryTHP", 17));
	assert_false(systemd_bytes_have("", 0, "x", 1));
}

/* A tree with a manager library that knows MemoryMax only (systemd 252), and none at all. */
static void test_tree(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-sd-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char p[512];
	unit_mkdirs(dir, "usr/lib/systemd");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	assert_int_equal(systemd_knows(&sr, "MemoryTHP"), -ENOENT);
	snprintf(p, sizeof(p), "%s/usr/lib/systemd/libsystemd-core-252.so", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	/* the name across a read boundary (reads of 64 KiB) is still found: 256 KiB - 5 of filler */
	for (int i = 0; i < 256 * 1024 - 5; i++)
		fputc('x', f);
	fputs("Service.MemoryMax\0", f);
	fclose(f);
	assert_int_equal(systemd_knows(&sr, "MemoryMax"), 1);
	assert_int_equal(systemd_knows(&sr, "MemoryTHP"), 0);
	unlink(p);
	unit_rmrf(dir);
	sysroot_close(&sr);
}

UNIT_TESTS(test_bytes, test_tree)
