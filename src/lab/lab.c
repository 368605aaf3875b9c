// SPDX-License-Identifier: MIT
#include "lab.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>

#include "../util/clock.h"
#include "../util/names.h"
#include "../util/stats.h"
#include "../util/units.h"
#include "guard.h"

/* The entries LAB_EXPERIMENT() put in section thpctl_lab (the linker names its bounds). */
extern const struct lab_experiment *const __start_thpctl_lab[];
extern const struct lab_experiment *const __stop_thpctl_lab[];

/* The section's bounds as addresses: they are two symbols, not one array, to ISO C. */
size_t lab_count(void)
{
	return ((uintptr_t)__stop_thpctl_lab - (uintptr_t)__start_thpctl_lab) /
	       sizeof(__start_thpctl_lab[0]);
}

/* The entry with the smallest order above AFTER (FIRST: the smallest of all). */
static const struct lab_experiment *next_after(int after, bool first)
{
	const struct lab_experiment *best = NULL;
	for (size_t i = 0; i < lab_count(); i++) {
		const struct lab_experiment *e = __start_thpctl_lab[i];
		if ((first || e->order > after) && (!best || e->order < best->order))
			best = e;
	}
	return best;
}

const struct lab_experiment *lab_first(void)
{
	return next_after(0, true);
}

const struct lab_experiment *lab_next(const struct lab_experiment *x)
{
	return next_after(x->order, false);
}

const struct lab_experiment *lab_find(const char *name)
{
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

bool lab_changes_host(const struct lab_experiment *x, const struct lab_opts *o)
{
	return x->host.what && (!x->host.only_if || x->host.only_if(o));
}

struct lab_opts lab_quick_opts(const struct lab_experiment *x, const struct lab_opts *o)
{
	struct lab_opts eo = *o;
	const struct lab_quick *q = &x->quick;
	if (q->size && !o->size) {
		eo.size = q->size;
		if (x->size_list) {
			eo.sizes[0] = q->size;
			eo.nsizes = 1;
		}
	}
	if (q->mthp_kb && !o->n_mthp_sizes) {
		eo.mthp_sizes_kb[0] = q->mthp_kb;
		eo.n_mthp_sizes = 1;
	}
	if (q->steps && !o->steps)
		eo.steps = q->steps;
	return eo;
}

int lab_run(const struct lab_experiment *x, const struct lab_ctx *ctx, const struct lab_opts *o,
	    struct lab_result *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->experiment, sizeof(r->experiment), "%s", x->name);
	snprintf(r->state, sizeof(r->state), "%s", lab_state_name(o->state));
	r->runs = o->runs;
	bool lb = lab_loadavg(r->load_before) == 0;
	double t0 = mono_ms(), c0 = lab_cpu_ms();
	int ret = x->fn(ctx, o, r);
	if (!r->title[0]) /* skipped before its title was set: its line from `lab list` */
		snprintf(r->title, sizeof(r->title), "%s", x->help);
	r->wall_ms = mono_ms() - t0;
	r->cpu_ms = lab_cpu_ms() - c0;
	r->load_ok = lb && lab_loadavg(r->load_after) == 0;
	if (r->load_ok)
		lab_proof(r, "load",
			  "load average %.2f %.2f %.2f before, %.2f %.2f %.2f after (1, 5, 15 min, "
			  "host-wide: other work shares the CPUs); %.1f s wall, %.1f s CPU",
			  r->load_before[0], r->load_before[1], r->load_before[2], r->load_after[0],
			  r->load_after[1], r->load_after[2], r->wall_ms / 1000, r->cpu_ms / 1000);
	/* whatever an experiment changed on the host goes back now, not only at exit */
	if (guard_restore())
		ret = -EIO;
	return ret;
}

double lab_cpu_ms(void)
{
	struct rusage s, c;
	if (getrusage(RUSAGE_SELF, &s) || getrusage(RUSAGE_CHILDREN, &c))
		return 0;
	double us = 0;
	const struct timeval *tv[4] = {&s.ru_utime, &s.ru_stime, &c.ru_utime, &c.ru_stime};
	for (int i = 0; i < 4; i++)
		us += (double)tv[i]->tv_sec * 1e6 + (double)tv[i]->tv_usec;
	return us / 1000;
}

