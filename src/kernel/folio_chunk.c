// SPDX-License-Identifier: MIT
/*
 * kernel/folio_scan.c's reader of one chunk of a VMA: pagemap entries, then
 * kpageflags of the frames (read in runs), or PAGEMAP_SCAN for PMD-mapped
 * ranges, classified into the chunk's folio accounting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "folio_int.h"
#include "uapi_compat.h"

/* N THP pages from frame PFN on into C's per-node counts (a THP is on one node). */
static void count_node(const struct folio_ctx *c, struct folio_acct *a, uint64_t pfn, uint64_t n)
{
	if (!c->numa)
		return;
	int node = numa_node_of_pfn(c->numa, pfn, c->page_bytes);
	if (node >= 0 && node < FOLIO_NODES)
		a->thp_node[node] += n;
	else
		a->thp_node_unknown += n;
}

/* The THP pages of S that fill_flags classified (PTE-mapped, or all without PAGEMAP_SCAN). */
static void count_nodes(const struct folio_ctx *c, struct slot *s)
{
	for (size_t i = 0; c->numa && i < s->n; i++) {
		uint64_t kf = s->kf[i];
		if ((s->pm[i] & PM_PRESENT) && (kf & KPF_M_THP) &&
		    !(kf & (KPF_M_HUGE | KPF_M_ZERO)))
			count_node(c, &s->c, s->pm[i] & PM_PFN_MASK, 1);
	}
}

/* A PMD-mapped (or hugetlb) range [A, B) of slot S whose first page's pagemap entry is E. */
static int huge_block(struct folio_ctx *c, const struct rfd *f, struct slot *s, size_t a, size_t b,
		      uint64_t e)
{
	uint64_t fl = 0, pfn = e & PM_PFN_MASK;
	if (!pfn)
		return -EPERM;
	int r = kpageflags_pread(f->kf, pfn, 1, &fl);
	if (r)
		return r;
	if (fl & KPF_M_HUGE) {
		s->c.hugetlb += b - a;
		return 0;
	}
	int t = (fl & KPF_M_THP) ? ((fl & KPF_M_ANON) ? FT_ANON : FT_FILE)
				 : ((e & PM_FILE) ? FT_FILE : FT_ANON);
	s->c.pmd[t] += b - a;
	s->c.rss[t] += b - a;
	count_node(c, &s->c, pfn, b - a);
	if (t != FT_ANON)
		return 0;
	for (uint64_t v = s->vfn0 + a; v < s->vfn0 + b; v++)
		if (v % c->pmd_pages == 0 && s->npmd < MAX_PMD_PER_CHUNK)
			s->pmd_addr[s->npmd++] = v << c->page_shift;
	return 0;
}

/* The same, reading the first page's entry first (PAGEMAP_SCAN gave only the range). */
static int huge_range(struct folio_ctx *c, const struct rfd *f, struct slot *s, size_t a, size_t b)
{
	uint64_t e;
	int r = pagemap_pread(f->pm, s->vfn0 + a, 1, &e);
	if (r)
		return r;
	if (!(e & PM_PRESENT)) /* gone meanwhile */
		return 0;
	return huge_block(c, f, s, a, b, e);
}

/*
 * The chunk's pagemap first, then PAGEMAP_SCAN only where a PMD mapping is
 * possible: a PMD-aligned block whose entries are all present with frames
 * going up by one from a PMD-aligned frame (how every PMD mapping reads in
 * pagemap; a PTE-mapped PMD-sized folio reads the same, PAGE_IS_HUGE tells
 * them apart). PMD-mapped blocks are accounted here and cleared from pm[],
 * as are PTE mappings of the zero page. Cheaper than scanning PTE-mapped
 * memory, whose pagemap has to be read anyway.
 */
static int pm_first_chunk(struct folio_ctx *c, const struct rfd *f, struct slot *s)
{
	int r = pagemap_pread(f->pm, s->vfn0, s->n, s->pm);
	if (r)
		return r;
	const uint64_t np = c->pmd_pages;
	for (uint64_t v = (s->vfn0 + np - 1) / np * np; v + np <= s->vfn0 + s->n; v += np) {
		size_t a = (size_t)(v - s->vfn0), k = 1;
		uint64_t e0 = s->pm[a], pfn = e0 & PM_PFN_MASK;
		if (!(e0 & PM_PRESENT) || !pfn || pfn % np)
			continue;
		while (k < np && (s->pm[a + k] & PM_PRESENT) &&
		       (s->pm[a + k] & PM_PFN_MASK) == pfn + k)
			k++;
		if (k < np)
			continue;
		struct pm_range rg[2];
		uint64_t next, lo = v << c->page_shift, hi = (v + np) << c->page_shift;
		int n = pagemap_scan(f->pm, lo, hi, rg, 2, &next);
		if (n < 0)
			return n;
		if (n != 1 || !(rg[0].cat & PAGE_IS_HUGE) || rg[0].start != lo || rg[0].end != hi)
			continue; /* PTE-mapped (or changed meanwhile) */
		if (rg[0].cat & PAGE_IS_PFNZERO)
			s->c.zero_pmd += np;
		else if ((r = huge_block(c, f, s, a, a + np, e0)))
			return r;
		memset(s->pm + a, 0, np * sizeof(s->pm[0]));
	}
	for (size_t i = 0; c->zero_pfn && i < s->n; i++)
		if ((s->pm[i] & PM_PRESENT) && (s->pm[i] & PM_PFN_MASK) == c->zero_pfn) {
			s->c.zero_pte++;
			s->pm[i] = 0;
		}
	return 0;
}

