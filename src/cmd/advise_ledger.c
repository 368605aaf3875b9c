// SPDX-License-Identifier: MIT
/*
 * `advise`: the THP ledger of every process that has huge pages (or could get
 * some, or is large enough to gain), as `ps --ledger` computes it; the flagged
 * ones get the facts their remedy needs (model/remedy.h): hints from environ
 * and cmdline, where the threads' stack pointers are, the Go build info, the
 * memory cgroup, the restart command. Live only: a recorded tree has no
 * pagemap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/cgroup.h"
#include "../kernel/cgroup_stat.h"
#include "../kernel/exe.h"
#include "../kernel/proc_alloc.h"
#include "../kernel/proc_read.h"
#include "../kernel/procs.h"
#include "../kernel/systemd_probe.h"
#include "../kernel/task_sp.h"
#include "advise_int.h"

#define GAIN_SCAN_KB (64 * 1024) /* anonymous RSS worth a look for a gain */

/* A VMA where thread stacks may sit: it holds huge pages, not nh, not [stack]. */
struct al_vma {
	uint64_t start, end, huge_kb;
};

struct al_ctx {
	struct ledger_vmas lv;
	const char *policy;
	struct why_vmas w;
	struct al_vma *cand;
	size_t ncand, cap;
	int err;
	struct alloc_raw *walk; /* its libraries from the same smaps walk (proc_read .alloc_walk) */
};

static int vma_cb(const struct smaps_vma *v, void *arg)
{
	struct al_ctx *c = arg;
	ledger_vmas_add(&c->lv, v, c->policy);
	why_vmas_add(&c->w, v);
	bool stack = v->name_len == 7 && !memcmp(v->name, "[stack]", 7);
	if (v->t.kb[SM_ANON_HUGE] && !(v->vmflags & VMF_NH) && !stack) {
		if (c->ncand == c->cap) {
			size_t nc = c->cap ? c->cap * 2 : 16;
			struct al_vma *p = realloc(c->cand, nc * sizeof(*p));
			if (!p)
				return c->err = -ENOMEM;
			c->cand = p;
			c->cap = nc;
		}
		c->cand[c->ncand++] = (struct al_vma){v->start, v->end, v->t.kb[SM_ANON_HUGE]};
	}
	return c->lv.err ? c->lv.err : 0;
}

/* Threads whose stack pointer falls in a candidate VMA of C: the VMAs they sit in. */
static void stacks(const struct sysroot *sr, const struct al_ctx *c, struct remedy_proc *rp)
{
	struct task_sps t;
	if (task_sps_read(sr, (pid_t)rp->pid, &t) || !t.nknown)
		return;
	rp->stacks_known = true;
	rp->threads = t.nknown;
	for (size_t i = 0; i < c->ncand; i++) {
		int n = task_sps_in(&t, c->cand[i].start, c->cand[i].end);
		if (n) {
			rp->stack_threads += n;
			rp->stack_huge_kb += c->cand[i].huge_kb;
		}
	}
	task_sps_free(&t);
}

/* Its memory cgroup, when v2 with memory.reclaim (5.19+: probed). */
static void cgroup_of(const struct sysroot *sr, const struct proc_info *pi, struct remedy_proc *rp)
{
	const struct proc_cgroup *cg = &pi->cg;
	if (!(pi->got & PROC_CGROUP) || !cg->has_v2 || cg->has_v1_memory)
		return;
	if (cgroup_v2_has_file(sr, cg->v2, "memory.reclaim") == 0) {
		rp->cg_version = 2;
		snprintf(rp->cg_path, sizeof(rp->cg_path), "%s", cg->v2);
	}
}

