// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/smaps.c (/proc/PID/smaps and smaps_rollup). */
#include "test_smaps.h"

/*
 * One VMA of a 6.18 process's smaps (fields as printed there): its HEADER line, then the
 * fields with these values, THPeligible ELIGIBLE and VmFlags FLAGS.
 */
#define VMA(header, size, rss, anon, ahp, eligible, flags)                                         \
	header "\n"                                                                                \
	       "Size:           " size " kB\n"                                                     \
	       "KernelPageSize:        4 kB\n"                                                     \
	       "MMUPageSize:           4 kB\n"                                                     \
	       "Rss:            " rss " kB\n"                                                      \
	       "Pss:            " rss " kB\n"                                                      \
	       "Pss_Dirty:      " anon " kB\n"                                                     \
	       "Shared_Clean:          0 kB\n"                                                     \
	       "Shared_Dirty:          0 kB\n"                                                     \
	       "Private_Clean:         0 kB\n"                                                     \
	       "Private_Dirty:  " anon " kB\n"                                                     \
	       "Referenced:     " rss " kB\n"                                                      \
	       "Anonymous:      " anon " kB\n"                                                     \
	       "KSM:                   0 kB\n"                                                     \
	       "LazyFree:              0 kB\n"                                                     \
	       "AnonHugePages:  " ahp " kB\n"                                                      \
	       "ShmemPmdMapped:        0 kB\n"                                                     \
	       "FilePmdMapped:         0 kB\n"                                                     \
	       "Shared_Hugetlb:        0 kB\n"                                                     \
	       "Private_Hugetlb:       0 kB\n"                                                     \
	       "Swap:                  0 kB\n"                                                     \
	       "SwapPss:               0 kB\n"                                                     \
	       "Locked:                0 kB\n"                                                     \
	       "THPeligible:           " eligible "\n"                                             \
	       "VmFlags: " flags "\n"

/* Real field order and padding; the header names start at column 74 as the kernel pads them. */
// clang-format off
static const char smaps_text[] =
	VMA("55952cd09000-55952cd0b000 r--p 00000000 fe:00 247498                     /usr/bin/cat",
	    "     8", "     8", "     0", "     0", "0", "rd mr mw me ")
	VMA("559c9330c000-559c9349b000 rw-p 00000000 00:00 0                          [heap]",
	    "  1596", "  1544", "  1544", "     0", "0", "rd wr mr mw me ac ")
	VMA("7f1940000000-7f1940400000 rw-p 00000000 00:00 0 ",
	    "  4096", "  4096", "  4096", "  4096", "1", "rd wr mr mw me ac hg ")
	VMA("7f1942346000-7f1942479000 rw-p 00001000 fe:00 1234                       /tmp/my data file.bin",
	    "  1228", "   764", "     0", "     0", "0", "rd wr mr mw me nh ")
	"7f1942600000-7f1942a00000 rw-s 00000000 00:10 5678                       /anon_hugepage (deleted)\n"
	"Size:               4096 kB\n"
	"KernelPageSize:     2048 kB\n"
	"MMUPageSize:        2048 kB\n"
	"Rss:                   0 kB\n"
	"Pss:                   0 kB\n"
	"Private_Dirty:         0 kB\n"
	"Referenced:            0 kB\n"
	"Anonymous:             0 kB\n"
	"LazyFree:              0 kB\n"
	"AnonHugePages:         0 kB\n"
	"ShmemPmdMapped:        0 kB\n"
	"FilePmdMapped:         0 kB\n"
	"Shared_Hugetlb:        0 kB\n"
	"Private_Hugetlb:    4096 kB\n"
	"Swap:                  0 kB\n"
	"THPeligible:           0\n"
	"VmFlags: rd wr sh mr mw me ms de ht \n"
	"7fff63d45000-7fff63d66000 rw-p 00000000 00:00 0                          [stack]\n"
	"Size:                132 kB\n"
	"KernelPageSize:        4 kB\n"
	"Rss:                  24 kB\n"
	"AnonHugePages:      "; /* truncated: no value, no newline */
// clang-format on

#define NVMAS 6

