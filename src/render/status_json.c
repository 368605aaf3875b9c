// SPDX-License-Identifier: MIT
/* `thpctl status --json`: the document (docs/json/status.json); the text is in status.c. */
#include "status.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "status_int.h"
#include "status_recent.h"

static json_t *choice_json(const struct choice *c)
{
	if (!c->present)
		return json_null();
	json_t *o = json_object(), *opts = json_array();
	json_put(o, "value", json_str(c->selected));
	for (int i = 0; i < c->noptions; i++)
		json_array_append_new(opts, json_str(c->options[i]));
	json_put(o, "options", opts);
	return o;
}

static json_t *kernel_json(const struct host_snapshot *h)
{
	const struct features *ft = &h->feat;
	json_t *k = json_object(), *c = json_object();
	json_put(k, "release", ft->release[0] ? json_str(ft->release) : NULL);
	json_put(k, "page_size_bytes", ft->page_size > 0 ? json_integer(ft->page_size) : NULL);
	json_put(k, "pmd_size_bytes", ft->pmd_size ? json_u64(ft->pmd_size) : NULL);
	/* a capture that could not record the THP tree: what it lacks is unknown (null) */
	bool unrec = ft->thp_recorded == REC_MISSING;
	json_put(c, "thp", ft->thp || !unrec ? json_boolean(ft->thp) : NULL);
	json_t *sizes = json_array();
	for (int i = 0; i < h->thp.nsizes; i++)
		if (h->thp.sizes[i].enabled.present)
			json_array_append_new(sizes, json_u64(h->thp.sizes[i].size_kb));
	if (!json_array_size(sizes) && unrec) {
		json_decref(sizes);
		sizes = NULL;
	}
	json_put(c, "mthp_sizes_kb", sizes);
	json_put(c, "per_size_stats",
		 ft->per_size_stats || features_absence_known(ft, 6, 10)
			 ? json_boolean(ft->per_size_stats)
			 : NULL);
	json_put(c, "shrink_underused",
		 ft->shrink_underused || features_absence_known(ft, 6, 12)
			 ? json_boolean(ft->shrink_underused)
			 : NULL);
	json_put(c, "madv_collapse", status_tri_json(ft->madv_collapse));
	json_put(c, "pr_thp_disable_except_advised", status_tri_json(ft->except_advised));
	json_put(c, "status_thp_enabled", status_tri_json(ft->status_thp_enabled));
	json_put(c, "smaps_thpeligible", status_tri_json(ft->smaps_thpeligible));
	json_put(c, "cow_split_after_fork", status_tri_json(ft->cow_split));
	json_put(c, "cow_split_after_fork_inferred",
		 ft->cow_split == TRI_UNKNOWN ? json_null() : json_true());
	json_put(k, "capabilities", c);
	return k;
}

static json_t *policy_json(const struct host_snapshot *h)
{
	const struct thp_settings *s = &h->thp;
	json_t *p = json_object();
	json_put(p, "present", json_boolean(s->present));
	json_put(p, "enabled", choice_json(&s->enabled));
	json_put(p, "defrag", choice_json(&s->defrag));
	json_put(p, "use_zero_page", json_opt_u64(&s->use_zero_page));
	json_put(p, "shmem_enabled", choice_json(&s->shmem_enabled));
	json_put(p, "shrink_underused", json_opt_u64(&s->shrink_underused));
	json_put(p, "hpage_pmd_size_bytes", json_opt_u64(&s->hpage_pmd_size));
	json_t *k = json_object();
	for (int i = 0; i < KHP_NKNOBS; i++)
		json_put(k, khp_name(i), json_opt_u64(&s->khp[i]));
	json_put(p, "khugepaged", k);
	json_t *x = json_object();
	for (int i = 0; i < s->nextra; i++)
		json_put(x, s->extra[i].name, json_str(s->extra[i].value));
	json_put(p, "other", x);
	json_t *sizes = json_array();
	for (int i = 0; i < s->nsizes; i++) {
		const struct thp_size *sz = &s->sizes[i];
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(sz->size_kb));
		json_put(o, "order", sz->order >= 0 ? json_integer(sz->order) : NULL);
		json_put(o, "enabled", choice_json(&sz->enabled));
		json_put(o, "enabled_effective",
			 sz->eff_enabled ? json_str(sz->eff_enabled) : NULL);
		json_put(o, "shmem_enabled", choice_json(&sz->shmem_enabled));
		json_put(o, "shmem_enabled_effective",
			 sz->eff_shmem ? json_str(sz->eff_shmem) : NULL);
		json_t *st = NULL;
		if (sz->has_stats) {
			st = json_object();
			for (size_t j = 0; j < sz->stats.n; j++)
				json_put(st, sz->stats.items[j].name,
					 json_u64(sz->stats.items[j].value));
		}
		json_put(o, "stats", st);
		json_array_append_new(sizes, o);
	}
	json_put(p, "sizes", sizes);
	json_put(p, "cmdline_transparent_hugepage",
		 h->feat.cmdline_thp[0] ? json_str(h->feat.cmdline_thp) : NULL);
	json_put(p, "tuned", status_tuned_json(h));
	bool unrec = s->write_err == -ENODATA; /* a tree without the evidence */
	json_put(p, "writable", unrec ? NULL : json_boolean(s->present && s->write_err == 0));
	json_put(p, "write_error",
		 unrec			      ? json_str("not recorded")
		 : s->present && s->write_err ? json_str(strerror(-s->write_err))
					      : NULL);
	return p;
}

