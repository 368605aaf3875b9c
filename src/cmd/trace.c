// SPDX-License-Identifier: MIT
/* `thpctl trace stalls`: which process waited in compaction or reclaim, how long, and why. */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/proc_read.h"
#include "../kernel/tracefs.h"
#include "../lab/guard.h"
#include "../model/stalls.h"
#include "../render/stalls.h"
#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/num.h"
#include "../util/wrap.h"
#include "args.h"
#include "common.h"

static void trace_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl trace stalls [--duration S] [--pid PID] [--json]\n\n"
		"Trace, as root, the tasks that stall in direct compaction or direct reclaim, and\n"
		"what khugepaged and MADV_COLLAPSE do. Tracepoints (tracefs):\n"
		"compaction:mm_compaction_begin/_end, mm_compaction_try_to_compact_pages (order),\n"
		"vmscan:mm_vmscan_direct_reclaim_begin/_end, and huge_memory:\n"
		"mm_khugepaged_scan_pmd, mm_collapse_huge_page, mm_collapse_huge_page_isolate\n"
		"(+ mm_khugepaged_scan_file, mm_khugepaged_collapse_file where offered).\n"
		"Begin/end pairs are matched per task and summarised per process: stall count,\n"
		"total, p50/p99/max latency, why (compaction end status, pages reclaimed, the\n"
		"order asked for), a log2 latency histogram, collapse events by status, and the\n"
		"cost of tracing itself.\n\n"
		"options:\n"
		"  --duration S   trace for S seconds (default 10; 0: until Ctrl-C)\n"
		"  --pid PID      only PID, its threads and the tasks it forks from now on\n"
		"                 (khugepaged's work on its memory is then not seen)\n" GLOBAL_HELP
		"\nIt uses a private instance, instances/thpctl-<pid>, so the host's own trace\n"
		"and other tools' instances are not touched, and removes it at the end; if\n"
		"tracefs is not mounted it mounts a private one that the host never sees. The\n"
		"instance is journalled under /run/thpctl: after a SIGKILL the next thpctl\n"
		"command removes it. Ctrl-C (SIGINT) or SIGTERM ends the trace early; the\n"
		"results are printed all the same. Timestamps have microsecond resolution.\n");
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double cpu_s(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* ---- what we set up, undone at the end, on error exits and after signals ---- */

static const char *const events[] = {
	"compaction/mm_compaction_begin",
	"compaction/mm_compaction_end",
	"compaction/mm_compaction_try_to_compact_pages",
	"vmscan/mm_vmscan_direct_reclaim_begin",
	"vmscan/mm_vmscan_direct_reclaim_end",
	"huge_memory/mm_khugepaged_scan_pmd",
	"huge_memory/mm_collapse_huge_page",
	"huge_memory/mm_collapse_huge_page_isolate",
	"huge_memory/mm_khugepaged_scan_file",
	"huge_memory/mm_khugepaged_collapse_file",
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))
#define NREQUIRED 2 /* the compaction pair; everything else is optional */

static struct {
	struct tracefs tf;
	bool opened, journalled;
	int pipe;
} st = {.pipe = -1};

/* Stop recording, remove the instance, forget the journal entry, unmount. Idempotent. */
static void teardown(void)
{
	if (st.pipe >= 0)
		close(st.pipe);
	st.pipe = -1;
	if (!st.opened)
		return;
	if (st.tf.inst >= 0) {
		tracefs_iwrite(&st.tf, "tracing_on", "0");
		tracefs_iwrite(&st.tf, "events/enable", "0");
	}
	char name[sizeof(st.tf.name)];
	snprintf(name, sizeof(name), "%s", st.tf.name);
	int r = tracefs_instance_remove(&st.tf);
	if (r)
		warnx("trace stalls: could not remove tracefs instance %s: %s (the next thpctl command retries)",
		      name, strerror(-r));
	else if (st.journalled)
		guard_undo_done(GUARD_UNDO_TRACEFS_INSTANCE, name);
	tracefs_close(&st.tf);
	st.opened = false;
}

/* ---- pid -> process, resolved while the tasks still live ---- */

struct pidname {
	int pid, tgid;
	char name[TRACE_COMM_LEN];
};

