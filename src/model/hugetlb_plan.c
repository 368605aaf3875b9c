// SPDX-License-Identifier: MIT
#include "hugetlb_plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/num.h"
#include "../util/units.h"
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

u128 hp_free_blocks(const struct buddyinfo *bi, int node, int order, bool *found)
{
	u128 n = 0;
	*found = false;
	for (int i = 0; i < bi->nzones; i++) {
		const struct buddy_zone *z = &bi->zones[i];
		if (node >= 0 && z->node != node)
			continue;
		*found = true;
		if (strcmp(z->zone, "DMA") == 0 || order < 0 || order >= 64)
			continue;
		n += buddy_pages_at_least(z, order) >> order; /* < 2^84 a zone: exact */
	}
	return n;
}

int hp_node_meminfo_total(const char *text, size_t len, uint64_t *kb)
{
	const char *pos = text, *end = text + len, *s, *e;
	int n = 0;
	while (next_line(&pos, end, &s, &e)) {
		const char *k = memmem(s, (size_t)(e - s), " MemTotal:", 10);
		if (!k || (size_t)(e - s) < 5 || memcmp(s, "Node ", 5) != 0)
			continue;
		const char *v = k + 10;
		/* a key seen twice is damage: neither copy is used */
		if (n++ || parse_u64(&v, e, kb))
			return -EINVAL;
	}
	return n ? 0 : -ENOENT;
}

__attribute__((format(printf, 2, 3))) static void note(struct hp_plan *p, const char *fmt, ...)
{
	if (p->nnotes == HP_MAX_LINES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->notes[p->nnotes++], sizeof(p->notes[0]), fmt, ap);
	va_end(ap);
}

static const struct hp_node *find_node(const struct hp_plan_input *in, int node)
{
	for (int i = 0; i < in->nnodes; i++)
		if (in->nodes[i].node == node)
			return &in->nodes[i];
	return NULL;
}

static void lines(const struct hp_plan_input *in, struct hp_plan *p)
{
	char sz[16];
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	unsigned long long n = (unsigned long long)p->pages;
	bool dflt = in->default_page_kb && in->page_kb == in->default_page_kb;
	if (in->node >= 0) {
		snprintf(
			p->runtime_cmd[p->nruntime++], sizeof(p->runtime_cmd[0]),
			"echo %llu > /sys/devices/system/node/node%d/hugepages/hugepages-%llukB/nr_hugepages",
			n, in->node, (unsigned long long)in->page_kb);
		snprintf(p->persist_file, sizeof(p->persist_file), "/etc/tmpfiles.d/hugetlb.conf");
		snprintf(
			p->persist, sizeof(p->persist),
			"w /sys/devices/system/node/node%d/hugepages/hugepages-%llukB/nr_hugepages - - - - %llu",
			in->node, (unsigned long long)in->page_kb, n);
		/* hugepages=NODE:COUNT: 5.16 (b5389086ad7b) */
		snprintf(p->cmdline, sizeof(p->cmdline), "hugepagesz=%s hugepages=%d:%llu", sz,
			 in->node, n);
	} else if (dflt) {
		snprintf(p->runtime_cmd[p->nruntime++], sizeof(p->runtime_cmd[0]),
			 "sysctl -w vm.nr_hugepages=%llu", n);
		snprintf(p->persist_file, sizeof(p->persist_file), "/etc/sysctl.d/80-hugetlb.conf");
		snprintf(p->persist, sizeof(p->persist), "vm.nr_hugepages = %llu", n);
		snprintf(p->cmdline, sizeof(p->cmdline), "hugepagesz=%s hugepages=%llu", sz, n);
	} else {
		/* vm.nr_hugepages only sets the default size's pool */
		snprintf(p->runtime_cmd[p->nruntime++], sizeof(p->runtime_cmd[0]),
			 "echo %llu > /sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages", n,
			 (unsigned long long)in->page_kb);
		snprintf(p->persist_file, sizeof(p->persist_file), "/etc/tmpfiles.d/hugetlb.conf");
		snprintf(p->persist, sizeof(p->persist),
			 "w /sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages - - - - %llu",
			 (unsigned long long)in->page_kb, n);
		snprintf(p->cmdline, sizeof(p->cmdline), "hugepagesz=%s hugepages=%llu", sz, n);
	}
}

