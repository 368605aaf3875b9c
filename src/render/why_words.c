// SPDX-License-Identifier: MIT
/* `why`: the sentences of its lines and its first line, from the model's ids and evidence. */
#include <errno.h>
#include <string.h>

#include "../util/units.h"
#include "../util/wide.h"
#include "hint.h"
#include "why_int.h"

/* "8192 kB", "1.0 GiB" */
static const char *kb(char *out, size_t n, uint64_t v)
{
	fmt_kb(out, n, v);
	return out;
}

static const char *s_if(long n)
{
	return n == 1 ? "" : "s";
}

static bool is(const char *v, const char *w)
{
	return v && strcmp(v, w) == 0;
}

/* "not readable (Permission denied: run as root or as the process's owner)"; as root, "...:
 * denied even to root: ..." */
void why_w_unreadable(struct wb *b, int err, bool recorded)
{
	if (recorded && err == -ENOENT)
		wb_put(b, "not recorded in this tree");
	else if (err == -EACCES || err == -EPERM)
		wb_put(b, "not readable (%s: %s)", strerror(-err), hint_denied());
	else
		wb_put(b, "not readable (%s)", err ? strerror(-err) : "");
}

static void w_policy(struct wb *b, const struct why_line *l)
{
	const struct why_ev_policy *e = &l->ev.policy;
	char pmd[32], how[160], a[32];
	if (l->id == WI_POLICY_NO_THP) {
		wb_put(b,
		       "this kernel has no THP (no transparent_hugepage directory): no huge pages "
		       "but hugetlb");
		return;
	}
	if (l->id == WI_POLICY_UNREAD) {
		wb_put(b, "the PMD size policy could not be read");
		return;
	}
	if (e->pmd_kb)
		snprintf(pmd, sizeof(pmd), "%llukB", (unsigned long long)e->pmd_kb);
	else
		snprintf(pmd, sizeof(pmd), "PMD");
	if (e->size_val && is(e->size_val, "inherit"))
		snprintf(how, sizeof(how), "hugepages-%llukB/enabled inherit -> enabled=%s",
			 (unsigned long long)e->pmd_kb, e->top ? e->top : "?");
	else if (e->size_val)
		snprintf(how, sizeof(how), "hugepages-%llukB/enabled=%s",
			 (unsigned long long)e->pmd_kb, e->size_val);
	else
		snprintf(how, sizeof(how), "enabled=%s", e->top ? e->top : "?");
	switch (l->id) {
	case WI_POLICY_ALWAYS:
		wb_put(b,
		       "PMD size (%s) policy always (%s): every anonymous region that can hold an "
		       "aligned %s block may get huge pages at fault, MADV_HUGEPAGE or not",
		       pmd, how, pmd);
		break;
	case WI_POLICY_MADVISE:
		wb_put(b,
		       "PMD size (%s) policy madvise (%s): only MADV_HUGEPAGE regions get huge pages "
		       "at fault",
		       pmd, how);
		if (e->vmas_known && e->hg) {
			wb_put(b, "; this process has %d such VMA%s (%s)", e->hg, s_if(e->hg),
			       kb(a, sizeof(a), e->hg_kb));
			/* shmem follows shmem_enabled: enabled does nothing to it */
			if (e->hg_shm == e->hg)
				wb_put(b, ", all shmem, which shmem_enabled rules, not enabled "
					  "(see shmem)");
			else if (e->hg_shm)
				wb_put(b,
				       ", %d of them shmem (%s), which shmem_enabled rules, not "
				       "enabled",
				       e->hg_shm, kb(a, sizeof(a), e->hg_shm_kb));
		} else if (e->vmas_known) {
			wb_put(b, "; this process has none (no hg VMA)");
		}
		break;
	case WI_POLICY_NEVER:
		wb_put(b,
		       "PMD size (%s) policy never (%s): no huge pages at fault or from khugepaged, "
		       "even in MADV_HUGEPAGE regions (only MADV_COLLAPSE still builds them)",
		       pmd, how);
		break;
	default:
		wb_put(b, "PMD size (%s) policy %s (%s)", pmd, e->eff, how);
		break;
	}
}