/* PAGEMAP_SCAN over the chunk: account PMD, zero and swap ranges; read pagemap where PTE-mapped. */
static int scan_chunk(struct folio_ctx *c, const struct rfd *f, struct slot *s)
{
	struct pm_range v[SCAN_VEC];
	uint64_t start = s->vfn0 << c->page_shift, end = (s->vfn0 + s->n) << c->page_shift;
	while (start < end) {
		uint64_t next;
		int k = pagemap_scan(f->pm, start, end, v, SCAN_VEC, &next);
		if (k < 0)
			return k;
		for (int i = 0; i < k; i++) {
			if (v[i].end <= v[i].start || v[i].start < start || v[i].end > end)
				continue;
			size_t a = (size_t)((v[i].start >> c->page_shift) - s->vfn0);
			size_t b = (size_t)((v[i].end >> c->page_shift) - s->vfn0);
			uint64_t cat = v[i].cat;
			int r = 0;
			if (!(cat & PAGE_IS_PRESENT))
				s->c.swap += b - a;
			else if ((cat & PAGE_IS_HUGE) && (cat & PAGE_IS_PFNZERO))
				s->c.zero_pmd += b - a;
			else if (cat & PAGE_IS_HUGE)
				r = huge_range(c, f, s, a, b);
			else if (cat & PAGE_IS_PFNZERO)
				s->c.zero_pte += b - a;
			else if (!c->pmd_only)
				r = pagemap_pread(f->pm, s->vfn0 + a, b - a, s->pm + a);
			if (r)
				return r;
		}
		if (k < SCAN_VEC || next <= start)
			break;
		start = next;
	}
	return 0;
}

