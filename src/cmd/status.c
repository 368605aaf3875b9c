// SPDX-License-Identifier: MIT
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "../model/findings.h"
#include "../render/status.h"
#include "args.h"
#include "common.h"

static void status_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl status [--brief] [--json] [--sysroot DIR]\n\n"
		"Audit the host's THP state. First a verdict: the worst finding of each\n"
		"area (latency, memory, fragmentation, khugepaged, hugetlb, visibility,\n"
		"access), one line each with the thpctl command that shows more; then kernel\n"
		"capabilities, every policy knob (with per-size 'inherit' resolved), usage\n"
		"now, counters since boot and every finding with its evidence and its fix\n"
		"(thpctl set KEY=VALUE, and thpctl persist to keep it across boots).\n"
		"Read-only. Capability probes (MADV_COLLAPSE, PR_THP_DISABLE_EXCEPT_ADVISED)\n"
		"run on the live host only and change nothing. On a terminal, tables fit its\n"
		"width (COLUMNS, else the terminal's): names are cut with '~', numbers never.\n\n"
		"options:\n"
		"  --brief         the verdict and a few key settings only (with --json: the\n"
		"                  reduced object: brief, partial, missing, verdict, settings,\n"
		"                  host_anon_huge_pages_kb, pmd_fault_success_since_boot)\n" GLOBAL_HELP);
}

enum { OPT_BRIEF = OPT_CMD_BASE };

int cmd_status(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS, {"brief", no_argument, NULL, OPT_BRIEF}, {NULL, 0, NULL, 0}};
	bool brief = false;
	int c = args_getopt(g, argc, argv, "h", opts, status_help, args_one_flag, &brief);
	if (c >= 0)
		return c;
	if (optind < argc) {
		warnx("status: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	int r = cmd_setup(g);
	if (r)
		return r;
	struct host_snapshot *h = calloc(1, sizeof(*h));
	struct host_derived d;
	struct findings fs;
	if (!h || host_snapshot_read(&g->sr, h)) {
		warnx("out of memory");
		r = EXIT_FAIL;
		goto out;
	}
	if (!h->has_vmstat && !h->has_meminfo && !h->thp.present) {
		/* no report built on nothing: it would claim "THP not built in" */
		warnx("nothing readable under %s: not a Linux /proc and /sys tree?", g->sr.path);
		r = EXIT_FAIL;
		goto out;
	}
	host_derive(h, &d);
	findings_evaluate(h, &d, &fs);
	if (g->json)
		r = cmd_emit_json(brief ? status_brief_json(h, &d, &fs)
					: status_to_json(h, &d, &fs));
	else if (brief)
		status_render_brief(stdout, h, &d, &fs, g->color);
	else
		status_render_text(stdout, h, &d, &fs, g->color);
out:
	if (h)
		host_snapshot_free(h);
	free(h);
	return r;
}