static void test_smaps_vmas(UNIT_STATE)
{
	struct seen s = {0};
	assert_int_equal(smaps_parse(LIT(smaps_text), collect, &s, NULL), 0);
	assert_int_equal(s.n, NVMAS);

	/* file-backed executable */
	assert_true(s.start[0] == 0x55952cd09000ULL);
	assert_true(s.end[0] == 0x55952cd0b000ULL);
	assert_string_equal(s.perms[0], "r--p");
	assert_string_equal(s.name[0], "/usr/bin/cat");
	assert_int_equal(s.thp_eligible[0], 0);
	assert_true(s.has_vmflags[0]);
	assert_int_equal(s.vmflags[0], 0);
	assert_int_equal(s.t[0].kb[SM_SIZE], 8);

	/* heap */
	assert_string_equal(s.name[1], "[heap]");
	assert_string_equal(s.perms[1], "rw-p");
	assert_int_equal(s.t[1].kb[SM_RSS], 1544);
	assert_int_equal(s.t[1].kb[SM_ANONYMOUS], 1544);
	assert_int_equal(s.t[1].kb[SM_PRIVATE_DIRTY], 1544);

	/* anonymous THP region: empty name, hg, AnonHugePages */
	assert_string_equal(s.name[2], "");
	assert_true(s.end[2] - s.start[2] == 4u << 20);
	assert_int_equal(s.t[2].kb[SM_ANON_HUGE], 4096);
	assert_true(smaps_has(&s.t[2], SM_ANON_HUGE));
	assert_int_equal(s.thp_eligible[2], 1);
	assert_int_equal(s.vmflags[2], VMF_HG);

	/* a path with spaces is kept whole */
	assert_string_equal(s.name[3], "/tmp/my data file.bin");
	assert_int_equal(s.vmflags[3], VMF_NH);
	assert_int_equal(s.t[3].kb[SM_RSS], 764);

	/* hugetlb: "ht" */
	assert_string_equal(s.name[4], "/anon_hugepage (deleted)");
	assert_string_equal(s.perms[4], "rw-s");
	assert_int_equal(s.vmflags[4], VMF_HT | VMF_SH); /* rw-s: "sh" too */
	assert_int_equal(s.t[4].kb[SM_KERNEL_PAGE], 2048);
	assert_int_equal(s.t[4].kb[SM_PRIVATE_HUGETLB], 4096);

	/* truncated final VMA: reported with the fields it had */
	assert_string_equal(s.name[5], "[stack]");
	assert_int_equal(s.t[5].kb[SM_SIZE], 132);
	assert_int_equal(s.t[5].kb[SM_RSS], 24);
	assert_true(smaps_has(&s.t[5], SM_RSS));
	assert_false(smaps_has(&s.t[5], SM_ANON_HUGE)); /* no value */
	assert_false(smaps_has(&s.t[5], SM_PSS));
	assert_false(smaps_has(&s.t[5], SM_SWAP));
	assert_int_equal(s.thp_eligible[5], -1);
	assert_false(s.has_vmflags[5]);
}

static void test_smaps_totals(UNIT_STATE)
{
	struct smaps_totals t;
	struct seen s = {0};
	assert_int_equal(smaps_parse(LIT(smaps_text), collect, &s, &t), 0);
	assert_int_equal(t.kb[SM_SIZE], 8 + 1596 + 4096 + 1228 + 4096 + 132);
	assert_int_equal(t.kb[SM_RSS], 8 + 1544 + 4096 + 764 + 0 + 24);
	/* the cut last VMA lacks the rest: their totals are unknown, never a sum of the others
	 * (the kernel prints the same fields in every block) */
	assert_false(smaps_has(&t, SM_ANON_HUGE));
	assert_false(smaps_has(&t, SM_ANONYMOUS));
	assert_false(smaps_has(&t, SM_PRIVATE_HUGETLB));
	/* the page size is not summed: the base page, not the hugetlb VMA's 2048 kB */
	assert_int_equal(t.kb[SM_KERNEL_PAGE], 4);
	/* without the cut VMA every field is in every block: all summed */
	{
		const char *cut = strstr(smaps_text, "7fff63d45000");
		struct smaps_totals w;
		assert_int_equal(
			smaps_parse(smaps_text, (size_t)(cut - smaps_text), NULL, NULL, &w), 0);
		assert_int_equal(w.kb[SM_ANON_HUGE], 4096);
		assert_int_equal(w.kb[SM_ANONYMOUS], 1544 + 4096);
		assert_int_equal(w.kb[SM_PRIVATE_HUGETLB], 4096);
		assert_true(smaps_has(&w, SM_FILE_PMD));
		assert_int_equal(w.kb[SM_KERNEL_PAGE], 4);
	}

	/* totals without a callback are the same */
	struct smaps_totals t2;
	assert_int_equal(smaps_parse(LIT(smaps_text), NULL, NULL, &t2), 0);
	assert_memory_equal(&t, &t2, sizeof(t));
}

