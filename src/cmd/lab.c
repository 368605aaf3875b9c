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
#include "../util/clock.h"
#include "../util/num.h"
#include "common.h"

static void lab_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl lab EXPERIMENT|quick|all|list [options]\n\n"
		"Reproduce the classic THP experiments on this host's kernel. Each prints a table\n"
		"(median and min-max over --runs), the proofs read in the same run (the region's\n"
		"smaps, /proc/vmstat and per-size stats deltas, kpageflags folios as root) and a\n"
		"verdict. Progress goes to stderr. Runs on the live host only.\n\n"
		"experiments:\n");
	for (size_t i = 0; i < lab_nexperiments; i++)
		fprintf(f, "  %-11s %s%s\n", lab_experiments[i].name, lab_experiments[i].help,
			lab_experiments[i].in_quick ? "" : " (not in quick)");
	fprintf(f,
		"  quick       warm, small sizes, <= 60 s: touch sparse chase fork faults split collapse mthp\n"
		"  all         every experiment, warm and cold where it matters\n\n"
		"options:\n"
		"  --size S[,S...]   region size (bytes; K, M, G suffixes); chase takes a list\n"
		"  --runs N          repetitions (default 5; quick: 3)\n"
		"  --state warm|cold|asis  warm: pre-fault and unmap S+64M first; cold: wait 6 s so\n"
		"                    freed memory goes back to the hypervisor; asis: neither (default warm)\n"
		"  --csv             CSV rows instead of tables\n"
		"  --fragment        faults/fallback: run under the fragmenter (root)\n"
		"  --reclaim         split: then run the shrinkers and show the split complete (root)\n"
		"  --sparse          collapse: 1 page in 512 present\n"
		"  --timeout S       khugepaged: give up after S seconds (default 60)\n"
		"  --scan-sleep MS   khugepaged: lower scan_sleep_millisecs for the run (root)\n"
		"  --max-ptes-none N khugepaged: run again with this max_ptes_none (root)\n"
		"  --steps N         chase: dependent loads per measurement (default 20M; quick: 4M)\n"
		"  --sizes LIST      mthp: sizes to try, e.g. 16K,64K (default: every size offered)\n"
		"  --quiet           no progress on stderr\n" GLOBAL_HELP
		"\nAs root, host settings an experiment changes are announced, journalled under\n"
		"/run/thpctl before the first write, and restored at exit, on SIGINT/SIGTERM/SIGHUP,\n"
		"and by the next thpctl command after a SIGKILL. Without root those parts are skipped\n"
		"with the reason.\n");
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
};

static int run_one(const struct lab_experiment *x, const struct lab_ctx *ctx,
		   const struct lab_opts *o, struct lab_result *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->experiment, sizeof(r->experiment), "%s", x->name);
	snprintf(r->state, sizeof(r->state), "%s", lab_state_name(o->state));
	r->runs = o->runs;
	double t0 = mono_ms();
	int ret = x->fn(ctx, o, r);
	r->wall_ms = mono_ms() - t0;
	/* whatever an experiment changed on the host goes back now, not only at exit */
	if (guard_restore())
		ret = -EIO;
	return ret;
}

