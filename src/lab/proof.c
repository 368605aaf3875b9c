// SPDX-License-Identifier: MIT
#include "proof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/buddyinfo.h"
#include "../kernel/folio_scan.h"
#include "../kernel/parse.h"
#include "../kernel/proc_read.h"
#include "../kernel/sysfs.h"
#include "../kernel/uapi_compat.h"
#include "../model/host.h"

int snap_take(const struct sysroot *sr, struct snap *s)
{
	int r = vmstat_read(sr, &s->vm);
	s->ok = r == 0;
	uint64_t kb[THP_MAX_SIZES];
	int n = thp_sizes_list(sr, kb, THP_MAX_SIZES);
	s->nsizes = 0;
	for (int i = 0; i < n; i++) {
		/* a size without stats/ (before 6.10) is left out */
		if (thp_size_stats_read(sr, kb[i], &s->stats[s->nsizes]))
			continue;
		s->size_kb[s->nsizes++] = kb[i];
	}
	return s->ok ? 0 : (r ? r : -EINVAL);
}

void snap_free(struct snap *s)
{
	kvlist_free(&s->vm);
	for (int i = 0; i < THP_MAX_SIZES; i++)
		kvlist_free(&s->stats[i]);
	s->nsizes = 0;
}

bool snap_delta(const struct snap *a, const struct snap *b, const char *name, int64_t *d)
{
	uint64_t x, y;
	if (!kv_get(&a->vm, name, &x) || !kv_get(&b->vm, name, &y))
		return false;
	*d = (int64_t)(y - x);
	return true;
}

static const struct kvlist *size_stats(const struct snap *s, uint64_t kb)
{
	for (int i = 0; i < s->nsizes; i++)
		if (s->size_kb[i] == kb)
			return &s->stats[i];
	return NULL;
}

bool snap_size_delta(const struct snap *a, const struct snap *b, uint64_t size_kb, const char *name,
		     int64_t *d)
{
	const struct kvlist *x = size_stats(a, size_kb), *y = size_stats(b, size_kb);
	uint64_t u, v;
	if (!x || !y || !kv_get(x, name, &u) || !kv_get(y, name, &v))
		return false;
	*d = (int64_t)(v - u);
	return true;
}

struct rs_ctx {
	uintptr_t lo, hi;
	struct region_smaps *out;
};

static int rs_cb(const struct smaps_vma *v, void *ctx)
{
	struct rs_ctx *c = ctx;
	if (v->end <= c->lo || v->start >= c->hi)
		return 0;
	struct region_smaps *o = c->out;
	for (int i = 0; i < SM_NFIELDS; i++)
		o->t.kb[i] += v->t.kb[i];
	o->t.present |= v->t.present;
	if (!o->nvmas)
		o->thp_eligible = v->thp_eligible;
	o->vmflags |= v->vmflags;
	o->nvmas++;
	return 0;
}

int region_smaps_read(const struct sysroot *sr, pid_t pid, uintptr_t addr, size_t len,
		      struct region_smaps *out)
{
	memset(out, 0, sizeof(*out));
	out->thp_eligible = -1;
	struct rs_ctx c = {.lo = addr, .hi = addr + len, .out = out};
	struct proc_info pi = {.vma_cb = rs_cb, .vma_ctx = &c};
	int r = proc_read(sr, pid, PROC_SMAPS, &pi);
	if (!r)
		r = pi.smaps_err;
	proc_info_free(&pi);
	if (r)
		return r;
	return out->nvmas ? 0 : -ENOENT;
}

/*
 * The folio classifier of kernel/pagemap.c (the one `maps --folios` uses),
 * read without PAGEMAP_SCAN so PMD-mapped THPs count as order-9 folios.
 * Only whole folios go into by_order; pages of partially mapped folios are
 * in neither by_order nor small.
 */
int region_folios(const struct sysroot *sr, uintptr_t addr, size_t len, long page_size,
		  struct folio_counts *fc)
{
	struct folio_acct c;
	memset(fc, 0, sizeof(*fc));
	(void)page_size;
	int r = folio_scan_range(sr, 0, addr, len, &c);
	if (r)
		return r;
	uint64_t thp = 0;
	for (int t = 0; t < FT_N; t++) {
		for (int o = 0; o < FOLIO_ORDERS; o++) {
			uint64_t pages = c.aligned[t][o] + c.unaligned[t][o];
			fc->by_order[o] += pages >> o;
		}
		thp += folio_acct_thp(&c, t);
	}
	uint64_t rss = c.rss[FT_ANON] + c.rss[FT_FILE];
	fc->small = (rss > thp ? rss - thp : 0) + c.zero_pte;
	fc->present = rss + c.zero_pte + c.zero_pmd + c.hugetlb;
	return 0;
}

int free_blocks_at_least(const struct sysroot *sr, int order, uint64_t *blocks)
{
	struct buddyinfo *bi = malloc(sizeof(*bi));
	int r = bi ? buddyinfo_read(sr, bi) : -ENOMEM;
	if (!r) {
		u128 n = host_free_blocks(bi, -1, order, NULL);
		/* the live kernel's count: far below 2^64; beyond it, unknown */
		if (!u128_fits(n))
			r = -EOVERFLOW;
		*blocks = (uint64_t)n;
	}
	free(bi);
	return r;
}
