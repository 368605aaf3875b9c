// SPDX-License-Identifier: MIT
#include "ledger.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/fileio.h"
#include "pagemap.h"
#include "parse.h"
#include "smaps.h"
#include "underused.h"

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

unsigned ledger_sample_pos(uint64_t addr, int i, int k, unsigned nsub)
{
	unsigned stride = nsub / (unsigned)k;
	if (!stride)
		stride = 1;
	return (unsigned)i * stride + (unsigned)(mix64(addr ^ (uint64_t)i) % stride);
}

uint64_t ledger_creep_pages(uint64_t r, unsigned nsub, long max_ptes_none)
{
	if (max_ptes_none < 0 || r == 0 || r >= nsub)
		return 0;
	if (nsub - r > (uint64_t)max_ptes_none)
		return 0;
	return nsub - r;
}

struct ledger_folio ledger_folio_of(const uint64_t *kf, unsigned nsub, uint64_t base, uint64_t pfn)
{
	struct ledger_folio f = {0};
	if (pfn < base || pfn - base >= nsub)
		return f;
	unsigned i = (unsigned)(pfn - base);
	uint64_t want = KPF_M_THP | KPF_M_ANON;
	if ((kf[i] & want) != want || (kf[i] & (KPF_M_ZERO | KPF_M_HUGE)))
		return f;
	/* folios are naturally aligned: a folio up to PMD order has its head in this block */
	while (!(kf[i] & KPF_M_HEAD)) {
		if (!(kf[i] & KPF_M_TAIL) || i == 0)
			return f;
		i--;
	}
	unsigned j = i + 1;
	while (j < nsub && (kf[j] & KPF_M_TAIL) && !(kf[j] & KPF_M_HEAD))
		j++;
	f.head = base + i;
	f.pages = j - i;
	return f;
}

/* Pages of a whole folio of PAGES pages into WHOLE, by order. */
static void whole_add(uint64_t *whole, uint64_t pages)
{
	int order = 63 - __builtin_clzll(pages);
	whole[order < LEDGER_ORDERS ? order : LEDGER_ORDERS - 1] += pages;
}

int ledger_folios_add(struct ledger_folios *s, struct ledger_folio f, uint64_t mapped)
{
	if (s->n && s->v[s->n - 1].head == f.head) {
		s->v[s->n - 1].mapped += mapped;
		return 0;
	}
	if (s->n && s->v[s->n - 1].mapped >= s->v[s->n - 1].pages)
		whole_add(s->whole, s->v[--s->n].pages); /* the last one was seen whole */
	if (array_reserve(&s->v, &s->cap, s->n + 1, sizeof(*s->v), 64))
		return -ENOMEM;
	s->v[s->n++] = (struct ledger_folio_use){f.head, f.pages, mapped};
	return 0;
}

static int cmp_head(const void *a, const void *b)
{
	const struct ledger_folio_use *x = a, *y = b;
	return x->head < y->head ? -1 : x->head > y->head;
}

void ledger_folios_finish(struct ledger_folios *s, unsigned nsub, struct ledger_raw *raw)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_head);
	for (size_t i = 0; i < s->n;) {
		uint64_t mapped = 0;
		size_t j = i;
		for (; j < s->n && s->v[j].head == s->v[i].head; j++)
			mapped += s->v[j].mapped;
		uint64_t pages = s->v[i].pages;
		if (mapped < pages) {
			raw->partial_folios++;
			raw->partial_mapped += mapped;
			raw->held_pages += pages - mapped;
		} else {
			whole_add(s->whole, pages);
		}
		i = j;
	}
	/* whole folios below PMD size are mTHP; a whole PMD-size one PTE-mapped is not counted */
	for (int o = 0; o < LEDGER_ORDERS; o++)
		if (nsub && (1ull << o) < nsub)
			raw->mthp_pages[o] += s->whole[o];
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool anon_name(const char *name, size_t len)
{
	if (!len)
		return true;
	if (name[0] != '[')
		return false; /* a path: page cache, shmem, /dev/zero shared */
	static const char *const special[] = {"[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]",
					      "[uprobes]"};
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (len == strlen(special[i]) && !memcmp(name, special[i], len))
			return false;
	return true; /* [heap], [stack], [anon:NAME] */
}

