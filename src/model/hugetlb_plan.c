// SPDX-License-Identifier: MIT
#include "hugetlb_plan.h"

#include <errno.h>
#include <string.h>

#include "../util/num.h"
#include "../util/names.h"
#include "../util/wide.h"

static const char *const runtime_names[] = {[HP_RT_ALREADY] = "already",
					    [HP_RT_NOW] = "now",
					    [HP_RT_COMPACT] = "after-compaction",
					    [HP_RT_BOOT] = "boot",
					    [HP_RT_NOFIT] = "does-not-fit"};

const char *hp_runtime_name(enum hp_runtime r)
{
	return ENUM_NAME(runtime_names, r, "unknown");
}

static const struct hp_node *find_node(const struct hp_plan_input *in, int node)
{
	for (int i = 0; i < in->nnodes; i++)
		if (in->nodes[i].node == node)
			return &in->nodes[i];
	return NULL;
}

/* A tree that records no hugetlb pool at all (an sos report), so not this size's either:
 * whether its kernel has the size, and what the pool holds, are unknown */
static bool unrecorded(const struct hp_plan_input *in)
{
	return !in->size_supported && in->pools_unrecorded;
}

/*
 * The pool of the size now, in the plan's scope: nr_hugepages, free_hugepages and
 * resv_hugepages (free pages promised to mappings not yet faulted in; counted for all
 * nodes only, so on a node it is taken from the node's free pages: a lower bound). What a
 * new mapping can get is free - resv (the kernel's available_huge_pages()); the shortfall
 * is what the pool must grow by, never shrink.
 */
static void pool_now(const struct hp_plan_input *in, const struct hp_node *nd, struct hp_plan *p)
{
	const struct opt_u64 *nr = &in->nr, *fr = &in->free;
	if (in->node >= 0) {
		nr = nd ? &nd->nr : NULL;
		fr = nd ? &nd->free : NULL;
	}
	/* a tree that records no pool at all: what it holds is unknown (HP_NOTE_UNRECORDED) */
	if (unrecorded(in))
		return;
	/* no pool of the size, or a node not in the tree (HP_NOTE_NO_NODE): none there */
	if (!in->size_supported || !nr) {
		p->have_known = true;
		return;
	}
	p->have_known = nr->present && fr->present && in->resv.present && fr->v <= nr->v;
	if (!p->have_known)
		return;
	p->have = nr->v;
	p->free = fr->v;
	p->resv = in->resv.v;
	p->avail = p->free > p->resv ? p->free - p->resv : 0;
	if (in->node >= 0 && p->resv)
		p->notes |= HP_NOTE_RESV_GLOBAL;
}

static void runtime(const struct hp_plan_input *in, struct hp_plan *p)
{
	/* what the buddy allocator could give, in the scope */
	bool have_buddy = false, partial = false;
	if (in->node >= 0) {
		const struct hp_node *nd = find_node(in, in->node);
		if (nd && nd->has_buddy) {
			have_buddy = true;
			partial = nd->buddy_partial;
			p->free_blocks = nd->free_blocks;
		}
	} else {
		for (int i = 0; i < in->nnodes; i++)
			if (in->nodes[i].has_buddy) {
				have_buddy = true;
				partial |= in->nodes[i].buddy_partial;
				p->free_blocks += in->nodes[i].free_blocks;
			}
	}
	p->blocks_at_least = partial;
	p->blocks_known = have_buddy;
	p->gigantic = p->order >= 0 && in->buddy_max_order >= 0 && p->order > in->buddy_max_order;
	p->unknown = HP_UNK_NONE;
	if (!p->fits)
		p->runtime = HP_RT_NOFIT;
	else if (!p->have_known) /* what the pool holds now is unknown */
		p->runtime = HP_RT_UNKNOWN,
		p->unknown = unrecorded(in) ? HP_UNK_UNRECORDED : HP_UNK_POOL;
	else if (p->need == 0)
		p->runtime = HP_RT_ALREADY;
	else if (p->gigantic)
		p->runtime = HP_RT_BOOT;
	else if (!have_buddy || p->order < 0)
		p->runtime = HP_RT_UNKNOWN, p->unknown = HP_UNK_BUDDY;
	else if (p->free_blocks >= p->need) /* a lower bound suffices too */
		p->runtime = HP_RT_NOW;
	else if (!p->scope_free_known) /* the node's own MemFree, never the host's */
		p->runtime = HP_RT_UNKNOWN, p->unknown = HP_UNK_MEMFREE;
	/* compaction may assemble the rest from free memory, leaving the kernel its reserve;
	 * need <= pages and pages * page_kb fits (checked in hugetlb_plan); the sum in u128 */
	else if (p->scope_free_kb >= (u128)p->need * in->page_kb + HP_KERNEL_RESERVE_KB)
		p->runtime = HP_RT_COMPACT;
	else if (partial) /* the dropped rows may hold the rest: no case for boot */
		p->runtime = HP_RT_UNKNOWN, p->unknown = HP_UNK_BUDDY_DAMAGED;
	else
		p->runtime = HP_RT_BOOT;
}

