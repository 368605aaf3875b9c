// SPDX-License-Identifier: MIT
/* The fragmenter (see fragment.h). */
#include "fragment.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../kernel/cgroup.h"
#include "../kernel/kv.h"
#include "../kernel/parse.h"
#include "../kernel/procmem.h"
#include "../kernel/sysctl.h"
#include "../kernel/sysfs.h"
#include "../kernel/thp_settings.h"
#include "../kernel/uapi_compat.h"
#include "../util/fileio.h"
#include "common.h"
#include "guard.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)
#define SINK_EXTRA 64  /* chunks faulted after buddyinfo shows none: drains the per-cpu lists */
#define FALLBACK_RUN 8 /* fallbacks in a row that mean "no PMD-order block left" */
#define AVAIL_EVERY 64 /* chunks between MemAvailable checks */
#define PUNCH_IOV 512

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

/* MemAvailable, MemTotal and MemFree in kB (0 when unreadable). */
static void meminfo_kb(const struct sysroot *sr, uint64_t *avail, uint64_t *total,
		       uint64_t *free_kb)
{
	struct kvlist mi = {0};
	*avail = *total = 0;
	if (free_kb)
		*free_kb = 0;
	if (meminfo_read(sr, &mi) == 0) {
		kv_get(&mi, "MemAvailable", avail);
		kv_get(&mi, "MemTotal", total);
		if (free_kb)
			kv_get(&mi, "MemFree", free_kb);
	}
	kvlist_free(&mi);
}

static uint64_t mem_available(const struct sysroot *sr)
{
	uint64_t a, t;
	meminfo_kb(sr, &a, &t, NULL);
	return a * 1024;
}

/* Free blocks of PMD order or more into *N (buddyinfo). 0 or -errno. */
static int pmd_blocks_read(const struct lab_ctx *ctx, uint64_t *n)
{
	int order = 0;
	while (((uint64_t)ctx->page_size << order) < ctx->pmd_size)
		order++;
	*n = 0;
	return free_blocks_at_least(ctx->sr, order, n);
}

uint64_t frag_free_pmd_blocks(const struct lab_ctx *ctx)
{
	uint64_t n;
	return pmd_blocks_read(ctx, &n) ? 0 : n;
}

int hp_probe_open(const struct lab_ctx *ctx, struct hp_probe *p)
{
	p->page_size = ctx->page_size;
	p->pmd_pages = ctx->pmd_size / (uint64_t)ctx->page_size;
	p->pm = procmem_pagemap_open(ctx->sr, 0);
	p->kpf = procmem_kpageflags_open(ctx->sr);
	if (p->pm < 0 || p->kpf < 0) {
		int e = p->pm < 0 ? p->pm : p->kpf;
		hp_probe_close(p);
		return e;
	}
	return 0;
}

void hp_probe_close(struct hp_probe *p)
{
	if (p->pm >= 0)
		close(p->pm);
	if (p->kpf >= 0)
		close(p->kpf);
	p->pm = p->kpf = -1;
}

static int pread8(int fd, uint64_t *v, uint64_t index)
{
	return pread_exact(fd, v, sizeof(*v), index * sizeof(*v));
}

int hp_probe_huge(const struct hp_probe *p, const void *addr)
{
	uint64_t vpn = (uintptr_t)addr / (uint64_t)p->page_size, first, last, flags;
	int r;
	if ((r = pread8(p->pm, &first, vpn)) || (r = pread8(p->pm, &last, vpn + p->pmd_pages - 1)))
		return r;
	if (!(first & PM_PRESENT) || !(last & PM_PRESENT))
		return 0;
	uint64_t pfn = first & PM_PFN_MASK;
	if (!pfn)
		return -EPERM; /* PFNs hidden: not root */
	if ((last & PM_PFN_MASK) != pfn + p->pmd_pages - 1 || pfn % p->pmd_pages)
		return 0;
	if ((r = pread8(p->kpf, &flags, pfn)))
		return r;
	return (flags & (1ull << KPF_THP_BIT)) && (flags & (1ull << KPF_COMPOUND_HEAD_BIT));
}

