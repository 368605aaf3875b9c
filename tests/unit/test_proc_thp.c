// SPDX-License-Identifier: MIT
/*
 * Unit tests: thread stacks told apart from MADV_NOHUGEPAGE (kernel/smaps.c
 * smaps_stack_feed, kernel/proc_thp.c proc_thp_add_vma, model/proc.c reason, and the
 * reason in words, render/ps.c).
 */
#include "unit.h"

#include "kernel/proc_thp.h"
#include "kernel/smaps.h"
#include "model/proc.h"
#include "render/ps.h"

#include "test_stacks_capture.h"

static int add_cb(const struct smaps_vma *v, void *ctx)
{
	proc_thp_add_vma(ctx, v);
	return 0;
}

/* P from smaps TEXT, as `ps` collects it (status: THP_enabled 1). */
static void collect(const char *text, size_t len, struct proc_thp *p)
{
	memset(p, 0, sizeof(*p));
	p->st.thp_enabled = 1;
	assert_int_equal(smaps_parse(text, len, add_cb, p, &p->t), 0);
}

static void test_recorded_stacks_are_not_an_opt_out(UNIT_STATE)
{
	struct proc_thp p;
	size_t len;
	char *text = cap_stacks(&len);
	collect(text, len, &p);
	free(text);
	/* 5 nh VMAs: 2 guards + 2 stacks (8192 + 64 kB) and the madvised 4 MiB region */
	assert_int_equal(p.nh_vmas, 5);
	assert_int_equal(p.nh_kb, 4 + 8192 + 4 + 64 + 4096);
	assert_int_equal(p.stack_nh_vmas, 4);
	assert_int_equal(p.stack_nh_kb, 4 + 8192 + 4 + 64);
	assert_int_equal(proc_thp_optout_vmas(&p), 1);
	assert_true(proc_thp_relevant(&p));
	assert_int_equal(proc_thp_reason(&p, "madvise", NULL), TR_MADVISE_OUT);
	assert_string_equal(thp_reason_text(TR_MADVISE_OUT), "opted out by madvise");
}

/* The capture without its madvised region: only the kernel's nh is left. */
static void test_only_stacks_reason_names_the_kernel(UNIT_STATE)
{
	size_t len;
	char *text = cap_stacks_only(&len);
	struct proc_thp p;
	collect(text, len, &p);
	free(text);
	assert_int_equal(p.nh_vmas, 4);
	assert_int_equal(p.stack_nh_vmas, 4);
	assert_int_equal(proc_thp_optout_vmas(&p), 0);
	assert_false(proc_thp_relevant(&p));
	assert_int_equal(proc_thp_reason(&p, "madvise", NULL), TR_NONE_STACKS);
	assert_string_equal(thp_reason_text(TR_NONE_STACKS),
			    "none (thread stacks: nh set by the kernel for MAP_STACK)");
	/* huge pages under always: the policy is the reason, stacks or not */
	p.t.kb[SM_ANON_HUGE] = 2048;
	assert_int_equal(proc_thp_reason(&p, "always", NULL), TR_ALWAYS);
	assert_string_equal(thp_reason_text(TR_ALWAYS), "global always");
	/* the flags not read (--rollup): huge pages, no claim about why */
	p.rollup = true;
	assert_int_equal(proc_thp_reason(&p, "madvise", NULL), TR_ROLLUP_HUGE);
	p.rollup = false;
	assert_int_equal(proc_thp_reason(&p, "madvise", NULL), TR_COLLAPSED);
	assert_string_equal(thp_reason_text(TR_COLLAPSED), "collapsed (no hg VMA)");
}

/* One VMA for smaps_stack_feed. */
static struct smaps_vma vma(uint64_t start, uint64_t kb, const char *perms, const char *name,
			    unsigned flags)
{
	struct smaps_vma v = unit_vma(start, kb, name, flags);
	memcpy(v.perms, perms, 4);
	return v;
}

static bool pair(struct smaps_vma guard, struct smaps_vma stack, uint64_t *kb)
{
	struct smaps_stack_scan s = {0};
	*kb = 0;
	assert_false(smaps_stack_feed(&s, &guard, kb));
	return smaps_stack_feed(&s, &stack, kb);
}

