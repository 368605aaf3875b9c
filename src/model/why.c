// SPDX-License-Identifier: MIT
#include "why.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../kernel/sysroot.h"
#include "../util/units.h"
#include "../util/names.h"

/* the absolute paths evidence refers to: the kernel layer's SR_* from / */
#define THP_DIR "/" SR_THP

static const char *const effect_names[] = {
	[WE_HELPS] = "helps", [WE_HINDERS] = "hinders", [WE_UNKNOWN] = "unknown"};

const char *why_effect_name(enum why_effect e)
{
	return ENUM_NAME(effect_names, e, "neutral");
}

/* ---- explain ---- */

struct why_line *why_line_new(struct why_report *r, const char *topic, enum why_effect e,
			      const char *source)
{
	if (r->n == WHY_MAX_LINES)
		return NULL;
	struct why_line *l = &r->lines[r->n++];
	memset(l, 0, sizeof(*l));
	l->topic = topic;
	l->effect = e;
	snprintf(l->source, sizeof(l->source), "%s", source);
	return l;
}

void why_linef(struct why_report *r, const char *topic, enum why_effect e, const char *source,
	       const char *fmt, ...)
{
	struct why_line *l = why_line_new(r, topic, e, source);
	if (!l)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
}

/* why_linef, short for the many lines of this file */
#define add(...) why_linef(__VA_ARGS__)

static const char *proc_file(char *out, size_t n, long pid, const char *file)
{
	snprintf(out, n, "/" SR_PROC "/%ld/%s", pid, file);
	return out;
}

static const char *sel(const struct choice *c)
{
	return c->present ? c->selected : NULL;
}

static bool is(const char *v, const char *w)
{
	return v && strcmp(v, w) == 0;
}

static const char *errtext(int err)
{
	return err ? strerror(-err) : "";
}

/* "not readable (Permission denied: run as root or as its owner)" */
static void unreadable(char *out, size_t n, int err, bool recorded)
{
	if (recorded && err == -ENOENT)
		snprintf(out, n, "not recorded in this tree");
	else if (err == -EACCES || err == -EPERM)
		snprintf(out, n, "not readable (%s: run as root or as its owner)", errtext(err));
	else
		snprintf(out, n, "not readable (%s)", errtext(err));
}

struct policy {
	const char *eff; /* effective PMD anon policy, NULL unknown */
	char how[160];	 /* how it was resolved */
	char src[200];	 /* its file(s) */
	uint64_t pmd_kb;
};

static void pmd_policy(const struct host_snapshot *h, struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->pmd_kb = h->feat.pmd_size / 1024;
	const struct thp_size *sz = p->pmd_kb ? thp_size_find(&h->thp, p->pmd_kb) : NULL;
	const char *top = sel(&h->thp.enabled);
	if (sz && sz->enabled.present) {
		p->eff = sz->eff_enabled;
		if (is(sz->enabled.selected, "inherit"))
			snprintf(p->how, sizeof(p->how),
				 "hugepages-%llukB/enabled inherit -> enabled=%s",
				 (unsigned long long)p->pmd_kb, top ? top : "?");
		else
			snprintf(p->how, sizeof(p->how), "hugepages-%llukB/enabled=%s",
				 (unsigned long long)p->pmd_kb, sz->enabled.selected);
		snprintf(p->src, sizeof(p->src), THP_DIR "/hugepages-%llukB/enabled",
			 (unsigned long long)p->pmd_kb);
	} else {
		p->eff = top;
		snprintf(p->how, sizeof(p->how), "enabled=%s", top ? top : "?");
		snprintf(p->src, sizeof(p->src), THP_DIR "/enabled");
	}
}

