// SPDX-License-Identifier: MIT
/* `thpctl ab`: starting CMD under a mode (ab_start: fork and exec; see ab_int.h for why fork). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../kernel/uapi_compat.h"
#include "../lab/child.h"
#include "../lab/guard.h"
#include "../util/clock.h"
#include "../util/fileio.h"
#include "ab_int.h"

/* ENVP for mode M: this environment with GLIBC_TUNABLES, K=V, or the sweep's LD_PRELOAD and
 * THPCTL_SWEEP_PERCENT set (KV: storage for two strings of N bytes each), or environ itself.
 * NULL on ENOMEM (the caller frees a result that is not environ). */
static char **mode_env(const struct ab_ctx *c, const struct ab_mode *m, char *kv, size_t n)
{
	char *set[2] = {kv, NULL};
	if (m->kind == AB_GLIBC) {
		const char *old = getenv("GLIBC_TUNABLES");
		snprintf(kv, n, "GLIBC_TUNABLES=%s%sglibc.malloc.hugetlb=1", old ? old : "",
			 old ? ":" : "");
	} else if (m->kind == AB_ENV) {
		snprintf(kv, n, "%s", m->arg);
	} else if (m->kind == AB_SWEEP) {
		/* the helper first, then what the user preloads (ld.so takes ':' or ' ') */
		const char *old = getenv("LD_PRELOAD");
		snprintf(kv, n, "LD_PRELOAD=%s%s%s", c->sweep_so, old && *old ? ":" : "",
			 old ? old : "");
		set[1] = kv + n;
		snprintf(set[1], n, "THPCTL_SWEEP_PERCENT=%d", m->percent);
	} else {
		return environ;
	}
	size_t ne = 0, k = 0;
	while (environ[ne])
		ne++;
	char **envp = malloc((ne + 3) * sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < ne; i++) {
		bool replaced = false; /* K=V replaces K's value */
		for (int j = 0; j < 2 && set[j]; j++) {
			size_t klen = (size_t)(strchr(set[j], '=') - set[j]) + 1;
			replaced |= strncmp(environ[i], set[j], klen) == 0;
		}
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (int j = 0; j < 2 && set[j]; j++)
		envp[k++] = set[j];
	envp[k] = NULL;
	return envp;
}

/* What ab_start()'s child says over its pipe: when it execs (STAGE START_EXEC, ERR 0, T_NS), and
 * what failed before CMD ran (a stage and its errno). */
enum { START_PRCTL = 1, START_STDIN, START_EXEC };
struct start_msg {
	int stage, err;
	uint64_t t_ns; /* CLOCK_MONOTONIC (system-wide: the parent's clock too) */
};

/* In ab_start()'s child: the fatal signals' handlers back to their defaults (ab's own would
 * clean up for thpctl: the log directory), an ignored one left ignored as exec leaves it. */
static void child_default_signals(const sigset_t *fatal)
{
	for (int s = 1; s < NSIG; s++) {
		struct sigaction old;
		if (sigismember(fatal, s) == 1 && sigaction(s, NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			signal(s, SIG_DFL);
	}
}

static void child_say(int fd, int stage, int err)
{
	struct start_msg msg = {.stage = stage, .err = err, .t_ns = mono_ns()};
	ssize_t w = write(fd, &msg, sizeof(msg));
	(void)w;
}

/* ab_start()'s child, from fork to exec: async-signal-safe calls only. Never returns. */
static void child_exec(const struct ab_ctx *c, const struct ab_mode *m, char **envp, int logfd,
		       int msgfd, const sigset_t *fatal, const sigset_t *mask, pid_t parent)
{
	int stage = START_PRCTL;
	setpgid(0, 0);
	child_default_signals(fatal);
	/* ab killed outright (SIGKILL: no hook runs) takes CMD with it, not left running on its
	 * own; kept across execve, cleared only for a set-id program. ab already gone: stop */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != parent)
		goto fail;
	/* PR_SET_THP_DISABLE is kept across execve (kernel-thp-abi.md): CMD starts with it */
	if (m->kind == AB_OFF || m->kind == AB_EXCEPT_ADVISED) {
		unsigned long how = m->kind == AB_OFF ? 0 : PR_THP_DISABLE_EXCEPT_ADVISED;
		if (prctl(PR_SET_THP_DISABLE, 1, how, 0, 0))
			goto fail;
	}
	stage = START_STDIN;
	int in = open("/dev/null", O_RDONLY);
	if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(logfd, STDOUT_FILENO) < 0 ||
	    dup2(logfd, STDERR_FILENO) < 0)
		goto fail;
	if (in > STDERR_FILENO)
		close(in);
	sigprocmask(SIG_SETMASK, mask, NULL);
	stage = START_EXEC;
	child_say(msgfd, START_EXEC, 0); /* the run's wall time starts here */
	if (c->exe[0])
		execve(c->exe, c->cmd, envp);
	else
		execvpe(c->cmd[0], c->cmd, envp);
fail:
	child_say(msgfd, stage, errno ? errno : EIO);
	_exit(127);
}

pid_t ab_start(const struct ab_ctx *c, const struct ab_mode *m, int logfd, uint64_t *t0_ns)
{
	static char kv[2 * 8192]; /* two strings: an LD_PRELOAD can be long */
	*t0_ns = mono_ns();
	char **envp = mode_env(c, m, kv, sizeof(kv) / 2);
	int ep[2];
	if (!envp || pipe2(ep, O_CLOEXEC)) {
		int e = envp ? errno : ENOMEM;
		if (envp && envp != environ)
			free(envp);
		dprintf(logfd, "thpctl: ab: cannot start %s: %s\n", c->cmd[0], strerror(e));
		return -e;
	}
	sigset_t fatal, mask;
	guard_fatal_sigset(&fatal);
	/* the fatal signals blocked until the pid is recorded for the hook (in the child until
	 * their handlers are back to the defaults); CMD with thpctl's mask as it was */
	sigprocmask(SIG_BLOCK, &fatal, &mask);
	pid_t parent = getpid(), pid = fork();
	if (pid == 0)
		child_exec(c, m, envp, logfd, ep[1], &fatal, &mask, parent);
	int e = errno;
	if (pid > 0)
		setpgid(pid, pid); /* as the child does: whichever runs first */
	ab_child_record(pid > 0 ? pid : 0);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	close(ep[1]);
	if (envp != environ)
		free(envp);
	/* up to two messages: the exec's time, then (only when it failed) what failed; the
	 * pipe's end (closed at exec) says CMD runs */
	struct start_msg msg[2] = {{0}};
	ssize_t got = 0, r;
	while (pid > 0 && got < (ssize_t)sizeof(msg) &&
	       (r = read_retry(ep[0], (char *)msg + got, sizeof(msg) - (size_t)got)) > 0)
		got += r;
	close(ep[0]);
	if (pid < 0) {
		dprintf(logfd, "thpctl: ab: cannot start %s: fork: %s\n", c->cmd[0], strerror(e));
		return -e;
	}
	if (got >= (ssize_t)sizeof(msg[0]) && msg[0].stage == START_EXEC && !msg[0].err)
		*t0_ns = msg[0].t_ns;
	const struct start_msg *fail = got == (ssize_t)sizeof(msg)		      ? &msg[1]
				       : got >= (ssize_t)sizeof(msg[0]) && msg[0].err ? &msg[0]
										      : NULL;
	if (!fail)
		return pid;
	child_reap(pid);
	ab_child_record(0);
	dprintf(logfd, "thpctl: ab: cannot run %s: %s%s\n", c->cmd[0],
		fail->stage == START_PRCTL   ? "prctl(PR_SET_THP_DISABLE): "
		: fail->stage == START_STDIN ? "its standard streams: "
					     : "",
		strerror(fail->err));
	return -fail->err;
}
