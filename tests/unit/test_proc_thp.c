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
	assert_int_equal(proc_thp_reason(&p, "madvise"), TR_MADVISE_OUT);
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
	assert_int_equal(proc_thp_reason(&p, "madvise"), TR_NONE_STACKS);
	assert_string_equal(thp_reason_text(TR_NONE_STACKS),
			    "none (thread stacks: nh set by the kernel for MAP_STACK)");
	/* huge pages under always: the policy is the reason, stacks or not */
	p.t.kb[SM_ANON_HUGE] = 2048;
	assert_int_equal(proc_thp_reason(&p, "always"), TR_ALWAYS);
	assert_string_equal(thp_reason_text(TR_ALWAYS), "global always");
	/* the flags not read (--rollup): huge pages, no claim about why */
	p.rollup = true;
	assert_int_equal(proc_thp_reason(&p, "madvise"), TR_ROLLUP_HUGE);
	p.rollup = false;
	assert_int_equal(proc_thp_reason(&p, "madvise"), TR_COLLAPSED);
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

UNIT_TESTS(test_recorded_stacks_are_not_an_opt_out, test_only_stacks_reason_names_the_kernel,
	   test_stack_layout_rules)
