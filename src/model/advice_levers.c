// SPDX-License-Identifier: MIT
/* The per-process levers of `thpctl advise`: what to do about each detected process. */
#include "advice_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/units.h"

static struct adv_lever *lever(struct advice *a, const struct adv_proc *p, enum workload wl)
{
	if (a->nlevers == ADV_MAX_LEVERS)
		return NULL;
	struct adv_lever *l = &a->l[a->nlevers++];
	memset(l, 0, sizeof(*l));
	l->wl = wl;
	if (p) {
		l->pid = p->pid;
		snprintf(l->comm, sizeof(l->comm), "%s", p->comm);
	}
	return l;
}

__attribute__((format(printf, 2, 3))) static void alt(struct adv_lever *l, const char *fmt, ...)
{
	if (l->nalt == ADV_MAX_ALT)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->alt[l->nalt++], sizeof(l->alt[0]), fmt, ap);
	va_end(ap);
}

/*
 * The restart command: its exe and arguments when its command line is intact;
 * when a process title was written over it, no command (the arguments are
 * unknown) but a line that says so.
 */
static void run_cmd(struct adv_lever *l, const struct adv_proc *p, const char *mode,
		    const char *placeholder)
{
	if (p && p->args == ADV_ARGS_INTACT && p->cmdline[0])
		snprintf(l->command, sizeof(l->command), "thpctl run --thp=%s -- %s", mode,
			 p->cmdline);
	else if (p && p->args == ADV_ARGS_REWRITTEN)
		alt(l,
		    "thpctl run --thp=%s -- %s ARGS...: its arguments are unknown (its command line reads %s, a process title written over them): take them from its unit or start script",
		    mode, p->exe[0] ? p->exe : "EXE", p->title);
	else
		snprintf(l->command, sizeof(l->command), "thpctl run --thp=%s -- %s", mode,
			 placeholder);
}

static void systemd_alt(struct adv_lever *l, const struct adv_proc *p, const char *value)
{
	if (p && p->unit[0])
		alt(l, "systemd 260+: MemoryTHP=%s in [Service] of %s (systemctl edit %s)", value,
		    p->unit, p->unit);
	else
		alt(l, "systemd 260+: MemoryTHP=%s in the unit's [Service] section", value);
}