int cmd_lab(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS,
		{"size", required_argument, NULL, OPT_SIZE},
		{"runs", required_argument, NULL, OPT_RUNS},
		{"state", required_argument, NULL, OPT_STATE},
		{"csv", no_argument, NULL, OPT_CSV},
		{"fragment", no_argument, NULL, OPT_FRAGMENT},
		{"reclaim", no_argument, NULL, OPT_RECLAIM},
		{"sparse", no_argument, NULL, OPT_SPARSE},
		{"timeout", required_argument, NULL, OPT_TIMEOUT},
		{"scan-sleep", required_argument, NULL, OPT_SCAN_SLEEP},
		{"max-ptes-none", required_argument, NULL, OPT_MPN},
		{"steps", required_argument, NULL, OPT_STEPS},
		{"sizes", required_argument, NULL, OPT_SIZES},
		{"quiet", no_argument, NULL, OPT_QUIET},
		{NULL, 0, NULL, 0},
	};
	struct lab_opts o = {.runs = 5,
			     .state = STATE_WARM,
			     .timeout_s = 60,
			     .scan_sleep_ms = -1,
			     .max_ptes_none = -1};
	bool csv = false, runs_given = false;
	int c;
	long v;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (global_opt(g, c, optarg))
			continue;
		switch (c) {
		case 'h':
			lab_help(stdout);
			return EXIT_OK;
		case OPT_SIZE: {
			char *dup = strdup(optarg), *save = NULL;
			o.nsizes = 0;
			for (char *t = strtok_r(dup, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				uint64_t b;
				if (o.nsizes == LAB_MAX_SIZES || parse_size(t, &b) || !b) {
					warnx("lab: bad --size '%s' (e.g. 256M or 256M,1G)",
					      optarg);
					free(dup);
					return EXIT_USAGE;
				}
				o.sizes[o.nsizes++] = b;
			}
			free(dup);
			o.size = o.nsizes ? o.sizes[0] : 0;
			break;
		}
		case OPT_RUNS:
			if (str_long(optarg, 1, 64, &v)) {
				warnx("lab: --runs takes 1..64");
				return EXIT_USAGE;
			}
			o.runs = (int)v;
			runs_given = true;
			break;
		case OPT_STATE:
			if (!strcmp(optarg, "warm"))
				o.state = STATE_WARM;
			else if (!strcmp(optarg, "cold"))
				o.state = STATE_COLD;
			else if (!strcmp(optarg, "asis"))
				o.state = STATE_ASIS;
			else {
				warnx("lab: --state takes warm, cold or asis");
				return EXIT_USAGE;
			}
			o.state_given = true;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case OPT_FRAGMENT:
			o.fragment = true;
			break;
		case OPT_RECLAIM:
			o.reclaim = true;
			break;
		case OPT_SPARSE:
			o.sparse = true;
			break;
		case OPT_TIMEOUT:
			if (str_long(optarg, 1, 3600, &v)) {
				warnx("lab: --timeout takes 1..3600 seconds");
				return EXIT_USAGE;
			}
			o.timeout_s = (int)v;
			break;
		case OPT_SCAN_SLEEP:
			if (str_long(optarg, 0, 600000, &o.scan_sleep_ms)) {
				warnx("lab: --scan-sleep takes 0..600000 ms");
				return EXIT_USAGE;
			}
			break;
		case OPT_MPN:
			if (str_long(optarg, 0, 1 << 20, &o.max_ptes_none)) {
				warnx("lab: bad --max-ptes-none '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_STEPS:
			if (str_long(optarg, 1000, 2000000000L, &v)) {
				warnx("lab: --steps takes 1000..2000000000");
				return EXIT_USAGE;
			}
			o.steps = (uint64_t)v;
			break;
		case OPT_SIZES: {
			char *dup = strdup(optarg), *save = NULL;
			o.n_mthp_sizes = 0;
			for (char *t = strtok_r(dup, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				uint64_t b;
				if (o.n_mthp_sizes == 16 || parse_size(t, &b) || b < 1024) {
					warnx("lab: bad --sizes '%s' (e.g. 16K,64K)", optarg);
					free(dup);
					return EXIT_USAGE;
				}
				o.mthp_sizes_kb[o.n_mthp_sizes++] = b >> 10;
			}
			free(dup);
			if (!o.n_mthp_sizes) {
				warnx("lab: --sizes needs at least one size (e.g. 16K,64K)");
				return EXIT_USAGE;
			}
			break;
		}
		case OPT_QUIET:
			o.quiet = true;
			break;
		default:
			lab_help(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		warnx("lab: name one experiment, quick, all or list");
		lab_help(stderr);
		return EXIT_USAGE;
	}
	const char *what = argv[optind];
	bool quick = !strcmp(what, "quick"), all = !strcmp(what, "all");
	if (!strcmp(what, "list")) {
		if (g->json) {
			json_t *arr = json_array();
			for (size_t i = 0; i < lab_nexperiments; i++) {
				json_t *x = json_object();
				json_put(x, "name", json_str(lab_experiments[i].name));
				json_put(x, "help", json_str(lab_experiments[i].help));
				json_put(x, "in_quick", json_boolean(lab_experiments[i].in_quick));
				json_array_append_new(arr, x);
			}
			return cmd_emit_json(arr);
		}
		for (size_t i = 0; i < lab_nexperiments; i++)
			printf("%-11s %s\n", lab_experiments[i].name, lab_experiments[i].help);
		return EXIT_OK;
	}
	const struct lab_experiment *one = quick || all ? NULL : lab_find(what);
	if (!quick && !all && !one) {
		warnx("lab: unknown experiment '%s' (thpctl lab list)", what);
		return EXIT_USAGE;
	}
	if (o.nsizes > 1 && (!one || strcmp(one->name, "chase") != 0)) {
		warnx("lab: only chase takes a list of sizes");
		return EXIT_USAGE;
	}
	if (g->json && csv) {
		warnx("lab: --json and --csv exclude each other");
		return EXIT_USAGE;
	}
	int r = cmd_setup(g);
	if (r)
		return r;
	if (!g->sr.live) {
		warnx("lab runs experiments on the live host; --sysroot is not supported");
		return EXIT_USAGE;
	}
	static struct features feat;
	static struct thp_settings thp;
	features_probe(&g->sr, &feat);
	thp_settings_read(&g->sr, feat.page_size, &thp);
	features_from_settings(&feat, &thp);
	if (!thp.present || !feat.pmd_size) {
		warnx("lab: this kernel has no transparent huge pages (no %s)", SR_THP);
		thp_settings_free(&thp);
		return EXIT_FAIL;
	}
	struct lab_ctx ctx = {
		.sr = &g->sr,
		.feat = &feat,
		.thp = &thp,
		.page_size = feat.page_size,
		.pmd_size = feat.pmd_size,
		.root = geteuid() == 0,
	};
	ctx.can_write = ctx.root && thp.write_err == 0;
	/* the kernel takes 0..HPAGE_PMD_NR-1: refuse the rest before anything runs */
	if (o.max_ptes_none >= 0 && feat.page_size > 0 &&
	    (uint64_t)o.max_ptes_none >= feat.pmd_size / (uint64_t)feat.page_size) {
		warnx("lab: --max-ptes-none takes 0..%llu on this kernel",
		      (unsigned long long)(feat.pmd_size / (uint64_t)feat.page_size - 1));
		thp_settings_free(&thp);
		return EXIT_USAGE;
	}
	if (ctx.can_write) {
		int gr = guard_begin(&g->sr, quick ? "lab quick" : all ? "lab all" : what, g->wait);
		if (gr == -EBUSY)
			warnx("lab: another thpctl, %s, is changing settings: experiments that change them are skipped (--wait waits for it)",
			      guard_holder());
		else if (gr)
			warnx("lab: cannot guard setting changes (%s): experiments that change them are skipped",
			      gr == -EIO ? "a killed thpctl's settings could not all be put back"
					 : strerror(-gr));
		ctx.can_write = gr == 0;
	}
	if (quick && !runs_given)
		o.runs = 3;
	static struct lab_result res;
	json_t *arr = g->json ? json_array() : NULL;
	int ret = EXIT_OK, shown = 0;
	for (size_t i = 0; i < lab_nexperiments; i++) {
		const struct lab_experiment *x = one ? one : &lab_experiments[i];
		if (quick && !x->in_quick)
			continue;
		struct lab_opts eo = o;
		if (quick && !o.size &&
		    (!strcmp(x->name, "chase") || !strcmp(x->name, "fork") ||
		     !strcmp(x->name, "faults") || !strcmp(x->name, "touch")))
			eo.size = 256ull << 20;
		if (quick && !strcmp(x->name, "mthp") && !o.n_mthp_sizes) {
			eo.mthp_sizes_kb[0] = 64;
			eo.n_mthp_sizes = 1;
		}
		if (quick && !strcmp(x->name, "chase") && !o.nsizes) {
			eo.sizes[0] = 256ull << 20;
			eo.nsizes = 1;
		}
		/* 4M dependent loads already put the mean well inside the run-to-run noise */
		if (quick && !strcmp(x->name, "chase") && !o.steps)
			eo.steps = 4ull << 20;
		int rc = run_one(x, &ctx, &eo, &res);
		/* a refused or failed run (not a skip for a missing feature) is a failure */
		if (rc || (res.skipped && !res.expected))
			ret = EXIT_FAIL;
		if (g->json)
			json_array_append_new(arr, lab_to_json(&res));
		else if (csv)
			lab_render_csv(stdout, &res, shown == 0);
		else {
			if (shown)
				putchar('\n');
			lab_render_text(stdout, &res, g->color);
		}
		shown++;
		/* all: touch and faults again, cold */
		if (all && !o.state_given &&
		    (!strcmp(x->name, "touch") || !strcmp(x->name, "faults"))) {
			eo.state = STATE_COLD;
			if (run_one(x, &ctx, &eo, &res))
				ret = EXIT_FAIL;
			if (g->json)
				json_array_append_new(arr, lab_to_json(&res));
			else if (csv)
				lab_render_csv(stdout, &res, false);
			else {
				putchar('\n');
				lab_render_text(stdout, &res, g->color);
			}
		}
		if (one)
			break;
	}
	if (g->json) {
		json_t *root = json_object(), *k = json_object();
		json_put(k, "release", json_str(feat.release));
		json_put(k, "page_size_bytes", json_integer(feat.page_size));
		json_put(k, "pmd_size_bytes", json_u64(feat.pmd_size));
		json_put(k, "enabled", thp.enabled.present ? json_str(thp.enabled.selected) : NULL);
		json_put(k, "defrag", thp.defrag.present ? json_str(thp.defrag.selected) : NULL);
		json_put(root, "kernel", k);
		json_put(root, "root", json_boolean(ctx.root));
		json_put(root, "experiments", arr);
		if (cmd_emit_json(root))
			ret = EXIT_FAIL;
	}
	if (guard_restore())
		ret = EXIT_FAIL;
	guard_end();
	thp_settings_free(&thp);
	return ret;
}