static void test_stack_layout_rules(UNIT_STATE)
{
	const uint64_t G = 0x7f0000000000ull, S = G + 4096;
	uint64_t kb;
	/* a pthread stack: guard page, then the stack, both nh */
	assert_true(pair(vma(G, 4, "---p", "", VMF_NH), vma(S, 8192, "rw-p", "", VMF_NH), &kb));
	assert_int_equal(kb, 8196);
	/* named with PR_SET_VMA_ANON_NAME (bionic names its stacks) */
	assert_true(pair(vma(G, 4, "---p", "[anon:guard]", VMF_NH),
			 vma(S, 64, "rw-p", "[anon:stack]", VMF_NH), &kb));
	/* the guard not nh: MADV_NOHUGEPAGE on the region only, an opt-out */
	assert_false(pair(vma(G, 4, "---p", "", 0), vma(S, 8192, "rw-p", "", VMF_NH), &kb));
	/* the region not nh (a kernel before 6.7) */
	assert_false(pair(vma(G, 4, "---p", "", VMF_NH), vma(S, 8192, "rw-p", "", 0), &kb));
	/* a gap between them */
	assert_false(
		pair(vma(G, 4, "---p", "", VMF_NH), vma(S + 4096, 8192, "rw-p", "", VMF_NH), &kb));
	/* a large PROT_NONE reservation is no guard page */
	assert_false(pair(vma(G, 2048, "---p", "", VMF_NH),
			  vma(G + (2048 << 10), 8192, "rw-p", "", VMF_NH), &kb));
	/* shared, read-only or file-backed */
	assert_false(pair(vma(G, 4, "---s", "", VMF_NH), vma(S, 64, "rw-s", "", VMF_NH), &kb));
	assert_false(pair(vma(G, 4, "---p", "", VMF_NH), vma(S, 64, "r--p", "", VMF_NH), &kb));
	assert_false(pair(vma(G, 4, "---p", "/lib/x.so", VMF_NH),
			  vma(S, 64, "rw-p", "/lib/x.so", VMF_NH), &kb));
	/* no VmFlags (before 3.8): nothing to say */
	struct smaps_vma g = vma(G, 4, "---p", "", VMF_NH), st = vma(S, 64, "rw-p", "", VMF_NH);
	g.has_vmflags = st.has_vmflags = false;
	assert_false(pair(g, st, &kb));
	/* a stack is not the next stack's guard: three in a row make one pair */
	struct smaps_stack_scan s = {0};
	struct smaps_vma v1 = vma(G, 4, "---p", "", VMF_NH), v2 = vma(S, 64, "rw-p", "", VMF_NH),
			 v3 = vma(S + (64 << 10), 64, "rw-p", "", VMF_NH);
	assert_false(smaps_stack_feed(&s, &v1, &kb));
	assert_true(smaps_stack_feed(&s, &v2, &kb));
	assert_false(smaps_stack_feed(&s, &v3, &kb));
}

/* Rules from shmem_enabled=TOP and hugepages-2048kB/shmem_enabled=SIZE into R. */
static void rules(const char *top, const char *size, struct shmem_rules *r)
{
	static const char *const T[] = {"always", "within_size", "advise",
					"never",  "deny",	 "force"};
	static const char *const S[] = {"always", "inherit", "within_size", "advise", "never"};
	struct choice t, z;
	static struct choice keep[2]; /* R points into them */
	unit_set_choice(&t, T, 6, top);
	unit_set_choice(&z, S, 5, size);
	keep[0] = t;
	keep[1] = z;
	shmem_rules_make(&keep[0], &keep[1], 2048, r);
}

/*
 * python3 mmap.mmap(-1, 64 MiB) with MADV_HUGEPAGE under shmem_enabled=never: ELIG 0, and
 * REASON said "opted in by madvise"; it names what keeps the shmem from huge pages.
 */