/* The memory the pool comes out of: the node's, or the host's (one node: the same). */
static void scope_mem(const struct hp_plan_input *in, const struct hp_node *nd, struct hp_plan *p)
{
	bool host = in->node < 0 || in->nnodes <= 1;
	if (nd && nd->has_mem_total) {
		p->scope_mem_known = true;
		p->scope_mem_kb = nd->mem_total_kb;
	} else if (in->has_mem_total && host) {
		p->scope_mem_known = true;
		p->scope_mem_kb = in->mem_total_kb;
	}
	if (nd && nd->has_mem_free) {
		p->scope_free_known = true;
		p->scope_free_kb = nd->mem_free_kb;
	} else if (in->has_mem_free && host) {
		p->scope_free_known = true;
		p->scope_free_kb = in->mem_free_kb;
	}
}

/*
 * The pool's overcommit: surplus pages the kernel allocates from the buddy allocator when a
 * mapping needs them (nr_overcommit_hugepages caps surplus_hugepages; global, any node). They
 * may cover (part of) the shortfall, but are not reserved: they fail when memory is
 * fragmented. Noted when there is an overcommit or surplus pages, and the pool's counts are
 * known.
 */
static void overcommit(const struct hp_plan_input *in, struct hp_plan *p)
{
	if (!in->size_supported || !in->overcommit.present || !in->surplus.present)
		return;
	p->overcommit_known = true;
	p->overcommit = in->overcommit.v;
	p->surplus = in->surplus.v;
	p->overcommit_room = p->overcommit > p->surplus ? p->overcommit - p->surplus : 0;
	if (p->have_known && (p->overcommit || p->surplus))
		p->notes |= HP_NOTE_OVERCOMMIT;
}

int hugetlb_plan(const struct hp_plan_input *in, struct hp_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->order = -1;
	if (in->page_kb == 0 || in->for_bytes == 0 || in->overhead_pct > 1000)
		return -EINVAL;
	uint64_t extra = in->for_bytes / 100 * in->overhead_pct +
			 (in->for_bytes % 100) * in->overhead_pct / 100;
	if (in->for_bytes > UINT64_MAX - extra)
		return -EINVAL;
	p->pool_bytes = in->for_bytes + extra;
	uint64_t page_b;
	if (!mul_u64(in->page_kb, 1024, &page_b))
		return -EINVAL;
	p->pages = p->pool_bytes / page_b + (p->pool_bytes % page_b ? 1 : 0);
	if (p->pages > UINT64_MAX / in->page_kb)
		return -EINVAL;
	p->total_kb = p->pages * in->page_kb;
	if (in->base_page > 0 && page_b % (uint64_t)in->base_page == 0)
		p->order = log2_floor(page_b / (uint64_t)in->base_page);

	const struct hp_node *nd = in->node >= 0 ? find_node(in, in->node) : NULL;
	scope_mem(in, nd, p);
	pool_now(in, nd, p);
	/* the pool after the lines: what is there now plus the shortfall (u128: no wrap) */
	u128 target = p->have;
	if (p->have_known) {
		p->need = p->pages > p->avail ? p->pages - p->avail : 0;
		target += p->need;
		p->target = target > UINT64_MAX ? UINT64_MAX : (uint64_t)target;
	} else {
		target = p->pages; /* at the least */
	}
	if (p->scope_mem_known) {
		uint64_t usable = p->scope_mem_kb > HP_KERNEL_RESERVE_KB
					  ? p->scope_mem_kb - HP_KERNEL_RESERVE_KB
					  : 0;
		p->max_pages = usable / in->page_kb;
		u128 tk = target * in->page_kb; /* < 2^64 * 2^64 */
		p->fits = tk <= usable;
		p->left_kb = p->fits ? p->scope_mem_kb - (uint64_t)tk : 0;
	} else {
		p->fits = true; /* unknown: judged by the reservation itself */
	}
	runtime(in, p);
	bool dflt = in->default_page_kb && in->page_kb == in->default_page_kb;
	p->file = in->node >= 0 ? HP_TARGET_NODE : dflt ? HP_TARGET_DEFAULT : HP_TARGET_SIZE;
	if (unrecorded(in))
		p->notes |= HP_NOTE_UNRECORDED;
	else if (!in->size_supported)
		p->notes |= HP_NOTE_UNSUPPORTED;
	else if (!p->have_known)
		p->notes |= HP_NOTE_HAVE_UNKNOWN;
	else if (p->have && p->need)
		p->notes |= HP_NOTE_POOL_SHARED;
	if (in->default_page_kb && in->page_kb != in->default_page_kb)
		p->notes |= HP_NOTE_NOT_DEFAULT;
	if (in->node >= 0 && !nd)
		p->notes |= HP_NOTE_NO_NODE;
	overcommit(in, p);
	return 0;
}

bool hp_plan_reservable(const struct hp_plan *p)
{
	return p->runtime != HP_RT_NOFIT && p->have_known;
}
