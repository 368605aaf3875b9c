// SPDX-License-Identifier: MIT
/*
 * lab fileread: random 4 KiB reads through mmap of a file larger than the
 * TLB reaches. The data is one random cycle through every 4 KiB page (fixed
 * seed, fileread.c): each page's 8-byte slot holds the offset of the next
 * page's slot, so the reads are dependent loads, one per random page, and
 * one pass of the cycle reads every page exactly once. Dependent, not
 * independent: one miss in flight at a time, so ns/read is the latency of a
 * TLB miss plus a cache miss, the thing page size changes, and the CPU
 * cannot hide page walks by overlapping them (independent loads would
 * measure memory-level parallelism on a shared 2-vCPU VM as much as pages).
 *
 * The same bytes are read through: a file we create in a private directory
 * under $TMPDIR (written in 2 MiB chunks, fsync'd, read once: its page cache
 * is populated before anything is timed; the host's caches are never
 * dropped), read-only MAP_SHARED, with enabled=never, always, and always
 * with MADV_NOHUGEPAGE (a 4 KiB baseline of the same page cache); a copy in
 * each of three tmpfs mounts of ours (huge=never|always|within_size);
 * anonymous memory (MADV_NOHUGEPAGE, enabled=always without advice,
 * MADV_HUGEPAGE under madvise); and MAP_HUGETLB from a pool reserved through
 * the guard. Each run maps every mode afresh: the faults column counts the
 * minor faults of mapping (anon: filling) and one first pass over every
 * page; ns/read is timed over further passes. The region's own smaps
 * (FilePmdMapped, ShmemPmdMapped, AnonHugePages, Private_Hugetlb) is read
 * after the timing in every run.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../kernel/hugetlb.h"
#include "../kernel/uapi_compat.h"
#include "../util/clock.h"
#include "../util/stats.h"
#include "common.h"
#include "fileread.h"
#include "fileread_int.h"
#include "guard.h"

const struct fr_mode fr_modes[FR_NM] = {
	[M_FILE_NEVER] = {"enabled=never", K_FILE, -1, 0, "never", V_FPMD},
	[M_FILE_ALWAYS] = {"enabled=always", K_FILE, -1, 0, "always", V_FPMD},
	[M_FILE_NOHUGE] = {"MADV_NOHUGEPAGE", K_FILE, -1, MADV_NOHUGEPAGE, "always", V_FPMD},
	[M_TMPFS_NEVER] = {"tmpfs huge=never", K_TMPFS, 0, 0, "always", V_SPMD},
	[M_TMPFS_ALWAYS] = {"tmpfs huge=always", K_TMPFS, 1, 0, "always", V_SPMD},
	[M_TMPFS_WITHIN] = {"tmpfs huge=within_size", K_TMPFS, 2, 0, "always", V_SPMD},
	[M_ANON_4K] = {"anon MADV_NOHUGEPAGE", K_ANON, -1, MADV_NOHUGEPAGE, "always", V_AHP},
	[M_ANON_ALWAYS] = {"anon, enabled=always", K_ANON, -1, 0, "always", V_AHP},
	[M_ANON_MADV] = {"anon MADV_HUGEPAGE, madvise", K_ANON, -1, MADV_HUGEPAGE, "madvise",
			 V_AHP},
	[M_HUGETLB] = {"MAP_HUGETLB", K_HUGETLB, -1, 0, NULL, V_HTLB},
};

/* One run's order: grouped by the enabled value each mode needs (3 writes a run). */
static const int run_order[FR_NM] = {M_FILE_NEVER,   M_FILE_ALWAYS,  M_FILE_NOHUGE, M_TMPFS_NEVER,
				     M_TMPFS_ALWAYS, M_TMPFS_WITHIN, M_ANON_4K,	    M_ANON_ALWAYS,
				     M_HUGETLB,	     M_ANON_MADV};

static const struct lab_coldef coldefs[FR_NV] = {
	[V_NS] = {"ns/read", "ns"},	    [V_RPS] = {"reads/s", ""},
	[V_SPEED] = {"speed-up", "x"},	    [V_FIRST] = {"1st pass", "ns"},
	[V_FAULTS] = {"faults", ""},	    [V_STEADY] = {"timed faults", ""},
	[V_FPMD] = {"FilePmdMapped", "kB"}, [V_SPMD] = {"ShmemPmdMapped", "kB"},
	[V_AHP] = {"AnonHugePages", "kB"},  [V_HTLB] = {"Private_Hugetlb", "kB"},
};

volatile uint64_t fr_sink; /* the walks' results: nothing is optimised away */