static void explain_policy(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	const struct why_vmas *v = &in->vmas;
	char a[32], pmd[32];
	if (p->pmd_kb)
		snprintf(pmd, sizeof(pmd), "%llukB", (unsigned long long)p->pmd_kb);
	else
		snprintf(pmd, sizeof(pmd), "PMD");
	if (!h->thp.present) {
		add(r, "policy", WE_HINDERS, THP_DIR,
		    "this kernel has no THP (no transparent_hugepage directory): no huge pages but hugetlb");
		return;
	}
	if (!p->eff) {
		add(r, "policy", WE_UNKNOWN, p->src, "the PMD size policy could not be read");
		return;
	}
	if (is(p->eff, "always")) {
		add(r, "policy", WE_HELPS, p->src,
		    "PMD size (%s) policy always (%s): every anonymous region that can hold an aligned %s block may get huge pages at fault, MADV_HUGEPAGE or not",
		    pmd, p->how, pmd);
	} else if (is(p->eff, "madvise")) {
		if (in->smaps_err == 0 && v->hg) {
			fmt_kb(a, sizeof(a), v->hg_kb);
			add(r, "policy", WE_HELPS, p->src,
			    "PMD size (%s) policy madvise (%s): only MADV_HUGEPAGE regions get huge pages at fault; this process has %d such VMA%s (%s)",
			    pmd, p->how, v->hg, v->hg == 1 ? "" : "s", a);
		} else {
			add(r, "policy", in->smaps_err ? WE_UNKNOWN : WE_HINDERS, p->src,
			    "PMD size (%s) policy madvise (%s): only MADV_HUGEPAGE regions get huge pages at fault%s",
			    pmd, p->how,
			    in->smaps_err ? "" : "; this process has none (no hg VMA)");
		}
	} else if (is(p->eff, "never")) {
		add(r, "policy", WE_HINDERS, p->src,
		    "PMD size (%s) policy never (%s): no huge pages at fault or from khugepaged, even in MADV_HUGEPAGE regions (only MADV_COLLAPSE still builds them)",
		    pmd, p->how);
	} else {
		add(r, "policy", WE_UNKNOWN, p->src, "PMD size (%s) policy %s (%s)", pmd, p->eff,
		    p->how);
	}
}

static void explain_mthp(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	if (!h->thp.present)
		return;
	char list[320] = "";
	size_t off = 0;
	int anon = 0, on = 0;
	bool any_madvise = false;
	for (int i = 0; i < h->thp.nsizes; i++) {
		const struct thp_size *sz = &h->thp.sizes[i];
		if (!sz->enabled.present || sz->size_kb == p->pmd_kb)
			continue;
		anon++;
		if (!sz->eff_enabled || is(sz->eff_enabled, "never"))
			continue;
		on++;
		any_madvise |= is(sz->eff_enabled, "madvise");
		if (off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%llukB=%s",
						on > 1 ? ", " : "", (unsigned long long)sz->size_kb,
						sz->eff_enabled);
	}
	if (anon == 0) {
		add(r, "mthp", WE_NEUTRAL, THP_DIR,
		    "no per-size (mTHP) policies on this kernel (they arrived in 6.8): the PMD size is the only THP size");
		return;
	}
	if (on == 0) {
		add(r, "mthp", WE_NEUTRAL, THP_DIR "/hugepages-*kB/enabled",
		    "none of the %d smaller (mTHP) sizes is enabled: only PMD-size huge pages",
		    anon);
		return;
	}
	add(r, "mthp", WE_HELPS, THP_DIR "/hugepages-*kB/enabled",
	    "smaller (mTHP) sizes enabled: %s%s; their folios do not show in AnonHugePages (see hugepages-*kB/stats)",
	    list, any_madvise ? " (madvise sizes: MADV_HUGEPAGE regions only)" : "");
}