int lab_loadavg(double l[3])
{
	struct sysinfo si;
	if (sysinfo(&si))
		return -errno;
	for (int i = 0; i < 3; i++)
		l[i] = (double)si.loads[i] / (double)(1 << SI_LOAD_SHIFT);
	return 0;
}

const char *lab_mode_name(enum lab_mode m)
{
	static const char *const n[MODE_NMODES] = {"plain", "madv", "nohuge", "nothp", "collapse"};
	return ENUM_NAME(n, m, "?");
}

const char *lab_state_name(enum lab_state s)
{
	return s == STATE_WARM ? "warm" : s == STATE_COLD ? "cold" : "asis";
}

int lab_col_add(struct lab_result *r, const char *name, const char *unit)
{
	if (r->ncols == LAB_MAX_COLS)
		return -1;
	struct lab_col *c = &r->cols[r->ncols];
	if (strlen(name) >= sizeof(c->name) || (unit && strlen(unit) >= sizeof(c->unit))) {
		/* a cut name would be a JSON key no reader expects: a defect, said, no column */
		fprintf(stderr, "thpctl: internal: lab column '%.40s' is over %zu characters\n",
			name, sizeof(c->name) - 1);
		return -1;
	}
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->unit, sizeof(c->unit), "%s", unit ? unit : "");
	return r->ncols++;
}

int lab_row_add(struct lab_result *r, const char *label)
{
	if (r->nrows == LAB_MAX_ROWS)
		return -1;
	struct lab_row *row = &r->rows[r->nrows];
	memset(row, 0, sizeof(*row));
	snprintf(row->label, sizeof(row->label), "%s", label);
	return r->nrows++;
}

void lab_cell_set(struct lab_result *r, int row, int col, const double *v, size_t n)
{
	if (row < 0 || col < 0 || row >= r->nrows || col >= r->ncols || !n)
		return;
	double tmp[256];
	if (n > 256)
		n = 256;
	size_t k = 0; /* a NaN could not be read: left out, and the result is partial */
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			tmp[k++] = v[i];
	if (k < n)
		r->partial = true;
	if (!k)
		return; /* no known value: the cell stays empty ("-", JSON null) */
	n = k;
	struct summary s;
	summarize(tmp, n, &s);
	struct lab_cell *c = &r->rows[row].c[col];
	c->present = true;
	c->median = s.median;
	c->min = s.min;
	c->max = s.max;
	c->range = n > 1;
}

