// SPDX-License-Identifier: MIT
#include "common.h"

#include "args.h"

#include "../kernel/fdcache.h"
#include "../kernel/host_snapshot.h"
#include "../kernel/proc_read.h"
#include "../kernel/sample.h"
#include "../render/svg.h"
#include "../render/hint.h"
#include "../render/table.h"
#include "../util/fileio.h"
#include "../util/clock.h"
#include "../util/esc.h"
#include "../util/num.h"
#include "../util/wrap.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool global_opt(struct globals *g, int opt, const char *arg)
{
	const struct args_store st[] = {
		ARGS_ARG(OPT_SYSROOT, &g->sysroot_dir), ARGS_FLAG(OPT_JSON, &g->json),
		ARGS_FLAG(OPT_WAIT, &g->wait), ARGS_FLAG(OPT_WIDE, &g->wide)};
	if (args_store(opt, arg, st, ARGS_N(st)) == -1)
		return true;
	switch (opt) {
	case OPT_NO_COLOR:
		g->no_color = true;
		g->color_opt = 2;
		return true;
	case OPT_COLOR:
		if (strcmp(arg, "auto") == 0)
			g->color_opt = 0;
		else if (strcmp(arg, "always") == 0)
			g->color_opt = 1;
		else if (strcmp(arg, "never") == 0)
			g->color_opt = 2;
		else {
			warnx("--color takes auto, always or never, not '%s'", arg);
			exit(EXIT_USAGE);
		}
		g->no_color = g->color_opt == 2;
		return true;
	default:
		return false;
	}
}

int cmd_term_width(void)
{
	return isatty(STDOUT_FILENO) ? (int)wrap_term_columns(1, 9999) : 0;
}

int cmd_setup(struct globals *g)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	bool autoc = !(nc && *nc) && !(term && strcmp(term, "dumb") == 0) && isatty(STDOUT_FILENO);
	g->color = !g->json && (g->color_opt == 1 || (g->color_opt == 0 && autoc));
	table_set_width(g->json ? 0 : cmd_term_width());
	/* a table wider than the wrapped output is stacked, not word-wrapped (--wide: neither) */
	table_set_stack_width(g->json || g->wide ? 0 : (int)wrap_stdout_width());
	struct stat sb;
	if (g->sysroot_dir && stat(g->sysroot_dir, &sb) == 0 && S_ISREG(sb.st_mode)) {
		int b = bundle_open(g);
		if (b)
			g->sr.dirfd = -1;
		return b;
	}
	int r = sysroot_open(&g->sr, g->sysroot_dir);
	if (r) {
		g->sr.dirfd = -1;
		warnx("cannot open sysroot %s: %s", g->sysroot_dir ? g->sysroot_dir : "/",
		      strerror(-r));
		return EXIT_FAIL;
	}
	/* root denied a process's files on the live host: not a matter of users (render/hint.h) */
	hint_set_as_root(g->sr.live && geteuid() == 0);
	hint_set_live_user(g->sr.live && geteuid() != 0);
	return EXIT_OK;
}

struct host_snapshot *cmd_host_snapshot(struct globals *g)
{
	struct host_snapshot *h = calloc(1, sizeof(*h));
	if (!h || host_snapshot_read(&g->sr, h)) {
		warnx("out of memory");
		if (h)
			host_snapshot_free(h);
		free(h);
		return NULL;
	}
	return h;
}

int cmd_setup_live(struct globals *g, const char *why)
{
	int r = cmd_setup(g);
	if (r)
		return r;
	if (!g->sr.live) {
		warnx("%s", why);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

void cmd_fdcache(struct globals *g, struct fdcache *c)
{
	struct rlimit rl;
	/* the cache, sockets (the exporter's HTTP listener: up to ~300), the rest */
	rlim_t want = FDCACHE_DEFAULT_MAX + 512;
	size_t max = FDCACHE_DEFAULT_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < want) {
			rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur < want)
			max = rl.rlim_cur > 768 ? (size_t)(rl.rlim_cur - 512) : 128;
	}
	fdcache_init(c, max, sample_fdc_mode);
	g->sr.cache = c;
}

static const char *json_cmd = "thpctl";

void cmd_json_name(const char *name)
{
	json_cmd = name;
}

const char *cmd_json_cmd(void)
{
	return json_cmd;
}

int cmd_emit_json(json_t *root)
{
	return cmd_emit_json_as(root, NULL);
}

int cmd_emit_json_streamed(json_t *root, const char *key, size_t n, json_item_fn item, void *ctx)
{
	root = json_with_schema(root, json_cmd, NULL);
	int r = root ? json_dump_streamed(root, stdout, key, n, item, ctx) : -ENOMEM;
	if (r == -ENOMEM || r == -EINVAL)
		warnx("%s building JSON", r == -ENOMEM ? "out of memory" : "internal error");
	return r ? EXIT_FAIL : EXIT_OK;
}

