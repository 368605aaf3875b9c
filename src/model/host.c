// SPDX-License-Identifier: MIT
#include "host.h"

#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "../util/num.h"
#include "../util/str.h"

static struct ratio mk_ratio(uint64_t num, uint64_t den)
{
	struct ratio r = {.num = num, .den = den};
	r.valid = den > 0;
	r.gap = den ? RATIO_ABSENT : RATIO_NO_EVENTS;
	r.value = den ? (double)num / (double)den : 0;
	return r;
}

static struct ratio vm_ratio(const struct kvlist *vm, const char *ok, const char *fail)
{
	uint64_t a, f;
	if (!kv_get(vm, ok, &a) || !kv_get(vm, fail, &f))
		return (struct ratio){.gap = RATIO_ABSENT};
	if (f > UINT64_MAX - a) /* a sum that would wrap: unknown, never >100% */
		return (struct ratio){.gap = RATIO_WRAPS};
	return mk_ratio(a, a + f);
}

bool host_size_shmem_only(const struct thp_settings *s, int i)
{
	const struct thp_size *sz = &s->sizes[i];
	return !sz->enabled.present && sz->shmem_enabled.present && !s->nunread && !s->nbad;
}

void host_derive(const struct host_snapshot *h, struct host_derived *d)
{
	memset(d, 0, sizeof(*d));
	d->fault_success = vm_ratio(&h->vmstat, "thp_fault_alloc", "thp_fault_fallback");
	d->collapse_alloc_success =
		vm_ratio(&h->vmstat, "thp_collapse_alloc", "thp_collapse_alloc_failed");
	static const char *const exceed[3] = {"thp_scan_exceed_none_pte",
					      "thp_scan_exceed_swap_pte",
					      "thp_scan_exceed_share_pte"};
	d->scan_exceed_all = true;
	for (int i = 0; i < 3; i++) {
		d->scan_exceed[i].present = kv_get(&h->vmstat, exceed[i], &d->scan_exceed[i].v);
		d->scan_exceed_all &= d->scan_exceed[i].present;
		d->scan_exceed_sum += d->scan_exceed[i].present ? d->scan_exceed[i].v : 0;
	}
	for (int i = 0; i < h->thp.nsizes; i++) {
		const struct thp_size *sz = &h->thp.sizes[i];
		if (!sz->has_stats)
			continue;
		struct size_fault *sf = &d->sizes[d->nsizes++];
		sf->size_kb = sz->size_kb;
		sf->shmem_only = host_size_shmem_only(&h->thp, i);
		sf->success = vm_ratio(&sz->stats, "anon_fault_alloc", "anon_fault_fallback");
		sf->nr_anon.present = kv_get(&sz->stats, "nr_anon", &sf->nr_anon.v);
		sf->nr_anon_partially_mapped.present = kv_get(
			&sz->stats, "nr_anon_partially_mapped", &sf->nr_anon_partially_mapped.v);
		if (sf->nr_anon_partially_mapped.present) {
			d->has_partially_mapped = true;
			d->nr_anon_partially_mapped += sf->nr_anon_partially_mapped.v; /* u128 */
		}
	}
	d->pmd_order = -1;
	if (h->feat.pmd_size && h->feat.page_size > 0)
		d->pmd_order = log2_floor(h->feat.pmd_size / (uint64_t)h->feat.page_size);
	if (d->pmd_order >= 0)
		d->free_pmd_blocks = host_free_blocks(&h->buddy, -1, d->pmd_order, NULL);
	/* over its own life: it stops while THP is off and starts anew (a new pid, its CPU
	 * time from 0), so dividing by the uptime would understate it */
	double alive = h->uptime_s - h->khugepaged_start_s;
	if (h->has_khugepaged_cpu && h->uptime_s > 0 && alive > 0) {
		d->khugepaged_cpu.valid = true;
		d->khugepaged_cpu.value = h->khugepaged_cpu_s / alive;
		d->khugepaged_alive_s = alive;
		d->khugepaged_late = h->khugepaged_start_s > 60;
	}
}

