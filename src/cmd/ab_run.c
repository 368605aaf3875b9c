// SPDX-License-Identifier: MIT
/* `thpctl ab`: preparing the modes and running CMD under each (see ab.c). */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kernel/exe_file.h"
#include "../kernel/kv.h"
#include "../kernel/proc_read.h"
#include "../kernel/sysfs.h"
#include "../kernel/procs.h"
#include "../kernel/uapi_compat.h"
#include "../lab/child.h"
#include "../lab/churn.h"
#include "../lab/guard.h"
#include "../render/ab.h"
#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/fileio.h"
#include "../util/tarball.h"
#include "ab_int.h"
#include "control.h"

#define AB_TREE_MAX 64	 /* processes of CMD's tree sampled */
#define AB_GRACE_MS 1000 /* on a fatal signal: CMD's time to exit after SIGTERM, then SIGKILL */

/* For the fatal-signal hook: the run in progress (CMD, the leader of its own process group; 0
 * none), the log directory, and whether a failed run's logs stay in it. */
static volatile pid_t sig_child;
static volatile sig_atomic_t sig_keep;
static char sig_logdir[256];

void ab_child_record(pid_t pid)
{
	sig_child = pid;
}

static void say(const char *s)
{
	ssize_t w = write(STDERR_FILENO, s, strlen(s));
	(void)w;
}

/*
 * On a fatal signal (ab's own handler, or the settings guard's before it puts the settings back):
 * CMD's process group SIGTERM, AB_GRACE_MS for CMD to exit, then SIGKILL, reaped; the log
 * directory removed, or said kept. Only system calls: async-signal-safe.
 */
static void ab_on_fatal(void)
{
	pid_t p = sig_child;
	sig_child = 0;
	/* 0: alive and ours. A pid reaped already (ECHILD) is not touched again: its number may
	 * be another process's by now */
	if (p > 0 && waitpid(p, NULL, WNOHANG) == 0) {
		kill(-p, SIGTERM);
		if (!child_stop(p, 0, AB_GRACE_MS)) {
			kill(-p, SIGKILL);
			child_stop(p, 0, -1);
		}
		say("thpctl: ab: interrupted: the run in progress was ended\n");
	}
	if (!sig_logdir[0])
		return;
	if (sig_keep) {
		say("thpctl: ab: run logs kept in ");
		say(sig_logdir);
		say("\n");
	} else {
		tree_remove(sig_logdir);
	}
	sig_logdir[0] = '\0';
}

static void ab_signal(int sig)
{
	int saved = errno;
	ab_on_fatal();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/* ab_on_fatal on the guard's fatal signals, now (an inherited SIG_IGN stays ignored) and under
 * the guard's own handler once a host: mode takes the settings lock. */
static void catch_signals(void)
{
	sigset_t set;
	guard_fatal_sigset(&set);
	guard_at_signal(ab_on_fatal);
	struct sigaction sa = {.sa_handler = ab_signal}, old;
	sigemptyset(&sa.sa_mask);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&set, s) == 1 && sigaction(s, NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(s, &sa, NULL);
}

int ab_metric_compile(struct ab_ctx *c, int i)
{
	return regcomp(&c->re[i], c->metrics[i].regex, REG_EXTENDED) ? -1 : 0;
}

/* Whether this kernel takes PR_THP_DISABLE_EXCEPT_ADVISED: tried in a child. 0 or -errno. */
static int probe_except_advised(void)
{
	pid_t p = fork();
	if (p < 0)
		return -errno;
	if (p == 0)
		_exit(prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0)
			      ? errno & 0x7f
			      : 0);
	int st;
	if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st))
		return -ECHILD;
	return -WEXITSTATUS(st);
}

/* The plan of host mode M (KEY=VALUE,...). -1 to go on, else an exit code. */
static int prepare_host(struct ab_ctx *c, int i)
{
	struct ab_mode *m = &c->modes[i];
	if (geteuid() != 0) {
		warnx("ab: mode %s changes host settings and needs root (nothing was run)",
		      m->name);
		return EXIT_FAIL;
	}
	static struct thp_knobs k;
	uint64_t pmd_nr;
	if (control_read_knobs(c->g, "ab", &k, &pmd_nr))
		return EXIT_FAIL;
	if (!(c->plans[i] = calloc(1, sizeof(*c->plans[i])))) {
		warnx("out of memory");
		return EXIT_FAIL;
	}
	plan_init(c->plans[i]);
	char buf[AB_NAME_LEN], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", m->arg);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		plan_add_arg(c->plans[i], &k, pmd_nr, w);
	if (c->plans[i]->nbad) {
		control_report_notes("ab", c->plans[i], false);
		return EXIT_USAGE;
	}
	return -1;
}

