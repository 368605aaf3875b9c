// SPDX-License-Identifier: MIT
/* `thpctl lab`: run experiments on this host's kernel, each proven in the same run. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/features.h"
#include "../kernel/thp_settings.h"
#include "../lab/guard.h"
#include "../lab/lab.h"
#include "../render/lab.h"
#include "../render/report.h"
#include "../util/clock.h"
#include "../util/num.h"
#include "args.h"
#include "common.h"
#include "lab_host.h"

static void lab_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl lab EXPERIMENT|quick|all|workloads|list [options]\n\n"
		"Reproduce the classic THP experiments on this host's kernel. Each prints a table\n"
		"(median and min-max over --runs), the proofs read in the same run (the region's\n"
		"smaps, /proc/vmstat and per-size stats deltas, kpageflags folios as root) and a\n"
		"verdict. Progress goes to stderr. Runs on the live host only.\n\n"
		"experiments:\n");
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		fprintf(f, "  %-11s %s%s\n", x->name, x->help,
			x->in_quick ? "" : " (not in quick)");
	fprintf(f, "  quick       warm, small sizes, <= 60 s:");
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		if (x->in_quick)
			fprintf(f, " %s", x->name);
	fprintf(f, "\n  all         every experiment, warm and cold where it matters\n"
		   "  workloads   the real programs' experiments (redis, postgres, ...) and the\n"
		   "              published claims beside this host's figures\n\n"
		   "options:\n"
		   "  --size S[,S...]   region size (bytes; K, M, G suffixes); chase takes a list\n"
		   "  --runs N          repetitions (default 5; quick: 3)\n"
		   "  --state warm|cold|asis\n"
		   "                    warm: pre-fault and unmap S+64M first; cold: wait 6 s so\n"
		   "                    freed memory goes back to the hypervisor; asis: neither\n"
		   "                    (default warm)\n"
		   "  --csv             CSV rows instead of tables\n"
		   "  --report FILE     also an HTML page with a chart and a table per result\n"
		   "  --quick           one experiment at its `lab quick` sizes\n");
	/* each experiment's own options, in table order, once each */
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		for (const struct lab_optdoc *d = x->opts; d < x->opts + LAB_MAX_OPTDOCS && d->flag;
		     d++) {
			bool seen = false;
			for (const struct lab_experiment *y = lab_first(); y != x; y = lab_next(y))
				for (int k = 0; k < LAB_MAX_OPTDOCS && y->opts[k].flag; k++)
					seen |= strcmp(y->opts[k].flag, d->flag) == 0;
			if (seen)
				continue;
			if (strlen(d->flag) >= 17) /* no two blanks after it: its words below it */
				fprintf(f, "  %s\n%20s%s\n", d->flag, "", d->help);
			else
				fprintf(f, "  %-17s %s\n", d->flag, d->help);
		}
	fprintf(f,
		"  --quiet           no progress on stderr\n"
		"  --yes             run experiments that change host-wide settings without\n"
		"                    asking (required when stdin is not a terminal)\n" GLOBAL_HELP
		"\nAs root, before the first host-wide change, lab says what will change, for\n"
		"about how long, and which running processes use or may use THP meanwhile, and\n"
		"asks (--yes: does not ask; without a terminal and without --yes it refuses and\n"
		"changes nothing, exit 2). Experiments advise their own memory or start their\n"
		"programs with a prctl wherever the host setting is not what they test. Changed\n"
		"settings are journalled under /run/thpctl before the first write, and restored\n"
		"at exit, on SIGINT/SIGTERM/SIGHUP, and by the next thpctl command after a\n"
		"SIGKILL. Without root those parts are skipped with the reason.\n");
}

enum {
	OPT_SIZE = OPT_CMD_BASE,
	OPT_RUNS,
	OPT_STATE,
	OPT_CSV,
	OPT_FRAGMENT,
	OPT_RECLAIM,
	OPT_SPARSE,
	OPT_TIMEOUT,
	OPT_SCAN_SLEEP,
	OPT_MPN,
	OPT_STEPS,
	OPT_SIZES,
	OPT_QUIET,
	OPT_QUICK,
	OPT_REPORT,
	OPT_YES,
};