static void runtime(const struct hp_plan_input *in, struct hp_plan *p)
{
	char a[64], b[32], sz[16];
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	/* what is reserved now, and what the buddy allocator could give */
	bool have_buddy = false;
	/* no pool of the size: none reserved; a pool whose nr_hugepages is unreadable: unknown */
	const struct opt_u64 *nr = &in->nr;
	if (in->node >= 0) {
		const struct hp_node *nd = find_node(in, in->node);
		nr = nd ? &nd->nr : NULL;
		if (nd && nd->has_buddy) {
			have_buddy = true;
			p->free_blocks = nd->free_blocks;
		}
	} else {
		for (int i = 0; i < in->nnodes; i++)
			if (in->nodes[i].has_buddy) {
				have_buddy = true;
				p->free_blocks += in->nodes[i].free_blocks;
			}
	}
	p->have_known = !in->size_supported || (nr && nr->present);
	p->have = nr && nr->present ? nr->v : 0;
	p->need = p->pages > p->have ? p->pages - p->have : 0;
	p->gigantic = p->order >= 0 && in->buddy_max_order >= 0 && p->order > in->buddy_max_order;
	if (!p->fits) {
		p->runtime = HP_RT_NOFIT;
		snprintf(p->runtime_why, sizeof(p->runtime_why),
			 "not at all: the pool does not leave the kernel 1.5 GiB");
		return;
	}
	if (!p->have_known) {
		p->runtime = HP_RT_UNKNOWN;
		p->need = 0;
		snprintf(
			p->runtime_why, sizeof(p->runtime_why),
			"unknown: nr_hugepages of the %s pool%s could not be read, so how many pages are reserved now is unknown",
			sz, in->node >= 0 ? " of this node" : "");
		return;
	}
	if (p->need == 0) {
		p->runtime = HP_RT_ALREADY;
		snprintf(p->runtime_why, sizeof(p->runtime_why),
			 "already there: %llu pages of %s are reserved now",
			 (unsigned long long)p->have, sz);
		return;
	}
	if (p->gigantic) {
		p->runtime = HP_RT_BOOT;
		snprintf(
			p->runtime_why, sizeof(p->runtime_why),
			"reserve at boot: a %s page is larger than the buddy allocator's largest block (order %d), so a runtime reservation must find %s of free, movable, contiguous memory per page, which rarely exists once the host has run a while",
			sz, in->buddy_max_order, sz);
		return;
	}
	if (!have_buddy || p->order < 0) {
		p->runtime = HP_RT_UNKNOWN;
		snprintf(p->runtime_why, sizeof(p->runtime_why),
			 "unknown: no buddyinfo%s to count free blocks of the page's order",
			 in->node >= 0 ? " for this node" : "");
		return;
	}
	u128 fb_kb;
	if (__builtin_mul_overflow(p->free_blocks, (u128)in->page_kb, &fb_kb))
		snprintf(a, sizeof(a), "-");
	else
		fmt_kb_wide(a, sizeof(a), fb_kb);
	char nb[40], blocks[160]; /* "N free block(s) of order >= O (SIZE)" */
	fmt_u128(nb, sizeof(nb), p->free_blocks);
	snprintf(blocks, sizeof(blocks), "%s free block%s of order >= %d (%s)", nb,
		 p->free_blocks == 1 ? "" : "s", p->order, a);
	if (p->free_blocks >= p->need) {
		p->runtime = HP_RT_NOW;
		snprintf(p->runtime_why, sizeof(p->runtime_why),
			 "now: %llu more pages needed, %s in /proc/buddyinfo",
			 (unsigned long long)p->need, blocks);
		return;
	}
	/* need <= pages and pages * page_kb fits (checked in hugetlb_plan); the sum in u128 */
	u128 need_kb = (u128)p->need * in->page_kb;
	if (in->has_mem_free && in->mem_free_kb >= need_kb + HP_KERNEL_RESERVE_KB) {
		p->runtime = HP_RT_COMPACT;
		fmt_kb(b, sizeof(b), in->mem_free_kb);
		snprintf(
			p->runtime_why, sizeof(p->runtime_why),
			"maybe: %llu more pages needed but only %s in /proc/buddyinfo; MemFree is %s, so compaction may assemble the rest (the kernel compacts while reserving; echo 1 > /proc/sys/vm/compact_memory first helps); read nr_hugepages back, and reserve at boot if it falls short",
			(unsigned long long)p->need, blocks, b);
		return;
	}
	p->runtime = HP_RT_BOOT;
	snprintf(
		p->runtime_why, sizeof(p->runtime_why),
		"reserve at boot: %llu more pages needed, only %s and not enough free memory to compact into",
		(unsigned long long)p->need, blocks);
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

	/* the memory the pool comes out of: the node's, or the host's */
	const struct hp_node *nd = in->node >= 0 ? find_node(in, in->node) : NULL;
	if (nd && nd->has_mem_total) {
		p->scope_mem_known = true;
		p->scope_mem_kb = nd->mem_total_kb;
	} else if (in->has_mem_total && (in->node < 0 || in->nnodes <= 1)) {
		p->scope_mem_known = true;
		p->scope_mem_kb = in->mem_total_kb;
	}
	if (p->scope_mem_known) {
		uint64_t usable = p->scope_mem_kb > HP_KERNEL_RESERVE_KB
					  ? p->scope_mem_kb - HP_KERNEL_RESERVE_KB
					  : 0;
		p->max_pages = usable / in->page_kb;
		p->fits = p->total_kb <= usable;
		p->left_kb = p->fits ? p->scope_mem_kb - p->total_kb : 0;
	} else {
		p->fits = true; /* unknown: judged by the reservation itself */
	}
	runtime(in, p);
	lines(in, p);

	char sz[16];
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	if (!in->size_supported)
		note(p,
		     "this kernel has no %s hugetlb pages (no hugepages-%llukB directory): the lines below will fail here",
		     sz, (unsigned long long)in->page_kb);
	if (!p->have_known)
		note(p,
		     "nr_hugepages of the %s pool could not be read (damaged or unreadable): reserved_now and needed are unknown",
		     sz);
	else if (p->have && p->have != p->pages)
		note(p,
		     "nr_hugepages is the whole pool of that size, %llu pages now: add them if those serve something else",
		     (unsigned long long)p->have);
	if (in->default_page_kb && in->page_kb != in->default_page_kb)
		note(p,
		     "not the default size (Hugepagesize %llu kB): programs must ask for %s pages (MAP_HUGE_%s, hugetlbfs pagesize=%s, PostgreSQL huge_page_size = %s), or boot with default_hugepagesz=%s",
		     (unsigned long long)in->default_page_kb, sz, sz, sz, sz, sz);
	if (in->node >= 0 && !nd)
		note(p, "node %d is not in this tree (sys/devices/system/node)", in->node);
	return 0;
}