static void w_mthp(struct wb *b, const struct why_line *l)
{
	const struct why_ev_mthp *e = &l->ev.mthp;
	if (l->id == WI_MTHP_NO_SIZES) {
		wb_put(b,
		       "no per-size (mTHP) policies on this kernel (they arrived in 6.8): the PMD "
		       "size is the only THP size");
		return;
	}
	if (l->id == WI_MTHP_OFF) {
		wb_put(b,
		       "none of the %d smaller (mTHP) sizes is enabled: only PMD-size huge pages",
		       e->sizes);
		return;
	}
	wb_put(b, "smaller (mTHP) sizes enabled: ");
	for (int i = 0; i < e->on && i < WHY_MAX_MTHP; i++)
		wb_put(b, "%s%llukB=%s", i ? ", " : "", (unsigned long long)e->s[i].kb,
		       e->s[i].policy);
	wb_put(b, "%s; their folios do not show in AnonHugePages (see hugepages-*kB/stats)",
	       e->any_madvise ? " (madvise sizes: MADV_HUGEPAGE regions only)" : "");
}

static void w_defrag(struct wb *b, const struct why_line *l)
{
	const struct why_ev_defrag *e = &l->ev.defrag;
	const char *d = e->defrag;
	if (l->id == WI_DEFRAG_UNREAD) {
		wb_put(b, "defrag could not be read");
		return;
	}
	if (l->id == WI_DEFRAG_NO_FAULTS) {
		wb_put(b, "defrag=%s does not apply: this process takes no THP faults (%s)", d,
		       e->prctl_off ? "prctl disable" : "policy never");
		return;
	}
	char hg[256], stall[64] = "", no[200], all[256];
	struct wb w = wb_begin(hg, sizeof(hg));
	if (e->vmas_known)
		wb_put(&w, "its %d MADV_HUGEPAGE VMA%s", e->hg, s_if(e->hg));
	else
		wb_put(&w, "its MADV_HUGEPAGE VMAs");
	if (e->shm.vmas && e->hg) { /* its hg shmem takes no huge page: no fault there stalls */
		wb_put(&w, " (not its %d hg ", e->shm.vmas);
		why_w_shm_off(&w, &e->shm, false);
		wb_put(&w, ")");
	}
	/* why it has no hg VMA that takes a huge page */
	w = wb_begin(no, sizeof(no));
	if (!e->shm.vmas) {
		wb_put(&w, "it has no MADV_HUGEPAGE VMA");
	} else {
		wb_put(&w, "its MADV_HUGEPAGE VMA%s %s ", s_if(e->shm.vmas),
		       e->shm.vmas == 1 ? "is" : "are");
		why_w_shm_off(&w, &e->shm, false);
	}
	if (e->has_stall)
		snprintf(stall, sizeof(stall), " (host compact_stall=%llu since boot)",
			 (unsigned long long)e->compact_stall);
	bool none_hg = e->vmas_known && e->hg == 0;
	snprintf(all, sizeof(all), "it (%s: none)", no);
	if (is(d, "always"))
		wb_put(b,
		       "defrag=always: every THP fault in %s may stall in direct reclaim and "
		       "compaction%s",
		       e->always ? "its eligible regions"
		       : none_hg ? all
				 : hg,
		       stall);
	else if (is(d, "madvise") && none_hg)
		wb_put(b, "defrag=madvise: none of its faults stalls (%s)%s; %s", no, stall,
		       e->always
			       ? "its regions take a huge page only if one is free, without waking "
				 "kcompactd"
			       : "it faults in no huge pages anyway");
	else if (is(d, "madvise"))
		wb_put(b,
		       "defrag=madvise: only %s may stall in direct reclaim and compaction%s; %s",
		       hg, stall,
		       e->always
			       ? "its other regions take a huge page only if one is free, without "
				 "waking kcompactd"
			       : "nothing else of it faults in huge pages");
	else if (is(d, "defer+madvise") && none_hg)
		wb_put(b,
		       "defrag=defer+madvise: none of its faults stalls (%s); they wake "
		       "kswapd/kcompactd, and khugepaged collapses later",
		       no);
	else if (is(d, "defer+madvise"))
		wb_put(b,
		       "defrag=defer+madvise: %s may stall in direct compaction%s; other regions never "
		       "stall, they wake kswapd/kcompactd and get huge pages later from khugepaged",
		       hg, stall);
	else if (is(d, "defer"))
		wb_put(b,
		       "defrag=defer: no fault of it stalls for a huge page; it gets one only if "
		       "free, kswapd/kcompactd are woken, khugepaged collapses later");
	else if (is(d, "never"))
		wb_put(b,
		       "defrag=never: no fault of it stalls; it gets a huge page only when a free "
		       "block is there");
	else
		wb_put(b, "defrag=%s", d);
}