/* What the command line asked for beyond the experiment's options. */
struct lab_args {
	struct lab_opts o;
	bool csv, runs_given;
	bool yes;	    /* --yes: host-wide changes without asking */
	const char *report; /* --report FILE */
};

/* --size A[,B...] into O. Returns 0 or EXIT_USAGE. */
static int parse_sizes(const char *arg, struct lab_opts *o)
{
	char *dup = strdup(arg), *save = NULL;
	o->nsizes = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t b;
		if (o->nsizes == LAB_MAX_SIZES || parse_size(t, &b) || !b) {
			warnx("lab: bad --size '%s' (e.g. 256M or 256M,1G)", arg);
			free(dup);
			return EXIT_USAGE;
		}
		o->sizes[o->nsizes++] = b;
	}
	free(dup);
	o->size = o->nsizes ? o->sizes[0] : 0;
	return 0;
}

/* --sizes 16K,64K (mthp) into O. Returns 0 or EXIT_USAGE. */
static int parse_mthp_sizes(const char *arg, struct lab_opts *o)
{
	char *dup = strdup(arg), *save = NULL;
	o->n_mthp_sizes = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t b;
		if (o->n_mthp_sizes == 16 || parse_size(t, &b) || b < 1024) {
			warnx("lab: bad --sizes '%s' (e.g. 16K,64K)", arg);
			free(dup);
			return EXIT_USAGE;
		}
		o->mthp_sizes_kb[o->n_mthp_sizes++] = b >> 10;
	}
	free(dup);
	if (!o->n_mthp_sizes) {
		warnx("lab: --sizes needs at least one size (e.g. 16K,64K)");
		return EXIT_USAGE;
	}
	return 0;
}

/* --state warm|cold|asis. Returns 0 or EXIT_USAGE. */
static int parse_state(const char *arg, struct lab_opts *o)
{
	for (enum lab_state s = STATE_WARM; s <= STATE_ASIS; s++)
		if (!strcmp(arg, lab_state_name(s))) { /* the names the results print */
			o->state = s;
			o->state_given = true;
			return 0;
		}
	warnx("lab: --state takes warm, cold or asis");
	return EXIT_USAGE;
}

/* The numeric options. Returns 0, EXIT_USAGE, or -1 when C is none of them. */
static int parse_number_opt(int c, const char *arg, struct lab_args *a)
{
	struct lab_opts *o = &a->o;
	long v;
	switch (c) {
	case OPT_RUNS:
		if (str_long(arg, 1, 64, &v))
			return warnx("lab: --runs takes 1..64"), EXIT_USAGE;
		o->runs = (int)v;
		a->runs_given = o->runs_given = true;
		return 0;
	case OPT_TIMEOUT:
		if (str_long(arg, 1, 3600, &v))
			return warnx("lab: --timeout takes 1..3600 seconds"), EXIT_USAGE;
		o->timeout_s = (int)v;
		return 0;
	case OPT_SCAN_SLEEP:
		if (str_long(arg, 0, 600000, &o->scan_sleep_ms))
			return warnx("lab: --scan-sleep takes 0..600000 ms"), EXIT_USAGE;
		return 0;
	case OPT_MPN:
		if (str_long(arg, 0, 1 << 20, &o->max_ptes_none))
			return warnx("lab: bad --max-ptes-none '%s'", arg), EXIT_USAGE;
		return 0;
	case OPT_STEPS:
		if (str_long(arg, 1000, 2000000000L, &v))
			return warnx("lab: --steps takes 1000..2000000000"), EXIT_USAGE;
		o->steps = (uint64_t)v;
		return 0;
	}
	return -1;
}