static void test_smaps_totals_page_size_is_base(UNIT_STATE)
{
	/* the last VMA is hugetlb: the total's page size is still the base page */
	const char text[] = "1000-3000 rw-p 00000000 00:00 0\n"
			    "KernelPageSize:        4 kB\n"
			    "7f0000000000-7f0000400000 rw-s 00000000 00:10 9 /anon_hugepage\n"
			    "KernelPageSize:     2048 kB\n"
			    "VmFlags: rd wr sh ht\n";
	struct smaps_totals t;
	assert_int_equal(smaps_parse(LIT(text), NULL, NULL, &t), 0);
	assert_true(smaps_has(&t, SM_KERNEL_PAGE));
	assert_int_equal(t.kb[SM_KERNEL_PAGE], 4);
	/* only a hugetlb VMA: its size is all there is */
	const char *h = strstr(text, "7f00");
	assert_int_equal(smaps_parse(h, strlen(h), NULL, NULL, &t), 0);
	assert_int_equal(t.kb[SM_KERNEL_PAGE], 2048);
}

/* Fed in chunks of whole lines, through one reused buffer, as ps reads a large smaps. */
static void test_smaps_stream_chunks(UNIT_STATE)
{
	struct seen whole = {0}, parts = {0};
	struct smaps_totals tw, tp;
	assert_int_equal(smaps_parse(LIT(smaps_text), collect, &whole, &tw), 0);

	struct smaps_stream *st = malloc(sizeof(*st));
	assert_non_null(st);
	smaps_stream_init(st, collect, &parts, &tp);
	char chunk[512];
	const char *pos = smaps_text, *end = smaps_text + sizeof(smaps_text) - 1;
	int nchunks = 0;
	while (pos < end) {
		/* up to 7 lines per chunk, so VMAs straddle chunks */
		const char *q = pos;
		for (int i = 0; i < 7 && q < end; i++) {
			const char *nl = memchr(q, '\n', (size_t)(end - q));
			q = nl ? nl + 1 : end;
		}
		size_t n = (size_t)(q - pos);
		assert_true(n < sizeof(chunk));
		memcpy(chunk, pos, n);
		assert_int_equal(smaps_stream_feed(st, chunk, n), 0);
		memset(chunk, '#', sizeof(chunk)); /* the stream must not keep pointers into it */
		pos = q;
		nchunks++;
	}
	assert_true(nchunks > NVMAS);
	assert_int_equal(smaps_stream_finish(st), 0);
	/* the text ends with "AnonHugePages:      " and no newline: the file was cut */
	assert_true(st->truncated);
	free(st);

	assert_int_equal(parts.n, whole.n);
	for (int i = 0; i < whole.n; i++) {
		assert_string_equal(parts.name[i], whole.name[i]);
		assert_true(parts.start[i] == whole.start[i]);
		assert_memory_equal(&parts.t[i], &whole.t[i], sizeof(whole.t[i]));
		assert_int_equal(parts.vmflags[i], whole.vmflags[i]);
		assert_int_equal(parts.thp_eligible[i], whole.thp_eligible[i]);
	}
	assert_memory_equal(&tp, &tw, sizeof(tw));
}

static void test_smaps_stream_sticky_error(UNIT_STATE)
{
	struct smaps_stream *st = malloc(sizeof(*st));
	struct seen s = {.stop_at = 1};
	assert_non_null(st);
	smaps_stream_init(st, collect, &s, NULL);
	assert_int_equal(smaps_stream_feed(st, LIT("1000-2000 rw-p 00000000 00:00 0\n")), 0);
	/* the second header reports the first VMA, whose callback says stop */
	assert_int_equal(smaps_stream_feed(st, LIT("2000-3000 rw-p 00000000 00:00 0\n")), 7);
	assert_int_equal(smaps_stream_feed(st, LIT("3000-4000 rw-p 00000000 00:00 0\n")), 7);
	assert_int_equal(smaps_stream_finish(st), 7);
	assert_int_equal(s.n, 1);

	smaps_stream_init(st, NULL, NULL, NULL);
	assert_int_equal(smaps_stream_feed(st, LIT("not smaps\n")), -EINVAL);
	assert_int_equal(smaps_stream_feed(st, LIT("1000-2000 rw-p 00000000 00:00 0\n")), -EINVAL);
	assert_int_equal(smaps_stream_finish(st), -EINVAL);
	free(st);
}

