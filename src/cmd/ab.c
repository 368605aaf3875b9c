// SPDX-License-Identifier: MIT
/*
 * `thpctl ab [--modes LIST] [--runs N] ... -- CMD [ARGS]`: run CMD under THP
 * modes, interleaved, and say with an interval whether a mode helps. The run
 * loop and the proofs are here and in ab_run.c; model/ab.c decides, render/ab.c
 * writes.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/ab.h"
#include "../kernel/pmu.h"
#include "../kernel/thp_settings.h"
#include "../kernel/virt.h"
#include "../model/pmu.h"
#include "../render/ab.h"
#include "../render/pmu.h"
#include "../render/report.h"
#include "../util/esc.h"
#include "../util/num.h"
#include "../util/wrap.h"
#include "ab_int.h"
#include "args.h"

static void ab_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl ab [--modes LIST | --mode M...] [--sweep] [--runs N] [--warmup N]\n"
		"                 [--metric NAME+=REGEX]... [--timeout S] [--csv] [--report FILE]\n"
		"                 [--json] -- CMD [ARGS]\n\n"
		"Run CMD under each THP mode, interleaved (A B C A B C ...), and compare each\n"
		"mode with the first: wall time with an interval of at least 95%%\n"
		"(Hodges-Lehmann estimate of the ratio, exact Mann-Whitney bounds; the level\n"
		"it has is stated: 96.8%% at 5 runs per mode), user/sys time, peak RSS (CMD's\n"
		"own, as time(1) reports it) and minor faults (wait4), peak AnonHugePages of\n"
		"its process tree (smaps_rollup, sampled), and host-wide deltas of\n"
		"thp_fault_alloc, thp_fault_fallback, compact_stall, thp_split_pmd,\n"
		"thp_collapse_alloc. A mode whose AnonHugePages contradicts its intent is\n"
		"flagged. An interval decides; without one (too few runs) or when it holds\n"
		"both no change and one beyond 3%%, the verdict says so.\n\n"
		"modes (default off,glibc,host):\n"
		"  host             no change: the host's settings as they are\n"
		"  off              prctl(PR_SET_THP_DISABLE) for CMD and its children\n"
		"  except-advised   prctl PR_THP_DISABLE_EXCEPT_ADVISED: THP only where CMD\n"
		"                   asks (6.18+; skipped with the reason elsewhere)\n"
		"  glibc            GLIBC_TUNABLES=glibc.malloc.hugetlb=1: glibc malloc\n"
		"                   madvises its heap (other allocators ignore it)\n"
		"  env:K=V          CMD with K=V in its environment (MALLOC_CONF=thp:always,\n"
		"                   MIMALLOC_LARGE_OS_PAGES=1, ...)\n"
		"  host:KEY=VALUE[,KEY=VALUE]  host settings for each run of this mode, as\n"
		"                   `thpctl set` takes them (root): journalled, put back after\n"
		"                   every run, on signals and after a SIGKILL by the next thpctl\n"
		"  sweep:P          CMD with LD_PRELOAD=thpctl-sweep.so, THPCTL_SWEEP_PERCENT=P\n"
		"                   (0..100): P%% of the 2 MiB slots of its big anonymous\n"
		"                   regions (mmap, malloc blocks >= 2 MiB) MADV_HUGEPAGE, the\n"
		"                   rest MADV_NOHUGEPAGE\n\n"
		"options:\n"
		"  --modes LIST     comma-separated modes, each once; a host: mode takes the\n"
		"                   KEY=VALUE pieces after it up to the next mode\n"
		"                   (host:enabled=always,defrag=always,off: two modes)\n"
		"  --mode M         add one mode (repeatable)\n"
		"  --sweep          the modes sweep:0,25,50,75,100 (after any --modes), and a\n"
		"                   least-squares fit of wall time against the measured\n"
		"                   huge-backed fraction (peak AnonHugePages / peak Anonymous of\n"
		"                   the tree): the fitted change from 0%% to 100%% huge-backed\n"
		"                   with a 95%% interval, the program's sensitivity to huge-page\n"
		"                   backing on this host (translation and page faults), no PMU;\n"
		"                   a statically linked CMD (the helper cannot load): the modes\n"
		"                   host:enabled=never, madvise and always instead (root)\n"
		"  --runs N         measured runs per mode (default 5, 1..%d)\n"
		"  --warmup N       discarded runs per mode first (default 1, 0..%d)\n"
		"  --metric NAME+=REGEX  a number from CMD's output (its first match of the\n"
		"                   extended REGEX: the first group, else the match): + higher\n"
		"                   is better, - lower (at most %d); a mode's value is unknown,\n"
		"                   and said why, when no run's output gave a number\n"
		"  --timeout S      kill a run after S whole seconds (default 600, 1..%d): the\n"
		"                   mode stops there\n"
		"  --csv            one line per run instead of the table\n"
		"  --report FILE    also an HTML page: wall time per run and mode, the ratios\n"
		"                   with their intervals, each chart with its numbers\n" GLOBAL_HELP
		"--sysroot is a usage error here: ab runs CMD on this host.\n"
		"\nExit status: 0 every mode ran, 1 a run failed (its log tail is shown), 2 usage.\n",
		AB_MAX_RUNS, AB_MAX_WARMUP, AB_MAX_METRICS, AB_MAX_TIMEOUT_S);
}

enum {
	OPT_MODES = OPT_CMD_BASE,
	OPT_MODE,
	OPT_RUNS,
	OPT_WARMUP,
	OPT_METRIC,
	OPT_TIMEOUT,
	OPT_CSV,
	OPT_REPORT,
	OPT_SWEEP
};

static int add_mode(struct ab_ctx *c, const char *word)
{
	if (c->nmodes >= AB_MAX_MODES) {
		warnx("ab: at most %d modes", AB_MAX_MODES);
		return EXIT_USAGE;
	}
	char b[160];
	/* a mode's name is printed as it is in the text and the report: no control byte in it */
	for (const unsigned char *p = (const unsigned char *)word; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			warnx("ab: mode '%s' holds a control character (shown escaped): a mode's "
			      "name is printed in the result, so it cannot hold one",
			      esc_buf(b, sizeof(b), word));
			return EXIT_USAGE;
		}
	if (ab_mode_parse(word, &c->modes[c->nmodes])) {
		warnx("ab: unknown mode '%s' (host, off, except-advised, glibc, env:K=V, host:KEY=VALUE, sweep:0..100)",
		      esc_buf(b, sizeof(b), word));
		return EXIT_USAGE;
	}
	/* a mode twice would be compared with itself: one set of runs per mode */
	for (int i = 0; i < c->nmodes; i++)
		if (!strcmp(c->modes[i].name, c->modes[c->nmodes].name)) {
			warnx("ab: mode '%s' given twice (each mode runs once, --runs N times)",
			      esc_buf(b, sizeof(b), word));
			return EXIT_USAGE;
		}
	c->nmodes++;
	return -1;
}

