// SPDX-License-Identifier: MIT
#include "folio_scan.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "smaps.h"
#include "uapi_compat.h"

#include "folio_int.h"
#include "../util/names.h"

const char *folio_method_name(enum folio_method m)
{
	static const char *const names[] = {[FM_PAGEFLAGS_SCAN] = "pagemap+kpageflags+PAGEMAP_SCAN",
					    [FM_PAGEFLAGS] = "pagemap+kpageflags+smaps",
					    [FM_SMAPS_SCAN] = "smaps+PAGEMAP_SCAN",
					    [FM_SMAPS] = "smaps"};
	return ENUM_NAME(names, m, "?");
}

enum folio_method folio_ctx_method(const struct folio_ctx *c)
{
	return c->method;
}

bool folio_ctx_pfns_hidden(const struct folio_ctx *c)
{
	return c->pfns_hidden;
}

/* ---- threads ---- */

static struct slot *pending_lowest(struct folio_ctx *c)
{
	struct slot *best = NULL;
	for (int i = 0; i < c->nslot; i++)
		if (c->slots[i].st == S_PENDING && (!best || c->slots[i].idx < best->idx))
			best = &c->slots[i];
	return best;
}

static void *worker(void *arg)
{
	struct folio_ctx *c = arg;
	struct rfd own = {sysroot_openat(c->sr, SR_PROC "/kpageflags", O_RDONLY), -1};
	uint64_t gen = 0;
	char rel[sizeof(c->pm_rel)];
	pthread_mutex_lock(&c->mu);
	for (;;) {
		struct slot *s = NULL;
		while (!c->quit && !(s = pending_lowest(c)))
			pthread_cond_wait(&c->cv_work, &c->mu);
		if (c->quit)
			break;
		s->st = S_BUSY;
		uint64_t g = c->job_gen;
		if (g != gen)
			memcpy(rel, c->pm_rel, sizeof(rel));
		struct rfd use = {c->kf_fd, c->pm_fd};
		pthread_mutex_unlock(&c->mu);
		if (g != gen) { /* another process: its own pagemap */
			if (own.pm >= 0)
				close(own.pm);
			own.pm = sysroot_openat(c->sr, rel, O_RDONLY);
			gen = g;
		}
		if (own.kf >= 0)
			use.kf = own.kf;
		if (own.pm >= 0)
			use.pm = own.pm;
		folio_process_slot(c, &use, s);
		pthread_mutex_lock(&c->mu);
		s->st = S_READY;
		pthread_cond_broadcast(&c->cv_done);
	}
	pthread_mutex_unlock(&c->mu);
	if (own.kf >= 0)
		close(own.kf);
	if (own.pm >= 0)
		close(own.pm);
	return NULL;
}

/* ---- one VMA ---- */

struct vma_walk {
	struct folio_walk w;
	struct folio_vma *v;
	folio_pmd_cb pmd_cb;
	void *arg;
	int cb_ret;
};

static void consume(struct folio_ctx *c, struct vma_walk *vw, struct slot *s)
{
	folio_acct_add(&vw->v->c, &s->c);
	folio_walk_feed(&vw->w, s->vfn0, s->n, s->pm, s->kf, s->kfa, &vw->v->c);
	for (int i = 0; i < s->npmd && vw->pmd_cb && !vw->cb_ret; i++)
		vw->cb_ret = vw->pmd_cb(s->pmd_addr[i], vw->arg);
	(void)c;
}

static void slot_setup(struct folio_ctx *c, struct slot *s, uint64_t idx)
{
	uint64_t lo = c->base + idx * FOLIO_CHUNK, hi = lo + FOLIO_CHUNK;
	if (lo < c->vfn_start)
		lo = c->vfn_start;
	if (hi > c->vfn_end)
		hi = c->vfn_end;
	s->idx = idx;
	s->vfn0 = lo;
	s->n = (size_t)(hi - lo);
}

