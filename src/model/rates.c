// SPDX-License-Identifier: MIT
#include "rates.h"

#include "host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/names.h"
#include "../util/str.h"

int rate_compute(const struct opt_u64 *old, const struct opt_u64 *cur, double interval_s,
		 struct rate *r)
{
	memset(r, 0, sizeof(*r));
	/* also rejects NaN */
	if (!(interval_s > 0)) {
		r->state = RATE_ABSENT;
		return -EINVAL;
	}
	if (!cur->present) {
		r->state = RATE_ABSENT;
		return 0;
	}
	if (!old->present) {
		r->state = RATE_NEW;
		return 0;
	}
	if (cur->v >= old->v) {
		r->state = RATE_OK;
		r->delta = cur->v - old->v;
	} else {
		r->state = RATE_RESET;
		r->delta = cur->v;
	}
	r->per_s = (double)r->delta / interval_s;
	return 0;
}

struct opt_u64 kv_opt(const struct kvlist *l, const char *name)
{
	struct opt_u64 o = {0};
	o.present = kv_get(l, name, &o.v);
	return o;
}

struct opt_u64 kv_sum_prefix(const struct kvlist *l, const char *prefix)
{
	struct opt_u64 o = {0};
	bool over = false;
	size_t n = strlen(prefix);
	for (size_t i = 0; i < l->n; i++) {
		const char *k = l->items[i].name;
		if (strncmp(k, prefix, n) == 0 && (k[n] == '\0' || k[n] == '_')) {
			o.present = true;
			over |= !add_u64(o.v, l->items[i].value, &o.v);
		}
	}
	if (over) /* a sum that does not fit: unknown, never wrapped */
		o = (struct opt_u64){0};
	return o;
}

int rate_kv(const struct kvlist *old, const struct kvlist *cur, const char *name, double interval_s,
	    struct rate *r)
{
	struct opt_u64 a = kv_opt(old, name), b = kv_opt(cur, name);
	return rate_compute(&a, &b, interval_s, r);
}

static const char *const col_keys[WC_N] = {
	[WC_FAULT_ALLOC] = "thp_fault_alloc",
	[WC_FAULT_FALLBACK] = "thp_fault_fallback",
	[WC_COLLAPSE_ALLOC] = "thp_collapse_alloc",
	[WC_COLLAPSE_FAILED] = "thp_collapse_alloc_failed",
	[WC_SPLIT_PAGE] = "thp_split_page",
	[WC_SPLIT_PMD] = "thp_split_pmd",
	[WC_DEFERRED_SPLIT] = "thp_deferred_split_page",
	[WC_COMPACT_STALL] = "compact_stall",
	[WC_COMPACT_FAIL] = "compact_fail",
	[WC_ALLOCSTALL] = "allocstall",
	[WC_PGSCAN_DIRECT] = "pgscan_direct",
};

const char *watch_col_key(enum watch_col c)
{
	return ENUM_NAME(col_keys, c, "?");
}

