// SPDX-License-Identifier: MIT
/*
 * `thpctl exporter`: Prometheus metrics over HTTP (libmicrohttpd) and/or a
 * text file for node_exporter's textfile collector.
 *
 * Robustness: libmicrohttpd's own threads (a pool of 2 on epoll) parse and
 * answer requests; the listening socket is ours. An accept thread admits each
 * connection through the connection guard (connguard.h: per-address and total
 * limits, evicting the oldest connection that is idle or still sending its
 * request headers) and hands it to libmicrohttpd with MHD_add_connection. The
 * same thread enforces total deadlines (request headers within 3 s, the
 * response within 10 s) and logs cut-off clients as one summary line per 10 s.
 * Connections are cut off with shutdown(2) only, never close(2): the fd stays
 * libmicrohttpd's. The guard learns of a connection in libmicrohttpd's
 * NOTIFY_CONNECTION STARTED callback and forgets it in the CLOSED one, which
 * libmicrohttpd 0.9.75 calls (MHD_cleanup_connections, and the failure path of
 * new_connection_process_) before it closes the socket; both run under
 * http.lock, as does every shutdown, so an fd shut down is never a reused one.
 *
 * A scrape collects at most once per --cache-ms: concurrent and close scrapes
 * share one rendered body (a refcounted response object), so load on /metrics
 * does not turn into load on /proc.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/fdcache.h"
#include "../kernel/features.h"
#include "../kernel/kv.h"
#include "../render/hint.h"
#include "../util/clock.h"
#include "../util/fileio.h"
#include "../util/num.h"
#include "../util/version.h"
#include "alloc.h"
#include "args.h"
#include "common.h"
#include "exporter_int.h"

static void exporter_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl exporter [--listen ADDR:PORT]\n"
		"                       [--textfile DIR [--mkdir] [-i SECONDS]]\n"
		"                       [--top-processes N] [--min-process-ahp SIZE]\n"
		"                       [--process-flags] [--process-ledger] [--cache-ms MS]\n"
		"                       [--scrape-budget MS] [--top-cgroups N]\n"
		"                       [--web.config.file FILE] [--once]\n\n"
		"Prometheus metrics of THP: every thp_* and compact_* counter of /proc/vmstat,\n"
		"per-size (mTHP) stats, settings (as info metrics) and numeric knobs,\n"
		"khugepaged counters and CPU time, meminfo THP fields, hugetlb pools, free\n"
		"blocks by order and zone, the top processes by AnonHugePages and the top\n"
		"memory cgroups by anon THP.\n\n"
		"options:\n"
		"  --listen ADDR:PORT    serve GET /metrics there (default " DEFAULT_LISTEN ";\n"
		"                        loopback unless told: ':9799' is every address,\n"
		"                        '[::1]:9799' IPv6; port 0 picks a free one)\n"
		"  --textfile DIR        write DIR/" TEXTFILE_NAME " atomically (temporary file +\n"
		"                        rename) every interval, for node_exporter's textfile\n"
		"                        collector; DIR must exist (a mistyped one is refused);\n"
		"                        '-': to stdout instead; no HTTP listener then unless\n"
		"                        --listen\n"
		"  --mkdir               with --textfile: create DIR when it is missing (mode\n"
		"                        0755 whatever the umask; its parent must exist)\n"
		"  -i, --interval SECONDS  text file rewrite interval (default 15; with\n"
		"                        --textfile, not with --once)\n"
		"  --top-processes N     export at most N processes (default 20, up to 1000;\n"
		"                        0: no per-process metrics)\n"
		"  --min-process-ahp SIZE  only processes with AnonHugePages >= SIZE (default 1:\n"
		"                        any; k, M, G suffixes)\n"
		"  --process-flags       also walk full smaps for the hg (MADV_HUGEPAGE) bytes:\n"
		"                        takes each candidate's mmap_lock; by default only\n"
		"                        statm (a prefilter), status and smaps_rollup are read\n"
		"  --process-ledger      also the ledger of the exported processes: invented\n"
		"                        (8 subpages per THP via /proc/PID/mem), held (deferred\n"
		"                        split; root) and khugepaged creep bytes (reads their\n"
		"                        smaps and pagemap; 100 ms budget each)\n"
		"  --top-cgroups N       export at most N memory cgroups, the most anon THP\n"
		"                        first (default 10, up to 1000; 0: none): memory.stat,\n"
		"                        current, max and THP opt-outs of their processes\n"
		"                        (a process's status is read when its pid is first\n"
		"                        seen, and every process's again each minute)\n"
		"  --cache-ms MS         scrapes within MS of a collection share it (default\n"
		"                        1000; not with --once)\n"
		"  --scrape-budget MS    stop the process scan after MS (default 2000); the\n"
		"                        scrape then says thpctl_process_scan_truncated 1\n"
		"  --web.config.file FILE  TLS and basic auth of the listener, in the format of\n"
		"                        Prometheus' exporter-toolkit: tls_server_config:\n"
		"                        {cert_file, key_file, min_version: TLS12|TLS13},\n"
		"                        basic_auth_users: {NAME: BCRYPT-HASH}; FILE and the\n"
		"                        key not writable by others, the key not readable by\n"
		"                        others\n"
		"  --once                collect once, write the text file (or stdout), exit;\n"
		"                        with --json, that scrape as JSON: {schema, families:\n"
		"                        [{name, type, help, samples:[{labels, value}]}]}\n" GLOBAL_HELP
		"\nGET (and HEAD) /metrics, and / (a page linking it): other methods get 405,\n"
		"other paths 404; with basic_auth_users, every path needs a user and password\n"
		"(else 401).\n"
#ifdef THPCTL_HTTP
		"At most 128 connections, 32 per client address; request headers must be\n"
		"complete within 3 s (total, not silence), responses sent within 10 s; over a\n"
		"limit, a silent or idle connection is evicted rather than the new one refused.\n"
		"Cut-off clients are logged as one line per 10 s at most.\n"
#endif
		"SIGTERM or SIGINT stops it with exit status 0. As a user other than root,\n"
		"processes of other users are left out and counted in\n"
		"thpctl_processes_unreadable; the first collection says how many on stderr,\n"
		"once, and what reads them (root, their owner, or CAP_SYS_PTRACE).\n"
#ifndef THPCTL_HTTP
		"\nThis build has no HTTP listener (built without libmicrohttpd, e.g. the\n"
		"static build): use --textfile DIR or --once.\n"
#endif
	);
}

enum {
	OPT_LISTEN = OPT_CMD_BASE,
	OPT_TEXTFILE,
	OPT_TOP_PROCS,
	OPT_MIN_AHP,
	OPT_FLAGS,
	OPT_ONCE,
	OPT_CACHE_MS,
	OPT_BUDGET,
	OPT_LEDGER,
	OPT_TOP_CGROUPS,
	OPT_WEB_CONFIG,
	OPT_MKDIR,
};

/* The allocator of P for thp_process_allocator_info (--process-ledger). */
static void exporter_alloc(const struct exporter *e, struct proc_sample *p)
{
	static struct alloc_fact a;
	if (alloc_collect(e->smp.sr, p->pid, &a))
		return;
	snprintf(p->alloc, sizeof(p->alloc), "%s", alloc_kind_name(a.kind));
	snprintf(p->alloc_version, sizeof(p->alloc_version), "%s", a.version);
	snprintf(p->alloc_evidence, sizeof(p->alloc_evidence), "%s",
		 a.kind == AK_UNKNOWN ? alloc_unknown_name(a.why_unknown)
				      : alloc_evidence_name(a.evidence));
}

