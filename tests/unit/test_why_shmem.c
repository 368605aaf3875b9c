// SPDX-License-Identifier: MIT
/*
 * Unit tests: `why` on shared memory (model/why_shmem.c: shmem_enabled, not
 * enabled, decides) and on stall exposure (model/why_stall.c).
 */
#include "test_why.h"

#include "kernel/buddyinfo.h"
#include "kernel/kv.h"

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

UNIT_TESTS(test_postgres_shared_memory_is_named_with_its_policy, test_pmd_mapped_shmem_helps,
	   test_dev_shm_follows_its_mount_not_never, test_private_memory_says_nothing_about_shmem,
	   test_stall_likely_when_free_blocks_cannot_cover, test_stall_covered_by_free_blocks,
	   test_no_stall_line_where_nothing_stalls)
