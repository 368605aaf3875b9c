// SPDX-License-Identifier: MIT
#include "stalls.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"
#include "../util/num.h"
#include "../util/stats.h"

static const char *const ev_names[TEV_N] = {
	[TEV_OTHER] = "other",
	[TEV_COMPACT_BEGIN] = "mm_compaction_begin",
	[TEV_COMPACT_END] = "mm_compaction_end",
	[TEV_COMPACT_TRY] = "mm_compaction_try_to_compact_pages",
	[TEV_RECLAIM_BEGIN] = "mm_vmscan_direct_reclaim_begin",
	[TEV_RECLAIM_END] = "mm_vmscan_direct_reclaim_end",
	[TEV_SCAN_PMD] = "mm_khugepaged_scan_pmd",
	[TEV_COLLAPSE] = "mm_collapse_huge_page",
	[TEV_COLLAPSE_ISOLATE] = "mm_collapse_huge_page_isolate",
	[TEV_SCAN_FILE] = "mm_khugepaged_scan_file",
	[TEV_COLLAPSE_FILE] = "mm_khugepaged_collapse_file",
	[TEV_LOST] = "lost",
};

const char *trace_ev_name(enum trace_ev ev)
{
	return ev < TEV_N ? ev_names[ev] : "other";
}

const char *stall_kind_name(enum stall_kind k)
{
	return k == STALL_COMPACTION ? "compaction" : k == STALL_RECLAIM ? "reclaim" : "?";
}

