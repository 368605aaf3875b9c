// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/kernel/smaps.c on damaged and unusual input: values that
 * do not parse, lines printed twice, a NUL header, an old kernel's fields,
 * label lookalikes, VmFlags positions, text that is not smaps, empty text.
 */
#include "test_smaps.h"

/* "AnonHugePages: 12abc kB" was 12 kB, a damaged Size 0: now unknown, and the stream says so. */
static void test_smaps_damaged_values_unknown_and_counted(UNIT_STATE)
{
	const char text[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "Size:       1e9999 kB\n"
			    "Rss:        2048 kB\n"
			    "AnonHugePages:   12abc kB\n"
			    "THPeligible:    2\n"
			    "VmFlags: rd wr hg\n"
			    "7f0000200000-7f0000400000 rw-p 00000000 00:00 0 \n"
			    "Size:       2048 kB\n"
			    "Rss:        2048 kB\n"
			    "AnonHugePages:   2048 kB\r\n";
	struct seen s;
	struct smaps_totals t;
	stream_expect(LIT(text), &s, &t, 3, 2);
	expect_has(&s.t[0], 0, B(SM_SIZE) | B(SM_ANON_HUGE));
	assert_true(s.t[0].damaged & (1u << SM_ANON_HUGE));
	assert_int_equal(s.thp_eligible[0], -1);
	assert_int_equal(s.vmflags[0], VMF_HG);
	assert_int_equal(s.t[1].kb[SM_ANON_HUGE], 2048); /* CRLF */
	/* the sum over a damaged value is unknown */
	expect_has(&t, B(SM_RSS), B(SM_ANON_HUGE) | B(SM_SIZE));
}

/* A field the kernel prints in every block, missing from one: that VMA's value and the total
 * are unknown (not the other VMAs' sum, a plausible 0), and it counts as damage. */
static void test_smaps_field_missing_from_one_vma(UNIT_STATE)
{
	const char text[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "Size:       2048 kB\n"
			    "Rss:        2048 kB\n"
			    "AnonHugePages:      0 kB\n"
			    "7f0000200000-7f0000a00000 rw-p 00000000 00:00 0 \n"
			    "Size:       8192 kB\n"
			    "Rss:        8192 kB\n"
			    "7f0000a00000-7f0000c00000 rw-p 00000000 00:00 0 \n"
			    "Size:       2048 kB\n"
			    "Rss:           0 kB\n"
			    "AnonHugePages:      0 kB\n";
	struct seen s;
	struct smaps_totals t;
	stream_expect(LIT(text), &s, &t, 1, 3);
	assert_false(smaps_has(&s.t[1], SM_ANON_HUGE));
	expect_has(&t, B(SM_SIZE) | B(SM_RSS), B(SM_ANON_HUGE));
	assert_int_equal(t.kb[SM_RSS], 10240);
}

/* A line printed twice in one VMA (or in the rollup) is damage: unknown, never one copy. */
static void test_smaps_duplicate_line_is_unknown(UNIT_STATE)
{
	const char text[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "Size:       2048 kB\n"
			    "AnonHugePages:   2048 kB\n"
			    "AnonHugePages:      0 kB\n"
			    "THPeligible:    1\n"
			    "THPeligible:    1\n"
			    "VmFlags: rd wr hg\n"
			    "VmFlags: rd wr nh\n"
			    "7f0000200000-7f0000400000 rw-p 00000000 00:00 0 \n"
			    "Size:       2048 kB\n"
			    "AnonHugePages:   2048 kB\n";
	struct seen s;
	struct smaps_totals t;
	stream_expect(LIT(text), &s, &t, 3, 2);
	expect_has(&s.t[0], 0, B(SM_ANON_HUGE));
	assert_true(s.t[0].damaged & (1u << SM_ANON_HUGE));
	assert_int_equal(s.thp_eligible[0], -1);
	assert_false(s.has_vmflags[0]);
	assert_int_equal(s.vmflags[0], 0);
	/* the next VMA's own AnonHugePages is fine; the sum is unknown */
	assert_int_equal(s.t[1].kb[SM_ANON_HUGE], 2048);
	assert_false(smaps_has(&t, SM_ANON_HUGE));
	assert_int_equal(t.kb[SM_SIZE], 4096);
	/* the rollup: the same rule */
	assert_int_equal(smaps_rollup_parse(LIT("Rss:  12 kB\nAnonHugePages: 2048 kB\n"
						"AnonHugePages: 2048 kB\n"),
					    &t),
			 0);
	assert_false(smaps_has(&t, SM_ANON_HUGE));
	assert_int_equal(t.kb[SM_RSS], 12);
}

/* A NUL where the second header begins: not merged into the first VMA silently. */
static void test_smaps_nul_header_is_damage(UNIT_STATE)
{
	const char text[] = "1000-2000 rw-p 00000000 00:00 0\n"
			    "Size:       4 kB\n"
			    "\0"
			    "000-3000 rw-p 00000000 00:00 0\n"
			    "Size:       4 kB\n";
	struct seen s;
	/* the lost header, and the second Size: that VMA's field seen twice in the first */
	stream_expect(LIT(text), &s, NULL, 2, 1);
	assert_false(smaps_has(&s.t[0], SM_SIZE));
}

/* A 4.14 kernel: no THPeligible (5.0), no FilePmdMapped (5.4). */
static void test_smaps_old_kernel_absent(UNIT_STATE)
{
	const char text[] = "00400000-0040c000 r-xp 00000000 08:01 131090 /bin/cat\n"
			    "Size:                 48 kB\n"
			    "Rss:                  48 kB\n"
			    "Pss:                  48 kB\n"
			    "AnonHugePages:         0 kB\n"
			    "ShmemPmdMapped:        0 kB\n"
			    "Swap:                  0 kB\n"
			    "KernelPageSize:        4 kB\n"
			    "VmFlags: rd ex mr mw me dw \n";
	struct seen s = {0};
	struct smaps_totals t;
	assert_int_equal(smaps_parse(LIT(text), collect, &s, &t), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.thp_eligible[0], -1);
	assert_true(s.has_vmflags[0]);
	expect_has(&s.t[0], B(SM_ANON_HUGE) | B(SM_SHMEM_PMD),
		   B(SM_FILE_PMD) | B(SM_ANONYMOUS) | B(SM_SHARED_HUGETLB));
	expect_has(&t, 0, B(SM_FILE_PMD));
	assert_int_equal(t.kb[SM_FILE_PMD], 0);
	assert_int_equal(s.t[0].kb[SM_SIZE], 48);
}

static void test_smaps_bad_values(UNIT_STATE)
{
	const char text[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "Size:       2048 kB\n"
			    "Rss:        99999999999999999999 kB\n" /* overflow: absent */
			    "Pss         12 kB\n"		    /* missing colon: ignored */
			    "Swap:       kB\n"			    /* no number: absent */
			    "AnonHugePages: 2048 kB\n"
			    "THPeligible:    x\n"	   /* unparsable: stays absent */
			    "VmFlags: rd wr hgx nhz mr\n"; /* no exact "hg"/"nh" word */
	struct seen s = {0};
	assert_int_equal(smaps_parse(LIT(text), collect, &s, NULL), 0);
	assert_int_equal(s.n, 1);
	expect_has(&s.t[0], B(SM_SIZE), B(SM_RSS) | B(SM_PSS) | B(SM_SWAP));
	assert_int_equal(s.t[0].kb[SM_ANON_HUGE], 2048);
	assert_int_equal(s.thp_eligible[0], -1);
	assert_true(s.has_vmflags[0]);
	assert_int_equal(s.vmflags[0], 0);
}

/* Lines the fast path (a kept label, blanks, digits, " kB\n") passes to the careful one. */
static void test_smaps_label_lookalikes_and_number_edges(UNIT_STATE)
{
	const char text[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "Size:\t\t4 kB\n"				  /* a tab: still 4 */
			    "Rss_Anon:    5 kB\n"			  /* not Rss: ignored */
			    "SwapPss:    7 kB\n"			  /* not Swap: ignored */
			    "Rss:  18446744073709551615 kB\n"		  /* 20 digits, fits */
			    "Pss:  00000000000000000000012 kB\n"	  /* 23 digits: 12 */
			    "Anonymous: 4 kBx\n"			  /* damaged */
			    "Private_Dirty:0 kB\n"			  /* no blank */
			    "Swap: 4\n"					  /* no unit */
			    "AnonHugePages:                    2048 kB\n" /* long padding */
			    "THPeligible: 1\n"
			    "VmFlags: rd wr hg\n";
	struct seen s;
	struct smaps_totals t;
	stream_expect(LIT(text), &s, &t, 1, 1);
	assert_int_equal(s.t[0].kb[SM_SIZE], 4);
	assert_true(s.t[0].kb[SM_RSS] == UINT64_MAX);
	assert_int_equal(s.t[0].kb[SM_PSS], 12);
	expect_has(&s.t[0], B(SM_PRIVATE_DIRTY), B(SM_ANONYMOUS));
	assert_true(s.t[0].damaged & (1u << SM_ANONYMOUS));
	assert_int_equal(s.t[0].kb[SM_PRIVATE_DIRTY], 0);
	assert_int_equal(s.t[0].kb[SM_SWAP], 4);
	assert_int_equal(s.t[0].kb[SM_ANON_HUGE], 2048);
	assert_int_equal(s.thp_eligible[0], 1);
	assert_int_equal(s.vmflags[0], VMF_HG);
}

static void test_smaps_vmflags_positions(UNIT_STATE)
{
	/* flags first, last (no trailing blank), and all three together */
	const char text[] = "1000-2000 rw-p 00000000 00:00 0\n"
			    "VmFlags: hg rd\n"
			    "2000-3000 rw-p 00000000 00:00 0\n"
			    "VmFlags: rd nh\n"
			    "3000-4000 rw-p 00000000 00:00 0\n"
			    "VmFlags: ht hg nh\n";
	struct seen s = {0};
	assert_int_equal(smaps_parse(LIT(text), collect, &s, NULL), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.vmflags[0], VMF_HG);
	assert_int_equal(s.vmflags[1], VMF_NH);
	assert_int_equal(s.vmflags[2], VMF_HG | VMF_NH | VMF_HT);
	assert_string_equal(s.name[0], ""); /* anonymous, no trailing blank */
	assert_true(s.start[1] == 0x2000 && s.end[1] == 0x3000);
}

static void test_smaps_not_a_header(UNIT_STATE)
{
	struct seen s = {0};
	struct smaps_totals t;
	assert_int_equal(smaps_parse(LIT("hello world\n"), collect, &s, &t), -EINVAL);
	assert_int_equal(smaps_parse(LIT("Size: 4 kB\nRss: 4 kB\n"), collect, &s, &t), -EINVAL);
	assert_int_equal(s.n, 0);
	/* meminfo is not smaps */
	assert_int_equal(smaps_parse(LIT("MemTotal: 100 kB\n"), NULL, NULL, &t), -EINVAL);
	/* a header with end < start, or no '-' */
	assert_int_equal(smaps_parse(LIT("2000-1000 rw-p 00000000 00:00 0\n"), NULL, NULL, &t),
			 -EINVAL);
	assert_int_equal(smaps_parse(LIT("deadbeef rw-p 00000000 00:00 0\n"), NULL, NULL, &t),
			 -EINVAL);
}

static void test_smaps_empty(UNIT_STATE)
{
	struct seen s = {0};
	struct smaps_totals t;
	memset(&t, 0xff, sizeof(t));
	assert_int_equal(smaps_parse(LIT(""), collect, &s, &t), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(t.present, 0);
	assert_int_equal(t.kb[SM_RSS], 0);
	assert_int_equal(smaps_parse(LIT("\n\n"), collect, &s, NULL), 0);
	assert_int_equal(s.n, 0);
}

/* Lines not kept ("Locked:", "Pss_Dirty:"): skipped, damage only without a colon (CRLF too). */
static void test_smaps_unkept_lines(UNIT_STATE)
{
	const char text[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "Size:       2048 kB\n"
			    "Pss_Dirty:     8 kB\n"
			    "Locked:        0 kB\r\n"
			    "Locked          0 kB\n" /* no colon: damage */
			    "ProtectionKeyX 0\n"     /* no colon: damage */
			    "Rss:          12 kB\n";
	struct smaps_stream st;
	struct smaps_totals t;
	smaps_stream_init(&st, NULL, NULL, &t);
	assert_int_equal(smaps_stream_feed(&st, LIT(text)), 0);
	assert_int_equal(smaps_stream_finish(&st), 0);
	assert_int_equal(st.nbad, 2);
	assert_int_equal(st.nvmas, 1);
	assert_int_equal(t.kb[SM_SIZE], 2048);
	assert_int_equal(t.kb[SM_RSS], 12);
}

/* A smaps_rollup whose AnonHugePages line is LABEL then the 8 bytes V then " kB", between
 * lines of the kernel's own shape: its totals (-1 in .present when the parse failed). */
static struct smaps_totals rollup_line(const char *label, const char v[8])
{
	char text[256];
	int n = snprintf(text, sizeof(text),
			 "00400000-7fff0000 ---p 00000000 00:00 0 [rollup]\n"
			 "Rss:                1024 kB\n"
			 "Pss_Dirty:             8 kB\n%s",
			 label);
	memcpy(text + n, v, 8);
	memcpy(text + n + 8, " kB\nSwap:                  0 kB\n", 33);
	struct smaps_totals t;
	if (smaps_rollup_parse(text, strlen(text), &t))
		t.present = (uint32_t)-1;
	return t;
}

/*
 * smaps_rollup's 28-byte lines are read a word at a time (smaps_fixed.c): for every shape
 * of a line's 8 value bytes the totals are what the careful path gives the same line with
 * one more blank (29 bytes: not that shape); and a kept line seen twice in that shape is
 * unknown, as in any other.
 */
static void test_rollup_fixed_same_as_careful(UNIT_STATE)
{
	static const char alphabet[] = {' ', '0', '3', '9', ':', 'k', '\t', '\n', '\0', '\xc3'};
	unsigned seed = 4242, kept = 0;
	for (int i = 0; i < 100000; i++) {
		char v[8];
		for (int d = 0; d < 8; d++) {
			seed = seed * 1103515245u + 12345u;
			v[d] = i < 4000 && d < 8 - 1 - i % 8
				       ? ' '
				       : alphabet[(seed >> 16) % sizeof(alphabet)];
		}
		struct smaps_totals a = rollup_line("AnonHugePages:  ", v);
		struct smaps_totals b = rollup_line("AnonHugePages:   ", v);
		if (a.present != b.present || a.damaged != b.damaged)
			fail_msg("value bytes %d: present %x/%x damaged %x/%x", i, a.present,
				 b.present, a.damaged, b.damaged);
		if (a.present != (uint32_t)-1 && smaps_has(&a, SM_ANON_HUGE)) {
			assert_int_equal(a.kb[SM_ANON_HUGE], b.kb[SM_ANON_HUGE]);
			kept++;
		}
		if (a.present != (uint32_t)-1)
			assert_int_equal(a.kb[SM_RSS], 1024);
	}
	assert_true(kept > 1000);
	struct smaps_totals t;
	assert_int_equal(smaps_rollup_parse(LIT("Rss:                  12 kB\n"
						"AnonHugePages:      2048 kB\n"
						"AnonHugePages:      2048 kB\n"),
					    &t),
			 0);
	assert_false(smaps_has(&t, SM_ANON_HUGE));
	assert_int_equal(t.kb[SM_RSS], 12);
}

UNIT_TESTS(test_smaps_damaged_values_unknown_and_counted, test_smaps_field_missing_from_one_vma,
	   test_smaps_duplicate_line_is_unknown, test_smaps_nul_header_is_damage,
	   test_smaps_old_kernel_absent, test_smaps_bad_values,
	   test_smaps_label_lookalikes_and_number_edges, test_smaps_vmflags_positions,
	   test_smaps_not_a_header, test_smaps_empty, test_smaps_unkept_lines,
	   test_rollup_fixed_same_as_careful)