/* Read and classify [START, END) pages of the VMA in V with pagemap fd PM_FD. */
static int read_vma(struct folio_ctx *c, int pm_fd, struct vma_walk *vw)
{
	c->pm_fd = pm_fd;
	const struct rfd mine = {c->kf_fd, pm_fd};
	c->vfn_start = vw->v->start >> c->page_shift;
	c->vfn_end = vw->v->end >> c->page_shift;
	if (c->vfn_end <= c->vfn_start)
		return 0;
	c->base = c->vfn_start & ~(uint64_t)(FOLIO_CHUNK - 1);
	uint64_t nitems = (c->vfn_end - c->base + FOLIO_CHUNK - 1) / FOLIO_CHUNK;
	int err = 0;
	if (nitems == 1 || !c->nworkers) {
		struct slot *s = &c->slots[0];
		for (uint64_t i = 0; i < nitems && !err && !vw->cb_ret; i++) {
			slot_setup(c, s, i);
			folio_process_slot(c, &mine, s);
			if (!(err = s->err))
				consume(c, vw, s);
		}
		return err ? err : vw->cb_ret;
	}
	uint64_t submitted = 0, consumed = 0;
	pthread_mutex_lock(&c->mu);
	while (consumed < submitted || (submitted < nitems && !err && !vw->cb_ret)) {
		while (submitted < nitems && submitted - consumed < (uint64_t)c->nslot && !err &&
		       !vw->cb_ret) {
			struct slot *s = &c->slots[submitted % (uint64_t)c->nslot];
			slot_setup(c, s, submitted++);
			s->st = S_PENDING;
			pthread_cond_broadcast(&c->cv_work);
		}
		struct slot *s = &c->slots[consumed % (uint64_t)c->nslot], *p;
		if (s->st == S_READY) {
			pthread_mutex_unlock(&c->mu);
			if (!err && !vw->cb_ret && !(err = s->err))
				consume(c, vw, s);
			pthread_mutex_lock(&c->mu);
			s->st = S_FREE;
			consumed++;
		} else if ((p = pending_lowest(c))) {
			/* help the readers instead of waiting */
			p->st = S_BUSY;
			pthread_mutex_unlock(&c->mu);
			folio_process_slot(c, &mine, p);
			pthread_mutex_lock(&c->mu);
			p->st = S_READY;
		} else {
			pthread_cond_wait(&c->cv_done, &c->mu);
		}
	}
	pthread_mutex_unlock(&c->mu);
	return err ? err : vw->cb_ret;
}

/* ---- the process ---- */

struct pid_walk {
	struct folio_ctx *c;
	pid_t pid;
	int pm_fd;
	folio_vma_cb vma_cb;
	folio_pmd_cb pmd_cb;
	void *arg;
};

/* PAGEMAP_SCAN of a VMA for the smaps-only methods: the huge zero page and PMD addresses. */
static int smaps_scan_vma(struct pid_walk *pw, struct folio_vma *fv, bool anon_pmd)
{
	struct folio_ctx *c = pw->c;
	struct pm_range v[SCAN_VEC];
	uint64_t start = fv->start, end = fv->end;
	int ret = 0;
	while (start < end && !ret) {
		uint64_t next;
		int k = pagemap_scan(pw->pm_fd, start, end, v, SCAN_VEC, &next);
		if (k < 0)
			return k == -EFAULT || k == -EINVAL ? 0 : k; /* [vsyscall] */
		for (int i = 0; i < k && !ret; i++) {
			uint64_t cat = v[i].cat, a = v[i].start >> c->page_shift,
				 b = v[i].end >> c->page_shift;
			if (!(cat & PAGE_IS_HUGE) || !(cat & PAGE_IS_PRESENT))
				continue;
			if (cat & PAGE_IS_PFNZERO) {
				fv->c.zero_pmd += b - a;
				continue;
			}
			for (uint64_t p = a; p < b && anon_pmd && pw->pmd_cb && !ret; p++)
				if (p % c->pmd_pages == 0)
					ret = pw->pmd_cb(p << c->page_shift, pw->arg);
		}
		if (k < SCAN_VEC || next <= start)
			break;
		start = next;
	}
	return ret;
}