u128 zone_free_blocks(const struct buddy_zone *z, int order)
{
	if (order < 0 || order >= 64)
		return 0;
	return buddy_pages_at_least(z, order) >> order; /* < 2^84 a zone: exact */
}

u128 host_free_blocks(const struct buddyinfo *b, int node, int order, bool *found)
{
	u128 n = 0; /* < 2^84 a zone, 32 zones: exact */
	bool any = false;
	for (int i = 0; i < b->nzones; i++) {
		const struct buddy_zone *z = &b->zones[i];
		if (node >= 0 && z->node != node)
			continue;
		any = true;
		/* ZONE_DMA (16 MiB, guarded by lowmem_reserve) does not serve THP faults */
		if (strcmp(z->zone, "DMA") != 0)
			n += zone_free_blocks(z, order);
	}
	if (found)
		*found = any;
	return n;
}

bool host_pmd_blocks(const struct host_snapshot *h, uint64_t *blocks)
{
	/* a zone's row cut short or listed twice is dropped: the sum of the rest is no total */
	if (!h->has_buddy || h->pmd_order < 0 || h->buddy.bad || h->buddy.dup)
		return false;
	u128 n = host_free_blocks(&h->buddy, -1, h->pmd_order, NULL);
	*blocks = (uint64_t)n;
	return u128_fits(n); /* beyond a u64: unknown to a u64 reader, never wrapped */
}

enum defrag_stall defrag_stalls(const struct choice *defrag)
{
	return defrag->present ? defrag_word_stalls(defrag->selected) : DEFRAG_STALL_UNKNOWN;
}

enum defrag_stall defrag_word_stalls(const char *d)
{
	if (!d)
		return DEFRAG_STALL_UNKNOWN;
	if (strcmp(d, "always") == 0)
		return DEFRAG_STALL_ANY;
	if (strcmp(d, "madvise") == 0 || strcmp(d, "defer+madvise") == 0)
		return DEFRAG_STALL_MADVISED;
	if (strcmp(d, "defer") == 0 || strcmp(d, "never") == 0)
		return DEFRAG_STALL_NONE;
	return DEFRAG_STALL_UNKNOWN;
}

enum compact_cause compact_stall_cause(enum defrag_stall who, const struct kvlist *vmstat)
{
	uint64_t alloc, fallback;
	if (kv_get(vmstat, "thp_fault_alloc", &alloc) &&
	    kv_get(vmstat, "thp_fault_fallback", &fallback) && alloc == 0 && fallback == 0)
		return COMPACT_CAUSE_NO_FAULTS;
	switch (who) {
	case DEFRAG_STALL_ANY:
		return COMPACT_CAUSE_ANY_FAULT;
	case DEFRAG_STALL_MADVISED:
		return COMPACT_CAUSE_MADVISED;
	case DEFRAG_STALL_NONE:
		return COMPACT_CAUSE_NOT_THP;
	default:
		return COMPACT_CAUSE_UNKNOWN;
	}
}

const char *thp_pmd_policy_of(const struct thp_settings *s, uint64_t pmd_size, bool *inherited)
{
	uint64_t kb = pmd_size / 1024;
	const struct thp_size *sz = kb ? thp_size_find(s, kb) : NULL;
	if (inherited)
		*inherited =
			sz && sz->enabled.present && strcmp(sz->enabled.selected, "inherit") == 0;
	if (sz && sz->eff_enabled)
		return sz->eff_enabled;
	return s->enabled.present ? s->enabled.selected : NULL;
}

enum tri host_cow_copies_thp(const struct host_snapshot *h)
{
	/* cow_split says whether the PMD is split on a write fault: no split, a whole copy */
	return h->feat.cow_split == TRI_NO    ? TRI_YES
	       : h->feat.cow_split == TRI_YES ? TRI_NO
					      : TRI_UNKNOWN;
}

