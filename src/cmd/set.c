// SPDX-License-Identifier: MIT
/* `thpctl set KEY=VALUE...`: validate all, write all through the journal, or none. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../render/control.h"
#include "args.h"
#include "common.h"
#include "control.h"

static void set_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl set KEY=VALUE... [--dry-run] [--json]\n\n"
		"Change THP settings with the kernel's names, relative to\n" THP_DIR_ABS "/:\n"
		"  enabled, defrag, shmem_enabled, use_zero_page, shrink_underused,\n"
		"  khugepaged/<knob> (max_ptes_none, pages_to_scan, scan_sleep_millisecs, ...),\n"
		"  hugepages-<size>kB/enabled, hugepages-<size>kB/shmem_enabled.\n\n"
		"Every value is checked against what this kernel offers before anything is\n"
		"written (choice files: the words the file lists; max_ptes_*: 0..HPAGE_PMD_NR-1;\n"
		"switches: 0/1; others: unsigned integers). Then each old value is journalled\n"
		"under /run/thpctl before its file is written and read back; if one write fails\n"
		"the ones already written are put back (exit 1). A set killed halfway is rolled\n"
		"back by the next thpctl command; a completed set stays (`thpctl snapshot\n"
		"restore FILE` is the way back). Needs root.\n\n"
		"options:\n"
		"  --dry-run       print the equivalent shell lines, write nothing (no root\n"
		"                  needed)\n" GLOBAL_HELP
		"\nExit status: 0 done, 1 not root or a write failed (rolled back), 2 a bad\n"
		"key or value (nothing written).\n");
}

int cmd_set(struct globals *g, int argc, char **argv)
{
	bool dry = false;
	int c = args_dry_run(g, argc, argv, set_help, &dry);
	if (c >= 0)
		return c;
	if (optind >= argc) {
		warnx("set: give at least one KEY=VALUE (e.g. thpctl set defrag=defer+madvise)");
		return EXIT_USAGE;
	}
	int r = cmd_setup(g);
	if (r)
		return r;
	static struct thp_knobs k;
	static struct settings_plan p;
	uint64_t pmd_nr;
	if ((r = control_read_knobs(g, "set", &k, &pmd_nr)))
		return r;
	plan_init(&p);
	for (int i = optind; i < argc; i++)
		plan_add_arg(&p, &k, pmd_nr, argv[i]);
	if (p.nbad) {
		control_report_notes("set", &p, false);
		warnx("set: nothing written");
		/* refused before writing: no document (docs/json.md). A knob whose file cannot
		 * be read is the host's fault, not the arguments': exit 1, no --help hint */
		bool usage = false;
		for (int i = 0; i < p.nbad; i++)
			usage |= p.bad[i].why != PN_UNREADABLE;
		if (!usage)
			args_no_hint();
		return usage ? EXIT_USAGE : EXIT_FAIL;
	}
	int done = control_execute(g, "set", &p, dry, &r);
	if (done >= 0)
		return done;
	/* a write was attempted: show how each entry ended */
	if (r == EXIT_OK || plan_any_failed(&p))
		plan_render_text(stdout, &p, g->color);
	return r;
}
