// SPDX-License-Identifier: MIT
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "../model/findings.h"
#include "../render/status.h"
#include "common.h"

static void status_help(FILE *f)
{
	fprintf(f, "usage: thpctl status [--json] [--sysroot DIR]\n\n"
		   "Audit the host's THP state: kernel capabilities, every policy knob (with\n"
		   "per-size 'inherit' resolved), usage now, counters since boot and findings.\n"
		   "Read-only. Capability probes (MADV_COLLAPSE, PR_THP_DISABLE_EXCEPT_ADVISED)\n"
		   "run on the live host only and change nothing.\n\noptions:\n" GLOBAL_HELP);
}

int cmd_status(struct globals *g, int argc, char **argv)
{
	int c = cmd_global_opts_only(g, argc, argv, status_help);
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
		r = cmd_emit_json(status_to_json(h, &d, &fs));
	else
		status_render_text(stdout, h, &d, &fs, g->color);
out:
	if (h)
		host_snapshot_free(h);
	free(h);
	return r;
}
