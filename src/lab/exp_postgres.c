// SPDX-License-Identifier: MIT
/*
 * lab postgres: a private PostgreSQL cluster (Debian's postgresql, as the
 * postgres user, unix socket only) under pgbench -S -M prepared in three
 * modes: THP never for the server alone (prctl PR_SET_THP_DISABLE before
 * pg_ctl, inherited; the host as found); enabled=madvise + defrag=defer;
 * never (prctl) with huge_pages=on and a hugetlb pool sized like `thpctl
 * hugetlb plan --for <shared_memory_size>`. One initdb and one pgbench -i,
 * the server restarted per mode. The postmaster's shared segment in its
 * smaps (page size, Hugetlb, ShmemPmdMapped) and meminfo HugePages_* read
 * mid-run prove where shared_buffers lived; per-second tps gives the
 * interval the two published claims are held to.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../kernel/kv.h"
#include "../kernel/proc_read.h"
#include "../model/hugetlb_plan.h"
#include "../util/buf.h"
#include "child.h"
#include "common.h"
#include "hugetlb_pool.h"
#include "pg_srv.h"

#define NMODES 3
#define MAX_ROUNDS 3
#define CLIENTS "4"
#define THREADS "2"

static const char *const mode_label[NMODES] = {"never", "madvise, defrag=defer",
					       "never, huge_pages=on"};

enum { V_TPS, V_LAT, V_SD, V_PSEC, V_KPS, V_HTLB, V_PMD, V_AHP, V_HT, V_HF, V_HR, V_HS, NV };

static const struct lab_coldef cols[NV] = {
	{"tps", ""},
	{"latency avg", "ms"},
	{"latency stddev", "ms"},
	{"tps per second", ""},
	{"shm KernelPageSize", "kB"},
	{"shm Hugetlb", "kB"},
	{"shm ShmemPmdMapped", "kB"},
	{"postmaster AnonHugePages", "kB"},
	{"HugePages_Total (host)", ""},
	{"HugePages_Free (host)", ""},
	{"HugePages_Rsvd (host)", ""},
	{"HugePages_Surp (host)", ""},
};

/* The run's sizes and the hugetlb pool. */
struct pg_plan {
	uint64_t sb_mb;	   /* shared_buffers, MiB */
	unsigned scale;	   /* pgbench -s */
	int secs, warm;	   /* -T of the measured and the warm-up run */
	uint64_t shm_mb;   /* postgres -C shared_memory_size; 0 unknown */
	uint64_t pg_pages; /* postgres -C shared_memory_size_in_huge_pages; 0 unknown */
	uint64_t page_kb;  /* hugetlb page size */
	uint64_t pages;	   /* the pool: hugetlb_plan() for shm_mb */
	uint64_t nr0;	   /* nr_hugepages as found */
};

/* One mode's run. */
struct mode_out {
	double v[NV];
	double psec[PG_MAX_PROGRESS]; /* per-second tps, the first second left out */
	int npsec;
	struct pg_shm shm;
};

/* enabled=VALUE (and the PMD size where it does not inherit), DEFRAG unless NULL. 0 or -errno. */
static int set_thp(const struct lab_ctx *ctx, const char *value, const char *defrag)
{
	int e = lab_set_enabled(ctx, value);
	return e || !defrag ? e : lab_thp_write("defrag", defrag);
}

/* The pool for the server's shared memory, sized as `hugetlb plan --for` does. 0 or -errno. */
static int plan_pool(const struct lab_ctx *ctx, const struct kvlist *mi, struct pg_plan *p)
{
	struct hp_plan_input in = {.node = -1, .buddy_max_order = -1};
	uint64_t v;
	in.has_mem_total = kv_get(mi, "MemTotal", &in.mem_total_kb);
	in.has_mem_free = kv_get(mi, "MemFree", &in.mem_free_kb);
	in.page_kb = in.default_page_kb = kv_get(mi, "Hugepagesize", &v) && v ? v : 2048;
	in.base_page = ctx->page_size;
	in.for_bytes = (p->shm_mb ? p->shm_mb : p->sb_mb * 5 / 4) << 20;
	/* the pool as `hugetlb plan` reads it: what a new mapping gets is free less resv */
	in.size_supported = lab_pool_now(ctx, in.page_kb, &in.nr, &in.free, &in.resv);
	if (in.size_supported && (!in.nr.present || !in.free.present))
		in.size_supported = false; /* unreadable: no pool to plan in, as before */
	if (in.size_supported)
		p->nr0 = in.nr.v;
	static struct hp_plan pl;
	int rc = hugetlb_plan(&in, &pl);
	if (rc)
		return rc;
	p->page_kb = in.page_kb;
	p->pages = pl.pages;
	return in.size_supported ? 0 : -EOPNOTSUPP;
}