/* The facts of a flagged process beyond its ledger. */
static void detail(const struct sysroot *sr, struct proc_info *pi, const struct al_ctx *c,
		   struct remedy_proc *rp)
{
	unsigned want = PROC_ENVIRON | PROC_CMDLINE | PROC_EXE | PROC_CGROUP | PROC_EXE_GO;
	proc_read(sr, (pid_t)rp->pid, want, pi);
	if ((pi->got & PROC_ENVIRON) && !pi->environ_err &&
	    why_environ_intact(pi->environ.p, pi->environ.len)) {
		rp->env_known = true;
		rp->nenv = why_hints_parse(pi->environ.p, pi->environ.len, false, rp->env,
					   WHY_MAX_HINTS);
	}
	if ((pi->got & PROC_CMDLINE) && !pi->cmdline_err)
		rp->ncmd = why_hints_parse(pi->cmdline.p, pi->cmdline.len, true, rp->cmd,
					   WHY_MAX_HINTS);
	for (int i = 0; i < rp->ncmd; i++)
		rp->jvm_thp |= rp->cmd[i].meaning == HI_JAVA_THP_ON;
	for (int i = 0; rp->env_known && i < rp->nenv; i++)
		rp->jvm_thp |= rp->env[i].meaning == HI_JAVA_THP_ON;
	rp->java = !strcmp(rp->comm, "java") || rp->ncmd > 0;
	if (pi->exe_go == 1) {
		rp->go = true;
		snprintf(rp->gover, sizeof(rp->gover), "%s", pi->gover);
	}
	struct adv_proc *p = calloc(1, sizeof(*p));
	if (p) {
		p->pid = rp->pid;
		advise_fill_args(sr, p, pi, pi->got & PROC_EXE ? 0 : -ENOENT);
		rp->restart = p->run;
		if ((pi->got & PROC_CGROUP) && pi->cg.has_v2)
			cgroup_unit(pi->cg.v2, rp->unit, sizeof(rp->unit));
		free(p);
	}
	cgroup_of(sr, pi, rp);
	/* its memory cgroup's THP faults and collapses: where invented memory came from */
	struct memstat ms;
	rp->cg_v1 = (pi->got & PROC_CGROUP) && pi->cg.has_v1_memory;
	if ((pi->got & PROC_CGROUP) && pi->cg.has_v2 && !rp->cg_v1 &&
	    !cgroup_v2_memstat(sr, pi->cg.v2, &ms)) {
		rp->cg_fault_alloc = ms.f[MS_THP_FAULT_ALLOC];
		rp->cg_collapse_alloc = ms.f[MS_THP_COLLAPSE_ALLOC];
	}
	stacks(sr, c, rp);
	/* who manages its heap (kernel/proc_alloc.h, model/alloc.h): the responsible part; the
	 * libraries come from the smaps walk already made (scan_one), maps is not read again */
	struct alloc_raw *raw = c->walk;
	if (raw && proc_alloc_read_walked(sr, (pid_t)rp->pid, raw) == 0) {
		bool env = rp->env_known;
		alloc_decide(raw, env ? pi->environ.p : NULL, env ? pi->environ.len : 0, !sr->live,
			     &rp->alloc);
		rp->alloc_known = true;
	}
}

/* The ledger of one process (smaps read into PI through C). */
static int ledger_of(const struct sysroot *sr, const struct ledger_req *q, struct proc_info *pi,
		     struct al_ctx *c, struct thp_ledger *l)
{
	const struct why_vmas *w = &c->w;
	bool always = q->policy && !strcmp(q->policy, "always");
	uint64_t ahp = pi->t.kb[SM_ANON_HUGE], anon = pi->t.kb[SM_ANONYMOUS];
	if (ahp || w->hg || (always && w->eligible) || anon >= GAIN_SCAN_KB)
		return ledger_for_pid(sr, pi->pid, q, &c->lv, &pi->t, l);
	ledger_unknown(-1, l);
	ledger_smaps(l, &pi->t);
	l->invented_kb = 0; /* no PMD-mapped THP: nothing invented inside one */
	l->method = LM_EXACT;
	l->invented_gap = LG_OK;
	return 0;
}

/*
 * Whether the process is a workload that asks for no THP (Redis, found as advise's workload
 * pass finds it: by its name): it is never told to opt in (model/remedy.h thp_unwanted).
 */
static bool thp_unwanted(const struct adv_input *in, long pid, const char *comm)
{
	for (int i = 0; i < in->nprocs; i++)
		if (in->procs[i].pid == pid)
			return in->procs[i].wl == WL_REDIS;
	return workload_from_comm(comm, NULL) == WL_REDIS;
}