static void w_khp(struct wb *b, const struct why_line *l)
{
	const struct why_ev_khp *e = &l->ev.khp;
	const char *where = e->always ? "its eligible regions" : "its MADV_HUGEPAGE regions";
	if (e->nothing && !e->always && e->shm.vmas) {
		wb_put(b,
		       "khugepaged has nothing of it to collapse: its MADV_HUGEPAGE regions are ");
		why_w_shm_off(b, &e->shm, false);
	} else if (e->nothing) {
		wb_put(b, "khugepaged has nothing of it to collapse: it has no %s",
		       e->always ? "THPeligible VMA" : "MADV_HUGEPAGE region (enabled=madvise)");
	}
	if (e->nothing) {
		if (e->has_mpn)
			wb_put(b, " (max_ptes_none=%llu)", (unsigned long long)e->mpn);
		return;
	}
	if (e->smaps_err) {
		wb_put(b,
		       "whether khugepaged collapses anything of it is unknown: it only collapses "
		       "%s, and its VMAs are unknown: smaps ",
		       where);
		why_w_unreadable(b, e->smaps_err, e->recorded);
		if (e->has_mpn)
			wb_put(b, "; max_ptes_none=%llu", (unsigned long long)e->mpn);
		return;
	}
	if (e->full) {
		wb_put(b,
		       "khugepaged has nothing left of it to collapse: %s %s huge-backed already",
		       e->always ? "its anonymous memory" : where, e->always ? "is" : "are");
		if (e->has_mpn)
			wb_put(b, " (max_ptes_none=%llu)", (unsigned long long)e->mpn);
		return;
	}
	if (!e->has_mpn)
		wb_put(b, "khugepaged may collapse %s into huge pages later", where);
	else
		wb_put(b,
		       "khugepaged may collapse %s later: a PMD range qualifies with up to %llu of its "
		       "%llu pages never touched (max_ptes_none)",
		       where, (unsigned long long)e->mpn, (unsigned long long)e->per);
	if (e->shm.vmas) {
		wb_put(b, "; not its %d hg ", e->shm.vmas);
		why_w_shm_off(b, &e->shm, false);
	}
	if (e->cg.starved) {
		wb_put(b, "; but not now: ");
		why_w_cg_room(b, &e->cg);
		wb_put(b, ": it collapses only if the cgroup gets headroom");
	}
}

