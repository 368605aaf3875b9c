// SPDX-License-Identifier: MIT
/*
 * lab redis: Debian's redis-server (loopback, private port and directory,
 * no persistence but one explicit BGSAVE) loaded with SIZE / 1 KiB keys of
 * 1000 bytes, then redis-benchmark SET and GET over those keys while a BGSAVE
 * starts 0.5 s in. Five modes: THP never for the server alone (prctl
 * PR_SET_THP_DISABLE before its exec: no host-wide enabled=never); enabled=always with Redis's
 * `disable-thp yes` (its default: it calls prctl(PR_SET_THP_DISABLE)); always
 * with `disable-thp no`; enabled=madvise (the control: nothing advises);
 * madvise with MALLOC_CONF=thp:always, Debian's jemalloc then advising
 * MADV_HUGEPAGE on its chunks (`disable-thp no`: Redis only calls its prctl
 * under enabled=always, and a prctl would defeat any madvise). The server's AnonHugePages (smaps_rollup) before
 * and after the BGSAVE, latest_fork_usec and rdb_last_cow_size from INFO,
 * and the host-wide thp_split_pmd delta prove what backed it; the published
 * claims are put beside this host's figures with a verdict each.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../kernel/proc_read.h"
#include "../kernel/proc_thp.h"
#include "../util/buf.h"
#include "../util/clock.h"
#include "child.h"
#include "common.h"
#include "guard.h"
#include "redis_srv.h"
#include "redis_verdict.h"

#define NMODES REDIS_NMODES
#define MAX_ROUNDS 3
#define NV 12

static const char *const mode_label[NMODES] = {"never (prctl)", "always, disable-thp yes",
					       "always, disable-thp no", "madvise (control)",
					       "madvise, jemalloc thp:always"};
/*
 * The host's enabled= per mode (NULL: as found, the server's THP off by its
 * prctl); Redis's disable-thp; jemalloc's MALLOC_CONF (NULL: unset). Only the
 * two always modes need the host setting; they run next to each other.
 */
static const char *const mode_host[NMODES] = {NULL, "always", "always", "madvise", "madvise"};
static const bool mode_disable_thp[NMODES] = {true, true, false, false, false};
static const char *const mode_malloc_conf[NMODES] = {NULL, NULL, NULL, NULL, "thp:always"};
enum { K_NEVER, K_YES, K_NO, K_MADV, K_JEMALLOC };

/* One mode's run: the values of the columns, in column order. */
enum {
	V_SRPS,
	V_SP50,
	V_SP99,
	V_GRPS,
	V_GP99,
	V_MAX,
	V_FORK,
	V_COW,
	V_SETS,
	V_AHPB,
	V_AHPA,
	V_SPLIT
};

static const struct lab_coldef cols[NV] = {
	{"SET", "ops/s"},
	{"SET p50", "ms"},
	{"SET p99", "ms"},
	{"GET", "ops/s"},
	{"GET p99", "ms"},
	{"max", "ms"},
	{"fork", "ms"},
	{"rdb_last_cow_size", "kB"},
	{"SETs in BGSAVE", ""},
	{"AnonHugePages before", "kB"},
	{"AnonHugePages after", "kB"},
	{"thp_split_pmd", "+"},
};

struct redis_exe {
	char server[256], bench[256];
};

struct mode_out {
	double v[NV];
	double rss_kb; /* before the BGSAVE */
	char version[24];
	char status[16]; /* rdb_last_bgsave_status */
	int thp_enabled; /* the server's status THP_enabled (0: its prctl), -1 unread */
	char malloc[96]; /* the libjemalloc mapped in the server, "" none seen */
};