static void phase(struct frag *f, const char *name, double ms)
{
	if (f->nphases == FRAG_MAX_PHASES)
		return;
	struct frag_phase *ph = &f->phases[f->nphases++];
	uint64_t a, t;
	snprintf(ph->name, sizeof(ph->name), "%s", name);
	ph->free_pmd_blocks = frag_free_pmd_blocks(f->ctx);
	meminfo_kb(f->ctx->sr, &a, &t, &ph->mem_free_kb);
	ph->held = f->held;
	ph->ms = ms;
	f->blocks_last = ph->free_pmd_blocks;
}

static double ms_since(uint64_t t0)
{
	return (double)(mono_ns() - t0) / 1e6;
}

/* MADV_DONTNEED every odd base page of the PMD-size chunk C. */
static void punch(struct frag *f, char *c)
{
	size_t page = (size_t)f->ctx->page_size, n = f->ctx->pmd_size / page;
	struct iovec iov[PUNCH_IOV];
	for (size_t k = 1; k < n;) {
		int m = 0;
		for (; k < n && m < PUNCH_IOV; k += 2, m++) {
			iov[m].iov_base = c + k * page;
			iov[m].iov_len = page;
		}
		/* one call per 512 pages where the kernel allows any advice on itself (6.13+) */
		if (f->pidfd >= 0) {
			long r = syscall(__NR_process_madvise, f->pidfd, iov, (size_t)m,
					 MADV_DONTNEED, 0);
			if (r == (long)((size_t)m * page))
				continue;
			if (r < 0) {
				close(f->pidfd);
				f->pidfd = -1;
			}
		}
		for (int i = 0; i < m; i++)
			madvise(iov[i].iov_base, page, MADV_DONTNEED);
	}
}

/* Write every base page of C from FIRST with stride STEP pages (non-zero: a split must keep it). */
static void write_pages(const struct frag *f, char *c, size_t first, size_t step)
{
	size_t page = (size_t)f->ctx->page_size, n = f->ctx->pmd_size / page;
	for (size_t k = first; k < n; k += step)
		((volatile char *)c)[k * page] = 1;
}

static int set_defrag(const struct frag *f, bool never)
{
	char rel[PATH_MAX];
	if (!f->defrag[0])
		return 0;
	int r = thp_knob_rel(rel, sizeof(rel), "defrag");
	return r ? r : guard_write(rel, never ? "never" : f->defrag);
}

/*
 * Fault the PMD-size chunk C and probe it: a THP is written from page FIRST
 * on, every FIRST-th page (write_pages), and counted in *HUGE, with
 * *FALLBACKS back to 0; a fallback is counted in *SMALL and *FALLBACKS. What
 * is resident goes into f->held. Returns whether C got a THP.
 */
static bool fault_chunk(struct frag *f, const struct hp_probe *hp, char *c, size_t first,
			uint64_t *huge, uint64_t *small, int *fallbacks)
{
	((volatile char *)c)[0] = 1;
	if (hp_probe_huge(hp, c) == 1) {
		write_pages(f, c, first, first);
		++*huge;
		f->held += f->ctx->pmd_size;
		*fallbacks = 0;
		return true;
	}
	++*small;
	f->held += (uint64_t)f->ctx->page_size;
	++*fallbacks;
	return false;
}

/* Fault and fragment one piece of NCH chunks at P. Returns true when memory ran out of PMD-order blocks. */
static bool fill_piece(struct frag *f, const struct hp_probe *hp, char *p, size_t nch, size_t *done)
{
	uint64_t pmd = f->ctx->pmd_size;
	bool huge[512] = {false};
	int fallbacks = 0;
	bool out = false;
	size_t i;
	madvise(p, nch * pmd, MADV_HUGEPAGE);
	for (i = 0; i < nch; i++) {
		if (i && i % AVAIL_EVERY == 0 && mem_available(f->ctx->sr) < f->margin) {
			lab_fmt(f->stop, sizeof(f->stop), "MemAvailable fell to the margin");
			out = true;
			break;
		}
		/* the pages kept: every other one */
		huge[i] = fault_chunk(f, hp, p + i * pmd, 2, &f->fill_huge, &f->fill_small,
				      &fallbacks);
		if (!huge[i] && fallbacks == FALLBACK_RUN) {
			lab_fmt(f->stop, sizeof(f->stop),
				"no free PMD-order block left (%d faults in a row fell back)",
				FALLBACK_RUN);
			out = true;
			i++;
			break;
		}
	}
	*done = i;
	if (f->held > f->peak)
		f->peak = f->held;
	/* khugepaged must not collapse the holes again */
	madvise(p, i * pmd, MADV_NOHUGEPAGE);
	for (size_t k = 0; k < i; k++)
		if (huge[k]) {
			punch(f, p + k * pmd);
			f->held -= pmd / 2;
		}
	/* split the partially mapped THPs now: the punched halves go back as order-0 pages */
	madvise(p, i * pmd, MADV_COLD);
	return out;
}