/* A VMA of more lines than any kernel prints stops the stream (a file of endless fields). */
static void test_smaps_stream_line_ceiling(UNIT_STATE)
{
	struct smaps_stream *st = malloc(sizeof(*st));
	assert_non_null(st);
	smaps_stream_init(st, NULL, NULL, NULL);
	assert_int_equal(smaps_stream_feed(st, LIT("1000-2000 rw-p 00000000 00:00 0\n")), 0);
	for (unsigned i = 1; i < SMAPS_MAX_VMA_LINES; i++)
		assert_int_equal(smaps_stream_feed(st, LIT("Rss: 4 kB\n")), 0);
	/* a new header starts the count again: SMAPS_MAX_VMA_LINES lines after it pass */
	assert_int_equal(smaps_stream_feed(st, LIT("2000-3000 rw-p 00000000 00:00 0\n")), 0);
	for (unsigned i = 0; i < SMAPS_MAX_VMA_LINES; i++)
		assert_int_equal(smaps_stream_feed(st, LIT("Rss: 4 kB\n")), 0);
	assert_int_equal(smaps_stream_feed(st, LIT("Rss: 4 kB\n")), -EFBIG);
	assert_int_equal(smaps_stream_finish(st), -EFBIG);
	assert_int_equal(st->nvmas, 2);
	free(st);
}

static void test_smaps_callback_stops(UNIT_STATE)
{
	struct seen s = {.stop_at = 2};
	assert_int_equal(smaps_parse(LIT(smaps_text), collect, &s, NULL), 7);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.name[1], "[heap]");
	/* stopping at the last VMA returns the value too */
	struct seen s2 = {.stop_at = NVMAS};
	assert_int_equal(smaps_parse(LIT(smaps_text), collect, &s2, NULL), 7);
	assert_int_equal(s2.n, NVMAS);
}

static const char rollup_text[] =
	"555559305000-7ffc37d39000 ---p 00000000 00:00 0                          [rollup]\n"
	"Rss:                1756 kB\n"
	"Pss:                 479 kB\n"
	"Pss_Dirty:           112 kB\n"
	"Pss_Anon:            112 kB\n"
	"Pss_File:            367 kB\n"
	"Pss_Shmem:             0 kB\n"
	"Shared_Clean:       1612 kB\n"
	"Shared_Dirty:          0 kB\n"
	"Private_Clean:        32 kB\n"
	"Private_Dirty:       112 kB\n"
	"Referenced:         1756 kB\n"
	"Anonymous:           112 kB\n"
	"KSM:                   0 kB\n"
	"LazyFree:              0 kB\n"
	"AnonHugePages:      2048 kB\n"
	"ShmemPmdMapped:        0 kB\n"
	"FilePmdMapped:         0 kB\n"
	"Shared_Hugetlb:        0 kB\n"
	"Private_Hugetlb:       0 kB\n"
	"Swap:                  0 kB\n"
	"SwapPss:               0 kB\n"
	"Locked:                0 kB\n";

static void test_rollup(UNIT_STATE)
{
	struct smaps_totals t;
	assert_int_equal(smaps_rollup_parse(LIT(rollup_text), &t), 0);
	assert_int_equal(t.kb[SM_RSS], 1756);
	assert_int_equal(t.kb[SM_PSS], 479); /* not Pss_Dirty/Pss_Anon */
	assert_int_equal(t.kb[SM_PRIVATE_DIRTY], 112);
	assert_int_equal(t.kb[SM_ANONYMOUS], 112);
	assert_int_equal(t.kb[SM_ANON_HUGE], 2048);
	assert_true(smaps_has(&t, SM_FILE_PMD));
	assert_true(smaps_has(&t, SM_SWAP));
	/* the rollup has no Size or KernelPageSize */
	assert_false(smaps_has(&t, SM_SIZE));
	assert_false(smaps_has(&t, SM_KERNEL_PAGE));
}

