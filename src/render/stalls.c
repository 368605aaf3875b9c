// SPDX-License-Identifier: MIT
#include "stalls.h"

#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "table.h"

void fmt_ns(char *out, size_t n, uint64_t ns)
{
	if (ns < 1000000)
		snprintf(out, n, "%" PRIu64 " us", (ns + 500) / 1000);
	else if (ns < 10000000)
		snprintf(out, n, "%.2f ms", (double)ns / 1e6);
	else if (ns < 1000000000)
		snprintf(out, n, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(out, n, "%.2f s", (double)ns / 1e9);
}

static uint64_t nevents(const struct stalls *s)
{
	uint64_t n = 0;
	for (int e = 0; e < TEV_N; e++)
		if (e != TEV_LOST)
			n += s->events[e];
	return n;
}

/* Kernel threads that compact or reclaim in the background: nobody waits on them. */
static bool background(const char *comm)
{
	return strncmp(comm, "kcompactd", 9) == 0 || strncmp(comm, "kswapd", 6) == 0 ||
	       strcmp(comm, "khugepaged") == 0;
}

/* The orders of the requests behind the stalls: "order 9", "order 9 (3), 10 (1)". */
static size_t put_orders(char *out, size_t n, const struct stall_stats *st)
{
	size_t at = strlen(out);
	int kinds = 0;
	for (int o = 0; o < STALL_ORDERS; o++)
		kinds += st->order_n[o] > 0;
	if (!kinds)
		return at;
	at += (size_t)snprintf(out + at, at < n ? n - at : 0, "%sorder ", at ? "; " : "");
	bool first = true;
	for (int o = 0; o < STALL_ORDERS && at < n; o++) {
		if (!st->order_n[o])
			continue;
		if (kinds == 1)
			at += (size_t)snprintf(out + at, n - at, "%d", o);
		else
			at += (size_t)snprintf(out + at, n - at, "%s%d (%" PRIu64 ")",
					       first ? "" : ", ", o, st->order_n[o]);
		first = false;
	}
	return at;
}

static void why_text(char *out, size_t n, enum stall_kind k, const struct stall_stats *st,
		     const char *comm)
{
	size_t at = 0;
	out[0] = '\0';
	if (k == STALL_COMPACTION) {
		int shown = st->nwhy < 3 ? st->nwhy : 3;
		for (int i = 0; i < shown && at < n; i++)
			at += (size_t)snprintf(out + at, n - at, "%s%s %" PRIu64, i ? ", " : "",
					       st->why[i].name, st->why[i].n);
		if ((st->nwhy > shown || st->why_other) && at < n)
			at += (size_t)snprintf(out + at, n - at, ", ...");
	} else if (st->n) {
		at += (size_t)snprintf(out + at, n, "reclaimed %" PRIu64 " pages", st->reclaimed);
	}
	if (at < n)
		at = put_orders(out, n, st);
	if (st->in_progress && at < n)
		at += (size_t)snprintf(out + at, n - at, "%s%" PRIu64 " in progress",
				       at ? "; " : "", st->in_progress);
	if (background(comm) && at < n)
		snprintf(out + at, n - at, "%s(background: no task waited)", at ? " " : "");
}

static void header(FILE *f, const struct trace_report *r, bool color)
{
	const struct stalls *s = r->s;
	fprintf(f, "%sCompaction and reclaim stalls%s: traced %.1f s", col_bold(color),
		col_reset(color), r->elapsed_s);
	if (r->interrupted)
		fprintf(f, " (interrupted)");
	if (r->pid)
		fprintf(f, ", process %d and its threads and children", r->pid);
	else
		fprintf(f, ", every task");
	fprintf(f, "\n%s  tracefs: %s, instance %s, clock %s; %" PRIu64 " events", col_dim(color),
		r->where, r->instance, r->clock, nevents(s));
	if (s->lost)
		fprintf(f, ", %s%" PRIu64 " LOST%s%s", col_red(color), s->lost, col_reset(color),
			col_dim(color));
	fprintf(f, "%s\n", col_reset(color));
	if (r->nmissing) {
		fprintf(f, "  not offered by this kernel:");
		for (int i = 0; i < r->nmissing; i++)
			fputc(' ', f), fputs_safe(r->missing[i], f);
		fputc('\n', f);
	}
}

/*
 * The next (process *I, kind *K) of S that stalled or is stalling, walking from *I = 0,
 * *K = -1; NULL at the end. The text table and the JSON list the same rows.
 */
static const struct stall_stats *next_row(const struct stalls *s, size_t *i, int *k)
{
	for (; *i < s->nprocs; (*i)++, *k = -1)
		while (++*k < STALL_NKINDS) {
			const struct stall_stats *st = &s->procs[*i].k[*k];
			if (st->n || st->in_progress)
				return st;
		}
	return NULL;
}

static void stall_table(FILE *f, const struct stalls *s, bool color)
{
	static const char *const hdr[] = {"PID", "PROCESS", "KIND", "STALLS", "TOTAL",
					  "P50", "P99",	    "MAX",  "WHY"};
	struct table *t = table_new(9, hdr, "rllrrrrrl");
	size_t rows = 0, i = 0;
	int k = -1;
	for (const struct stall_stats *st; (st = next_row(s, &i, &k)); rows++) {
		const struct stall_proc *p = &s->procs[i];
		char tot[24], p50[24], p99[24], mx[24], why[256];
		fmt_ns(tot, sizeof(tot), st->total_ns);
		fmt_ns(p50, sizeof(p50), st->p50_ns);
		fmt_ns(p99, sizeof(p99), st->p99_ns);
		fmt_ns(mx, sizeof(mx), st->max_ns);
		why_text(why, sizeof(why), (enum stall_kind)k, st, p->comm);
		table_cell(t, "%d", p->tgid);
		table_cell(t, "%s", p->comm);
		table_cell(t, "%s", stall_kind_name((enum stall_kind)k));
		table_cell(t, "%" PRIu64, st->n);
		table_cell(t, "%s", st->n ? tot : "-");
		table_cell(t, "%s", st->n ? p50 : "-");
		table_cell(t, "%s", st->n ? p99 : "-");
		table_cell(t, "%s", st->n ? mx : "-");
		table_cell(t, "%s", why);
	}
	fprintf(f,
		"\n%sWho waited%s\n  (one stall = one begin/end pair: a zone compacted, a direct "
		"reclaim run)\n",
		col_bold(color), col_reset(color));
	uint64_t deep = s->dropped_deep[0] + s->dropped_deep[1];
	if (rows)
		table_print(t, f, 2, color);
	else if (s->lost || deep)
		/* a lost or untimed event may be the stall: "none" would be more than was seen */
		fprintf(f,
			"  inconclusive: no stall seen, but %" PRIu64
			" event(s) were lost and %" PRIu64
			" begin(s) not timed, any of which may have been one\n",
			s->lost, deep);
	else
		fprintf(f, "  no task entered direct compaction or direct reclaim while traced\n");
	table_free(t);
	for (int ak = 0; ak < STALL_NKINDS; ak++) {
		const struct stall_stats *a = &s->all[ak];
		if (!a->n)
			continue;
		char tot[24], p50[24], p99[24], mx[24];
		fmt_ns(tot, sizeof(tot), a->total_ns);
		fmt_ns(p50, sizeof(p50), a->p50_ns);
		fmt_ns(p99, sizeof(p99), a->p99_ns);
		fmt_ns(mx, sizeof(mx), a->max_ns);
		fprintf(f, "  all %s: %" PRIu64 " stalls, %s in total, p50 %s, p99 %s, max %s\n",
			stall_kind_name((enum stall_kind)ak), a->n, tot, p50, p99, mx);
	}
	uint64_t um = s->unmatched_end[0] + s->unmatched_end[1];
	if (um)
		fprintf(f,
			"  %s%" PRIu64 " end event(s) without a begin (stalls already under way "
			"when the trace started%s) left out%s\n",
			col_dim(color), um, deep ? ", or ends of the begins below" : "",
			col_reset(color));
	if (deep)
		fprintf(f,
			"  %" PRIu64
			" begin event(s) nested more than %d deep in one task were not "
			"timed: the figures above miss them (partial)\n",
			deep, STALL_DEPTH);
	if (s->unparsed)
		fprintf(f, "  %" PRIu64 " trace line(s) that were not events left out\n",
			s->unparsed);
}

static void histogram(FILE *f, const struct stalls *s, bool color)
{
	int lo = STALL_HIST_BUCKETS, hi = -1;
	uint64_t peak = 0;
	for (int b = 0; b < STALL_HIST_BUCKETS; b++) {
		uint64_t n = s->hist[0][b] + s->hist[1][b];
		if (!n)
			continue;
		lo = b < lo ? b : lo;
		hi = b;
		peak = n > peak ? n : peak;
	}
	if (hi < 0)
		return;
	fprintf(f, "\n%sLatency histogram%s (log2 buckets of microseconds, both kinds)\n",
		col_bold(color), col_reset(color));
	static const char *const hdr[] = {"USECS", "COMPACTION", "RECLAIM", "DISTRIBUTION"};
	struct table *t = table_new(4, hdr, "rrrl");
	for (int b = lo; b <= hi; b++) {
		char bar[48];
		uint64_t l = stall_hist_lo_us(b), h = stall_hist_lo_us(b + 1);
		if (b == STALL_HIST_BUCKETS - 1)
			table_cell(t, "%" PRIu64 " ->", l);
		else
			table_cell(t, "%" PRIu64 " -> %" PRIu64, l, h - 1);
		table_cell(t, "%" PRIu64, s->hist[0][b]);
		table_cell(t, "%" PRIu64, s->hist[1][b]);
		uint64_t n = s->hist[0][b] + s->hist[1][b];
		int w = (int)((n * 40 + peak - 1) / peak);
		memset(bar, '#', (size_t)w);
		bar[w] = '\0';
		table_cell(t, "%s", bar);
	}
	table_flush(t, f, 2, color);
}

/* Rows of the collapse table: one per process and status, a count per event. */
struct crow {
	int tgid;
	const char *comm, *status;
	uint64_t n[TEV_N];
	uint64_t total;
};

#define CROWS_SHOWN 20

static int cmp_crow(const void *a, const void *b)
{
	const struct crow *x = a, *y = b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static void collapse_table(FILE *f, const struct stalls *s, bool color)
{
	fprintf(f,
		"\n%sCollapse%s (huge_memory events of khugepaged, and of MADV_COLLAPSE in its caller)\n",
		col_bold(color), col_reset(color));
	struct crow rows[COLLAPSE_MAX];
	size_t nr = 0;
	for (size_t i = 0; i < s->ncollapse; i++) {
		const struct collapse_count *c = &s->collapse[i];
		size_t j;
		for (j = 0; j < nr; j++)
			if (rows[j].tgid == c->tgid && strcmp(rows[j].status, c->status) == 0)
				break;
		if (j == nr) {
			memset(&rows[nr], 0, sizeof(rows[nr]));
			rows[nr].tgid = c->tgid;
			rows[nr].comm = c->comm;
			rows[nr++].status = c->status;
		}
		rows[j].n[c->ev] += c->n;
		rows[j].total += c->n;
	}
	if (!nr) {
		fprintf(f, "  none\n");
		return;
	}
	qsort(rows, nr, sizeof(rows[0]), cmp_crow);
	/* the file (shmem/page cache) columns only when there were such events */
	bool files = s->events[TEV_SCAN_FILE] || s->events[TEV_COLLAPSE_FILE];
	static const char *const hdr[] = {"PID",     "PROCESS",	 "STATUS",    "SCAN_PMD",
					  "ISOLATE", "COLLAPSE", "SCAN_FILE", "COLLAPSE_FILE"};
	static const enum trace_ev cols[] = {TEV_SCAN_PMD, TEV_COLLAPSE_ISOLATE, TEV_COLLAPSE,
					     TEV_SCAN_FILE, TEV_COLLAPSE_FILE};
	size_t ncols = files ? 5 : 3;
	struct table *t = table_new(3 + (int)ncols, hdr, "rllrrrrr");
	for (size_t i = 0; i < nr && i < CROWS_SHOWN; i++) {
		table_cell(t, "%d", rows[i].tgid);
		table_cell(t, "%s", rows[i].comm);
		table_cell(t, "%s", rows[i].status);
		for (size_t k = 0; k < ncols; k++)
			table_cell(t, "%" PRIu64, rows[i].n[cols[k]]);
	}
	table_flush(t, f, 2, color);
	if (nr > CROWS_SHOWN)
		fprintf(f, "  %s(%zu more rows: --json has them all)%s\n", col_dim(color),
			nr - CROWS_SHOWN, col_reset(color));
	if (s->collapse_other)
		fprintf(f, "  (%" PRIu64 " more events in other combinations)\n",
			s->collapse_other);
}

static void overhead(FILE *f, const struct trace_report *r, bool color)
{
	uint64_t n = nevents(r->s);
	fprintf(f, "\n%sTracing overhead%s: %" PRIu64 " events", col_bold(color), col_reset(color),
		n);
	if (r->elapsed_s > 0)
		fprintf(f, " (%.1f/s)", (double)n / r->elapsed_s);
	if (r->record_ns >= 0) {
		char tot[24];
		fmt_ns(tot, sizeof(tot), (uint64_t)(r->record_ns * (double)n));
		fprintf(f,
			"; in the traced tasks ~%.2f us per event (trace_marker calibration), %s in all",
			r->record_ns / 1000, tot);
	} else if (r->record_noise) {
		fprintf(f,
			"; in the traced tasks - per event (trace_marker calibration came out below its own noise)");
	}
	fprintf(f, "; reader (thpctl) %.1f ms CPU", r->reader_cpu_s * 1000);
	if (r->elapsed_s > 0)
		fprintf(f, " = %.2f%% of one CPU", 100 * r->reader_cpu_s / r->elapsed_s);
	if (n)
		fprintf(f, ", %.1f us per event", r->reader_cpu_s * 1e6 / (double)n);
	fprintf(f, "; %" PRIu64 " events lost\n", r->s->lost);
}

void stalls_render_text(FILE *f, const struct trace_report *r, bool color)
{
	header(f, r, color);
	stall_table(f, r->s, color);
	histogram(f, r->s, color);
	collapse_table(f, r->s, color);
	overhead(f, r, color);
	if (r->s->oom)
		fprintf(f, "(out of memory while tracing: the figures above are incomplete)\n");
}

/* ---- JSON ----------------------------------------------------------------- */

static json_t *us(uint64_t ns)
{
	return json_real((double)ns / 1000.0);
}

static json_t *stats_json(const struct stall_stats *st, enum stall_kind k)
{
	json_t *o = json_object();
	json_put(o, "count", json_u64(st->n));
	json_put(o, "total_us", us(st->total_ns));
	json_put(o, "p50_us", st->n ? us(st->p50_ns) : NULL);
	json_put(o, "p99_us", st->n ? us(st->p99_ns) : NULL);
	json_put(o, "max_us", st->n ? us(st->max_ns) : NULL);
	json_put(o, "in_progress", json_u64(st->in_progress));
	json_t *orders = json_object();
	for (int i = 0; i < STALL_ORDERS; i++)
		if (st->order_n[i]) {
			char key[8];
			snprintf(key, sizeof(key), "%d", i);
			json_put(orders, key, json_u64(st->order_n[i]));
		}
	if (st->order_unknown)
		json_put(orders, "unknown", json_u64(st->order_unknown));
	json_put(o, "orders", orders);
	if (k == STALL_COMPACTION) {
		json_t *why = json_object();
		for (int i = 0; i < st->nwhy; i++)
			json_put(why, st->why[i].name, json_u64(st->why[i].n));
		if (st->why_other)
			json_put(why, "other", json_u64(st->why_other));
		json_put(o, "status", why);
		json_put(o, "sync", json_u64(st->sync));
		json_put(o, "async", json_u64(st->async));
	} else {
		json_put(o, "nr_reclaimed", json_u64(st->reclaimed));
	}
	return o;
}

json_t *stalls_render_json(const struct trace_report *r)
{
	const struct stalls *s = r->s;
	json_t *root = json_object();
	if (!root)
		return NULL;
	json_put(root, "duration_s", r->duration_s > 0 ? json_real(r->duration_s) : NULL);
	json_put(root, "elapsed_s", json_real(r->elapsed_s));
	json_put(root, "interrupted", json_boolean(r->interrupted));
	json_put(root, "pid", r->pid ? json_integer(r->pid) : NULL);
	json_t *tf = json_object();
	json_put(tf, "where", json_str(r->where));
	json_put(tf, "private_mount", json_boolean(r->private_mount));
	json_put(tf, "instance", json_str(r->instance));
	json_put(tf, "clock", json_str(r->clock));
	json_t *miss = json_array();
	for (int i = 0; i < r->nmissing; i++)
		json_array_append_new(miss, json_str(r->missing[i]));
	json_put(tf, "events_missing", miss);
	json_put(root, "tracefs", tf);

	json_t *ev = json_object();
	for (int e = 1; e < TEV_N; e++)
		if (e != TEV_LOST)
			json_put(ev, stall_event_name((enum trace_ev)e), json_u64(s->events[e]));
	json_put(ev, "other", json_u64(s->events[TEV_OTHER]));
	json_put(root, "events", ev);
	json_put(root, "lost_events", json_u64(s->lost));
	json_put(root, "unparsed_lines", json_u64(s->unparsed));
	json_t *um = json_object();
	for (int k = 0; k < STALL_NKINDS; k++)
		json_put(um, stall_kind_name((enum stall_kind)k), json_u64(s->unmatched_end[k]));
	json_put(root, "unmatched_end", um);

	json_t *arr = json_array();
	size_t ri = 0;
	int rk = -1;
	for (const struct stall_stats *st; (st = next_row(s, &ri, &rk));) {
		const struct stall_proc *p = &s->procs[ri];
		json_t *o = stats_json(st, (enum stall_kind)rk);
		json_put(o, "pid", json_integer(p->tgid));
		json_put(o, "comm", json_str(p->comm));
		json_put(o, "kind", json_str(stall_kind_name((enum stall_kind)rk)));
		json_put(o, "background", json_boolean(background(p->comm)));
		json_array_append_new(arr, o);
	}
	json_put(root, "stalls", arr);
	json_t *tot = json_object();
	for (int k = 0; k < STALL_NKINDS; k++)
		json_put(tot, stall_kind_name((enum stall_kind)k),
			 stats_json(&s->all[k], (enum stall_kind)k));
	json_put(root, "totals", tot);

	json_t *hist = json_array();
	for (int b = 0; b < STALL_HIST_BUCKETS; b++) {
		if (!s->hist[0][b] && !s->hist[1][b])
			continue;
		json_t *o = json_object();
		json_put(o, "lo_us", json_u64(stall_hist_lo_us(b)));
		json_put(o, "hi_us",
			 b == STALL_HIST_BUCKETS - 1 ? NULL : json_u64(stall_hist_lo_us(b + 1)));
		json_put(o, "compaction", json_u64(s->hist[0][b]));
		json_put(o, "reclaim", json_u64(s->hist[1][b]));
		json_array_append_new(hist, o);
	}
	json_put(root, "histogram", hist);

	json_t *col = json_array();
	for (size_t i = 0; i < s->ncollapse; i++) {
		const struct collapse_count *c = &s->collapse[i];
		json_t *o = json_object();
		json_put(o, "pid", json_integer(c->tgid));
		json_put(o, "comm", json_str(c->comm));
		json_put(o, "event", json_str(stall_event_name(c->ev)));
		json_put(o, "status", json_str(c->status));
		json_put(o, "count", json_u64(c->n));
		json_array_append_new(col, o);
	}
	json_put(root, "collapse", col);

	uint64_t n = nevents(s);
	json_t *oh = json_object();
	json_put(oh, "events", json_u64(n));
	json_put(oh, "record_ns_per_event", r->record_ns >= 0 ? json_real(r->record_ns) : NULL);
	json_put(oh, "record_total_us",
		 r->record_ns >= 0 ? json_real(r->record_ns * (double)n / 1000) : NULL);
	json_put(oh, "reader_cpu_ms", json_real(r->reader_cpu_s * 1000));
	json_put(oh, "reader_cpu_pct",
		 r->elapsed_s > 0 ? json_real(100 * r->reader_cpu_s / r->elapsed_s) : NULL);
	json_put(oh, "reader_us_per_event",
		 n ? json_real(r->reader_cpu_s * 1e6 / (double)n) : NULL);
	json_put(oh, "bytes_read", json_u64(r->bytes));
	json_put(root, "overhead", oh);
	/* out of memory, an event lost or untimed, a line unread: the figures miss something */
	json_put(root, "incomplete",
		 json_boolean(s->oom || s->lost || s->unparsed || s->dropped_deep[0] ||
			      s->dropped_deep[1]));
	return root;
}
