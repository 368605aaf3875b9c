// SPDX-License-Identifier: MIT
/*
 * Unit tests: `why` on shared memory (model/why_shmem.c: shmem_enabled, not
 * enabled, decides) and on stall exposure (model/why_stall.c).
 */
#include "test_why.h"

#include "kernel/buddyinfo.h"
#include "kernel/kv.h"
#include "model/shmem.h"
#include "render/shmem.h"

static const char *const SH[] = {"always", "within_size", "advise", "never", "deny", "force"};

static void shm_vma(const char *name, uint64_t kb, uint64_t pmd_kb, unsigned flags)
{
	struct smaps_vma v = unit_vma(0x7f0000000000ull + (uint64_t)IN.vmas.nvmas * (1ull << 30),
				      kb, name, flags);
	v.t.kb[SM_RSS] = kb;
	v.t.kb[SM_SHMEM_PMD] = pmd_kb;
	v.t.present |= (1u << SM_RSS) | (1u << SM_SHMEM_PMD);
	why_vmas_add(&IN.vmas, &v);
}

static void setup(const char *shmem_enabled)
{
	unit_host_reset(&H, "6.18.44");
	H.thp.present = true;
	unit_set_choice(&H.thp.shmem_enabled, SH, 6, shmem_enabled);
	assert_int_equal(meminfo_parse(LIT("HugePages_Total:       0\nHugePages_Free:        0\n"),
				       &H.meminfo),
			 0);
	memset(&IN, 0, sizeof(IN));
	memset(&R, 0, sizeof(R));
	IN.pid = 42;
	IN.h = &H;
}

static const struct why_line *find(const char *topic)
{
	for (int i = 0; i < R.n; i++)
		if (!strcmp(R.lines[i].topic, topic))
			return &R.lines[i];
	return NULL;
}

/* EXPLAIN run over IN into R: its line on TOPIC, which must be there. */
static const struct why_line *
explained(void (*explain)(const struct why_input *, struct why_report *), const char *topic)
{
	explain(&IN, &R);
	const struct why_line *l = find(topic);
	assert_non_null(l);
	return l;
}

/* The shmem line of one shared VMA NAME of KB kB (PMD_KB PMD-mapped) at shmem_enabled=ENABLED. */
static const struct why_line *shmem_line(const char *enabled, const char *name, uint64_t kb,
					 uint64_t pmd_kb)
{
	setup(enabled);
	shm_vma(name, kb, pmd_kb, VMF_SH);
	return explained(why_explain_shmem, "shmem");
}

/* PostgreSQL's main shared memory: 278 MiB "/dev/zero (deleted)", shmem_enabled=never. */
static void test_postgres_shared_memory_is_named_with_its_policy(UNIT_STATE)
{
	setup("never");
	shm_vma("/dev/zero (deleted)", 284672, 0, VMF_SH);
	shm_vma("/usr/lib/postgresql/15/bin/postgres", 8192, 0,
		VMF_SH); /* a shared file: not shmem */
	assert_int_equal(IN.vmas.shmem_vmas, 1);
	assert_int_equal(IN.vmas.shmem_kb, 284672);
	why_explain_shmem(&IN, &R);
	const struct why_line *l = find("shmem");
	assert_non_null(l);
	assert_int_equal(l->effect, WE_HINDERS);
	assert_contains(ltext(l), "278.0 MiB mapped");
	assert_contains(ltext(l), "shmem_enabled=never, not enabled");
	assert_contains(ltext(l), "/dev/zero (deleted)");
	l = find("hugetlb");
	assert_non_null(l);
	assert_contains(ltext(l), "huge_pages=try");
	assert_contains(ltext(l), "HugePages_Total 0");
	host_snapshot_free(&H);
}

static void test_pmd_mapped_shmem_helps(UNIT_STATE)
{
	const struct why_line *l = shmem_line("advise", "/memfd:pool (deleted)", 65536, 65536);
	assert_int_equal(l->effect, WE_HELPS);
	assert_contains(ltext(l), "ShmemPmdMapped 64.0 MiB");
	host_snapshot_free(&H);
}