static void test_rollup_through_smaps_parse(UNIT_STATE)
{
	/* the rollup is one pseudo-VMA without THPeligible or VmFlags */
	struct seen s = {0};
	assert_int_equal(smaps_parse(LIT(rollup_text), collect, &s, NULL), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.name[0], "[rollup]");
	assert_string_equal(s.perms[0], "---p");
	assert_int_equal(s.thp_eligible[0], -1);
	assert_false(s.has_vmflags[0]);
	assert_int_equal(s.t[0].kb[SM_ANON_HUGE], 2048);
}

static void test_rollup_bad(UNIT_STATE)
{
	struct smaps_totals t;
	assert_int_equal(smaps_rollup_parse(LIT(""), &t), -EINVAL);
	assert_int_equal(t.present, 0);
	assert_int_equal(smaps_rollup_parse(LIT("garbage\nmore garbage"), &t), -EINVAL);
	assert_int_equal(smaps_rollup_parse(LIT("Rss:\nPss: kB\nFoo: 12 kB\n"), &t), -EINVAL);
	/* truncated: the header and one field without newline */
	assert_int_equal(smaps_rollup_parse(LIT("555559305000-7ffc37d39000 ---p 00000000 00:00 0 "
						"[rollup]\nRss:   12 kB"),
					    &t),
			 0);
	assert_int_equal(t.kb[SM_RSS], 12);
	assert_int_equal(t.present, 1u << SM_RSS);
}

static void test_field_names(UNIT_STATE)
{
	assert_string_equal(smaps_field_name(SM_ANON_HUGE), "AnonHugePages");
	assert_string_equal(smaps_field_name(SM_PRIVATE_HUGETLB), "Private_Hugetlb");
	assert_string_equal(smaps_field_name(SM_SWAP), "Swap");
	assert_string_equal(smaps_field_name(SM_NFIELDS), "?");
}

struct live {
	int n, named, stack;
	uint64_t rss;
};

static int live_cb(const struct smaps_vma *v, void *ctx)
{
	struct live *l = ctx;
	l->n++;
	if (v->name_len)
		l->named++;
	if (v->name_len == 7 && memcmp(v->name, "[stack]", 7) == 0)
		l->stack++;
	l->rss += v->t.kb[SM_RSS];
	return 0;
}

static void test_live_self(UNIT_STATE)
{
	size_t len = 0;
	char *text = unit_slurp_ok("/proc/self/smaps", &len);
	struct live l = {0};
	struct smaps_totals t;
	assert_int_equal(smaps_parse(text, len, live_cb, &l, &t), 0);
	assert_true(l.n > 5);
	assert_true(l.named > 0);
	assert_int_equal(l.stack, 1);
	assert_true(t.kb[SM_RSS] > 0);
	assert_true(t.kb[SM_RSS] == l.rss);
	assert_true(smaps_has(&t, SM_KERNEL_PAGE));
	assert_int_equal(t.kb[SM_KERNEL_PAGE] * 1024, sysconf(_SC_PAGESIZE));
	assert_true(smaps_has(&t, SM_ANON_HUGE));
	free(text);

	text = unit_slurp_ok("/proc/self/smaps_rollup", &len);
	assert_int_equal(smaps_rollup_parse(text, len, &t), 0);
	assert_true(t.kb[SM_RSS] > 0);
	assert_true(smaps_has(&t, SM_ANON_HUGE));
	free(text);
}

/*
 * The kernel's 28-byte field lines ("%-16s%8lu kB") take a whole-word path; the same
 * text with each field's padding cut to one blank takes the line-by-line one. Both
 * must give the same VMAs, fields and damage count: the complete VMAs of smaps_text,
 * and a VMA with a duplicated field, a label without its colon and a value of 9
 * digits (their own path either way). Squeezed lines are shorter than 28 bytes, so
 * 28 bytes from one of them span several lines: those must not pass for one.
 */