struct resolver {
	const struct sysroot *sr;
	struct pidname *v; /* sorted by pid */
	size_t n, cap;
	size_t tasks_done;    /* stalls tasks looked up so far */
	size_t collapse_done; /* collapse entries looked up so far */
	struct proc_info pi;
};

static struct pidname *res_find(struct resolver *r, int pid, size_t *at)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < r->n && r->v[lo].pid == pid ? &r->v[lo] : NULL;
}

/* Look PID up in proc/PID/status (Tgid, and the process's Name) and remember it. */
static void res_add(struct resolver *r, int pid)
{
	size_t at;
	if (res_find(r, pid, &at))
		return;
	struct pidname pn = {.pid = pid, .tgid = -1};
	if (proc_read(r->sr, pid, PROC_STATUS, &r->pi) == 0 && (r->pi.got & PROC_STATUS)) {
		pn.tgid = r->pi.st.tgid > 0 && r->pi.st.tgid <= INT_MAX ? (int)r->pi.st.tgid : -1;
		if (pn.tgid > 0 && pn.tgid != pid) {
			/* the name of the process, not of the thread */
			if (proc_read(r->sr, pn.tgid, PROC_STATUS, &r->pi) == 0 &&
			    (r->pi.got & PROC_STATUS))
				snprintf(pn.name, sizeof(pn.name), "%s", r->pi.st.name);
		} else {
			snprintf(pn.name, sizeof(pn.name), "%s", r->pi.st.name);
		}
	}
	if (array_reserve(&r->v, &r->cap, r->n + 1, sizeof(*r->v), 64))
		return;
	memmove(r->v + at + 1, r->v + at, (r->n - at) * sizeof(*r->v));
	r->v[at] = pn;
	r->n++;
}

/* Resolve the tasks the trace has shown since the last call. */
static void res_catch_up(struct resolver *r, const struct stalls *s)
{
	for (; r->tasks_done < s->ntasks; r->tasks_done++)
		res_add(r, stalls_task_pid(s, r->tasks_done));
	for (; r->collapse_done < s->ncollapse; r->collapse_done++)
		res_add(r, s->collapse[r->collapse_done].tgid);
}

static bool res_lookup(void *ctx, int pid, int *tgid, char *name, size_t n)
{
	struct resolver *r = ctx;
	size_t at;
	const struct pidname *pn = res_find(r, pid, &at);
	if (!pn || pn->tgid <= 0)
		return false;
	*tgid = pn->tgid;
	snprintf(name, n, "%s", pn->name);
	return true;
}

/* ---- reading ---- */

struct reader {
	struct stalls *s;
	char *buf; /* partial line carried over */
	size_t len, cap;
	uint64_t bytes;
};

