// SPDX-License-Identifier: MIT
/* `thpctl maps PID`: one process's VMAs, from /proc/PID/smaps through kernel/proc_read.h. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/parse.h"
#include "../kernel/proc_read.h"
#include "../kernel/proc_thp.h"
#include "../render/hint.h"
#include "../render/ps.h"
#include "../util/buf.h"
#include "../util/fileio.h"
#include "args.h"
#include "common.h"
#include "folios.h"
#include "ledger.h"

enum { OPT_FOLIOS = OPT_CMD_BASE, OPT_CONT, OPT_UNDERUSED };

static void maps_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl maps PID [--folios [--cont SIZE] | --underused] [--json]\n\n"
		"One process's VMAs: range, size, RSS, AnonHugePages, hg/nh flags,\n"
		"THPeligible and name, and its prctl THP state. When THP_enabled is 0,\n"
		"walks PPid up and names the highest ancestor that also has 0 (who set\n"
		"PR_SET_THP_DISABLE; it is inherited across fork and exec).\n"
		"Reads /proc/PID/smaps, which briefly takes the target's mmap_lock.\n\n"
		"options:\n"
		"  --folios        per VMA, memory by folio size and mapping: PMD-mapped,\n"
		"                  PTE-mapped aligned or unaligned, partially mapped; anon\n"
		"                  and file/shmem apart, kB and %% of the VMA's RSS. Sees\n"
		"                  mTHP (16K-1M folios) that AnonHugePages does not. Reads\n"
		"                  /proc/PID/pagemap and /proc/kpageflags (root); as another\n"
		"                  user only PMD-mapped THP is visible (marked partial)\n"
		"  --cont SIZE     with --folios: also aligned contiguous blocks of SIZE in\n"
		"                  one folio (e.g. 64K, what arm64 maps with one TLB entry)\n"
		"  --underused     for each PMD-mapped anonymous THP, count its all-zero\n"
		"                  4 kB subpages and show what the underused-THP shrinker\n"
		"                  (6.12+) would give back at max_ptes_none 0, 64, 128, 256,\n"
		"                  511. This READS THE PROCESS'S MEMORY through\n"
		"                  /proc/PID/mem (ptrace permission; nothing is written) and\n"
		"                  prints how long that took (~1 s per 4 GiB of THP here)\n" GLOBAL_HELP);
}

struct maps_ctx {
	struct maps_report *r;
	struct ledger_vmas lv; /* the VMAs the ledger scans */
	struct ledger_req q;
};

static int maps_cb(const struct smaps_vma *v, void *ctx)
{
	struct maps_ctx *m = ctx;
	char name[VMA_NAME_LEN * 2];
	vma_display_name(v->name, v->name_len, name, sizeof(name));
	if (maps_vma_add(m->r, v, name))
		return -ENOMEM;
	ledger_vmas_add(&m->lv, v, m->q.policy);
	return m->lv.err;
}

/* The ancestors that kept THP_enabled 0 (kernel/ancestry.c through the reader, shared with `why`). */
static void maps_chain(const struct thp_chain *c, struct maps_report *r)
{
	r->nchain = c->n;
	for (int i = 0; i < c->n && i < (int)(sizeof(r->chain) / sizeof(r->chain[0])); i++) {
		r->chain[i].pid = c->a[i].pid;
		snprintf(r->chain[i].comm, sizeof(r->chain[0].comm), "%s", c->a[i].comm);
	}
	r->chain_cut = c->cut;
	r->stop_thp_enabled = c->stop_thp_enabled;
}

struct maps_args {
	bool folios, underused;
	uint64_t cont_kb;
	pid_t pid;
};

/* One option of maps into CTX (struct maps_args). */
static int maps_opt(int c, const char *arg, void *ctx)
{
	struct maps_args *a = ctx;
	const struct args_store st[] = {ARGS_FLAG(OPT_FOLIOS, &a->folios),
					ARGS_FLAG(OPT_UNDERUSED, &a->underused)};
	if (c == OPT_CONT)
		return args_cont("maps", arg, &a->cont_kb);
	return args_store(c, arg, st, ARGS_N(st));
}