static void squeeze(const char *in, char *out)
{
	bool field = true; /* at a field line's start: squeeze its blanks */
	for (const char *p = in; *p; p++) {
		if (*p == '\n') {
			*out++ = *p;
			field = p[1] >= 'A' && p[1] <= 'Z';
			continue;
		}
		if (field && *p == ' ' && out[-1] == ' ')
			continue;
		*out++ = *p;
	}
	*out = '\0';
}

static void parse_both(const char *text, int nvmas, unsigned nbad)
{
	static char squeezed[sizeof(smaps_text) + 256];
	assert_true(strlen(text) < sizeof(squeezed));
	squeeze(text, squeezed);
	assert_true(strlen(squeezed) < strlen(text)); /* the padding was cut */
	struct seen a, b;
	struct smaps_totals ta, tb;
	stream_expect(text, strlen(text), &a, &ta, nbad, nvmas);
	stream_expect(squeezed, strlen(squeezed), &b, &tb, nbad, nvmas);
	for (int i = 0; i < nvmas; i++) {
		assert_int_equal(a.t[i].present, b.t[i].present);
		assert_int_equal(a.t[i].damaged, b.t[i].damaged);
		assert_memory_equal(a.t[i].kb, b.t[i].kb, sizeof(a.t[i].kb));
		assert_int_equal(a.thp_eligible[i], b.thp_eligible[i]);
		assert_int_equal(a.vmflags[i], b.vmflags[i]);
	}
	assert_int_equal(ta.present, tb.present);
	assert_memory_equal(ta.kb, tb.kb, sizeof(ta.kb));
}

static void test_smaps_fixed_lines_same_as_squeezed(UNIT_STATE)
{
	/* the first five VMAs (the sixth is truncated) */
	const char *cut = strstr(smaps_text, "7fff63d45000");
	assert_non_null(cut);
	char whole[sizeof(smaps_text)];
	memcpy(whole, smaps_text, (size_t)(cut - smaps_text));
	whole[cut - smaps_text] = '\0';
	parse_both(whole, 5, 0);
	assert_int_equal(strstr(whole, "Size:               4096 kB\n") != NULL, 1);
	// clang-format off
	const char damaged[] =
		VMA("7f1940000000-7f1940400000 rw-p 00000000 00:00 0 ",
		    "  4096", "  4096", "  4096", "  4096", "1", "rd wr mr mw me ac hg ")
		"Rss:                  12 kB\n"   /* seen twice: unknown, counted */
		"Locked          0 kB\n"          /* no colon: counted */
		"SwapPss:        123456789 kB\n"; /* 9 digits: not the 28-byte shape */
	// clang-format on
	parse_both(damaged, 1, 2);
}

/* One VMA whose Rss line is LABEL then the 8 bytes V then " kB": its totals. */
static struct smaps_totals rss_line(const char *label, const char v[8])
{
	char text[256];
	int n = snprintf(text, sizeof(text), "00400000-00401000 r--p 00000000 00:00 0 \n%s", label);
	memcpy(text + n, v, 8);
	memcpy(text + n + 8, " kB\nSwap:                  0 kB\n", 33);
	struct smaps_totals t;
	smaps_parse(text, strlen(text), NULL, NULL, &t);
	return t;
}

/*
 * The value of a 28-byte line is read 8 bytes at once: for every shape of those 8 bytes it
 * gives what the careful path gives the same line with one more blank (29 bytes: not
 * that shape). Right-aligned numbers of 1 to 8 digits, and blanks, digits, letters,
 * tabs, newlines and NULs anywhere.
 */