static void explain_defrag(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	const char *d = sel(&h->thp.defrag);
	const char *src = THP_DIR "/defrag";
	if (!h->thp.present)
		return;
	if (!d) {
		add(r, "defrag", WE_UNKNOWN, src, "defrag could not be read");
		return;
	}
	if (in->st.thp_enabled == 0 || is(p->eff, "never")) {
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=%s does not apply: this process takes no THP faults (%s)", d,
		    in->st.thp_enabled == 0 ? "prctl disable" : "policy never");
		return;
	}
	const struct why_vmas *v = &in->vmas;
	bool known = in->smaps_err == 0;
	bool always = is(p->eff, "always");
	char hg[96];
	if (known)
		snprintf(hg, sizeof(hg), "its %d MADV_HUGEPAGE VMA%s", v->hg,
			 v->hg == 1 ? "" : "s");
	else
		snprintf(hg, sizeof(hg), "its MADV_HUGEPAGE VMAs");
	char stall[64] = "";
	bool ok;
	uint64_t cs = 0;
	ok = kv_get(&h->vmstat, "compact_stall", &cs);
	if (ok)
		snprintf(stall, sizeof(stall), " (host compact_stall=%llu since boot)",
			 (unsigned long long)cs);
	bool none_hg = known && v->hg == 0;
	if (is(d, "always"))
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=always: every THP fault in %s may stall in direct reclaim and compaction%s",
		    always    ? "its eligible regions"
		    : none_hg ? "it (it has no MADV_HUGEPAGE VMA: none)"
			      : hg,
		    stall);
	else if (is(d, "madvise") && none_hg)
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=madvise: none of its faults stalls (it has no MADV_HUGEPAGE VMA)%s; %s",
		    stall,
		    always ? "its regions take a huge page only if one is free, without waking kcompactd"
			   : "it faults in no huge pages anyway");
	else if (is(d, "madvise"))
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=madvise: only %s may stall in direct reclaim and compaction%s; %s", hg,
		    stall,
		    always ? "its other regions take a huge page only if one is free, without waking kcompactd"
			   : "nothing else of it faults in huge pages");
	else if (is(d, "defer+madvise") && none_hg)
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=defer+madvise: none of its faults stalls (it has no MADV_HUGEPAGE VMA); they wake kswapd/kcompactd, and khugepaged collapses later");
	else if (is(d, "defer+madvise"))
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=defer+madvise: %s may stall in direct compaction%s; other regions never stall, they wake kswapd/kcompactd and get huge pages later from khugepaged",
		    hg, stall);
	else if (is(d, "defer"))
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=defer: no fault of it stalls for a huge page; it gets one only if free, kswapd/kcompactd are woken, khugepaged collapses later");
	else if (is(d, "never"))
		add(r, "defrag", WE_NEUTRAL, src,
		    "defrag=never: no fault of it stalls; it gets a huge page only when a free block is there");
	else
		add(r, "defrag", WE_UNKNOWN, src, "defrag=%s", d);
}

static void explain_khugepaged(const struct why_input *in, const struct policy *p,
			       struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	if (!h->thp.present || !p->eff || is(p->eff, "never") || in->st.thp_enabled == 0)
		return;
	const struct opt_u64 *mpn = &h->thp.khp[KHP_MAX_PTES_NONE];
	const char *src = THP_DIR "/khugepaged/max_ptes_none";
	const char *where =
		is(p->eff, "always") ? "its eligible regions" : "its MADV_HUGEPAGE regions";
	if (!mpn->present) {
		add(r, "khugepaged", WE_NEUTRAL, src,
		    "khugepaged may collapse %s into huge pages later", where);
		return;
	}
	uint64_t per = h->feat.pmd_size && h->feat.page_size > 0
			       ? h->feat.pmd_size / (uint64_t)h->feat.page_size
			       : 512;
	add(r, "khugepaged", WE_HELPS, src,
	    "khugepaged may collapse %s later: a PMD range qualifies with up to %llu of its %llu pages never touched (max_ptes_none)",
	    where, (unsigned long long)mpn->v, (unsigned long long)per);
}

static void explain_prctl(const struct why_input *in, struct why_report *r)
{
	char src[64];
	proc_file(src, sizeof(src), in->pid, "status");
	int te = in->st.thp_enabled;
	if (te < 0) {
		add(r, "prctl", WE_UNKNOWN, src,
		    "no THP_enabled line (kernel < 5.0): whether prctl(PR_SET_THP_DISABLE) applies cannot be seen");
		return;
	}
	if (te == 1) {
		bool ea = in->h->feat.except_advised == TRI_YES;
		add(r, "prctl", WE_NEUTRAL, src,
		    "THP_enabled 1: THP is not disabled by prctl(PR_SET_THP_DISABLE)%s",
		    ea ? " (a PR_THP_DISABLE_EXCEPT_ADVISED opt-out, 6.18+, also reads 1: only its MADV_HUGEPAGE regions would get THP)"
		       : "");
		return;
	}
	const struct thp_chain *c = &in->chain;
	if (!in->chain_walked) {
		add(r, "prctl", WE_HINDERS, src,
		    "THP_enabled 0: prctl(PR_SET_THP_DISABLE) turned THP off for the whole process, MADV_HUGEPAGE and MADV_COLLAPSE included");
	} else if (c->n) {
		const struct thp_ancestor *top = &c->a[c->n - 1];
		add(r, "prctl", WE_HINDERS, src,
		    "THP_enabled 0: THP off for the whole process, inherited: the highest ancestor with THP_enabled 0 is PID %ld (%s), %d generation%s up, which called prctl(PR_SET_THP_DISABLE) or was started under it%s",
		    top->pid, top->comm, c->n, c->n == 1 ? "" : "s",
		    c->cut ? " (chain cut: an ancestor was not readable)" : "");
	} else if (c->stop_thp_enabled == 1 && why_chain_broken(c->stop_pid, c->stop_comm)) {
		add(r, "prctl", WE_HINDERS, src,
		    "THP_enabled 0: prctl(PR_SET_THP_DISABLE) was set by this process or by an ancestor that is gone: its parent is now PID %ld (%s, THP_enabled 1), which adopts orphans, so the chain is broken (a daemon that detached, or a starter that exited); THP off for all of it, MADV_HUGEPAGE and MADV_COLLAPSE included",
		    c->stop_pid, c->stop_comm);
	} else if (c->stop_thp_enabled == 1) {
		add(r, "prctl", WE_HINDERS, src,
		    "THP_enabled 0: this process itself called prctl(PR_SET_THP_DISABLE) (its parent PID %ld has THP_enabled 1): THP off for all of it, MADV_HUGEPAGE and MADV_COLLAPSE included",
		    in->st.ppid);
	} else {
		add(r, "prctl", WE_HINDERS, src,
		    "THP_enabled 0: THP off for the whole process by prctl(PR_SET_THP_DISABLE); its parent's state is unknown, so it may be inherited");
	}
}