/*
 * --sweep's points: sweep:0..100 through the LD_PRELOAD helper; for a statically
 * linked CMD, which the helper cannot reach, the host settings enabled=never,
 * madvise and always instead (root, journalled like every host: mode), their
 * fractions whatever the kernel gives. -1, or an exit status.
 */
static int add_sweep_modes(struct ab_ctx *c)
{
	static const char *const helper[] = {"sweep:0",	 "sweep:25",  "sweep:50",
					     "sweep:75", "sweep:100", NULL};
	static const char *const settings[] = {"host:enabled=never", "host:enabled=madvise",
					       "host:enabled=always", NULL};
	bool by_settings = ab_cmd_static(c);
	if (by_settings && geteuid() != 0) {
		char name[256];
		warnx("ab --sweep: %s is statically linked, so the LD_PRELOAD helper cannot steer it; "
		      "its sweep by host settings (enabled=never, madvise, always) needs root",
		      esc_buf(name, sizeof(name), c->cmd[0]));
		return EXIT_FAIL;
	}
	for (const char *const *w = by_settings ? settings : helper; *w; w++) {
		int r = add_mode(c, *w);
		if (r >= 0)
			return r;
		c->modes[c->nmodes - 1].sweep_point = true;
	}
	return -1;
}

static int add_metric(struct ab_ctx *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (c->nmetrics >= AB_MAX_METRICS) {
		warnx("ab: at most %d --metric", AB_MAX_METRICS);
		return EXIT_USAGE;
	}
	struct ab_metric *m = &c->metrics[c->nmetrics];
	size_t nl = eq && eq > arg ? (size_t)(eq - arg - 1) : 0;
	bool name_ok =
		nl >= 1 && nl < sizeof(m->name) && (eq[-1] == '+' || eq[-1] == '-') &&
		strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.") >=
			nl;
	if (!name_ok || !eq[1]) {
		warnx("ab: --metric takes NAME+=REGEX (higher is better) or NAME-=REGEX (lower is "
		      "better), NAME of letters, digits, '_' and '.', at most %zu",
		      sizeof(m->name) - 1);
		return EXIT_USAGE;
	}
	if (strlen(eq + 1) >= sizeof(m->regex)) {
		warnx("ab: --metric: a REGEX of at most %zu bytes", sizeof(m->regex) - 1);
		return EXIT_USAGE;
	}
	memcpy(m->name, arg, nl);
	m->name[nl] = '\0';
	for (int k = 0; k < c->nmetrics; k++)
		if (!strcmp(c->metrics[k].name, m->name)) {
			warnx("ab: --metric %s given twice", m->name);
			return EXIT_USAGE;
		}
	m->higher_better = eq[-1] == '+';
	snprintf(m->regex, sizeof(m->regex), "%s", eq + 1);
	if (ab_metric_compile(c, c->nmetrics)) {
		char b[200];
		warnx("ab: --metric %s: not an extended regular expression: %s", m->name,
		      esc_buf(b, sizeof(b), eq + 1));
		return EXIT_USAGE;
	}
	c->nmetrics++;
	return -1;
}