/* Whether CAP_SYS_PTRACE is in this process's effective set (capget(2)): it passes the ptrace
 * read check of every process, as root does. False when capget fails. */
static bool has_cap_sys_ptrace(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0}};
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective & CAP_TO_MASK(CAP_SYS_PTRACE);
}

/*
 * Once per run, at the first collection that could not read some candidates' smaps_rollup:
 * how many, that they are missing from the per-process metrics, and what reads them. A
 * scrape every 15 s would otherwise repeat it; thpctl_processes_unreadable has each count.
 */
static void unread_note(struct exporter *e)
{
	size_t n = e->s.procs_unreadable;
	if (e->told_unread || !n)
		return;
	e->told_unread = true;
	if (!e->smp.sr->live)
		warnx("exporter: %zu process%s not recorded in %s (smaps_rollup unreadable at "
		      "capture): left out of the per-process metrics",
		      n, n == 1 ? "" : "es", e->smp.sr->path);
	else if (geteuid() == 0 || has_cap_sys_ptrace())
		warnx("exporter: %zu process%s with enough anonymous memory for a huge page could "
		      "not be read (smaps_rollup %s: another namespace or a security module): left "
		      "out of the per-process metrics, counted in thpctl_processes_unreadable%s",
		      n, n == 1 ? "" : "es",
		      geteuid() == 0 ? "denied even to root" : "denied even with CAP_SYS_PTRACE",
		      e->serving ? " (said once)" : "");
	else
		warnx("exporter: %zu process%s with enough anonymous memory for a huge page could "
		      "not be read (smaps_rollup: permission denied): left out of the per-process "
		      "metrics, counted in thpctl_processes_unreadable; " HINT_PROC_DENIED_CAP
		      " to include them%s",
		      n, n == 1 ? "" : "es", e->serving ? " (said once)" : "");
}