/* Reserve P->pages free pages in POOL (growing it through the guard). 0 or -errno, WHY. */
static int reserve(const struct lab_ctx *ctx, const struct pg_plan *p, struct lab_pool *pool,
		   char *why, size_t n)
{
	int rc = lab_pool_reserve(ctx, p->page_kb, p->pages, pool);
	if (rc == -ENOENT || (rc == -EIO && !pool->raised)) {
		lab_fmt(why, n, "hugetlb pool of %llu kB pages unreadable",
			(unsigned long long)p->page_kb);
		return -EIO;
	}
	if (rc && !pool->raised) {
		lab_fmt(why, n, "nr_hugepages %llu: %s",
			(unsigned long long)(pool->nr0 + p->pages - pool->got), strerror(-rc));
		return rc;
	}
	if (rc) {
		snprintf(
			why, n,
			"the pool holds %llu available pages (free less resv_hugepages) of the %llu asked",
			(unsigned long long)pool->got, (unsigned long long)p->pages);
		return -ENOMEM;
	}
	return 0;
}

/* One VMA of the postmaster's smaps into the struct pg_shm CTX. */
static int shm_cb(const struct smaps_vma *v, void *ctx)
{
	pg_shm_feed(ctx, v);
	return 0;
}

/* Mid-run: the postmaster's shared segment and AnonHugePages, host-wide HugePages_*. */
static void sample(const struct lab_ctx *ctx, pid_t pid, struct mode_out *m)
{
	static struct proc_info pi;
	memset(&pi, 0, sizeof(pi));
	pi.vma_cb = shm_cb;
	pi.vma_ctx = &m->shm;
	if (proc_read(ctx->sr, pid, PROC_SMAPS, &pi) == 0 && !pi.smaps_err) {
		m->v[V_AHP] = smaps_has(&pi.t, SM_ANON_HUGE) ? (double)pi.t.kb[SM_ANON_HUGE] : -1;
		if (m->shm.found) {
			m->v[V_KPS] = (double)m->shm.kps_kb;
			m->v[V_HTLB] = (double)m->shm.htlb_kb;
			m->v[V_PMD] = m->shm.has_pmd ? (double)m->shm.pmd_kb : -1;
		}
	}
	proc_info_free(&pi);
	struct kvlist mi = {0};
	static const char *const hp[4] = {"HugePages_Total", "HugePages_Free", "HugePages_Rsvd",
					  "HugePages_Surp"};
	if (meminfo_read(ctx->sr, &mi) == 0)
		for (int i = 0; i < 4; i++) {
			uint64_t x;
			if (kv_get(&mi, hp[i], &x))
				m->v[V_HT + i] = (double)x;
		}
	kvlist_free(&mi);
}

/* pgbench ARGS to its end, output into OUT. 0, or -errno / -EPROTO with WHY. */
static int bench(const struct pg_cluster *c, const char *const *args, char *out, size_t n,
		 char *why, size_t wn)
{
	int fd;
	pid_t bp = pg_bench_start(c, args, &fd);
	if (bp < 0) {
		lab_fmt(why, wn, "pgbench: %s", strerror((int)-bp));
		return (int)bp;
	}
	int st = child_collect(bp, fd, out, n);
	if (st) {
		const char *l = out + strlen(out);
		while (l > out && (l[-1] == '\n' || l[-1] == '\r'))
			l--;
		const char *s = l;
		while (s > out && s[-1] != '\n')
			s--;
		lab_fmt(why, wn, "pgbench %s exited %d: %.*s", args[0], st, (int)(l - s), s);
		return st < 0 ? st : -EPROTO;
	}
	return 0;
}