/* Count one flagged process left out (its cost, or a gain). */
static void dropped(struct adv_input *in, const struct remedy_proc *p)
{
	in->flagged_dropped++;
	in->flagged_dropped_cost += ledger_top_cost(&p->led) != LC_NONE;
}

/*
 * Where flagged RP goes: a free slot, else the slot of the one that saves least when RP saves
 * more (advice_flagged_cmp; that one is counted as left out); NULL when RP is left out.
 */
static struct remedy_proc *flagged_slot(struct adv_input *in, const struct remedy_proc *rp)
{
	if (in->nflagged < ADV_MAX_FLAGGED)
		return &in->flagged[in->nflagged++];
	int w = 0;
	for (int i = 1; i < in->nflagged; i++)
		if (advice_flagged_cmp(&in->flagged[i], &in->flagged[w]) > 0)
			w = i;
	if (advice_flagged_cmp(rp, &in->flagged[w]) >= 0) {
		dropped(in, rp);
		return NULL;
	}
	dropped(in, &in->flagged[w]);
	return &in->flagged[w];
}

/* One process: its ledger, and if flagged (or it would gain) its remedy facts, with RP as scratch. */
static void scan_one(const struct sysroot *sr, const struct ledger_req *q, struct adv_input *in,
		     struct proc_info *pi, struct remedy_proc *rp, pid_t pid)
{
	int r = proc_read(sr, pid, PROC_STATUS, pi);
	int se = r ? r : !(pi->got & PROC_STATUS) ? (pi->status_err ? pi->status_err : -EIO) : 0;
	if (se == -ESRCH || se == -ENOENT)
		return; /* gone before its status: not a process of this pass */
	if (!se && (pi->st.kthread == 1 || proc_status_no_mm(&pi->st)))
		return;
	in->ledger_procs++;
	if (se) { /* status not read: whether it has memory is unknown */
		advice_count_unreadable(in, pid, false);
		in->ledger_failed++;
		return;
	}
	if (pid == getpid()) { /* thpctl itself: not what the operator asks about */
		in->ledger_self++;
		return;
	}
	struct al_ctx c = {.policy = q->policy, .walk = calloc(1, sizeof(*c.walk))};
	c.w.pmd_bytes = (uint64_t)q->page_kb * 1024 << q->pmd_order;
	pi->vma_cb = vma_cb;
	pi->vma_ctx = &c;
	pi->alloc_walk = c.walk;
	proc_read(sr, pid, PROC_SMAPS, pi);
	pi->vma_cb = NULL;
	pi->vma_ctx = NULL;
	pi->alloc_walk = NULL;
	memset(rp, 0, sizeof(*rp));
	int e = !(pi->got & PROC_SMAPS) ? (pi->smaps_err ? pi->smaps_err : -EIO)
		: pi->smaps_err		? pi->smaps_err
		: c.err			? c.err
					: ledger_of(sr, q, pi, &c, &rp->led);
	/* denied (a replay: absent = unreadable at capture): ledger_unreadable, and unreadable */
	bool denied = e && proc_err_unreadable(sr, e);
	advice_count_unreadable(in, pid, denied);
	if (e) {
		if (e == -ESRCH || e == -ENOENT)
			in->ledger_gone++;
		else if (!denied)
			in->ledger_failed++;
		goto out;
	}
	in->ledger_scanned++;
	advice_ledger_count(in, &rp->led);
	rp->pid = pid;
	snprintf(rp->comm, sizeof(rp->comm), "%s", pi->st.name);
	rp->thp_enabled = pi->st.thp_enabled;
	remedy_proc_vmas(rp, &c.w);
	rp->referenced_hot = rp->led.referenced_kb >= 0 && rp->led.rss_kb > 0 &&
			     rp->led.referenced_kb * 2 >= rp->led.rss_kb;
	if (in->nothers < ADV_MAX_OTHERS) {
		struct remedy_other *o = &in->others[in->nothers++];
		*o = (struct remedy_other){.pid = pid,
					   .creep_kb = rp->led.creep_kb,
					   .invented_kb = rp->led.invented_kb,
					   .huge_not_hg_kb = c.w.huge_not_hg_kb};
		snprintf(o->comm, sizeof(o->comm), "%s", rp->comm);
	}
	rp->thp_unwanted = thp_unwanted(in, pid, rp->comm);
	if (ledger_top_cost(&rp->led) == LC_NONE && !remedy_would_gain(rp))
		goto out;
	struct remedy_proc *slot = flagged_slot(in, rp);
	if (slot) {
		detail(sr, pi, &c, rp);
		*slot = *rp;
	}
out:
	ledger_vmas_free(&c.lv);
	free(c.cand);
	free(c.walk);
}