static void test_dev_shm_follows_its_mount_not_never(UNIT_STATE)
{
	/* the tmpfs mount's huge= decides */
	assert_int_equal(shmem_line("never", "/dev/shm/seg", 65536, 0)->effect, WE_NEUTRAL);
	host_snapshot_free(&H);
	/* deny overrides every mount */
	assert_int_equal(shmem_line("deny", "/dev/shm/seg", 65536, 0)->effect, WE_HINDERS);
	host_snapshot_free(&H);
}

static void test_private_memory_says_nothing_about_shmem(UNIT_STATE)
{
	setup("never");
	shm_vma("", 65536, 0, 0); /* private anonymous */
	why_explain_shmem(&IN, &R);
	assert_int_equal(R.n, 0);
	assert_true(why_shmem_name(LIT("/SYSV00000000 (deleted)")));
	assert_true(why_shmem_name(LIT("[anon_shmem:x]")));
	assert_false(why_shmem_name(LIT("/usr/lib/libc.so.6")));
	host_snapshot_free(&H);
}

static const char *const DF[] = {"always", "defer", "defer+madvise", "madvise", "never"};

/* 3 free order-9 blocks and 1 order-10 (= 2 PMD blocks): 5 PMD-order blocks in Normal */
#define BUDDY                                                                                      \
	"Node 0, zone   Normal      0      0      0      0      0      0      0      0      0      3      1\n"

static void stall_setup(const char *defrag, uint64_t hg_kb, uint64_t huge_kb)
{
	setup("never");
	unit_set_choice(&H.thp.defrag, DF, 5, defrag);
	assert_int_equal(buddyinfo_parse(LIT(BUDDY), &H.buddy), 0);
	H.has_buddy = true;
	H.pmd_order = 9;
	IN.st.thp_enabled = 1;
	struct smaps_vma v = {.start = 0x7f0000000000ull, .end = 0x7f0000000000ull + hg_kb * 1024};
	v.name = "";
	v.t.kb[SM_SIZE] = hg_kb;
	v.t.kb[SM_ANON_HUGE] = huge_kb;
	v.t.present = (1u << SM_SIZE) | (1u << SM_ANON_HUGE);
	v.has_vmflags = true;
	v.vmflags = VMF_HG;
	why_vmas_add(&IN.vmas, &v);
}

/* The stall line of stall_setup(DEFRAG, HG_KB, HUGE_KB). */
static const struct why_line *stall_line(const char *defrag, uint64_t hg_kb, uint64_t huge_kb)
{
	stall_setup(defrag, hg_kb, huge_kb);
	return explained(why_explain_stall, "stall");
}

static void test_stall_likely_when_free_blocks_cannot_cover(UNIT_STATE)
{
	/* 24 PMDs unbacked, 5 free blocks */
	const struct why_line *l = stall_line("madvise", 65536, 16384);
	assert_int_equal(l->effect, WE_HINDERS);
	assert_contains(ltext(l), "24 PMD ranges (48.0 MiB)");
	assert_contains(ltext(l),
			"5 free PMD-order blocks (10.0 MiB, host-wide, all zones but DMA)");
	assert_contains(ltext(l), "likely to compact");
	host_snapshot_free(&H);
}

static void test_stall_covered_by_free_blocks(UNIT_STATE)
{
	const struct why_line *l = stall_line("defer+madvise", 8192, 2048); /* 3 unbacked, 5 free */
	assert_int_equal(l->effect, WE_NEUTRAL);
	assert_contains(ltext(l), "can cover them");
	host_snapshot_free(&H);
}

static void test_no_stall_line_where_nothing_stalls(UNIT_STATE)
{
	stall_setup("defer", 65536, 0); /* defer: faults never stall */
	why_explain_stall(&IN, &R);
	assert_null(find("stall"));
	host_snapshot_free(&H);
	stall_setup("madvise", 65536, 0);
	IN.st.thp_enabled = 0; /* prctl: no THP faults */
	why_explain_stall(&IN, &R);
	assert_null(find("stall"));
	host_snapshot_free(&H);
}