enum mthp_listing host_mthp_listing(const struct host_snapshot *h)
{
	const struct features *ft = &h->feat;
	bool unrec = ft->thp_recorded == REC_MISSING;
	bool v68 = ft->kver[0] && kver_at_least(ft->kver, 6, 8);
	if (!ft->mthp_sizes && unrec)
		return MTHP_LIST_UNRECORDED;
	if (!ft->mthp_sizes && ft->thp_recorded == REC_WHOLE && ft->thp && v68)
		return MTHP_LIST_NONE_KERNEL;
	if (ft->mthp_sizes)
		return MTHP_LIST_SIZES;
	if (v68)
		return MTHP_LIST_NOT_RECORDED;
	return ft->kver[0] ? MTHP_LIST_NONE_OLD : MTHP_LIST_NONE_UNKNOWN;
}

bool host_meminfo(const struct host_snapshot *h, const char *field, uint64_t *v)
{
	return kv_get(&h->meminfo, field, v);
}

bool host_vmstat(const struct host_snapshot *h, const char *name, uint64_t *v)
{
	return kv_get(&h->vmstat, name, v);
}

bool counter_get(const struct kvlist *l, const char *name, uint64_t *v)
{
	return kv_get(l, name, v);
}

const char *khp_name(enum khp_knob k)
{
	return khp_knob_name(k);
}

bool khp_is_counter(enum khp_knob k)
{
	return khp_knob_is_counter(k);
}

static int choice_value(const struct choice *c, char *out, size_t n)
{
	if (!c->present)
		return -ENOENT;
	str_copy(out, n, c->selected);
	return 0;
}

static int u64_value(const struct opt_u64 *o, char *out, size_t n)
{
	if (!o->present)
		return -ENOENT;
	u64_str(out, n, o->v);
	return 0;
}

void thp_size_key(char *out, size_t n, uint64_t size_kb, const char *file)
{
	char kb[24];
	u64_str(kb, sizeof(kb), size_kb);
	str_copy(out, n, "hugepages-");
	str_cat(out, n, kb);
	str_cat(out, n, "kB/");
	str_cat(out, n, file);
}

/* hugepages-<size>kB/FILE keys, KEY possibly a glob. */
static int size_value(const struct thp_settings *s, const char *key, char *out, size_t n)
{
	int found = 0;
	for (int i = 0; i < s->nsizes; i++) {
		const struct thp_size *sz = &s->sizes[i];
		char name[64], v[CHOICE_LEN];
		const struct choice *c = NULL;
		thp_size_key(name, sizeof(name), sz->size_kb, "enabled");
		if (fnmatch(key, name, FNM_PATHNAME) == 0)
			c = &sz->enabled;
		thp_size_key(name, sizeof(name), sz->size_kb, "shmem_enabled");
		if (!c && fnmatch(key, name, FNM_PATHNAME) == 0)
			c = &sz->shmem_enabled;
		if (!c || choice_value(c, v, sizeof(v)))
			continue;
		if (found++ && strcmp(v, out) != 0)
			return -EDOM;
		str_copy(out, n, v);
	}
	return found ? 0 : -ENOENT;
}

int host_thp_value(const struct host_snapshot *h, const char *key, char *out, size_t n)
{
	const struct thp_settings *s = &h->thp;
	if (!h->has_settings || !s->present)
		return -ENOENT;
	if (strcmp(key, "enabled") == 0)
		return choice_value(&s->enabled, out, n);
	if (strcmp(key, "defrag") == 0)
		return choice_value(&s->defrag, out, n);
	if (strcmp(key, "shmem_enabled") == 0)
		return choice_value(&s->shmem_enabled, out, n);
	if (strcmp(key, "use_zero_page") == 0)
		return u64_value(&s->use_zero_page, out, n);
	if (strcmp(key, "shrink_underused") == 0)
		return u64_value(&s->shrink_underused, out, n);
	if (strncmp(key, "khugepaged/", 11) == 0) {
		for (int k = 0; k < KHP_NKNOBS; k++)
			if (strcmp(key + 11, khp_knob_name(k)) == 0)
				return u64_value(&s->khp[k], out, n);
		return -ENOENT;
	}
	if (strncmp(key, "hugepages-", 10) == 0)
		return size_value(s, key, out, n);
	return -ENOENT;
}
