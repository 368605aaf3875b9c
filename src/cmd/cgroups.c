// SPDX-License-Identifier: MIT
/* `thpctl cgroups`: THP per memory cgroup (memory.stat, limits, opt-outs inside). */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/cgroup_stat.h"
#include "../model/cgroups.h"
#include "../render/cgroups.h"
#include "args.h"
#include "cgroups_collect.h"
#include "common.h"

static void cgroups_help(FILE *f)
{
	fprintf(f, "usage: thpctl cgroups [--top N] [--json]\n\n"
		   "Every memory cgroup (cgroup v2; v1's memory controller where that is what is\n"
		   "mounted), sorted by anonymous THP: anon_thp, file_thp and shmem_thp of\n"
		   "memory.stat (v1: total_rss_huge), the share of anon memory in THP, the\n"
		   "thp_fault_alloc and thp_collapse_alloc events (v2, 5.4+), memory.current and\n"
		   "memory.max (\"max\": no limit), and how many processes inside have THP\n"
		   "disabled by prctl (THP_enabled 0; kernel threads are not counted). A cgroup's\n"
		   "figures include the cgroups below it; on v1 the root's memory.usage_in_bytes\n"
		   "is the kernel's estimate (page cache + anon, no kernel memory) and can be\n"
		   "below a child's. Flags a cgroup at >= 90%% of memory.max that holds anon THP,\n"
		   "and prints the host-wide thp_fault_fallback_charge. '-': unknown; USE 'none':\n"
		   "no limit; 'n/a': no memory.current at the v2 root, no anon (THP/ANON); all\n"
		   "null in JSON. A line under the table says which are there.\n\n"
		   "options:\n"
		   "  --top N         only the N cgroups with the most anon THP\n" GLOBAL_HELP);
}

enum { OPT_TOP = OPT_CMD_BASE };

static int cgroups_opt(int c, const char *arg, void *ctx)
{
	long v;
	if (c != OPT_TOP)
		return -2;
	if (args_long(arg, 1, 1000000, &v, "cgroups: bad --top '%s' (1 or more)", arg))
		return EXIT_USAGE;
	*(size_t *)ctx = (size_t)v;
	return -1;
}

int cg_collect(const struct sysroot *sr, size_t top, const struct cg_collect_opt *o,
	       struct cg_collect *c)
{
	static const struct cg_collect_opt afresh;
	if (!o)
		o = &afresh;
	struct opt_u64 fb;
	struct cg_proc_count *pc = NULL;
	memset(c, 0, sizeof(*c));
	if (cg_tree_read(sr, &c->t) ||
	    (c->t.n && (!(c->procs = calloc(c->t.n, sizeof(*c->procs))) ||
			!(pc = calloc(c->t.n, sizeof(*pc))))) ||
	    (c->t.n && cg_tree_count_procs(sr, &c->t, pc, o->cache, o->refresh))) {
		free(pc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->t.n; i++)
		c->procs[i] =
			(struct cg_procs){pc[i].n, pc[i].thp_off, pc[i].unknown, pc[i].unrecorded};
	free(pc);
	if (o->fallback)
		fb = *o->fallback;
	else
		cg_fallback_charge(sr, &fb);
	return cg_report_build(&c->t, c->procs, fb, top, &c->rep);
}

void cg_collect_free(struct cg_collect *c)
{
	cg_report_free(&c->rep);
	free(c->procs);
	cg_tree_free(&c->t);
	memset(c, 0, sizeof(*c));
}

int cmd_cgroups(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS,
		{"top", required_argument, NULL, OPT_TOP},
		{NULL, 0, NULL, 0},
	};
	size_t top = 0;
	int c = args_getopt(g, argc, argv, "h", opts, cgroups_help, cgroups_opt, &top);
	if (c >= 0)
		return c;
	if (optind < argc) {
		warnx("cgroups: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	int ret = cmd_setup(g);
	if (ret)
		return ret;
	struct cg_collect cc;
	if (cg_collect(&g->sr, top, NULL, &cc)) {
		warnx("cgroups: out of memory");
		ret = EXIT_FAIL;
	} else if (g->json) {
		ret = cmd_emit_json(cg_to_json(&cc.rep));
	} else {
		cg_render_text(stdout, &cc.rep, g->color);
	}
	cg_collect_free(&cc);
	return ret;
}
