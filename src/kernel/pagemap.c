// SPDX-License-Identifier: MIT
#include "pagemap.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "../util/num.h"
#include "uapi_compat.h"

void folio_acct_add(struct folio_acct *sum, const struct folio_acct *c)
{
	for (int t = 0; t < FT_N; t++) {
		sum->pmd[t] += c->pmd[t];
		for (int o = 0; o < FOLIO_ORDERS; o++) {
			sum->aligned[t][o] += c->aligned[t][o];
			sum->unaligned[t][o] += c->unaligned[t][o];
		}
		sum->partial[t] += c->partial[t];
		sum->cont_pte[t] += c->cont_pte[t];
		sum->rss[t] += c->rss[t];
	}
	sum->zero_pte += c->zero_pte;
	sum->zero_pmd += c->zero_pmd;
	sum->swap += c->swap;
	sum->hugetlb += c->hugetlb;
	for (int n = 0; n < FOLIO_NODES; n++)
		sum->thp_node[n] += c->thp_node[n];
	sum->thp_node_unknown += c->thp_node_unknown;
}

uint64_t folio_acct_thp(const struct folio_acct *c, enum folio_type t)
{
	uint64_t n = c->pmd[t] + c->partial[t];
	for (int o = 0; o < FOLIO_ORDERS; o++)
		n += c->aligned[t][o] + c->unaligned[t][o];
	return n;
}

uint64_t folio_acct_order(const struct folio_acct *c, enum folio_type t, int order, int pmd_order)
{
	if (order < 0 || order >= FOLIO_ORDERS)
		return 0;
	uint64_t n = c->aligned[t][order] + c->unaligned[t][order];
	if (order == pmd_order)
		n += c->pmd[t];
	return n;
}

void folio_acct_split_pmd(struct folio_acct *c, int pmd_order, uint64_t anon_pmd_pages,
			  uint64_t file_pmd_pages)
{
	const uint64_t pmd[FT_N] = {anon_pmd_pages, file_pmd_pages};
	if (pmd_order < 0 || pmd_order >= FOLIO_ORDERS)
		return;
	for (int t = 0; t < FT_N; t++) {
		uint64_t *a = &c->aligned[t][pmd_order], *b = &c->cont_pte[t];
		*a = *a > pmd[t] ? *a - pmd[t] : 0;
		*b = *b > pmd[t] ? *b - pmd[t] : 0; /* each PMD-mapped THP is whole --cont blocks */
		c->pmd[t] += pmd[t];
	}
}

void folio_walk_init(struct folio_walk *w, uint64_t cont_pages)
{
	memset(w, 0, sizeof(*w));
	w->cont_pages = cont_pages;
}

/* A whole folio of NR pages at HEAD: thpmaps counts 1 << floor(log2(NR)) pages. */
static void folio_done(struct folio_acct *c, int type, uint64_t head, uint64_t nr)
{
	int order = log2_floor(nr);
	uint64_t pages = 1ULL << order;
	int slot = order < FOLIO_ORDERS ? order : FOLIO_ORDERS - 1;
	if ((head & (pages - 1)) == 0)
		c->aligned[type][slot] += pages;
	else
		c->unaligned[type][slot] += pages;
}

/* Close the open range; AFTER is the kpageflags of the frame after its last one. */
static void range_close(struct folio_walk *w, uint64_t after, struct folio_acct *c)
{
	if (!w->in_range)
		return;
	w->in_range = false;
	w->blk_active = false;
	uint64_t end = w->prev_vfn + 1;
	if (!w->have_head) {
		c->partial[w->range_type] += end - w->range_vfn;
		return;
	}
	uint64_t nr = end - w->head_vfn;
	if (after & KPF_M_TAIL) /* the last folio goes on past the range */
		c->partial[w->head_type] += nr;
	else
		folio_done(c, w->head_type, w->head_vfn, nr);
}

static int kf_type(uint64_t f)
{
	return (f & KPF_M_ANON) ? FT_ANON : FT_FILE;
}

