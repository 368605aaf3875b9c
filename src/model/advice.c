// SPDX-License-Identifier: MIT

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/units.h"
#include "advice_int.h"
#include "../util/names.h"

static const char *const note_kind_names[] = {[AN_CONFLICT] = "conflict",
					      [AN_ASSUMPTION] = "assumption",
					      [AN_WATCH] = "watch",
					      [AN_FINDING] = "finding"};

const char *adv_note_kind_name(enum adv_note_kind k)
{
	return ENUM_NAME(note_kind_names, k, "info");
}
const char *const adv_enabled_vals[3] = {"always", "madvise", "never"};
const char *const adv_defrag_vals[5] = {"always", "defer", "defer+madvise", "madvise", "never"};

#define E_ALWAYS (1u << 0)
#define E_MADVISE (1u << 1)
#define E_NEVER (1u << 2)
#define D_ALWAYS (1u << 0)
#define D_DEFER (1u << 1)
#define D_DEFER_MADVISE (1u << 2)
#define D_MADVISE (1u << 3)
#define D_NEVER (1u << 4)

/* Order tried when no want names a preference that fits: the kernel's defaults first. */
static const int enabled_order[] = {1, 2, 0};
static const int defrag_order[] = {3, 2, 1, 4, 0};

enum bound { B_NONE, B_ZERO, B_EIGHTH }; /* max_ptes_none: 0, or a PMD/8 (64 on x86-64) */

/* One row of the profile table: what a workload wants of one setting. */
struct profile_want {
	enum workload wl;
	enum ak key;
	unsigned accept; /* E_* / D_* */
	int prefer;	 /* index into the values, -1 none */
	enum bound bound;
	bool per_process; /* a per-process lever can meet it instead of the host setting */
	bool if_limited;  /* only when one of its processes runs under a memory limit */
	const char *why;
};

static const struct profile_want profile_wants[] = {
	{WL_REDIS, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, true, false,
	 "Redis forks for BGSAVE and AOF rewrite and is latency-bound: THP on its heap makes faults and copy-on-write after fork costlier and memory grow; Redis asks for enabled=madvise or never"},
	{WL_MONGODB7, AK_ENABLED, E_MADVISE | E_NEVER, 2, B_NONE, true, false,
	 "MongoDB 7.0 and earlier: its production notes say to disable THP (sparse access patterns, legacy TCMalloc)"},
	{WL_MONGODB8, AK_ENABLED, E_ALWAYS, 0, B_NONE, false, false,
	 "MongoDB 8.0 and later: its upgraded TCMalloc (per-CPU caches) is built for THP; its docs ask for enabled=always"},
	{WL_MONGODB8, AK_DEFRAG, D_DEFER_MADVISE, 2, B_NONE, false, false,
	 "MongoDB 8.0 and later: its docs ask for defrag=defer+madvise (no fault stalls outside MADV_HUGEPAGE regions)"},
	{WL_MONGODB8, AK_MPN, 0, -1, B_ZERO, false, false,
	 "MongoDB 8.0 and later: its docs ask for khugepaged/max_ptes_none=0 (khugepaged must not fill in untouched pages)"},
	{WL_POSTGRES, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, true, false,
	 "PostgreSQL: backends fork from the postmaster and touch private memory sparsely, so enabled=always adds RSS and fault latency; shared_buffers belong in hugetlb pages (huge_pages = on), madvise suits the rest"},
	{WL_JVM, AK_ENABLED, E_ALWAYS | E_MADVISE, 1, B_NONE, false, false,
	 "HotSpot with -XX:+UseTransparentHugePages madvises its heap: enabled=madvise gives the heap THP and nothing else; never would take it away"},
	{WL_GO, AK_MPN, 0, -1, B_ZERO, false, true,
	 "Go under a memory limit: with max_ptes_none above 0 khugepaged refills pages the Go scavenger returned, so RSS creeps to the limit (the Go GC guide's workaround is max_ptes_none=0)"},
	{WL_LATENCY, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, false, false,
	 "latency-critical: no process should fault in huge pages it did not ask for"},
	{WL_LATENCY, AK_DEFRAG, D_DEFER | D_NEVER, 1, B_NONE, false, false,
	 "latency-critical: no page fault may wait in direct compaction; defer leaves the work to kcompactd and khugepaged"},
	{WL_BATCH, AK_ENABLED, E_ALWAYS, 0, B_NONE, false, false,
	 "throughput batch: huge pages wherever they fit cut TLB misses and page faults"},
	{WL_BATCH, AK_DEFRAG, D_DEFER | D_DEFER_MADVISE, 2, B_NONE, false, false,
	 "throughput batch: faults outside MADV_HUGEPAGE regions should not stall but wake kcompactd, and khugepaged fills in later"},
	{WL_DENSE, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, false, false,
	 "dense containers: enabled=always charges each container up to a PMD per touched region, and charge failures fall back anyway (thp_fault_fallback_charge)"},
	{WL_DENSE, AK_MPN, 0, -1, B_EIGHTH, false, false,
	 "dense containers under memory limits: max_ptes_none at its maximum lets khugepaged turn one touched page into a PMD charged to the container"},
};