static uint64_t abs64(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static uint64_t magnitude(const struct proc_change *c)
{
	uint64_t a = c->anon_huge_known ? abs64(c->anon_huge_delta_kb) : 0;
	uint64_t r = abs64(c->rss_delta_kb);
	return a > r ? a : r;
}

/* Keep OUT[0..*n) sorted by magnitude (desc), then pid; at most TOP entries. */
static void keep(struct proc_change *out, size_t *n, size_t top, const struct proc_change *c)
{
	uint64_t m = magnitude(c);
	if (m == 0 || top == 0)
		return;
	if (*n == top) {
		const struct proc_change *last = &out[top - 1];
		uint64_t lm = magnitude(last);
		if (m < lm || (m == lm && c->pid > last->pid))
			return;
	}
	size_t i = *n < top ? (*n)++ : top - 1;
	while (i > 0) {
		uint64_t pm = magnitude(&out[i - 1]);
		if (pm > m || (pm == m && out[i - 1].pid < c->pid))
			break;
		out[i] = out[i - 1];
		i--;
	}
	out[i] = *c;
}

static int64_t diff_kb(uint64_t a, uint64_t b)
{
	return (int64_t)a - (int64_t)b;
}

size_t rates_top_changes(const struct proc_sample *old, size_t nold, const struct proc_sample *cur,
			 size_t ncur, size_t top, struct proc_change *out)
{
	size_t i = 0, j = 0, n = 0;
	while (i < nold || j < ncur) {
		struct proc_change c;
		memset(&c, 0, sizeof(c));
		const struct proc_sample *o = i < nold ? &old[i] : NULL;
		const struct proc_sample *p = j < ncur ? &cur[j] : NULL;
		if (o && p && o->pid == p->pid && strcmp(o->comm, p->comm) == 0) {
			c.pid = p->pid;
			str_copy(c.comm, sizeof(c.comm), p->comm);
			c.rss_kb = p->rss_kb;
			c.anon_huge_kb = p->anon_huge_kb;
			c.rss_delta_kb = diff_kb(p->rss_kb, o->rss_kb);
			c.anon_huge_known = o->readable && p->readable;
			if (c.anon_huge_known)
				c.anon_huge_delta_kb = diff_kb(p->anon_huge_kb, o->anon_huge_kb);
			i++;
			j++;
		} else if (p && (!o || p->pid <= o->pid)) {
			/* new pid, or the same pid reused by another program */
			c.pid = p->pid;
			str_copy(c.comm, sizeof(c.comm), p->comm);
			c.appeared = true;
			c.rss_kb = p->rss_kb;
			c.anon_huge_kb = p->anon_huge_kb;
			c.rss_delta_kb = diff_kb(p->rss_kb, 0);
			c.anon_huge_known = p->readable;
			c.anon_huge_delta_kb = p->readable ? diff_kb(p->anon_huge_kb, 0) : 0;
			j++;
			if (o && o->pid == p->pid) {
				/* the old program under this pid exited */
				struct proc_change x;
				memset(&x, 0, sizeof(x));
				x.pid = o->pid;
				str_copy(x.comm, sizeof(x.comm), o->comm);
				x.exited = true;
				x.rss_delta_kb = diff_kb(0, o->rss_kb);
				x.anon_huge_known = o->readable;
				x.anon_huge_delta_kb =
					o->readable ? diff_kb(0, o->anon_huge_kb) : 0;
				keep(out, &n, top, &x);
				i++;
			}
		} else {
			c.pid = o->pid;
			str_copy(c.comm, sizeof(c.comm), o->comm);
			c.exited = true;
			c.rss_delta_kb = diff_kb(0, o->rss_kb);
			c.anon_huge_known = o->readable;
			c.anon_huge_delta_kb = o->readable ? diff_kb(0, o->anon_huge_kb) : 0;
			i++;
		}
		keep(out, &n, top, &c);
	}
	return n;
}

int rates_vmstat(const struct kvlist *old, const struct kvlist *cur, double interval_s,
		 struct rate r[WC_N])
{
	for (int c = 0; c < WC_N; c++) {
		struct opt_u64 a, b;
		if (c == WC_ALLOCSTALL) {
			a = kv_sum_prefix(old, col_keys[c]);
			b = kv_sum_prefix(cur, col_keys[c]);
		} else {
			a = kv_opt(old, col_keys[c]);
			b = kv_opt(cur, col_keys[c]);
		}
		if (rate_compute(&a, &b, interval_s, &r[c]))
			return -EINVAL;
	}
	return 0;
}

int host_recent_derive(const struct host_snapshot *old, const struct host_snapshot *cur,
		       struct host_recent *out)
{
	memset(out, 0, sizeof(*out));
	double dt = cur->mono_s - old->mono_s;
	out->interval_s = dt;
	if (rates_vmstat(&old->vmstat, &cur->vmstat, dt, out->r))
		return -EINVAL;
	if (old->has_khugepaged_cpu && cur->has_khugepaged_cpu &&
	    old->khugepaged_pid == cur->khugepaged_pid &&
	    cur->khugepaged_cpu_s >= old->khugepaged_cpu_s) {
		out->khugepaged_valid = true;
		out->khugepaged_cpu_s = cur->khugepaged_cpu_s - old->khugepaged_cpu_s;
		out->khugepaged_cpu_ratio = out->khugepaged_cpu_s / dt;
	}
	return 0;
}

static const struct thp_size *size_in(const struct sample *s, uint64_t kb)
{
	return s->host.has_settings ? thp_size_find(&s->host.thp, kb) : NULL;
}

int watch_derive(const struct sample *old, const struct sample *cur, size_t top,
		 struct watch_row *row)
{
	memset(row, 0, sizeof(*row));
	double dt = cur->host.mono_s - old->host.mono_s;
	row->wall_s = cur->host.wall_s;
	row->interval_s = dt;
	if (rates_vmstat(&old->host.vmstat, &cur->host.vmstat, dt, row->r))
		return -EINVAL;
	uint64_t pmd_kb =
		cur->host.thp.hpage_pmd_size.present ? cur->host.thp.hpage_pmd_size.v / 1024 : 0;
	row->pmd_kb = pmd_kb;
	for (int i = 0; cur->host.has_settings && i < cur->host.thp.nsizes; i++) {
		const struct thp_size *sz = &cur->host.thp.sizes[i],
				      *osz = size_in(old, sz->size_kb);
		/* the PMD size's stats are the thp_fault_* columns */
		if (!sz->has_stats || !osz || sz->size_kb == pmd_kb)
			continue;
		struct size_rate sr = {.size_kb = sz->size_kb};
		rate_kv(&osz->stats, &sz->stats, "anon_fault_alloc", dt, &sr.alloc);
		rate_kv(&osz->stats, &sz->stats, "anon_fault_fallback", dt, &sr.fallback);
		if ((rate_valid(&sr.alloc) && sr.alloc.delta) ||
		    (rate_valid(&sr.fallback) && sr.fallback.delta))
			row->sizes[row->nsizes++] = sr;
	}
	row->anon_huge_kb = kv_opt(&cur->host.meminfo, "AnonHugePages");
	struct opt_u64 oa = kv_opt(&old->host.meminfo, "AnonHugePages");
	if (row->anon_huge_kb.present && oa.present) {
		row->has_anon_huge_delta = true;
		row->anon_huge_delta_kb = diff_kb(row->anon_huge_kb.v, oa.v);
	}
	row->free_pmd_blocks.present = host_pmd_blocks(&cur->host, &row->free_pmd_blocks.v);
	if (top > WATCH_MAX_TOP)
		top = WATCH_MAX_TOP;
	if (top)
		row->ntop = rates_top_changes(old->procs, old->nprocs, cur->procs, cur->nprocs, top,
					      row->top);
	return 0;
}