int exporter_refresh(struct exporter *e, bool force)
{
	double now = mono_s();
	if (!force && e->last > 0 && now - e->last < e->cache_s)
		return 0;
	e->last = now;
	e->meta.collections++;
	pbuf_reset(&e->body);
	int r = sample_collect(&e->smp, &e->s);
	if (e->ledger)
		ledger_req_held_host(e->smp.sr, &e->q); /* the counters now, not at start */
	for (size_t i = 0; r == 0 && e->ledger && i < e->s.nprocs; i++) {
		struct proc_sample *p = &e->s.procs[i];
		struct thp_ledger l;
		if (!p->readable || ledger_for_pid(e->smp.sr, p->pid, &e->q, NULL, NULL, &l))
			continue; /* gone meanwhile, or out of memory: unknown, not exported */
		p->invented_kb = l.invented_kb;
		p->held_kb = l.held_kb;
		p->creep_kb = l.creep_kb;
		p->lazyfree_kb = l.lazyfree_kb;
		exporter_alloc(e, p);
	}
	e->meta.cgroups = NULL;
	if (r == 0 && e->cg_top) {
		cg_collect_free(&e->cg);
		struct opt_u64 fb = {0};
		fb.present = kv_get(&e->s.host.vmstat, "thp_fault_fallback_charge", &fb.v);
		bool all = e->cg_pids_at <= 0 || now - e->cg_pids_at >= CG_RECHECK_S;
		struct cg_collect_opt o = {.fallback = &fb, .cache = &e->cg_pids, .refresh = all};
		r = cg_collect(e->smp.sr, e->cg_top, &o, &e->cg);
		if (!r && all)
			e->cg_pids_at = now;
		e->meta.cgroups = r ? NULL : &e->cg.rep;
	}
	if (r == 0)
		r = prom_render(&e->s, &e->meta, &e->body);
	if (r == 0)
		unread_note(e);
	e->last_err = r;
	if (r && !e->failed_once) {
		warnx("exporter: collection failed: %s", strerror(-r));
		e->failed_once = true;
	}
	return 1;
}

/* Write BODY to DIR/thp.prom atomically (temporary file, fsync, rename), world-readable;
 * DIR "-": to stdout. */
