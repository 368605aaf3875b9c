// SPDX-License-Identifier: MIT
/* `thpctl hugetlb plan`: size a hugetlb pool, check it fits, say how to reserve it. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/host.h"
#include "../render/hugetlb_plan.h"
#include "../kernel/boot_tools.h"
#include "../kernel/kv.h"
#include "../kernel/numa.h"
#include "../util/wrap.h"
#include "../util/units.h"
#include "args.h"
#include "common.h"

static void hugetlb_help(FILE *f)
{
	fprintf(f, "usage: thpctl hugetlb plan --for SIZE [--overhead PCT] [--page 2M|1G]\n"
		   "                           [--node N] [--json]\n\n"
		   "Plan a hugetlb pool: SIZE is the memory the pool must hold, e.g. PostgreSQL's\n"
		   "shared_buffers (its whole shared memory segment is shared_buffers plus a few\n"
		   "percent; --overhead 25 adds 25%%). Prints the number of pages, whether they\n"
		   "fit (MemTotal, at least 1.5 GiB left to the kernel), whether a reservation at\n"
		   "runtime can succeed now (the pool's free pages less resv_hugepages first,\n"
		   "then free blocks of the page's order in /proc/buddyinfo and MemFree, the\n"
		   "node's own with --node), and the lines that grow the pool by what is\n"
		   "missing, never shrinking it: sysctl vm.nr_hugepages (or the per-size or\n"
		   "per-node sysfs file), a persistent sysctl.d/tmpfiles.d line, and the kernel\n"
		   "command line (hugepagesz= hugepages=), which 1G pages usually need.\n"
		   "Surplus pages that nr_overcommit_hugepages lets the kernel allocate on demand\n"
		   "are noted, never counted as reserved (they fail when memory is fragmented).\n"
		   "A pool that does not fit gets no lines (exit 0: the plan is the answer).\n"
		   "Changes nothing.\n\n"
		   "options:\n"
		   "  --for SIZE      pool size (bytes; k, M, G, T suffixes)\n"
		   "  --overhead PCT  add PCT percent to SIZE (default 0)\n"
		   "  --page SIZE     hugetlb page size (default: the kernel's Hugepagesize)\n"
		   "  --node N        reserve on NUMA node N only\n" GLOBAL_HELP);
}

enum { OPT_FOR = OPT_CMD_BASE, OPT_OVERHEAD, OPT_PAGE, OPT_NODE };

static void collect(const struct sysroot *sr, const struct host_snapshot *h,
		    struct hp_plan_input *in)
{
	uint64_t v;
	in->has_mem_total = kv_get(&h->meminfo, "MemTotal", &in->mem_total_kb);
	in->has_mem_free = kv_get(&h->meminfo, "MemFree", &in->mem_free_kb);
	if (kv_get(&h->meminfo, "Hugepagesize", &v))
		in->default_page_kb = v;
	in->base_page = h->feat.page_size;
	in->buddy_max_order = -1;
	for (int i = 0; i < h->buddy.nzones; i++)
		if (h->buddy.zones[i].norders - 1 > in->buddy_max_order)
			in->buddy_max_order = h->buddy.zones[i].norders - 1;
	for (int i = 0; i < h->hugetlb.npools; i++) {
		const struct hugetlb_pool *p = &h->hugetlb.pools[i];
		if (p->size_kb != in->page_kb)
			continue;
		in->size_supported = true;
		if (p->node < 0) {
			in->nr = p->nr;
			in->free = p->free;
			in->resv = p->resv; /* counted for all nodes only */
			in->overcommit = p->overcommit;
			in->surplus = p->surplus;
		}
	}
	/* nodes: from buddyinfo, the hugetlb per-node pools and nodeN/meminfo */
	int order = -1;
	uint64_t page_b;
	if (in->base_page > 0 && mul_u64(in->page_kb, 1024, &page_b) &&
	    page_b % (uint64_t)in->base_page == 0) {
		uint64_t r = page_b / (uint64_t)in->base_page;
		while (r) {
			r >>= 1;
			order++;
		}
	}
	struct kvlist mi = {0};
	for (int node = 0; node < 1024 && in->nnodes < HP_MAX_NODES; node++) {
		bool in_buddy;
		u128 blocks = host_free_blocks(&h->buddy, node, order, &in_buddy);
		bool in_sys = numa_node_present(sr, node);
		if (!in_buddy && !in_sys)
			continue;
		struct hp_node *nd = &in->nodes[in->nnodes++];
		memset(nd, 0, sizeof(*nd));
		nd->node = node;
		nd->has_buddy = in_buddy && order >= 0;
		nd->buddy_partial = h->buddy.bad || h->buddy.dup; /* which node's row: unknown */
		nd->free_blocks = blocks;
		/* the node's own figures: the host's MemFree is not the node's */
		if (node_meminfo_read(sr, node, &mi) == 0) {
			nd->has_mem_total = kv_get(&mi, "MemTotal", &nd->mem_total_kb);
			nd->has_mem_free = kv_get(&mi, "MemFree", &nd->mem_free_kb);
		}
		for (int i = 0; i < h->hugetlb.npools; i++) {
			const struct hugetlb_pool *p = &h->hugetlb.pools[i];
			if (p->size_kb == in->page_kb && p->node == node) {
				nd->nr = p->nr;
				nd->free = p->free;
			}
		}
	}
	kvlist_free(&mi);
	/* what the plan reads and could not: named in the plan, which is then partial */
	for (int i = 0; i < h->nmissing && in->nunread < HP_MAX_LINES; i++)
		if (host_missing_hugetlb_input(h->missing[i]))
			in->unread[in->nunread++] = h->missing[i];
	bundle_skips_of(&h->skips, &in->skips);
}