_Static_assert(sizeof(struct ledger_vma) == 16, "a listed VMA is 16 bytes");

void ledger_vmas_add(struct ledger_vmas *lv, const struct smaps_vma *v, const char *policy)
{
	bool always = policy && !strcmp(policy, "always");
	bool never = policy && !strcmp(policy, "never");
	if ((v->vmflags & VMF_HT) || !anon_name(v->name, v->name_len) || v->end <= v->start ||
	    v->end >> 63)
		return;
	bool hg = v->has_vmflags && (v->vmflags & VMF_HG);
	bool nh = v->has_vmflags && (v->vmflags & VMF_NH);
	if (array_reserve(&lv->v, &lv->cap, lv->n + 1, sizeof(*lv->v), 32)) {
		lv->err = -ENOMEM;
		return;
	}
	lv->v[lv->n++] = (struct ledger_vma){
		.start = v->start,
		.nh = nh,
		.end = v->end,
		.creep = !never && (hg || (always && !nh && v->thp_eligible == 1)),
	};
}

void ledger_vmas_free(struct ledger_vmas *lv)
{
	free(lv->v);
	memset(lv, 0, sizeof(*lv));
}

int ledger_host_no_held(const struct sysroot *sr, unsigned pmd_kb)
{
	DIR *d = sysroot_opendir(sr, SR_THP);
	if (!d)
		return -ENOENT;
	struct dirent *de;
	struct buf b = {0};
	int ret = 1, sizes = 0;
	while (ret >= 0 && (de = readdir(d))) {
		unsigned long long kb;
		char tail[4];
		if (sscanf(de->d_name, "hugepages-%llukB%3s", &kb, tail) != 1 || !kb)
			continue;
		/* every size's partially mapped count; nr_anon of the sizes below PMD (mTHP) */
		for (int i = 0; i < (kb < pmd_kb ? 2 : 1) && ret >= 0; i++) {
			uint64_t v;
			int e = sysroot_readf(sr, &b, SR_THP "/%s/stats/%s", de->d_name,
					      i ? "nr_anon" : "nr_anon_partially_mapped");
			if (e == -ENOENT && !i &&
			    sysroot_readf(sr, &b, SR_THP "/%s/enabled", de->d_name) == -ENOENT)
				break; /* a size for files only (no anon policy: 8kB on 6.18) */
			sizes += !i;
			if (e)
				ret = e; /* -ENOENT: before 6.12, the walk decides */
			else if (parse_u64_text(b.p, b.len, &v))
				ret = -EINVAL;
			else if (v)
				ret = 0;
		}
	}
	closedir(d);
	buf_free(&b);
	return ret < 0 ? ret : !sizes ? -ENOENT : ret;
}

long long ledger_host_partial(const struct sysroot *sr)
{
	DIR *d = sysroot_opendir(sr, SR_THP);
	if (!d)
		return -1;
	struct dirent *de;
	struct buf b = {0};
	long long sum = 0;
	int found = 0, bad = 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		char rel[192];
		uint64_t v;
		snprintf(rel, sizeof(rel), SR_THP "/%s/stats/nr_anon_partially_mapped", de->d_name);
		int e = sysroot_read(sr, rel, &b);
		if (e == -ENOENT)
			continue;
		if (e || parse_u64_text(b.p, b.len, &v) || v > (1ull << 40)) {
			bad = 1;
			continue;
		}
		found = 1;
		sum += (long long)v;
	}
	closedir(d);
	buf_free(&b);
	return found && !bad ? sum : -1;
}

/* ---- the scan ---- */

#define LG_RANGES 1024
#define LG_PM 512	  /* pagemap entries per read */
#define LG_GAP (2u << 20) /* bytes between two VMAs one PAGEMAP_SCAN may walk across */

