// SPDX-License-Identifier: MIT

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "advice_int.h"
#include "../util/names.h"
#include "slot.h"

static const char *const note_kind_names[] = {[AN_CONFLICT] = "conflict",
					      [AN_ASSUMPTION] = "assumption",
					      [AN_WATCH] = "watch",
					      [AN_FINDING] = "finding"};

const char *adv_note_kind_name(enum adv_note_kind k)
{
	return ENUM_NAME(note_kind_names, k, "info");
}
const char *adv_why_name(enum adv_why_id id)
{
	static const char *const n[AW_N] = {
		[AW_REDIS_ENABLED] = "redis-enabled",
		[AW_MONGODB7_ENABLED] = "mongodb7-enabled",
		[AW_MONGODB8_ENABLED] = "mongodb8-enabled",
		[AW_MONGODB8_DEFRAG] = "mongodb8-defrag",
		[AW_MONGODB8_MPN] = "mongodb8-max-ptes-none",
		[AW_POSTGRES_ENABLED] = "postgres-enabled",
		[AW_JVM_ENABLED] = "jvm-enabled",
		[AW_GO_MPN] = "go-max-ptes-none",
		[AW_LATENCY_ENABLED] = "latency-critical-enabled",
		[AW_LATENCY_DEFRAG] = "latency-critical-defrag",
		[AW_BATCH_ENABLED] = "throughput-batch-enabled",
		[AW_BATCH_DEFRAG] = "throughput-batch-defrag",
		[AW_DENSE_ENABLED] = "dense-containers-enabled",
		[AW_DENSE_MPN] = "dense-containers-max-ptes-none",
		[AW_RULE_DEFRAG_ALWAYS] = "defrag-always",
		[AW_RULE_COW] = "cow-before-5.8",
		[AW_RULE_LIMITS] = "memory-limits",
		[AW_RULE_LIMITS_ASKED] = "memory-limits-asked",
		[AW_RULE_ALWAYS_MPN] = "always-max-ptes-none",
		[AW_RULE_PMD_OVERRIDE] = "pmd-size-override",
		[AW_RULE_SHRINK_UNDERUSED] = "shrink-underused",
		[AW_RULE_SHRINK_NOOP_LEDGER] = "shrink-underused-noop",
	};
	return ENUM_NAME(n, id, "?");
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
	enum adv_why_id why;
};

static const struct profile_want profile_wants[] = {
	{WL_REDIS, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, true, false, AW_REDIS_ENABLED},
	{WL_MONGODB7, AK_ENABLED, E_MADVISE | E_NEVER, 2, B_NONE, true, false, AW_MONGODB7_ENABLED},
	{WL_MONGODB8, AK_ENABLED, E_ALWAYS, 0, B_NONE, false, false, AW_MONGODB8_ENABLED},
	{WL_MONGODB8, AK_DEFRAG, D_DEFER_MADVISE, 2, B_NONE, false, false, AW_MONGODB8_DEFRAG},
	{WL_MONGODB8, AK_MPN, 0, -1, B_ZERO, false, false, AW_MONGODB8_MPN},
	{WL_POSTGRES, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, true, false, AW_POSTGRES_ENABLED},
	{WL_JVM, AK_ENABLED, E_ALWAYS | E_MADVISE, 1, B_NONE, false, false, AW_JVM_ENABLED},
	{WL_GO, AK_MPN, 0, -1, B_ZERO, false, true, AW_GO_MPN},
	{WL_LATENCY, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, false, false, AW_LATENCY_ENABLED},
	{WL_LATENCY, AK_DEFRAG, D_DEFER | D_NEVER, 1, B_NONE, false, false, AW_LATENCY_DEFRAG},
	{WL_BATCH, AK_ENABLED, E_ALWAYS, 0, B_NONE, false, false, AW_BATCH_ENABLED},
	{WL_BATCH, AK_DEFRAG, D_DEFER | D_DEFER_MADVISE, 2, B_NONE, false, false, AW_BATCH_DEFRAG},
	{WL_DENSE, AK_ENABLED, E_MADVISE | E_NEVER, 1, B_NONE, false, false, AW_DENSE_ENABLED},
	{WL_DENSE, AK_MPN, 0, -1, B_EIGHTH, false, false, AW_DENSE_MPN},
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

struct adv_note *adv_note(struct advice *a, enum adv_note_kind k, enum adv_note_id id)
{
	struct adv_note *n = SLOT_TAKE(a->notes, a->nnotes);
	if (!n)
		return NULL;
	n->kind = k;
	n->id = id;
	return n;
}

static struct want *want_add(struct adv_ctx *c, enum ak key, int wl, const char *rule)
{
	struct want *w = SLOT_TAKE(c->w, c->nw);
	if (!w)
		return NULL;
	w->key = key;
	w->wl = wl;
	w->prefer = -1;
	w->why.who = wl >= 0 ? workload_name((enum workload)wl) : rule;
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
		w->why.id = p->why;
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
	/* change defrag=always first: every THP fault anywhere may stall
	 * TODO(facts): "defrag stalls" is decided in findings.c too; call the model function of
	 * branch facts once it lands */
	if (c->defrag_now == 0 && (w = want_add(c, AK_DEFRAG, -1, "rule: defrag-always"))) {
		w->accept = D_DEFER | D_DEFER_MADVISE | D_MADVISE | D_NEVER;
		w->prefer = 3;
		w->first = true;
		w->why.id = AW_RULE_DEFRAG_ALWAYS;
	}
	/* before 5.8 the first write after fork to a THP copies the whole PMD */
	if (h->feat.cow_split == TRI_NO &&
	    (w = want_add(c, AK_ENABLED, -1, "rule: cow-before-5.8"))) {
		w->accept = E_MADVISE | E_NEVER;
		w->prefer = 1;
		w->why.id = AW_RULE_COW;
		w->why.release = h->feat.release;
	}
	/* memory limits: lower max_ptes_none */
	uint64_t mpn;
	if ((in->limited_cgroups > 0 || in->requested & (1u << WL_DENSE)) && mpn_now(h, &mpn) &&
	    (w = want_add(c, AK_MPN, -1, "rule: memory-limits"))) {
		w->bound = c->pmd_pages / 8;
		w->why.id = in->limited_cgroups ? AW_RULE_LIMITS : AW_RULE_LIMITS_ASKED;
		w->why.limited_procs = in->limited_procs;
		w->why.limited_cgroups = in->limited_cgroups;
		w->why.smallest_limit = in->smallest_limit;
		w->why.has_fallback =
			kv_get(&h->vmstat, "thp_fault_fallback_charge", &w->why.fallback);
	}
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
				winner = c->w[k].why.who;
				break;
			}
		struct adv_note *n = adv_note(c->out, AN_CONFLICT, ANI_CONFLICT);
		if (n) {
			n->who = w->why.who;
			n->winner = winner;
			n->key = keyname;
			n->value = vals[res];
			n->accept = w->accept;
			n->vals = vals;
			n->nvals = nvals;
		}
	}
	return res;
}