static const char *sel(const struct choice *c)
{
	return c->present ? c->selected : NULL;
}

static int val_index(const char *const *vals, int n, const char *v)
{
	for (int i = 0; v && i < n; i++)
		if (strcmp(vals[i], v) == 0)
			return i;
	return -1;
}

void adv_note(struct advice *a, enum adv_note_kind k, const char *fmt, ...)
{
	if (a->nnotes == ADV_MAX_NOTES)
		return;
	struct adv_note *n = &a->notes[a->nnotes++];
	n->kind = k;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

static struct want *want_add(struct adv_ctx *c, enum ak key, int wl, const char *rule)
{
	if (c->nw == MAX_WANTS)
		return NULL;
	struct want *w = &c->w[c->nw++];
	memset(w, 0, sizeof(*w));
	w->key = key;
	w->wl = wl;
	w->prefer = -1;
	snprintf(w->who, sizeof(w->who), "%s", wl >= 0 ? workload_name((enum workload)wl) : rule);
	return w;
}

static bool wl_limited(const struct adv_input *in, enum workload w)
{
	for (int i = 0; i < in->nprocs; i++)
		if (in->procs[i].wl == w && in->procs[i].limited)
			return true;
	return false;
}

static void gather_profile_wants(struct adv_ctx *c)
{
	const struct advice *a = c->out;
	for (size_t i = 0; i < sizeof(profile_wants) / sizeof(profile_wants[0]); i++) {
		const struct profile_want *p = &profile_wants[i];
		if (!a->wl[p->wl].active)
			continue;
		if (p->if_limited && !wl_limited(c->in, p->wl))
			continue;
		struct want *w = want_add(c, p->key, (int)p->wl, NULL);
		if (!w)
			return;
		w->accept = p->accept;
		w->prefer = p->prefer;
		w->per_process = p->per_process;
		if (p->key == AK_MPN)
			w->bound = p->bound == B_ZERO ? 0 : c->pmd_pages / 8;
		snprintf(w->why, sizeof(w->why), "%s", p->why);
	}
}

static bool mpn_now(const struct host_snapshot *h, uint64_t *v)
{
	const struct opt_u64 *o = &h->thp.khp[KHP_MAX_PTES_NONE];
	*v = o->v;
	return o->present;
}

/* Rules from the field that hold whatever runs here. */
static void gather_rule_wants(struct adv_ctx *c)
{
	const struct adv_input *in = c->in;
	const struct host_snapshot *h = in->h;
	struct want *w;
	/* change defrag=always first: every THP fault anywhere may stall */
	if (c->defrag_now == 0 && (w = want_add(c, AK_DEFRAG, -1, "rule: defrag-always"))) {
		w->accept = D_DEFER | D_DEFER_MADVISE | D_MADVISE | D_NEVER;
		w->prefer = 3;
		w->first = true;
		snprintf(
			w->why, sizeof(w->why),
			"defrag=always lets every THP fault in any process stall in direct reclaim and compaction: change it first (finding defrag-always)");
	}
	/* before 5.8 the first write after fork to a THP copies the whole PMD */
	if (h->feat.kver[0] && !kver_at_least(h->feat.kver, 5, 8) &&
	    (w = want_add(c, AK_ENABLED, -1, "rule: cow-before-5.8"))) {
		w->accept = E_MADVISE | E_NEVER;
		w->prefer = 1;
		snprintf(
			w->why, sizeof(w->why),
			"kernel %s < 5.8: the first write after fork to a huge page allocates and copies all of it, so anything that forks a big heap wants THP off or madvise plus a per-process opt-out",
			h->feat.release);
	}
	/* memory limits: lower max_ptes_none */
	uint64_t mpn;
	if ((in->limited_cgroups > 0 || in->requested & (1u << WL_DENSE)) && mpn_now(h, &mpn) &&
	    (w = want_add(c, AK_MPN, -1, "rule: memory-limits"))) {
		w->bound = c->pmd_pages / 8;
		char lim[32] = "";
		uint64_t fb = 0;
		bool has_fb = kv_get(&h->vmstat, "thp_fault_fallback_charge", &fb);
		if (in->limited_cgroups) {
			fmt_bytes(lim, sizeof(lim), in->smallest_limit);
			snprintf(
				w->why, sizeof(w->why),
				"%d process%s in %d memory cgroup%s with a limit (smallest %s): each PMD khugepaged builds is charged in full, so lower max_ptes_none%s%s",
				in->limited_procs, in->limited_procs == 1 ? "" : "es",
				in->limited_cgroups, in->limited_cgroups == 1 ? "" : "s", lim,
				has_fb ? "; thp_fault_fallback_charge=" : "", "");
			if (has_fb) {
				size_t l = strlen(w->why);
				snprintf(w->why + l, sizeof(w->why) - l, "%llu since boot",
					 (unsigned long long)fb);
			}
		} else {
			snprintf(
				w->why, sizeof(w->why),
				"with memory limits, lower max_ptes_none: each PMD khugepaged builds is charged in full");
		}
	}
}

static void fmt_set(char *out, size_t n, unsigned accept, const char *const *vals, int nvals)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; i < nvals; i++)
		if ((accept & (1u << i)) && o < n)
			o += (size_t)snprintf(out + o, n - o, "%s%s", o ? " or " : "", vals[i]);
}