struct lg {
	const struct ledger_opts *o;
	struct ledger_raw *raw;
	int pm_fd, mem_fd, kf_fd;
	unsigned nsub;
	uint64_t pmd_bytes;
	double deadline; /* mono_ms; 0 none */
	void *page;	 /* one page, for samples */
	struct pm_range rg[LG_RANGES];
	uint64_t pm[LG_PM];	  /* pagemap entries of [pm_base, pm_base + pm_n) */
	uint64_t pm_base, pm_lim; /* vfns; a read stops at pm_lim (the batch's end) */
	size_t pm_n;
	uint64_t kf[1u << 12]; /* one PMD block of kpageflags (nsub <= 4096) */
	uint64_t kf_base;
	bool kf_valid;
	struct ledger_folios folios;
	/* creep: the PMD range being counted */
	uint64_t blk;	/* its first byte */
	uint64_t blk_r; /* resident pages seen in it */
	bool blk_open;
	bool blk_huge; /* a PMD mapping covers it */
};

static bool over_budget(const struct lg *g)
{
	return g->deadline > 0 && mono_ms() > g->deadline;
}

/* Sample K subpages of the PMD THP at ADDR. */
static void sample_thp(struct lg *g, uint64_t addr)
{
	struct ledger_raw *r = g->raw;
	r->thps++;
	if (g->o->k <= 0 || g->mem_fd < 0 || r->mem_err || over_budget(g))
		return;
	uint64_t zero = 0;
	for (int i = 0; i < g->o->k; i++) {
		uint64_t off = (uint64_t)ledger_sample_pos(addr, i, g->o->k, g->nsub) * g->o->page;
		int e = pread_exact(g->mem_fd, g->page, g->o->page, addr + off);
		if (e == -EIO || e == -EFAULT)
			return; /* unmapped meanwhile: not counted */
		if (e) {
			r->mem_err = e;
			return;
		}
		zero += zero_subpages(g->page, g->o->page, g->o->page);
	}
	r->thps_sampled++;
	r->samples += (uint64_t)g->o->k;
	r->zero_samples += zero;
}

static void creep_close(struct lg *g, const struct ledger_vma *v)
{
	if (!g->blk_open)
		return;
	g->blk_open = false;
	if (g->blk < v->start || g->blk + g->pmd_bytes > v->end)
		return;
	if (g->blk_r == g->nsub && !g->blk_huge && !v->nh) /* nh: never huge, no gain */
		g->raw->pte_full_ranges++;
	if (!v->creep)
		return;
	uint64_t add = ledger_creep_pages(g->blk_r, g->nsub, g->o->max_ptes_none);
	long eighth = (long)(g->nsub / 8), mpn = g->o->max_ptes_none;
	g->raw->creep_pages_eighth +=
		ledger_creep_pages(g->blk_r, g->nsub, mpn < eighth ? mpn : eighth);
	if (add) {
		g->raw->creep_ranges++;
		g->raw->creep_pages += add;
		g->raw->creep_resident += g->blk_r;
	}
}

/* Resident pages [ADDR, END) (all within the VMA), PMD-mapped when HUGE. */
static void creep_add(struct lg *g, const struct ledger_vma *v, uint64_t addr, uint64_t end,
		      bool huge)
{
	while (addr < end) {
		uint64_t blk = addr & ~(g->pmd_bytes - 1);
		if (!g->blk_open || blk != g->blk) {
			creep_close(g, v);
			g->blk_open = true;
			g->blk = blk;
			g->blk_r = 0;
			g->blk_huge = false;
		}
		uint64_t stop = blk + g->pmd_bytes < end ? blk + g->pmd_bytes : end;
		g->blk_r += (stop - addr) / g->o->page;
		g->blk_huge |= huge;
		addr = stop;
	}
}

/* The folio of PFN: from the cached kpageflags block, read when needed. */
static int folio_at(struct lg *g, uint64_t pfn, struct ledger_folio *f)
{
	uint64_t base = pfn & ~((uint64_t)g->nsub - 1);
	if (!g->kf_valid || base != g->kf_base) {
		/* one frame first (8 bytes): most pages are small, their block is not needed */
		uint64_t one, want = KPF_M_THP | KPF_M_ANON;
		int e = kpageflags_pread(g->kf_fd, pfn, 1, &one);
		if (e)
			return e;
		if ((one & want) != want || (one & (KPF_M_ZERO | KPF_M_HUGE))) {
			f->head = f->pages = 0;
			return 0;
		}
		e = kpageflags_pread(g->kf_fd, base, g->nsub, g->kf);
		if (e)
			return e;
		g->kf_base = base;
		g->kf_valid = true;
	}
	*f = ledger_folio_of(g->kf, g->nsub, base, pfn);
	return 0;
}