static void test_hg_shmem_reason_names_the_shmem_policy(UNIT_STATE)
{
	struct proc_thp p;
	memset(&p, 0, sizeof(p));
	p.st.thp_enabled = 1;
	struct smaps_vma v =
		unit_vma(0x7f0000000000ull, 65536, "/dev/zero (deleted)", VMF_SH | VMF_HG);
	v.thp_eligible = 0;
	proc_thp_add_vma(&p, &v);
	assert_int_equal(p.hg_vmas, 1);
	assert_int_equal(p.hg_shm_vmas[SHK_ANON], 1);
	struct shmem_rules r;
	rules("never", "inherit", &r);
	assert_int_equal(proc_thp_reason(&p, "madvise", &r), TR_SHMEM_OFF);
	assert_int_equal(proc_thp_shmem_off(&p, &r, NULL), SHK_ANON);
	struct ps_row row = {.p = p, .reason = TR_SHMEM_OFF, .shm_off = SHK_ANON};
	struct ps_report rep = {.rows = &row, .n = 1, .shmem = &r};
	char w[200];
	assert_string_equal(ps_row_reason(&rep, &row, w, sizeof(w)),
			    "hg shmem kept from THP by shmem_enabled=never");
	/* set on the PMD size's own file */
	rules("always", "never", &r);
	assert_int_equal(proc_thp_reason(&p, "madvise", &r), TR_SHMEM_OFF);
	assert_string_equal(ps_row_reason(&rep, &row, w, sizeof(w)),
			    "hg shmem kept from THP by hugepages-2048kB/shmem_enabled=never");
	/* advise: MADV_HUGEPAGE shmem may get them */
	rules("advise", "inherit", &r);
	assert_int_equal(proc_thp_reason(&p, "madvise", &r), TR_MADVISE_IN);
	/* the policy unknown: no claim */
	assert_int_equal(proc_thp_reason(&p, "madvise", NULL), TR_MADVISE_IN);
	/* the kernel shows it eligible: its word stands */
	rules("never", "inherit", &r);
	struct proc_thp q = p;
	q.hg_shm_eligible[SHK_ANON] = 1;
	assert_int_equal(proc_thp_reason(&q, "madvise", &r), TR_MADVISE_IN);
	/* an anonymous hg region beside it: that one opted in */
	struct smaps_vma a = unit_vma(0x7f0100000000ull, 8192, "", VMF_HG);
	proc_thp_add_vma(&p, &a);
	assert_int_equal(proc_thp_reason(&p, "madvise", &r), TR_MADVISE_IN);
}

/* maps' rows: the three fields it shows, unknown where smaps did not print them or damaged
 * them; rows past a block's end (MAPS_CHUNK) kept in order with their names. */
static void test_maps_rows_keep_fields_across_blocks(UNIT_STATE)
{
	struct maps_report r = {0};
	size_t n = MAPS_CHUNK + 5;
	for (size_t i = 0; i < n; i++) {
		struct smaps_vma v = {.start = i << 12, .end = (i + 1) << 12, .thp_eligible = -1};
		memcpy(v.perms, "rw-p", 5);
		v.t.kb[SM_SIZE] = 4;
		v.t.kb[SM_RSS] = i;
		v.t.present = 1u << SM_SIZE | 1u << SM_RSS | 1u << SM_SWAP;
		if (i == MAPS_CHUNK) { /* AnonHugePages printed; Rss damaged (unknown) */
			v.t.kb[SM_ANON_HUGE] = 2048;
			v.t.present = 1u << SM_SIZE | 1u << SM_ANON_HUGE;
			v.t.damaged = 1u << SM_RSS;
			v.thp_eligible = 1;
			v.has_vmflags = true;
			v.vmflags = VMF_HG;
		}
		char name[32];
		snprintf(name, sizeof(name), i == MAPS_CHUNK ? "[heap]" : "v%zu", i);
		assert_int_equal(maps_vma_add(&r, &v, name), 0);
	}
	assert_int_equal(r.n, n);
	assert_int_equal(r.nchunks, 2);
	const struct maps_vma *a = maps_vma_at(&r, 7), *b = maps_vma_at(&r, MAPS_CHUNK);
	assert_int_equal(a->start, 7 << 12);
	assert_int_equal(a->kb[MF_RSS], 7);
	assert_int_equal(a->known, 1u << MF_SIZE | 1u << MF_RSS); /* AnonHugePages not printed */
	assert_int_equal(a->thp_eligible, -1);
	assert_false(a->has_vmflags);
	assert_string_equal(maps_vma_name(&r, a), "v7");
	assert_string_equal(a->perms, "rw-p");
	assert_int_equal(b->known, 1u << MF_SIZE | 1u << MF_ANON_HUGE); /* Rss damaged */
	assert_int_equal(b->kb[MF_ANON_HUGE], 2048);
	assert_int_equal(b->thp_eligible, 1);
	assert_int_equal(b->vmflags, VMF_HG);
	assert_string_equal(maps_vma_name(&r, b), "[heap]");
	char last[32];
	snprintf(last, sizeof(last), "v%zu", n - 1);
	assert_string_equal(maps_vma_name(&r, maps_vma_at(&r, n - 1)), last);
	assert_int_equal(maps_vma_at(&r, n - 1)->end, (uint64_t)n << 12);
	maps_report_free(&r);
	assert_int_equal(r.n, 0);
	assert_null(r.chunks);
}

UNIT_TESTS(test_maps_rows_keep_fields_across_blocks, test_recorded_stacks_are_not_an_opt_out,
	   test_only_stacks_reason_names_the_kernel, test_stack_layout_rules,
	   test_hg_shmem_reason_names_the_shmem_policy)