/* ---- line parser ---------------------------------------------------------- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Decimal S[0..N) (digits only) into *OUT; false when empty, not digits or too large. */
static bool dec(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (!n || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* "CPU:N [LOST M EVENTS]" (trace.c, print_trace_line's lost-events notice). */
static int parse_lost(const char *s, size_t n, struct trace_line *out)
{
	size_t i = 4, a = i;
	while (i < n && is_digit(s[i]))
		i++;
	uint64_t cpu, lost;
	if (!dec(s + a, i - a, &cpu) || n - i < 7 || memcmp(s + i, " [LOST ", 7))
		return -EINVAL;
	i += 7;
	a = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (!dec(s + a, i - a, &lost) || n - i < 8 || memcmp(s + i, " EVENTS]", 8))
		return -EINVAL;
	out->ev = TEV_LOST;
	out->lost = lost;
	out->lost_cpu = cpu > 1u << 20 ? -1 : (int)cpu;
	return 0;
}

/* A timestamp token "SECS.FRAC:" (or "COUNT:" of a raw clock) into ns. */
static bool parse_ts(const char *s, size_t n, uint64_t *ns)
{
	if (n < 2 || s[n - 1] != ':')
		return false;
	n--;
	const char *dot = memchr(s, '.', n);
	uint64_t secs, frac = 0;
	if (!dot)
		return dec(s, n, ns); /* counter / x86-tsc clocks: a raw count */
	size_t sl = (size_t)(dot - s), fl = n - sl - 1;
	if (!dec(s, sl, &secs) || !fl || fl > 9 || !dec(dot + 1, fl, &frac))
		return false;
	for (size_t i = fl; i < 9; i++)
		frac *= 10;
	*ns = secs * 1000000000ull + frac;
	return true;
}

static enum trace_ev ev_of(const char *name, size_t n)
{
	for (int e = TEV_COMPACT_BEGIN; e < TEV_LOST; e++)
		if (strlen(ev_names[e]) == n && memcmp(ev_names[e], name, n) == 0)
			return (enum trace_ev)e;
	return TEV_OTHER;
}

/* Next blank-separated token of S[*i..N): [*tok, *tok + *len). False at the end. */
static bool token(const char *s, size_t n, size_t *i, const char **tok, size_t *len)
{
	while (*i < n && s[*i] == ' ')
		(*i)++;
	if (*i >= n)
		return false;
	size_t a = *i;
	while (*i < n && s[*i] != ' ')
		(*i)++;
	*tok = s + a;
	*len = *i - a;
	return true;
}

static bool all_dashes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != '-')
			return false;
	return n > 0;
}

/*
 * The header left of the cpu column, S[I..E): "comm-pid" and an optional
 * "(tgid)". False when it does not have that shape.
 */
static bool parse_task(const char *s, size_t i, size_t e, struct trace_line *out)
{
	while (e > i && s[e - 1] == ' ')
		e--;
	out->tgid = -1;
	if (e > i && s[e - 1] == ')') {
		size_t o = e - 1;
		while (o > i && s[o] != '(')
			o--;
		if (s[o] != '(')
			return false;
		size_t a = o + 1, b = e - 1;
		while (a < b && s[a] == ' ')
			a++;
		uint64_t tg;
		if (dec(s + a, b - a, &tg) && tg <= 0x7fffffff)
			out->tgid = (int)tg;
		else if (!all_dashes(s + a, b - a))
			return false; /* else "(-------)": tgid unknown */
		e = o;
		while (e > i && s[e - 1] == ' ')
			e--;
	}
	size_t d = e;
	while (d > i && is_digit(s[d - 1]))
		d--;
	uint64_t pid;
	if (d == e || d == i || s[d - 1] != '-' || !dec(s + d, e - d, &pid) || pid > 0x7fffffff)
		return false;
	out->pid = (int)pid;
	size_t cl = d - 1 - i;
	if (cl >= sizeof(out->comm))
		cl = sizeof(out->comm) - 1;
	memcpy(out->comm, s + i, cl);
	out->comm[cl] = '\0';
	return true;
}

int trace_line_parse(const char *s, size_t n, struct trace_line *out)
{
	memset(out, 0, sizeof(*out));
	out->tgid = out->cpu = out->lost_cpu = -1;
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	if (i == n || s[i] == '#')
		return -EINVAL;
	if (n - i > 4 && memcmp(s + i, "CPU:", 4) == 0)
		return parse_lost(s + i, n - i, out);

	/* the cpu column " [NNN] ": the first one after a well-formed task column */
	for (size_t j = i + 1; j + 2 < n; j++) {
		if (s[j] != '[' || s[j - 1] != ' ')
			continue;
		size_t k = j + 1;
		while (k < n && is_digit(s[k]))
			k++;
		uint64_t cpu;
		if (k >= n || s[k] != ']' || !dec(s + j + 1, k - j - 1, &cpu) || cpu > 1u << 20)
			continue;
		struct trace_line l;
		memset(&l, 0, sizeof(l));
		l.lost_cpu = -1;
		if (!parse_task(s, i, j, &l))
			continue;
		l.cpu = (int)cpu;
		/* then: [flags] timestamp: event: fields */
		size_t r = k + 1;
		const char *t;
		size_t tl;
		if (!token(s, n, &r, &t, &tl))
			return -EINVAL;
		if (!parse_ts(t, tl, &l.ts_ns)) {
			/* the irq-info flags ("d..1.") came first */
			if (!token(s, n, &r, &t, &tl) || !parse_ts(t, tl, &l.ts_ns))
				return -EINVAL;
		}
		while (r < n && s[r] == ' ')
			r++;
		size_t a = r;
		while (r < n && s[r] != ':' && s[r] != ' ')
			r++;
		if (r == a || r >= n || s[r] != ':')
			return -EINVAL;
		size_t el = r - a < sizeof(l.event) ? r - a : sizeof(l.event) - 1;
		memcpy(l.event, s + a, el);
		l.event[el] = '\0';
		l.ev = ev_of(s + a, r - a);
		r++;
		if (r < n && s[r] == ' ')
			r++;
		l.fields = s + r;
		l.fields_len = n - r;
		*out = l;
		return 0;
	}
	return -EINVAL;
}

int trace_field(const char *f, size_t n, const char *key, char *out, size_t outn)
{
	size_t kl = strlen(key);
	if (!kl || n <= kl)
		return -ENOENT;
	for (size_t i = n - kl; i-- > 0;) {
		if (f[i + kl] != '=' || memcmp(f + i, key, kl))
			continue;
		if (i > 0 && f[i - 1] != ' ' && f[i - 1] != ',')
			continue;
		size_t a = i + kl + 1, b = a;
		while (b < n && f[b] != ' ' && f[b] != ',')
			b++;
		if (outn) {
			size_t l = b - a < outn ? b - a : outn - 1;
			memcpy(out, f + a, l);
			out[l] = '\0';
		}
		return 0;
	}
	return -ENOENT;
}

int trace_field_long(const char *f, size_t n, const char *key, long *out)
{
	char v[32];
	int r = trace_field(f, n, key, v, sizeof(v));
	return r ? r : str_long(v, LONG_MIN, LONG_MAX, out) ? -EINVAL : 0;
}

/* ---- pairing -------------------------------------------------------------- */

struct stall_task {
	int pid;
	int tgid; /* from the line's tgid column, -1 */
	char comm[TRACE_COMM_LEN];
	struct {
		uint64_t ts[STALL_DEPTH];
		int order[STALL_DEPTH];
		int depth;
	} open[STALL_NKINDS];
	int next_order; /* from mm_compaction_try_to_compact_pages, -1 */
	struct stall_stats k[STALL_NKINDS];
};

void stalls_init(struct stalls *s)
{
	memset(s, 0, sizeof(*s));
}

static void stats_free(struct stall_stats *st)
{
	free(st->lat);
	st->lat = NULL;
	st->nlat = st->cap = 0;
}

void stalls_free(struct stalls *s)
{
	for (size_t i = 0; i < s->ntasks; i++)
		for (int k = 0; k < STALL_NKINDS; k++)
			stats_free(&s->tasks[i].k[k]);
	for (size_t i = 0; i < s->nprocs; i++)
		for (int k = 0; k < STALL_NKINDS; k++)
			stats_free(&s->procs[i].k[k]);
	for (int k = 0; k < STALL_NKINDS; k++)
		stats_free(&s->all[k]);
	free(s->tasks);
	free(s->thash);
	free(s->procs);
	memset(s, 0, sizeof(*s));
}

static size_t pid_slot(int pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static bool rehash(struct stalls *s, size_t cap)
{
	int *h = calloc(cap, sizeof(*h));
	if (!h)
		return false;
	for (size_t i = 0; i < s->ntasks; i++) {
		size_t j = pid_slot(s->tasks[i].pid, cap);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (int)i + 1;
	}
	free(s->thash);
	s->thash = h;
	s->thcap = cap;
	return true;
}

static struct stall_task *task_get(struct stalls *s, const struct trace_line *l)
{
	if (s->thcap) {
		for (size_t j = pid_slot(l->pid, s->thcap); s->thash[j];
		     j = (j + 1) & (s->thcap - 1)) {
			struct stall_task *t = &s->tasks[s->thash[j] - 1];
			if (t->pid == l->pid) {
				if (l->comm[0] && strcmp(l->comm, "<...>"))
					memcpy(t->comm, l->comm, sizeof(t->comm));
				if (l->tgid >= 0)
					t->tgid = l->tgid;
				return t;
			}
		}
	}
	if (array_reserve(&s->tasks, &s->tcap, s->ntasks + 1, sizeof(*s->tasks), 64))
		return NULL;
	if ((s->ntasks + 1) * 2 > s->thcap && !rehash(s, s->thcap ? s->thcap * 2 : 128))
		return NULL;
	struct stall_task *t = &s->tasks[s->ntasks];
	memset(t, 0, sizeof(*t));
	t->pid = l->pid;
	t->tgid = l->tgid;
	t->next_order = -1;
	memcpy(t->comm, l->comm, sizeof(t->comm));
	size_t j = pid_slot(l->pid, s->thcap);
	while (s->thash[j])
		j = (j + 1) & (s->thcap - 1);
	s->thash[j] = (int)++s->ntasks;
	return t;
}

int stalls_task_pid(const struct stalls *s, size_t i)
{
	return i < s->ntasks ? s->tasks[i].pid : -1;
}

int stall_hist_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	int b = 0;
	while (us) {
		b++;
		us >>= 1;
	}
	return b < STALL_HIST_BUCKETS ? b : STALL_HIST_BUCKETS - 1;
}

uint64_t stall_hist_lo_us(int bucket)
{
	return bucket <= 0 ? 0 : 1ull << (bucket - 1);
}

static void count_name(struct stall_count *c, int *nc, int max, uint64_t *other, const char *name,
		       uint64_t n)
{
	for (int i = 0; i < *nc; i++)
		if (strcmp(c[i].name, name) == 0) {
			c[i].n += n;
			return;
		}
	if (*nc == max) {
		*other += n;
		return;
	}
	snprintf(c[*nc].name, sizeof(c[0].name), "%s", name);
	c[(*nc)++].n = n;
}

static void add_sample(struct stalls *s, struct stall_stats *st, uint64_t ns)
{
	st->n++;
	st->total_ns += ns;
	if (ns > st->max_ns)
		st->max_ns = ns;
	if (array_reserve(&st->lat, &st->cap, st->nlat + 1, sizeof(*st->lat), 16)) {
		s->oom = true;
		return;
	}
	st->lat[st->nlat++] = ns;
}

static void add_order(struct stall_stats *st, int order)
{
	if (order >= 0 && order < STALL_ORDERS)
		st->order_n[order]++;
	else
		st->order_unknown++;
}

static void begin(struct stall_task *t, struct stalls *s, enum stall_kind k, uint64_t ts, int order)
{
	if (t->open[k].depth == STALL_DEPTH) {
		s->dropped_deep[k]++;
		return;
	}
	t->open[k].ts[t->open[k].depth] = ts;
	t->open[k].order[t->open[k].depth++] = order;
}

/* Pop the innermost open stall of kind K; false (counted unmatched) when none is open. */
static bool end(struct stall_task *t, struct stalls *s, enum stall_kind k, uint64_t ts)
{
	if (!t->open[k].depth) {
		s->unmatched_end[k]++;
		return false;
	}
	int d = --t->open[k].depth;
	uint64_t b = t->open[k].ts[d];
	uint64_t ns = ts > b ? ts - b : 0;
	struct stall_stats *st = &t->k[k];
	add_sample(s, st, ns);
	add_order(st, t->open[k].order[d]);
	s->hist[k][stall_hist_bucket(ns)]++;
	return true;
}

static void collapse_add(struct stalls *s, const struct trace_line *l)
{
	char status[32] = "?";
	const char *key =
		l->ev == TEV_SCAN_FILE || l->ev == TEV_COLLAPSE_FILE ? "result" : "status";
	trace_field(l->fields, l->fields_len, key, status, sizeof(status));
	for (size_t i = 0; i < s->ncollapse; i++) {
		struct collapse_count *c = &s->collapse[i];
		if (c->tgid == l->pid && c->ev == l->ev && strcmp(c->status, status) == 0) {
			c->n++;
			return;
		}
	}
	if (s->ncollapse == COLLAPSE_MAX) {
		s->collapse_other++;
		return;
	}
	struct collapse_count *c = &s->collapse[s->ncollapse++];
	memset(c, 0, sizeof(*c));
	c->tgid = l->pid; /* a task until stalls_finish() groups it */
	memcpy(c->comm, l->comm, sizeof(c->comm));
	c->ev = l->ev;
	snprintf(c->status, sizeof(c->status), "%s", status);
	c->n = 1;
}

void stalls_add(struct stalls *s, const struct trace_line *l)
{
	if (s->finished || l->ev >= TEV_N)
		return;
	s->events[l->ev]++;
	if (l->ev == TEV_LOST) {
		s->lost += l->lost;
		return;
	}
	if (!s->first_ns || l->ts_ns < s->first_ns)
		s->first_ns = l->ts_ns;
	if (l->ts_ns > s->last_ns)
		s->last_ns = l->ts_ns;
	if (l->ev == TEV_OTHER)
		return;
	if (l->ev >= TEV_SCAN_PMD) {
		collapse_add(s, l);
		return;
	}
	struct stall_task *t = task_get(s, l);
	if (!t) {
		s->oom = true;
		return;
	}
	long v;
	char status[24];
	switch (l->ev) {
	case TEV_COMPACT_TRY:
		t->next_order = trace_field_long(l->fields, l->fields_len, "order", &v) == 0 &&
						v >= 0 && v < 64
					? (int)v
					: -1;
		break;
	case TEV_COMPACT_BEGIN:
		begin(t, s, STALL_COMPACTION, l->ts_ns, t->next_order);
		break;
	case TEV_COMPACT_END:
		if (!end(t, s, STALL_COMPACTION, l->ts_ns))
			break;
		if (trace_field(l->fields, l->fields_len, "status", status, sizeof(status)))
			snprintf(status, sizeof(status), "?");
		count_name(t->k[STALL_COMPACTION].why, &t->k[STALL_COMPACTION].nwhy, STALL_MAX_WHY,
			   &t->k[STALL_COMPACTION].why_other, status, 1);
		char mode[8];
		if (trace_field(l->fields, l->fields_len, "mode", mode, sizeof(mode)) == 0) {
			if (strcmp(mode, "sync") == 0)
				t->k[STALL_COMPACTION].sync++;
			else if (strcmp(mode, "async") == 0)
				t->k[STALL_COMPACTION].async++;
		}
		break;
	case TEV_RECLAIM_BEGIN:
		/* the slow path went on from compaction to reclaim: the try's order is spent */
		t->next_order = -1;
		begin(t, s, STALL_RECLAIM, l->ts_ns,
		      trace_field_long(l->fields, l->fields_len, "order", &v) == 0 && v >= 0 &&
				      v < 64
			      ? (int)v
			      : -1);
		break;
	case TEV_RECLAIM_END:
		if (end(t, s, STALL_RECLAIM, l->ts_ns) &&
		    trace_field_long(l->fields, l->fields_len, "nr_reclaimed", &v) == 0 && v > 0)
			t->k[STALL_RECLAIM].reclaimed += (uint64_t)v;
		break;
	default:
		break;
	}
}

void stalls_feed(struct stalls *s, const char *text, size_t n)
{
	const char *p = text, *e = text + n;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e;
		struct trace_line l;
		if (le > p) {
			if (trace_line_parse(p, (size_t)(le - p), &l) == 0)
				stalls_add(s, &l);
			else
				s->unparsed++;
		}
		p = nl ? nl + 1 : e;
	}
}