/* kpageflags of frames PFN.. for pages I..J-1 of S in one read, plus the frame after into kfa[J-1]. */
static int kf_read_run(const struct rfd *f, struct slot *s, size_t i, size_t j, uint64_t pfn)
{
	struct iovec iov[2] = {{s->kf + i, (j - i) * 8}, {s->kfa + j - 1, 8}};
	size_t want = (j - i + 1) * 8, got = 0;
	s->kfa[j - 1] = 0; /* past the last frame of memory: no tail */
	while (got < want) {
		ssize_t r = preadv(f->kf, iov, 2, (off_t)(pfn * 8 + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
		for (int k = 0; k < 2 && r > 0; k++) { /* advance the iovecs */
			size_t d = (size_t)r < iov[k].iov_len ? (size_t)r : iov[k].iov_len;
			iov[k].iov_base = (char *)iov[k].iov_base + d;
			iov[k].iov_len -= d;
			r -= (ssize_t)d;
		}
	}
	return got < (j - i) * 8 ? -EIO : 0;
}

/* Read N kpageflags from PFN into OUT; frames past the end of memory read as 0. */
static int kf_read(const struct rfd *f, uint64_t pfn, size_t n, uint64_t *out)
{
	ssize_t got = pread_full(f->kf, out, n * 8, pfn * 8);
	if (got < 0)
		return (int)got;
	memset((char *)out + got, 0, n * 8 - (size_t)got);
	return 0;
}

#define PROBE_MIN_ORDER 4 /* probing pays from 16 pages a folio (one read ~4 frames' cost) */
#define WINDOW 64

/*
 * kpageflags of a run of pages I..J-1 of S whose frames go up by one from
 * PFN, plus the frame after the run into kfa[J-1] (thpmaps' cut-folio test).
 *
 * Reading kpageflags costs ~0.1 us a frame here, a read call ~0.4 us more,
 * so a run of large folios is not read frame by frame. When the run holds
 * folios of 2^k pages (learnt from a window read in full), a folio at head H
 * is proven by two frames: H + 2^(k-1) is a tail and H + 2^k is not. H is a
 * head aligned to 2^(k-1), so a tail at H + 2^(k-1) belongs to H's folio
 * (any other folio holding it would have to start between H and that
 * frame, aligned to its size, and would end at or before it); that folio
 * has a power-of-two size above 2^(k-1), and a non-tail at H + 2^k ends it.
 * The frames in between are its tails: their flags are written from the
 * head's (only HEAD/TAIL differ within a folio among the bits classified).
 * Anything else falls back to reading every frame.
 */
static int fill_run(const struct rfd *f, struct slot *s, size_t i, size_t j, uint64_t pfn,
		    int *order)
{
	uint64_t tmp[WINDOW + 1], fk = 0;
	bool have = false; /* fk holds the flags of frame k */
	size_t k = i;
	while (k < j) {
		size_t left = j - k, n = *order >= PROBE_MIN_ORDER ? (size_t)1 << *order : 0;
		uint64_t p = pfn + (k - i);
		if (n && left >= n && !(p & (n - 1))) {
			int r = have ? 0 : kf_read(f, p, 1, &fk);
			if (r)
				return r;
			have = true;
			uint64_t fm = 0, fe = 0;
			const uint64_t same = KPF_M_THP | KPF_M_ANON | KPF_M_HUGE | KPF_M_ZERO;
			if ((fk & (KPF_M_THP | KPF_M_HEAD | KPF_M_ZERO)) ==
				    (KPF_M_THP | KPF_M_HEAD) &&
			    !(r = kf_read(f, p + n / 2, 1, &fm)) && (fm & KPF_M_TAIL) &&
			    !(fm & KPF_M_HEAD) && (fm & same) == (fk & same) &&
			    !(r = kf_read(f, p + n, 1, &fe)) && !(fe & KPF_M_TAIL)) {
				uint64_t tail = (fk & ~KPF_M_HEAD) | KPF_M_TAIL;
				s->kf[k] = fk;
				for (size_t t = 1; t < n; t++)
					s->kf[k + t] = tail;
				k += n;
				if (k == j)
					s->kfa[j - 1] = fe;
				fk = fe;
				continue;
			}
			if (r)
				return r;
			*order = -1; /* another size: read in full and learn again */
		}
		size_t w = left < WINDOW ? left : WINDOW;
		int r = kf_read(f, p, w + 1, tmp);
		if (r)
			return r;
		memcpy(s->kf + k, tmp, w * sizeof(tmp[0]));
		/* learn the folio size: the distance of the last two heads of the
		 * window, or a window that is one whole folio */
		const uint64_t hd = KPF_M_THP | KPF_M_HEAD;
		size_t last = w, prev = w;
		for (size_t t = w; t-- > 0;)
			if ((tmp[t] & hd) == hd) {
				if (last == w)
					last = t;
				else {
					prev = t;
					break;
				}
			}
		size_t d = prev < w ? last - prev : last == 0 && !(tmp[w] & KPF_M_TAIL) ? w : 0;
		if (d >= ((size_t)1 << PROBE_MIN_ORDER) && !(d & (d - 1)))
			*order = __builtin_ctzll(d);
		k += w;
		fk = tmp[w];
		have = true;
		if (k == j)
			s->kfa[j - 1] = fk;
	}
	return 0;
}

/* kpageflags for every present page of S, by runs of consecutive frames. */
static int fill_flags(struct folio_ctx *c, const struct rfd *f, struct slot *s)
{
	size_t i = 0, n = s->n;
	/* folio size for fill_run: the last one learnt (by any reader), so that a chunk
	 * does not read a whole window of frames to learn it again */
	int order = __atomic_load_n(&c->order_hint, __ATOMIC_RELAXED);
	while (i < n) {
		if (!(s->pm[i] & PM_PRESENT)) {
			i++;
			continue;
		}
		uint64_t pfn = s->pm[i] & PM_PFN_MASK;
		if (!pfn)
			return -EPERM; /* PFNs hidden */
		size_t j = i + 1;
		while (j < n && (s->pm[j] & PM_PRESENT) &&
		       (s->pm[j] & PM_PFN_MASK) == pfn + (j - i))
			j++;
		int r = c->probe ? fill_run(f, s, i, j, pfn, &order) : kf_read_run(f, s, i, j, pfn);
		if (r)
			return r;
		i = j;
	}
	if (c->probe && order >= PROBE_MIN_ORDER)
		__atomic_store_n(&c->order_hint, order, __ATOMIC_RELAXED);
	return 0;
}

void folio_process_slot(struct folio_ctx *c, const struct rfd *f, struct slot *s)
{
	memset(&s->c, 0, sizeof(s->c));
	memset(s->pm, 0, s->n * sizeof(s->pm[0]));
	s->npmd = 0;
	if (c->method == FM_PAGEFLAGS_SCAN)
		s->err = c->pmd_only ? scan_chunk(c, f, s) : pm_first_chunk(c, f, s);
	else
		s->err = pagemap_pread(f->pm, s->vfn0, s->n, s->pm);
	if (!s->err)
		s->err = fill_flags(c, f, s);
	if (!s->err)
		count_nodes(c, s);
}