int advise_ledger(const struct sysroot *sr, struct adv_input *in)
{
	int k = systemd_knows(sr, "MemoryTHP");
	in->systemd_thp = k == 1 ? 1 : k == 0 ? 0 : -1;
	in->as_root = geteuid() == 0;
	if (!sr->live) { /* no pagemap in a recorded tree */
		in->ledger_scan = 0;
		return 0;
	}
	char policy[CHOICE_LEN];
	struct ledger_req q = {.k = LEDGER_K, .held = true, .budget_ms = 300};
	ledger_req_host(sr, &q, policy, sizeof(policy));
	pid_t *pids;
	int n = procs_list(sr, &pids);
	if (n < 0)
		return in->ledger_scan = n;
	struct proc_info *pi = calloc(1, sizeof(*pi));
	struct remedy_proc *rp = calloc(1, sizeof(*rp));
	if (!pi || !rp) {
		free(pi);
		free(rp);
		free(pids);
		return in->ledger_scan = -ENOMEM;
	}
	/* the processes not fully readable are counted again, over this pass's processes: the
	 * smaps it is denied, and the exe links the workload pass was (model/advice.h) */
	in->unreadable = 0;
	in->unreadable_of = 0;
	for (int i = 0; i < n; i++)
		scan_one(sr, &q, in, pi, rp, pids[i]);
	proc_info_free(pi);
	free(pi);
	free(rp);
	free(pids);
	in->ledger_scan = 1;
	in->unreadable_of = in->ledger_procs;
	/* a detected workload process carries its ledger's verdict */
	for (int i = 0; i < in->nprocs; i++)
		for (int j = 0; j < in->nflagged; j++)
			if (in->flagged[j].pid == in->procs[i].pid) {
				in->procs[i].flagged_cost = ledger_top_cost(&in->flagged[j].led);
				in->procs[i].flagged_kb = ledger_cost_kb(&in->flagged[j].led,
									 in->procs[i].flagged_cost);
			}
	return 0;
}

int advise_remedy_proc(const struct sysroot *sr, pid_t pid, const struct thp_ledger *led,
		       const char *policy, struct remedy_proc *rp)
{
	memset(rp, 0, sizeof(*rp));
	struct proc_info *pi = calloc(1, sizeof(*pi));
	if (!pi)
		return -ENOMEM;
	struct al_ctx c = {.policy = policy, .walk = calloc(1, sizeof(*c.walk))};
	pi->vma_cb = vma_cb;
	pi->vma_ctx = &c;
	pi->alloc_walk = c.walk;
	int r = proc_read(sr, pid, PROC_STATUS | PROC_SMAPS, pi);
	pi->vma_cb = NULL;
	pi->vma_ctx = NULL;
	pi->alloc_walk = NULL;
	if (!r && (!(pi->got & PROC_SMAPS) || pi->smaps_err))
		r = pi->smaps_err ? pi->smaps_err : -EINVAL;
	if (!r && c.err)
		r = c.err;
	if (!r) {
		rp->pid = pid;
		snprintf(rp->comm, sizeof(rp->comm), "%s", pi->st.name);
		rp->thp_enabled = pi->st.thp_enabled;
		rp->led = *led;
		remedy_proc_vmas(rp, &c.w);
		rp->referenced_hot = led->referenced_kb >= 0 && led->rss_kb > 0 &&
				     led->referenced_kb * 2 >= led->rss_kb;
		detail(sr, pi, &c, rp);
	}
	ledger_vmas_free(&c.lv);
	free(c.cand);
	free(c.walk);
	proc_info_free(pi);
	free(pi);
	return r;
}