int cmd_emit_json_as(json_t *root, const char *variant)
{
	root = json_with_schema(root, json_cmd, variant);
	if (!root) {
		warnx("out of memory building JSON");
		return EXIT_FAIL;
	}
	int r = json_dump(root, stdout);
	json_decref(root);
	return r ? EXIT_FAIL : EXIT_OK;
}

void progress_start(struct progress *p, const char *what)
{
	p->what = what;
	p->start = p->last = mono_s();
	p->shown = false;
	p->tty = isatty(STDERR_FILENO);
}

void progress_update(struct progress *p, size_t done, size_t total)
{
	if (!p->tty)
		return;
	double t = mono_s();
	if (t - p->start < 1.0 || t - p->last < 0.2)
		return;
	p->last = t;
	p->shown = true;
	/* our own controls: on the stream under the escaping filter (util/esc.h) */
	fprintf(esc_raw_stderr(), "\rthpctl: %s %zu/%zu\033[K", p->what, done, total);
}

void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", esc_raw_stderr());
	p->shown = false;
}

int cmd_global_opts_only(struct globals *g, int argc, char **argv, void (*help)(FILE *f))
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPTS_END};
	return args_getopt(g, argc, argv, "h", opts, help, NULL, NULL);
}

int cmd_output_path_ok(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(st.st_mode) ? 0 : -ERR_NOTREG;
}

bool cmd_nothing_readable(const struct globals *g, const char *what, const struct host_snapshot *h)
{
	if (h->has_vmstat || h->has_meminfo || h->thp.present)
		return false;
	warnx("%s: nothing readable under %s: not a Linux /proc and /sys tree?", what, g->sr.path);
	return true;
}

int cmd_write_report(const char *what, const char *path, const struct hbuf *h)
{
	if (h->err) {
		warnx("%s: out of memory building the report", what);
		return EXIT_FAIL;
	}
	int r = cmd_output_path_ok(path);
	if (!r)
		r = write_file_atomic(path, h->b.p ? h->b.p : "", h->b.len, 0644);
	if (r) {
		warnx("%s: cannot write %s: %s", what, path, path_err_str(r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

FILE *cmd_open_record(const char *what, const char *path)
{
	int r = cmd_output_path_ok(path), fd = -1;
	if (!r) {
		fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
		struct stat st;
		if (fd < 0)
			r = -errno;
		else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
			r = -ERR_NOTREG;
		else if (st.st_size > 0) {
			/* an earlier recording is data: never replaced (capture refuses too) */
			warnx("%s: %s already holds %lld bytes (a recording?): remove it or name another",
			      what, path, (long long)st.st_size);
			close(fd);
			return NULL;
		}
	}
	FILE *f = r ? NULL : fdopen(fd, "w");
	if (!f) {
		warnx("%s: cannot write %s: %s", what, path, path_err_str(r ? r : -errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

int cmd_pid_mm(struct globals *g, const char *who, pid_t pid, struct proc_info *pi)
{
	int k = proc_mm_read(&g->sr, pid, pi);
	switch (k) {
	case PROC_MM_YES:
		/* /proc/TID of a thread reads as a process, but readdir of /proc lists only
		 * processes: one answer for every command, the process to ask about */
		if (pi->st.tgid > 0 && pi->st.tgid != (long)pid) {
			warnx("%s: %d is a thread of process %ld, whose memory map it shares: ask "
			      "about %ld",
			      who, (int)pid, pi->st.tgid, pi->st.tgid);
			return EXIT_FAIL;
		}
		return EXIT_OK;
	case PROC_MM_ABSENT:
		if (g->sr.live)
			warnx("%s: no such process %d", who, (int)pid);
		else /* not that it had exited: a capture records few processes */
			warnx("%s: process %d is not in this recorded tree (thpctl capture records a "
			      "process only when given --pid %d or --all-processes)",
			      who, (int)pid, (int)pid);
		break;
	case PROC_MM_KTHREAD:
		warnx("%s: process %d is a kernel thread: it has no memory map to show", who,
		      (int)pid);
		break;
	case PROC_MM_ZOMBIE:
		warnx("%s: process %d is a zombie (exited, not yet reaped): it has no memory map "
		      "to show",
		      who, (int)pid);
		break;
	case PROC_MM_NONE:
		warnx("%s: process %d has no memory map to show (a kernel thread or a zombie)", who,
		      (int)pid);
		break;
	case PROC_MM_UNREADABLE:
		warnx("%s: process %d: its status cannot be read (%s)", who, (int)pid,
		      read_err_str(pi->status_err));
		break;
	default:
		warnx("%s: out of memory", who);
	}
	return EXIT_FAIL;
}

size_t cmd_pids_no_mm(struct globals *g, const char *who, const pid_t *pids, size_t n,
		      bool (*shown)(const void *ctx, pid_t pid), const void *ctx)
{
	struct proc_info pi = {0};
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += !(shown && shown(ctx, pids[i])) &&
		       cmd_pid_mm(g, who, pids[i], &pi) != EXIT_OK;
	proc_info_free(&pi);
	return bad;
}