static uint64_t kb_pages(const struct folio_ctx *c, uint64_t kb)
{
	return (kb << 10) >> c->page_shift;
}

static int on_vma(const struct smaps_vma *sv, void *arg)
{
	struct pid_walk *pw = arg;
	struct folio_ctx *c = pw->c;
	struct folio_vma fv;
	memset(&fv, 0, sizeof(fv));
	fv.start = sv->start;
	fv.end = sv->end;
	memcpy(fv.perms, sv->perms, sizeof(fv.perms));
	fv.name = sv->name;
	fv.name_len = sv->name_len;
	const struct smaps_totals *t = &sv->t;
	int r = 0;
	/* 1 << 47 and up: [vsyscall] and the like, not in pagemap */
	bool user = fv.end <= (1ULL << 56);
	if (c->method == FM_SMAPS || c->method == FM_SMAPS_SCAN) {
		uint64_t rss = kb_pages(c, t->kb[SM_RSS]), anon = kb_pages(c, t->kb[SM_ANONYMOUS]);
		fv.c.rss[FT_ANON] = anon;
		fv.c.rss[FT_FILE] = rss > anon ? rss - anon : 0;
		fv.c.pmd[FT_ANON] = kb_pages(c, t->kb[SM_ANON_HUGE]);
		fv.c.pmd[FT_FILE] = kb_pages(c, t->kb[SM_SHMEM_PMD] + t->kb[SM_FILE_PMD]);
		fv.c.swap = kb_pages(c, t->kb[SM_SWAP]);
		fv.c.hugetlb = kb_pages(c, t->kb[SM_SHARED_HUGETLB] + t->kb[SM_PRIVATE_HUGETLB]);
		if (c->method == FM_SMAPS_SCAN && user && !(sv->vmflags & VMF_HT))
			r = smaps_scan_vma(pw, &fv, fv.c.pmd[FT_ANON] > 0);
	} else if (user) {
		struct vma_walk vw = {.v = &fv, .pmd_cb = pw->pmd_cb, .arg = pw->arg};
		folio_walk_init(&vw.w, c->cont_pages);
		r = read_vma(c, pw->pm_fd, &vw);
		folio_walk_end(&vw.w, &fv.c);
		if (c->method == FM_PAGEFLAGS) {
			int po = __builtin_ctzll(c->pmd_pages);
			folio_acct_split_pmd(&fv.c, po, kb_pages(c, t->kb[SM_ANON_HUGE]),
					     kb_pages(c, t->kb[SM_SHMEM_PMD] + t->kb[SM_FILE_PMD]));
		}
		if (r == -EFAULT || r == -EINVAL)
			r = 0; /* outside what pagemap covers */
	}
	if (r)
		return r;
	return pw->vma_cb(&fv, pw->arg);
}

static int feed(void *ctx, const char *text, size_t len)
{
	return smaps_stream_feed(ctx, text, len);
}

int folio_scan_pid(struct folio_ctx *c, pid_t pid, folio_vma_cb vma_cb, folio_pmd_cb pmd_cb,
		   void *arg)
{
	char rel[64];
	struct pid_walk pw = {.c = c, .pid = pid, .vma_cb = vma_cb, .pmd_cb = pmd_cb, .arg = arg};
	bool need_pm = c->method != FM_SMAPS;
	pw.pm_fd = -1;
	if (need_pm) {
		snprintf(rel, sizeof(rel), SR_PROC "/%d/pagemap", (int)pid);
		pw.pm_fd = sysroot_openat(c->sr, rel, O_RDONLY);
		if (pw.pm_fd < 0)
			return pw.pm_fd == -ENOENT ? -ESRCH : pw.pm_fd;
		if (c->nworkers)
			pthread_mutex_lock(&c->mu);
		memcpy(c->pm_rel, rel, sizeof(c->pm_rel));
		c->job_gen++;
		if (c->nworkers)
			pthread_mutex_unlock(&c->mu);
	}
	/* the exact method needs only the VMA list; the others need smaps' sums */
	snprintf(rel, sizeof(rel), SR_PROC "/%d/%s", (int)pid,
		 c->method == FM_PAGEFLAGS_SCAN ? "maps" : "smaps");
	struct smaps_stream *s = malloc(sizeof(*s));
	struct buf b = {0};
	int r = -ENOMEM;
	if (s) {
		smaps_stream_init(s, on_vma, &pw, NULL);
		r = sysroot_read_chunks(c->sr, rel, &b, feed, s);
		if (!r)
			r = smaps_stream_finish(s);
		free(s);
	}
	buf_free(&b);
	if (pw.pm_fd >= 0)
		close(pw.pm_fd);
	if (r == -ENOENT)
		r = -ESRCH;
	/* an exit mid-read shows as a short read (-EIO) or an empty file */
	snprintf(rel, sizeof(rel), SR_PROC "/%d", (int)pid);
	if (r < 0 && r != -EACCES && r != -EPERM && sysroot_exists(c->sr, rel) != 0)
		r = -ESRCH;
	return r;
}