/* ---- grouping and summaries ------------------------------------------------ */

static void merge_stats(struct stalls *s, struct stall_stats *to, const struct stall_stats *from)
{
	to->n += from->n;
	to->total_ns += from->total_ns;
	if (from->max_ns > to->max_ns)
		to->max_ns = from->max_ns;
	to->in_progress += from->in_progress;
	for (int i = 0; i < from->nwhy; i++)
		count_name(to->why, &to->nwhy, STALL_MAX_WHY, &to->why_other, from->why[i].name,
			   from->why[i].n);
	to->why_other += from->why_other;
	to->sync += from->sync;
	to->async += from->async;
	to->reclaimed += from->reclaimed;
	for (int o = 0; o < STALL_ORDERS; o++)
		to->order_n[o] += from->order_n[o];
	to->order_unknown += from->order_unknown;
	if (!from->nlat)
		return;
	if (to->nlat + from->nlat > to->cap) {
		size_t cap = to->nlat + from->nlat;
		uint64_t *p = realloc(to->lat, cap * sizeof(*p));
		if (!p) {
			s->oom = true;
			return;
		}
		to->lat = p;
		to->cap = cap;
	}
	memcpy(to->lat + to->nlat, from->lat, from->nlat * sizeof(*from->lat));
	to->nlat += from->nlat;
}