static json_t *usage_json(const struct host_snapshot *h, const struct host_derived *d)
{
	json_t *u = json_object(), *m = json_object();
	for (size_t i = 0; i < STATUS_N_USAGE_MEMINFO; i++) {
		uint64_t x;
		json_put(m, status_usage_meminfo[i],
			 host_meminfo(h, status_usage_meminfo[i], &x) ? json_u64(x) : NULL);
	}
	json_put(u, "meminfo_kb", m);
	json_t *sizes = json_array();
	for (int i = 0; i < d->nsizes; i++) {
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(d->sizes[i].size_kb));
		json_put(o, "nr_anon", json_opt_u64(&d->sizes[i].nr_anon));
		json_put(o, "nr_anon_partially_mapped",
			 json_opt_u64(&d->sizes[i].nr_anon_partially_mapped));
		json_array_append_new(sizes, o);
	}
	json_put(u, "sizes", sizes);
	json_t *pools = json_array();
	for (int i = 0; i < h->hugetlb.npools; i++) {
		const struct hugetlb_pool *p = &h->hugetlb.pools[i];
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(p->size_kb));
		json_put(o, "node", p->node >= 0 ? json_integer(p->node) : NULL);
		json_put(o, "nr", json_opt_u64(&p->nr));
		json_put(o, "free", json_opt_u64(&p->free));
		json_put(o, "resv", json_opt_u64(&p->resv));
		json_put(o, "surplus", json_opt_u64(&p->surplus));
		json_put(o, "overcommit", json_opt_u64(&p->overcommit));
		json_array_append_new(pools, o);
	}
	json_put(u, "hugetlb", pools);
	return u;
}

static json_t *boot_json(const struct host_snapshot *h, const struct host_derived *d)
{
	json_t *b = json_object(), *vm = json_object();
	json_put(b, "fault_success", status_ratio_json(&d->fault_success));
	json_t *sizes = json_array();
	for (int i = 0; i < d->nsizes; i++) {
		json_t *o = json_object();
		json_put(o, "size_kb", json_u64(d->sizes[i].size_kb));
		json_put(o, "fault_success", status_ratio_json(&d->sizes[i].success));
		json_array_append_new(sizes, o);
	}
	json_put(b, "sizes", sizes);
	json_put(b, "collapse_alloc_success", status_ratio_json(&d->collapse_alloc_success));
	/* schema /1's name for it (docs/json.md: a key is never renamed within a version) */
	json_put(b, "collapse_success", status_ratio_json(&d->collapse_alloc_success));
	json_t *ex = NULL;
	if (d->scan_exceed[0].present || d->scan_exceed[1].present || d->scan_exceed[2].present)
		ex = json_obj("none_pte", json_opt_u64(&d->scan_exceed[0]), "swap_pte",
			      json_opt_u64(&d->scan_exceed[1]), "share_pte",
			      json_opt_u64(&d->scan_exceed[2]), NULL);
	json_put(b, "collapse_scans_given_up", ex);
	/* every thp_* and compact_* counter the kernel printed, known or not */
	for (size_t i = 0; i < h->vmstat.n; i++) {
		const struct kv *kv = &h->vmstat.items[i];
		if (strncmp(kv->name, "thp_", 4) == 0 || strncmp(kv->name, "compact_", 8) == 0 ||
		    strcmp(kv->name, "nr_anon_transparent_hugepages") == 0)
			json_put(vm, kv->name, json_u64(kv->value));
	}
	json_put(b, "vmstat", vm);
	json_put(b, "khugepaged_cpu_ratio",
		 d->khugepaged_cpu.valid ? json_real(d->khugepaged_cpu.value) : NULL);
	json_put(b, "khugepaged_cpu_s",
		 d->khugepaged_cpu.valid ? json_real(h->khugepaged_cpu_s) : NULL);
	json_put(b, "pmd_order", d->pmd_order >= 0 ? json_integer(d->pmd_order) : NULL);
	json_t *zones = json_array();
	for (int i = 0; h->has_buddy && i < h->buddy.nzones; i++) {
		const struct buddy_zone *z = &h->buddy.zones[i];
		json_t *o = json_object(), *fr = json_array();
		json_put(o, "node", json_integer(z->node));
		json_put(o, "zone", json_str(z->zone));
		for (int j = 0; j < z->norders; j++)
			json_array_append_new(fr, json_u64(z->free[j]));
		json_put(o, "free_blocks_by_order", fr);
		json_put(o, "free_pmd_blocks",
			 d->pmd_order >= 0 ? json_u128(zone_free_blocks(z, d->pmd_order)) : NULL);
		json_array_append_new(zones, o);
	}
	json_put(b, "buddyinfo", h->has_buddy ? zones : (json_decref(zones), NULL));
	return b;
}

json_t *status_to_json(const struct host_snapshot *h, const struct host_derived *d,
		       const struct findings *fs)
{
	json_t *root = json_object();
	if (!root)
		return NULL;
	status_partial_json(root, h);
	json_put(root, "kernel", kernel_json(h));
	json_put(root, "policy", policy_json(h));
	json_put(root, "usage", usage_json(h, d));
	json_put(root, "since_boot", boot_json(h, d));
	json_put(root, "recent", status_recent_json(d)); /* status --sample S, else null */
	json_put(root, "verdict", status_verdict_json(fs));
	json_put(root, "findings", status_findings_json(fs));
	return root;
}