/* What the fragmenter may hold (F->budget, F->margin, F->cg_headroom). -ENOMEM: too little. */
static int frag_budget(const struct lab_ctx *ctx, uint64_t reserve, struct frag *f)
{
	uint64_t avail_kb, total_kb, pmd = ctx->pmd_size;
	meminfo_kb(ctx->sr, &avail_kb, &total_kb, NULL);
	uint64_t avail = avail_kb * 1024, total = total_kb * 1024;
	f->margin = total / 8 > 2 * GIB ? total / 8 : 2 * GIB;
	f->budget = avail > f->margin + reserve ? avail - f->margin - reserve : 0;
	uint64_t limit;
	f->cg_headroom = cgroup_self_headroom(ctx->sr, &limit);
	if (f->cg_headroom) {
		uint64_t cm = limit / 8 > 256 * MIB ? limit / 8 : 256 * MIB;
		uint64_t cb = f->cg_headroom > cm + reserve ? f->cg_headroom - cm - reserve : 0;
		if (cb < f->budget)
			f->budget = cb;
	}
	f->budget = f->budget / pmd * pmd;
	if (f->budget < 8 * pmd || f->budget < 256 * MIB) {
		char m[32];
		lab_fmt_size(m, sizeof(m), f->margin);
		lab_fmt(f->stop, sizeof(f->stop),
			"the host cannot spare the memory (MemAvailable minus a %s margin%s)", m,
			f->cg_headroom ? ", cgroup limit" : "");
		return -ENOMEM;
	}
	return 0;
}

/* Fill and punch piece by piece until the budget, the margin or the memory runs out. */
static void frag_fill(struct frag *f, const struct hp_probe *hp)
{
	const struct lab_ctx *ctx = f->ctx;
	size_t pmd = ctx->pmd_size;
	size_t piece = GIB / pmd ? GIB / pmd : 1;
	if (piece > 512)
		piece = 512;
	char sz[32], held[32];
	for (;;) {
		size_t nch = (f->fill.len - f->fill_used) / pmd;
		if (nch > piece)
			nch = piece;
		if (!nch || f->held + nch * pmd > f->budget) {
			lab_fmt(f->stop, sizeof(f->stop), "the budget was reached");
			break;
		}
		if (mem_available(ctx->sr) < f->margin + nch * pmd) {
			lab_fmt(f->stop, sizeof(f->stop), "MemAvailable fell to the margin");
			break;
		}
		size_t done;
		bool out = fill_piece(f, hp, f->fill.p + f->fill_used, nch, &done);
		f->fill_used += done * pmd;
		lab_fmt_size(sz, sizeof(sz), f->fill_used);
		lab_fmt_size(held, sizeof(held), f->held);
		lab_progress(f->o,
			     "fragment: filled %s, holding %s, %llu free PMD-order blocks left", sz,
			     held, (unsigned long long)frag_free_pmd_blocks(ctx));
		if (out)
			break;
	}
}