int folio_scan_range(const struct sysroot *sr, pid_t pid, uint64_t addr, uint64_t len,
		     struct folio_acct *out)
{
	char rel[64];
	/* a range (a lab's buffer) is short: not worth timing the proof (calibrate_probe) */
	struct folio_ctx c = {.method = FM_PAGEFLAGS,
			      .sr = sr,
			      .probe_order = FOLIO_PROBE_ORDER,
			      .probe_floor = FOLIO_PROBE_MIN_ORDER,
			      .probe_timed = 1};
	struct folio_vma v = {.start = addr, .end = addr + len};
	struct vma_walk vw = {.v = &v};
	memset(out, 0, sizeof(*out));
	c.page_shift = __builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
	c.pmd_pages = (1ULL << c.page_shift) / 8;
	if (pid)
		snprintf(rel, sizeof(rel), SR_PROC "/%d/pagemap", (int)pid);
	else
		snprintf(rel, sizeof(rel), SR_PROC "/self/pagemap");
	int pm = sysroot_openat(sr, rel, O_RDONLY);
	if (pm < 0)
		return pm;
	c.kf_fd = sysroot_openat(sr, SR_PROC "/kpageflags", O_RDONLY);
	c.slots = calloc(1, sizeof(*c.slots));
	int r = c.kf_fd < 0 ? c.kf_fd : c.slots ? 0 : -ENOMEM;
	if (!r) {
		v.start = addr >> c.page_shift << c.page_shift;
		folio_walk_init(&vw.w, 0);
		r = read_vma(&c, pm, &vw);
		folio_walk_end(&vw.w, &v.c);
		*out = v.c;
	}
	free(c.slots);
	if (c.kf_fd >= 0)
		close(c.kf_fd);
	close(pm);
	return r;
}

/* ---- set-up ---- */

/* Whether this caller sees PFNs: the frame of a page of our own stack. */
static bool pfns_visible(const struct sysroot *sr, long page_size, int shift)
{
	volatile char probe[64];
	probe[0] = 1;
	uint64_t e = 0;
	int fd = sysroot_openat(sr, SR_PROC "/self/pagemap", O_RDONLY);
	if (fd < 0)
		return false;
	int r = pagemap_pread(fd, (uint64_t)(uintptr_t)probe >> shift, 1, &e);
	close(fd);
	(void)page_size;
	return !r && (e & PM_PRESENT) && (e & PM_PFN_MASK);
}

/* The zero page's frame: a read fault on fresh anonymous memory maps it (checked by kpageflags). */
static uint64_t zero_pfn_probe(const struct sysroot *sr, int kf_fd, int shift)
{
	size_t len = (size_t)1 << shift;
	uint64_t e = 0, f = 0;
	char *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	(void)*(volatile char *)p;
	int fd = sysroot_openat(sr, SR_PROC "/self/pagemap", O_RDONLY);
	if (fd >= 0) {
		if (pagemap_pread(fd, (uint64_t)(uintptr_t)p >> shift, 1, &e))
			e = 0;
		close(fd);
	}
	munmap(p, len);
	uint64_t pfn = (e & PM_PRESENT) ? e & PM_PFN_MASK : 0;
	if (!pfn || kpageflags_pread(kf_fd, pfn, 1, &f) ||
	    (f & (KPF_M_ZERO | KPF_M_THP)) != KPF_M_ZERO)
		return 0;
	return pfn;
}

