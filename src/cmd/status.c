// SPDX-License-Identifier: MIT
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/findings.h"
#include "../model/rates.h"
#include "../render/status.h"
#include "args.h"
#include "common.h"

static void status_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl status [--brief] [--sample S] [--json] [--sysroot DIR]\n\n"
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
		"                  host_anon_huge_pages_kb, pmd_fault_success_since_boot)\n"
		"  --sample S      read the host twice S seconds apart (1 to 60) and add\n"
		"                  what moved over the last S s: khugepaged's share of a\n"
		"                  CPU and the THP counters per second (live host only;\n"
		"                  not with --brief)\n" GLOBAL_HELP);
}

enum { OPT_BRIEF = OPT_CMD_BASE, OPT_SAMPLE };

struct status_opts {
	bool brief;
	long sample;
};

static int status_opt(int c, const char *arg, void *ctx)
{
	struct status_opts *o = ctx;
	if (c == OPT_BRIEF) {
		o->brief = true;
		return -1;
	}
	if (c != OPT_SAMPLE)
		return -2;
	int r = args_long(arg, 1, 60, &o->sample, "status: bad --sample '%s' (1 to 60 seconds)",
			  arg);
	return r ? r : -1;
}

/* Sleep S seconds; a progress line on stderr when it is longer than a second. */
static void wait_sample(long s)
{
	bool tty = isatty(STDERR_FILENO);
	if (s > 1 && !tty)
		fprintf(stderr, "thpctl: status: sampling for %ld s...\n", s);
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	for (long left = s; left > 0; left--) {
		if (s > 1 && tty)
			fprintf(stderr, "\rthpctl: status: sampling, %ld s left ", left);
		t.tv_sec++;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
			;
	}
	if (s > 1 && tty)
		fprintf(stderr, "\r%*s\r", 40, "");
}

/* Two light snapshots (counters and khugepaged) S seconds apart into OUT. */
static int sample_recent(const struct sysroot *sr, long s, struct host_recent *out)
{
	struct host_reader rd;
	struct host_snapshot a = {0}, b = {0};
	host_reader_init(&rd, sr, HS_KHUGEPAGED, 0);
	int r = host_snapshot_next(&rd, &a);
	if (!r) {
		wait_sample(s);
		r = host_snapshot_next(&rd, &b);
	}
	if (!r)
		r = host_recent_derive(&a, &b, out);
	host_snapshot_free(&a);
	host_snapshot_free(&b);
	host_reader_free(&rd);
	return r;
}

int cmd_status(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_FLAG("brief", OPT_BRIEF),
					     OPT_ARG("sample", OPT_SAMPLE), OPTS_END};
	struct status_opts so = {0};
	int c = args_getopt(g, argc, argv, "h", opts, status_help, status_opt, &so);
	bool brief = so.brief;
	long sample = so.sample;
	if ((c = args_no_operand(c, "status", argc, argv)) >= 0)
		return c;
	if (brief && sample) {
		warnx("status: --brief has no section for --sample's rates: use one or the other "
		      "(the full report shows the sample)");
		return EXIT_USAGE;
	}
	int r = cmd_setup(g);
	if (r)
		return r;
	if (sample && !g->sr.live) {
		warnx("status: --sample reads the live host twice; a recorded tree does not move");
		return EXIT_USAGE;
	}
	struct host_recent recent;
	if (sample && sample_recent(&g->sr, sample, &recent)) {
		warnx("status: --sample: out of memory, or the clock did not move");
		return EXIT_FAIL;
	}
	struct host_snapshot *h = cmd_host_snapshot(g);
	struct host_derived d;
	struct findings fs;
	if (!h) {
		r = EXIT_FAIL;
		goto out;
	}
	if (cmd_nothing_readable(g, "status", h)) {
		r = EXIT_FAIL;
		goto out;
	}
	host_derive(h, &d);
	d.recent = sample ? &recent : NULL;
	findings_evaluate(h, &d, &fs);
	if (g->json)
		r = brief ? cmd_emit_json_as(status_brief_json(h, &d, &fs), "brief")
			  : cmd_emit_json(status_to_json(h, &d, &fs));
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