struct plan_opts {
	struct hp_plan_input in;
	uint64_t bytes, page;
};

/* One option of `hugetlb plan` into CTX (struct plan_opts). */
static int plan_opt(int c, const char *arg, void *ctx)
{
	struct plan_opts *o = ctx;
	long v;
	switch (c) {
	case OPT_FOR:
		return args_size(arg, 1, &o->bytes, "hugetlb plan: bad size '%s' (e.g. 8G)", arg)
			       ? EXIT_USAGE
			       : -1;
	case OPT_OVERHEAD:
		if (args_long(arg, 0, 1000, &v,
			      "hugetlb plan: bad --overhead '%s' (a percentage, 0 to 1000)", arg))
			return EXIT_USAGE;
		o->in.overhead_pct = (unsigned)v;
		return -1;
	case OPT_PAGE:
		if (parse_size(arg, &o->page) || o->page < 4096 || o->page % 1024 ||
		    (o->page & (o->page - 1))) {
			warnx("hugetlb plan: bad page size '%s' (e.g. 2M, 1G)", arg);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_NODE:
		if (args_long(arg, 0, 1023, &v, "hugetlb plan: bad node '%s'", arg))
			return EXIT_USAGE;
		o->in.node = (int)v;
		return -1;
	default:
		return -2;
	}
}

/*
 * A plan this host cannot carry out: a page size its kernel lacks (BAD_SIZE), else a node it
 * does not have. Says which sizes or nodes it has; EXIT_FAIL (the lines would fail, the fit
 * is not its own).
 */
static int refuse(const struct host_snapshot *h, const struct hp_plan_input *in, bool bad_size)
{
	char have[256] = "", one[32];
	size_t n = 0;
	if (bad_size) {
		for (int i = 0; i < h->hugetlb.npools && n < sizeof(have); i++)
			if (h->hugetlb.pools[i].node < 0) {
				fmt_size_token(one, sizeof(one), h->hugetlb.pools[i].size_kb);
				n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s",
						      n ? ", " : "", one);
			}
		fmt_size_token(one, sizeof(one), in->page_kb);
		warnx("hugetlb plan: this kernel has no %s hugetlb pages (no " PATH_HUGETLB
		      "/hugepages-%llukB); %s%s",
		      one, (unsigned long long)in->page_kb,
		      n ? "its sizes: " : "it has no hugetlb pool at all", have);
		return EXIT_FAIL;
	}
	for (int i = 0; i < in->nnodes && n < sizeof(have); i++)
		n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%d", n ? ", " : "",
				      in->nodes[i].node);
	warnx("hugetlb plan: node %d is not on this host (" PATH_NODES "); %s%s", in->node,
	      n ? "its nodes: " : "no node is listed", have);
	return EXIT_FAIL;
}