static int ab_opt(int o, const char *arg, void *ctx)
{
	struct ab_ctx *c = ctx;
	const struct args_store st[] = {ARGS_FLAG(OPT_CSV, &c->csv),
					ARGS_ARG(OPT_REPORT, &c->report),
					ARGS_FLAG(OPT_SWEEP, &c->sweep)};
	if (args_store(o, arg, st, ARGS_N(st)) == -1)
		return -1;
	char b[64];
	switch (o) {
	case OPT_MODES: {
		static char words[AB_MAX_MODES][AB_NAME_LEN];
		int n = ab_modes_split(arg, words, AB_MAX_MODES);
		if (n == -E2BIG) {
			warnx("ab: at most %d modes", AB_MAX_MODES);
			return EXIT_USAGE;
		}
		if (n < 0) {
			char lb[160];
			warnx("ab: --modes '%s': a comma-separated list of modes, none of them empty "
			      "(host, off, except-advised, glibc, env:K=V, host:KEY=VALUE, sweep:0..100)",
			      esc_buf(lb, sizeof(lb), arg));
			return EXIT_USAGE;
		}
		for (int k = 0; k < n; k++) {
			int r = add_mode(c, words[k]);
			if (r >= 0)
				return r;
		}
		return -1;
	}
	case OPT_MODE:
		return add_mode(c, arg);
	case OPT_RUNS:
		return args_long(
			       arg, 1, AB_MAX_RUNS, &c->runs,
			       "ab: --runs takes a whole number of runs per mode, 1..%d, not '%s'",
			       AB_MAX_RUNS, esc_buf(b, sizeof(b), arg))
			       ? EXIT_USAGE
			       : -1;
	case OPT_WARMUP:
		return args_long(
			       arg, 0, AB_MAX_WARMUP, &c->warmup,
			       "ab: --warmup takes a whole number of runs per mode, 0..%d, not '%s'",
			       AB_MAX_WARMUP, esc_buf(b, sizeof(b), arg))
			       ? EXIT_USAGE
			       : -1;
	case OPT_TIMEOUT:
		return args_long(arg, 1, AB_MAX_TIMEOUT_S, &c->timeout_s,
				 "ab: --timeout takes whole seconds, 1..%d, not '%s'",
				 AB_MAX_TIMEOUT_S, esc_buf(b, sizeof(b), arg))
			       ? EXIT_USAGE
			       : -1;
	case OPT_METRIC:
		return add_metric(c, arg);
	default:
		return -2;
	}
}

/*
 * dTLB counters for the command (issue 26): "no PMU" and the setting that
 * exposes one for this environment, or that counters exist (not counted per
 * mode yet). Into F as a line, into DOC (may be NULL) as "pmu".
 */