/* The measured run: warm-up, then -T with -P 1, sampled halfway. 0 or -errno, WHY. */
static int measure(const struct lab_ctx *ctx, const struct pg_cluster *c, const struct pg_plan *p,
		   struct mode_out *m, char *why, size_t n)
{
	static char out[1 << 16];
	char warm[16], secs[16];
	snprintf(warm, sizeof(warm), "%d", p->warm);
	snprintf(secs, sizeof(secs), "%d", p->secs);
	const char *wa[] = {"-S", "-M", "prepared", "-T", warm, "-c", CLIENTS, "-j", THREADS, NULL};
	int rc = bench(c, wa, out, sizeof(out), why, n);
	if (rc)
		return rc;
	const char *ma[] = {"-S",    "-M", "prepared", "-T", secs, "-c",
			    CLIENTS, "-j", THREADS,    "-P", "1",  NULL};
	int fd;
	pid_t bp = pg_bench_start(c, ma, &fd);
	if (bp < 0) {
		lab_fmt(why, n, "pgbench: %s", strerror((int)-bp));
		return (int)bp;
	}
	struct timespec ts = {.tv_sec = p->secs / 2, .tv_nsec = (p->secs % 2) * 500000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	sample(ctx, c->pid, m);
	int st = child_collect(bp, fd, out, sizeof(out));
	struct pgbench_out po;
	if (st || pgbench_parse(out, &po)) {
		lab_fmt(why, n, "pgbench exited %d%s", st,
			st ? "" : ", no tps/latency in its output");
		return -EPROTO;
	}
	m->v[V_TPS] = po.tps;
	m->v[V_LAT] = po.lat_ms;
	m->v[V_SD] = po.has_sd ? po.sd_ms : -1;
	for (int i = 1; i < po.nprog; i++) /* the first second starts the clients */
		if (po.prog_tps[i] > 0)
			m->psec[m->npsec++] = po.prog_tps[i];
	return 0;
}

/* Mode K once: host settings, server, (pgbench -i once), measure, stop. 0 or -errno, WHY. */
static int run_mode(const struct lab_ctx *ctx, struct pg_cluster *c, const struct pg_plan *p, int k,
		    bool *initialized, struct mode_out *m, char *why, size_t n)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < NV; i++)
		m->v[i] = -1;
	const char *found = lab_found_enabled(ctx), *fd = lab_found_defrag(ctx);
	int rc = k == 1 ? set_thp(ctx, "madvise", "defer") : found ? set_thp(ctx, found, fd) : 0;
	if (rc) {
		lab_fmt(why, n, "THP settings: %s", strerror(-rc));
		return rc;
	}
	struct lab_pool pool = {0};
	if (k == 2 && (rc = reserve(ctx, p, &pool, why, n)))
		goto out;
	char sb[32];
	snprintf(sb, sizeof(sb), "shared_buffers=%lluMB", (unsigned long long)p->sb_mb);
	const char *args[] = {"-c", sb,
			      "-c", k == 2 ? "huge_pages=on" : "huge_pages=off",
			      "-c", "fsync=off",
			      "-c", "synchronous_commit=off",
			      "-c", "full_page_writes=off",
			      "-c", "max_connections=20",
			      NULL};
	int off = k != 1 ? lab_thp_off_begin() : -1; /* < 0 for never: prctl failed, rc says */
	rc = k != 1 && off < 0 ? off : pg_start(c, args, why, n);
	lab_thp_off_end(off);
	if (rc == 0) {
		static char out[1 << 14];
		char s[16];
		snprintf(s, sizeof(s), "%u", p->scale);
		const char *ia[] = {"-i", "-q", "-s", s, NULL};
		if (!*initialized && !(rc = bench(c, ia, out, sizeof(out), why, n)))
			*initialized = true;
		if (!rc)
			rc = measure(ctx, c, p, m, why, n);
	}
	pg_stop(c);
out:
	lab_pool_release(&pool); /* give the pool back now (the guard would at the end) */
	return rc;
}

