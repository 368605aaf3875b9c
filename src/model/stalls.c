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
#include "../util/str.h"

const char *stall_kind_name(enum stall_kind k)
{
	return k == STALL_COMPACTION ? "compaction" : k == STALL_RECLAIM ? "reclaim" : "?";
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
	str_copy(c[*nc].name, sizeof(c[0].name), name);
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
	str_copy(c->status, sizeof(c->status), status);
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
			str_copy(status, sizeof(status), "?");
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
			str_copy(p->comm, sizeof(p->comm), nm[0] ? nm : t->comm);
		}
		if (t->pid == p->tgid && !names[ix[i].task][0])
			str_copy(p->comm, sizeof(p->comm), t->comm);
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
			str_copy(c->comm, sizeof(c->comm), nm);
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

const char *stall_event_name(enum trace_ev ev)
{
	return trace_ev_name(ev);
}
