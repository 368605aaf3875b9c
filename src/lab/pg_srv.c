// SPDX-License-Identifier: MIT
/* lab postgres: the cluster, the server and pgbench as unprivileged children (pg_srv.h). */
#include "pg_srv.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/fileio.h"
#include "../util/num.h"
#include "guard.h"

#define RM "/bin/rm"

/* What the signal hook stops: the postmaster, pgbench, the directory. */
static volatile pid_t live_srv, live_bench;
static char live_dir[64];

static void nap(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* rm -rf --one-file-system DIR as a child, reaped (async-signal-safe). */
static void remove_tree(const char *dir)
{
	pid_t p = fork();
	if (p == 0) {
		execl(RM, "rm", "-rf", "--one-file-system", "--", dir, (char *)NULL);
		_exit(127);
	}
	if (p > 0)
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
}

/* Signal PID with SIG and wait up to MS for it to exit; true when reaped (async-signal-safe). */
static bool stop_wait(pid_t pid, int sig, long ms)
{
	kill(pid, sig);
	for (long t = 0; t <= ms; t += 20) {
		pid_t w = waitpid(pid, NULL, WNOHANG);
		if (w == pid || (w < 0 && errno == ECHILD))
			return true;
		nap(20);
	}
	return false;
}

/* Async-signal-safe: pgbench killed, the server shut down (immediate), the directory removed. */
static void on_fatal(void)
{
	if (live_bench > 0) {
		kill(live_bench, SIGKILL);
		waitpid(live_bench, NULL, 0);
	}
	/* SIGQUIT: immediate shutdown, the backends stopped and the shared memory released */
	if (live_srv > 0 && !stop_wait(live_srv, SIGQUIT, 5000))
		stop_wait(live_srv, SIGKILL, 5000);
	if (live_dir[0])
		remove_tree(live_dir);
}

/* Whether DIR/NAME is executable. */
static bool exe_in(const char *dir, const char *name)
{
	char p[128];
	return (size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) < sizeof(p) && !access(p, X_OK);
}

int pg_find(const char *root, struct pg_cluster *c)
{
	DIR *d = opendir(root);
	if (!d)
		return -ENOENT;
	uint64_t best = 0;
	for (struct dirent *e; (e = readdir(d));) {
		uint64_t v;
		char bin[64];
		if (str_u64(e->d_name, 1, 999, &v) || v <= best ||
		    (size_t)snprintf(bin, sizeof(bin), "%s/%s/bin", root, e->d_name) >=
			    sizeof(bin) ||
		    !exe_in(bin, "postgres") || !exe_in(bin, "initdb") || !exe_in(bin, "pgbench"))
			continue;
		best = v;
		snprintf(c->bin, sizeof(c->bin), "%s", bin);
		snprintf(c->ver, sizeof(c->ver), "%s", e->d_name);
	}
	closedir(d);
	return best ? 0 : -ENOENT;
}

/* A free loopback TCP port number (bound, read, released): names the socket file. */
static int free_port(void)
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

/*
 * fork; in the child: drop to C's user (groups, gid, uid; exit 126 if any
 * fails), die with the parent, default signals, cwd the directory, stdin
 * /dev/null, stdout+stderr to OUTFD (-1: /dev/null), exec BIN/PROG with
 * ARGV and a minimal environment. Returns the pid or -errno.
 */
static pid_t spawn(const struct pg_cluster *c, const char *prog, char *const *argv, int outfd)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", c->bin, prog);
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", "TZ=UTC", NULL};
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid)
		return pid < 0 ? -errno : pid;
	if (setgroups(0, NULL) || setgid(c->gid) || setuid(c->uid) || !getuid())
		_exit(126);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* after setuid, which clears it */
	if (getppid() != parent)
		_exit(125);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (chdir(c->dir))
		_exit(126);
	int nul = open("/dev/null", O_RDWR);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(outfd >= 0 ? outfd : nul, 1);
		dup2(outfd >= 0 ? outfd : nul, 2);
	}
	char *a[64];
	size_t k = 0;
	a[k++] = path; /* initdb finds postgres beside its own argv[0] */
	while (argv[k] && k + 1 < sizeof(a) / sizeof(a[0])) {
		a[k] = argv[k];
		k++;
	}
	a[k] = NULL;
	execve(path, a, envp);
	_exit(127);
}