/* What the rounds gave, per mode: pooled per-second tps, medians, the last shm seen. */
struct pg_med {
	bool have[NMODES];
	double v[NMODES][NV]; /* medians over rounds, -1 absent */
	double psec[NMODES][PG_MAX_PROGRESS];
	int npsec[NMODES];
	double round_tps[NMODES][MAX_ROUNDS]; /* each round's tps, by round index */
	int nround[NMODES];
	struct pg_shm shm[NMODES];
};

/* The ratio interval of mode K's per-second tps over never's (95%); ok false when too few. */
static struct ratio_ci ratio(const struct pg_med *m, int k)
{
	struct ratio_ci ci = {0};
	if (m->have[0] && m->have[k] &&
	    stats_ratio_ci(m->psec[0], (size_t)m->npsec[0], m->psec[k], (size_t)m->npsec[k], 0.95,
			   &ci))
		ci.ok = false;
	return ci;
}

/* Whether mode K's shared memory was where it should be: 4 kB shmem, or hugetlb pages. */
static bool backed(const struct lab_ctx *ctx, const struct pg_med *m, const struct pg_plan *p,
		   int k)
{
	const struct pg_shm *s = &m->shm[k];
	if (!m->have[k] || !s->found)
		return false;
	if (k == 2)
		return s->kps_kb == p->page_kb && s->htlb_kb > 0;
	return s->kps_kb == (uint64_t)ctx->page_size / 1024 && s->htlb_kb == 0;
}

/* The band claim's WHY: the interval against LO..HI, or what kept it from deciding. */
static void band_why(char *why, size_t n, const struct ratio_ci *ci, enum claim_call c, double lo,
		     double hi, const char *missing)
{
	char band[40];
	if (isinf(hi))
		lab_fmt(band, sizeof(band), ">= %.2f", lo);
	else
		lab_fmt(band, sizeof(band), "%.2f..%.2f", lo, hi);
	if (missing)
		lab_fmt(why, n, "%s", missing);
	else if (!ci->ok)
		lab_fmt(why, n, "too few per-second tps samples for a 95%% interval");
	else
		lab_fmt(why, n, "95%% CI %.3f..%.3f (per-second tps) %s %s", ci->lo, ci->hi,
			c == CLAIM_CONFIRMED	  ? "inside"
			: c == CLAIM_CONTRADICTED ? "wholly outside"
						  : "crosses the edge of",
			band);
}

/* "0.973x; per-second 0.932x" into W: the ratio of totals A / B and CI's estimate ("-" each
 * where unknown). */
static void ratio_words(char *w, size_t n, double a, double b, const struct ratio_ci *ci)
{
	char t[16] = "-", e[16] = "-";
	if (a >= 0 && b > 0)
		snprintf(t, sizeof(t), "%.3fx", a / b);
	if (ci->ok)
		snprintf(e, sizeof(e), "%.3fx", ci->est);
	lab_fmt(w, n, "%s; per-second %s", t, e);
}