static void explain_vmas(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	char src[64], a[32], b[32], c[32];
	proc_file(src, sizeof(src), in->pid, "smaps");
	if (in->smaps_err) {
		char why[160];
		unreadable(why, sizeof(why), in->smaps_err, in->recorded);
		add(r, "vmas", WE_UNKNOWN, src, "its VMAs are unknown: smaps %s", why);
		return;
	}
	const struct why_vmas *v = &in->vmas;
	const struct smaps_totals *t = &v->t;
	if (!v->has_vmflags)
		add(r, "vmas", WE_UNKNOWN, src,
		    "%d VMAs; this kernel prints no VmFlags (< 3.8): hg/nh cannot be seen",
		    v->nvmas);
	if (v->has_vmflags) {
		if (v->hg) {
			const struct why_vma_top *l = &v->largest_hg;
			fmt_kb(a, sizeof(a), v->hg_kb);
			fmt_kb(b, sizeof(b), l->size_kb);
			fmt_kb(c, sizeof(c), l->anon_huge_kb);
			char hh[32];
			fmt_kb(hh, sizeof(hh), v->hg_huge_kb);
			add(r, "hg", WE_HELPS, src,
			    "%d of %d VMAs opted in with MADV_HUGEPAGE (hg), %s in all, %s of it huge; largest %s at %llx: %s, AnonHugePages %s",
			    v->hg, v->nvmas, a, hh, l->name, (unsigned long long)l->start, b, c);
		} else {
			add(r, "hg", is(p->eff, "madvise") ? WE_HINDERS : WE_NEUTRAL, src,
			    "none of its %d VMAs opted in with MADV_HUGEPAGE (no hg)", v->nvmas);
		}
		why_explain_nh(v, src, r);
	}
	if (v->has_eligible && v->eligible)
		add(r, "eligible", WE_HELPS, src,
		    "THPeligible 1 in %d of its %d VMAs (policy, not backing: what the kernel would allow now)",
		    v->eligible, v->nvmas);
	else if (v->has_eligible)
		add(r, "eligible", WE_NEUTRAL, src,
		    "THPeligible 1 in none of its %d VMAs (policy, not backing: what the kernel would allow now)",
		    v->nvmas);
	if (v->huge_not_hg)
		add(r, "collapsed", WE_HELPS, src,
		    "%d VMA%s without hg hold%s huge pages (%s): faulted under enabled=always, or built by khugepaged or MADV_COLLAPSE",
		    v->huge_not_hg, v->huge_not_hg == 1 ? "" : "s", v->huge_not_hg == 1 ? "s" : "",
		    (fmt_kb(a, sizeof(a), v->huge_not_hg_kb), a));
	if (v->hugetlb_vmas)
		add(r, "hugetlb", WE_NEUTRAL, src,
		    "%d hugetlb VMA%s (%s): pages from the hugetlb pool, not THP (not in AnonHugePages)",
		    v->hugetlb_vmas, v->hugetlb_vmas == 1 ? "" : "s",
		    (fmt_kb(a, sizeof(a), v->hugetlb_kb), a));
	if (v->has_vmflags) {
		if (!v->stack_found)
			add(r, "stack", WE_NEUTRAL, src, "no [stack] VMA");
		else if (v->stack_flags & VMF_NH)
			add(r, "stack", WE_NEUTRAL, src,
			    "its [stack] VMA (%s) is nh: the stack never gets huge pages",
			    (fmt_kb(a, sizeof(a), v->stack_kb), a));
		else
			add(r, "stack", WE_NEUTRAL, src, "its [stack] VMA (%s) is not nh%s",
			    (fmt_kb(a, sizeof(a), v->stack_kb), a),
			    v->stack_flags & VMF_HG ? " (it is hg)" : "");
		why_explain_thread_stacks(v, src, r);
	}
	if (in->smaps_truncated)
		add(r, "vmas", WE_UNKNOWN, src,
		    "smaps ended mid-line (truncated): the VMAs above may be incomplete");
	(void)t;
}