static void w_prctl(struct wb *b, const struct why_line *l)
{
	const struct why_ev_prctl *e = &l->ev.prctl;
	switch (l->id) {
	case WI_PRCTL_NO_LINE:
		wb_put(b, "no THP_enabled line (kernel < 5.0): whether prctl(PR_SET_THP_DISABLE) "
			  "applies cannot be seen");
		break;
	case WI_PRCTL_ON:
		wb_put(b, "THP_enabled 1: THP is not disabled by prctl(PR_SET_THP_DISABLE)%s",
		       e->except_advised
			       ? " for the whole process; it may still have set "
				 "PR_THP_DISABLE_EXCEPT_ADVISED (6.18+), which reads 1 too: then it "
				 "gets THP only in the regions it madvised (MADV_HUGEPAGE)"
			       : "");
		break;
	case WI_PRCTL_OFF:
		wb_put(b, "THP_enabled 0: prctl(PR_SET_THP_DISABLE) turned THP off for the whole "
			  "process, MADV_HUGEPAGE and MADV_COLLAPSE included");
		break;
	case WI_PRCTL_INHERITED:
		wb_put(b,
		       "THP_enabled 0: THP off for the whole process, inherited: the highest ancestor "
		       "with THP_enabled 0 is PID %ld (%s), %d generation%s up, which called "
		       "prctl(PR_SET_THP_DISABLE) or was started under it%s",
		       e->pid, e->comm, e->generations, s_if(e->generations),
		       e->cut ? " (chain cut: an ancestor was not readable)" : "");
		break;
	case WI_PRCTL_ORPHANED:
		wb_put(b,
		       "THP_enabled 0: prctl(PR_SET_THP_DISABLE) was set by this process or by an "
		       "ancestor that is gone: its parent is now PID %ld (%s, THP_enabled 1), which "
		       "adopts orphans, so the chain is broken (a daemon that detached, or a starter "
		       "that exited); THP off for all of it, MADV_HUGEPAGE and MADV_COLLAPSE included",
		       e->pid, e->comm);
		break;
	case WI_PRCTL_SELF:
		wb_put(b,
		       "THP_enabled 0: set in this process (by the program itself with "
		       "prctl(PR_SET_THP_DISABLE), or by a launcher that exec'd it, as the flag "
		       "survives execve: thpctl run, systemd's MemoryTHP=, a wrapper; its parent "
		       "PID %ld has THP_enabled 1): THP off for all of it, MADV_HUGEPAGE and "
		       "MADV_COLLAPSE included",
		       e->pid);
		break;
	default:
		wb_put(b,
		       "THP_enabled 0: THP off for the whole process by prctl(PR_SET_THP_DISABLE); "
		       "its parent's state is unknown, so it may be inherited");
		break;
	}
}

static void w_vmas(struct wb *b, const struct why_line *l)
{
	const struct why_ev_vmas *e = &l->ev.vmas;
	char a[32], c[32], d[32], f[32];
	switch (l->id) {
	case WI_VMAS_UNREAD:
		wb_put(b, "its VMAs are unknown: smaps ");
		why_w_unreadable(b, e->err, e->recorded);
		break;
	case WI_VMAS_NO_VMFLAGS:
		wb_put(b, "%d VMAs; this kernel prints no VmFlags (< 3.8): hg/nh cannot be seen",
		       e->total);
		break;
	case WI_HG:
		wb_put(b,
		       "%d of %d VMAs opted in with MADV_HUGEPAGE (hg), %s in all, %s of it huge; "
		       "largest %s at %llx: %s, AnonHugePages %s",
		       e->count, e->total, kb(a, sizeof(a), e->kb), kb(c, sizeof(c), e->huge_kb),
		       e->largest->name, (unsigned long long)e->largest->start,
		       kb(d, sizeof(d), e->largest->size_kb),
		       kb(f, sizeof(f), e->largest->anon_huge_kb));
		if (e->shm.vmas == e->count)
			wb_put(b, "; all of it ");
		else if (e->shm.vmas)
			wb_put(b, "; %d of them (%s) ", e->shm.vmas, kb(a, sizeof(a), e->shm.kb));
		if (e->shm.vmas)
			why_w_shm_off(b, &e->shm, false);
		break;
	case WI_HG_NONE:
		wb_put(b, "none of its %d VMAs opted in with MADV_HUGEPAGE (no hg)", e->total);
		break;
	case WI_NH_OPTED:
		wb_put(b,
		       "%d VMA%s opted out with MADV_NOHUGEPAGE (nh), %s: never huge there, not even "
		       "by MADV_COLLAPSE",
		       e->count, s_if(e->count), kb(a, sizeof(a), e->kb));
		if (e->largest)
			wb_put(b, "; largest %s at %llx: %s", e->largest->name,
			       (unsigned long long)e->largest->start,
			       kb(c, sizeof(c), e->largest->size_kb));
		break;
	case WI_NH_STACKS_ONLY:
		wb_put(b,
		       "no VMA opted out with MADV_NOHUGEPAGE: its %d nh VMA%s are thread stacks and "
		       "their guard pages (the kernel's nh)",
		       e->count, s_if(e->count));
		break;
	case WI_NH_NONE:
		wb_put(b, "no VMA opted out with MADV_NOHUGEPAGE (no nh)");
		break;
	case WI_ELIGIBLE:
		wb_put(b, "THPeligible 1 in ");
		if (e->count)
			wb_put(b, "%d of its %d VMAs", e->count, e->total);
		else
			wb_put(b, "none of its %d VMAs", e->total);
		wb_put(b, " (policy, not backing: what the kernel would allow now)");
		break;
	case WI_COLLAPSED:
		wb_put(b,
		       "%d VMA%s without hg hold%s huge pages (%s): faulted under enabled=always, or "
		       "built by khugepaged or MADV_COLLAPSE",
		       e->count, s_if(e->count), e->count == 1 ? "s" : "",
		       kb(a, sizeof(a), e->huge_kb));
		break;
	case WI_HUGETLB:
		wb_put(b,
		       "%d hugetlb VMA%s (%s): pages from the hugetlb pool, not THP (not in "
		       "AnonHugePages)",
		       e->count, s_if(e->count), kb(a, sizeof(a), e->kb));
		break;
	case WI_STACK_NONE:
		wb_put(b, "no [stack] VMA");
		break;
	case WI_STACK:
		if (e->flags & VMF_NH)
			wb_put(b, "its [stack] VMA (%s) is nh: the stack never gets huge pages",
			       kb(a, sizeof(a), e->kb));
		else
			wb_put(b, "its [stack] VMA (%s) is not nh%s", kb(a, sizeof(a), e->kb),
			       e->flags & VMF_HG ? " (it is hg)" : "");
		break;
	case WI_THREAD_STACKS:
		wb_put(b,
		       "%d thread stack%s (nh VMA%s with an nh guard page below, %s in all): nh set by "
		       "the kernel for MAP_STACK (6.7+, c4608d1bf7c6), not an opt-out",
		       e->count, s_if(e->count), s_if(e->count), kb(a, sizeof(a), e->kb));
		break;
	default: /* WI_SMAPS_TRUNCATED */
		wb_put(b, "smaps ended mid-line (truncated): the VMAs above may be incomplete");
		break;
	}
}