/* The two claims; their calls into CALLS. */
static void claims(const struct lab_ctx *ctx, struct lab_result *r, const struct pg_med *m,
		   const struct pg_plan *p, enum claim_call *calls)
{
	char here[160], why[160];
	struct ratio_ci c1 = ratio(m, 1), c2 = ratio(m, 2);
	const double *nv = m->v[0], *md = m->v[1], *ht = m->v[2];
	calls[0] = pg_band_call(&c1, 0.98, 1.02);
	/* two figures that differ, each named: the totals' plain ratio, and the estimate over
	 * the per-second tps that the interval (and so the call) is about */
	char e1[48], e2[48], f[3][24], kps[24] = "-"; /* -1: the mode did not run, "-" */
	ratio_words(e1, sizeof(e1), md[V_TPS], nv[V_TPS], &c1);
	ratio_words(e2, sizeof(e2), ht[V_TPS], nv[V_TPS], &c2);
	lab_fmt_num(f[0], sizeof(f[0]), nv[V_TPS], 0);
	lab_fmt(here, sizeof(here), "tps %s (madvise+defer) vs %s (never): %s",
		lab_fmt_num(f[1], sizeof(f[1]), md[V_TPS], 0), f[0], e1);
	band_why(why, sizeof(why), &c1, calls[0], 0.98, 1.02,
		 !m->have[0] || !m->have[1] ? "a mode failed" : NULL);
	int n1 = m->nround[0] < m->nround[1] ? m->nround[0] : m->nround[1];
	calls[0] = pg_rounds_gate(calls[0], m->round_tps[0], m->round_tps[1], n1, 0.98, 1.02, why,
				  sizeof(why));
	lab_claim(r, "madvise + defrag=defer is within 2% of never",
		  "PostgreSQL pgbench, THP guidance (madvise+defer vs never)", here, calls[0], "%s",
		  why);
	bool proven = backed(ctx, m, p, 2);
	calls[1] = proven ? pg_band_call(&c2, 0.98, INFINITY) : CLAIM_INCONCLUSIVE;
	if (m->have[2] && m->shm[2].found)
		snprintf(kps, sizeof(kps), "%llu", (unsigned long long)m->shm[2].kps_kb);
	lab_fmt(here, sizeof(here), "tps %s (huge_pages=on) vs %s (never): %s; shm on %s kB pages",
		lab_fmt_num(f[2], sizeof(f[2]), ht[V_TPS], 0), f[0], e2, kps);
	band_why(why, sizeof(why), &c2, calls[1], 0.98, INFINITY,
		 !m->have[0] || !m->have[2] ? "a mode failed"
		 : !proven		    ? "shared memory not proven on hugetlb"
					    : NULL);
	int n2 = m->nround[0] < m->nround[2] ? m->nround[0] : m->nround[2];
	calls[1] = pg_rounds_gate(calls[1], m->round_tps[0], m->round_tps[2], n2, 0.98, INFINITY,
				  why, sizeof(why));
	lab_claim(r, "hugetlb (huge_pages=on) for shared_buffers is the right tool",
		  "PostgreSQL docs, huge_pages (Linux huge pages)", here, calls[1], "%s", why);
}

/* Rows from the rounds V[mode][col][round] and the per-second samples; medians into M. */
static void rows(struct lab_result *r, double (*v)[NV][MAX_ROUNDS], const int *n,
		 const struct mode_out *last, struct pg_med *m)
{
	for (int k = 0; k < NMODES; k++) {
		for (int c = 0; c < NV; c++)
			m->v[k][c] = -1;
		m->have[k] = n[k] > 0;
		m->shm[k] = last[k].shm;
		if (!n[k])
			continue;
		int row = lab_row_add(r, mode_label[k]);
		for (int c = 0; c < NV && row >= 0; c++) {
			double s[MAX_ROUNDS];
			size_t ns = lab_values_read(s, v[k][c], n[k]);
			if (c == V_PSEC && m->npsec[k])
				lab_cell_set(r, row, c, m->psec[k], (size_t)m->npsec[k]);
			else if (c != V_PSEC && ns)
				lab_cell_set(r, row, c, s, ns);
			m->v[k][c] = r->rows[row].c[c].present ? r->rows[row].c[c].median : -1;
		}
		const struct pg_shm *s = &last[k].shm;
		char key[48], pmd[24] = "-";
		snprintf(key, sizeof(key), "%s shared memory", mode_label[k]);
		if (s->has_pmd)
			snprintf(pmd, sizeof(pmd), "%llu", (unsigned long long)s->pmd_kb);
		if (s->found)
			lab_proof(
				r, key,
				"postmaster smaps %s %llu kB: KernelPageSize %llu kB, Rss %llu kB, Shared+Private_Hugetlb %llu kB, ShmemPmdMapped %s kB",
				s->name, (unsigned long long)s->size_kb,
				(unsigned long long)s->kps_kb, (unsigned long long)s->rss_kb,
				(unsigned long long)s->htlb_kb, pmd);
		else
			lab_proof(r, key, "no shared segment found in the postmaster's smaps");
	}
}

