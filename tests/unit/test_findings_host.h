/* SPDX-License-Identifier: MIT */
/*
 * Shared by test_findings.c (the facts each rule records) and
 * test_finding_text.c (the sentences render/ writes from them): a healthy
 * 6.18 x86-64 host built by hand, as host_snapshot_read would fill it from a
 * recorded tree, and helpers that run one rule over it.
 */
#ifndef THPCTL_TEST_FINDINGS_HOST_H
#define THPCTL_TEST_FINDINGS_HOST_H

#include "unit.h"

#include "kernel/buddyinfo.h"
#include "kernel/features.h"
#include "kernel/kv.h"
#include "kernel/parse.h"
#include "model/findings.h"
#include "model/host.h"

/* A healthy 6.18 x86-64 host: the kernel defaults, and counters with nothing wrong. */
static const char vmstat_healthy[] = "nr_free_pages 1078159\n"
				     "nr_anon_transparent_hugepages 12\n"
				     "compact_stall 0\n"
				     "compact_fail 0\n"
				     "compact_success 0\n"
				     "thp_fault_alloc 900\n"
				     "thp_fault_fallback 100\n"
				     "thp_collapse_alloc 10\n"
				     "thp_collapse_alloc_failed 0\n"
				     "thp_split_page 4\n"
				     "thp_deferred_split_page 4\n";

static const char buddy_text[] =
	"Node 0, zone   Normal    297    191    414    244    130     53     61     90     54     35    244 \n";

struct t {
	struct host_snapshot h;
	struct host_derived d;
	struct findings out;
};

static void set_choice(struct choice *c, const char *text)
{
	assert_int_equal(choice_parse(text, strlen(text), c), 0);
}

static void set_vmstat(struct host_snapshot *h, const char *text)
{
	assert_int_equal(vmstat_parse(text, strlen(text), &h->vmstat), 0);
	assert_int_equal(h->vmstat.bad, 0);
	h->has_vmstat = true;
}

static void set_release(struct host_snapshot *h, const char *rel)
{
	snprintf(h->feat.release, sizeof(h->feat.release), "%s", rel);
	assert_int_equal(kernel_version_parse(rel, h->feat.kver), 0);
	/* as features_probe infers it */
	h->feat.cow_split = kver_at_least(h->feat.kver, 5, 8) ? TRI_YES : TRI_NO;
}

/* Add a hugepages-<KB>kB directory; eff_enabled resolved as thp_settings_read does. */
static struct thp_size *add_size(struct host_snapshot *h, uint64_t kb, const char *enabled)
{
	assert_true(h->thp.nsizes < THP_MAX_SIZES);
	struct thp_size *sz = &h->thp.sizes[h->thp.nsizes++];
	memset(sz, 0, sizeof(*sz));
	sz->size_kb = kb;
	sz->order = -1;
	if (enabled) {
		set_choice(&sz->enabled, enabled);
		sz->eff_enabled =
			strcmp(sz->enabled.selected, "inherit") == 0
				? (h->thp.enabled.present ? h->thp.enabled.selected : NULL)
				: sz->enabled.selected;
	}
	return sz;
}

static void add_stat(struct thp_size *sz, const char *name, uint64_t v)
{
	sz->has_stats = true;
	assert_int_equal(kvlist_add(&sz->stats, name, strlen(name), v), 0);
}

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));
	if (!t)
		return -1;
	struct host_snapshot *h = &t->h;
	snprintf(h->feat.release, sizeof(h->feat.release), "6.18.44-fc-v857");
	kernel_version_parse(h->feat.release, h->feat.kver);
	h->feat.cow_split = TRI_YES;
	h->feat.page_size = 4096;
	h->feat.pmd_size = 2u << 20;
	h->feat.thp = true;
	h->feat.madv_collapse = h->feat.except_advised = TRI_UNKNOWN;
	h->thp.present = true;
	if (choice_parse(LIT("always [madvise] never\n"), &h->thp.enabled) ||
	    choice_parse(LIT("always defer defer+madvise [madvise] never\n"), &h->thp.defrag) ||
	    choice_parse(LIT("always within_size advise [never] deny force\n"),
			 &h->thp.shmem_enabled))
		return -1;
	h->thp.khp[KHP_MAX_PTES_NONE] = (struct opt_u64){.v = 511, .present = true};
	h->thp.khp[KHP_MAX_PTES_SWAP] = (struct opt_u64){.v = 64, .present = true};
	h->thp.khp[KHP_MAX_PTES_SHARED] = (struct opt_u64){.v = 256, .present = true};
	h->thp.shrink_underused = (struct opt_u64){.v = 0, .present = true};
	if (vmstat_parse(LIT(vmstat_healthy), &h->vmstat))
		return -1;
	h->has_vmstat = true;
	if (buddyinfo_parse(LIT(buddy_text), &h->buddy))
		return -1;
	h->has_buddy = true;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;
	host_snapshot_free(&t->h);
	free(t);
	return 0;
}

/* Derive, run RULE into a fresh list, return how many findings it added. */
static int run(struct t *t, finding_rule rule)
{
	host_derive(&t->h, &t->d);
	memset(&t->out, 0, sizeof(t->out));
	rule(&t->h, &t->d, &t->out);
	return t->out.n;
}

static inline const struct finding *only(struct t *t, const char *id, enum severity sev)
{
	assert_int_equal(t->out.n, 1);
	const struct finding *f = &t->out.f[0];
	assert_string_equal(f->id, id);
	assert_string_equal(finding_id(f->kind), id);
	assert_int_equal(f->sev, sev);
	return f;
}

/* RULE gives one finding, ID at SEV, complete (see only); that finding. */
static inline const struct finding *fires(struct t *t, finding_rule rule, const char *id,
				   enum severity sev)
{
	assert_int_equal(run(t, rule), 1);
	return only(t, id, sev);
}

static void tuned_set(struct host_snapshot *h, const char *key, const char *value, bool vm)
{
	struct tuned_setting *e = &h->tuned.set[h->tuned.nset++];
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->value, sizeof(e->value), "%s", value);
	snprintf(e->profile, sizeof(e->profile), "db");
	e->vm = vm;
}

/*
 * Record a lab shrinker run on H's own kernel: nothing split at
 * max_ptes_none=511 (65536 kB before and after), all of it at 64 (65536 -> 0 kB).
 */
static inline struct shrinker_record *shrinker_measured(struct host_snapshot *h)
{
	h->has_shrinker = true;
	struct shrinker_record *rec = &h->shrinker;
	snprintf(rec->kernel, sizeof(rec->kernel), "%s", h->feat.release);
	snprintf(rec->time, sizeof(rec->time), "2026-12-02T04:40:00Z");
	rec->n = 2;
	rec->p[0] = (struct shrinker_phase){511, 32, 0, 65536, 65536};
	rec->p[1] = (struct shrinker_phase){64, 32, 32, 65536, 0};
	return rec;
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

#endif