/* Read what trace_pipe has now (non-blocking). Returns 0, or -errno of a read error. */
static int drain(int fd, struct reader *rd)
{
	for (;;) {
		if (array_reserve(&rd->buf, &rd->cap, rd->len + 65536, 1, 262144))
			return -ENOMEM;
		ssize_t n = read(fd, rd->buf + rd->len, rd->cap - rd->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return 0;
		rd->bytes += (uint64_t)n;
		rd->len += (size_t)n;
		/* account whole lines, keep the tail */
		char *last = memrchr(rd->buf, '\n', rd->len);
		if (last) {
			size_t whole = (size_t)(last - rd->buf) + 1;
			stalls_feed(rd->s, rd->buf, whole);
			memmove(rd->buf, rd->buf + whole, rd->len - whole);
			rd->len -= whole;
		} else if (rd->len > 1 << 20) {
			rd->len = 0; /* no newline in 1 MiB: not trace text */
		}
	}
}

/*
 * The cost of recording one event in the ring buffer, as seen by the traced
 * task: writes to the instance's trace_marker (reserve, copy, commit) minus
 * the same writes to /dev/null (the syscall). -1 when it cannot be measured,
 * and then *NOISE is set when it was measured but came out <= 0.
 */
static double calibrate(struct tracefs *tf, bool *noise)
{
	int m = tracefs_iopen(tf, "trace_marker", O_WRONLY);
	int z = open("/dev/null", O_WRONLY | O_CLOEXEC);
	double cost = -1;
	if (m >= 0 && z >= 0) {
		enum { N = 4000 };
		static const char msg[] = "thpctl calibration";
		double best[2] = {1e9, 1e9};
		for (int round = 0; round < 3; round++) {
			for (int w = 0; w < 2; w++) {
				double t0 = mono_s();
				for (int i = 0; i < N; i++)
					if (write(w ? z : m, msg, sizeof(msg) - 1) < 0)
						break;
				double t = (mono_s() - t0) / N;
				best[w] = t < best[w] ? t : best[w];
			}
		}
		cost = (best[0] - best[1]) * 1e9;
		/* a marker write no dearer than /dev/null: the difference is noise, unknown */
		if (cost <= 0) {
			cost = -1;
			*noise = true;
		}
	}
	if (m >= 0)
		close(m);
	if (z >= 0)
		close(z);
	/* empty the buffer of the markers */
	int t = tracefs_iopen(tf, "trace", O_WRONLY | O_TRUNC);
	if (t >= 0)
		close(t);
	return cost;
}

/* --pid: PID's threads into set_event_pid, and event-fork for what it starts later. */
static int set_pid_filter(const struct sysroot *sr, struct tracefs *tf, int pid)
{
	struct proc_info pi = {0};
	int r = proc_read(sr, pid, PROC_TASKS, &pi);
	if (r != -ENOMEM)
		r = pi.tasks_err;
	size_t cap = 16 * (size_t)pi.ntids + 1, len = 0;
	char *list = r ? NULL : malloc(cap);
	if (!r && !list)
		r = -ENOMEM;
	for (int i = 0; !r && i < pi.ntids; i++)
		len += (size_t)snprintf(list + len, cap - len, "%d ", (int)pi.tids[i]);
	if (!r) {
		list[len] = '\0';
		tracefs_iwrite(tf, "options/event-fork", "1");
		r = tracefs_iwrite(tf, "set_event_pid", list);
	}
	free(list);
	proc_info_free(&pi);
	return r;
}

/* Seconds, 0 to a week, with an optional "s": "2.5", "10s". */
static int parse_duration(const char *s, double *out)
{
	char num[64];
	size_t n = strlen(s);
	if (n && s[n - 1] == 's')
		n--;
	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	return str_double(num, 0, 86400 * 7, out);
}

enum { OPT_DURATION = OPT_CMD_BASE, OPT_PID };

/* Options of `trace stalls`. Returns -1 to go on, else the exit code. */
struct topts {
	double *duration;
	pid_t *pid;
};

/* --duration, --pid into CTX (struct topts). */
static int trace_opt(int c, const char *arg, void *ctx)
{
	struct topts *o = ctx;
	if (c == OPT_DURATION) {
		if (parse_duration(arg, o->duration)) {
			warnx("trace stalls: --duration: '%s' is not a number of seconds (0 to 604800)",
			      arg);
			return EXIT_USAGE;
		}
		return -1;
	}
	if (c == OPT_PID) {
		if (str_pid(arg, o->pid)) {
			warnx("trace stalls: --pid: '%s' is not a process id", arg);
			return EXIT_USAGE;
		}
		return -1;
	}
	return -2;
}

static int stalls_opts(struct globals *g, int argc, char **argv, double *duration, pid_t *pid)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_ARG("duration", OPT_DURATION),
					     OPT_ARG("pid", OPT_PID), OPTS_END};
	struct topts o = {duration, pid};
	int c = args_getopt(g, argc, argv, "h", opts, trace_help, trace_opt, &o);
	if (c >= 0)
		return c;
	if (optind < argc) {
		warnx("trace stalls: unexpected argument '%s'", argv[optind]);
		args_usage(trace_help, "trace stalls");
		return EXIT_USAGE;
	}
	return -1;
}

/* What must hold before tracing: a live root, root, PID there. EXIT_OK or EXIT_FAIL. */
static int stalls_checks(struct globals *g, pid_t pid)
{
	if (cmd_setup(g))
		return EXIT_FAIL;
	if (!g->sr.live) {
		warnx("trace stalls: reads the running kernel's tracepoints: not with --sysroot");
		return EXIT_FAIL;
	}
	if (geteuid() != 0) {
		warnx("trace stalls: needs root: tracepoints are read through tracefs, which only "
		      "root can mount and use (try: sudo thpctl trace stalls)");
		return EXIT_FAIL;
	}
	if (pid) {
		struct proc_info pi = {0};
		int gone = proc_read(&g->sr, pid, 0, &pi);
		proc_info_free(&pi);
		if (gone) {
			warnx("trace stalls: no such process %d (--pid)", pid);
			return EXIT_FAIL;
		}
	}
	return EXIT_OK;
}

