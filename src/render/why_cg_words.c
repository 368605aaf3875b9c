// SPDX-License-Identifier: MIT
/* `why`: the sentences of its memory cgroup line (model/why_cgroup.c) and of its headroom. */
#include <string.h>

#include "../util/units.h"
#include "why_int.h"

/* "N%" of USE over LIM, rounded down to a tenth: "99.7%" */
static void pct(char *out, size_t n, uint64_t use, uint64_t lim)
{
	uint64_t t = lim ? (uint64_t)((unsigned __int128)use * 1000 / lim) : 0;
	snprintf(out, n, "%llu.%llu%%", (unsigned long long)(t / 10), (unsigned long long)(t % 10));
}

void why_w_cg_room(struct wb *b, const struct why_cg_room *c)
{
	char h[32], p[32];
	fmt_bytes(h, sizeof(h), c->headroom);
	fmt_bytes(p, sizeof(p), c->pmd_bytes);
	wb_put(b, "its memory cgroup %s has %s of charge headroom left%s", c->path, h,
	       c->starved ? ", under one PMD" : "");
	wb_put(b,
	       c->starved ? " (%s): each needs that much charge, so the cgroup refuses it"
			  : " (each needs %s of charge)",
	       p);
}

/* The directory of C's usage file (a host path) when it is not the smallest limit's cgroup,
 * into OUT; NULL when it is the same cgroup. */
static const char *other_dir(char *out, size_t n, const struct why_cg_room *c)
{
	if (!c->other_usage_file)
		return NULL;
	const char *s = strrchr(c->other_usage_file, '/');
	snprintf(out, n, "/%.*s", s ? (int)(s - c->other_usage_file) : 0, c->other_usage_file);
	return out;
}

static void w_tight(struct wb *b, const struct why_ev_cg *e)
{
	const struct why_cg_room *c = &e->room;
	char a[32], u[32], h[32], p[32], q[16], v[32], o[CG_PATH_LEN + 72];
	fmt_bytes(a, sizeof(a), c->limit);
	fmt_bytes(u, sizeof(u), c->usage);
	fmt_bytes(h, sizeof(h), c->headroom);
	fmt_bytes(p, sizeof(p), c->pmd_bytes);
	pct(q, sizeof(q), c->usage, c->limit);
	if (other_dir(o, sizeof(o), c))
		wb_put(b, "memory cgroup %s (v%d) is under %s, which ", e->lim->path,
		       e->lim->version, o);
	else
		wb_put(b, "memory cgroup %s (v%d) ", e->lim->path, e->lim->version);
	wb_put(b,
	       "uses %s of its %s limit (%s), %s of headroom%s: THP faults "
	       "and khugepaged collapses there need %s of charge each%s",
	       u, a, q, h, c->starved ? ", under one PMD" : "", p,
	       c->starved ? " and are refused (a fault falls back to small pages; a collapse "
			    "allocates, then fails the charge)"
			  : ": reclaim in the cgroup, or a refusal, is near");
	evidence_path(KP_VMSTAT, 0, NULL, v, sizeof(v));
	if (e->has_fallback)
		wb_put(b,
		       "; host-wide evidence (%s): thp_fault_fallback_charge=%llu (faults whose huge "
		       "page a cgroup refused, since boot)",
		       v, (unsigned long long)e->fallback);
	else
		wb_put(b, "; this kernel has no thp_fault_fallback_charge (< 5.7)");
	if (e->has_collapse_failed)
		wb_put(b,
		       ", thp_collapse_alloc_failed=%llu (collapses that could not allocate; a "
		       "refused charge counts in thp_collapse_alloc instead)",
		       (unsigned long long)e->collapse_failed);
}

static void w_limited(struct wb *b, const struct why_ev_cg *e)
{
	const struct cg_limit *lim = e->lim;
	char a[32], v[32], u[32], h[32], q[16], l2[32], o[CG_PATH_LEN + 72];
	fmt_bytes(a, sizeof(a), lim->limit_bytes);
	wb_put(b, "memory cgroup %s (v%d) is limited to %s", lim->path, lim->version, a);
	if (e->room.known) {
		fmt_bytes(u, sizeof(u), e->room.usage);
		fmt_bytes(h, sizeof(h), e->room.headroom);
		pct(q, sizeof(q), e->room.usage, e->room.limit);
		if (other_dir(o, sizeof(o), &e->room)) {
			/* the least headroom is another cgroup's: its usage against its own limit */
			fmt_bytes(l2, sizeof(l2), e->room.limit);
			wb_put(b,
			       "; the least headroom on its path is %s, in %s, which uses %s of its "
			       "%s limit (%s)",
			       h, o, u, l2, q);
		} else {
			wb_put(b, ", uses %s (%s of that limit), %s of headroom", u, q, h);
		}
	} else {
		wb_put(b, ", usage unknown (not readable)");
	}
	if (e->has_fallback)
		wb_put(b,
		       "; a huge page fault that cannot be charged falls back to small pages: "
		       "host thp_fault_fallback_charge=%llu since boot (%s)",
		       (unsigned long long)e->fallback,
		       evidence_path(KP_VMSTAT, 0, NULL, v, sizeof(v)));
	else
		wb_put(b, "; this kernel has no thp_fault_fallback_charge (< 5.7)");
}

void why_w_cgroup(struct wb *b, const struct why_line *l)
{
	const struct why_ev_cg *e = &l->ev.cg;
	const struct cg_limit *lim = e->lim;
	char a[64];
	switch (l->id) {
	case WI_CG_UNREAD:
		wb_put(b, "memory cgroup ");
		why_w_unreadable(b, e->err, e->recorded);
		break;
	case WI_CG_LIMIT_UNREAD:
		wb_put(b, "memory cgroup %s (v%d): limit files ", lim->path[0] ? lim->path : "?",
		       lim->version);
		why_w_unreadable(b, e->err, e->recorded);
		break;
	case WI_CG_LIMIT_PARTIAL:
		wb_put(b,
		       "memory cgroup %s (v%d): its memory limit is unknown: a limit file on its "
		       "path is ",
		       lim->path, lim->version);
		why_w_unreadable(b, e->err, e->recorded);
		if (lim->limited) {
			fmt_bytes(a, sizeof(a), lim->limit_bytes);
			wb_put(b, " (the readable ones limit it to %s)", a);
		}
		break;
	case WI_CG_NONE:
		wb_put(b,
		       "no memory cgroup controller found for it under %s: no memory limit applies",
		       evidence_path(KP_CGROUP_ROOT, 0, NULL, a, sizeof(a)));
		break;
	case WI_CG_UNLIMITED:
		wb_put(b, "memory cgroup %s (v%d): no memory limit on its path", lim->path,
		       lim->version);
		break;
	case WI_CG_TIGHT:
		w_tight(b, e);
		break;
	default:
		w_limited(b, e);
		break;
	}
}
