// SPDX-License-Identifier: MIT
/* `thpctl why PID`: collect one process's THP facts, explain them (model/why.c). */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/cgroup.h"
#include "../kernel/proc_read.h"
#include "../kernel/systemd_probe.h"
#include "../render/why.h"
#include "../kernel/thp_settings.h"
#include "advise_int.h"
#include "../render/alloc.h"
#include "alloc.h"
#include "args.h"
#include "ledger.h"
#include "common.h"
#include "why_hot.h"

static void why_help(FILE *f)
{
	fprintf(f, "usage: thpctl why PID [--hot SECONDS] [--json]\n\n"
		   "Why process PID does or does not get huge pages, one fact per line with the\n"
		   "file it comes from: the PMD size and mTHP policies, defrag as it applies to\n"
		   "its regions, its prctl state (and the ancestor that set it), its hg/nh VMAs\n"
		   "and stack, allocator and runtime hints from its environment and command\n"
		   "line, and its memory cgroup limit.\n"
		   "Reads /proc/PID/smaps, which briefly takes the target's mmap_lock. The\n"
		   "environment of another user's process needs root.\n"
		   "--hot SECONDS (root): write 1 to /proc/PID/clear_refs (clears its referenced\n"
		   "bits, a slight perturbation), wait, then the hot set (smaps Referenced) and\n"
		   "its share huge-backed against the TLB reach `thpctl lab tlb` recorded. An\n"
		   "accessed-bit probe (4 MiB of thpctl's own, touched all window) proves the\n"
		   "bits are kept; where they are lost the hot set is a lower bound.\n\n"
		   "options:\n" GLOBAL_HELP);
}

struct why_ctx {
	struct why_input *in;
	struct ledger_vmas lv; /* the VMAs the ledger scans */
	struct ledger_req q;
};

static int vma_cb(const struct smaps_vma *v, void *ctx)
{
	struct why_ctx *c = ctx;
	why_vmas_add(&c->in->vmas, v);
	ledger_vmas_add(&c->lv, v, c->q.policy);
	return c->lv.err;
}

/* After PROC_STATUS into PI: smaps, the prctl chain, environ, cmdline and cgroup of in->pid through the reader. */
static int collect(const struct sysroot *sr, struct proc_info *pi, struct why_ctx *c)
{
	struct why_input *in = c->in;
	pi->vma_cb = vma_cb;
	pi->vma_ctx = c;
	unsigned want = PROC_SMAPS | PROC_CHAIN | PROC_ENVIRON | PROC_CMDLINE | PROC_CGROUP;
	int r = proc_read(sr, (pid_t)in->pid, want, pi);
	in->smaps_truncated = pi->smaps_truncated;
	in->smaps_err = pi->smaps_err > 0 ? -EINVAL : pi->smaps_err;
	if (r == -ENOMEM || in->smaps_err == -ESRCH || (in->smaps_err == -ENOENT && sr->live))
		return r ? r : -ESRCH;
	if (pi->chain_walked) {
		in->chain = pi->chain;
		in->chain_walked = true;
	}
	ledger_unknown(in->smaps_err ? -1 : (int64_t)in->vmas.t.kb[SM_ANON_HUGE], &in->led);
	if (!in->smaps_err) {
		int e = ledger_for_pid(sr, (pid_t)in->pid, &c->q, &c->lv, &in->vmas.t, &in->led);
		if (e)
			return e;
	}
	in->environ_err = pi->environ_err;
	if (!in->environ_err)
		in->environ_overwritten = !why_environ_intact(pi->environ.p, pi->environ.len);
	if (!in->environ_err && !in->environ_overwritten)
		in->nenv = why_hints_parse(pi->environ.p, pi->environ.len, false, in->env,
					   WHY_MAX_HINTS);
	in->cmdline_err = pi->cmdline_err;
	if (!in->cmdline_err)
		in->ncmd = why_hints_parse(pi->cmdline.p, pi->cmdline.len, true, in->cmd,
					   WHY_MAX_HINTS);
	in->cgroup_err = pi->cgroup_err;
	if (!in->cgroup_err)
		in->limit_err = cgroup_memory_limit(sr, &pi->cg, &pi->b, &in->lim);
	why_creep_cg(in); /* the ledger's creep under the cgroup's headroom */
	return 0;
}

/*
 * The allocator of PID (model/alloc.h): one line after the rest of `why`, or
 * the "allocator" key of its JSON document ROOT (null when not collected).
 */
