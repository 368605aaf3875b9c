// SPDX-License-Identifier: MIT
/* The per-process levers of `thpctl advise`: what to do about each detected process. */
#include "advice_int.h"
#include "slot.h"

#include <string.h>

/* A new lever ID of workload WL for P (NULL: a requested workload) with reason WHY; NULL when full. */
static struct adv_lever *lever(struct adv_ctx *c, const struct adv_proc *p, enum workload wl,
			       enum adv_lever_id id, enum adv_lever_why why)
{
	struct advice *a = c->out;
	struct adv_lever *l = SLOT_TAKE(a->l, a->nlevers);
	if (!l)
		return NULL;
	l->wl = wl;
	l->id = id;
	l->proc = p;
	l->why = why;
	l->enabled = c->enabled_res;
	l->except_advised = c->in->h->feat.except_advised == TRI_YES;
	if (p) {
		l->pid = p->pid;
		memcpy(l->comm, p->comm, sizeof(l->comm));
	}
	return l;
}

static void alt(struct adv_lever *l, enum adv_alt a)
{
	if (l->nalt < ADV_MAX_ALT)
		l->alt[l->nalt++] = a;
}

/*
 * The restart command: its command line when it is intact and kept whole;
 * when a process title was written over it, or it could not be read or kept
 * whole, no command (one would run something else) but an alternative that
 * says so.
 */
static void run_cmd(struct adv_lever *l, const struct adv_proc *p, const char *mode,
		    const char *placeholder)
{
	l->mode = mode;
	l->placeholder = placeholder;
	if (p && p->run.state == RUN_ARGS_REWRITTEN)
		alt(l, AA_RUN_REWRITTEN);
	else if (p && p->run.state != RUN_ARGS_INTACT)
		alt(l, AA_RUN_UNREAD);
	else
		l->cmd = ACM_RUN;
}

/* The processes of W, or one NULL for a requested workload. */
static int procs_of(const struct adv_input *in, enum workload w, const struct adv_proc **out,
		    int max)
{
	int n = 0;
	for (int i = 0; i < in->nprocs && n < max; i++)
		if (in->procs[i].wl == w)
			out[n++] = &in->procs[i];
	return n;
}

static void opt_out_lever(struct adv_ctx *c, const struct adv_proc *p, enum workload wl,
			  const char *placeholder)
{
	bool always = c->enabled_res == 0;
	if (p && p->thp_enabled == 0) {
		lever(c, p, wl, AL_ALREADY_OFF, ALW_ALREADY_OFF);
		return;
	}
	bool needed = always || c->pp_off[wl];
	/* madvise keeps THP off only what is not madvised: check its own memory. Huge pages
	 * outside any hg VMA were made before (an earlier always, MADV_COLLAPSE): madvise makes
	 * no new ones there, and neither it nor an opt-out splits those (a restart does) */
	bool hg = p && p->has_smaps && p->hg_vmas > 0;
	bool holds = hg && (p->anon_huge_kb || c->enabled_res == 1);
	bool held_before = !hg && !always && p && p->has_smaps && p->anon_huge_kb;
	needed |= holds;
	struct adv_lever *l = lever(c, p, wl, needed ? AL_OPT_OUT : AL_OPT_OUT_SAFE, ALW_NONE);
	if (!l)
		return;
	l->needed = needed;
	run_cmd(l, p, "off", placeholder);
	if (wl == WL_REDIS) {
		bool old = p && p->has_ver &&
			   (p->ver[0] < 6 || (p->ver[0] == 6 && p->ver[1] >= 0 && p->ver[1] < 2));
		if (!old)
			alt(l, AA_REDIS_CONF);
	}
	l->systemd_value = "disable";
	if (c->in->systemd_thp == 1) /* probed: the installed systemd knows MemoryTHP= */
		alt(l, AA_SYSTEMD);
	l->why = holds		      ? ALW_HOLDS
		 : needed	      ? ALW_WANTS_OFF
		 : held_before	      ? ALW_HELD_BEFORE
		 : p && !p->has_smaps ? ALW_UNREADABLE
				      : ALW_KEEPS;
	l->recorded = c->in->recorded;
}