static struct adv_setting *setting(struct advice *a, const char *key)
{
	for (int i = 0; i < a->nsettings; i++)
		if (strcmp(a->s[i].key, key) == 0)
			return &a->s[i];
	struct adv_setting *s = SLOT_TAKE(a->s, a->nsettings);
	if (!s)
		return NULL;
	snprintf(s->key, sizeof(s->key), "%s", key);
	return s;
}

/* The reasons (with who) of the wants on KEY that the value VAL satisfies. */
static void explain(struct adv_ctx *c, struct adv_setting *s, enum ak key, unsigned bit,
		    bool numeric, uint64_t val)
{
	for (int i = 0; i < c->nw; i++) {
		const struct want *w = &c->w[i];
		if (w->key != key)
			continue;
		bool ok = numeric ? (key == AK_MPN ? val <= w->bound : val == w->bound)
				  : (w->accept & bit) != 0;
		if (ok && s->nwhy < ADV_MAX_WHY)
			s->why[s->nwhy++] = w->why;
	}
}

/* S's one reason: a rule of id ID. */
static struct adv_why *rule_why(struct adv_setting *s, enum adv_why_id id, const char *who)
{
	s->nwhy = 1;
	memset(&s->why[0], 0, sizeof(s->why[0]));
	s->why[0].id = id;
	s->why[0].who = who;
	return &s->why[0];
}

/* The setting KEY of kind K from VALS[NOW] (NOW -1: unread) to VALS[WANT], with its reasons. */
static void choice_setting(struct adv_ctx *c, enum ak k, const char *key, const char *const *vals,
			   int now, int want)
{
	struct adv_setting *s = setting(c->out, key);
	if (!s)
		return;
	s->has_now = now >= 0;
	snprintf(s->now, sizeof(s->now), "%s", s->has_now ? vals[now] : "-");
	snprintf(s->want, sizeof(s->want), "%s", vals[want]);
	s->change = want != now;
	explain(c, s, k, 1u << want, false, 0);
}

/*
 * The underused shrinker (6.12+, shrink_underused=1) splits nothing while max_ptes_none is
 * at its maximum (finding shrink-underused-noop); when the ledger found processes with
 * invented or creep memory over its flag, PMD/8 lets the shrinker split their mostly-zero
 * THPs under memory pressure (and khugepaged fill fewer pages).
 */