/* CMD[0] found on PATH into c->exe, so each run skips the search ("" when not found: execvpe says why). */
static void resolve_cmd(struct ab_ctx *c)
{
	const char *path = getenv("PATH");
	if (strchr(c->cmd[0], '/') || !path)
		return;
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s", path);
	char *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (snprintf(c->exe, sizeof(c->exe), "%s/%s", *d ? d : ".", c->cmd[0]) <
			    (int)sizeof(c->exe) &&
		    access(c->exe, X_OK) == 0)
			return;
	}
	c->exe[0] = '\0';
}

bool ab_cmd_static(struct ab_ctx *c)
{
	bool dyn;
	resolve_cmd(c);
	return exe_file_dynamic(c->exe[0] ? c->exe : c->cmd[0], &dyn) == 0 && !dyn;
}

int ab_prepare(struct ab_ctx *c)
{
	resolve_cmd(c);
	for (int i = 0; i < c->nmodes; i++) {
		struct ab_mode *m = &c->modes[i];
		if (m->kind == AB_SET) {
			int r = prepare_host(c, i);
			if (r >= 0)
				return r;
		} else if (m->kind == AB_SWEEP && !c->sweep_so[0] &&
			   lab_helper_find("thpctl-sweep.so", R_OK, c->sweep_so,
					   sizeof(c->sweep_so))) {
			warnx("ab: mode %s needs thpctl-sweep.so beside thpctl, one directory up or "
			      "in ../libexec/thpctl/ (make build/thpctl-sweep.so)",
			      m->name);
			return EXIT_FAIL;
		} else if (m->kind == AB_EXCEPT_ADVISED) {
			int e = probe_except_advised();
			if (e) {
				m->skipped = true;
				snprintf(
					m->skip_reason, sizeof(m->skip_reason),
					"this kernel has no PR_THP_DISABLE_EXCEPT_ADVISED (6.18+): %s",
					strerror(-e));
			}
		}
	}
	char err[300];
	if (child_dir_make(c->logdir, sizeof(c->logdir), "ab", err, sizeof(err))) {
		warnx("ab: cannot make a log directory: %s", err);
		return EXIT_FAIL;
	}
	snprintf(sig_logdir, sizeof(sig_logdir), "%s", c->logdir);
	catch_signals();
	/* said before the first run, as every changer does: on stderr, so --json stays clean */
	ab_render_host_notice(stderr, c->modes, c->plans, c->nmodes, thp_dir_host(&c->g->sr),
			      guard_journal_path());
	return -1;
}

/* Host-wide vmstat counters of AB_COUNTER into V (-1 unknown). */
static void read_counters(const struct sysroot *sr, int64_t v[AC_N])
{
	struct kvlist l = {0};
	bool ok = vmstat_read(sr, &l) == 0;
	for (int i = 0; i < AC_N; i++) {
		uint64_t x;
		v[i] = ok && kv_get(&l, ab_counter_name((enum ab_counter)i), &x) && x < INT64_MAX
			       ? (int64_t)x
			       : -1;
	}
	kvlist_free(&l);
}

/* AnonHugePages and Anonymous (kB) summed over the tree of PID, into the run's peak. */
static void sample_tree(const struct sysroot *sr, pid_t pid, struct proc_info *pi,
			struct ab_run *run)
{
	pid_t t[AB_TREE_MAX];
	int n = procs_tree(sr, pid, t, AB_TREE_MAX);
	int64_t ahp = 0, anon = 0;
	int got = 0;
	for (int i = 0; i < n; i++) {
		if (proc_read(sr, t[i], PROC_ROLLUP, pi) || pi->rollup_err)
			continue;
		ahp += (int64_t)pi->t.kb[SM_ANON_HUGE];
		anon += (int64_t)pi->t.kb[SM_ANONYMOUS];
		got++;
	}
	if (!got)
		return;
	run->samples++;
	if (anon > run->anon_max_kb)
		run->anon_max_kb = anon;
	/* of the samples at the peak, the one with the most anonymous memory: huge pages fault
	 * in before the small ones around them fill in, so the first peak sample overstates */
	if (ahp > run->ahp_peak_kb || run->ahp_peak_kb < 0 ||
	    (ahp == run->ahp_peak_kb && anon > run->anon_peak_kb)) {
		run->ahp_peak_kb = ahp;
		run->anon_peak_kb = anon;
	}
}