/* One lab option C. Returns 0, EXIT_USAGE, or -1 when C is not a lab option. */
static int parse_opt(int c, const char *arg, struct lab_args *a)
{
	const struct args_store st[] = {
		ARGS_FLAG(OPT_CSV, &a->csv),	       ARGS_FLAG(OPT_FRAGMENT, &a->o.fragment),
		ARGS_FLAG(OPT_RECLAIM, &a->o.reclaim), ARGS_FLAG(OPT_SPARSE, &a->o.sparse),
		ARGS_FLAG(OPT_QUIET, &a->o.quiet),     ARGS_FLAG(OPT_QUICK, &a->o.quick),
		ARGS_ARG(OPT_REPORT, &a->report),      ARGS_FLAG(OPT_YES, &a->yes)};
	if (args_store(c, arg, st, ARGS_N(st)) == -1)
		return 0;
	switch (c) {
	case OPT_SIZE:
		return parse_sizes(arg, &a->o);
	case OPT_STATE:
		return parse_state(arg, &a->o);
	case OPT_SIZES:
		return parse_mthp_sizes(arg, &a->o);
	}
	return parse_number_opt(c, arg, a);
}

/* parse_opt as args_getopt wants it: -1 taken, -2 not an option of lab's, else the exit code. */
static int lab_opt(int c, const char *arg, void *ctx)
{
	int r = parse_opt(c, arg, ctx);
	return r == 0 ? -1 : r < 0 ? -2 : r;
}

/* The command line into G and A; *WHAT is the experiment, a group or list. -1: go on. */
static int parse_args(struct globals *g, int argc, char **argv, struct lab_args *a,
		      const char **what)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS,
					     OPT_ARG("size", OPT_SIZE),
					     OPT_ARG("runs", OPT_RUNS),
					     OPT_ARG("state", OPT_STATE),
					     OPT_FLAG("csv", OPT_CSV),
					     OPT_FLAG("fragment", OPT_FRAGMENT),
					     OPT_FLAG("reclaim", OPT_RECLAIM),
					     OPT_FLAG("sparse", OPT_SPARSE),
					     OPT_ARG("timeout", OPT_TIMEOUT),
					     OPT_ARG("scan-sleep", OPT_SCAN_SLEEP),
					     OPT_ARG("max-ptes-none", OPT_MPN),
					     OPT_ARG("steps", OPT_STEPS),
					     OPT_ARG("sizes", OPT_SIZES),
					     OPT_FLAG("quiet", OPT_QUIET),
					     OPT_FLAG("quick", OPT_QUICK),
					     OPT_ARG("report", OPT_REPORT),
					     OPT_FLAG("yes", OPT_YES),
					     OPTS_END};
	int c = args_getopt(g, argc, argv, "h", opts, lab_help, lab_opt, a);
	if (c >= 0)
		return c;
	if (optind != argc - 1) {
		warnx("lab: name one experiment, quick, all, workloads or list");
		args_usage(lab_help, "lab");
		return EXIT_USAGE;
	}
	*what = argv[optind];
	return -1;
}

/* `lab list`: the table, as text or JSON. */
static int lab_list(const struct globals *g)
{
	if (g->json) {
		json_t *arr = json_array();
		for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x)) {
			json_t *j = json_object();
			json_put(j, "name", json_str(x->name));
			json_put(j, "help", json_str(x->help));
			json_put(j, "in_quick", json_boolean(x->in_quick));
			json_put(j, "workload", json_boolean(x->workload));
			json_array_append_new(arr, j);
		}
		json_t *root = json_object();
		json_put(root, "experiments", arr);
		return cmd_emit_json_as(root, "list");
	}
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		printf("%-11s %s\n", x->name, x->help);
	return EXIT_OK;
}

/* The host as the experiments see it. */
struct lab_host {
	struct features feat;
	struct thp_settings thp;
	struct lab_ctx ctx;
};