int frag_begin(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t reserve,
	       struct frag *f)
{
	memset(f, 0, sizeof(*f));
	f->ctx = ctx;
	f->o = o;
	f->pm_fd = f->kpf_fd = f->pidfd = -1;
	if (!ctx->can_write) {
		lab_fmt(f->stop, sizeof(f->stop), "needs root");
		return -EPERM;
	}
	int r = frag_budget(ctx, reserve, f);
	if (r)
		return r;
	/* every phase is told by the free PMD-order blocks: unreadable, none would be (never 0) */
	uint64_t nblk;
	if ((r = pmd_blocks_read(ctx, &nblk))) {
		lab_fmt(f->stop, sizeof(f->stop),
			"buddyinfo could not be read (%s): free PMD-order blocks cannot be counted",
			strerror(-r));
		return r;
	}
	uint64_t pmd = ctx->pmd_size;
	char pol[CHOICE_LEN];
	if (thp_pmd_policy(ctx->sr, pol, sizeof(pol)) == 0 && strcmp(pol, "never") == 0) {
		lab_fmt(f->stop, sizeof(f->stop), "the PMD size is at never: no THPs to fill with");
		return -EOPNOTSUPP;
	}
	struct hp_probe hp;
	r = hp_probe_open(ctx, &hp);
	if (r) {
		lab_fmt(f->stop, sizeof(f->stop), "pagemap/kpageflags: %s", strerror(-r));
		return r;
	}
	f->pm_fd = hp.pm;
	f->kpf_fd = hp.kpf;
	if ((r = region_map(&f->fill, f->budget, pmd)) ||
	    (r = region_map(&f->sink, f->budget, pmd))) {
		lab_fmt(f->stop, sizeof(f->stop), "mmap: %s", strerror(-r));
		frag_end(f);
		return r;
	}
	f->pidfd = (int)syscall(__NR_pidfd_open, getpid(), 0);
	f->active = true;
	if (ctx->thp->defrag.present)
		snprintf(f->defrag, sizeof(f->defrag), "%s", ctx->thp->defrag.selected);
	phase(f, "start", 0);
	f->blocks_start = f->phases[0].free_pmd_blocks;

	/* no proactive compaction for the run; never compact for the fill */
	int w = 0;
	char proactiveness[PATH_MAX], cur[32];
	if (sysctl_read_line(ctx->sr, "vm", "compaction_proactiveness", cur, sizeof(cur)) == 0 &&
	    (w = sysctl_vm_rel(proactiveness, sizeof(proactiveness), "compaction_proactiveness")) ==
		    0)
		w = guard_write(proactiveness, "0");
	if (!w)
		w = set_defrag(f, true);
	if (w) {
		if (w == -EBUSY)
			lab_fmt(f->stop, sizeof(f->stop),
				"another running thpctl holds the settings journal");
		else
			lab_fmt(f->stop, sizeof(f->stop), "could not change the settings: %s",
				strerror(-w));
		frag_end(f);
		return w;
	}
	struct snap a = {0}, b = {0}, c = {0};
	snap_take(ctx->sr, &a);
	uint64_t t0 = mono_ns();
	frag_fill(f, &hp);
	snap_take(ctx->sr, &b);
	phase(f, "fill+punch", ms_since(t0));
	/* what MADV_COLD could not split (a folio lock was busy) waits for the shrinker */
	t0 = mono_ns();
	lab_drop_caches();
	snap_take(ctx->sr, &c);
	phase(f, "drop_caches=2", ms_since(t0));
	snap_delta(&a, &b, "thp_split_page", &f->split_cold);
	snap_delta(&b, &c, "thp_split_page", &f->split_shrinker);
	snap_free(&a);
	snap_free(&b);
	snap_free(&c);
	set_defrag(f, false);
	return 0;
}

