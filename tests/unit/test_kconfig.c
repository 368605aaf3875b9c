// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/kconfig.c (the THP boot default in the kernel's build config). */
#include "unit.h"

#include "kernel/kconfig.h"
#include "kernel/sysroot.h"

#ifdef THPCTL_ZLIB
#include <zlib.h>
#endif

/* The THP lines of /proc/config.gz on the 6.18 guest, as recorded. */
static const char cfg_618[] = "CONFIG_MM_ID=y\n"
			      "CONFIG_TRANSPARENT_HUGEPAGE=y\n"
			      "# CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS is not set\n"
			      "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y\n"
			      "# CONFIG_TRANSPARENT_HUGEPAGE_NEVER is not set\n"
			      "CONFIG_THP_SWAP=y\n";

static void test_parse_choices(UNIT_STATE)
{
	assert_int_equal(kconfig_thp_parse(LIT(cfg_618)), KCT_MADVISE);
	assert_int_equal(kconfig_thp_parse(LIT("CONFIG_TRANSPARENT_HUGEPAGE=y\n"
					       "CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y\n")),
			 KCT_ALWAYS);
	assert_int_equal(kconfig_thp_parse(LIT("CONFIG_TRANSPARENT_HUGEPAGE=y\n"
					       "CONFIG_TRANSPARENT_HUGEPAGE_NEVER=y")),
			 KCT_NEVER);
	assert_int_equal(kconfig_thp_parse(LIT("# CONFIG_TRANSPARENT_HUGEPAGE is not set\n")),
			 KCT_NO_THP);
	/* no choice named, a prefix of a name, empty: unknown, never a guess */
	assert_int_equal(kconfig_thp_parse(LIT("CONFIG_TRANSPARENT_HUGEPAGE=y\n")), KCT_UNKNOWN);
	assert_int_equal(kconfig_thp_parse(LIT("CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=yes\n")),
			 KCT_UNKNOWN);
	assert_int_equal(kconfig_thp_parse(LIT("")), KCT_UNKNOWN);
}

static char dir[64];

static void mk(const char *rel)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	mkdir(p, 0755);
}

/* kconfig_read of RELEASE under SR returns RC, with SRC and THP. */
static void read_is(struct sysroot *sr, const char *release, int rc, enum kconfig_src src,
		    enum kconfig_thp thp)
{
	struct kconfig_info k;
	assert_int_equal(kconfig_read(sr, release, &k), rc);
	assert_int_equal(k.src, src);
	assert_int_equal(k.thp, thp);
}

static void test_read_boot_config_first(UNIT_STATE)
{
	snprintf(dir, sizeof(dir), "/tmp/thpctl-kcfg.XXXXXX");
	assert_non_null(mkdtemp(dir));
	mk("boot");
	unit_put(dir, "boot/config-6.1.0-9-amd64",
		 "CONFIG_TRANSPARENT_HUGEPAGE=y\nCONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	read_is(&sr, "6.1.0-9-amd64", 0, KCS_BOOT, KCT_ALWAYS);
	/* another release: no file of its own, no config.gz: unknown, -ENOENT */
	read_is(&sr, "6.2.0", -ENOENT, KCS_NONE, KCT_UNKNOWN);
	/* a release with a '/' does not leave boot/ */
	read_is(&sr, "../boot/config-6.1.0-9-amd64", -ENOENT, KCS_NONE, KCT_UNKNOWN);
	sysroot_close(&sr);
}

#ifdef THPCTL_ZLIB
static void test_read_proc_config_gz(UNIT_STATE)
{
	snprintf(dir, sizeof(dir), "/tmp/thpctl-kcfg.XXXXXX");
	assert_non_null(mkdtemp(dir));
	mk("proc");
	char p[160];
	snprintf(p, sizeof(p), "%s/proc/config.gz", dir);
	gzFile z = gzopen(p, "wb");
	assert_non_null(z);
	assert_int_equal(gzwrite(z, cfg_618, sizeof(cfg_618) - 1), (int)sizeof(cfg_618) - 1);
	gzclose(z);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	read_is(&sr, "6.18.44-fc-v657", 0, KCS_PROC_GZ, KCT_MADVISE);
	/* cut in the middle: damaged, not a guess */
	struct buf whole = {0}, out = {0};
	assert_int_equal(sysroot_read(&sr, "proc/config.gz", &whole), 0);
	assert_int_equal(kconfig_gunzip(whole.p, whole.len, &out), 0);
	assert_int_equal(out.len, sizeof(cfg_618) - 1);
	assert_int_equal(kconfig_gunzip(whole.p, whole.len / 2, &out), -EINVAL);
	assert_int_equal(kconfig_gunzip(LIT("not gzip at all"), &out), -EINVAL);
	unit_put(dir, "proc/config.gz", "garbage");
	read_is(&sr, "6.18.44-fc-v657", -EINVAL, KCS_NONE, KCT_UNKNOWN);
	buf_free(&whole);
	buf_free(&out);
	sysroot_close(&sr);
}
#endif

UNIT_MAIN(cmocka_unit_test(test_parse_choices), cmocka_unit_test(test_read_boot_config_first),
#ifdef THPCTL_ZLIB
	  cmocka_unit_test(test_read_proc_config_gz),
#endif
)