static void explain_hints(const struct why_input *in, struct why_report *r)
{
	char src[64], why[160];
	proc_file(src, sizeof(src), in->pid, "environ");
	if (in->environ_err) {
		unreadable(why, sizeof(why), in->environ_err, in->recorded);
		add(r, "environ", WE_UNKNOWN, src, "environment %s: allocator hints unknown", why);
	} else if (in->environ_overwritten) {
		add(r, "environ", WE_UNKNOWN, src,
		    "environment overwritten by the program (no NAME=VALUE entry: blanked, as a process title does, or cut off): allocator hints unknown");
	} else if (in->nenv == 0) {
		add(r, "environ", WE_NEUTRAL, src,
		    "no THP hints in its environment (GLIBC_TUNABLES glibc.malloc.hugetlb, MIMALLOC_ALLOW_THP, MALLOC_CONF thp:, GODEBUG disablethp, JAVA_TOOL_OPTIONS)");
	}
	for (int i = 0; i < in->nenv; i++)
		add(r, "environ", in->env[i].effect, src, "%s %s: %s", in->env[i].var,
		    in->env[i].value, in->env[i].meaning);
	proc_file(src, sizeof(src), in->pid, "cmdline");
	for (int i = 0; in->cmdline_err == 0 && i < in->ncmd; i++)
		add(r, "cmdline", in->cmd[i].effect, src, "%s: %s", in->cmd[i].value,
		    in->cmd[i].meaning);
}

static void explain_cgroup(const struct why_input *in, struct why_report *r)
{
	char src[64], why[160], a[32];
	proc_file(src, sizeof(src), in->pid, "cgroup");
	uint64_t fb = 0;
	bool has_fb = kv_get(&in->h->vmstat, "thp_fault_fallback_charge", &fb);
	char fbs[160];
	if (has_fb)
		snprintf(
			fbs, sizeof(fbs),
			"; a huge page fault that cannot be charged falls back to small pages: host thp_fault_fallback_charge=%llu since boot (/proc/vmstat)",
			(unsigned long long)fb);
	else
		snprintf(fbs, sizeof(fbs),
			 "; this kernel has no thp_fault_fallback_charge (< 5.7)");
	if (in->cgroup_err) {
		unreadable(why, sizeof(why), in->cgroup_err, in->recorded);
		add(r, "cgroup", WE_UNKNOWN, src, "memory cgroup %s", why);
		return;
	}
	const struct cg_limit *l = &in->lim;
	if (in->limit_err) {
		unreadable(why, sizeof(why), in->limit_err, in->recorded);
		add(r, "cgroup", WE_UNKNOWN, src, "memory cgroup %s (v%d): limit files %s",
		    l->path[0] ? l->path : "?", l->version, why);
		return;
	}
	if (l->version == 0) {
		add(r, "cgroup", WE_NEUTRAL, src,
		    "no memory cgroup controller found for it under /sys/fs/cgroup: no memory limit applies");
		return;
	}
	if (!l->limited) {
		add(r, "cgroup", WE_NEUTRAL, src,
		    "memory cgroup %s (v%d): no memory limit on its path", l->path, l->version);
		return;
	}
	fmt_bytes(a, sizeof(a), l->limit_bytes);
	char lsrc[200];
	snprintf(lsrc, sizeof(lsrc), "/%s", l->limit_file);
	add(r, "cgroup", WE_NEUTRAL, lsrc, "memory cgroup %s (v%d) is limited to %s%s", l->path,
	    l->version, a, fbs);
}