/* Probe the host into H and take the settings guard (root). Returns -1 to go on, or an exit. */
static int host_open(struct globals *g, const struct lab_args *a, const char *what,
		     struct lab_host *h, const struct lab_experiment *const *xs, int nx)
{
	const struct lab_opts *o = &a->o;
	struct features *feat = &h->feat;
	features_probe(&g->sr, feat);
	thp_settings_read(&g->sr, feat->page_size, &h->thp);
	features_from_settings(feat, &h->thp);
	if (!h->thp.present || !feat->pmd_size) {
		warnx("lab: this kernel has no transparent huge pages (no %s)", PATH_THP);
		thp_settings_free(&h->thp);
		return EXIT_FAIL;
	}
	h->ctx = (struct lab_ctx){
		.sr = &g->sr,
		.feat = feat,
		.thp = &h->thp,
		.page_size = feat->page_size,
		.pmd_size = feat->pmd_size,
		.root = geteuid() == 0,
	};
	h->ctx.can_write = h->ctx.root && h->thp.write_err == 0;
	snprintf(h->ctx.no_write, sizeof(h->ctx.no_write), "%s",
		 !h->ctx.root		      ? "needs root"
		 : h->thp.write_err == -EROFS ? "the THP files are read-only here (a container?)"
					      : "the THP files are not writable here");
	/* the kernel takes 0..HPAGE_PMD_NR-1: refuse the rest before anything runs */
	if (o->max_ptes_none >= 0 && feat->page_size > 0 &&
	    (uint64_t)o->max_ptes_none >= feat->pmd_size / (uint64_t)feat->page_size) {
		warnx("lab: --max-ptes-none takes 0..%llu on this kernel",
		      (unsigned long long)(feat->pmd_size / (uint64_t)feat->page_size - 1));
		thp_settings_free(&h->thp);
		return EXIT_USAGE;
	}
	/* before the guard's lock: a question on a terminal must not hold other thpctls up */
	char label[40];
	snprintf(label, sizeof(label), "%s%s", strncmp(what, "lab ", 4) ? "lab " : "", what);
	int rc = h->ctx.can_write ? lab_host_confirm(&g->sr, label, xs, nx, o, a->yes) : -1;
	if (rc >= 0) {
		thp_settings_free(&h->thp);
		return rc;
	}
	if (h->ctx.can_write) {
		int gr = guard_begin(&g->sr, what, g->wait);
		if (gr == -EBUSY)
			snprintf(h->ctx.no_write, sizeof(h->ctx.no_write),
				 "another thpctl, %s, is changing settings (--wait waits for it)",
				 guard_holder());
		else if (gr)
			snprintf(h->ctx.no_write, sizeof(h->ctx.no_write),
				 "setting changes cannot be journalled (%s)",
				 gr == -EIO ? "a killed thpctl's settings could not all be put back"
					    : strerror(-gr));
		if (gr)
			warnx("lab: %s: experiments that change settings are skipped",
			      h->ctx.no_write);
		h->ctx.can_write = gr == 0;
		if (!gr)
			h->ctx.no_write[0] = '\0';
	}
	return -1;
}

/* Where results go: a JSON array, CSV or text. */
#define LAB_OUT_CLAIMS 64

struct lab_out {
	const struct globals *g;
	bool csv;
	json_t *arr;
	int shown;
	int nclaims; /* the claims of every result shown, for `lab workloads` */
	char claim_exp[LAB_OUT_CLAIMS][24];
	struct lab_claim claims[LAB_OUT_CLAIMS];
	struct hbuf *page; /* --report: the page being built, NULL without */
	int npage;	   /* results on it */
	int nskip;	   /* results shown that were skipped, and their names */
	char skipped[256];
};

/* Print or collect R (FIRST: nothing printed before it). */
static void emit(struct lab_out *out, const struct lab_result *r, bool first)
{
	for (int i = 0; i < r->nclaims && out->nclaims < LAB_OUT_CLAIMS; i++, out->nclaims++) {
		snprintf(out->claim_exp[out->nclaims], sizeof(out->claim_exp[0]), "%s",
			 r->experiment);
		out->claims[out->nclaims] = r->claims[i];
	}
	if (out->page)
		report_lab(out->page, r, out->npage++);
	if (out->g->json)
		json_array_append_new(out->arr, lab_to_json(r));
	else if (out->csv)
		lab_render_csv(stdout, r, first);
	else {
		if (!first)
			putchar('\n');
		lab_render_text(stdout, r, out->g->color);
	}
}

/* Run X (and, for `lab all`, again cold). Returns EXIT_OK or EXIT_FAIL. */
/* lab all / quick: several experiments in one run (a missing workload program is then no failure) */
static bool lab_many;

