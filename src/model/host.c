// SPDX-License-Identifier: MIT
#include "host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/proc_status.h"
#include "../kernel/procs.h"
#include "../util/num.h"

static void missing(struct host *h, const char *what)
{
	if (h->nmissing < HOST_MAX_MISSING)
		snprintf(h->missing[h->nmissing++], sizeof(h->missing[0]), "%s", what);
}

/* CPU seconds of the [khugepaged] kernel thread: a low-pid kthread, scanned in pid order. */
static void collect_khugepaged(const struct sysroot *sr, struct host *h, struct buf *b)
{
	if (sysroot_read(sr, SR_PROC "/uptime", b) == 0) {
		char *end;
		h->uptime_s = strtod(b->p, &end);
		if (end == b->p)
			h->uptime_s = 0;
	}
	pid_t *pids;
	int n = procs_list(sr, &pids);
	long hz = sysconf(_SC_CLK_TCK);
	for (int i = 0; i < n; i++) {
		struct proc_stat st;
		if (sysroot_readf(sr, b, SR_PROC "/%d/stat", (int)pids[i]) ||
		    proc_stat_parse(b->p, b->len, &st))
			continue;
		if (strcmp(st.comm, "khugepaged") == 0 && (st.flags & PF_KTHREAD_FLAG)) {
			h->has_khugepaged_cpu = h->uptime_s > 0 && hz > 0;
			h->khugepaged_cpu_s = (double)(st.utime + st.stime) / (double)hz;
			break;
		}
	}
	if (n > 0)
		free(pids);
}

int host_collect(const struct sysroot *sr, struct host *h)
{
	memset(h, 0, sizeof(*h));
	struct buf b = {0};
	int r;

	/* counters first: the probes below must not be in what we report */
	if ((r = sysroot_read(sr, SR_PROC "/vmstat", &b)) == 0) {
		if (vmstat_parse(b.p, b.len, &h->vmstat))
			goto oom;
		h->has_vmstat = true;
	} else {
		missing(h, "proc/vmstat");
	}
	if (sysroot_read(sr, SR_PROC "/meminfo", &b) == 0) {
		if (meminfo_parse(b.p, b.len, &h->meminfo))
			goto oom;
		h->has_meminfo = true;
	} else {
		missing(h, "proc/meminfo");
	}
	if (sysroot_read(sr, SR_PROC "/buddyinfo", &b) == 0 &&
	    buddyinfo_parse(b.p, b.len, &h->buddy) == 0)
		h->has_buddy = true;
	else
		missing(h, "proc/buddyinfo");
	/* a malformed or cut line loses a counter or a zone: say so */
	if (h->vmstat.bad)
		missing(h, "proc/vmstat (malformed or truncated lines)");
	if (h->meminfo.bad)
		missing(h, "proc/meminfo (malformed or truncated lines)");
	if (h->buddy.bad)
		missing(h, "proc/buddyinfo (malformed lines)");

	features_probe(sr, &h->feat);
	if (thp_settings_read(sr, h->feat.page_size, &h->thp))
		goto oom;
	features_from_settings(&h->feat, &h->thp);
	if (h->thp.nbad)
		missing(h, "transparent_hugepage (malformed files)");
	hugetlb_read(sr, &h->hugetlb);
	collect_khugepaged(sr, h, &b);
	buf_free(&b);
	return 0;
oom:
	buf_free(&b);
	return -ENOMEM;
}

void host_free(struct host *h)
{
	kvlist_free(&h->vmstat);
	kvlist_free(&h->meminfo);
	thp_settings_free(&h->thp);
}

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
	if (!kv_get(vm, ok, &a) || !kv_get(vm, fail, &f))
		return (struct ratio){0};
	return mk_ratio(a, a + f);
}

void host_derive(const struct host *h, struct host_derived *d)
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
			d->nr_anon_partially_mapped += sf->nr_anon_partially_mapped.v;
		}
	}
	d->pmd_order = -1;
	if (h->feat.pmd_size && h->feat.page_size > 0)
		d->pmd_order = log2_floor(h->feat.pmd_size / (uint64_t)h->feat.page_size);
	/* ZONE_DMA (16 MiB, guarded by lowmem_reserve) does not serve THP faults */
	if (d->pmd_order >= 0)
		for (int i = 0; i < h->buddy.nzones; i++)
			if (strcmp(h->buddy.zones[i].zone, "DMA") != 0)
				d->free_pmd_blocks +=
					buddy_pages_at_least(&h->buddy.zones[i], d->pmd_order) >>
					d->pmd_order;
	if (h->has_khugepaged_cpu) {
		d->khugepaged_cpu.valid = true;
		d->khugepaged_cpu.value = h->khugepaged_cpu_s / h->uptime_s;
	}
}