static void verdict(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	const struct why_vmas *v = &in->vmas;
	char a[32], b[32];
	if (in->st.thp_enabled == 0) {
		r->verdict = WV_NONE;
		if (in->chain_walked && in->chain.n)
			snprintf(
				r->summary, sizeof(r->summary),
				"does not get huge pages: THP disabled by prctl, inherited from PID %ld (%s)",
				in->chain.a[in->chain.n - 1].pid,
				in->chain.a[in->chain.n - 1].comm);
		else
			snprintf(
				r->summary, sizeof(r->summary),
				"does not get huge pages: THP disabled by prctl(PR_SET_THP_DISABLE)");
		return;
	}
	if (in->smaps_err) {
		r->verdict = WV_UNKNOWN;
		snprintf(
			r->summary, sizeof(r->summary),
			"unknown: its smaps cannot be read, so neither its huge pages nor its hg/nh regions are known");
		return;
	}
	uint64_t huge = v->t.kb[SM_ANON_HUGE], anon = v->t.kb[SM_ANONYMOUS];
	if (huge) {
		r->verdict = WV_HUGE;
		fmt_kb(a, sizeof(a), huge);
		fmt_kb(b, sizeof(b), anon);
		const char *how = v->hg_huge_kb ? "in its MADV_HUGEPAGE regions"
				  : is(p->eff, "always")
					  ? "under enabled=always"
					  : "collapsed (khugepaged or MADV_COLLAPSE)";
		const struct thp_ledger *l = &in->led;
		if (l->bloated) {
			fmt_kb(b, sizeof(b), (uint64_t)l->invented_kb);
			snprintf(
				r->summary, sizeof(r->summary),
				"gets huge pages, mostly never written: AnonHugePages %s, of which %s%s "
				"invented (all-zero subpages, %s): see the ledger",
				a, l->method == LM_SAMPLED ? "~" : "", b,
				l->method == LM_SAMPLED ? "estimate" : "exact");
		} else if (anon)
			snprintf(r->summary, sizeof(r->summary),
				 "gets huge pages: AnonHugePages %s of %s anonymous (%.0f%%), %s",
				 a, b, 100.0 * (double)huge / (double)anon, how);
		else
			snprintf(r->summary, sizeof(r->summary),
				 "gets huge pages: AnonHugePages %s, %s", a, how);
		return;
	}
	r->verdict = WV_NONE;
	const char *why;
	if (!h->thp.present)
		why = "this kernel has no THP";
	else if (is(p->eff, "never"))
		why = "the PMD size policy is never";
	else if (is(p->eff, "madvise") && v->hg == 0)
		why = "the policy is madvise and it has no MADV_HUGEPAGE region";
	else if (in->led.held_kb > 0 && in->led.partial_folios) {
		fmt_kb(a, sizeof(a), (uint64_t)in->led.held_kb);
		snprintf(r->summary, sizeof(r->summary),
			 "has no PMD huge pages (AnonHugePages 0): %llu large folios are partially "
			 "unmapped and %s of them is still held and charged to its memory cgroup, "
			 "waiting for the deferred-split shrinker",
			 (unsigned long long)in->led.partial_folios, a);
		return;
	} else if (v->hg)
		why = "its MADV_HUGEPAGE regions got none (not touched yet, smaller than a PMD, or no free huge page at fault)";
	else if (is(p->eff, "always"))
		why = "none of its regions got one (too small or unaligned, nh, or no free huge page at fault)";
	else
		why = "none of its regions got one";
	snprintf(r->summary, sizeof(r->summary), "has no PMD huge pages (AnonHugePages 0): %s%s",
		 why,
		 in->st.thp_enabled < 0
			 ? " (or a prctl(PR_SET_THP_DISABLE), which this kernel does not show)"
			 : "");
}

void why_explain(const struct why_input *in, struct why_report *out)
{
	memset(out, 0, sizeof(*out));
	struct policy p;
	pmd_policy(in->h, &p);
	verdict(in, &p, out);
	explain_prctl(in, out);
	explain_policy(in, &p, out);
	explain_mthp(in, &p, out);
	explain_defrag(in, &p, out);
	explain_khugepaged(in, &p, out);
	explain_vmas(in, &p, out);
	why_explain_stall(in, out);
	why_explain_shmem(in, out);
	explain_hints(in, out);
	explain_cgroup(in, out);
	/* with THP off by prctl nothing else can help */
	if (in->st.thp_enabled == 0)
		for (int i = 0; i < out->n; i++)
			if (out->lines[i].effect == WE_HELPS)
				out->lines[i].effect = WE_NEUTRAL;
}