static void ab_pmu_note(const struct sysroot *sr, FILE *f, json_t *doc)
{
	struct virt_info vi;
	virt_read(sr, &vi);
	int err = pmu_probe();
	char line[320];
	render_pmu_line(line, sizeof(line), err, vi.env, NULL, false);
	if (f) {
		char head[96];
		const char *fix = render_pmu_fix(pmu_fix_of(pmu_state_of(err), vi.env));
		render_pmu_state(head, sizeof(head), err);
		fprintf(f, "dTLB: %s\n%s%s%s", head, fix[0] ? "  to get one: " : "", fix,
			fix[0] ? "\n" : "");
	}
	if (!doc)
		return;
	json_t *o = json_object();
	enum pmu_state st = pmu_state_of(err);
	json_object_set_new(o, "state",
			    json_string(st == PMU_COUNTS   ? "available"
					: st == PMU_NONE   ? "none"
					: st == PMU_DENIED ? "denied"
							   : "failed"));
	json_object_set_new(o, "text", json_string(line));
	json_object_set_new(doc, "pmu", o);
}

/* The --report page of REP (runs from T0 to T1, s since the epoch) into C's file. Returns
 * EXIT_OK or EXIT_FAIL (after a message). */
static int ab_write_report(const struct ab_ctx *c, const struct ab_report *rep, double t0,
			   double t1)
{
	struct hbuf page = {0};
	struct report_ctx ctx;
	struct report_ctx_store st;
	cmd_report_ctx(c->g, t0, t1, &ctx, &st);
	report_begin(&page, "thpctl ab", &ctx);
	report_ab(&page, rep);
	report_end(&page);
	int r = cmd_write_report("ab", c->report, &page);
	buf_free(&page.b);
	return r;
}

int cmd_ab(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS,
					     OPT_ARG("modes", OPT_MODES),
					     OPT_ARG("mode", OPT_MODE),
					     OPT_ARG("runs", OPT_RUNS),
					     OPT_ARG("warmup", OPT_WARMUP),
					     OPT_ARG("metric", OPT_METRIC),
					     OPT_ARG("timeout", OPT_TIMEOUT),
					     OPT_FLAG("csv", OPT_CSV),
					     OPT_ARG("report", OPT_REPORT),
					     OPT_FLAG("sweep", OPT_SWEEP),
					     OPTS_END};
	static struct ab_ctx c;
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.runs = 5;
	c.warmup = 1;
	c.timeout_s = 600;
	int r = args_getopt(g, argc, argv, "+h", opts, ab_help, ab_opt, &c);
	if (r >= 0)
		goto out;
	r = EXIT_USAGE;
	if (optind >= argc) {
		warnx("ab: no command given (thpctl ab -- CMD ARGS)");
		goto out;
	}
	if (c.csv && g->json) {
		warnx("ab: --csv and --json are separate outputs");
		goto out;
	}
	c.cmd = argv + optind;
	if (c.sweep && (r = add_sweep_modes(&c)) >= 0)
		goto out;
	r = EXIT_USAGE;
	if (!c.nmodes)
		for (const char *const *w = (const char *const[]){"off", "glibc", "host", NULL}; *w;
		     w++)
			add_mode(&c, *w);
	if ((r = cmd_setup_live(g, "ab: runs a command on this host: not with --sysroot")))
		goto out;
	if ((r = ab_prepare(&c)) >= 0)
		goto out;
	uint64_t pmd_kb = thp_pmd_kb(&g->sr);
	for (int i = 0; i < c.nmodes; i++)
		c.modes[i].pmd_kb = pmd_kb;
	double t0 = cmd_wall_s();
	r = ab_loop(&c);
	double t1 = cmd_wall_s();
	static struct ab_summary s[AB_MAX_MODES];
	ab_summarize(c.modes, c.nmodes, c.nmetrics, s);
	static struct ab_sweep sw;
	ab_sweep_fit(c.modes, c.nmodes, &sw);
	struct ab_report rep = {.modes = c.modes,
				.sum = s,
				.n = c.nmodes,
				.metrics = c.metrics,
				.nmetrics = c.nmetrics,
				.cmd = c.cmd,
				.runs = (int)c.runs,
				.warmup = (int)c.warmup,
				.timeout_s = c.timeout_s,
				.width = wrap_stdout_width(),
				.sweep = &sw};
	if (g->json) {
		json_t *doc = ab_to_json(&rep);
		ab_pmu_note(&g->sr, NULL, doc);
		int j = cmd_emit_json(doc);
		if (j)
			r = j;
	} else if (c.csv) {
		ab_render_csv(stdout, &rep);
	} else {
		ab_render_text(stdout, &rep, g->color);
		ab_pmu_note(&g->sr, stdout, NULL);
	}
	if (c.report && ab_write_report(&c, &rep, t0, t1))
		r = EXIT_FAIL;
out:
	ab_ctx_free(&c);
	return r;
}