/* Whether the wants on KEY (all, or only those no per-process lever can meet) accept VALUE. */
static unsigned intersect(const struct adv_ctx *c, enum ak key, bool hostwide_only, bool *any)
{
	unsigned acc = ~0u;
	*any = false;
	for (int i = 0; i < c->nw; i++)
		if (c->w[i].key == key && !(hostwide_only && c->w[i].per_process)) {
			acc &= c->w[i].accept;
			*any = true;
		}
	return acc;
}

/*
 * Resolve a choice setting: intersect what the wants accept, and keep the
 * current value when it is acceptable. When the wants cannot agree, those a
 * per-process lever can meet drop out (their processes opt out alone); if
 * even then no value suits all, the earlier wants (table order) win and the
 * others are named as conflicts. On a mixed host, per-process levers beat a
 * host-wide change: when the current value suits every want that has no
 * per-process way, it stays. Returns the value's index, or -1 when nobody
 * cares.
 */
static int resolve_choice(struct adv_ctx *c, enum ak key, int now, const char *const *vals,
			  int nvals, const int *order, const char *keyname)
{
	unsigned all = (1u << nvals) - 1;
	bool any, any_hw;
	unsigned acc = intersect(c, key, false, &any) & all;
	unsigned hw = intersect(c, key, true, &any_hw) & all;
	if (!any)
		return -1;
	if (c->out->mixed && any_hw && now >= 0 && (hw & (1u << now)) && !(acc & (1u << now)))
		acc = hw; /* keep it; the others opt out per process */
	if (!acc)
		acc = hw;
	if (!acc) { /* first come, first served */
		acc = all;
		for (int i = 0; i < c->nw; i++)
			if (c->w[i].key == key && !c->w[i].per_process && (acc & c->w[i].accept))
				acc &= c->w[i].accept;
	}
	int res = -1;
	if (now >= 0 && (acc & (1u << now)))
		res = now;
	for (int i = 0; res < 0 && i < c->nw; i++) {
		const struct want *w = &c->w[i];
		if (w->key == key && w->prefer >= 0 && (acc & (1u << w->prefer)))
			res = w->prefer;
	}
	for (int i = 0; res < 0 && i < nvals; i++)
		if (acc & (1u << order[i]))
			res = order[i];
	if (res < 0)
		return -1;
	/* who is left out: per-process levers, or a named conflict */
	for (int i = 0; i < c->nw; i++) {
		const struct want *w = &c->w[i];
		if (w->key != key || (w->accept & (1u << res)))
			continue;
		if (w->per_process && w->wl >= 0) {
			c->pp_off[w->wl] = true;
			continue;
		}
		const char *winner = "the others";
		for (int k = 0; k < c->nw; k++)
			if (c->w[k].key == key && !c->w[k].per_process &&
			    (c->w[k].accept & (1u << res))) {
				winner = c->w[k].who;
				break;
			}
		char set[96];
		fmt_set(set, sizeof(set), w->accept, vals, nvals);
		adv_note(
			c->out, AN_CONFLICT,
			"%s wants %s=%s, but %s comes first and %s=%s stays: no per-process lever gives %s its own setting (separate hosts would)",
			w->who, keyname, set, winner, keyname, vals[res], w->who);
	}
	return res;
}