/* The pagemap entries from VFN (below pm_lim) into g->pm, unless already there.
 * Returns how many are there from VFN, or -errno. */
static long pm_window(struct lg *g, uint64_t vfn)
{
	if (vfn < g->pm_base || vfn >= g->pm_base + g->pm_n) {
		size_t n = g->pm_lim - vfn < LG_PM ? (size_t)(g->pm_lim - vfn) : LG_PM;
		g->pm_n = 0;
		int e = pagemap_pread(g->pm_fd, vfn, n, g->pm);
		if (e)
			return e;
		g->pm_base = vfn;
		g->pm_n = n;
	}
	return (long)(g->pm_base + g->pm_n - vfn);
}

/* Held: the PTE-mapped present pages of [ADDR, END) of an anonymous VMA. */
static int held_range(struct lg *g, uint64_t addr, uint64_t end)
{
	struct ledger_raw *r = g->raw;
	uint64_t vfn = addr / g->o->page, vend = end / g->o->page;
	while (vfn < vend) {
		if (over_budget(g)) {
			r->held_cut = true;
			return 1;
		}
		long have = pm_window(g, vfn);
		if (have < 0)
			return (int)have;
		size_t n = vend - vfn < (uint64_t)have ? (size_t)(vend - vfn) : (size_t)have;
		const uint64_t *pm = g->pm + (vfn - g->pm_base);
		for (size_t i = 0; i < n;) {
			uint64_t pfn = pm[i] & PM_PFN_MASK;
			if (!(pm[i] & PM_PRESENT) || (pm[i] & PM_FILE)) {
				i++;
				continue;
			}
			if (!pfn)
				return -EPERM; /* PFNs hidden: not CAP_SYS_ADMIN */
			struct ledger_folio f;
			int e = folio_at(g, pfn, &f);
			if (e)
				return e;
			/* this page and those after it in the same folio, frame by frame */
			size_t j = i + 1;
			while (f.pages && j < n && (pm[j] & PM_PRESENT) &&
			       (pm[j] & PM_PFN_MASK) == pfn + (j - i) &&
			       pfn + (j - i) < f.head + f.pages)
				j++;
			if (f.pages && (e = ledger_folios_add(&g->folios, f, j - i)))
				return e;
			i = j;
		}
		vfn += n;
	}
	return 0;
}

/* The present pages [A, B) of the VMA V, PMD-mapped when HUGE. */
static void vma_range(struct lg *g, const struct ledger_vma *v, uint64_t a, uint64_t b, bool huge)
{
	creep_add(g, v, a, b, huge);
	if (huge) {
		for (uint64_t x = a; x + g->pmd_bytes <= b; x += g->pmd_bytes)
			sample_thp(g, x);
	} else if (g->kf_fd >= 0 && !g->raw->held_err && !g->raw->held_cut) {
		int e = held_range(g, a, b);
		if (e < 0)
			g->raw->held_err = e;
	}
}

/* The ranges RG[0..N) of a walk, cut at the VMAs V[*J..NV) they fall in; a VMA
 * the walk has passed is closed. Ranges between the VMAs are not theirs. */
static void walk_ranges(struct lg *g, const struct ledger_vma *v, size_t nv, size_t *j, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t s = g->rg[i].start, e = g->rg[i].end, c = g->rg[i].cat;
		if (!(c & PAGE_IS_PRESENT) || (c & PAGE_IS_PFNZERO))
			continue;
		while (s < e && *j < nv) {
			const struct ledger_vma *x = &v[*j];
			if (x->end <= s) {
				creep_close(g, x);
				(*j)++;
				continue;
			}
			if (x->start >= e)
				break;
			uint64_t b = e < x->end ? e : x->end;
			vma_range(g, x, s > x->start ? s : x->start, b, (c & PAGE_IS_HUGE) != 0);
			s = b;
		}
	}
}