static int plan(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS,
					     OPT_ARG("for", OPT_FOR),
					     OPT_ARG("overhead", OPT_OVERHEAD),
					     OPT_ARG("page", OPT_PAGE),
					     OPT_ARG("node", OPT_NODE),
					     OPTS_END};
	struct plan_opts po = {.in = {.node = -1}};
	int c = args_getopt(g, argc, argv, "h", opts, hugetlb_help, plan_opt, &po);
	if ((c = args_no_operand(c, "hugetlb plan", argc, argv)) >= 0)
		return c;
	struct hp_plan_input in = po.in;
	uint64_t bytes = po.bytes, page = po.page;
	if (!bytes) {
		warnx("hugetlb plan: --for SIZE is required (the pool size, e.g. --for 8G)");
		return EXIT_USAGE;
	}
	int ret = cmd_setup(g);
	if (ret)
		return ret;
	struct host_snapshot *h = cmd_host_snapshot(g);
	if (!h) {
		ret = EXIT_FAIL;
		goto out;
	}
	if (cmd_nothing_readable(g, "hugetlb plan", h)) {
		ret = EXIT_FAIL;
		goto out;
	}
	in.for_bytes = bytes;
	in.page_kb = page / 1024;
	if (!in.page_kb) {
		uint64_t d;
		in.page_kb = kv_get(&h->meminfo, "Hugepagesize", &d) && d ? d : 2048;
		/* a damaged Hugepagesize is not a page size to plan in */
		if (in.page_kb > (UINT64_MAX >> 10) || (in.page_kb & (in.page_kb - 1))) {
			warnx("hugetlb plan: meminfo Hugepagesize %llu kB is not a page size: give --page",
			      (unsigned long long)in.page_kb);
			ret = EXIT_FAIL;
			goto out;
		}
	}
	collect(&g->sr, h, &in);
	in.pools_unrecorded = !g->sr.live && !h->hugetlb.npools;
	in.boot = boot_tool_detect(&g->sr);
	struct hp_plan p;
	if (hugetlb_plan(&in, &p)) {
		warnx("hugetlb plan: %llu bytes in %llu kB pages is out of range",
		      (unsigned long long)bytes, (unsigned long long)in.page_kb);
		ret = EXIT_USAGE;
		goto out;
	}
	/* refused where the host says so: a live host, or a tree that recorded its pools (its
	 * nodes); a tree without them (an sos report) gets the plan, its pool unknown */
	bool bad_size = (p.notes & HP_NOTE_UNSUPPORTED) && (g->sr.live || h->hugetlb.npools);
	if (bad_size || ((p.notes & HP_NOTE_NO_NODE) && (g->sr.live || in.nnodes))) {
		ret = refuse(h, &in, bad_size);
		goto out;
	}
	if (in.node >= 0 && in.nnodes && !p.scope_mem_known && in.nnodes > 1)
		warnx("hugetlb plan: node %d's MemTotal is not readable: fit not checked", in.node);
	if (g->json)
		ret = cmd_emit_json(hp_to_json(&in, &p));
	else
		hp_render_text(stdout, &in, &p, g->color);
out:
	if (h)
		host_snapshot_free(h);
	free(h);
	return ret;
}

int cmd_hugetlb(struct globals *g, int argc, char **argv)
{
	/* "thpctl hugetlb [global options] plan ..." */
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			wrap_stdout_help(true);
			hugetlb_help(stdout);
			wrap_stdout_help(false);
			return EXIT_OK;
		}
		/* the global options that take a value as the next word (GLOBAL_LONGOPTS) */
		if ((!strcmp(argv[i], "--sysroot") || !strcmp(argv[i], "--root") ||
		     !strcmp(argv[i], "--color")) &&
		    i + 1 < argc)
			i++;
		i++;
	}
	if (i >= argc || strcmp(argv[i], "plan") != 0) {
		if (i < argc)
			warnx("hugetlb: unknown subcommand '%s' (plan)", argv[i]);
		args_usage(hugetlb_help, "hugetlb");
		return EXIT_USAGE;
	}
	/* drop the word "plan"; getopt then sees the options before and after it */
	for (int k = i; k < argc - 1; k++)
		argv[k] = argv[k + 1];
	return plan(g, argc - 1, argv);
}