/* ---- MADV_HUGEPAGE shmem its shmem policy keeps from huge pages ---- */

static const char *const EN[] = {"always", "madvise", "never"};
static const char *const SZ_EN[] = {"always", "inherit", "madvise", "never"};
static const char *const SZ_SH[] = {"always", "inherit", "within_size", "advise", "never"};

/*
 * The host of the user trial: enabled=madvise, defrag=madvise, max_ptes_none 511, 5 free
 * PMD-order blocks, hugepages-2048kB/shmem_enabled inherit -> shmem_enabled=SHMEM.
 */
static void trial_setup(const char *shmem)
{
	setup(shmem);
	unit_set_choice(&H.thp.enabled, EN, 3, "madvise");
	unit_set_choice(&H.thp.defrag, DF, 5, "madvise");
	H.thp.khp[KHP_MAX_PTES_NONE] = (struct opt_u64){.v = 511, .present = true};
	struct thp_size *sz = &H.thp.sizes[H.thp.nsizes++];
	sz->size_kb = 2048;
	unit_set_choice(&sz->enabled, SZ_EN, 4, "inherit");
	sz->eff_enabled = H.thp.enabled.selected;
	unit_set_choice(&sz->shmem_enabled, SZ_SH, 5, "inherit");
	sz->eff_shmem = H.thp.shmem_enabled.selected;
	assert_int_equal(buddyinfo_parse(LIT(BUDDY), &H.buddy), 0);
	H.has_buddy = true;
	H.pmd_order = 9;
	IN.st.thp_enabled = 1;
}

/* An anonymous private hg VMA of KB kB, all of it resident in small pages. */
static void anon_hg(uint64_t kb)
{
	struct smaps_vma v = unit_vma(0x7f0000000000ull + (uint64_t)IN.vmas.nvmas * (1ull << 30),
				      kb, "", VMF_HG);
	v.t.kb[SM_RSS] = kb;
	v.t.present |= 1u << SM_RSS;
	why_vmas_add(&IN.vmas, &v);
}

static char sbuf[1024];
static const char *sum_text(void)
{
	return why_summary_words(&R, sbuf, sizeof(sbuf));
}

/*
 * The user trial: python3 mmap.mmap(-1, 64 MiB) (MAP_SHARED|MAP_ANONYMOUS), MADV_HUGEPAGE,
 * then written, under shmem_enabled=never. The headline named small pages faulted before
 * the advice, policy and khugepaged helped, free blocks "covered" it: shmem_enabled is why.
 */
static void test_hg_shmem_under_never_names_shmem_enabled(UNIT_STATE)
{
	trial_setup("never");
	shm_vma("/dev/zero (deleted)", 65536, 0, VMF_SH | VMF_HG);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_NONE);
	assert_contains(sum_text(), "its MADV_HUGEPAGE memory is shmem (1 VMA, 64.0 MiB");
	assert_contains(sum_text(),
			"hugepages-2048kB/shmem_enabled inherit -> shmem_enabled=never allows it "
			"none, at fault or from khugepaged");
	assert_null(strstr(sum_text(), "before the advice"));
	const struct why_line *l = find("policy");
	assert_int_equal(l->effect, WE_NEUTRAL);
	assert_contains(ltext(l), "all shmem, which shmem_enabled rules, not enabled");
	l = find("khugepaged");
	assert_int_equal(l->effect, WE_NEUTRAL);
	assert_contains(ltext(l), "nothing of it to collapse: its MADV_HUGEPAGE regions are shmem, "
				  "which shmem_enabled=never keeps from huge pages");
	assert_int_equal(find("hg")->effect, WE_NEUTRAL);
	assert_null(find("stall")); /* no fault of it asks for a huge page */
	l = find("defrag");
	assert_contains(ltext(l), "none of its faults stalls (its MADV_HUGEPAGE VMA is shmem");
	assert_int_equal(find("shmem")->effect, WE_HINDERS);
	for (int i = 0; i < R.n; i++)
		assert_int_not_equal(R.lines[i].effect, WE_HELPS);
	host_snapshot_free(&H);
}