static void test_smaps_fixed_value_every_shape(UNIT_STATE)
{
	static const char alphabet[] = {' ', '0', '1',	'5',  '9',  '/',
					':', 'a', '\t', '\n', '\0', '\xc3'};
	unsigned seed = 12345, exact = 0;
	for (int i = 0; i < 200000; i++) {
		char v[8];
		if (i < 8 * 1000) { /* right-aligned numbers: 1..8 digits */
			int digits = 1 + i % 8;
			memset(v, ' ', 8);
			for (int d = 0; d < digits; d++) {
				seed = seed * 1103515245u + 12345u;
				v[7 - d] = (char)('0' + (seed >> 16) % 10);
			}
		} else {
			for (int d = 0; d < 8; d++) {
				seed = seed * 1103515245u + 12345u;
				v[d] = alphabet[(seed >> 16) % sizeof(alphabet)];
			}
		}
		struct smaps_totals a = rss_line("Rss:            ", v);
		struct smaps_totals b = rss_line("Rss:             ", v);
		bool rss_a = a.present & (1u << SM_RSS), rss_b = b.present & (1u << SM_RSS);
		assert_int_equal(rss_a, rss_b);
		assert_int_equal(a.damaged & (1u << SM_RSS), b.damaged & (1u << SM_RSS));
		if (rss_a) {
			assert_int_equal(a.kb[SM_RSS], b.kb[SM_RSS]);
			exact++;
		}
	}
	assert_true(exact >= 8000); /* every right-aligned number was read */
	/* by hand: the largest, one digit, leading zeros, a blank inside */
	assert_int_equal(rss_line("Rss:            ", "99999999").kb[SM_RSS], 99999999);
	assert_int_equal(rss_line("Rss:            ", "       7").kb[SM_RSS], 7);
	assert_int_equal(rss_line("Rss:            ", "  000120").kb[SM_RSS], 120);
	assert_false(rss_line("Rss:            ", "  12 345").present & (1u << SM_RSS));
	assert_false(rss_line("Rss:            ", "        ").present & (1u << SM_RSS));
}

/* One VMA whose line LABEL (a label not kept) is followed by the 8 bytes V and " kB": the
 * damaged lines counted (strlen stops at a NUL in V: the careful path sees the same bytes). */
static unsigned unkept_line_bad(const char *label, const char v[8])
{
	char text[256];
	int n = snprintf(text, sizeof(text), "00400000-00401000 r--p 00000000 00:00 0 \n%s", label);
	memcpy(text + n, v, 8);
	memcpy(text + n + 8, " kB\nSwap:                  0 kB\n", 33);
	struct smaps_stream st;
	struct smaps_totals t;
	smaps_stream_init(&st, NULL, NULL, &t);
	smaps_stream_feed(&st, text, strlen(text));
	smaps_stream_finish(&st);
	return st.err ? 1000u : st.nbad;
}

/*
 * A 28-byte line of a label not kept ("Locked:", "Pss_Dirty:") skips its value; it must
 * count damage as the careful path does the same line one byte longer: for every shape of
 * the 8 value bytes (a newline among them makes two lines, the second damaged).
 */
static void test_smaps_fixed_unkept_every_shape(UNIT_STATE)
{
	static const char alphabet[] = {' ', '0', '7', ':', 'a', '\t', '\n', '\xc3'};
	unsigned seed = 777, with_nl = 0;
	for (int i = 0; i < 100000; i++) {
		char v[8];
		bool nl = false;
		for (int d = 0; d < 8; d++) {
			seed = seed * 1103515245u + 12345u;
			v[d] = alphabet[(seed >> 16) % sizeof(alphabet)];
			nl = nl || v[d] == '\n';
		}
		with_nl += nl;
		unsigned a = unkept_line_bad("Locked:         ", v);
		unsigned b = unkept_line_bad("Locked:          ", v);
		if (a != b)
			fail_msg("value bytes %d: 28-byte line %u damaged, 29-byte %u", i, a, b);
	}
	assert_true(with_nl > 1000);
	assert_int_equal(unkept_line_bad("Pss_Dirty:      ", "      12"), 0);
	assert_int_equal(unkept_line_bad("Pss_Dirty:      ", "   1\n  2"),
			 1); /* "  2 kB": damage */
}

struct one {
	unsigned flags;
	uint64_t start, end;
	int n;
};

static int one_cb(const struct smaps_vma *v, void *ctx)
{
	struct one *x = ctx;
	x->flags = v->has_vmflags ? v->vmflags : 0xffff;
	x->start = v->start;
	x->end = v->end;
	x->n++;
	return 0;
}

/* The flags of one VMA whose VmFlags line is FLAGS (the text after "VmFlags:"), -1 on error. */
static int vmflags_of(const char *flags, uint64_t *start, uint64_t *end)
{
	char text[512];
	snprintf(
		text, sizeof(text),
		"%016llx-%016llx rw-p 00000000 00:00 0 \nRss:                   4 kB\nVmFlags:%s\n",
		(unsigned long long)*start, (unsigned long long)*end, flags);
	struct one o = {0};
	if (smaps_parse(text, strlen(text), one_cb, &o, NULL) || o.n != 1)
		return -1;
	*start = o.start;
	*end = o.end;
	return (int)o.flags;
}