/* Open tracefs, check the events, journal and create instance NAME. EXIT_OK or EXIT_FAIL. */
static int stalls_open(struct globals *g, struct trace_report *rep, const char *name)
{
	int r = tracefs_open(&st.tf, &g->sr);
	if (r) {
		if (r == -EPERM || r == -EACCES)
			warnx("trace stalls: cannot mount tracefs: %s (CAP_SYS_ADMIN is needed; in a container, "
			      "mount tracefs at /sys/kernel/tracing from the host)",
			      strerror(-r));
		else if (r == -ENODEV)
			warnx("trace stalls: this kernel has no tracefs (CONFIG_TRACING is off)");
		else
			warnx("trace stalls: cannot open or mount tracefs: %s", strerror(-r));
		return EXIT_FAIL;
	}
	st.opened = true;
	atexit(teardown);
	for (size_t i = 0; i < NEVENTS; i++)
		if (!tracefs_has_event(&st.tf, events[i])) {
			if (i < NREQUIRED) {
				warnx("trace stalls: this kernel has no %s tracepoint", events[i]);
				teardown();
				return EXIT_FAIL;
			}
			if (rep->nmissing < 16)
				rep->missing[rep->nmissing++] = events[i];
		}

	/* journal the instance before making it: a SIGKILL between the two leaves nothing */
	r = guard_undo_add("trace stalls", GUARD_UNDO_TRACEFS_INSTANCE, name);
	if (r) {
		warnx("trace stalls: cannot journal tracefs instance %s under %s: %s", name,
		      guard_journal_path(), strerror(-r));
		teardown();
		return EXIT_FAIL;
	}
	st.journalled = true;
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: poll() returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	r = tracefs_instance_create(&st.tf, name);
	if (r == -EEXIST) {
		/* left by an earlier process with our pid that was killed unjournalled */
		snprintf(st.tf.name, sizeof(st.tf.name), "%s", name);
		if (tracefs_instance_remove(&st.tf) == 0)
			r = tracefs_instance_create(&st.tf, name);
	}
	if (r) {
		warnx("trace stalls: cannot create tracefs instance %s: %s", name, strerror(-r));
		guard_undo_done(GUARD_UNDO_TRACEFS_INSTANCE, name);
		st.journalled = false;
		teardown();
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Set the clock (into *CLOCKP), the pid filter, enable the events, open trace_pipe. */
static int stalls_arm(struct globals *g, pid_t pid, struct trace_report *rep, const char **clockp,
		      const char *name)
{
	int r;
	/*
	 * mono: one clock for all CPUs, so a begin on one CPU and its end on
	 * another pair up right ("local", the default, is per-CPU and may drift).
	 */
	const char *clock = *clockp = "mono";
	if (tracefs_iwrite(&st.tf, "trace_clock", clock) &&
	    tracefs_iwrite(&st.tf, "trace_clock", clock = "global"))
		clock = "local";
	*clockp = clock;
	/* wake the reader on any data, not when the buffer is half full (5.x+; best effort) */
	tracefs_iwrite(&st.tf, "buffer_percent", "0");
	if (pid && (r = set_pid_filter(&g->sr, &st.tf, pid))) {
		warnx("trace stalls: --pid %d: cannot set the pid filter: %s", pid, strerror(-r));
		teardown();
		return EXIT_FAIL;
	}
	rep->record_ns = calibrate(&st.tf, &rep->record_noise);
	char rel[64];
	for (size_t i = 0; i < NEVENTS; i++) {
		if (!tracefs_has_event(&st.tf, events[i]))
			continue;
		snprintf(rel, sizeof(rel), "events/%s/enable", events[i]);
		r = tracefs_iwrite(&st.tf, rel, "1");
		if (r && i < NREQUIRED) {
			warnx("trace stalls: cannot enable %s: %s", events[i], strerror(-r));
			teardown();
			return EXIT_FAIL;
		}
	}
	st.pipe = tracefs_iopen(&st.tf, "trace_pipe", O_RDONLY | O_NONBLOCK);
	if (st.pipe < 0) {
		warnx("trace stalls: cannot open trace_pipe of %s: %s", name, strerror(-st.pipe));
		teardown();
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Read trace_pipe into S until the duration ends or a signal comes, resolving pids in RES. */
static void stalls_record(struct globals *g, struct stalls *s, struct resolver *res,
			  struct trace_report *rep)
{
	struct reader rd = {.s = s};
	double cpu0 = cpu_s(), t0 = mono_s(),
	       deadline = rep->duration_s > 0 ? t0 + rep->duration_s : 0;
	if (!g->json && isatty(STDERR_FILENO))
		fprintf(stderr, "thpctl: trace stalls: tracing%s%.0f s (Ctrl-C ends it early)...\n",
			rep->duration_s > 0 ? " for " : " until Ctrl-C",
			rep->duration_s > 0 ? rep->duration_s : 0);
	int rerr = 0;
	while (!stop && !rerr) {
		double left = deadline ? deadline - mono_s() : 0.25;
		if (deadline && left <= 0)
			break;
		int ms = (int)((left < 0.25 ? left : 0.25) * 1000) + 1;
		struct pollfd pfd = {.fd = st.pipe, .events = POLLIN};
		poll(&pfd, 1, ms);
		rerr = drain(st.pipe, &rd);
		res_catch_up(res, s);
	}
	double t1 = mono_s();
	rep->interrupted = stop;
	/* stop recording, then read what is left */
	tracefs_iwrite(&st.tf, "events/enable", "0");
	tracefs_iwrite(&st.tf, "tracing_on", "0");
	if (!rerr)
		rerr = drain(st.pipe, &rd);
	if (rd.len)
		stalls_feed(s, rd.buf, rd.len);
	res_catch_up(res, s);
	rep->reader_cpu_s = cpu_s() - cpu0;
	rep->elapsed_s = t1 - t0;
	rep->bytes = rd.bytes;
	free(rd.buf);
	if (rerr)
		warnx("trace stalls: reading trace_pipe: %s (the results cover the trace up to there)",
		      strerror(-rerr));
}

static int trace_stalls(struct globals *g, int argc, char **argv)
{
	double duration = 10;
	pid_t pid = 0;
	int ret = stalls_opts(g, argc, argv, &duration, &pid);
	if (ret >= 0)
		return ret;
	if (stalls_checks(g, pid))
		return EXIT_FAIL;
	struct trace_report rep = {.duration_s = duration, .pid = pid, .record_ns = -1};
	char name[32];
	snprintf(name, sizeof(name), "thpctl-%d", (int)getpid());
	const char *clock = "mono";
	if (stalls_open(g, &rep, name) || stalls_arm(g, pid, &rep, &clock, name))
		return EXIT_FAIL;
	struct stalls s;
	stalls_init(&s);
	struct resolver res = {.sr = &g->sr};
	stalls_record(g, &s, &res, &rep);

	char where[sizeof(st.tf.where)];
	snprintf(where, sizeof(where), "%s", st.tf.where);
	rep.private_mount = st.tf.private_mount;
	teardown();

	stalls_finish(&s, res_lookup, &res);
	rep.s = &s;
	rep.where = where;
	rep.instance = name;
	rep.clock = clock;
	ret = EXIT_OK;
	if (g->json)
		ret = cmd_emit_json(stalls_render_json(&rep));
	else
		stalls_render_text(stdout, &rep, g->color);
	stalls_free(&s);
	free(res.v);
	proc_info_free(&res.pi);
	return ret;
}

int cmd_trace(struct globals *g, int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		wrap_stdout_help(true);
		trace_help(stdout);
		wrap_stdout_help(false);
		return EXIT_OK;
	}
	/* a usage error like any other: what is wrong, the synopsis, where the options are */
	if (argc < 2 || argv[1][0] == '-') {
		if (argc < 2)
			warnx("trace: give what to trace (the only one: stalls)");
		else
			warnx("trace: give what to trace (stalls) before its options ('%s')",
			      argv[1]);
		args_usage(trace_help, "trace");
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "stalls")) {
		warnx("trace: unknown trace '%s' (the only one: stalls)", argv[1]);
		args_usage(trace_help, "trace");
		return EXIT_USAGE;
	}
	char prog[64];
	snprintf(prog, sizeof(prog), "%s stalls", argv[0]);
	argv[1] = prog;
	optind = 0;
	return trace_stalls(g, argc - 1, argv + 1);
}