uint64_t frag_sink(struct frag *f)
{
	if (!f->active)
		return 0;
	const struct lab_ctx *ctx = f->ctx;
	uint64_t pmd = ctx->pmd_size, page = (uint64_t)ctx->page_size;
	uint64_t blocks = frag_free_pmd_blocks(ctx), t0 = mono_ns();
	if (!blocks) {
		if (!f->nsinks++)
			phase(f, "sink", 0);
		return 0;
	}
	struct hp_probe hp = {f->pm_fd, f->kpf_fd, ctx->page_size, pmd / page};
	set_defrag(f, true);
	size_t start = f->sink_used;
	madvise(f->sink.p + start, f->sink.len - start, MADV_HUGEPAGE);
	int fallbacks = 0, extra = 0;
	for (size_t i = 0; f->sink_used + pmd <= f->sink.len && f->held + pmd <= f->budget; i++) {
		if (i && i % AVAIL_EVERY == 0 && mem_available(ctx->sr) < f->margin)
			break;
		char *c = f->sink.p + f->sink_used;
		f->sink_used += pmd;
		/* all non-zero: the underused-THP shrinker must not give it back */
		if (!fault_chunk(f, &hp, c, 1, &f->sink_huge, &f->sink_small, &fallbacks) &&
		    (fallbacks == FALLBACK_RUN || !blocks))
			break;
		if (blocks)
			blocks = frag_free_pmd_blocks(ctx);
		else if (++extra == SINK_EXTRA)
			break;
	}
	if (f->held > f->peak)
		f->peak = f->held;
	madvise(f->sink.p + start, f->sink.len - start, MADV_NOHUGEPAGE);
	set_defrag(f, false);
	blocks = frag_free_pmd_blocks(ctx);
	if (!f->nsinks++)
		phase(f, "sink", ms_since(t0));
	f->blocks_last = blocks;
	return blocks;
}

void frag_end(struct frag *f)
{
	bool was = f->active;
	uint64_t t0 = mono_ns();
	region_unmap(&f->fill);
	region_unmap(&f->sink);
	if (f->pm_fd >= 0)
		close(f->pm_fd);
	if (f->kpf_fd >= 0)
		close(f->kpf_fd);
	if (f->pidfd >= 0)
		close(f->pidfd);
	f->pm_fd = f->kpf_fd = f->pidfd = -1;
	f->active = false;
	f->held = 0;
	if (was)
		phase(f, "released", ms_since(t0));
}

void frag_proofs(const struct frag *f, struct lab_result *r)
{
	char bud[32], mar[32], kept[32], peak[32], sink[32];
	if (!f->nphases) {
		lab_proof(r, "fragmenter", "not run: %s", f->stop);
		return;
	}
	lab_fmt_size(bud, sizeof(bud), f->budget);
	lab_fmt_size(mar, sizeof(mar), f->margin);
	lab_fmt_size(kept, sizeof(kept), f->fill_huge * f->ctx->pmd_size / 2);
	lab_fmt_size(peak, sizeof(peak), f->peak);
	lab_fmt_size(sink, sizeof(sink), f->sink_huge * f->ctx->pmd_size);
	uint64_t after = f->blocks_last;
	for (int i = 0; i < f->nphases; i++)
		if (!strcmp(f->phases[i].name, "sink"))
			after = f->phases[i].free_pmd_blocks;
	lab_proof(
		r, "fragmenter",
		"free PMD-order blocks %llu -> %llu (buddyinfo); held at most %s of a %s budget (MemAvailable - %s margin%s - the region)",
		(unsigned long long)f->blocks_start, (unsigned long long)after, peak, bud, mar,
		f->cg_headroom ? ", cgroup-capped" : "");
	lab_proof(
		r, "fragmenter fill",
		"%llu THPs (%llu fallbacks) with defrag=never, every other base page punched: %s kept (computed as half of each THP, not read); stopped: %s",
		(unsigned long long)f->fill_huge, (unsigned long long)f->fill_small, kept, f->stop);
	lab_proof(
		r, "fragmenter split",
		"thp_split_page +%lld by MADV_COLD, +%lld by drop_caches=2 (deferred-split shrinker)",
		(long long)f->split_cold, (long long)f->split_shrinker);
	lab_proof(
		r, "fragmenter sink",
		"%d sink(s) took %llu PMD-order blocks (%s) with defrag=never, %llu fallbacks; compaction_proactiveness 0 for the run",
		f->nsinks, (unsigned long long)f->sink_huge, sink,
		(unsigned long long)f->sink_small);
}

bool frag_start(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t reserve,
		struct frag *f, struct lab_result *r)
{
	if (frag_begin(ctx, o, reserve, f) == 0)
		return true;
	frag_end(f);
	lab_proof(r, "fragment", "skipped: %s", f->stop);
	r->partial = true;
	return false;
}