/* A THP page at VFN inside the open range (which it may have just opened). */
static void range_page(struct folio_walk *w, uint64_t vfn, uint64_t f, struct folio_acct *c)
{
	if (f & KPF_M_HEAD) {
		if (w->have_head)
			folio_done(c, w->head_type, w->head_vfn, vfn - w->head_vfn);
		else
			c->partial[w->range_type] += vfn - w->range_vfn;
		w->have_head = true;
		w->head_vfn = vfn;
		w->head_type = kf_type(f);
	}
	uint64_t n = w->cont_pages;
	if (!n || !w->cont_ok)
		return;
	uint64_t off = vfn & (n - 1);
	if (off == 0) {
		w->blk_active = true;
		w->blk_ok = true;
		w->blk_type = kf_type(f);
	} else if (f & KPF_M_HEAD) {
		w->blk_ok = false; /* a folio boundary inside the block */
	}
	if (off == n - 1 && w->blk_active) {
		if (w->blk_ok)
			c->cont_pte[w->blk_type] += n;
		w->blk_active = false;
	}
}

void folio_walk_feed(struct folio_walk *w, uint64_t vfn0, size_t n, const uint64_t *pm,
		     const uint64_t *kf, const uint64_t *kf_after, struct folio_acct *c)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t vfn = vfn0 + i, e = pm[i];
		if (!(e & PM_PRESENT)) {
			if (e & PM_SWAP)
				c->swap++;
			range_close(w, w->prev_after, c);
			continue;
		}
		uint64_t pfn = e & PM_PFN_MASK, f = kf[i];
		bool next = w->in_range && vfn == w->prev_vfn + 1 && pfn == w->prev_pfn + 1;
		/* the frame after the open range is this page's: its flags say whether
		 * the range's last folio goes on */
		uint64_t after =
			vfn == w->prev_vfn + 1 && pfn == w->prev_pfn + 1 ? f : w->prev_after;
		if (f & KPF_M_ZERO) {
			if (f & KPF_M_THP)
				c->zero_pmd++;
			else
				c->zero_pte++;
		} else if (f & KPF_M_HUGE) {
			c->hugetlb++;
		} else {
			c->rss[(e & PM_FILE) ? FT_FILE : FT_ANON]++;
		}
		if (!(f & KPF_M_THP) || (f & KPF_M_ZERO)) {
			range_close(w, after, c);
		} else {
			if (!next) {
				range_close(w, after, c);
				w->in_range = true;
				w->have_head = false;
				w->blk_active = false;
				w->range_vfn = vfn;
				w->range_type = kf_type(f);
				/* --cont: blocks count only where virtual and physical
				 * frames are equally aligned (constant within a range) */
				w->cont_ok = w->cont_pages && !((vfn ^ pfn) & (w->cont_pages - 1));
			}
			range_page(w, vfn, f, c);
		}
		w->prev_vfn = vfn;
		w->prev_pfn = pfn;
		w->prev_after = kf_after[i];
	}
}

void folio_walk_end(struct folio_walk *w, struct folio_acct *c)
{
	range_close(w, w->prev_after, c);
	w->prev_vfn = w->prev_pfn = 0;
	w->prev_after = 0;
}

/* ---- readers ---- */

int pagemap_pread(int fd, uint64_t vfn, size_t n, uint64_t *out)
{
	return pread_exact(fd, out, n * 8, vfn * 8);
}

int kpageflags_pread(int fd, uint64_t pfn, size_t n, uint64_t *out)
{
	return pread_exact(fd, out, n * 8, pfn * 8);
}

int pagemap_scan(int fd, uint64_t start, uint64_t end, struct pm_range *out, size_t max,
		 uint64_t *next)
{
	/* struct pm_range has the layout of the kernel's struct page_region */
	_Static_assert(sizeof(struct pm_range) == sizeof(struct pm_page_region_compat),
		       "page_region layout");
	struct pm_scan_arg_compat a = {
		.size = sizeof(a),
		.start = start,
		.end = end,
		.vec = (uint64_t)(uintptr_t)out,
		.vec_len = max,
		.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
		.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_HUGE | PAGE_IS_PFNZERO,
	};
	long r;
	do
		r = ioctl(fd, PAGEMAP_SCAN, &a);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	*next = a.walk_end ? a.walk_end : end;
	return (int)r;
}