void lab_cell_set1(struct lab_result *r, int row, int col, double v)
{
	lab_cell_set(r, row, col, &v, 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int lab_series_add(struct lab_result *r, const char *chart, const char *name,
		   enum lab_series_kind kind, const char *ylabel, const char *yunit,
		   const double *y, const char *xlabel, const char *xunit, const double *x,
		   size_t n)
{
	if (r->nseries == LAB_MAX_SERIES)
		return -1;
	struct lab_series *s = &r->series[r->nseries];
	memset(s, 0, sizeof(*s));
	snprintf(s->chart, sizeof(s->chart), "%s", chart);
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->ylabel, sizeof(s->ylabel), "%s", ylabel ? ylabel : "");
	snprintf(s->yunit, sizeof(s->yunit), "%s", yunit ? yunit : "");
	snprintf(s->xlabel, sizeof(s->xlabel), "%s", xlabel ? xlabel : "");
	snprintf(s->xunit, sizeof(s->xunit), "%s", xunit ? xunit : "");
	s->kind = kind;
	s->n_total = n;
	if (kind == LAB_SER_LINE || n <= LAB_SERIES_POINTS) {
		s->n = n > LAB_SERIES_POINTS ? LAB_SERIES_POINTS : (int)n;
		for (int i = 0; i < s->n; i++) {
			s->y[i] = y[i];
			s->x[i] = x ? x[i] : i;
		}
		return r->nseries++;
	}
	double *t = malloc(n * sizeof(*t));
	if (!t)
		return -1;
	memcpy(t, y, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	s->n = LAB_SERIES_POINTS;
	for (int i = 0; i < s->n; i++) {
		size_t k = (size_t)((double)i * (double)(n - 1) / (LAB_SERIES_POINTS - 1) + 0.5);
		s->y[i] = t[k];
		s->x[i] = i;
	}
	free(t);
	return r->nseries++;
}

/* BUF (N >= 4 bytes) ends in "..." after a whole UTF-8 character: said as cut. */
static void mark_cut(char *buf, size_t n)
{
	size_t at = n - 4;
	while (at > 0 && ((unsigned char)buf[at] & 0xC0) == 0x80)
		at--;
	memcpy(buf + at, "...", 4);
}

bool lab_vfmt(char *buf, size_t n, const char *fmt, va_list ap)
{
	if (n < 4) {
		if (n)
			buf[0] = '\0';
		return true;
	}
	int w = vsnprintf(buf, n, fmt, ap);
	if (w >= 0 && (size_t)w < n)
		return false;
	mark_cut(buf, n);
	return true;
}

bool lab_catf(char *buf, size_t n, size_t *off, const char *fmt, ...)
{
	if (n < 4 || *off >= n)
		return true; /* full: already said */
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *off, n - *off, fmt, ap);
	va_end(ap);
	if (w >= 0 && (size_t)w < n - *off) {
		*off += (size_t)w;
		return false;
	}
	if (w < 0) /* nothing usable written: the cut is where it stood */
		buf[*off] = '\0';
	if (w < 0 && n - *off >= 4)
		memcpy(buf + *off, "...", 4);
	else
		mark_cut(buf, n);
	*off = n;
	return true;
}

bool lab_fmt(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool cut = lab_vfmt(buf, n, fmt, ap);
	va_end(ap);
	return cut;
}

void lab_proof(struct lab_result *r, const char *key, const char *fmt, ...)
{
	if (r->nproofs == LAB_MAX_PROOFS)
		return;
	struct lab_proof *p = &r->proofs[r->nproofs++];
	lab_fmt(p->key, sizeof(p->key), "%s", key);
	va_list ap;
	va_start(ap, fmt);
	lab_vfmt(p->value, sizeof(p->value), fmt, ap);
	va_end(ap);
}

int lab_runs_of(const struct lab_result *r, int *lo, int *hi)
{
	int a = r->runs, b = r->runs;
	bool any = false;
	for (int i = 0; i < r->nrows; i++) {
		int k = r->rows[i].runs;
		if (k <= 0)
			continue;
		if (!any || k < a)
			a = k;
		if (!any || k > b)
			b = k;
		any = true;
	}
	if (lo)
		*lo = a;
	if (hi)
		*hi = b;
	return a == b ? a : -1;
}

const char *claim_call_name(enum claim_call c)
{
	static const char *const names[] = {
		[CLAIM_CONFIRMED] = "confirmed",
		[CLAIM_CONTRADICTED] = "contradicted",
		[CLAIM_INCONCLUSIVE] = "inconclusive",
	};
	return ENUM_NAME(names, c, "?");
}

void lab_claim(struct lab_result *r, const char *claim, const char *source, const char *here,
	       enum claim_call call, const char *why_fmt, ...)
{
	if (r->nclaims == LAB_MAX_CLAIMS)
		return;
	struct lab_claim *c = &r->claims[r->nclaims++];
	lab_fmt(c->claim, sizeof(c->claim), "%s", claim);
	lab_fmt(c->source, sizeof(c->source), "%s", source);
	lab_fmt(c->here, sizeof(c->here), "%s", here);
	c->call = call;
	va_list ap;
	va_start(ap, why_fmt);
	lab_vfmt(c->why, sizeof(c->why), why_fmt, ap);
	va_end(ap);
}

/* One ratio's call against the bounds. */
static enum claim_call call_one(double ratio, bool lower_confirms, double yes, double no)
{
	if (ratio < 0)
		return CLAIM_INCONCLUSIVE;
	if (lower_confirms ? ratio <= yes : ratio >= yes)
		return CLAIM_CONFIRMED;
	if (lower_confirms ? ratio >= no : ratio <= no)
		return CLAIM_CONTRADICTED;
	return CLAIM_INCONCLUSIVE;
}

enum claim_call lab_claim_call(const double *ratio, int n, bool lower_confirms, double yes,
			       double no, char *why, size_t wn)
{
	char list[96] = "", bounds[80];
	size_t off = 0;
	bool missing = n <= 0;
	for (int i = 0; i < n; i++) {
		missing |= !(ratio[i] >= 0);
		lab_catf(list, sizeof(list), &off, "%s%.2fx", i ? ", " : "", ratio[i]);
	}
	snprintf(bounds, sizeof(bounds), "confirmed at %s%.2fx, contradicted at %s%.2fx",
		 lower_confirms ? "<= " : ">= ", yes, lower_confirms ? ">= " : "<= ", no);
	if (missing) {
		lab_fmt(why, wn, "not measured");
		return CLAIM_INCONCLUSIVE;
	}
	enum claim_call c = call_one(ratio[0], lower_confirms, yes, no);
	int agree = 0;
	for (int i = 0; i < n; i++)
		agree += call_one(ratio[i], lower_confirms, yes, no) == c;
	if (n == 1) {
		lab_fmt(why, wn,
			"one round (%s): the modes ran once each, in turn, so a load change "
			"between them is not told apart from the mode (%s; 2+ rounds: no --quick)",
			list, bounds);
		return CLAIM_INCONCLUSIVE;
	}
	if (agree < n) {
		lab_fmt(why, wn, "the %d rounds disagree (%s; %s)", n, list, bounds);
		return CLAIM_INCONCLUSIVE;
	}
	lab_fmt(why, wn, "%d rounds agree (%s): %s%s", n, list, bounds,
		c == CLAIM_INCONCLUSIVE ? ", each between the bounds" : "");
	return c;
}

/* R's verdict from FMT and AP; EXPECTED says whether it is the outcome the experiment expects. */
static void verdict_v(struct lab_result *r, bool expected, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void verdict_v(struct lab_result *r, bool expected, const char *fmt, va_list ap)
{
	r->expected = expected;
	lab_vfmt(r->verdict, sizeof(r->verdict), fmt, ap);
}

void lab_verdict(struct lab_result *r, bool expected, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verdict_v(r, expected, fmt, ap);
	va_end(ap);
}

void lab_skip(struct lab_result *r, const char *fmt, ...)
{
	r->skipped = true;
	va_list ap;
	va_start(ap, fmt);
	verdict_v(r, true, fmt, ap);
	va_end(ap);
}

void lab_skip_missing(struct lab_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verdict_v(r, false, fmt, ap);
	va_end(ap);
	r->skipped = r->optional = true;
}

size_t lab_mw_min_per_side(double conf)
{
	for (size_t k = 2; k <= STATS_MW_MAX; k++)
		if (stats_mw_rank(k, k, conf, NULL) > 0)
			return k;
	return 0;
}

enum faster_call lab_faster_call(const struct ratio_ci *ci, double r)
{
	if (!ci)
		return FASTER_BAD;
	if (!ci->ok)
		return FASTER_FEW;
	if (ci->lo > 1)
		return FASTER_YES;
	if (ci->hi < 1)
		return FASTER_SLOWER;
	if (ci->lo >= 1 / (1 + r) && ci->hi <= 1 + r)
		return FASTER_SAME;
	return FASTER_FEW;
}

int lab_runs_to_decide(const struct ratio_ci *ci, int runs, double r)
{
	if (!ci || !ci->ok || runs < 1 || lab_faster_call(ci, r) != FASTER_FEW)
		return 0;
	/* in ratio terms, near 1 as the logarithms: half-width, and the room each answer needs */
	double half = (ci->hi - ci->lo) / 2, off = ci->est > 1 ? ci->est - 1 : 1 - ci->est;
	double room = off > r - off ? off : r - off;
	if (room <= 0 || half <= 0)
		return 10000;
	double need = (double)runs * (half / room) * (half / room);
	if (need >= 10000)
		return 10000;
	int k = (int)need;
	return k < need ? k + 1 : k;
}

int lab_faster_clause(char *out, size_t n, const struct faster_in *in)
{
	const struct ratio_ci *ci = in->ci;
	enum faster_call c = lab_faster_call(ci, in->r);
	/* "huge faster" in %: 1 - huge/small, so small/huge = R gives 1 - 1/R */
	bool ok = ci && ci->ok;
	double lo = ok ? (1 - 1 / ci->lo) * 100 : 0, hi = ok ? (1 - 1 / ci->hi) * 100 : 0;
	double pct = in->small_ns > 0 ? (in->small_ns - in->huge_ns) / in->small_ns * 100 : 0;
	double rp = in->r * 100;
	int need = lab_runs_to_decide(ci, in->runs, in->r);
	if (c == FASTER_FEW && ok && need > in->max_runs)
		c = FASTER_NOISY;
	char head[LAB_CLAUSE_LEN], lv[16], iv[64];
	snprintf(lv, sizeof(lv), "%.4g%%", in->conf * 100);
	char blo[24], bhi[24]; /* a decided interval never prints onto 0 */
	fmt_bound(blo, sizeof(blo), lo, 0, 1);
	fmt_bound(bhi, sizeof(bhi), hi, 0, 1);
	snprintf(iv, sizeof(iv), "%s CI %s%%..%s%%", lv, blo, bhi);
	/* decided, and inside the resolution: a gap measured tightly, said as small */
	bool small_gap = ok && ci->lo >= 1 / (1 + in->r) && ci->hi <= 1 + in->r;
	char gap[64];
	snprintf(gap, sizeof(gap), ", by less than the %.0f%% that matters", rp);
	switch (c) {
	case FASTER_YES:
		snprintf(head, sizeof(head), "faster%s (%s)", small_gap ? gap : "", iv);
		break;
	case FASTER_SLOWER:
		snprintf(head, sizeof(head), "slower: unexpected%s (%s)", small_gap ? gap : "", iv);
		break;
	case FASTER_SAME:
		snprintf(head, sizeof(head), "no difference beyond +-%.0f%% (%s)", rp, iv);
		break;
	case FASTER_NOISY:
		snprintf(head, sizeof(head),
			 "inconclusive: host too noisy (%s spans 0, wider than +-%.0f%%, after %d "
			 "run%s; at this spread about %d%s would decide, more than the %d an "
			 "interval takes)",
			 iv, rp, in->runs, in->runs == 1 ? "" : "s", need, need >= 10000 ? "+" : "",
			 in->max_runs);
		break;
	case FASTER_BAD:
		/* no interval: the reason is a bad value, not the count or the noise */
		snprintf(head, sizeof(head),
			 "inconclusive: no interval (a measurement was not a positive time)");
		break;
	default:
		if (!ok)
			snprintf(head, sizeof(head),
				 "inconclusive: too few runs for an interval (%zu per backing; a "
				 "%s interval needs %zu)",
				 in->per_side, lv, lab_mw_min_per_side(in->conf));
		else
			snprintf(head, sizeof(head),
				 "inconclusive: too few runs for this spread (%s spans 0, wider "
				 "than +-%.0f%%, after %d run%s; about %d would decide: --runs %d)",
				 iv, rp, in->runs, in->runs == 1 ? "" : "s", need, need);
		break;
	}
	lab_fmt(out, n, "%s: huge %.1f%% %s by the medians (%.1f vs %.1f ns)", head,
		pct < 0 ? -pct : pct, pct < 0 ? "slower" : "faster", in->huge_ns, in->small_ns);
	return (int)c;
}

enum mthp_call lab_mthp_call(const struct mthp_seen *s)
{
	if (!s->folios_read || (!s->folios && s->others_on))
		return MTHP_NOT_TESTED;
	if (!s->folios || s->ahp_kb)
		return MTHP_UNEXPECTED;
	if (s->others_on)
		return MTHP_AS_EXPECTED; /* seen, but other sizes take faults too: no exact shape */
	bool covered = (double)s->folios + s->fallback >= (double)s->expect;
	bool counted = !s->stats || s->min_alloc >= (double)s->folios;
	return covered && counted ? MTHP_AS_EXPECTED : MTHP_UNEXPECTED;
}

enum kh_call lab_kh_call(const struct kh_seen *s)
{
	if (s->got && !s->expect_collapse)
		return KH_FORBIDDEN;
	if (s->full && s->expect_collapse)
		return KH_FULL;
	if (s->settled && s->full_scans >= 2)
		return s->got		    ? KH_PARTIAL_SETTLED
		       : s->expect_collapse ? KH_NONE_ALLOWED
					    : KH_NONE_SETTLED;
	if (s->full_scans < 2)
		return KH_NO_FULL_SCAN;
	return KH_CUT_OFF;
}