/* Wait for PID, sampling its tree (1, 2, 4 ... 64 ms, then every 100 ms). Wait status, or -1. */
static int watch(const struct ab_ctx *c, pid_t pid, struct ab_run *run, struct rusage *ru,
		 bool *timed_out)
{
	struct proc_info pi = {0};
	int pfd = (int)syscall(__NR_pidfd_open, pid, 0);
	double t0 = mono_s();
	int step = 1,
	    st = -1; /* ms: 1, 2, 4 ... 64, then every 100 ms: short runs get samples too */
	for (;;) {
		if (pfd >= 0) {
			struct pollfd p = {.fd = pfd, .events = POLLIN};
			poll(&p, 1, step);
		} else {
			usleep((useconds_t)step * 1000);
		}
		pid_t w = wait4(pid, &st, WNOHANG, ru);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		sample_tree(&c->g->sr, pid, &pi, run);
		if (step < 100)
			step = step * 2 > 100 ? 100 : step * 2;
		if (mono_s() - t0 > (double)c->timeout_s) {
			*timed_out = true;
			kill(-pid, SIGKILL); /* its process group: CMD's tree */
			wait4(pid, &st, 0, ru);
			break;
		}
	}
	if (pfd >= 0)
		close(pfd);
	proc_info_free(&pi);
	return st;
}

/* The metrics of RUN from its log at PATH: each regex's first match (its first group, else the
 * whole match) read as a number, or why not (enum ab_metric_got). */
static void read_metrics(const struct ab_ctx *c, const char *path, struct ab_run *run)
{
	struct buf b = {0};
	if (!c->nmetrics)
		return;
	if (read_file_at(AT_FDCWD, path, &b, AB_OUTPUT_MAX) || buf_reserve(&b, b.len + 1)) {
		for (int k = 0; k < c->nmetrics; k++)
			run->metric_got[k] = AM_UNREAD;
		goto out;
	}
	/* regexec reads a string: a NUL in the output would end it early */
	for (size_t i = 0; i < b.len; i++)
		if (!b.p[i])
			b.p[i] = ' ';
	b.p[b.len] = '\0';
	for (int k = 0; k < c->nmetrics; k++) {
		regmatch_t mt[2];
		run->metric_got[k] = AM_NO_MATCH;
		if (regexec(&c->re[k], b.p, 2, mt, 0))
			continue;
		regmatch_t *g = mt[1].rm_so >= 0 ? &mt[1] : &mt[0];
		char num[64];
		int len = (int)(g->rm_eo - g->rm_so);
		snprintf(num, sizeof(num), "%.*s", len < 63 ? len : 63, b.p + g->rm_so);
		char *e;
		double v = strtod(num, &e);
		run->metric_got[k] = e != num && isfinite(v) ? AM_VALUE : AM_NOT_NUMBER;
		run->metric[k] = v;
	}
out:
	buf_free(&b);
}

/* Print the last lines of the log at PATH on stderr. */
static void log_tail(const char *path)
{
	char t[8192];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd >= 0 && fstat(fd, &sb) == 0) {
		off_t off = sb.st_size > (off_t)sizeof(t) ? sb.st_size - (off_t)sizeof(t) : 0;
		n = pread_full(fd, t, sizeof(t), (uint64_t)off);
	}
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return;
	size_t i = (size_t)n, lines = 0;
	while (i > 0 && lines <= 10)
		if (t[--i] == '\n')
			lines++;
	if (t[i] == '\n')
		i++;
	if (i == (size_t)n)
		fprintf(stderr, "--- %s: no output ---\n", path);
	else
		fprintf(stderr, "--- last lines of %s ---\n%.*s%s", path, (int)((size_t)n - i),
			t + i, t[n - 1] == '\n' ? "" : "\n");
}

/* "run 2" or "warm-up run 1": run NTH (0-based, warm-up first) of a mode, into OUT. */
static const char *run_name(const struct ab_ctx *c, int nth, char *out, size_t n)
{
	if (nth < c->warmup)
		snprintf(out, n, "warm-up run %d", nth + 1);
	else
		snprintf(out, n, "run %ld", nth - c->warmup + 1);
	return out;
}