/* The backing each mode should have had, the claims, the verdict. */
static void verdict(const struct lab_ctx *ctx, struct lab_result *r, const struct pg_med *m,
		    const struct pg_plan *p)
{
	enum claim_call c[2];
	claims(ctx, r, m, p, c);
	bool right[NMODES], found[NMODES];
	for (int k = 0; k < NMODES; k++) {
		right[k] = backed(ctx, m, p, k);
		found[k] = m->shm[k].found;
	}
	enum pg_backing call = pg_backing_call(m->have, found, right, NMODES);
	bool ok = call == PG_BACKED;
	char kb[4][24]; /* -1: the mode did not run or the value was not read: "-" */
	const double kv[4] = {m->v[0][V_KPS], m->v[1][V_KPS], m->v[2][V_KPS], m->v[2][V_HTLB]};
	for (int i = 0; i < 4; i++)
		lab_fmt(kb[i], sizeof(kb[i]), kv[i] < 0 ? "-" : "%.0f kB", kv[i]);
	/* a mode that gave no figures, or whose segment was not found, decides nothing; a mode
	 * read with the wrong backing decides, a mode missing elsewhere or not (pg_backing_call) */
	char why[400], pre[420] = "";
	bool unknown = lab_modes_unknown(why, sizeof(why), mode_label, NMODES, m->have, found,
					 "the shared segment (postmaster smaps)");
	r->inconclusive = call == PG_BACKING_UNKNOWN;
	if (r->inconclusive)
		lab_fmt(pre, sizeof(pre), "inconclusive: %s; ", why);
	else if (unknown)
		lab_fmt(pre, sizeof(pre), "UNEXPECTED backing (%s): ", why);
	lab_verdict(
		r, ok,
		"%sshared memory page size never %s, madvise+defer %s, huge_pages=on %s (Hugetlb %s); madvise+defer claim %s; hugetlb claim %s",
		pre[0] ? pre
		: ok   ? ""
		       : "UNEXPECTED backing: ",
		kb[0], kb[1], kb[2], kb[3], claim_call_name(c[0]), claim_call_name(c[1]));
}

/* The binaries, or R says how to install them. 0 or -ENOENT. */
static int find_programs(struct lab_result *r, struct pg_cluster *c)
{
	if (!pg_find(PG_ROOT, c))
		return 0;
	lab_skip_missing(
		r, "postgres/initdb/pgbench not found under /usr/lib/postgresql/<ver>/bin: install "
		   "with scripts/install-deps --workloads (Debian: postgresql)");
	return -ENOENT;
}

/* Sizes, initdb, the pool plan; false (R says why) when the cluster could not be made. */
static bool setup(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t size,
		  struct pg_cluster *c, struct pg_plan *p, struct lab_result *r)
{
	p->sb_mb = size >> 20 ? size >> 20 : 1;
	uint64_t sc = p->sb_mb / 16; /* pgbench scale 1 is about 16 MB with its index */
	p->scale = o->quick ? 8 : (unsigned)(sc < 10 ? 10 : sc > 100 ? 100 : sc);
	p->secs = o->quick ? 10 : 30;
	p->warm = o->quick ? 3 : 5;
	char why[200] = "";
	int rc = pg_init(c, why, sizeof(why));
	if (rc) {
		lab_proof(r, "setup", "failed: %s", why);
		lab_verdict(r, false, "inconclusive: no cluster, no mode ran: %s", why);
		r->inconclusive = true;
		return false;
	}
	char sb[32];
	snprintf(sb, sizeof(sb), "shared_buffers=%lluMB", (unsigned long long)p->sb_mb);
	const char *args[] = {"-c", sb, "-c", "max_connections=20", NULL};
	if (pg_show(c, "shared_memory_size", args, &p->shm_mb))
		p->shm_mb = 0;
	if (pg_show(c, "shared_memory_size_in_huge_pages", args, &p->pg_pages))
		p->pg_pages = 0;
	struct kvlist mi = {0};
	meminfo_read(ctx->sr, &mi);
	rc = plan_pool(ctx, &mi, p);
	kvlist_free(&mi);
	if (rc)
		p->pages = 0;
	return true;
}