/* The processes of W (NULL-terminated walk), or one NULL for a requested workload. */
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
	struct advice *a = c->out;
	bool always = c->enabled_res == 0;
	struct adv_lever *l = lever(a, p, wl);
	if (!l)
		return;
	if (p && p->thp_enabled == 0) {
		l->needed = false;
		snprintf(l->what, sizeof(l->what), "already opted out (THP_enabled 0)");
		snprintf(
			l->reason, sizeof(l->reason),
			"its /proc/%ld/status shows THP_enabled 0: prctl(PR_SET_THP_DISABLE) is in force%s",
			p->pid,
			wl == WL_REDIS ? " (Redis disable-thp yes, or a thpctl run --thp=off)"
				       : "");
		return;
	}
	l->needed = always || c->pp_off[wl];
	/* madvise keeps THP off only what is not madvised: check its own memory */
	bool holds =
		p && p->has_smaps && (p->anon_huge_kb || (c->enabled_res == 1 && p->hg_vmas > 0));
	l->needed |= holds;
	snprintf(l->what, sizeof(l->what), "%s",
		 l->needed ? "opt it out of THP (restart it so)"
			   : "keep it opted out of THP (safeguard)");
	run_cmd(l, p, "off", placeholder);
	if (wl == WL_REDIS) {
		bool old = p && p->has_ver &&
			   (p->ver[0] < 6 || (p->ver[0] == 6 && p->ver[1] >= 0 && p->ver[1] < 2));
		if (!old)
			alt(l,
			    "redis.conf: disable-thp yes (Redis 6.2+, the default): Redis calls prctl(PR_SET_THP_DISABLE) itself at start when enabled=always");
	}
	systemd_alt(l, p, "disable");
	if (holds) {
		char huge[32], hg[32];
		fmt_kb(huge, sizeof(huge), p->anon_huge_kb);
		fmt_kb(hg, sizeof(hg), p->hg_kb);
		snprintf(
			l->reason, sizeof(l->reason),
			"it holds %s of THP now (AnonHugePages) and %d MADV_HUGEPAGE VMA%s of %s (its /proc/%ld/smaps): its allocator asks for huge pages (jemalloc thp:always, glibc.malloc.hugetlb=1, ...), so enabled=%s does not keep THP off its heap; opting out per process does",
			huge, p->hg_vmas, p->hg_vmas == 1 ? "" : "s", hg, p->pid,
			c->enabled_res >= 0 ? adv_enabled_vals[c->enabled_res] : "?");
	} else if (l->needed)
		snprintf(
			l->reason, sizeof(l->reason),
			"%s; the host keeps enabled=%s for the others, so this process opts out alone (prctl, inherited by its children)",
			wl == WL_REDIS	    ? "Redis wants no THP"
			: wl == WL_POSTGRES ? "PostgreSQL's backends want no THP"
					    : "MongoDB 7.0 and earlier wants THP off",
			adv_enabled_vals[c->enabled_res]);
	else if (p && !p->has_smaps)
		snprintf(
			l->reason, sizeof(l->reason),
			"enabled=%s keeps THP off its heap unless it madvises it (its smaps could not be read: run as root to check); opting out per process keeps it so if the host is ever set to always, without touching other processes",
			c->enabled_res >= 0 ? adv_enabled_vals[c->enabled_res] : "?");
	else
		snprintf(
			l->reason, sizeof(l->reason),
			"enabled=%s already keeps THP off its heap%s; opting out per process keeps it so if the host is ever set to always, without touching other processes",
			c->enabled_res >= 0 ? adv_enabled_vals[c->enabled_res] : "?",
			p ? " (no huge pages and no MADV_HUGEPAGE VMA in its smaps)" : "");
}

static void lever_postgres(struct adv_ctx *c, const struct adv_proc *p)
{
	struct advice *a = c->out;
	struct adv_lever *l;
	if (c->enabled_res == 0 || c->pp_off[WL_POSTGRES])
		opt_out_lever(c, p, WL_POSTGRES, "postgres -D DATADIR");
	if (!(l = lever(a, p, WL_POSTGRES)))
		return;
	snprintf(l->what, sizeof(l->what), "shared_buffers in hugetlb pages");
	if (p && p->shm_hugetlb) {
		snprintf(l->what, sizeof(l->what), "shared memory already in hugetlb pages");
		snprintf(l->reason, sizeof(l->reason),
			 "its shared memory segment is a hugetlb mapping");
		return;
	}
	if (p && p->shm_kb) {
		char sz[32];
		uint64_t mib = (p->shm_kb + 1023) / 1024;
		snprintf(sz, sizeof(sz), "%lluM", (unsigned long long)mib);
		snprintf(l->command, sizeof(l->command), "thpctl hugetlb plan --for %s", sz);
		snprintf(
			l->reason, sizeof(l->reason),
			"its shared memory segment (shared_buffers and the rest) is %llu MiB, in small pages now",
			(unsigned long long)mib);
	} else {
		snprintf(l->command, sizeof(l->command),
			 "thpctl hugetlb plan --for SHARED_BUFFERS --overhead 25");
		snprintf(
			l->reason, sizeof(l->reason),
			"hugetlb pages for shared_buffers cut page table memory in every backend; the segment is shared_buffers plus a few percent");
	}
	alt(l,
	    "postgresql.conf: huge_pages = on (fail rather than start without them; try is the default)");
	alt(l,
	    "PostgreSQL 15+: postgres -D DATADIR -C shared_memory_size_in_huge_pages gives the page count");
}