/* advise lets MADV_HUGEPAGE shmem have them: nothing is blamed on the shmem policy. */
static void test_hg_shmem_under_advise_may_get_them(UNIT_STATE)
{
	trial_setup("advise");
	shm_vma("/dev/zero (deleted)", 65536, 0, VMF_SH | VMF_HG);
	why_explain(&IN, &R);
	assert_null(strstr(sum_text(), "shmem_enabled"));
	assert_int_equal(find("khugepaged")->effect, WE_HELPS);
	assert_int_equal(find("hg")->effect, WE_HELPS);
	assert_non_null(find("stall"));
	assert_int_equal(find("shmem")->effect, WE_NEUTRAL);
	/* enabled still does not rule it */
	assert_int_equal(find("policy")->effect, WE_NEUTRAL);
	host_snapshot_free(&H);
}

/* Mostly anonymous hg memory: its small pages are the headline, the shmem left out of it. */
static void test_hg_mostly_anon_leaves_the_shmem_out(UNIT_STATE)
{
	trial_setup("never");
	shm_vma("/dev/zero (deleted)", 4096, 0, VMF_SH | VMF_HG);
	anon_hg(65536);
	why_explain(&IN, &R);
	assert_contains(sum_text(), "its MADV_HUGEPAGE regions hold 64.0 MiB in small pages");
	const struct why_line *l = find("policy");
	assert_int_equal(l->effect, WE_HELPS);
	assert_contains(ltext(l), "1 of them shmem (4096 kB)");
	l = find("khugepaged");
	assert_int_equal(l->effect, WE_HELPS);
	assert_contains(ltext(l), "; not its 1 hg shmem, which shmem_enabled=never keeps");
	l = find("stall"); /* 32 PMD ranges of the anonymous region, not 34 */
	assert_contains(ltext(l), "32 PMD ranges (64.0 MiB)");
	assert_contains(ltext(l), "its 1 hg VMA of 4096 kB left out");
	host_snapshot_free(&H);
	/* the shmem is most of it: the shmem policy is the headline */
	trial_setup("never");
	shm_vma("/dev/zero (deleted)", 65536, 0, VMF_SH | VMF_HG);
	anon_hg(4096);
	why_explain(&IN, &R);
	assert_contains(sum_text(),
			"most of its MADV_HUGEPAGE memory is shmem (1 of its 2 hg VMAs");
	assert_contains(sum_text(), "shmem_enabled=never allows it none");
	host_snapshot_free(&H);
}

/* A process whose shmem is PMD-mapped has huge pages, though AnonHugePages is 0 (a user
 * trial's leftover: the headline said "has no PMD huge pages"). */
static void test_pmd_mapped_shmem_is_huge(UNIT_STATE)
{
	trial_setup("advise");
	shm_vma("/dev/zero (deleted)", 65536, 8192, VMF_SH | VMF_HG);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_HUGE);
	assert_string_equal(sum_text(), "gets PMD-mapped huge pages, none anonymous "
					"(AnonHugePages 0): ShmemPmdMapped 8192 kB (shmem)");
	host_snapshot_free(&H);
	/* beside anonymous huge pages, it is named after them */
	trial_setup("advise");
	shm_vma("/dev/zero (deleted)", 65536, 4096, VMF_SH | VMF_HG);
	struct smaps_vma v = unit_vma(0x7f8000000000ull, 8192, "", VMF_HG);
	v.t.kb[SM_RSS] = v.t.kb[SM_ANONYMOUS] = v.t.kb[SM_ANON_HUGE] = 8192;
	v.t.present |= (1u << SM_RSS) | (1u << SM_ANONYMOUS) | (1u << SM_ANON_HUGE);
	why_vmas_add(&IN.vmas, &v);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_HUGE);
	assert_contains(sum_text(),
			"gets huge pages: AnonHugePages 8192 kB of 8192 kB anonymous "
			"(100%), in its MADV_HUGEPAGE regions, and ShmemPmdMapped 4096 kB");
	host_snapshot_free(&H);
}