static void lever_postgres(struct adv_ctx *c, const struct adv_proc *p)
{
	if (c->enabled_res == 0 || c->pp_off[WL_POSTGRES])
		opt_out_lever(c, p, WL_POSTGRES, "postgres -D DATADIR");
	if (p && p->shm_hugetlb) {
		lever(c, p, WL_POSTGRES, AL_PG_HUGETLB_DONE, ALW_PG_DONE);
		return;
	}
	struct adv_lever *l = lever(c, p, WL_POSTGRES, AL_PG_HUGETLB, ALW_NONE);
	if (!l)
		return;
	if (p && p->shm_kb) {
		l->mib = (p->shm_kb + 1023) / 1024;
		l->cmd = ACM_HUGETLB_PLAN;
		l->why = ALW_PG_SEGMENT;
	} else {
		l->cmd = ACM_HUGETLB_SHARED;
		l->why = ALW_PG_GENERIC;
	}
	alt(l, AA_PG_HUGE_PAGES);
	alt(l, AA_PG_SIZE);
}

static void lever_jvm(struct adv_ctx *c, const struct adv_proc *p)
{
	if (p && p->java_thp) { /* not "fine" when its own ledger flags a cost */
		lever(c, p, WL_JVM, AL_JVM_ALREADY,
		      p->flagged_cost != LC_NONE ? ALW_LEDGER_OWN : ALW_JVM_MADVISED);
		return;
	}
	/* advice for a workload must not contradict the process's own ledger */
	if (p && p->flagged_cost != LC_NONE) {
		lever(c, p, WL_JVM, AL_JVM_LEDGER, ALW_LEDGER);
		return;
	}
	struct adv_lever *l = lever(c, p, WL_JVM, AL_JVM_ADD, ALW_JVM_MADVISE);
	if (!l)
		return;
	l->needed = c->enabled_res == 1;
	l->cmd = ACM_JAVA_TOOL;
}

static void lever_go(struct adv_ctx *c, const struct adv_proc *p)
{
	struct adv_lever *l;
	if (!p || !p->limited)
		lever(c, p, WL_GO, AL_NOTHING, ALW_GO_NO_ADVICE);
	else if ((l = lever(c, p, WL_GO, AL_GO_LIMITED, ALW_GO_LIMITED)))
		l->cmd = ACM_GODEBUG;
}

static void lever_mongodb8(struct adv_ctx *c, const struct adv_proc *p)
{
	struct adv_lever *l;
	if (!p || p->thp_enabled != 0)
		lever(c, p, WL_MONGODB8, AL_MONGODB8_HOST, ALW_MONGODB8_ALWAYS);
	else if ((l = lever(c, p, WL_MONGODB8, AL_MONGODB8_PRCTL, ALW_MONGODB8_PRCTL)))
		l->needed = true;
}

void advice_levers(struct adv_ctx *c)
{
	const struct adv_input *in = c->in;
	struct advice *a = c->out;
	const struct adv_proc *ps[16];
	for (int w = 0; w < WL_N; w++) {
		if (!a->wl[w].active)
			continue;
		int n = procs_of(in, (enum workload)w, ps, 16);
		if (n == 0)
			ps[n++] = NULL; /* asked for with --workload, no process found */
		for (int i = 0; i < n; i++) {
			const struct adv_proc *p = ps[i];
			switch (w) {
			case WL_REDIS:
				opt_out_lever(c, p, WL_REDIS, "redis-server /etc/redis/redis.conf");
				break;
			case WL_MONGODB7:
				opt_out_lever(c, p, WL_MONGODB7,
					      "mongod --config /etc/mongod.conf");
				break;
			case WL_POSTGRES:
				lever_postgres(c, p);
				break;
			case WL_JVM:
				lever_jvm(c, p);
				break;
			case WL_GO:
				lever_go(c, p);
				break;
			case WL_MONGODB8:
				lever_mongodb8(c, p);
				break;
			case WL_NODE:
				lever(c, p, WL_NODE, AL_NOTHING, ALW_NODE);
				break;
			default:
				break;
			}
		}
	}
}