/* Run PROG ARGV to its end, its output into OUT. Exit status or -errno. */
static int run_to_end(const struct pg_cluster *c, const char *prog, char *const *argv, char *out,
		      size_t n)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid_t pid = spawn(c, prog, argv, p[1]);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return (int)pid;
	}
	return pg_bench_wait(pid, p[0], out, n);
}

/* The last non-empty line of TEXT into OUT. */
static void last_line(const char *text, char *out, size_t n)
{
	size_t len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	size_t s = len;
	while (s && text[s - 1] != '\n')
		s--;
	snprintf(out, n, "%.*s", (int)(len - s), text + s);
}

/* C's user: postgres, else nobody. 0 or -ENOENT. */
static int pick_user(struct pg_cluster *c)
{
	static const char *const names[] = {"postgres", "nobody"};
	for (size_t i = 0; i < 2; i++) {
		struct passwd *pw = getpwnam(names[i]);
		if (pw && pw->pw_uid) {
			c->uid = pw->pw_uid;
			c->gid = pw->pw_gid;
			snprintf(c->user, sizeof(c->user), "%s", names[i]);
			return 0;
		}
	}
	return -ENOENT;
}

int pg_init(struct pg_cluster *c, char *err, size_t n)
{
	c->pid = 0;
	c->dir[0] = '\0';
	if (pick_user(c)) {
		snprintf(err, n, "neither a postgres nor a nobody user to run the server as");
		return -ENOENT;
	}
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 44)
		tmp = "/tmp";
	snprintf(c->dir, sizeof(c->dir), "%s/thpctl-pg.XXXXXX", tmp);
	if (!mkdtemp(c->dir)) {
		int e = -errno;
		snprintf(err, n, "mkdtemp %s: %s", c->dir, strerror(errno));
		c->dir[0] = '\0';
		return e;
	}
	memcpy(live_dir, c->dir, sizeof(live_dir));
	guard_at_signal(on_fatal);
	int rc = chown(c->dir, c->uid, c->gid) ? -errno : 0;
	if (rc) {
		snprintf(err, n, "chown %s to %s: %s", c->dir, c->user, strerror(-rc));
		pg_destroy(c);
		return rc;
	}
	if ((c->port = free_port()) < 0) {
		rc = c->port;
		snprintf(err, n, "no free port: %s", strerror(-rc));
		pg_destroy(c);
		return rc;
	}
	char *argv[] = {"initdb", "-D",	  "data",	 "-U",	      "postgres", "--auth=trust",
			"-E",	  "UTF8", "--no-locale", "--no-sync", NULL};
	static char out[8192];
	if ((rc = run_to_end(c, "initdb", argv, out, sizeof(out)))) {
		char l[160];
		last_line(out, l, sizeof(l));
		snprintf(err, n, "initdb as %s exited %d: %s", c->user, rc, l);
		pg_destroy(c);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

/* The private options, then ARGS, into A (at most MAX entries with the NULL). */
static void server_argv(const struct pg_cluster *c, const char *const *args, char **a, size_t max,
			char *port, size_t pn, char *sock, size_t sn)
{
	snprintf(port, pn, "port=%d", c->port);
	snprintf(sock, sn, "unix_socket_directories=%s", c->dir);
	const char *v[] = {"postgres",
			   "-D",
			   "data",
			   "-c",
			   port,
			   "-c",
			   sock,
			   "-c",
			   "listen_addresses=",
			   "-c",
			   "logging_collector=off"};
	size_t k = 0;
	for (; k < sizeof(v) / sizeof(v[0]); k++)
		a[k] = (char *)v[k];
	for (; args && *args && k + 1 < max; args++)
		a[k++] = (char *)*args;
	a[k] = NULL;
}

int pg_show(const struct pg_cluster *c, const char *name, const char *const *args, uint64_t *v)
{
	char *a[48], port[24], sock[128];
	server_argv(c, args, a, 44, port, sizeof(port), sock, sizeof(sock));
	size_t k = 0;
	while (a[k])
		k++;
	a[k++] = "-C";
	a[k++] = (char *)name;
	a[k] = NULL;
	char out[256];
	int rc = run_to_end(c, "postgres", a, out, sizeof(out));
	if (rc)
		return rc < 0 ? rc : -EIO;
	return str_to_u64(out, strcspn(out, "\r\n"), 0, UINT64_MAX, v);
}

/* postmaster.pid's last line "ready" (PostgreSQL 10+): read without following links. */
static bool ready(const struct pg_cluster *c)
{
	char p[96];
	snprintf(p, sizeof(p), "%s/data/postmaster.pid", c->dir);
	struct buf b = {0};
	bool r = read_file_at(AT_FDCWD, p, &b, 4096) == 0 && b.len && strstr(b.p, "\nready");
	buf_free(&b);
	return r;
}

int pg_start(struct pg_cluster *c, const char *const *args, char *err, size_t n)
{
	char *a[48], port[24], sock[128], log[96];
	server_argv(c, args, a, sizeof(a) / sizeof(a[0]), port, sizeof(port), sock, sizeof(sock));
	snprintf(log, sizeof(log), "%s/server.log", c->dir);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = -errno;
		snprintf(err, n, "%s: %s", log, strerror(errno));
		return e;
	}
	if (fchown(fd, c->uid, c->gid)) { /* the server (not root) appends to it */
		int e = -errno;
		snprintf(err, n, "%s: chown: %s", log, strerror(errno));
		close(fd);
		return e;
	}
	pid_t pid = spawn(c, "postgres", a, fd);
	close(fd);
	if (pid < 0) {
		snprintf(err, n, "fork: %s", strerror((int)-pid));
		return (int)pid;
	}
	c->pid = live_srv = pid;
	for (double t0 = mono_ms(); mono_ms() - t0 < 30000; nap(20)) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			c->pid = live_srv = 0;
			struct buf b = {0};
			char l[200] = "";
			if (read_file_at(AT_FDCWD, log, &b, 1 << 20) == 0 && b.len)
				last_line(b.p, l, sizeof(l));
			buf_free(&b);
			snprintf(err, n, "postgres exited %d at start: %s",
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), l);
			return -ECHILD;
		}
		if (ready(c))
			return 0;
	}
	snprintf(err, n, "postgres not ready within 30 s");
	pg_stop(c);
	return -ETIMEDOUT;
}

