// SPDX-License-Identifier: MIT
/* lab postgres: the cluster, the server and pgbench as unprivileged children (pg_srv.h). */
#include "pg_srv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/buf.h"
#include "../util/clock.h"
#include "../util/fileio.h"
#include "../util/num.h"
#include "child.h"

/* What the signal hook removes once the children are stopped (child.h): the directory. */
static char live_dir[64];

/* Async-signal-safe: the cluster's directory (the server was stopped with SIGQUIT: immediate). */
static void on_fatal(void)
{
	if (live_dir[0])
		child_remove_tree(live_dir);
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

/*
 * Start BIN/PROG with ARGV as C's user (child.h: dies with thpctl, exit 126
 * when the user cannot be taken), in the cluster's directory, stdin
 * /dev/null, stdout+stderr to OUTFD (-1: /dev/null), a minimal environment.
 * Returns the pid or -errno.
 */
static pid_t spawn(const struct pg_cluster *c, const char *prog, char *const *argv, int outfd)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", c->bin, prog);
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", "TZ=UTC", NULL};
	char *a[64];
	size_t k = 0;
	a[k++] = path; /* initdb finds postgres beside its own argv[0] */
	while (argv[k] && k + 1 < sizeof(a) / sizeof(a[0])) {
		a[k] = argv[k];
		k++;
	}
	a[k] = NULL;
	struct child_spec cs = {.path = path,
				.argv = a,
				.envp = envp,
				.in = -1,
				.out = outfd,
				.err = outfd,
				.cwd = c->dir,
				.drop = true,
				.uid = c->uid,
				.gid = c->gid};
	return child_spawn(&cs);
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
	return child_collect(pid, p[0], out, n);
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
	int rc = child_dir_make(c->dir, sizeof(c->dir), "pg", err, n);
	if (rc)
		return rc;
	memcpy(live_dir, c->dir, sizeof(live_dir));
	child_at_signal(on_fatal);
	rc = chown(c->dir, c->uid, c->gid) ? -errno : 0;
	if (rc) {
		snprintf(err, n, "chown %s to %s: %s", c->dir, c->user, strerror(-rc));
		pg_destroy(c);
		return rc;
	}
	if ((c->port = child_free_port()) < 0) {
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
	c->pid = pid;
	child_watch(pid, SIGQUIT,
		    5000); /* immediate shutdown: backends gone, shared memory freed */
	for (double t0 = mono_ms(); mono_ms() - t0 < 30000; child_sleep_ms(20)) {
		int code;
		if (child_exited(pid, &code)) {
			c->pid = 0;
			struct buf b = {0};
			char l[200] = "";
			if (read_file_at(AT_FDCWD, log, &b, 1 << 20) == 0 && b.len)
				last_line(b.p, l, sizeof(l));
			buf_free(&b);
			snprintf(err, n, "postgres exited %d at start: %s", code, l);
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
	if (c->pid > 0 && !child_stop(c->pid, SIGINT, 15000) && !child_stop(c->pid, SIGQUIT, 5000))
		child_stop(c->pid, SIGKILL, 5000);
	child_unwatch(c->pid);
	c->pid = 0;
}

void pg_destroy(struct pg_cluster *c)
{
	pg_stop(c);
	if (c->dir[0])
		child_remove_tree(c->dir);
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
	*outfd = p[0];
	return pid;
}