/* N dependent loads from byte offset OFF of BASE; returns where the walk stopped. */
static LAB_NO_ASAN uint64_t walk(const char *base, uint64_t off, uint64_t n)
{
	while (n--)
		off = *(const uint64_t *)(base + off);
	return off;
}

/* PREAD all of LEN bytes of FD into P. 0 or -errno. */
static int read_all(int fd, char *p, size_t len)
{
	size_t done = 0;
	while (done < len) {
		size_t want = len - done > (64u << 20) ? (64u << 20) : len - done;
		ssize_t k = pread(fd, p + done, want, (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		done += (size_t)k;
	}
	return 0;
}

/* Map mode M of F into REG (anon and hugetlb: filled from the data file). 0 or -errno. */
static int map_mode(const struct fr_run *f, int m, struct region *reg)
{
	const struct fr_mode *d = &fr_modes[m];
	memset(reg, 0, sizeof(*reg));
	if (d->kind == K_HUGETLB) {
		int shift = __builtin_ctzll(f->pmd);
		void *p =
			mmap(NULL, f->size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (shift << MAP_HUGE_SHIFT),
			     -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		reg->p = reg->map = p;
		reg->len = reg->maplen = f->size;
		return read_all(f->fd[0], reg->p, f->size);
	}
	int rc = region_map(reg, f->size, f->pmd);
	if (rc)
		return rc;
	if (d->kind == K_ANON) {
		if (d->advice && madvise(reg->p, reg->len, d->advice))
			return -errno;
		return read_all(f->fd[0], reg->p, f->size);
	}
	int fd = f->fd[d->kind == K_TMPFS ? 1 + d->mount : 0];
	if (mmap(reg->p, reg->len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		return -errno;
	if (d->advice && madvise(reg->p, reg->len, d->advice))
		return -errno;
	return 0;
}

/* The region's proof fields (kB) into V, and on the first run the folio proof. */
static void backing(const struct lab_ctx *ctx, const struct fr_run *f, int m,
		    const struct region *reg, double *v, bool first, struct lab_result *r)
{
	struct region_smaps rs;
	int rc = region_smaps_read(ctx->sr, 0, (uintptr_t)reg->p, reg->len, &rs);
	v[V_FPMD] = rc ? -1 : (double)rs.t.kb[SM_FILE_PMD];
	v[V_SPMD] = rc ? -1 : (double)rs.t.kb[SM_SHMEM_PMD];
	v[V_AHP] = rc ? -1 : (double)rs.t.kb[SM_ANON_HUGE];
	v[V_HTLB] = rc ? -1 : (double)rs.t.kb[SM_PRIVATE_HUGETLB];
	if (!first)
		return;
	struct folio_counts fc;
	int fe = fr_modes[m].kind == K_HUGETLB
			 ? 1
			 : region_folios(ctx->sr, (uintptr_t)reg->p, reg->len, ctx->page_size, &fc);
	char fol[LAB_FOLIOS_LEN] = "-";
	if (fe == 0)
		lab_fmt_folios(fol, sizeof(fol), &fc, ctx->page_size);
	bool hg = !rc && rs.vmflags & VMF_HG, nh = !rc && rs.vmflags & VMF_NH;
	lab_proof(r, f->label[m], "%s; VmFlags %s; folios %s",
		  rc ? "smaps unreadable" : "region smaps read after timing",
		  hg   ? "hg"
		  : nh ? "nh"
		       : "without hg/nh",
		  fe == 0  ? fol
		  : fe > 0 ? "(hugetlb: not in kpageflags' THP view)"
			   : "unreadable");
}

/* One run of mode M: map, first pass, timed passes, proof, unmap. V gets the columns. 0 or -errno. */
static int measure(const struct lab_ctx *ctx, const struct fr_run *f, int m, double *v, double *ns,
		   bool first, struct lab_result *r)
{
	struct region reg;
	long f0 = minflt_self();
	int rc = map_mode(f, m, &reg);
	if (rc) {
		region_unmap(&reg);
		return rc;
	}
	uint64_t off = fr_slot(0, (size_t)ctx->page_size);
	uint64_t t0 = mono_ns();
	off = walk(reg.p, off, f->npages);
	uint64_t t1 = mono_ns();
	long f1 = minflt_self();
	uint64_t t = t1;
	for (int k = 0; k < f->passes; k++) { /* one sample a pass: every page once */
		off = walk(reg.p, off, f->npages);
		uint64_t now = mono_ns();
		ns[k] = (double)(now - t) / (double)f->npages;
		t = now;
	}
	long f2 = minflt_self();
	fr_sink = off;
	v[V_NS] = (double)(t - t1) / (double)(f->npages * (uint64_t)f->passes);
	v[V_RPS] = 1e9 / v[V_NS];
	v[V_FIRST] = (double)(t1 - t0) / (double)f->npages;
	v[V_FAULTS] = (double)(f1 - f0);
	v[V_STEADY] = (double)(f2 - f1);
	backing(ctx, f, m, &reg, v, first, r);
	region_unmap(&reg);
	return 0;
}

/* Every run of every mode into F->v; a failed mode is dropped with a proof. */
static void run_all(const struct lab_ctx *ctx, const struct lab_opts *o, struct fr_run *f,
		    struct lab_result *r)
{
	for (int i = 0; i < f->runs; i++)
		for (int j = 0; j < FR_NM; j++) {
			/* odd runs backwards: a drift on the host hits every mode alike */
			int m = run_order[i % 2 ? FR_NM - 1 - j : j];
			if (f->failed[m])
				continue;
			lab_progress_run(o, "fileread", f->size, f->label[m], i, f->runs);
			int rc =
				fr_modes[m].enabled ? lab_set_enabled(ctx, fr_modes[m].enabled) : 0;
			double v[FR_NV];
			if (!rc)
				rc = measure(ctx, f, m, v, &f->ns[m][f->n[m] * f->passes],
					     f->n[m] == 0, r);
			if (rc) {
				lab_proof(r, f->label[m], "failed: %s", strerror(-rc));
				r->partial = f->failed[m] = true;
				continue;
			}
			for (int c = 0; c < FR_NV; c++)
				f->v[m][c][f->n[m]] = v[c];
			f->n[m]++;
		}
	lab_progress_done(o);
}

/* The filesystem's name for statfs magic T ("ext2/3/4", "xfs", ...), or its hex into BUF. */
static const char *fs_name(long t, char *buf, size_t n)
{
	switch ((unsigned long)t) {
	case EXT4_SUPER_MAGIC:
		return "ext4";
	case XFS_SUPER_MAGIC:
		return "xfs";
	case BTRFS_SUPER_MAGIC:
		return "btrfs";
	case TMPFS_MAGIC:
		return "tmpfs";
	case OVERLAYFS_SUPER_MAGIC:
		return "overlay";
	case F2FS_SUPER_MAGIC:
		return "f2fs";
	default:
		snprintf(buf, n, "fs 0x%lx", (unsigned long)t);
		return buf;
	}
}

/* The data file: the chain written in 2 MiB chunks, fsync'd, read once. 0 or -errno. */
static int make_data(struct fr_run *f, const char *path)
{
	size_t pg = f->page, chunk = 2u << 20, per = chunk / pg;
	uint32_t *next = malloc(f->npages * sizeof(*next));
	char *buf = malloc(chunk);
	int rc = 0, fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (!next || !buf || fd < 0) {
		rc = fd < 0 ? -errno : -ENOMEM;
		goto out;
	}
	fr_chain(next, f->npages);
	for (size_t c = 0; c < f->npages && !rc; c += per) {
		memset(buf, 0, chunk);
		for (size_t i = c; i < c + per && i < f->npages; i++)
			*(uint64_t *)(buf + (i - c) * pg + fr_slot(i, pg)) =
				(uint64_t)next[i] * pg + fr_slot(next[i], pg);
		if (pwrite(fd, buf, chunk, (off_t)(c * pg)) != (ssize_t)chunk)
			rc = -EIO;
	}
	if (!rc && fsync(fd))
		rc = -errno;
	for (size_t o = 0; !rc && o < f->size; o += chunk) /* read once: the page cache is there */
		if (pread(fd, buf, chunk, (off_t)o) != (ssize_t)chunk)
			rc = -EIO;
out:
	free(next);
	free(buf);
	if (rc && fd >= 0)
		close(fd);
	else
		f->fd[0] = fd;
	return rc;
}

/* Copy the data file into mount K's file (its size set first: within_size sees it). 0 or -errno. */
static int make_tmpfs_copy(struct fr_run *f, int k)
{
	char path[192];
	int rc = fr_mount(&f->dir, k, f->size + (4u << 20));
	fr_file_path(&f->dir, k, path, sizeof(path));
	int fd = rc ? -1 : open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (!rc && fd < 0)
		rc = -errno;
	if (!rc && ftruncate(fd, (off_t)f->size))
		rc = -errno;
	char *buf = rc ? NULL : malloc(2u << 20);
	if (!rc && !buf)
		rc = -ENOMEM;
	for (size_t o = 0; !rc && o < f->size; o += 2u << 20)
		if (pread(f->fd[0], buf, 2u << 20, (off_t)o) != (ssize_t)(2u << 20) ||
		    pwrite(fd, buf, 2u << 20, (off_t)o) != (ssize_t)(2u << 20))
			rc = -EIO;
	free(buf);
	if (rc && fd >= 0)
		close(fd);
	else if (!rc)
		f->fd[1 + k] = fd;
	return rc;
}

/* Set up the directory, the file, the mounts and the hugetlb pool; what failed is said in R. */
static int setup(const struct lab_ctx *ctx, const struct lab_opts *o, struct fr_run *f,
		 struct lab_result *r)
{
	int rc = fr_dir_make(&f->dir);
	if (rc) {
		lab_skip(r, "private directory under $TMPDIR: %s", strerror(-rc));
		r->expected = false;
		return rc;
	}
	struct statfs sf;
	char hex[32], path[192];
	snprintf(f->fs, sizeof(f->fs), "%s",
		 statfs(f->dir.path, &sf) ? "?" : fs_name((long)sf.f_type, hex, sizeof(hex)));
	for (int m = 0; m < FR_NM; m++)
		snprintf(f->label[m], sizeof(f->label[m]), "%s%s%s",
			 fr_modes[m].kind == K_FILE ? f->fs : "",
			 fr_modes[m].kind == K_FILE ? " " : "", fr_modes[m].label);
	fr_file_path(&f->dir, -1, path, sizeof(path));
	lab_progress(o, "fileread: writing %s (%s)", path, f->fs);
	if ((rc = make_data(f, path))) {
		lab_skip(r, "data file %s: %s", path, strerror(-rc));
		r->expected = false;
		return rc;
	}
	for (int k = 0; k < FR_NMOUNTS; k++) {
		lab_progress(o, "fileread: tmpfs huge=%s", fr_mount_huge(k));
		if ((rc = make_tmpfs_copy(f, k))) {
			lab_proof(r, f->label[M_TMPFS_NEVER + k], "failed: tmpfs: %s",
				  strerror(-rc));
			r->partial = f->failed[M_TMPFS_NEVER + k] = true;
		}
	}
	fr_pool_get(ctx, f, r);
	return 0;
}

static int lab_fileread(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	if (!ctx->can_write) {
		lab_skip(
			r,
			"needs root (and the settings lock): mounts tmpfs, sets enabled, reserves hugetlb pages");
		return 0;
	}
	static struct fr_run f;
	memset(&f, 0, sizeof(f));
	for (int k = 0; k <= FR_NMOUNTS; k++)
		f.fd[k] = -1;
	if (lab_begin(
		    ctx, o, 1ull << 30, r, &f.size,
		    "mmap random 4 KiB reads (dependent, one per page): page cache, tmpfs, anon, hugetlb"))
		return 0;
	/* the file, three tmpfs copies, an anon copy and the hugetlb pool at once */
	static struct lab_result scratch;
	struct lab_opts so = *o;
	uint64_t all;
	so.size = 6 * f.size;
	if (lab_size(ctx, &so, so.size, &scratch, &all)) {
		lab_skip(r, "the file, 3 tmpfs copies, anon and hugetlb (6 x size): %s",
			 scratch.verdict);
		r->expected = false;
		return 0;
	}
	f.page = (size_t)ctx->page_size;
	f.pmd = ctx->pmd_size;
	f.npages = f.size / f.page;
	f.passes = o->quick ? 4 : 8;
	f.runs = o->runs < 1 ? 1 : o->runs > FR_MAX_NS / f.passes ? FR_MAX_NS / f.passes : o->runs;
	r->runs = f.runs;
	lab_cols_add(r, coldefs, FR_NV, NULL);
	if (setup(ctx, o, &f, r) == 0) {
		run_all(ctx, o, &f, r);
		fr_pool_put(&f);
		fr_report(ctx, &f, r);
	}
	for (int k = 0; k <= FR_NMOUNTS; k++)
		if (f.fd[k] >= 0)
			close(f.fd[k]);
	fr_dir_remove(&f.dir);
	return 0;
}

LAB_EXPERIMENT_DEFINE(
	"fileread", 210, lab_fileread,
	"mmap random 4 KiB reads: page cache (enabled never/always), tmpfs huge=, anon THP, hugetlb",
	.quick = {.size = (512ull << 20)}, .workload = true,
	.host = {"enabled=never and always in turn for its page-cache modes, a hugetlb pool "
		 "(nr_hugepages)",
		 60, 180, true, NULL});