static int run_experiment(const struct lab_experiment *x, const struct lab_ctx *ctx,
			  const struct lab_opts *eo, bool again_cold, struct lab_out *out)
{
	static struct lab_result res;
	int ret = EXIT_OK;
	int rc = lab_run(x, ctx, eo, &res);
	/* a refused or failed run (not a skip for a missing feature) is a failure */
	if (rc || (res.skipped && !res.expected && !(res.optional && lab_many)))
		ret = EXIT_FAIL; /* lab all: a workload whose program is missing is skipped, not a failure */
	emit(out, &res, out->shown == 0);
	out->shown++;
	if (res.skipped) {
		size_t l = strlen(out->skipped);
		snprintf(out->skipped + l, sizeof(out->skipped) - l, "%s%s", l ? ", " : "",
			 res.experiment);
		out->nskip++;
	}
	if (again_cold) {
		struct lab_opts co = *eo;
		co.state = STATE_COLD;
		if (lab_run(x, ctx, &co, &res))
			ret = EXIT_FAIL;
		emit(out, &res, false);
	}
	return ret;
}

/* The host's load average around the whole command (lab_loadavg), for the closing line. */
struct lab_load {
	bool ok;
	double before[3], after[3];
};

/* The --json document around the experiments. Returns EXIT_OK or EXIT_FAIL. */
static int emit_json(const struct lab_host *h, json_t *arr, double wall_ms,
		     const struct lab_load *ld)
{
	json_t *root = json_object(), *k = json_object();
	json_put(k, "release", json_str(h->feat.release));
	json_put(k, "page_size_bytes", json_integer(h->feat.page_size));
	json_put(k, "pmd_size_bytes", json_u64(h->feat.pmd_size));
	json_put(k, "enabled", h->thp.enabled.present ? json_str(h->thp.enabled.selected) : NULL);
	json_put(k, "defrag", h->thp.defrag.present ? json_str(h->thp.defrag.selected) : NULL);
	json_put(root, "kernel", k);
	json_put(root, "root", json_boolean(h->ctx.root));
	json_put(root, "experiments", arr);
	json_put(root, "wall_ms", json_real(wall_ms));
	json_put(root, "load", ld->ok ? lab_load_json(ld->before, ld->after) : NULL);
	return cmd_emit_json(root) ? EXIT_FAIL : EXIT_OK;
}

/* What `thpctl lab WHAT` runs: one experiment, or a group. */
enum lab_group { GROUP_ONE, GROUP_QUICK, GROUP_ALL, GROUP_WORKLOADS };

static const char *const group_name[] = {"", "quick", "all", "workloads"};

/* The --report page: the head and context (this host, WALL0 to now), BODY's sections, the end;
 * written to PATH. BODY is freed. Returns 0, or EXIT_FAIL after a message. */
static int write_page(struct globals *g, const char *path, const char *what, double wall0,
		      struct hbuf *body)
{
	char title[64];
	snprintf(title, sizeof(title), "thpctl lab %s", what);
	struct report_ctx ctx;
	struct report_ctx_store st;
	cmd_report_ctx(g, wall0, cmd_wall_s(), &ctx, &st);
	struct hbuf page = {0};
	report_begin(&page, title, &ctx);
	hb_puts(&page, body->b.p ? body->b.p : "");
	if (body->err)
		page.err = body->err;
	report_end(&page);
	int r = cmd_write_report("lab", path, &page) ? EXIT_FAIL : 0;
	buf_free(&page.b);
	buf_free(&body->b);
	body->err = 0;
	return r;
}

/* Whether group GR runs X. */
static bool in_group(enum lab_group gr, const struct lab_experiment *x)
{
	return gr == GROUP_ALL || (gr == GROUP_QUICK && x->in_quick) ||
	       (gr == GROUP_WORKLOADS && x->workload);
}