/* How many of V[0..N) one walk takes: each after the one before, at most LG_GAP on. */
static size_t batch_len(const struct ledger_vma *v, size_t n)
{
	size_t k = 1;
	while (k < n && v[k].start >= v[k - 1].end && v[k].start - v[k - 1].end <= LG_GAP)
		k++;
	return k;
}

/* VMAs V[0..NV), near each other in address order: one PAGEMAP_SCAN walk of them all
 * (not one a VMA: 10 000 small VMAs took 10 000 calls). Returns 0, or -errno. */
static int scan_batch(struct lg *g, const struct ledger_vma *v, size_t nv)
{
	uint64_t at = v[0].start, end = v[nv - 1].end;
	size_t j = 0;
	g->blk_open = false;
	g->pm_n = 0;
	g->pm_lim = end / g->o->page;
	while (at < end) {
		uint64_t next;
		int n = pagemap_scan(g->pm_fd, at, end, g->rg, LG_RANGES, &next);
		if (n < 0)
			return n;
		walk_ranges(g, v, nv, &j, n);
		if (n < LG_RANGES || next <= at)
			break; /* the walk reached the end (or would not move on) */
		at = next;
	}
	for (; j < nv; j++)
		creep_close(g, &v[j]);
	return 0;
}

int ledger_scan(const struct sysroot *sr, pid_t pid, const struct ledger_vma *v, size_t n,
		const struct ledger_opts *o, struct ledger_raw *raw)
{
	memset(raw, 0, sizeof(*raw));
	double t0 = mono_ms();
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/pagemap", (int)pid);
	struct lg *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->o = o;
	g->raw = raw;
	g->nsub = 1u << o->pmd_order;
	g->pmd_bytes = (uint64_t)o->page << o->pmd_order;
	g->deadline = o->budget_ms > 0 ? t0 + o->budget_ms : 0;
	g->mem_fd = g->kf_fd = -1;
	int ret = 0;
	if (g->nsub > (1u << 12) || !o->page) {
		ret = raw->scan_err = -EINVAL;
		goto out;
	}
	g->pm_fd = sysroot_openat(sr, rel, O_RDONLY);
	if (g->pm_fd < 0) {
		ret = raw->scan_err = g->pm_fd == -ENOENT ? -ESRCH : g->pm_fd;
		goto out;
	}
	if (o->k > 0) {
		g->mem_fd = memfile_open(sr, pid);
		if (g->mem_fd < 0)
			raw->mem_err = g->mem_fd;
		else if (!(g->page = malloc(o->page)))
			raw->mem_err = -ENOMEM;
	}
	if (o->held) {
		g->kf_fd = sysroot_openat(sr, SR_PROC "/kpageflags", O_RDONLY);
		if (g->kf_fd < 0)
			raw->held_err = g->kf_fd == -EACCES ? -EPERM : g->kf_fd;
	} else {
		raw->held_err = -EPERM;
	}
	/* without the held walk only whole PMD blocks count (a THP, creep, a PTE-full range):
	 * a VMA without one adds nothing (10 000 one-page VMAs: no walk at all) */
	struct ledger_vma *own = NULL;
	if (g->kf_fd < 0 && n) {
		if (!(own = malloc(n * sizeof(*own)))) {
			ret = raw->scan_err = -ENOMEM;
			n = 0;
		}
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t first = (v[i].start + g->pmd_bytes - 1) & ~(g->pmd_bytes - 1);
			if (first >= v[i].start && first + g->pmd_bytes <= v[i].end)
				own[m++] = v[i];
		}
		v = own;
		n = m;
	}
	for (size_t i = 0, k; i < n && !ret; i += k) {
		k = batch_len(v + i, n - i);
		int e = scan_batch(g, v + i, k);
		if (e == -ENOENT || e == -ESRCH)
			ret = -ESRCH;
		else if (e < 0)
			raw->scan_err = e;
		if (raw->scan_err)
			break;
	}
	free(own);
	ledger_folios_finish(&g->folios, g->nsub, raw);
	close(g->pm_fd);
out:
	if (g->mem_fd >= 0)
		close(g->mem_fd);
	if (g->kf_fd >= 0)
		close(g->kf_fd);
	free(g->page);
	free(g);
	raw->elapsed_ms = mono_ms() - t0;
	return ret;
}
