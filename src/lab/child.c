// SPDX-License-Identifier: MIT
/* Children of an experiment: start, stop, reap, and the signal hook's watch list (child.h). */
#include "child.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"

#define RM "/bin/rm"

/* The watched children, read by the signal hook: pid 0 is a free slot. */
static volatile pid_t watched[CHILD_MAX_WATCHED];
static volatile int watch_sig[CHILD_MAX_WATCHED];
static volatile long watch_ms[CHILD_MAX_WATCHED];
static void (*volatile after_stop)(void);

void child_sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool child_stop(pid_t pid, int sig, long ms)
{
	if (pid <= 0)
		return true;
	if (sig)
		kill(pid, sig);
	for (long t = 0; ms < 0 || t <= ms; t += 20) {
		pid_t w = waitpid(pid, NULL, ms < 0 ? 0 : WNOHANG);
		if (w == pid || (w < 0 && errno == ECHILD))
			return true;
		if (w < 0 && errno == EINTR)
			continue;
		child_sleep_ms(20);
	}
	return false;
}

/* The signal hook: every watched child stopped (its way, then SIGKILL), then the owner's cleanup. */
static void on_fatal(void)
{
	for (int i = 0; i < CHILD_MAX_WATCHED; i++) {
		pid_t p = watched[i];
		if (p <= 0)
			continue;
		if (watch_sig[i] == SIGKILL || !child_stop(p, watch_sig[i], watch_ms[i]))
			child_stop(p, SIGKILL, -1);
		watched[i] = 0;
	}
	void (*fn)(void) = after_stop;
	if (fn)
		fn();
}

void child_watch(pid_t pid, int sig, long ms)
{
	int free_slot = -1;
	guard_at_signal(on_fatal);
	for (int i = 0; i < CHILD_MAX_WATCHED; i++) {
		if (watched[i] == pid) {
			free_slot = i;
			break;
		}
		if (watched[i] <= 0 && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return; /* more than the experiments run: it still dies with thpctl */
	watch_sig[free_slot] = sig;
	watch_ms[free_slot] = ms;
	watched[free_slot] = pid;
}

void child_unwatch(pid_t pid)
{
	for (int i = 0; i < CHILD_MAX_WATCHED; i++)
		if (watched[i] == pid)
			watched[i] = 0;
}

void child_at_signal(void (*fn)(void))
{
	guard_at_signal(on_fatal);
	after_stop = fn;
}

int child_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* In the child: S's fd for STD, or /dev/null (NUL, opened once). */
static void put_fd(int fd, int std, int *nul)
{
	if (fd < 0) {
		if (*nul < 0)
			*nul = open("/dev/null", O_RDWR);
		fd = *nul;
	}
	if (fd >= 0 && fd != std)
		dup2(fd, std);
}

pid_t child_spawn(const struct child_spec *s)
{
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		child_watch(pid, SIGKILL, 0);
		return pid;
	}
	if (s->drop && (setgroups(0, NULL) || setgid(s->gid) || setuid(s->uid) || !getuid()))
		_exit(126);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* after setuid, which clears it */
	if (getppid() != parent)
		_exit(125); /* thpctl died before the line above */
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	int nul = -1;
	put_fd(s->in, 0, &nul);
	put_fd(s->out, 1, &nul);
	put_fd(s->err, 2, &nul);
	if (s->cwd && chdir(s->cwd))
		_exit(126);
	if (s->before_exec)
		s->before_exec(s->ctx);
	if (s->envp)
		execve(s->path, s->argv, s->envp);
	else
		execv(s->path, s->argv);
	_exit(127);
}

bool child_exited(pid_t pid, int *code)
{
	int st;
	if (pid <= 0 || waitpid(pid, &st, WNOHANG) != pid)
		return false;
	child_unwatch(pid);
	*code = child_code(st);
	return true;
}

void child_end(pid_t *pid, int sig, long ms)
{
	if (*pid <= 0)
		return;
	if (!child_stop(*pid, sig, ms))
		child_stop(*pid, SIGKILL, -1);
	child_unwatch(*pid);
	*pid = 0;
}

int child_dir_make(char *dir, size_t n, const char *name, char *err, size_t errn)
{
	const char *tmp = getenv("TMPDIR");
	size_t need = strlen("/thpctl-") + strlen(name) + strlen(".XXXXXX") + 1;
	if (!tmp || !*tmp || strlen(tmp) + need > n)
		tmp = "/tmp";
	int l = snprintf(dir, n, "%s/thpctl-%s.XXXXXX", tmp, name);
	if (l < 0 || (size_t)l >= n || !mkdtemp(dir)) {
		int e = l < 0 || (size_t)l >= n ? -ENAMETOOLONG : -errno;
		snprintf(err, errn, "mkdtemp %s: %s", dir, strerror(-e));
		dir[0] = '\0';
		return e;
	}
	return 0;
}

int child_reap(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			int e = -errno;
			child_unwatch(pid);
			return e;
		}
	child_unwatch(pid);
	return child_code(st);
}

int child_collect(pid_t pid, int fd, char *out, size_t n)
{
	size_t len = 0;
	for (;;) {
		char tmp[4096];
		ssize_t r = read(fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t take = (size_t)r < n - 1 - len ? (size_t)r : n - 1 - len;
		memcpy(out + len, tmp, take);
		len += take;
	}
	out[len] = '\0';
	close(fd);
	return child_reap(pid);
}

void child_remove_tree(const char *dir)
{
	/* from a signal handler too (redis_srv.c, pg_srv.c): glibc's fork() takes the malloc
	 * locks and runs atfork handlers, _Fork() (2.34) neither: async-signal-safe */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	pid_t p = _Fork();
#else
	pid_t p = fork();
#endif
	if (p == 0) {
		execl(RM, "rm", "-rf", "--one-file-system", "--", dir, (char *)NULL);
		_exit(127);
	}
	if (p > 0)
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
}

int child_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int r = bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
				getsockname(fd, (struct sockaddr *)&a, &al)
			? -errno
			: ntohs(a.sin_port);
	close(fd);
	return r;
}