static bool scan_works(const struct sysroot *sr, int shift)
{
	volatile char probe[64];
	probe[0] = 1;
	struct pm_range v[4];
	uint64_t next, a = ((uint64_t)(uintptr_t)probe >> shift) << shift;
	int fd = sysroot_openat(sr, SR_PROC "/self/pagemap", O_RDONLY);
	if (fd < 0)
		return false;
	int k = pagemap_scan(fd, a, a + (1ULL << shift), v, 4, &next);
	close(fd);
	return k >= 0;
}

int folio_ctx_new(const struct sysroot *sr, const struct folio_opts *o, struct folio_ctx **out)
{
	*out = NULL;
	if (!sr->live)
		return -EOPNOTSUPP;
	struct folio_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	long ps = sysconf(_SC_PAGESIZE);
	c->sr = sr;
	c->page_shift = __builtin_ctzl((unsigned long)ps);
	c->cont_pages = o->cont_pages;
	c->probe_order = o->no_probe	? 64
			 : o->probe_all ? FOLIO_PROBE_MIN_ORDER
					: FOLIO_PROBE_ORDER;
	c->probe_floor = o->no_probe ? 64 : FOLIO_PROBE_MIN_ORDER;
	c->probe_timed = o->no_probe || o->probe_all; /* the environment decided: nothing to time */
	c->pmd_only = o->pmd_only;
	c->numa = o->numa;
	c->page_bytes = (uint64_t)ps;
	c->pmd_pages = (uint64_t)ps / 8; /* a page table page holds page_size / 8 entries */
	c->kf_fd = -1;
	bool scan = !o->no_scan && scan_works(sr, c->page_shift);
	c->kf_fd = sysroot_openat(sr, SR_PROC "/kpageflags", O_RDONLY);
	c->pfns_hidden = c->kf_fd < 0 || !pfns_visible(sr, ps, c->page_shift);
	if (c->pfns_hidden)
		c->method = scan ? FM_SMAPS_SCAN : FM_SMAPS;
	else
		c->method = scan ? FM_PAGEFLAGS_SCAN : FM_PAGEFLAGS;
	if (c->method == FM_PAGEFLAGS_SCAN)
		c->zero_pfn = zero_pfn_probe(sr, c->kf_fd, c->page_shift);
	int want = o->threads;
	if (want <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		want = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
	}
	if (want > MAX_THREADS)
		want = MAX_THREADS;
	/* four work items in flight per reader: enough to keep them busy; each slot is 24 KiB
	 * that is touched (~6 page faults, ~25 us each on this guest) */
	c->nslot = 4 * want < NSLOT ? 4 * want : NSLOT;
	c->slots = calloc((size_t)c->nslot, sizeof(*c->slots));
	if (!c->slots) {
		folio_ctx_free(c);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv_work, NULL);
	pthread_cond_init(&c->cv_done, NULL);
	if (!folio_method_partial(c->method)) {
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 256 << 10);
		for (int i = 0; i < want - 1; i++)
			if (pthread_create(&c->th[c->nworkers], &at, worker, c) == 0)
				c->nworkers++;
		pthread_attr_destroy(&at);
	}
	*out = c;
	return 0;
}

void folio_ctx_free(struct folio_ctx *c)
{
	if (!c)
		return;
	if (c->slots) {
		pthread_mutex_lock(&c->mu);
		c->quit = true;
		pthread_cond_broadcast(&c->cv_work);
		pthread_mutex_unlock(&c->mu);
		for (int i = 0; i < c->nworkers; i++)
			pthread_join(c->th[i], NULL);
		pthread_mutex_destroy(&c->mu);
		pthread_cond_destroy(&c->cv_work);
		pthread_cond_destroy(&c->cv_done);
	}
	if (c->kf_fd >= 0)
		close(c->kf_fd);
	free(c->slots);
	free(c);
}