static int cmp_count(const void *a, const void *b)
{
	const struct stall_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Percentiles (nearest rank, as lab/stats.c) and why sorted by count. */
static void summarize_stats(struct stalls *s, struct stall_stats *st)
{
	qsort(st->why, (size_t)st->nwhy, sizeof(st->why[0]), cmp_count);
	if (!st->nlat)
		return;
	double *v = malloc(st->nlat * sizeof(*v));
	if (!v) {
		s->oom = true;
		return;
	}
	for (size_t i = 0; i < st->nlat; i++)
		v[i] = (double)st->lat[i];
	struct summary sum;
	summarize(v, st->nlat, &sum);
	st->p50_ns = (uint64_t)(percentile_sorted(v, st->nlat, 50) + 0.5);
	st->p99_ns = (uint64_t)(sum.p99 + 0.5);
	free(v);
}

struct tidx {
	int tgid;
	size_t task;
};

static int cmp_tidx(const void *a, const void *b)
{
	const struct tidx *x = a, *y = b;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

static uint64_t proc_total(const struct stall_proc *p)
{
	uint64_t t = 0;
	for (int k = 0; k < STALL_NKINDS; k++)
		t += p->k[k].total_ns;
	return t;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct stall_proc *x = a, *y = b;
	uint64_t tx = proc_total(x), ty = proc_total(y);
	if (tx != ty)
		return tx < ty ? 1 : -1;
	uint64_t ix = x->k[0].in_progress + x->k[1].in_progress;
	uint64_t iy = y->k[0].in_progress + y->k[1].in_progress;
	if (ix != iy)
		return ix < iy ? 1 : -1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static int resolve_tgid(stalls_resolve_fn resolve, void *ctx, int pid, int line_tgid, char *name,
			size_t nl)
{
	int tgid = -1;
	name[0] = '\0';
	if (resolve && resolve(ctx, pid, &tgid, name, nl) && tgid > 0)
		return tgid;
	name[0] = '\0';
	return line_tgid > 0 ? line_tgid : pid;
}

static int cmp_collapse(const void *a, const void *b)
{
	const struct collapse_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return strcmp(x->status, y->status);
}

void stalls_finish(struct stalls *s, stalls_resolve_fn resolve, void *ctx)
{
	if (s->finished)
		return;
	s->finished = true;
	struct tidx *ix = s->ntasks ? malloc(s->ntasks * sizeof(*ix)) : NULL;
	char(*names)[TRACE_COMM_LEN] = s->ntasks ? calloc(s->ntasks, sizeof(*names)) : NULL;
	if (s->ntasks && (!ix || !names)) {
		s->oom = true;
		free(ix);
		free(names);
		return;
	}
	for (size_t i = 0; i < s->ntasks; i++) {
		struct stall_task *t = &s->tasks[i];
		for (int k = 0; k < STALL_NKINDS; k++)
			t->k[k].in_progress += (uint64_t)t->open[k].depth;
		ix[i].task = i;
		ix[i].tgid =
			resolve_tgid(resolve, ctx, t->pid, t->tgid, names[i], sizeof(names[i]));
	}
	if (s->ntasks)
		qsort(ix, s->ntasks, sizeof(*ix), cmp_tidx);
	s->procs = s->ntasks ? calloc(s->ntasks, sizeof(*s->procs)) : NULL;
	if (s->ntasks && !s->procs) {
		s->oom = true;
		free(ix);
		free(names);
		return;
	}
	s->pcap = s->ntasks;
	for (size_t i = 0; i < s->ntasks; i++) {
		struct stall_task *t = &s->tasks[ix[i].task];
		struct stall_proc *p;
		if (s->nprocs && s->procs[s->nprocs - 1].tgid == ix[i].tgid) {
			p = &s->procs[s->nprocs - 1];
		} else {
			p = &s->procs[s->nprocs++];
			p->tgid = ix[i].tgid;
			/* the process's name; else the comm of its thread that is the process */
			const char *nm = names[ix[i].task];
			snprintf(p->comm, sizeof(p->comm), "%s", nm[0] ? nm : t->comm);
		}
		if (t->pid == p->tgid && !names[ix[i].task][0])
			snprintf(p->comm, sizeof(p->comm), "%s", t->comm);
		for (int k = 0; k < STALL_NKINDS; k++)
			merge_stats(s, &p->k[k], &t->k[k]);
	}
	for (size_t i = 0; i < s->nprocs; i++)
		for (int k = 0; k < STALL_NKINDS; k++) {
			merge_stats(s, &s->all[k], &s->procs[i].k[k]);
			summarize_stats(s, &s->procs[i].k[k]);
		}
	for (int k = 0; k < STALL_NKINDS; k++)
		summarize_stats(s, &s->all[k]);
	if (s->nprocs)
		qsort(s->procs, s->nprocs, sizeof(*s->procs), cmp_proc);
	free(ix);
	free(names);

	/* collapse counts: tasks -> processes, merged */
	for (size_t i = 0; i < s->ncollapse; i++) {
		struct collapse_count *c = &s->collapse[i];
		char nm[TRACE_COMM_LEN];
		int tg = resolve_tgid(resolve, ctx, c->tgid, -1, nm, sizeof(nm));
		if (nm[0])
			snprintf(c->comm, sizeof(c->comm), "%s", nm);
		c->tgid = tg;
	}
	size_t m = 0;
	for (size_t i = 0; i < s->ncollapse; i++) {
		size_t j;
		for (j = 0; j < m; j++)
			if (s->collapse[j].tgid == s->collapse[i].tgid &&
			    s->collapse[j].ev == s->collapse[i].ev &&
			    strcmp(s->collapse[j].status, s->collapse[i].status) == 0)
				break;
		if (j < m)
			s->collapse[j].n += s->collapse[i].n;
		else
			s->collapse[m++] = s->collapse[i];
	}
	s->ncollapse = m;
	qsort(s->collapse, s->ncollapse, sizeof(s->collapse[0]), cmp_collapse);
}