/* The setup and pool proofs. */
static void setup_proofs(const struct lab_ctx *ctx, struct lab_result *r,
			 const struct pg_cluster *c, const struct pg_plan *p)
{
	lab_proof(
		r, "setup",
		"PostgreSQL %s as %s, kernel %s, shared_buffers %llu MB, pgbench -s %u, -S -M prepared -c " CLIENTS
		" -j " THREADS " -T %d (warm-up %d s), fsync=off; HugePages_* are host-wide",
		c->ver, c->user, ctx->feat->release, (unsigned long long)p->sb_mb, p->scale,
		p->secs, p->warm);
	char shm[40] = "unknown, shared_buffers + 25%", pgp[24] = "?";
	if (p->shm_mb)
		snprintf(shm, sizeof(shm), "%llu MB", (unsigned long long)p->shm_mb);
	if (p->pg_pages)
		snprintf(pgp, sizeof(pgp), "%llu", (unsigned long long)p->pg_pages);
	if (p->pages)
		lab_proof(
			r, "hugetlb pool",
			"hugetlb plan --for shared_memory_size (%s): %llu x %llu kB pages (PostgreSQL's shared_memory_size_in_huge_pages %s); nr_hugepages %llu as found, put back after",
			shm, (unsigned long long)p->pages, (unsigned long long)p->page_kb, pgp,
			(unsigned long long)p->nr0);
	else
		lab_proof(r, "hugetlb pool", "no plan: no hugetlb pool of the default size here");
}

static int lab_postgres(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	static struct pg_cluster c;
	memset(&c, 0, sizeof(c));
	if (find_programs(r, &c))
		return 0;
	uint64_t size;
	if (lab_begin_write(
		    ctx, o, "set THP and reserve hugetlb pages", 1ull << 30, r, &size,
		    "PostgreSQL pgbench -S: THP never vs madvise+defer vs huge_pages=on (hugetlb)"))
		return 0;
	struct pg_plan p = {0};
	if (!setup(ctx, o, size, &c, &p, r))
		return -EIO; /* no cluster, no mode: a failed run (exit 1) */
	int rounds = o->quick ? 1 : o->runs < 2 ? o->runs : 2;
	r->runs = rounds;
	lab_cols_add(r, cols, NV, NULL);
	static double v[NMODES][NV][MAX_ROUNDS];
	static struct mode_out last[NMODES];
	static struct pg_med m;
	memset(&m, 0, sizeof(m));
	int n[NMODES] = {0};
	bool failed[NMODES] = {false}, initialized = false;
	for (int i = 0; i < rounds; i++)
		for (int kk = 0; kk < NMODES; kk++) {
			int k = i % 2 ? NMODES - 1 - kk : kk; /* ABC CBA: drift hits both sides */
			if (failed[k])
				continue;
			lab_progress_run(o, "postgres", size, mode_label[k], i, rounds);
			struct mode_out mo;
			char why[200] = "";
			int rc = k == 2 && !p.pages ? -EOPNOTSUPP
						    : run_mode(ctx, &c, &p, k, &initialized, &mo,
							       why, sizeof(why));
			if (rc) {
				lab_proof(r, mode_label[k], "failed: %s",
					  why[0] ? why : strerror(-rc));
				r->partial = failed[k] = true;
				continue;
			}
			for (int col = 0; col < NV; col++)
				v[k][col][n[k]] = mo.v[col];
			for (int j = 0; j < mo.npsec && m.npsec[k] < PG_MAX_PROGRESS; j++)
				m.psec[k][m.npsec[k]++] = mo.psec[j];
			m.round_tps[k][m.nround[k]++] = mo.v[V_TPS];
			n[k]++;
			last[k] = mo;
		}
	lab_progress_done(o);
	pg_destroy(&c);
	setup_proofs(ctx, r, &c, &p);
	rows(r, v, n, last, &m);
	verdict(ctx, r, &m, &p);
	return r->nrows ? 0 : -EIO; /* no mode gave figures: a failed run (exit 1) */
}

LAB_EXPERIMENT_DEFINE("postgres", 220, lab_postgres,
		      "PostgreSQL + pgbench -S: never vs madvise+defer vs huge_pages=on (hugetlb)",
		      .quick = {.size = (128ull << 20)}, .workload = true,
		      .host = {"enabled=madvise, defrag=defer (a mode); a hugetlb pool (another)",
			       60, 240, false, NULL});
