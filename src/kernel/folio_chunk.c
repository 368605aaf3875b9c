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

#include "../util/clock.h"
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

/* The THP pages of S that fill_flags classified (PTE-mapped, or all without PAGEMAP_SCAN):
 * frames in one memory block share a node, so a block is looked up once, not each page. */
static void count_nodes(const struct folio_ctx *c, struct slot *s)
{
	if (!c->numa)
		return;
	/* no block size: one run, whose node is unknown */
	uint64_t pages = c->page_bytes ? c->numa->block_bytes / c->page_bytes : 0;
	uint64_t block = UINT64_MAX, run = 0, first = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t kf = s->kf[i], pfn = s->pm[i] & PM_PFN_MASK;
		if (!(s->pm[i] & PM_PRESENT) || !(kf & KPF_M_THP) ||
		    (kf & (KPF_M_HUGE | KPF_M_ZERO)))
			continue;
		if ((pages ? pfn / pages : 0) != block) {
			if (run)
				count_node(c, &s->c, first, run);
			block = pages ? pfn / pages : 0;
			first = pfn;
			run = 0;
		}
		run++;
	}
	if (run)
		count_node(c, &s->c, first, run);
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
	uint64_t v = s->vfn0 + a, step = c->pmd_pages;
	if (!step)
		return 0;
	for (v += (step - v % step) % step; v < s->vfn0 + b && s->npmd < MAX_PMD_PER_CHUNK;
	     v += step)
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
	uint64_t cand[MAX_PMD_PER_CHUNK + 1];
	size_t nc = 0;
	for (uint64_t v = (s->vfn0 + np - 1) / np * np;
	     v + np <= s->vfn0 + s->n && nc < MAX_PMD_PER_CHUNK + 1; v += np) {
		size_t a = (size_t)(v - s->vfn0), k = 1;
		uint64_t e0 = s->pm[a], pfn = e0 & PM_PFN_MASK;
		if (!(e0 & PM_PRESENT) || !pfn || pfn % np)
			continue;
		while (k < np && (s->pm[a + k] & PM_PRESENT) &&
		       (s->pm[a + k] & PM_PFN_MASK) == pfn + k)
			k++;
		if (k == np)
			cand[nc++] = v;
	}
	/* one PAGEMAP_SCAN walk over the candidates (two PMDs a chunk), not one each: a candidate
	 * is PMD-mapped when a huge range covers it whole (adjacent PMD mappings come back as one
	 * range); cat[k] 0: not covered, else the range's categories */
	uint64_t cat[MAX_PMD_PER_CHUNK + 1] = {0};
	uint64_t at = nc ? cand[0] << c->page_shift : 0;
	uint64_t end = nc ? (cand[nc - 1] + np) << c->page_shift : 0;
	while (at < end) {
		struct pm_range rg[SCAN_VEC];
		uint64_t next;
		int nr = pagemap_scan(f->pm, at, end, rg, SCAN_VEC, &next);
		if (nr < 0)
			return nr;
		for (int t = 0; t < nr; t++)
			for (size_t k = 0; k < nc && (rg[t].cat & PAGE_IS_HUGE); k++)
				if (rg[t].start <= cand[k] << c->page_shift &&
				    rg[t].end >= (cand[k] + np) << c->page_shift)
					cat[k] = rg[t].cat;
		if (nr < SCAN_VEC || next <= at)
			break;
		at = next;
	}
	for (size_t k = 0; k < nc; k++) {
		if (!cat[k])
			continue; /* PTE-mapped (or changed meanwhile) */
		size_t a = (size_t)(cand[k] - s->vfn0);
		if (cat[k] & PAGE_IS_PFNZERO)
			s->c.zero_pmd += np;
		else if ((r = huge_block(c, f, s, a, a + np, s->pm[a])))
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

/* Read N kpageflags from PFN into OUT; frames past the end of memory read as 0. */
static int kf_read(const struct rfd *f, uint64_t pfn, size_t n, uint64_t *out)
{
	ssize_t got = pread_full(f->kf, out, n * 8, pfn * 8);
	if (got < 0)
		return (int)got;
	memset((char *)out + got, 0, n * 8 - (size_t)got);
	return 0;
}

#define WINDOW 64

/* The last two folio heads among the N flags KF: *LAST and *PREV (N where there is none). */
static void last_heads(const uint64_t *kf, size_t n, size_t *last, size_t *prev)
{
	const uint64_t hd = KPF_M_THP | KPF_M_HEAD;
	*last = *prev = n;
	for (size_t t = n; t-- > 0;)
		if ((kf[t] & hd) == hd) {
			if (*last == n)
				*last = t;
			else {
				*prev = t;
				break;
			}
		}
}

/*
 * kpageflags of a run of pages I..J-1 of S whose frames go up by one from
 * PFN, plus the frame after the run into kfa[J-1] (thpmaps' cut-folio test),
 * proving its folios instead of reading every frame (c->probe_order).
 *
 * When the run holds
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
		size_t left = j - k, n = *order >= FOLIO_PROBE_MIN_ORDER ? (size_t)1 << *order : 0;
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
		size_t last, prev;
		last_heads(tmp, w, &last, &prev);
		size_t d = prev < w ? last - prev : last == 0 && !(tmp[w] & KPF_M_TAIL) ? w : 0;
		if (d >= ((size_t)1 << FOLIO_PROBE_MIN_ORDER) && !(d & (d - 1)))
			*order = __builtin_ctzll(d);
		k += w;
		fk = tmp[w];
		have = true;
		if (k == j)
			s->kfa[j - 1] = fk;
	}
	return 0;
}

/* A run of pages I..J-1 of a slot whose frames go up by one from PFN. */
struct kf_run {
	size_t i, j;
	uint64_t pfn;
};

static int cmp_run(const void *a, const void *b)
{
	const struct kf_run *x = a, *y = b;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/*
 * kpageflags of the N runs R of S, each with the frame after it (kfa): sorted by frame and read
 * in spans of at most KF_SPAN frames that take in gaps of up to KF_GAP frames. A read call costs
 * ~1.5 us here and a frame ~5 ns more, so ten runs of 64K folios close together in physical
 * memory are one read, not ten (a 4 GiB process: 19 600 reads became ~2 000).
 */
static int fill_spans(const struct rfd *f, struct slot *s, struct kf_run *r, size_t n)
{
	uint64_t span[KF_SPAN];
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_run);
	for (size_t k = 0; k < n;) {
		uint64_t lo = r[k].pfn, hi = r[k].pfn + (r[k].j - r[k].i) + 1;
		size_t m = k + 1;
		for (; m < n; m++) {
			uint64_t end = r[m].pfn + (r[m].j - r[m].i) + 1;
			if (r[m].pfn > hi + KF_GAP || (end > hi ? end : hi) - lo > KF_SPAN)
				break;
			if (end > hi)
				hi = end;
		}
		int e = kf_read(f, lo, (size_t)(hi - lo), span);
		if (e)
			return e;
		for (size_t t = k; t < m; t++) {
			size_t len = r[t].j - r[t].i;
			memcpy(s->kf + r[t].i, span + (r[t].pfn - lo), len * sizeof(span[0]));
			s->kfa[r[t].j - 1] = span[r[t].pfn - lo + len];
		}
		k = m;
	}
	return 0;
}

/* The folio size the N flags KF show (the distance of their last two heads), as an order, or -1. */
static int learn_order(const uint64_t *kf, size_t n)
{
	size_t last, prev;
	last_heads(kf, n, &last, &prev);
	size_t d = prev < n ? last - prev : 0;
	return d && !(d & (d - 1)) ? __builtin_ctzll(d) : -1;
}

#define CAL_FRAMES 1024 /* frames a timed span read takes (8 KiB on the stack) */

int folio_probe_order_for(uint64_t call_ns, uint64_t span_ns, size_t frames)
{
	if (frames < 2 || span_ns <= call_ns)
		return 64; /* frames cost nothing beyond the call: reading them all is never dearer */
	double frame_ns = (double)(span_ns - call_ns) / (double)(frames - 1);
	for (int k = FOLIO_PROBE_MIN_ORDER; k <= 30; k++)
		if (2.0 * (double)call_ns < frame_ns * (double)(1u << k))
			return k;
	return 64;
}

/*
 * The order from which proving a folio from two frames (two one-frame read calls) costs less
 * than reading its 2^order frames within a span, timed through F on frames from PFN on (a
 * frame of the process being read; frames past the end of memory read as 0 and time as
 * nothing, which only makes proving look dear): the least of 5 one-frame reads against the
 * least of 2 reads of CAL_FRAMES frames, each span on frames not read before (the scan reads
 * each frame once, cold). Costs ~0.1-0.4 ms once per scan. Returns the order, 64 where
 * proving never pays, or -1 where a read failed (the caller keeps its order).
 */
static int calibrate_probe(const struct rfd *f, uint64_t pfn)
{
	uint64_t buf[CAL_FRAMES], one = UINT64_MAX, span = UINT64_MAX;
	for (int rep = 0; rep < 2; rep++) {
		uint64_t t0 = mono_ns();
		if (kf_read(f, pfn + (uint64_t)rep * CAL_FRAMES, CAL_FRAMES, buf))
			return -1;
		uint64_t t = mono_ns() - t0;
		span = t < span ? t : span;
	}
	for (int rep = 0; rep < 5; rep++) {
		uint64_t t0 = mono_ns();
		if (kf_read(f, pfn + 2 * CAL_FRAMES + (uint64_t)rep * 64, 1, buf))
			return -1;
		uint64_t t = mono_ns() - t0;
		one = t < one ? t : one;
	}
	return folio_probe_order_for(one, span, CAL_FRAMES);
}

/* The order to prove folios from, timed by the first reader to need it (calibrate_probe). */
static int probe_order(struct folio_ctx *c, const struct rfd *f, uint64_t pfn)
{
	if (!__atomic_load_n(&c->probe_timed, __ATOMIC_ACQUIRE) &&
	    !__atomic_exchange_n(&c->probe_timed, 1, __ATOMIC_ACQ_REL)) {
		int o = calibrate_probe(f, pfn);
		if (o >= 0)
			__atomic_store_n(&c->probe_order, o, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&c->probe_order, __ATOMIC_ACQUIRE);
}

/* kpageflags for every present page of S, by runs of consecutive frames. */
static int fill_flags(struct folio_ctx *c, const struct rfd *f, struct slot *s)
{
	struct kf_run runs[FOLIO_CHUNK];
	size_t i = 0, n = s->n, nr = 0;
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
		/* a run of folios big enough that two frames each cost less than reading all */
		if (order >= c->probe_floor && j - i >= (size_t)1 << order &&
		    order >= probe_order(c, f, pfn)) {
			int r = fill_run(f, s, i, j, pfn, &order);
			if (r)
				return r;
		} else {
			runs[nr++] = (struct kf_run){i, j, pfn};
		}
		i = j;
	}
	int r = fill_spans(f, s, runs, nr);
	if (r)
		return r;
	/* learn the folio size for the next chunk (from the lowest order that could be proven:
	 * whether it is proven is probe_order's to say) */
	for (size_t k = 0; k < nr && order < c->probe_floor && c->probe_floor <= 63; k++) {
		int o = learn_order(s->kf + runs[k].i, runs[k].j - runs[k].i);
		if (o >= c->probe_floor)
			order = o;
	}
	if (order >= c->probe_floor)
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