/* VmFlags as the kernel prints it ("%c%c " each) and as a copied tree may have it; the header's
 * addresses with every hex digit, 0-9 and a-f mixed (read through one table). */
static void test_smaps_vmflags_and_addresses(UNIT_STATE)
{
	(void)state;
	static const struct {
		const char *line;
		int want;
	} c[] = {
		{" rd wr mr mw me ac hg ", VMF_HG},
		{" rd nh sh ht ", VMF_NH | VMF_SH | VMF_HT},
		{" hg", VMF_HG},		    /* the last flag without its blank */
		{"   hg    nh  ", VMF_HG | VMF_NH}, /* other blanks: word by word */
		{" rd hgx nh", VMF_NH},		    /* a word of three letters is no flag */
		{" rd h g nh ", VMF_NH},	    /* nor are two words of one */
		{" xhg hgnh", 0},
		{"", 0},
		{" ", 0},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t a = 0x7f0123456789ull, b = 0x7fabcdef0000ull;
		assert_int_equal(vmflags_of(c[i].line, &a, &b), c[i].want);
	}
	uint64_t a = 0x0123456789abcdefull, b = 0xfedcba9876543210ull;
	assert_int_equal(vmflags_of(" hg ", &a, &b), VMF_HG);
	assert_true(a == 0x0123456789abcdefull && b == 0xfedcba9876543210ull);
	a = 0xa0b1c2d3e4f5ull, b = 0xf5e4d3c2b1a0ull;
	assert_int_equal(vmflags_of(" ", &a, &b), 0);
	assert_true(a == 0xa0b1c2d3e4f5ull && b == 0xf5e4d3c2b1a0ull);
}

/*
 * A VMA's path as the kernel prints it: a newline as \012 (seq_file_path(m, file, "\n")),
 * every other byte as it is, a backslash too. The name a caller gets holds the newline.
 */
static void test_name_unescape(UNIT_STATE)
{
	static const struct unit_text_str c[] = {
		{LIT("/tmp/a\\012b"), "/tmp/a\nb"},
		{LIT("\\012\\012"), "\n\n"},
		{LIT("/tmp/x\\0123"), "/tmp/x\n3"}, /* three digits, then a '3' of the path */
		{LIT("/tmp/a\\b\\\\c"), "/tmp/a\\b\\\\c"},   /* a backslash is the path's */
		{LIT("/tmp/\\011\\134"), "/tmp/\\011\\134"}, /* the kernel escapes '\n' alone */
		{LIT("/tmp/a\\01"), "/tmp/a\\01"},	     /* cut short: kept */
		{LIT("/memfd:x\\012 (deleted)"), "/memfd:x\n (deleted)"},
		{LIT(""), ""},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char b[64];
		memcpy(b, c[i].text, c[i].len);
		size_t n = smaps_name_unescape(b, c[i].len);
		b[n] = '\0';
		unit_row_str(c[i].text, "name", b, c[i].want);
	}
	/* through the stream: the callback's name, and the next VMA's is not shifted */
	static const char text[] =
		"7f0000000000-7f0000001000 r--s 00000000 fe:00 7   /tmp/a\\012b\n"
		"Rss:                   4 kB\n"
		"7f0000001000-7f0000002000 r--p 00000000 fe:00 8   /tmp/c\n"
		"Rss:                   4 kB\n";
	struct seen s;
	struct smaps_totals t;
	stream_expect(text, sizeof(text) - 1, &s, &t, 0, 2);
	assert_string_equal(s.name[0], "/tmp/a\nb");
	assert_string_equal(s.name[1], "/tmp/c");
}

UNIT_TESTS(test_smaps_vmas, test_smaps_totals, test_smaps_totals_page_size_is_base,
	   test_smaps_stream_chunks, test_smaps_stream_sticky_error, test_smaps_stream_line_ceiling,
	   test_smaps_callback_stops, test_rollup, test_rollup_through_smaps_parse, test_rollup_bad,
	   test_field_names, test_live_self, test_smaps_fixed_lines_same_as_squeezed,
	   test_smaps_fixed_value_every_shape, test_smaps_fixed_unkept_every_shape,
	   test_smaps_vmflags_and_addresses, test_name_unescape)