/* One run of mode I. 0, or -1 when the mode failed (said on stderr). */
static int run_once(struct ab_ctx *c, int i, int nth, struct ab_run *run)
{
	struct ab_mode *m = &c->modes[i];
	memset(run, 0, sizeof(*run));
	run->ahp_peak_kb = run->anon_peak_kb = run->anon_max_kb = -1;
	char path[128];
	snprintf(path, sizeof(path), "%s/%d-%d.log", c->logdir, i, nth);
	int logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (logfd < 0) {
		warn("ab: %s", path);
		return -1;
	}
	if (m->kind == AB_SET && control_apply_held(c->g, "ab", c->plans[i], false)) {
		close(logfd);
		return -1;
	}
	int64_t before[AC_N], after[AC_N];
	read_counters(&c->g->sr, before);
	fflush(NULL);
	uint64_t t0;
	pid_t pid = ab_start(c, m, logfd, &t0);
	close(logfd);
	struct rusage ru = {0};
	bool timed_out = false;
	/* not started: as the shell says it (127 not found, 126 not runnable) */
	int st = pid < 0 ? W_EXITCODE(pid == -ENOENT ? 127 : 126, 0)
			 : watch(c, pid, run, &ru, &timed_out);
	sig_child = 0; /* reaped */
	run->wall_s = (double)(mono_ns() - t0) / 1e9;
	read_counters(&c->g->sr, after);
	if (m->kind == AB_SET && control_undo())
		warnx("ab: mode %s: a setting could not be put back (see above)", m->name);
	run->status = st;
	run->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	run->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	run->maxrss_kb = (uint64_t)ru.ru_maxrss;
	run->minflt = (uint64_t)ru.ru_minflt;
	for (int k = 0; k < AC_N; k++)
		run->delta[k] = before[k] >= 0 && after[k] >= before[k] ? after[k] - before[k] : -1;
	run->ok = st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && !timed_out;
	read_metrics(c, path, run);
	if (run->ok)
		return 0;
	m->fail = timed_out	    ? AF_TIMEOUT
		  : pid < 0	    ? AF_NOT_STARTED
		  : WIFSIGNALED(st) ? AF_SIGNAL
				    : AF_EXIT;
	m->fail_code = m->fail == AF_NOT_STARTED ? (int)-pid
		       : m->fail == AF_SIGNAL	 ? WTERMSIG(st)
		       : m->fail == AF_EXIT	 ? WEXITSTATUS(st)
						 : 0;
	m->fail_run = nth;
	char rn[32];
	run_name(c, nth, rn, sizeof(rn));
	if (m->fail == AF_TIMEOUT)
		warnx("ab: mode %s: %s ran past --timeout %ld s: killed", m->name, rn,
		      c->timeout_s);
	else if (m->fail == AF_NOT_STARTED)
		warnx("ab: mode %s: %s could not be started: %s", m->name, c->cmd[0],
		      strerror(m->fail_code));
	else if (m->fail == AF_SIGNAL)
		warnx("ab: mode %s: %s was killed by signal %d (%s)", m->name, rn, m->fail_code,
		      strsignal(m->fail_code));
	else
		warnx("ab: mode %s: %s exited with status %d", m->name, rn, m->fail_code);
	log_tail(path);
	c->keep_logs = true;
	sig_keep = 1;
	return -1;
}

int ab_loop(struct ab_ctx *c)
{
	int ret = EXIT_OK, total = (int)(c->warmup + c->runs) * c->nmodes, done = 0;
	struct progress pr;
	progress_start(&pr, "ab runs");
	for (long r = 0; r < c->warmup + c->runs; r++)
		for (int i = 0; i < c->nmodes; i++) {
			struct ab_mode *m = &c->modes[i];
			progress_update(&pr, (size_t)done++, (size_t)total);
			if (m->skipped || m->failed)
				continue;
			struct ab_run run;
			if (run_once(c, i, (int)r, &run)) {
				m->failed = true;
				ret = EXIT_FAIL;
				continue;
			}
			if (r >= c->warmup && m->nruns < AB_MAX_RUNS)
				m->runs[m->nruns++] = run;
		}
	progress_end(&pr);
	return ret;
}

void ab_ctx_free(struct ab_ctx *c)
{
	for (int i = 0; i < c->nmetrics; i++)
		regfree(&c->re[i]);
	for (int i = 0; i < c->nmodes; i++)
		free(c->plans[i]);
	sig_logdir[0] = '\0'; /* removed (or kept) here from now on */
	if (c->logdir[0] && !c->keep_logs) {
		tree_remove(c->logdir);
	} else if (c->logdir[0]) {
		fprintf(stderr, "thpctl: ab: run logs kept in %s\n", c->logdir);
	}
}