static int write_textfile(const char *dir, const struct pbuf *body)
{
	if (!strcmp(dir, "-"))
		return fwrite(body->p, 1, body->len, stdout) != body->len || fflush(stdout) ? -EIO
											    : 0;
	char dst[PATH_MAX];
	if (snprintf(dst, sizeof(dst), "%s/%s", dir, TEXTFILE_NAME) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	/* node_exporter may run as another user */
	return write_file_atomic(dst, body->p, body->len, 0644);
}

struct xopts {
	const char *listen, *textfile, *web_config;
	long top, cache_ms, budget_ms, top_cgroups;
	double interval;
	uint64_t min_ahp;
	bool flags, once, http, ledger, mkdir, interval_set, cache_set;
};

#ifdef THPCTL_HTTP
/* --web.config.file, loaded while the options are checked */
static struct web_config web_cfg;
#endif

/* A whole decimal in [LO, HI] (util's strict parser). */
static int parse_ms(const char *s, long lo, long hi, long *out)
{
	return str_long(s, lo, hi, out);
}

/* One option of exporter's own (CTX: struct xopts). Returns -1 when taken, else the exit code. */
static int exporter_opt(int c, const char *optarg, void *ctx)
{
	struct xopts *o = ctx;
	const struct args_store st[] = {
		ARGS_ARG(OPT_LISTEN, &o->listen),	  ARGS_ARG(OPT_TEXTFILE, &o->textfile),
		ARGS_ARG(OPT_WEB_CONFIG, &o->web_config), ARGS_FLAG(OPT_FLAGS, &o->flags),
		ARGS_FLAG(OPT_LEDGER, &o->ledger),	  ARGS_FLAG(OPT_ONCE, &o->once),
		ARGS_FLAG(OPT_MKDIR, &o->mkdir)};
	if (args_store(c, optarg, st, ARGS_N(st)) == -1)
		return -1;
	switch (c) {
	case 'i':
		if (str_double(optarg, 1, 86400, &o->interval)) {
			warnx("exporter: bad interval '%s' (seconds, 1 to 86400)", optarg);
			return EXIT_USAGE;
		}
		o->interval_set = true;
		return -1;
	case OPT_TOP_PROCS:
		if (parse_ms(optarg, 0, SAMPLE_MAX_TOP, &o->top)) {
			warnx("exporter: bad --top-processes '%s' (0 to %d)", optarg,
			      SAMPLE_MAX_TOP);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_TOP_CGROUPS:
		if (parse_ms(optarg, 0, SAMPLE_MAX_TOP, &o->top_cgroups)) {
			warnx("exporter: bad --top-cgroups '%s' (0 to %d)", optarg, SAMPLE_MAX_TOP);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_MIN_AHP:
		if (parse_size(optarg, &o->min_ahp)) {
			warnx("exporter: bad size '%s' (e.g. 64M)", optarg);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_CACHE_MS:
		if (parse_ms(optarg, 0, 3600000, &o->cache_ms)) {
			warnx("exporter: bad --cache-ms '%s' (0 to 3600000)", optarg);
			return EXIT_USAGE;
		}
		o->cache_set = true;
		return -1;
	case OPT_BUDGET:
		if (parse_ms(optarg, 1, 3600000, &o->budget_ms)) {
			warnx("exporter: bad --scrape-budget '%s' (1 to 3600000)", optarg);
			return EXIT_USAGE;
		}
		return -1;
	default:
		return -2;
	}
}

/*
 * --textfile DIR must be a directory that exists: a mistyped path is refused, not made, unless
 * --mkdir asks for it (DIR only, mode 0755: its parent must exist). Returns -1 to go on, else
 * EXIT_USAGE after a message naming DIR.
 */
static int textfile_dir(const struct xopts *o)
{
	bool dir = o->textfile && strcmp(o->textfile, "-") != 0;
	if (o->mkdir && !dir) {
		warnx("exporter: --mkdir goes with --textfile DIR (the directory to create)");
		return EXIT_USAGE;
	}
	if (!dir)
		return -1;
	struct stat st;
	if (stat(o->textfile, &st) && errno == ENOENT) {
		if (!o->mkdir) {
			warnx("exporter: --textfile %s: no such directory (create it, or add --mkdir)",
			      o->textfile);
			return EXIT_USAGE;
		}
		/* 0755 whatever the umask (the unit's UMask=0077): node_exporter must enter it */
		int r = mkdir_mode(o->textfile, 0755);
		if (r && r != -EEXIST) {
			warnx("exporter: --textfile --mkdir: cannot create %s (mode 0755): %s",
			      o->textfile, strerror(-r));
			return EXIT_USAGE;
		}
	}
	if (stat(o->textfile, &st) || !S_ISDIR(st.st_mode)) {
		warnx("exporter: --textfile %s: not a directory", o->textfile);
		return EXIT_USAGE;
	}
	return -1;
}

/* Options into O and checked. Returns -1 to go on, else the exit code. */
static int exporter_options(struct globals *g, int argc, char **argv, struct xopts *o)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS,
		{"listen", required_argument, NULL, OPT_LISTEN},
		{"textfile", required_argument, NULL, OPT_TEXTFILE},
		{"interval", required_argument, NULL, 'i'},
		{"top-processes", required_argument, NULL, OPT_TOP_PROCS},
		{"min-process-ahp", required_argument, NULL, OPT_MIN_AHP},
		{"process-flags", no_argument, NULL, OPT_FLAGS},
		{"process-ledger", no_argument, NULL, OPT_LEDGER},
		{"once", no_argument, NULL, OPT_ONCE},
		{"cache-ms", required_argument, NULL, OPT_CACHE_MS},
		{"scrape-budget", required_argument, NULL, OPT_BUDGET},
		{"top-cgroups", required_argument, NULL, OPT_TOP_CGROUPS},
		{"web.config.file", required_argument, NULL, OPT_WEB_CONFIG},
		{"mkdir", no_argument, NULL, OPT_MKDIR},
		{NULL, 0, NULL, 0},
	};
	*o = (struct xopts){.top = 20,
			    .top_cgroups = 10,
			    .cache_ms = 1000,
			    .budget_ms = 2000,
			    .interval = 15,
			    .min_ahp = 1};
	int r = args_getopt(g, argc, argv, "hi:", opts, exporter_help, exporter_opt, o);
	if (r >= 0)
		return r;
	if (optind < argc) {
		warnx("exporter: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (g->json && !o->once) {
		warnx("exporter: --json goes with --once (to stdout): it prints one scrape as JSON");
		return EXIT_USAGE;
	}
	if (g->json && o->textfile) {
		warnx("exporter: --json prints the scrape to stdout: not with --textfile (which "
		      "writes the Prometheus text)");
		return EXIT_USAGE;
	}
	if (o->once && o->listen) {
		warnx("exporter: --once collects once and exits: it starts no listener, so not "
		      "with --listen");
		return EXIT_USAGE;
	}
	if (o->once && o->cache_set) {
		warnx("exporter: --cache-ms lets close scrapes share a collection: --once serves "
		      "one, so not with --once");
		return EXIT_USAGE;
	}
	if (o->interval_set && (o->once || !o->textfile)) {
		warnx("exporter: -i/--interval is the --textfile rewrite interval: not %s",
		      o->once ? "with --once (one write)" : "without --textfile");
		return EXIT_USAGE;
	}
	o->http = !o->once && (o->listen || !o->textfile);
#ifndef THPCTL_HTTP
	if (o->http) {
		warnx("exporter: this build has no HTTP listener (no libmicrohttpd): use "
		      "--textfile DIR or --once");
		return EXIT_USAGE;
	}
#endif
	if (!o->listen)
		o->listen = DEFAULT_LISTEN;
#ifdef THPCTL_HTTP
	struct sockaddr_storage ss;
	bool v6;
	if (http_parse_listen(o->listen, &ss, &v6)) {
		warnx("exporter: bad --listen '%s' (ADDR:PORT, e.g. 127.0.0.1:9799 or [::1]:9799)",
		      o->listen);
		return EXIT_USAGE;
	}
#endif
	if (o->web_config && !o->http) {
		warnx("exporter: --web.config.file configures the HTTP listener: not with --once, "
		      "nor with --textfile without --listen");
		return EXIT_USAGE;
	}
#ifdef THPCTL_HTTP
	char why[512] = "";
	int wr = o->web_config ? webconfig_load(o->web_config, &web_cfg, why, sizeof(why)) : 0;
	if (wr == -ENOMEM) {
		warnx("out of memory");
		return EXIT_FAIL;
	}
	/* a key GnuTLS cannot use (not the certificate's, damaged, encrypted) is the file's fault */
	if (!wr && o->web_config && (wr = web_tls_check(&web_cfg, why, sizeof(why))))
		webconfig_free(&web_cfg);
	if (wr) {
		warnx("exporter: --web.config.file: %s", why);
		args_no_hint(); /* the file is at fault, not the options */
		return EXIT_USAGE;
	}
#endif
	return textfile_dir(o);
}

/* --once: one collection to the text file, stdout or JSON. Returns the exit code. */
static int exporter_once(struct globals *g, struct exporter *e, const struct xopts *o)
{
	int ret = EXIT_OK;
	exporter_refresh(e, true);
	if (e->last_err) {
		ret = EXIT_FAIL;
	} else if (cmd_nothing_readable(g, "exporter", &e->s.host)) {
		ret = EXIT_FAIL; /* before any output: stdout and the text file untouched */
	} else if (o->textfile) {
		int r = write_textfile(o->textfile, &e->body);
		if (r) {
			warnx("exporter: cannot write %s%s%s: %s", o->textfile,
			      strcmp(o->textfile, "-") ? "/" : "",
			      strcmp(o->textfile, "-") ? TEXTFILE_NAME : " (stdout)",
			      path_err_str(r));
			ret = EXIT_FAIL;
		}
	} else if (g->json) {
		json_t *fam = prom_text_to_json(e->body.p, e->body.len);
		ret = cmd_emit_json(fam ? json_pack("{s:o}", "families", fam) : NULL);
	} else if (fwrite(e->body.p, 1, e->body.len, stdout) != e->body.len) {
		ret = EXIT_FAIL;
	}
	return ret;
}

/* Serve (HTTP and/or the text file every interval) until SIGINT or SIGTERM. */
static int exporter_serve(struct exporter *e, const struct xopts *o)
{
	/* signals are taken synchronously below; the HTTP threads inherit the mask */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
#ifdef THPCTL_HTTP
	if (o->http && http_start(e, o->listen))
		return EXIT_FAIL;
#endif
	bool warned = false;
	for (;;) {
		if (o->textfile) {
			pthread_mutex_lock(&e->lock);
			exporter_refresh(e, true);
			int r = e->last_err ? e->last_err : write_textfile(o->textfile, &e->body);
			pthread_mutex_unlock(&e->lock);
			if (r && !warned)
				warnx("exporter: cannot write %s%s%s: %s", o->textfile,
				      strcmp(o->textfile, "-") ? "/" : "",
				      strcmp(o->textfile, "-") ? TEXTFILE_NAME : " (stdout)",
				      path_err_str(r));
			warned = r != 0;
			if (r && !strcmp(o->textfile, "-"))
				return EXIT_FAIL; /* stdout is gone: nobody reads on */
		}
		struct timespec ts = {.tv_sec = (time_t)o->interval,
				      .tv_nsec = (long)((o->interval - floor(o->interval)) * 1e9)};
		int sig = o->textfile ? sigtimedwait(&set, NULL, &ts) : sigwaitinfo(&set, NULL);
		if (sig == SIGINT || sig == SIGTERM)
			return EXIT_OK;
	}
}

int cmd_exporter(struct globals *g, int argc, char **argv)
{
	struct xopts o;
	int ret = exporter_options(g, argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = cmd_setup(g);
	if (ret)
		return ret;

	static struct exporter e;
	struct features feat;
	/* detect once: the page size (from smaps on a recorded tree) */
	features_probe(&g->sr, &feat);
	static struct fdcache fc;
	if (!o.once)
		cmd_fdcache(g, &fc);
	unsigned what = SAMPLE_SETTINGS | SAMPLE_HUGETLB | SAMPLE_KHUGEPAGED;
	if (o.top > 0)
		what |= SAMPLE_PROCS_TOP | (o.flags ? SAMPLE_PROC_FLAGS : 0);
	sampler_init(&e.smp, &g->sr, feat.page_size, what);
	e.smp.top = (size_t)o.top;
	e.smp.min_ahp_kb = o.min_ahp / 1024 + (o.min_ahp % 1024 != 0); /* no wrap at 2^64 - 1 */
	e.smp.budget_s = (double)o.budget_ms / 1000.0;
	e.cache_s = (double)o.cache_ms / 1000.0;
	e.meta.version = thpctl_version();
	e.meta.process_metrics = o.top > 0;
	e.serving = !o.once;
	e.meta.process_flags = o.flags;
	e.ledger = o.ledger && o.top > 0;
	e.meta.process_ledger = e.ledger;
	if (e.ledger) {
		e.q = (struct ledger_req){.k = LEDGER_K, .held = true, .budget_ms = 100};
		ledger_req_host(&g->sr, &e.q, e.policy, sizeof(e.policy));
	}
	e.meta.top = (size_t)o.top;
	e.cg_top = (size_t)o.top_cgroups;
	e.meta.cgroups_top = e.cg_top;
	e.meta.min_ahp_bytes = o.min_ahp;
	pthread_mutex_init(&e.lock, NULL);
#ifdef THPCTL_HTTP
	http_init(&e);
	e.web = o.web_config ? &web_cfg : NULL;
#endif
	ret = o.once ? exporter_once(g, &e, &o) : exporter_serve(&e, &o);
#ifdef THPCTL_HTTP
	http_stop(&e);
	webconfig_free(&web_cfg);
#endif
	pthread_mutex_destroy(&e.lock);
	g->sr.cache = NULL;
	fdcache_free(&fc);
	sample_free(&e.s);
	cg_collect_free(&e.cg);
	cg_pid_cache_free(&e.cg_pids);
	sampler_free(&e.smp);
	pbuf_free(&e.body);
	return ret;
}