static struct adv_setting *setting(struct advice *a, const char *key)
{
	for (int i = 0; i < a->nsettings; i++)
		if (strcmp(a->s[i].key, key) == 0)
			return &a->s[i];
	if (a->nsettings == ADV_MAX_SETTINGS)
		return NULL;
	struct adv_setting *s = &a->s[a->nsettings++];
	memset(s, 0, sizeof(*s));
	snprintf(s->key, sizeof(s->key), "%s", key);
	return s;
}

/* Reasons and who-lists of the wants on KEY that the value VAL satisfies. */
static void explain(struct adv_ctx *c, struct adv_setting *s, enum ak key, unsigned bit,
		    bool numeric, uint64_t val)
{
	size_t rl = 0, bl = 0;
	for (int i = 0; i < c->nw; i++) {
		const struct want *w = &c->w[i];
		if (w->key != key)
			continue;
		bool ok = numeric ? (key == AK_MPN ? val <= w->bound : val == w->bound)
				  : (w->accept & bit) != 0;
		if (!ok)
			continue;
		if (rl < sizeof(s->reason))
			rl += (size_t)snprintf(s->reason + rl, sizeof(s->reason) - rl, "%s%s",
					       rl ? "; " : "", w->why);
		if (bl < sizeof(s->by))
			bl += (size_t)snprintf(s->by + bl, sizeof(s->by) - bl, "%s%s",
					       bl ? ", " : "", w->who);
	}
}

