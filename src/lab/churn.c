// SPDX-License-Identifier: MIT
/* thpctl-churn children for `lab allocators` (churn.h). */
#include "churn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/exe.h"
#include "../kernel/ledger.h"
#include "../kernel/proc_read.h"
#include "../model/ledger.h"
#include "../util/clock.h"
#include "guard.h"

/* Every child alive, for the fatal-signal hook (async-signal-safe: kill only). */
static volatile pid_t alive[CHURN_MAX];

static void on_fatal(void)
{
	for (int i = 0; i < CHURN_MAX; i++)
		if (alive[i] > 0)
			kill(alive[i], SIGKILL);
}

static void track(pid_t pid, bool add)
{
	for (int i = 0; i < CHURN_MAX; i++)
		if (add ? alive[i] <= 0 : alive[i] == pid) {
			alive[i] = add ? pid : 0;
			return;
		}
}

int lab_helper_find(const char *name, int mode, char *out, size_t n)
{
	char self[PATH_MAX];
	if (exe_self_path(self, sizeof(self)))
		return -ENOENT;
	char *slash = strrchr(self, '/');
	*slash = '\0';
	static const char *const rel[] = {"/", "/../", "/../libexec/thpctl/"};
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char p[PATH_MAX + 64];
		snprintf(p, sizeof(p), "%s%s%s", self, rel[i], name);
		char *real = realpath(p, NULL);
		if (real && access(real, mode) == 0 && strlen(real) < n) {
			snprintf(out, n, "%s", real);
			free(real);
			return 0;
		}
		free(real);
	}
	return -ENOENT;
}

int churn_find(char *out, size_t n)
{
	return lab_helper_find("thpctl-churn", X_OK, out, n);
}

int churn_parse_ready(const char *line, struct churn *c)
{
	unsigned long long live, nlive, alloc;
	char rel[48];
	int used = 0;
	if (sscanf(line, "ready %llu %llu %llu %47s%n", &live, &nlive, &alloc, rel, &used) != 4 ||
	    (line[used] && line[used] != '\n') || live > alloc || nlive > alloc)
		return -EINVAL;
	c->live_bytes = live;
	c->live_objects = nlive;
	c->alloc_bytes = alloc;
	snprintf(c->release, sizeof(c->release), "%s", rel);
	return 0;
}

/* One line from the child's stdout within TIMEOUT_MS into LINE. 0, -ETIMEDOUT, -EPIPE. */
static int read_line(struct churn *c, char *line, size_t n, int timeout_ms)
{
	size_t got = 0;
	double end = mono_ms() + timeout_ms;
	while (got + 1 < n) {
		int left = (int)(end - mono_ms());
		struct pollfd p = {.fd = c->out, .events = POLLIN};
		if (left <= 0)
			return -ETIMEDOUT;
		int r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r ? -errno : -ETIMEDOUT;
		ssize_t k = read(c->out, line + got, 1);
		if (k <= 0)
			return -EPIPE;
		if (line[got++] == '\n')
			break;
	}
	line[got] = '\0';
	return 0;
}

static void child(const char *prog, const struct churn_spec *sp, const char *const *env, bool nothp,
		  int in, int out)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (nothp && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(126);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	dup2(in, 0);
	dup2(out, 1);
	int nul = open("/dev/null", O_WRONLY);
	if (nul >= 0)
		dup2(nul, 2);
	char a[6][24];
	snprintf(a[0], sizeof(a[0]), "%u", sp->threads);
	snprintf(a[1], sizeof(a[1]), "%lu", sp->objects);
	snprintf(a[2], sizeof(a[2]), "%u", sp->min);
	snprintf(a[3], sizeof(a[3]), "%u", sp->max);
	snprintf(a[4], sizeof(a[4]), "%u", sp->keep);
	snprintf(a[5], sizeof(a[5]), "%lu", sp->seed);
	char *argv[] = {(char *)prog, a[0], a[1], a[2], a[3], a[4], a[5], NULL};
	const char *envp[8] = {"PATH=/usr/bin:/bin"};
	for (int i = 0; env && env[i] && i < 6; i++)
		envp[i + 1] = env[i];
	execve(prog, argv, (char **)envp);
	_exit(127);
}

int churn_start(struct churn *c, const char *prog, const struct churn_spec *sp,
		const char *const *env, bool nothp, char *why, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->in = c->out = -1;
	int pin[2], pout[2];
	if (pipe2(pin, O_CLOEXEC))
		return -errno;
	if (pipe2(pout, O_CLOEXEC)) {
		int e = -errno;
		close(pin[0]);
		close(pin[1]);
		return e;
	}
	guard_at_signal(on_fatal);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		child(prog, sp, env, nothp, pin[0], pout[1]);
	int e = pid < 0 ? -errno : 0;
	close(pin[0]);
	close(pout[1]);
	c->in = pin[1];
	c->out = pout[0];
	c->pipes = true;
	if (e) {
		lab_fmt(why, n, "fork: %s", strerror(-e));
		churn_stop(c);
		return e;
	}
	c->pid = pid;
	track(pid, true);
	char line[128];
	e = read_line(c, line, sizeof(line), 10000);
	if (!e && strcmp(line, "start\n"))
		e = -EPROTO;
	if (e) {
		lab_fmt(why, n, "%s did not start: %s", prog,
			e == -EPIPE ? "it exited" : strerror(-e));
		churn_stop(c);
	}
	return e;
}