static void w_env(struct wb *b, const struct why_line *l)
{
	const struct why_ev_env *e = &l->ev.env;
	switch (l->id) {
	case WI_ENV_UNREAD:
		wb_put(b, "environment ");
		why_w_unreadable(b, e->err, e->recorded);
		wb_put(b, ": allocator hints unknown");
		break;
	case WI_ENV_OVERWRITTEN:
		wb_put(b,
		       "environment overwritten by the program (no NAME=VALUE entry: blanked, as a "
		       "process title does, or cut off): allocator hints unknown");
		break;
	case WI_ENV_NONE:
		wb_put(b, "no THP hints in its environment (GLIBC_TUNABLES glibc.malloc.hugetlb, "
			  "MIMALLOC_ALLOW_THP, MIMALLOC_LARGE_OS_PAGES, MALLOC_CONF thp:, GODEBUG "
			  "disablethp, "
			  "JAVA_TOOL_OPTIONS)");
		break;
	case WI_ENV_HINT:
		wb_put(b, "%s %s: %s", e->hint->var, e->hint->value,
		       why_hint_words(e->hint->meaning));
		break;
	default: /* WI_CMD_HINT */
		wb_put(b, "%s: %s", e->hint->value, why_hint_words(e->hint->meaning));
		break;
	}
}

const char *why_line_words(const struct why_line *l, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	if (l->id <= WI_POLICY_OTHER)
		w_policy(&b, l);
	else if (l->id <= WI_MTHP_ON)
		w_mthp(&b, l);
	else if (l->id <= WI_DEFRAG)
		w_defrag(&b, l);
	else if (l->id == WI_KHP)
		w_khp(&b, l);
	else if (l->id <= WI_PRCTL_PARENT_UNKNOWN)
		w_prctl(&b, l);
	else if (l->id <= WI_SMAPS_TRUNCATED)
		w_vmas(&b, l);
	else if (l->id <= WI_STALL)
		why_w_stall(&b, l);
	else if (l->id <= WI_SHMEM_NO_HUGETLB)
		why_w_shmem(&b, l);
	else if (l->id <= WI_CMD_HINT)
		w_env(&b, l);
	else
		why_w_cgroup(&b, l);
	return out;
}