static void resolve_settings(struct adv_ctx *c)
{
	const struct host_snapshot *h = c->in->h;
	struct advice *a = c->out;
	struct adv_setting *s;
	/* defrag first when it is always: the rule says so, and so does the order here */
	int d = resolve_choice(c, AK_DEFRAG, c->defrag_now, adv_defrag_vals, 5, defrag_order,
			       "defrag");
	int e = resolve_choice(c, AK_ENABLED, c->enabled_now, adv_enabled_vals, 3, enabled_order,
			       "enabled");
	c->enabled_res = e >= 0 ? e : c->enabled_now;
	c->defrag_res = d >= 0 ? d : c->defrag_now;
	if (d >= 0 && (s = setting(a, "defrag"))) {
		s->has_now = c->defrag_now >= 0;
		snprintf(s->now, sizeof(s->now), "%s",
			 s->has_now ? adv_defrag_vals[c->defrag_now] : "-");
		snprintf(s->want, sizeof(s->want), "%s", adv_defrag_vals[d]);
		s->change = d != c->defrag_now;
		explain(c, s, AK_DEFRAG, 1u << d, false, 0);
	}
	if (e >= 0 && (s = setting(a, "enabled"))) {
		s->has_now = c->enabled_now >= 0;
		snprintf(s->now, sizeof(s->now), "%s",
			 s->has_now ? adv_enabled_vals[c->enabled_now] : "-");
		snprintf(s->want, sizeof(s->want), "%s", adv_enabled_vals[e]);
		s->change = e != c->enabled_now;
		explain(c, s, AK_ENABLED, 1u << e, false, 0);
	}
	/* the PMD size's own setting (6.8+) overrides enabled unless it is inherit */
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	const struct thp_size *sz = pmd_kb ? thp_size_find(&h->thp, pmd_kb) : NULL;
	if (e >= 0 && sz && sz->enabled.present && strcmp(sz->enabled.selected, "inherit") != 0 &&
	    strcmp(sz->enabled.selected, adv_enabled_vals[e]) != 0) {
		char key[48];
		snprintf(key, sizeof(key), "hugepages-%llukB/enabled", (unsigned long long)pmd_kb);
		if ((s = setting(a, key))) {
			s->has_now = true;
			snprintf(s->now, sizeof(s->now), "%s", sz->enabled.selected);
			snprintf(s->want, sizeof(s->want), "inherit");
			s->change = true;
			snprintf(
				s->reason, sizeof(s->reason),
				"the PMD size (%llukB) has its own policy %s, which overrides enabled; inherit makes enabled=%s apply",
				(unsigned long long)pmd_kb, sz->enabled.selected,
				adv_enabled_vals[e]);
			snprintf(s->by, sizeof(s->by), "rule: pmd-size-override");
		}
	}
	/* max_ptes_none: the smallest bound asked for, and only if THP can happen at all */
	uint64_t mpn, bound = UINT64_MAX;
	bool want_mpn = false;
	for (int i = 0; i < c->nw; i++)
		if (c->w[i].key == AK_MPN) {
			want_mpn = true;
			if (c->w[i].bound < bound)
				bound = c->w[i].bound;
		}
	/* enabled=always with max_ptes_none at its maximum (finding always-max-ptes-none) */
	bool full = mpn_now(h, &mpn) && c->pmd_pages && mpn >= c->pmd_pages - 1;
	if (c->enabled_res == 0 && full && !want_mpn) {
		struct want *w = want_add(c, AK_MPN, -1, "rule: always-max-ptes-none");
		if (w) {
			w->bound = c->pmd_pages / 8;
			snprintf(
				w->why, sizeof(w->why),
				"enabled=always with max_ptes_none=%llu: khugepaged can turn one touched page into a PMD of RSS (finding always-max-ptes-none)",
				(unsigned long long)mpn);
			want_mpn = true;
			bound = w->bound;
		}
	}
	bool thp_possible = c->enabled_res != 2;
	if (want_mpn && thp_possible && mpn_now(h, &mpn) &&
	    (s = setting(a, "khugepaged/max_ptes_none"))) {
		uint64_t v = mpn > bound ? bound : mpn;
		s->has_now = true;
		snprintf(s->now, sizeof(s->now), "%llu", (unsigned long long)mpn);
		snprintf(s->want, sizeof(s->want), "%llu", (unsigned long long)v);
		s->change = v != mpn;
		explain(c, s, AK_MPN, 0, true, v);
		/* shrink_underused (6.12) splits mostly-zero THPs, but only below the maximum */
		if (h->thp.shrink_underused.present && v + 1 < c->pmd_pages &&
		    (s = setting(a, "shrink_underused"))) {
			s->has_now = true;
			snprintf(s->now, sizeof(s->now), "%llu",
				 (unsigned long long)h->thp.shrink_underused.v);
			snprintf(s->want, sizeof(s->want), "1");
			s->change = h->thp.shrink_underused.v != 1;
			snprintf(
				s->reason, sizeof(s->reason),
				"6.12+: with max_ptes_none below %llu, the shrinker splits THPs holding more than max_ptes_none zero-filled pages under memory pressure and frees those pages (at %llu it does nothing)",
				(unsigned long long)(c->pmd_pages - 1),
				(unsigned long long)(c->pmd_pages - 1));
			snprintf(s->by, sizeof(s->by), "rule: shrink-underused");
		}
	}
}
static void commands(struct advice *a)
{
	size_t sl = 0, pl = 0;
	sl += (size_t)snprintf(a->set_cmd, sizeof(a->set_cmd), "thpctl set");
	pl += (size_t)snprintf(a->persist_cmd, sizeof(a->persist_cmd), "thpctl persist");
	a->nchanges = 0;
	for (int i = 0; i < a->nsettings; i++) {
		if (!a->s[i].change)
			continue;
		a->nchanges++;
		if (sl < sizeof(a->set_cmd))
			sl += (size_t)snprintf(a->set_cmd + sl, sizeof(a->set_cmd) - sl, " %s=%s",
					       a->s[i].key, a->s[i].want);
		if (pl < sizeof(a->persist_cmd))
			pl += (size_t)snprintf(a->persist_cmd + pl, sizeof(a->persist_cmd) - pl,
					       " %s=%s", a->s[i].key, a->s[i].want);
	}
	if (!a->nchanges)
		a->set_cmd[0] = a->persist_cmd[0] = '\0';
}