/*
 * Write LEN bytes of BUF to the pipe FD with SIGPIPE blocked: a reader gone
 * is -EPIPE, not the end of thpctl (the guard's handler would restore and
 * die, or the default kill it). A SIGPIPE the write raised is taken off the
 * pending set before the mask goes back; one pending before stays pending.
 */
static int pipe_write(int fd, const char *buf, size_t len)
{
	sigset_t pipe_set, old, pending;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	bool was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	ssize_t w;
	do
		w = write(fd, buf, len);
	while (w < 0 && errno == EINTR);
	int e = w == (ssize_t)len ? 0 : w < 0 ? -errno : -EPIPE;
	if (e == -EPIPE && !was_pending) {
		struct timespec zero = {0, 0};
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}

int churn_go(struct churn *c, int timeout_ms, char *why, size_t n)
{
	char line[128];
	int e = c->pipes && c->pid > 0 ? pipe_write(c->in, "go\n", 3) : -ESRCH;
	if (!e)
		e = read_line(c, line, sizeof(line), timeout_ms);
	if (!e && churn_parse_ready(line, c))
		e = -EPROTO;
	if (e)
		lab_fmt(why, n, "no \"ready\" from thpctl-churn: %s",
			e == -EPIPE   ? "it exited (out of memory?)"
			: e == -ESRCH ? "it was not started"
				      : strerror(-e));
	return e;
}

void churn_stop(struct churn *c)
{
	if (!c->pipes)
		return; /* never started: fds 0 are not its pipes, pid 0 not its child */
	if (c->in >= 0)
		close(c->in);
	c->in = -1;
	if (c->pid > 0) {
		int st;
		double end = mono_ms() + 2000;
		while (waitpid(c->pid, &st, WNOHANG) == 0) {
			if (mono_ms() > end) {
				kill(c->pid, SIGKILL);
				waitpid(c->pid, &st, 0);
				break;
			}
			usleep(10000);
		}
		track(c->pid, false);
		c->pid = 0;
	}
	if (c->out >= 0)
		close(c->out);
	c->out = -1;
	c->pipes = false;
}

struct meas_ctx {
	struct ledger_vmas lv;
	const char *policy;
};

static int add_vma(const struct smaps_vma *v, void *arg)
{
	struct meas_ctx *m = arg;
	ledger_vmas_add(&m->lv, v, m->policy);
	return m->lv.err;
}

int churn_measure(const struct lab_ctx *ctx, pid_t pid, const char *policy, long max_ptes_none,
		  struct churn_meas *m)
{
	*m = (struct churn_meas){
		.rss_kb = -1, .anon_kb = -1, .ahp_kb = -1, .invented_kb = -1, .creep_kb = -1};
	struct meas_ctx mc = {.policy = policy};
	struct proc_info pi = {.vma_cb = add_vma, .vma_ctx = &mc};
	int r = proc_read(ctx->sr, pid, PROC_SMAPS, &pi);
	if (!r && pi.smaps_err)
		r = pi.smaps_err;
	if (!r) {
		m->rss_kb = (int64_t)pi.t.kb[SM_RSS];
		m->anon_kb = (int64_t)pi.t.kb[SM_ANONYMOUS];
		m->ahp_kb = (int64_t)pi.t.kb[SM_ANON_HUGE];
		int pmd_order = 0;
		while ((1ull << pmd_order) * (uint64_t)ctx->page_size < ctx->pmd_size)
			pmd_order++;
		struct ledger_opts o = {.k = 8,
					.held = false,
					.budget_ms = 2000,
					.max_ptes_none = max_ptes_none,
					.page = (unsigned)ctx->page_size,
					.pmd_order = pmd_order};
		struct ledger_raw raw;
		int s = ledger_scan(ctx->sr, pid, mc.lv.v, mc.lv.n, &o, &raw);
		struct thp_ledger l;
		ledger_build(m->ahp_kb, &raw, s, o.k, false, max_ptes_none,
			     (unsigned)(ctx->page_size >> 10), pmd_order, &l);
		m->invented_kb = l.invented_kb;
		m->creep_kb = l.creep_kb;
		m->ok = true;
	}
	ledger_vmas_free(&mc.lv);
	proc_info_free(&pi);
	return r;
}