/*
 * hg shmem that its policy allows and that is all PMD-mapped (QEMU's memfd backend) is
 * huge-backed: not "small pages already", nothing to stall on, nothing left to collapse.
 * Only AnonHugePages was counted as huge in hg regions.
 */
static void test_pmd_mapped_hg_shmem_is_not_small_pages(UNIT_STATE)
{
	trial_setup("advise");
	shm_vma("/memfd:guest (deleted)", 65536, 65536, VMF_SH | VMF_HG);
	assert_int_equal(IN.vmas.hg_pmd_mapped_kb, 65536);
	assert_int_equal(IN.vmas.hg_pmd_huge_kb, 65536);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_HUGE);
	assert_null(strstr(sum_text(), "small pages"));
	const struct why_line *l = find("stall");
	assert_true(l == NULL || strstr(ltext(l), "not huge-backed") == NULL);
	assert_int_equal(find("khugepaged")->effect, WE_NEUTRAL); /* full: nothing to collapse */
	host_snapshot_free(&H);
	/* half of it PMD-mapped: 16 PMD ranges left, in small pages */
	trial_setup("advise");
	shm_vma("/memfd:guest (deleted)", 65536, 32768, VMF_SH | VMF_HG);
	why_explain(&IN, &R);
	assert_contains(ltext(find("stall")), "16 PMD ranges (32.0 MiB)");
	host_snapshot_free(&H);
}

/* enabled=never and hg shmem kept from huge pages by shmem_enabled=never: shmem_enabled is
 * why for the memory it asked for; enabled=never is named for the rest. */
static void test_hg_shmem_under_enabled_never_names_both(UNIT_STATE)
{
	trial_setup("never");
	unit_set_choice(&H.thp.enabled, EN, 3, "never");
	H.thp.sizes[0].eff_enabled = H.thp.enabled.selected;
	shm_vma("/dev/zero (deleted)", 65536, 0, VMF_SH | VMF_HG);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_NONE);
	assert_contains(sum_text(), "its MADV_HUGEPAGE memory is shmem (1 VMA, 64.0 MiB");
	assert_contains(sum_text(), "shmem_enabled=never allows it none");
	assert_contains(sum_text(), "; its other memory none either: the PMD size policy is never");
	host_snapshot_free(&H);
	/* no hg shmem: enabled=never is the reason, alone */
	trial_setup("never");
	unit_set_choice(&H.thp.enabled, EN, 3, "never");
	H.thp.sizes[0].eff_enabled = H.thp.enabled.selected;
	anon_hg(4096);
	why_explain(&IN, &R);
	assert_string_equal(sum_text(), "has no PMD huge pages (AnonHugePages 0): the PMD size "
					"policy is never");
	host_snapshot_free(&H);
}