/* PID's AnonHugePages and Rss (kB) from smaps_rollup; false when unreadable. */
static bool rollup(const struct lab_ctx *ctx, pid_t pid, double *ahp, double *rss)
{
	struct buf b = {0};
	static struct proc_thp p;
	int err = 0;
	bool ok = proc_thp_collect(ctx->sr, pid, true, &b, &p, &err) == PT_OK;
	buf_free(&b);
	if (ok) {
		*ahp = (double)p.t.kb[SM_ANON_HUGE];
		if (rss)
			*rss = (double)p.t.kb[SM_RSS];
	}
	return ok;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The SET calls the server has served (INFO commandstats), or -1. */
static double set_calls(struct redis_srv *s, char *info, size_t n)
{
	char v[128];
	if (redis_cmd(s, "INFO commandstats", info, n) ||
	    !redis_info_str(info, "cmdstat_set", v, sizeof(v)) || strncmp(v, "calls=", 6))
		return -1;
	return strtod(v + 6, NULL);
}

/* BGSAVE, wait for it (<= 120 s), then the server's INFO figures into M. 0 or -errno. */
static int bgsave(const struct lab_ctx *ctx, struct redis_srv *s, struct mode_out *m, char *why,
		  size_t n)
{
	static char info[1 << 16];
	m->v[V_AHPB] = m->v[V_AHPA] = -1;
	rollup(ctx, s->pid, &m->v[V_AHPB], &m->rss_kb);
	double sets0 = set_calls(s, info, sizeof(info));
	int rc = redis_cmd(s, "BGSAVE", info, sizeof(info));
	if (rc) {
		lab_fmt(why, n, "BGSAVE: %s", rc == -EPROTO ? info : strerror(-rc));
		return rc;
	}
	uint64_t busy = 1;
	for (double t0 = mono_ms(); busy && mono_ms() - t0 < 120000;) {
		sleep_ms(50);
		if ((rc = redis_cmd(s, "INFO persistence", info, sizeof(info))) ||
		    !redis_info_u64(info, "rdb_bgsave_in_progress", &busy)) {
			lab_fmt(why, n, "INFO persistence unreadable");
			return rc ? rc : -EPROTO;
		}
	}
	rollup(ctx, s->pid, &m->v[V_AHPA], NULL);
	double sets1 = set_calls(s, info + 32768, sizeof(info) - 32768);
	m->v[V_SETS] = sets0 >= 0 && sets1 >= sets0 ? sets1 - sets0 : -1;
	uint64_t cow = 0, fork_us = 0;
	m->v[V_COW] = redis_info_u64(info, "rdb_last_cow_size", &cow) ? (double)cow / 1024 : -1;
	redis_info_str(info, "rdb_last_bgsave_status", m->status, sizeof(m->status));
	if (busy) {
		lab_fmt(why, n, "BGSAVE still running after 120 s");
		return -ETIMEDOUT;
	}
	if (!redis_cmd(s, "INFO stats", info, sizeof(info)) &&
	    redis_info_u64(info, "latest_fork_usec", &fork_us))
		m->v[V_FORK] = (double)fork_us / 1000;
	if (!redis_cmd(s, "INFO server", info, sizeof(info)))
		redis_info_str(info, "redis_version", m->version, sizeof(m->version));
	return 0;
}

/* The load with the BGSAVE 0.5 s in; benchmark figures and split delta into M. 0 or -errno. */
static int measure(const struct lab_ctx *ctx, const struct redis_exe *x, struct redis_srv *s,
		   uint64_t nkeys, uint64_t ops, struct mode_out *m, char *why, size_t n)
{
	struct snap a = {0}, b = {0};
	snap_take(ctx->sr, &a);
	int fd = -1;
	pid_t bp = redis_bench_start(s, x->bench, ops, nkeys, &fd);
	if (bp < 0) {
		snap_free(&a);
		lab_fmt(why, n, "redis-benchmark: %s", strerror(-bp));
		return bp;
	}
	sleep_ms(500);
	int rc = bgsave(ctx, s, m, why, n);
	static char out[8192];
	int st = child_collect(bp, fd, out, sizeof(out));
	snap_take(ctx->sr, &b);
	int64_t d;
	m->v[V_SPLIT] = snap_delta(&a, &b, "thp_split_pmd", &d) ? (double)d : -1;
	snap_free(&a);
	snap_free(&b);
	if (rc)
		return rc;
	struct bench_row set, get;
	if (st != 0 || redis_parse_csv(out, &set, &get) != 2) {
		lab_fmt(why, n, "redis-benchmark exited %d, %s", st,
			out[0] ? "its CSV lacked SET or GET" : "no CSV");
		return -EPROTO;
	}
	m->v[V_SRPS] = set.rps;
	m->v[V_SP50] = set.p50_ms;
	m->v[V_SP99] = set.p99_ms;
	m->v[V_GRPS] = get.rps;
	m->v[V_GP99] = get.p99_ms;
	m->v[V_MAX] = set.max_ms > get.max_ms ? set.max_ms : get.max_ms;
	return 0;
}

/* The server's THP_enabled (status) and the jemalloc it mapped (maps) into M. */
static void server_facts(const struct lab_ctx *ctx, pid_t pid, struct mode_out *m)
{
	struct proc_info pi = {0};
	m->thp_enabled = -1;
	if (!proc_read(ctx->sr, pid, PROC_STATUS | PROC_MAPS, &pi)) {
		if (!pi.status_err)
			m->thp_enabled = pi.st.thp_enabled;
		const char *j = !pi.maps_err && pi.maps.p ? strstr(pi.maps.p, "libjemalloc") : NULL;
		const char *b = j;
		while (b && b > pi.maps.p && b[-1] != ' ' && b[-1] != '\n')
			b--;
		if (j)
			snprintf(m->malloc, sizeof(m->malloc), "%.*s", (int)strcspn(b, "\n"), b);
	}
	proc_info_free(&pi);
}

/* Mode K once: host setting, server, load, measure, stop. 0 or -errno (WHY). */
static int run_mode(const struct lab_ctx *ctx, const struct redis_exe *x, int k, uint64_t nkeys,
		    uint64_t ops, struct mode_out *m, char *why, size_t n)
{
	memset(m, 0, sizeof(*m));
	for (int c = 0; c < NV; c++)
		m->v[c] = -1;
	const char *host = mode_host[k] ? mode_host[k] : lab_found_enabled(ctx);
	int rc = host ? lab_set_enabled(ctx, host) : 0;
	if (rc) {
		lab_fmt(why, n, "enabled: %s", strerror(-rc));
		return rc;
	}
	struct redis_srv s;
	int off = k == K_NEVER ? lab_thp_off_begin() : -1;
	if (k == K_NEVER && off < 0) {
		lab_fmt(why, n, "prctl(PR_SET_THP_DISABLE): %s", strerror(-off));
		return off;
	}
	rc = redis_start(&s, x->server, mode_disable_thp[k], mode_malloc_conf[k], why, n);
	lab_thp_off_end(off);
	if (rc)
		return rc;
	server_facts(ctx, s.pid, m);
	if ((rc = redis_load(&s, nkeys)))
		lab_fmt(why, n, "loading %llu keys: %s", (unsigned long long)nkeys, strerror(-rc));
	else
		rc = measure(ctx, x, &s, nkeys, ops, m, why, n);
	redis_stop(&s);
	return rc;
}

/* The medians of the table (MED[mode][col], -1 when absent). */
struct redis_med {
	double v[NMODES][NV];
	double rss_kb[NMODES];
	bool have[NMODES];
};

/* Each round's figures: V[mode][col][round], N[mode] rounds each. */
struct redis_rounds {
	const double (*v)[NV][MAX_ROUNDS];
	const int *n;
};

/* Rounds both modes A and B have (a failed mode stops having them). */
static int common_rounds(const struct redis_rounds *rd, int a, int b)
{
	return rd->n[a] < rd->n[b] ? rd->n[a] : rd->n[b];
}

/* The three claims, and their calls into CALLS (p99, fork, shred). */
static void claims(struct lab_result *r, const struct redis_med *m, const struct redis_rounds *rd,
		   enum claim_call *calls)
{
	const double *nv = m->v[0], *al = m->v[2];
	bool thp = m->have[2] && al[V_AHPB] >= 10240; /* >= 10 MiB huge in the always/no server */
	char here[160], why[200], ds[24], f[3][24];   /* -1: unread, "-" */
	const char *no_thp = redis_no_thp_why(m->have[K_NO], al[V_AHPB]);
	double q[MAX_ROUNDS];
	int nr = common_rounds(rd, K_NEVER, K_NO);
	for (int i = 0; i < nr; i++) {
		double a = rd->v[K_NO][V_SP99][i], b = rd->v[K_NEVER][V_SP99][i];
		q[i] = a >= 0 && b > 0 ? a / b : -1;
	}
	calls[0] = lab_claim_call(q, nr, false, 1.5, 1.2, why, sizeof(why));
	if (!thp)
		calls[0] = CLAIM_INCONCLUSIVE;
	lab_fmt(here, sizeof(here), "SET p99 %s (never) vs %s ms (always) at %s ops/s",
		lab_fmt_num(f[0], sizeof(f[0]), nv[V_SP99], 2),
		lab_fmt_num(f[1], sizeof(f[1]), al[V_SP99], 2),
		lab_fmt_num(f[2], sizeof(f[2]), al[V_SRPS], 0));
	lab_claim(r, "p99 0.8 ms (never) vs 2.1 ms (always)", "Redis 7.2, 150k ops/s, kernel 6.8",
		  here, calls[0], "%s", thp ? why : no_thp);
	/* fork time per GiB of Rss (Rss from the last round: the same keys every round) */
	double gn = m->rss_kb[0] / 1048576, ga = m->rss_kb[2] / 1048576;
	double fn = gn > 0 && nv[V_FORK] >= 0 ? nv[V_FORK] / gn : -1;
	double fa = ga > 0 && al[V_FORK] >= 0 ? al[V_FORK] / ga : -1;
	for (int i = 0; i < nr; i++) {
		double a = rd->v[K_NO][V_FORK][i], b = rd->v[K_NEVER][V_FORK][i];
		q[i] = ga > 0 && gn > 0 && a >= 0 && b > 0 ? (a / ga) / (b / gn) : -1;
	}
	calls[1] = lab_claim_call(q, nr, true, 0.5, 0.9, why, sizeof(why));
	if (!thp)
		calls[1] = CLAIM_INCONCLUSIVE;
	char sfa[24] = "-", sfn[24] = "-";
	if (fa >= 0)
		lab_fmt(sfa, sizeof(sfa), "%.2f", fa);
	if (fn >= 0)
		lab_fmt(sfn, sizeof(sfn), "%.2f", fn);
	lab_fmt(here, sizeof(here), "fork %s (always, no) vs %s (never) ms per GiB of Rss", sfa,
		sfn);
	lab_claim(r, "fork 0.38 ms vs 3.04 ms per GiB, THP faster", "Redis fork time, kernel 6.10",
		  here, calls[1], "%s", thp ? why : no_thp);
	/* Redis skips its LRU writes while a child runs: only SETs can split during a BGSAVE */
	bool few = thp && al[V_SETS] < 1000;
	int ns = rd->n[K_NO];
	for (int i = 0; i < ns; i++) {
		double a = rd->v[K_NO][V_AHPA][i], b = rd->v[K_NO][V_AHPB][i];
		q[i] = a >= 0 && b > 0 ? a / b : -1;
	}
	calls[2] = lab_claim_call(q, ns, true, 0.5, 0.9, why, sizeof(why));
	if (!thp || few)
		calls[2] = CLAIM_INCONCLUSIVE;
	lab_fmt(here, sizeof(here),
		"AnonHugePages %s -> %s kB across a BGSAVE with %s SETs, thp_split_pmd %s (host-wide)",
		lab_fmt_num(f[0], sizeof(f[0]), al[V_AHPB], 0),
		lab_fmt_num(f[1], sizeof(f[1]), al[V_AHPA], 0),
		lab_fmt_num(f[2], sizeof(f[2]), al[V_SETS], 0),
		lab_fmt_delta(ds, sizeof(ds), al[V_SPLIT] < 0 ? NAN : al[V_SPLIT]));
	lab_claim(r, "one BGSAVE shreds the huge pages", "Redis BGSAVE, kernel 6.10", here,
		  calls[2], "%s",
		  !thp	? no_thp
		  : few ? "under 1000 SETs during the BGSAVE"
			: why);
}

/* Rows from the rounds' values V[mode][col][round], the medians into M. */
static void rows(struct lab_result *r, double (*v)[NV][MAX_ROUNDS], const int *n,
		 const struct mode_out *last, struct redis_med *m)
{
	for (int k = 0; k < NMODES; k++) {
		for (int c = 0; c < NV; c++)
			m->v[k][c] = -1;
		m->have[k] = n[k] > 0;
		m->rss_kb[k] = last[k].rss_kb;
		if (!n[k])
			continue;
		int row = lab_row_add(r, mode_label[k]);
		for (int c = 0; c < NV; c++) {
			double s[MAX_ROUNDS]; /* none read: the cell stays "-" */
			size_t ns = lab_values_read(s, v[k][c], n[k]);
			if (ns && row >= 0) {
				lab_cell_set(r, row, c, s, ns);
				m->v[k][c] = r->rows[row].c[c].median;
			}
			/* each round per mode, for the report's strip plots */
			if (ns && (c == V_SRPS || c == V_SP99))
				lab_series_add(r, c == V_SRPS ? "set-ops" : "set-p99",
					       mode_label[k], LAB_SER_SAMPLES,
					       c == V_SRPS ? "SET throughput" : "SET p99",
					       cols[c].unit, s, NULL, NULL, NULL, ns);
		}
		char key[48], f[4][24]; /* -1: not read, "-" */
		snprintf(key, sizeof(key), "%s server", mode_label[k]);
		lab_proof(
			r, key,
			"smaps_rollup AnonHugePages %s kB before the BGSAVE, %s kB after; Rss %s kB; BGSAVE %s; status THP_enabled %s",
			lab_fmt_num(f[0], sizeof(f[0]), last[k].v[V_AHPB], 0),
			lab_fmt_num(f[1], sizeof(f[1]), last[k].v[V_AHPA], 0),
			lab_fmt_num(f[2], sizeof(f[2]), last[k].rss_kb, 0),
			last[k].status[0] ? last[k].status : "-",
			lab_fmt_num(f[3], sizeof(f[3]), last[k].thp_enabled, 0));
	}
}

/*
 * The one line an operator wants, decided from the calls C (p99, fork,
 * shred) and the madvise control's backing; undecided when the p99 call is.
 */
static void redis_advice(struct lab_result *r, const struct lab_ctx *ctx, const struct redis_med *m,
			 const enum claim_call *c)
{
	const char *found = lab_found_enabled(ctx);
	double madv = m->have[K_MADV] ? m->v[K_MADV][V_AHPB] : -1;
	char host[96] = "";
	if (found && madv >= 0)
		lab_fmt(host, sizeof(host), "; under enabled=%s (as found) it had %.0f kB huge",
			found, madv);
	if (c[0] == CLAIM_CONFIRMED)
		lab_fmt(r->advice, sizeof(r->advice),
			"For Redis here: keep `disable-thp yes` (the default): THP raised its SET "
			"p99 by 1.5x or more in every round%s",
			host);
	else if (c[0] == CLAIM_CONTRADICTED)
		lab_fmt(r->advice, sizeof(r->advice),
			"For Redis here: THP did not raise SET p99 (every round within 1.2x); "
			"`disable-thp no` is an option%s%s",
			c[1] == CLAIM_CONFIRMED ? " (fork faster with THP)" : "",
			c[2] == CLAIM_CONFIRMED ? ", but a BGSAVE splits its huge pages" : "");
	else {
		/* the why's first clause, whole ("one round (0.97x)"): its rest is in the claim */
		const char *why = r->nclaims ? r->claims[0].why : "not measured";
		lab_fmt(r->advice, sizeof(r->advice),
			"For Redis here: undecided (the p99 claim is inconclusive: %.*s); keep "
			"`disable-thp yes` (the default) until a run without --quick decides",
			(int)strcspn(why, ":"), why);
	}
}

/* The backing each mode should have had (redis_backing()), the claims, the verdict, the advice. */
static void verdict(struct lab_result *r, const struct lab_ctx *ctx, const struct redis_med *m,
		    const struct redis_rounds *rd)
{
	enum claim_call c[3];
	claims(r, m, rd, c);
	double ahp[NMODES];
	for (int k = 0; k < NMODES; k++)
		ahp[k] = m->have[k] ? m->v[k][V_AHPB] : -1;
	char text[LAB_VERDICT_LEN];
	enum redis_call call = redis_backing(mode_label, m->have, ahp, text, sizeof(text));
	lab_verdict(r, call == REDIS_AS_EXPECTED,
		    "%s%s; p99 claim %s; fork claim %s; BGSAVE-shreds claim %s",
		    call == REDIS_UNEXPECTED ? "UNEXPECTED backing: " : "", text,
		    claim_call_name(c[0]), claim_call_name(c[1]), claim_call_name(c[2]));
	r->inconclusive = call == REDIS_INCONCLUSIVE;
	redis_advice(r, ctx, m, c);
}

/* Both programs on $PATH into X, or R says how to install them. 0 or -ENOENT. */
static int find_programs(struct lab_result *r, struct redis_exe *x)
{
	const char *miss = redis_find("redis-server", x->server, sizeof(x->server)) ? "redis-server"
			   : redis_find("redis-benchmark", x->bench, sizeof(x->bench))
				   ? "redis-benchmark"
				   : NULL;
	if (!miss)
		return 0;
	lab_skip_missing(
		r,
		"%s not found: install with scripts/install-deps --workloads (Debian: redis-server redis-tools)",
		miss);
	return -ENOENT;
}

static int lab_redis(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	struct redis_exe x;
	if (find_programs(r, &x))
		return 0;
	uint64_t size;
	if (lab_begin_write(
		    ctx, o, "set enabled=never/always", 1ull << 30, r, &size,
		    "redis-server under SET/GET load with a BGSAVE: never, always (disable-thp yes/no), madvise (+jemalloc thp:always)"))
		return 0;
	uint64_t nkeys = size / 1024, ops = o->quick ? 200000 : 600000;
	int rounds = o->quick ? 1 : o->runs < MAX_ROUNDS ? o->runs : MAX_ROUNDS;
	r->runs = rounds;
	lab_cols_add(r, cols, NV, NULL);
	snprintf(r->col_scope, sizeof(r->col_scope), "program"); /* the server and its benchmark */
	static double v[NMODES][NV][MAX_ROUNDS];
	static struct mode_out last[NMODES];
	int n[NMODES] = {0};
	bool failed[NMODES] = {false};
	for (int i = 0; i < rounds; i++)
		for (int kk = 0; kk < NMODES; kk++) {
			int k = i % 2 ? NMODES - 1 - kk
				      : kk; /* ABCDE EDCBA: drift hits both sides */
			if (failed[k])
				continue;
			lab_progress_run(o, "redis", size, mode_label[k], i, rounds);
			struct mode_out mo;
			char why[160] = "";
			int rc = run_mode(ctx, &x, k, nkeys, ops, &mo, why, sizeof(why));
			if (rc) {
				lab_proof(r, mode_label[k], "failed: %s",
					  why[0] ? why : strerror(-rc));
				r->partial = failed[k] = true;
				continue;
			}
			for (int c = 0; c < NV; c++)
				v[k][c][n[k]] = mo.v[c];
			n[k]++;
			last[k] = mo;
		}
	lab_progress_done(o);
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	const char *ver = "-"; /* from a mode that ran */
	for (int k = 0; k < NMODES && ver[0] == '-'; k++)
		if (n[k] && last[k].version[0])
			ver = last[k].version;
	lab_proof(
		r, "setup",
		"Redis %s, kernel %s, %llu keys x %d B (%s), %llu SET + %llu GET per run (50 clients), BGSAVE 0.5 s in; thp_split_pmd is host-wide",
		ver, ctx->feat->release, (unsigned long long)nkeys, REDIS_VALUE_BYTES, sz,
		(unsigned long long)ops, (unsigned long long)ops);
	if (!n[K_JEMALLOC])
		lab_proof(
			r, "jemalloc",
			"not known: the madvise, jemalloc thp:always mode gave no figures (failed: "
			"see its proof)");
	else
		lab_proof(
			r, "jemalloc",
			"%s mapped in the madvise, jemalloc thp:always server, started with MALLOC_CONF=thp:always (unset in the others); disable-thp no",
			last[K_JEMALLOC].malloc[0] ? last[K_JEMALLOC].malloc
						   : "no libjemalloc seen");
	struct redis_med m;
	rows(r, v, n, last, &m);
	struct redis_rounds rd = {(const double(*)[NV][MAX_ROUNDS])v, n};
	verdict(r, ctx, &m, &rd);
	return r->nrows ? 0 : -EIO; /* no mode gave figures: a failed run (exit 1) */
}

LAB_EXPERIMENT_DEFINE(
	"redis", 200, lab_redis,
	"redis-server + redis-benchmark with a BGSAVE: never, always (disable-thp yes/no), madvise (+jemalloc thp:always)",
	.quick = {.size = (256ull << 20)}, .workload = true,
	.host = {"enabled=always for its two always modes (the never mode uses a prctl)", 40, 240,
		 true, NULL});