/* Options and the PID operand. Returns -1 to go on, else the exit code. */
static int maps_opts(struct globals *g, int argc, char **argv, struct maps_args *a)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_FLAG("folios", OPT_FOLIOS),
					     OPT_ARG("cont", OPT_CONT),
					     OPT_FLAG("underused", OPT_UNDERUSED), OPTS_END};
	int c = args_getopt(g, argc, argv, "h", opts, maps_help, maps_opt, a);
	if (c >= 0)
		return c;
	if ((a->cont_kb && !a->folios) || (a->folios && a->underused)) {
		warnx("maps: %s", a->cont_kb && !a->folios
					  ? "--cont needs --folios"
					  : "--folios and --underused are separate views");
		return EXIT_USAGE;
	}
	return args_one_pid("maps", argc, argv, maps_help, &a->pid) ? EXIT_USAGE : -1;
}

/* Say why smaps of PID could not be read (ERR, -errno). */
static void smaps_fail(const struct sysroot *sr, pid_t pid, int err)
{
	if (err == -EACCES || err == -EPERM)
		warnx("maps: cannot read /proc/%d/smaps: %s (%s)", pid, strerror(-err),
		      hint_proc_denied(geteuid() == 0));
	else if (err == -ENOENT && !sr->live)
		warnx("maps: /proc/%d/smaps is not in this recorded tree (unreadable at capture)",
		      pid);
	else if (err == -ENOENT || err == -ESRCH)
		warnx("maps: process %d exited", pid);
	else
		warnx("maps: cannot read /proc/%d/smaps: %s", pid, read_err_str(err));
}

static json_t *maps_vma_item(size_t i, void *ctx)
{
	return maps_vma_json(ctx, i);
}

/* The VMA table of PID, whose status is in PI, into MC->r. */
static int maps_vmas(struct globals *g, struct proc_info *pi, struct maps_ctx *mc)
{
	struct maps_report *r = mc->r;
	pi->vma_cb = maps_cb;
	pi->vma_ctx = mc;
	int e = proc_read(&g->sr, pi->pid, PROC_SMAPS | PROC_CHAIN, pi);
	r->partial = pi->smaps_truncated || pi->smaps_damaged || proc_status_nbad(&r->st);
	r->totals = pi->t;
	if (e == 0 || e == -ESRCH)
		e = pi->smaps_err;
	if (e) {
		smaps_fail(&g->sr, pi->pid, e);
		return EXIT_FAIL;
	}
	if (pi->chain_walked)
		maps_chain(&pi->chain, r);
	if (pi->smaps_truncated)
		warnx("maps: /proc/%d/smaps ends mid-line (truncated): partial", pi->pid);
	if (pi->smaps_damaged)
		warnx("maps: /proc/%d/smaps: %d damaged line%s, values shown as -: partial",
		      pi->pid, pi->smaps_damaged, pi->smaps_damaged == 1 ? "" : "s");
	if (r->st.bad)
		warnx("maps: /proc/%d/status: %s%s unknown (damaged): partial", pi->pid,
		      proc_status_bad_name(r->st.bad),
		      __builtin_popcount(r->st.bad) > 1 ? " and more fields" : "");
	if (r->st.truncated)
		warnx("maps: /proc/%d/status is cut short: partial", pi->pid);
	if (ledger_for_pid(&g->sr, pi->pid, &mc->q, &mc->lv, &r->totals, &r->led) == -ENOMEM) {
		warnx("out of memory");
		return EXIT_FAIL;
	}
	if (g->json)
		return cmd_emit_json_streamed(maps_to_json(r), "vmas", r->n, maps_vma_item, r);
	maps_render_text(stdout, r, g->color);
	return EXIT_OK;
}

int cmd_maps(struct globals *g, int argc, char **argv)
{
	struct maps_args a = {0};
	int ret = maps_opts(g, argc, argv, &a);
	if (ret >= 0)
		return ret;
	if ((ret = cmd_setup(g)))
		return ret;
	struct maps_report r = {.pid = a.pid};
	struct proc_info pi = {0};
	/* else it said why: no such process, a kernel thread, a zombie, status unreadable */
	if ((ret = cmd_pid_mm(g, "maps", a.pid, &pi)) == EXIT_OK)
		r.st = pi.st;
	if (ret == EXIT_OK && (a.folios || a.underused)) {
		ret = a.folios ? maps_folios(g, a.pid, &r.st, a.cont_kb)
			       : maps_underused(g, a.pid, &r.st);
	} else if (ret == EXIT_OK) {
		char policy[CHOICE_LEN];
		struct maps_ctx mc = {.r = &r,
				      .q = {.k = LEDGER_K, .held = true, .budget_ms = 2000}};
		ledger_req_host(&g->sr, &mc.q, policy, sizeof(policy));
		ret = maps_vmas(g, &pi, &mc);
		ledger_vmas_free(&mc.lv);
	}
	maps_report_free(&r);
	proc_info_free(&pi);
	return ret;
}
