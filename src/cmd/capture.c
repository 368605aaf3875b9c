// SPDX-License-Identifier: MIT
/* thpctl capture: one tar.gz with every file thpctl reads, for a support case. */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/capture.h"
#include "../kernel/host_snapshot.h"
#include "../kernel/proc_read.h"
#include "../model/findings.h"
#include "../render/status.h"
#include "../util/fileio.h"
#include "../util/archive_load.h"
#include "../util/tarball.h"
#include "../util/version.h"
#include "../util/esc.h"
#include "../util/wrap.h"
#include <limits.h>
#include "args.h"
#include "common.h"

static void capture_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl capture [-o FILE.tar.gz] [--pid PID[,PID...]]... [--all-processes]\n\n"
		"Write one tar.gz with every file thpctl reads (THP and hugetlb trees, vmstat,\n"
		"meminfo, buddyinfo, pagetypeinfo, zoneinfo, vm sysctls, the kernel command\n"
		"line and config, memory cgroups) and, per recorded process, status, stat,\n"
		"smaps, smaps_rollup, cmdline, comm, cgroup and environ with every value\n"
		"redacted except the THP-related ones, and capture/alloc/PID: what its\n"
		"executable and libraries say of its allocator (read as ELF; the files\n"
		"themselves are not copied); plus capture/status.json and .txt,\n"
		"capture/version and capture/manifest (what was absent or unreadable).\n"
		"Replay it with 'thpctl --sysroot FILE.tar.gz COMMAND'. Read-only.\n\n"
		"options:\n"
		"  -o, --output FILE   the bundle (default: thpctl-capture-DATE-TIME.tar.gz);\n"
		"                      an existing file is never replaced\n"
		"  --pid LIST          record these processes (repeatable, comma-separated)\n"
		"  --all-processes     record every process (large: full smaps of each)\n"
		"By default only thpctl itself is recorded (its smaps gives the page size;\n"
		"none from a --sysroot tree), plus the [khugepaged] thread's stat.\n" GLOBAL_HELP);
}

enum { OPT_PID = OPT_CMD_BASE, OPT_ALL };

struct capture_args {
	const char *out;
	pid_t *pids;
	size_t npids, cap;
	bool all;
};

static int capture_opt(int c, const char *arg, void *ctx)
{
	struct capture_args *a = ctx;
	const struct args_store st[] = {ARGS_ARG('o', &a->out), ARGS_FLAG(OPT_ALL, &a->all)};
	if (c != OPT_PID)
		return args_store(c, arg, st, ARGS_N(st));
	if (args_pid_list(arg, &a->pids, &a->npids, &a->cap)) {
		warnx("capture: bad --pid '%s'", arg);
		return EXIT_USAGE;
	}
	return -1;
}

/* The bundle being written, removed by a signal that ends the capture (tarball.h tarw_temp). */
static char capture_temp[PATH_MAX];