static void want_shrink_noop(struct adv_ctx *c, uint64_t mpn)
{
	const struct adv_input *in = c->in;
	const struct host_snapshot *h = in->h;
	if (in->ledger_scan != 1 || !in->sparse_procs || !h->thp.shrink_underused.present ||
	    h->thp.shrink_underused.v != 1 || !c->pmd_pages || mpn < c->pmd_pages - 1)
		return;
	struct want *w = want_add(c, AK_MPN, -1, "rule: shrink-underused-noop");
	if (!w)
		return;
	w->bound = c->pmd_pages / 8;
	struct adv_why *y = &w->why;
	y->id = AW_RULE_SHRINK_NOOP_LEDGER;
	y->mpn = mpn;
	y->bound = w->bound;
	y->sparse_procs = in->sparse_procs;
	y->invented_procs = in->invented_procs;
	y->creep_procs = in->creep_procs;
	y->invented_kb = in->invented_kb;
	y->creep_kb = in->creep_kb;
	y->invented_sampled = in->invented_sampled;
}

/* max_ptes_none: the smallest bound asked for, and only if THP can happen at all; then
 * shrink_underused, which frees zero-filled pages only below the maximum. */
static void resolve_mpn(struct adv_ctx *c)
{
	const struct host_snapshot *h = c->in->h;
	struct advice *a = c->out;
	struct adv_setting *s;
	uint64_t mpn, bound = UINT64_MAX;
	bool full = mpn_now(h, &mpn) && c->pmd_pages && mpn >= c->pmd_pages - 1;
	bool want_mpn = false;
	for (int i = 0; i < c->nw; i++)
		if (c->w[i].key == AK_MPN)
			want_mpn = true;
	/* enabled=always with max_ptes_none at its maximum (finding always-max-ptes-none) */
	if (c->enabled_res == 0 && full && !want_mpn) {
		struct want *w = want_add(c, AK_MPN, -1, "rule: always-max-ptes-none");
		if (w) {
			w->bound = c->pmd_pages / 8;
			w->why.id = AW_RULE_ALWAYS_MPN;
			w->why.mpn = mpn;
		}
	}
	if (full)
		want_shrink_noop(c, mpn);
	for (int i = 0; i < c->nw; i++)
		if (c->w[i].key == AK_MPN) {
			want_mpn = true;
			if (c->w[i].bound < bound)
				bound = c->w[i].bound;
		}
	bool thp_possible = c->enabled_res != 2;
	if (!want_mpn || !thp_possible || !mpn_now(h, &mpn) ||
	    !(s = setting(a, "khugepaged/max_ptes_none")))
		return;
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
		rule_why(s, AW_RULE_SHRINK_UNDERUSED, "rule: shrink-underused")->max_mpn =
			c->pmd_pages - 1;
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
	if (d >= 0)
		choice_setting(c, AK_DEFRAG, "defrag", adv_defrag_vals, c->defrag_now, d);
	if (e >= 0)
		choice_setting(c, AK_ENABLED, "enabled", adv_enabled_vals, c->enabled_now, e);
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
			struct adv_why *y =
				rule_why(s, AW_RULE_PMD_OVERRIDE, "rule: pmd-size-override");
			y->pmd_kb = pmd_kb;
			y->size_val = sz->enabled.selected;
			y->enabled = adv_enabled_vals[e];
		}
	}
	resolve_mpn(c);
}

static void count_changes(struct advice *a)
{
	a->nchanges = 0;
	for (int i = 0; i < a->nsettings; i++)
		a->nchanges += a->s[i].change;
}

void adv_proc_version(const struct adv_proc *p, char *out, size_t n)
{
	if (!p->has_ver)
		snprintf(out, n, "%s", "");
	else if (p->ver[1] >= 0)
		snprintf(out, n, "%d.%d", p->ver[0], p->ver[1]);
	else
		snprintf(out, n, "%d", p->ver[0]);
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

	/* which workloads are here, and their version when every process of one agrees */
	int apps = 0;
	for (int i = 0; i < in->nprocs; i++) {
		const struct adv_proc *p = &in->procs[i];
		struct adv_workload *w = &out->wl[p->wl];
		bool first =
			!w->detected; /* its first process sets the version the rest must match */
		w->detected = w->active = true;
		if (w->npids < 8)
			w->pids[w->npids++] = p->pid;
		char v[sizeof(w->version)];
		adv_proc_version(p, v, sizeof(v));
		if (first) {
			snprintf(w->version, sizeof(w->version), "%s", v);
			snprintf(w->version_src, sizeof(w->version_src), "%s",
				 v[0] ? p->ver_src : "");
		} else if (strcmp(v, w->version) != 0) {
			w->versions_differ = true;
		}
	}
	for (int w = 0; w < WL_N; w++)
		if (out->wl[w].versions_differ)
			out->wl[w].version[0] = out->wl[w].version_src[0] = '\0';
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
		adv_note(out, AN_INFO, ANI_NO_THP);
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
	count_changes(out);
	for (int i = 0; in->fs && i < in->fs->n; i++)
		out->persist_tuned |= in->fs->f[i].kind == FK_TUNED_SETS_THP;
	advice_remedies(&c);
	advice_levers(&c);
	advice_notes(&c);
	if (apps == 0 && !out->nchanges)
		adv_note(out, AN_INFO, ANI_NO_WORKLOAD);
}