static void why_allocator(const struct globals *g, pid_t pid, json_t *root)
{
	static struct alloc_fact a;
	bool ok = alloc_collect(&g->sr, pid, &a) == 0;
	if (root)
		json_put(root, "allocator", ok ? alloc_to_json(&a) : NULL);
	else if (ok)
		alloc_render_why(stdout, &a, (long)pid);
}

int cmd_why(struct globals *g, int argc, char **argv)
{
	int hot_s;
	if (why_hot_take(argv, &argc, &hot_s))
		return EXIT_USAGE;
	int c = cmd_global_opts_only(g, argc, argv, why_help);
	if (c >= 0)
		return c;
	pid_t pid;
	if (args_one_pid("why", argc, argv, why_help, &pid))
		return EXIT_USAGE;
	int ret =
		hot_s ? cmd_setup_live(g, "why: --hot clears and then reads the live process's "
					  "referenced bits; a recorded tree has no process to ask")
		      : cmd_setup(g);
	if (ret)
		return ret;
	/* refused before the report, as every command that needs root is: nothing on stdout */
	if (hot_s && geteuid() != 0) {
		warnx("why: --hot needs root (it writes /proc/%d/clear_refs)", (int)pid);
		return EXIT_FAIL;
	}
	static struct why_input in;
	struct host_snapshot *h = calloc(1, sizeof(*h));
	memset(&in, 0, sizeof(in));
	in.pid = pid;
	in.recorded = !g->sr.live;
	static struct proc_info pi;
	memset(&pi, 0, sizeof(pi));
	if ((ret = cmd_pid_mm(g, "why", pid, &pi)))
		goto out;
	in.st = pi.st;
	if (!h || host_snapshot_read(&g->sr, h)) {
		warnx("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	in.h = h;
	in.vmas.pmd_bytes = h->feat.pmd_size;
	char policy[CHOICE_LEN];
	struct why_ctx wc = {.in = &in, .q = {.k = LEDGER_K, .held = true, .budget_ms = 2000}};
	ledger_req_host(&g->sr, &wc.q, policy, sizeof(policy));
	int e = collect(&g->sr, &pi, &wc);
	ledger_vmas_free(&wc.lv);
	if (e) {
		if (e == -ENOMEM)
			warnx("out of memory");
		else
			warnx("why: process %d exited", pid);
		ret = EXIT_FAIL;
		goto out;
	}

	static struct why_report r;
	why_explain(&in, &r);
	/* what to change, when its ledger flags a cost or it would gain (why's last block) */
	static struct remedy_proc rp;
	static struct remedy rem;
	if (!in.smaps_err && in.st.thp_enabled != 0 &&
	    (ledger_top_cost(&in.led) != LC_NONE || in.led.pte_full_kb > 0) &&
	    advise_remedy_proc(&g->sr, pid, &in.led, wc.q.policy, &rp) == 0) {
		const struct opt_u64 *mpn = &h->thp.khp[KHP_MAX_PTES_NONE];
		int k = systemd_knows(&g->sr, "MemoryTHP");
		struct remedy_host host = {
			.always = wc.q.policy && !strcmp(wc.q.policy, "always"),
			.max_ptes_none = mpn->present ? (long)mpn->v : -1,
			.max_ptes_none_max = wc.q.pmd_order > 0 ? (1L << wc.q.pmd_order) - 1 : 0,
			.shrink_underused =
				h->thp.shrink_underused.present && h->thp.shrink_underused.v == 1,
			.systemd_thp = k == 1	? 1
				       : k == 0 ? 0
						: -1,
			.policy = wc.q.policy,
		};
		host.fault_alloc.present =
			kv_get(&h->vmstat, "thp_fault_alloc", &host.fault_alloc.v);
		host.collapse_alloc.present =
			kv_get(&h->vmstat, "thp_collapse_alloc", &host.collapse_alloc.v);
		if (remedy_build(&rp, &host, &rem))
			r.rem = &rem;
	}
	if (g->json) {
		json_t *root = why_to_json(&in, &r);
		if (root)
			why_allocator(g, pid, root);
		if (hot_s)
			ret = why_hot_run(&g->sr, pid, hot_s, h->feat.pmd_size >> 10, root);
		int j = cmd_emit_json(root);
		ret = ret ? ret : j;
	} else {
		why_render_text(stdout, &in, &r, g->color);
		why_allocator(g, pid, NULL);
		if (hot_s)
			ret = why_hot_run(&g->sr, pid, hot_s, h->feat.pmd_size >> 10, NULL);
	}
out:
	if (h)
		host_snapshot_free(h);
	free(h);
	proc_info_free(&pi);
	return ret;
}
