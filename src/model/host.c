// SPDX-License-Identifier: MIT
#include "host.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "../util/num.h"

static struct ratio mk_ratio(uint64_t num, uint64_t den)
{
	struct ratio r = {.num = num, .den = den};
	r.valid = den > 0;
	r.value = den ? (double)num / (double)den : 0;
	return r;
}

static struct ratio vm_ratio(const struct kvlist *vm, const char *ok, const char *fail)
{
	uint64_t a, f;
	if (!kv_get(vm, ok, &a) || !kv_get(vm, fail, &f) || f > UINT64_MAX - a)
		return (struct ratio){
			0}; /* absent, or a sum that would wrap: unknown, never >100% */
	return mk_ratio(a, a + f);
}

void host_derive(const struct host_snapshot *h, struct host_derived *d)
{
	memset(d, 0, sizeof(*d));
	d->fault_success = vm_ratio(&h->vmstat, "thp_fault_alloc", "thp_fault_fallback");
	d->collapse_success =
		vm_ratio(&h->vmstat, "thp_collapse_alloc", "thp_collapse_alloc_failed");
	for (int i = 0; i < h->thp.nsizes; i++) {
		const struct thp_size *sz = &h->thp.sizes[i];
		if (!sz->has_stats)
			continue;
		struct size_fault *sf = &d->sizes[d->nsizes++];
		sf->size_kb = sz->size_kb;
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
		d->free_pmd_blocks = host_free_blocks(&h->buddy, d->pmd_order);
	if (h->has_khugepaged_cpu && h->uptime_s > 0) {
		d->khugepaged_cpu.valid = true;
		d->khugepaged_cpu.value = h->khugepaged_cpu_s / h->uptime_s;
	}
}

u128 host_free_blocks(const struct buddyinfo *b, int order)
{
	u128 n = 0; /* < 2^84 a zone, 32 zones: exact */
	/* ZONE_DMA (16 MiB, guarded by lowmem_reserve) does not serve THP faults */
	for (int i = 0; i < b->nzones; i++)
		if (strcmp(b->zones[i].zone, "DMA") != 0)
			n += buddy_pages_at_least(&b->zones[i], order) >> order;
	return n;
}

bool host_pmd_blocks(const struct host_snapshot *h, uint64_t *blocks)
{
	if (!h->has_buddy || h->pmd_order < 0)
		return false;
	u128 n = host_free_blocks(&h->buddy, h->pmd_order);
	*blocks = (uint64_t)n;
	return u128_fits(n); /* beyond a u64: unknown to a u64 reader, never wrapped */
}

static int choice_value(const struct choice *c, char *out, size_t n)
{
	if (!c->present)
		return -ENOENT;
	snprintf(out, n, "%s", c->selected);
	return 0;
}

static int u64_value(const struct opt_u64 *o, char *out, size_t n)
{
	if (!o->present)
		return -ENOENT;
	snprintf(out, n, "%llu", (unsigned long long)o->v);
	return 0;
}

/* hugepages-<size>kB/FILE keys, KEY possibly a glob. */
static int size_value(const struct thp_settings *s, const char *key, char *out, size_t n)
{
	int found = 0;
	for (int i = 0; i < s->nsizes; i++) {
		const struct thp_size *sz = &s->sizes[i];
		char name[64], v[CHOICE_LEN];
		const struct choice *c = NULL;
		snprintf(name, sizeof(name), "hugepages-%llukB/enabled",
			 (unsigned long long)sz->size_kb);
		if (fnmatch(key, name, FNM_PATHNAME) == 0)
			c = &sz->enabled;
		snprintf(name, sizeof(name), "hugepages-%llukB/shmem_enabled",
			 (unsigned long long)sz->size_kb);
		if (!c && fnmatch(key, name, FNM_PATHNAME) == 0)
			c = &sz->shmem_enabled;
		if (!c || choice_value(c, v, sizeof(v)))
			continue;
		if (found++ && strcmp(v, out) != 0)
			return -EDOM;
		snprintf(out, n, "%s", v);
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