/* shmem_enabled, per kind, as mm/shmem.c reads it (model/shmem.c). */
static void test_shmem_policy_by_kind(UNIT_STATE)
{
	static const struct {
		const char *top, *size; /* size NULL: no per-size file (< 6.11) */
		enum shmem_kind kind;
		bool hg;
		enum tri allowed;
		const char *words;
	} cases[] = {
		{"never", "inherit", SHK_ANON, true, TRI_NO,
		 "hugepages-2048kB/shmem_enabled inherit -> shmem_enabled=never"},
		{"advise", "inherit", SHK_ANON, true, TRI_YES, NULL},
		{"advise", "inherit", SHK_ANON, false, TRI_NO, NULL},
		{"never", "advise", SHK_ANON, true, TRI_YES,
		 "hugepages-2048kB/shmem_enabled=advise"},
		{"always", "never", SHK_ANON, true, TRI_NO, "hugepages-2048kB/shmem_enabled=never"},
		/* SysV and memfd follow the top-level file, whatever the per-size one says */
		{"always", "never", SHK_INTERNAL, false, TRI_YES, "shmem_enabled=always"},
		{"never", "always", SHK_INTERNAL, true, TRI_NO, "shmem_enabled=never"},
		{"within_size", "inherit", SHK_ANON, false, TRI_YES, NULL},
		{"deny", "always", SHK_ANON, true, TRI_NO, "shmem_enabled=deny"},
		{"deny", NULL, SHK_TMPFS, true, TRI_NO, "shmem_enabled=deny"},
		/* a tmpfs mount's huge= decides, unless deny or force */
		{"never", NULL, SHK_TMPFS, true, TRI_UNKNOWN, NULL},
		{"force", NULL, SHK_TMPFS, false, TRI_YES, NULL},
		{"force", "inherit", SHK_ANON, false, TRI_YES, NULL},
		{"force", "never", SHK_ANON, false, TRI_UNKNOWN, "shmem_enabled=force"},
		{"never", NULL, SHK_ANON, true, TRI_NO, "shmem_enabled=never"},
		{NULL, NULL, SHK_ANON, true, TRI_UNKNOWN, "shmem_enabled (not readable)"},
		{"never", "inherit", SHK_NONE, true, TRI_UNKNOWN, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct choice top = {0}, size = {0};
		if (cases[i].top)
			unit_set_choice(&top, SH, 6, cases[i].top);
		if (cases[i].size)
			unit_set_choice(&size, SZ_SH, 5, cases[i].size);
		struct shmem_pmd p;
		shmem_pmd_decide(&top, &size, 2048, cases[i].kind, cases[i].hg, &p);
		char w[160];
		shmem_pmd_words(&p, false, w, sizeof(w));
		if (p.allowed != cases[i].allowed ||
		    (cases[i].words && strcmp(w, cases[i].words) != 0))
			fail_msg("case %zu: %s/%s kind %d hg %d: allowed %d, '%s'", i,
				 cases[i].top ? cases[i].top : "-",
				 cases[i].size ? cases[i].size : "-", cases[i].kind, cases[i].hg,
				 p.allowed, w);
	}
	/* the VMA's kind from its name and flags */
	assert_int_equal(smaps_shmem_kind(LIT("/dev/zero (deleted)"), VMF_SH), SHK_ANON);
	assert_int_equal(smaps_shmem_kind(LIT("[anon_shmem:pool]"), VMF_SH | VMF_HG), SHK_ANON);
	assert_int_equal(smaps_shmem_kind(LIT("/SYSV00000000 (deleted)"), VMF_SH), SHK_INTERNAL);
	assert_int_equal(smaps_shmem_kind(LIT("/memfd:x (deleted)"), VMF_SH), SHK_INTERNAL);
	assert_int_equal(smaps_shmem_kind(LIT("/dev/shm/seg"), VMF_SH), SHK_TMPFS);
	assert_int_equal(smaps_shmem_kind(LIT("/memfd:x (deleted)"), VMF_SH | VMF_HT), SHK_NONE);
	assert_int_equal(smaps_shmem_kind(LIT("/dev/zero"), 0), SHK_NONE); /* private */
	assert_int_equal(smaps_shmem_kind(LIT("/usr/lib/libc.so.6"), VMF_SH), SHK_NONE);
	/* the brief words name the file that decided */
	struct choice top = {0}, size = {0};
	unit_set_choice(&top, SH, 6, "never");
	unit_set_choice(&size, SZ_SH, 5, "inherit");
	struct shmem_pmd p;
	shmem_pmd_decide(&top, &size, 2048, SHK_ANON, true, &p);
	char w[160];
	assert_string_equal(shmem_pmd_words(&p, true, w, sizeof(w)), "shmem_enabled=never");
}

UNIT_TESTS(test_postgres_shared_memory_is_named_with_its_policy, test_pmd_mapped_shmem_helps,
	   test_dev_shm_follows_its_mount_not_never, test_private_memory_says_nothing_about_shmem,
	   test_stall_likely_when_free_blocks_cannot_cover, test_stall_covered_by_free_blocks,
	   test_no_stall_line_where_nothing_stalls, test_hg_shmem_under_never_names_shmem_enabled,
	   test_hg_shmem_under_advise_may_get_them, test_hg_mostly_anon_leaves_the_shmem_out,
	   test_shmem_policy_by_kind, test_pmd_mapped_shmem_is_huge,
	   test_pmd_mapped_hg_shmem_is_not_small_pages,
	   test_hg_shmem_under_enabled_never_names_both)