static void lever_jvm(struct adv_ctx *c, const struct adv_proc *p)
{
	struct advice *a = c->out;
	struct adv_lever *l;
	if (!(l = lever(a, p, WL_JVM)))
		return;
	if (p && p->java_thp) {
		snprintf(l->what, sizeof(l->what),
			 "already runs with -XX:+UseTransparentHugePages");
		snprintf(l->reason, sizeof(l->reason),
			 "its heap is madvised: under enabled=%s it gets THP",
			 c->enabled_res >= 0 ? adv_enabled_vals[c->enabled_res] : "?");
		return;
	}
	l->needed = c->enabled_res == 1;
	snprintf(l->what, sizeof(l->what), "add -XX:+UseTransparentHugePages to its options");
	snprintf(
		l->command, sizeof(l->command),
		"JAVA_TOOL_OPTIONS=-XX:+UseTransparentHugePages (in its environment, then restart it)");
	snprintf(
		l->reason, sizeof(l->reason),
		"the JVM then madvises its heap: with enabled=madvise the heap gets THP and nothing else does; add -XX:+AlwaysPreTouch to take the faults at start");
}

static void lever_go(struct adv_ctx *c, const struct adv_proc *p)
{
	struct advice *a = c->out;
	struct adv_lever *l;
	if (!(l = lever(a, p, WL_GO)))
		return;
	if (p && p->limited) {
		char lim[32];
		fmt_bytes(lim, sizeof(lim), p->limit_bytes);
		l->needed = false;
		snprintf(l->what, sizeof(l->what),
			 "if its RSS creeps to its limit (%s): GODEBUG=disablethp=1", lim);
		snprintf(l->command, sizeof(l->command),
			 "GODEBUG=disablethp=1 (in its environment, Go 1.21.6+)");
		snprintf(
			l->reason, sizeof(l->reason),
			"the Go runtime then marks its heap MADV_NOHUGEPAGE, for when max_ptes_none cannot be lowered host-wide");
	} else {
		snprintf(l->what, sizeof(l->what), "nothing to do");
		snprintf(
			l->reason, sizeof(l->reason),
			"Go 1.21.1+ gives no huge page advice: its heap gets THP only under enabled=always");
	}
}

static void lever_mongodb8(struct adv_ctx *c, const struct adv_proc *p)
{
	const struct host_snapshot *h = c->in->h;
	struct advice *a = c->out;
	struct adv_lever *l;
	if (!(l = lever(a, p, WL_MONGODB8)))
		return;
	if (p && p->thp_enabled == 0) {
		l->needed = true;
		snprintf(l->what, sizeof(l->what), "restart it without the prctl opt-out");
		snprintf(
			l->reason, sizeof(l->reason),
			"its status shows THP_enabled 0 (inherited or set by its starter: see thpctl why %ld), so it gets no THP whatever the host says",
			p->pid);
	} else {
		snprintf(l->what, sizeof(l->what),
			 "no per-process lever: it needs the host settings");
		snprintf(l->reason, sizeof(l->reason),
			 "MongoDB 8.0 does not madvise: only enabled=always gives it huge pages%s",
			 h->feat.except_advised == TRI_YES
				 ? "; others can opt out with thpctl run --thp=off or --thp=advised"
				 : "; others can opt out with thpctl run --thp=off");
	}
}

static void lever_node(struct adv_ctx *c, const struct adv_proc *p)
{
	struct advice *a = c->out;
	struct adv_lever *l;
	if (!(l = lever(a, p, WL_NODE)))
		return;
	snprintf(l->what, sizeof(l->what), "nothing to do");
	snprintf(l->reason, sizeof(l->reason),
		 "V8 gives no huge page advice: its heap gets THP only under enabled=always");
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
				lever_node(c, p);
				break;
			default:
				break;
			}
		}
	}
}