static void capture_signal(int sig)
{
	if (capture_temp[0])
		unlink(capture_temp); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * tarw_open(OUT) with its temporary file removed on SIGINT/SIGTERM/SIGHUP/SIGPIPE (those at
 * their default): blocked until the handler knows the file, so none is left behind.
 */
static struct tarw *capture_open(const char *out, int *err)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	sigset_t set, old;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	struct tarw *w = tarw_open(out, err);
	if (w) {
		snprintf(capture_temp, sizeof(capture_temp), "%s", tarw_temp(w));
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			struct sigaction sa;
			if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
				signal(sigs[i], capture_signal);
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return w;
}

struct sink_ctx {
	struct tarw *w;
	const char *file;
	size_t noted;
};

static int sink_file(void *ctx, const char *rel, unsigned mode, const char *data, size_t len)
{
	struct sink_ctx *s = ctx;
	if (tarw_add(s->w, rel, mode, data, len)) {
		warnx("capture: %s: %s", s->file, tarw_error(s->w));
		return -EIO;
	}
	return 0;
}

static void sink_skipped(void *ctx, const char *rel, int err)
{
	struct sink_ctx *s = ctx;
	if (++s->noted <= 12)
		warnx("capture: not recorded: /%s (%s)", rel,
		      err == -ESRCH ? "the process exited" : read_err_str(err));
}

/* capture/status.json, capture/status.txt and capture/version from the snapshot. */
static int add_report(struct sink_ctx *s, const struct sysroot *sr, struct host_snapshot *h)
{
	struct host_derived d;
	struct findings fs;
	host_derive(h, &d);
	d.recent = NULL;
	findings_evaluate(h, &d, &fs);
	json_t *root = status_to_json(h, &d, &fs);
	char *js = root ? json_dump_text(root, JSON_INDENT(2)) : NULL;
	json_decref(root);
	char *txt = NULL;
	size_t tlen = 0;
	FILE *m = open_memstream(&txt, &tlen);
	if (m) {
		status_render_text(m, h, &d, &fs, false);
		fclose(m);
	}
	char ver[512], when[64], pgs[24] = "-";
	if (h->feat.page_size > 0) /* what a replay with no readable smaps knows the page size by */
		snprintf(pgs, sizeof(pgs), "%ld", h->feat.page_size);
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	struct utsname u;
	bool un = sr->live && uname(&u) == 0;
	int vn =
		snprintf(ver, sizeof(ver),
			 "thpctl %s\nkernel %s\nmachine %s\npage_size %s\ncaptured %s\nsource %s\n",
			 thpctl_version(), h->feat.release[0] ? h->feat.release : "-",
			 un ? u.machine : "-", pgs, when, sr->live ? "live" : sr->path);
	int r = !js || !txt ? -ENOMEM : 0;
	if (!r)
		r = sink_file(s, "capture/status.json", 0644, js, strlen(js));
	if (!r)
		r = sink_file(s, "capture/status.txt", 0644, txt, tlen);
	if (!r)
		r = sink_file(s, CAPTURE_VERSION_FILE, 0644, ver, (size_t)vn);
	free(js);
	free(txt);
	return r;
}

/* A --pid that names no process when the capture starts is the user's error: no bundle. */
static int capture_pids_exist(struct globals *g, const struct capture_args *a)
{
	for (size_t i = 0; i < a->npids; i++) {
		struct proc_info pi = {0};
		int gone = proc_read(&g->sr, a->pids[i], 0, &pi);
		proc_info_free(&pi);
		if (gone) {
			warnx("capture: no such process %d (--pid)", (int)a->pids[i]);
			return EXIT_FAIL;
		}
	}
	return EXIT_OK;
}

static int capture_run(struct globals *g, struct capture_args *a, const char *out)
{
	if (capture_pids_exist(g, a))
		return EXIT_FAIL;
	struct host_snapshot *h = cmd_host_snapshot(g);
	if (!h)
		return EXIT_FAIL;
	int err;
	struct sink_ctx s = {.file = out};
	if (!(s.w = capture_open(out, &err))) {
		char why[256];
		if (err == -ENOTSUP && la_load(why, sizeof(why)))
			warnx("capture: cannot write bundles: %s", why);
		else if (err == -EACCES || err == -EROFS || err == -EPERM)
			warnx("capture: cannot create %s: %s: name a writable place with -o "
			      "DIR/FILE.tar.gz",
			      out, strerror(-err));
		else
			warnx("capture: cannot create %s: %s", out, strerror(-err));
		host_snapshot_free(h);
		free(h);
		return EXIT_FAIL;
	}
	/* by default thpctl itself, on the live host: a recorded tree does not hold it */
	pid_t self = getpid();
	bool me = !a->npids && g->sr.live;
	struct capture_opts o = {.pids = me ? &self : a->pids,
				 .npids = me ? 1 : a->npids,
				 .all = a->all,
				 .khugepaged = h->has_khugepaged_cpu ? h->khugepaged_pid : 0};
	struct capture_sink sink = {.ctx = &s, .file = sink_file, .skipped = sink_skipped};
	struct capture_stats st;
	int r = add_report(&s, &g->sr, h);
	host_snapshot_free(h);
	free(h);
	if (!r)
		r = capture_host(&g->sr, &o, &sink, &st);
	if (r == -ENOMEM)
		warnx("capture: out of memory");
	if (r) {
		tarw_abort(s.w); /* nothing under the name OUT */
		capture_temp[0] = '\0';
		return EXIT_FAIL;
	}
	r = tarw_close(s.w);
	capture_temp[0] = '\0';
	if (r) {
		if (r == -EEXIST) /* made meanwhile: kept as it is */
			warnx("capture: cannot create %s: %s", out, strerror(EEXIST));
		else
			warnx("capture: %s: write error", out);
		return EXIT_FAIL;
	}
	if (s.noted > 12)
		warnx("capture: ... %zu more not recorded (all listed in capture/manifest)",
		      s.noted - 12);
	struct stat sb;
	long long packed = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
	if (g->json) {
		json_t *j = json_object();
		json_put(j, "file", json_str(out));
		json_put(j, "files", json_u64(st.files));
		json_put(j, "bytes", json_u64(st.bytes));
		json_put(j, "compressed_bytes", packed < 0 ? NULL : json_u64((uint64_t)packed));
		json_put(j, "not_recorded", json_u64(st.skipped));
		json_put(j, "processes", json_u64(st.procs));
		json_put(j, "processes_exited", json_u64(st.procs_gone));
		json_put(j, "kernel_threads", json_u64(st.kthreads));
		return cmd_emit_json(j);
	}
	printf("wrote %s: %zu files, %llu bytes (%lld compressed), %zu not recorded, "
	       "%zu process%s (%zu exited meanwhile)",
	       out, st.files, (unsigned long long)st.bytes, packed, st.skipped, st.procs,
	       st.procs == 1 ? "" : "es", st.procs_gone);
	if (st.kthreads)
		printf(", the stat of %zu kernel thread%s in memory cgroups", st.kthreads,
		       st.kthreads == 1 ? "" : "s");
	fputc('\n', stdout);
	/* the command to paste: quoted, broken only between its words (util/wrap.h) */
	char q[PATH_MAX + 16], cmd[PATH_MAX + 64];
	shell_quote(q, sizeof(q), out, strlen(out));
	snprintf(cmd, sizeof(cmd), "thpctl --sysroot %s status", q);
	fputs("replay:\n", stdout);
	wrap_put_command(stdout, 2, cmd);
	return EXIT_OK;
}

int cmd_capture(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_ARG("output", 'o'),
					     OPT_ARG("pid", OPT_PID),
					     OPT_FLAG("all-processes", OPT_ALL), OPTS_END};
	struct capture_args a = {0};
	int c = args_getopt(g, argc, argv, "ho:", opts, capture_help, capture_opt, &a);
	if ((c = args_no_operand(c, "capture", argc, argv)) >= 0) {
		free(a.pids);
		return c;
	}
	if (a.all && a.npids) {
		warnx("capture: --pid and --all-processes exclude each other");
		free(a.pids);
		return EXIT_USAGE;
	}
	int r = cmd_setup(g);
	if (r) {
		free(a.pids);
		return r;
	}
	char def[64];
	const char *out = a.out;
	if (!out) {
		time_t now = time(NULL);
		struct tm tm;
		strftime(def, sizeof(def), "thpctl-capture-%Y%m%d-%H%M%S.tar.gz",
			 localtime_r(&now, &tm));
		out = def;
	}
	r = capture_run(g, &a, out);
	free(a.pids);
	return r;
}