/* Run ONE, or every experiment of group GR, and print them. */
static int run_all(struct globals *g, struct lab_args *a, const struct lab_experiment *one,
		   enum lab_group gr, struct lab_host *h)
{
	if (gr == GROUP_QUICK && !a->runs_given)
		a->o.runs = 3;
	if (gr == GROUP_QUICK)
		a->o.quick = true;
	static struct lab_out out;
	static struct hbuf body; /* the sections; the page's head comes when the data is in */
	out = (struct lab_out){.g = g,
			       .csv = a->csv,
			       .arr = g->json ? json_array() : NULL,
			       .page = a->report ? &body : NULL};
	double wall0 = cmd_wall_s();
	int ret = EXIT_OK;
	struct lab_load ld = {0};
	ld.ok = lab_loadavg(ld.before) == 0;
	double t0 = mono_ms(), c0 = lab_cpu_ms();
	lab_many = !one;
	for (const struct lab_experiment *x = one ? one : lab_first(); x;
	     x = one ? NULL : lab_next(x)) {
		if (!one && !in_group(gr, x))
			continue;
		struct lab_opts eo = a->o.quick ? lab_quick_opts(x, &a->o) : a->o;
		bool cold = gr == GROUP_ALL && !a->o.state_given && x->all_cold;
		if (run_experiment(x, &h->ctx, &eo, cold, &out))
			ret = EXIT_FAIL;
	}
	double wall_ms = mono_ms() - t0;
	ld.ok = ld.ok && lab_loadavg(ld.after) == 0;
	if (g->json && emit_json(h, out.arr, wall_ms, &ld))
		ret = EXIT_FAIL;
	if (!g->json && !a->csv && gr == GROUP_WORKLOADS)
		lab_render_claims_table(stdout, (const char(*)[24])out.claim_exp, out.claims,
					out.nclaims, g->color);
	if (!g->json && !a->csv)
		lab_render_closing(stdout,
				   &(struct lab_closing){.name = one ? one->name : group_name[gr],
							 .group = !one,
							 .shown = out.shown,
							 .nskip = out.nskip,
							 .skipped = out.skipped,
							 .wall_s = wall_ms / 1000,
							 .cpu_s = (lab_cpu_ms() - c0) / 1000,
							 .load_before = ld.ok ? ld.before : NULL,
							 .load_after = ld.ok ? ld.after : NULL});
	if (out.page && write_page(g, a->report, one ? one->name : group_name[gr], wall0, &body))
		ret = EXIT_FAIL;
	if (guard_restore())
		ret = EXIT_FAIL;
	guard_end();
	return ret;
}

int cmd_lab(struct globals *g, int argc, char **argv)
{
	struct lab_args a = {.o = {.runs = 5,
				   .state = STATE_WARM,
				   .timeout_s = 60,
				   .scan_sleep_ms = -1,
				   .max_ptes_none = -1}};
	const char *what = NULL;
	int r = parse_args(g, argc, argv, &a, &what);
	if (r >= 0)
		return r;
	enum lab_group gr = GROUP_ONE;
	for (int i = GROUP_QUICK; i <= GROUP_WORKLOADS; i++)
		if (!strcmp(what, group_name[i]))
			gr = (enum lab_group)i;
	if (!strcmp(what, "list"))
		return lab_list(g);
	const struct lab_experiment *one = gr != GROUP_ONE ? NULL : lab_find(what);
	if (gr == GROUP_ONE && !one) {
		warnx("lab: unknown experiment '%s' (thpctl lab list)", what);
		return EXIT_USAGE;
	}
	if (a.o.nsizes > 1 && (!one || !one->size_list)) {
		warnx("lab: only chase takes a list of sizes");
		return EXIT_USAGE;
	}
	if (g->json && a.csv) {
		warnx("lab: --json and --csv exclude each other");
		return EXIT_USAGE;
	}
	if ((r = cmd_setup_live(
		     g, "lab runs experiments on the live host; --sysroot is not supported")))
		return r;
	static struct lab_host h;
	char label[32];
	snprintf(label, sizeof(label), "lab %s", group_name[gr]);
	if (gr == GROUP_QUICK)
		a.o.quick = true;
	const struct lab_experiment *xs[64];
	int nx = 0;
	for (const struct lab_experiment *x = one ? one : lab_first(); x && nx < 64;
	     x = one ? NULL : lab_next(x))
		if (one || in_group(gr, x))
			xs[nx++] = x;
	r = host_open(g, &a, gr == GROUP_ONE ? what : label, &h, xs, nx);
	if (r >= 0)
		return r;
	r = run_all(g, &a, one, gr, &h);
	thp_settings_free(&h.thp);
	return r;
}
