// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/cpuinfo.c (CPU flags of /proc/cpuinfo). */
#include "unit.h"

#include "kernel/cpuinfo.h"

static const char x86_guest[] = "processor\t: 0\n"
				"vendor_id\t: GenuineIntel\n"
				"flags\t\t: fpu vme de pse tsc msr pae hypervisor lahf_lm\n"
				"bugs\t\t: spectre_v1\n\n"
				"processor\t: 1\n"
				"flags\t\t: fpu\n";
static const char x86_metal[] = "processor\t: 0\nflags\t\t: fpu vme hypervisorx xhypervisor\n";
static const char arm64[] = "processor\t: 0\nBogoMIPS\t: 50.00\n"
			    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n";

static void flags_of_the_first_cpu(UNIT_STATE)
{
	assert_int_equal(cpuinfo_parse_flag(LIT(x86_guest), "hypervisor"), 1);
	assert_int_equal(cpuinfo_parse_flag(LIT(x86_guest), "lahf_lm"), 1);
	assert_int_equal(cpuinfo_parse_flag(LIT(x86_guest), "fpu"), 1);
	assert_int_equal(cpuinfo_parse_flag(LIT(x86_guest), "avx512f"), 0);
	/* a word, not a substring */
	assert_int_equal(cpuinfo_parse_flag(LIT(x86_metal), "hypervisor"), 0);
	assert_int_equal(cpuinfo_parse_flag(LIT(arm64), "atomics"), 1);
	assert_int_equal(cpuinfo_parse_flag(LIT(arm64), "hypervisor"), 0);
}

static void no_flags_line_is_unknown_not_no(UNIT_STATE)
{
	assert_int_equal(cpuinfo_parse_flag(LIT(""), "hypervisor"), -ENOENT);
	assert_int_equal(
		cpuinfo_parse_flag(LIT("processor\t: 0\nflagsx: hypervisor\n"), "hypervisor"),
		-ENOENT);
	/* cut in the middle of the flags line: what is there counts */
	assert_int_equal(cpuinfo_parse_flag(LIT("flags\t\t: fpu hyperv"), "hypervisor"), 0);
	assert_int_equal(cpuinfo_parse_flag(LIT("flags\t\t:\n"), "fpu"), 0);
}

static void read_from_a_tree_and_live(UNIT_STATE)
{
	char root[64];
	struct sysroot sr;
	unit_tree(root, "cpuinfo", (const char *const[]){"proc", NULL}, &sr);
	bool has = true;
	assert_int_equal(cpuinfo_has_flag(&sr, "hypervisor", &has), -ENOENT);
	assert_false(has);
	unit_put(root, "proc/cpuinfo", x86_guest);
	assert_int_equal(cpuinfo_has_flag(&sr, "hypervisor", &has), 0);
	assert_true(has);
	unit_put(root, "proc/cpuinfo", "processor\t: 0\n");
	assert_int_equal(cpuinfo_has_flag(&sr, "hypervisor", &has), -ENOENT);
	unit_tree_remove(root, &sr);
	assert_int_equal(sysroot_open(&sr, "/"), 0);
	int r = cpuinfo_has_flag(&sr, "fpu", &has);
	assert_true(r == 0 || r == -ENOENT);
	sysroot_close(&sr);
}

UNIT_TESTS(flags_of_the_first_cpu, no_flags_line_is_unknown_not_no, read_from_a_tree_and_live)