void advice_build(const struct adv_input *in, struct advice *out)
{
	static struct adv_ctx c; /* big; advice_build is not reentrant */
	memset(&c, 0, sizeof(c));
	memset(out, 0, sizeof(*out));
	c.in = in;
	c.out = out;
	const struct host_snapshot *h = in->h;
	c.pmd_pages = h->feat.pmd_size && h->feat.page_size > 0
			      ? h->feat.pmd_size / (uint64_t)h->feat.page_size
			      : 512;
	c.enabled_now = val_index(adv_enabled_vals, 3, sel(&h->thp.enabled));
	c.defrag_now = val_index(adv_defrag_vals, 5, sel(&h->thp.defrag));

	/* which workloads are here */
	int apps = 0;
	for (int i = 0; i < in->nprocs; i++) {
		struct adv_workload *w = &out->wl[in->procs[i].wl];
		w->detected = w->active = true;
		if (w->npids < 8)
			w->pids[w->npids++] = in->procs[i].pid;
		if (in->procs[i].has_ver && !w->version[0]) {
			if (in->procs[i].ver[1] >= 0)
				snprintf(w->version, sizeof(w->version), "%d.%d",
					 in->procs[i].ver[0], in->procs[i].ver[1]);
			else
				snprintf(w->version, sizeof(w->version), "%d", in->procs[i].ver[0]);
			snprintf(w->version_src, sizeof(w->version_src), "%s",
				 in->procs[i].ver_src);
		}
	}
	for (int w = 0; w < WL_N; w++)
		if (in->requested & (1u << w))
			out->wl[w].requested = out->wl[w].active = true;
	/* a dense host is detected by its memory-limited cgroups */
	if (in->limited_cgroups >= 4)
		out->wl[WL_DENSE].active = out->wl[WL_DENSE].detected = true;
	for (int w = 0; w < WL_N; w++)
		if (out->wl[w].active && workload_is_app((enum workload)w))
			apps++;
	out->mixed = apps >= 2;

	if (!h->thp.present) {
		adv_note(
			out, AN_INFO,
			"this kernel has no THP (no /sys/kernel/mm/transparent_hugepage): nothing to set; hugetlb is the only huge page source (thpctl hugetlb plan)");
		return;
	}
	/* the rules from the field come first: on a conflict the earlier want wins */
	gather_rule_wants(&c);
	gather_profile_wants(&c);
	resolve_settings(&c);
	/* the defrag=always rule says: this one first */
	for (int i = 0; i < out->nsettings; i++)
		if (strcmp(out->s[i].key, "defrag") == 0 && out->s[i].change && i > 0) {
			struct adv_setting t = out->s[i];
			memmove(&out->s[1], &out->s[0], (size_t)i * sizeof(t));
			out->s[0] = t;
		}
	commands(out);
	advice_levers(&c);
	advice_notes(&c);
	if (apps == 0 && !out->nchanges)
		adv_note(
			out, AN_INFO,
			"no known workload detected (redis, mongod, postgres, java, node, large Go binaries) and none asked for (--workload): enabled=madvise and defrag=madvise suit a general-purpose host (defrag=madvise is the kernel's default since 4.6; the boot value of enabled is a build choice, see Host)");
}