void pg_stop(struct pg_cluster *c)
{
	if (c->pid > 0 && !stop_wait(c->pid, SIGINT, 15000) && !stop_wait(c->pid, SIGQUIT, 5000))
		stop_wait(c->pid, SIGKILL, 5000);
	c->pid = live_srv = 0;
}

void pg_destroy(struct pg_cluster *c)
{
	pg_stop(c);
	if (c->dir[0])
		remove_tree(c->dir);
	c->dir[0] = live_dir[0] = '\0';
}

pid_t pg_bench_start(const struct pg_cluster *c, const char *const *args, int *outfd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	char port[16], *a[40] = {"pgbench", "-h", (char *)c->dir, "-p", port, "-U", "postgres"};
	snprintf(port, sizeof(port), "%d", c->port);
	size_t k = 7;
	for (; args && *args && k + 2 < sizeof(a) / sizeof(a[0]); args++)
		a[k++] = (char *)*args;
	a[k++] = "postgres";
	a[k] = NULL;
	pid_t pid = spawn(c, "pgbench", a, p[1]);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return pid;
	}
	live_bench = pid;
	*outfd = p[0];
	return pid;
}

int pg_bench_wait(pid_t pid, int fd, char *out, size_t n)
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
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			if (pid == live_bench)
				live_bench = 0;
			return -errno;
		}
	if (pid == live_bench)
		live_bench = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
