// SPDX-License-Identifier: MIT
/* lab redis: the server and benchmark children, a RESP client, the parsers (redis_srv.h). */
#include "redis_srv.h"
#include "lab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../util/clock.h"
#include "child.h"

/* What the signal hook removes once the children are stopped (child.h): the directory. */
static char live_dir[64];

/*
 * DIR and everything in it (dump.rdb, a BGSAVE's temp-PID.rdb, redis.log),
 * again every 100 ms for up to 2 s while it is still there: a BGSAVE child
 * the server killed as it shut down logs its exit to redis.log after the
 * server is gone, and may do so between rm's unlink and its rmdir.
 * Async-signal-safe.
 */
static void remove_dir(const char *dir)
{
	for (int t = 0; t <= 2000; t += 100) {
		child_remove_tree(dir);
		if (access(dir, F_OK) && errno == ENOENT)
			return;
		child_sleep_ms(100);
	}
}

/* Async-signal-safe: the server's directory (the server was stopped first: SIGTERM). */
static void on_fatal(void)
{
	if (live_dir[0])
		remove_dir(live_dir);
}

int redis_find(const char *prog, char *out, size_t n)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	for (const char *p = path; *p;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len && (size_t)snprintf(out, n, "%.*s/%s", (int)len, p, prog) < n &&
		    access(out, X_OK) == 0)
			return 0;
		p += len + (e ? 1 : 0);
	}
	out[0] = '\0';
	return -ENOENT;
}

/* In the child (child_spec.before_exec): MALLOC_CONF=CTX, or none when CTX is NULL. */
static void set_malloc_conf(void *ctx)
{
	if (ctx)
		setenv("MALLOC_CONF", ctx, 1);
	else
		unsetenv("MALLOC_CONF");
}

/* Connect to 127.0.0.1:PORT with 30 s timeouts. fd or -errno. */
static int dial(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct timeval tv = {.tv_sec = 30};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read into B[*LEN..N) until it holds a CRLF at or after FROM; returns its offset or -errno. */
static long read_line(int fd, char *b, size_t n, size_t *len, size_t from)
{
	for (;;) {
		for (size_t i = from; i + 1 < *len; i++)
			if (b[i] == '\r' && b[i + 1] == '\n')
				return (long)i;
		if (*len >= n)
			return -E2BIG;
		ssize_t r = recv(fd, b + *len, n - *len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ECONNRESET;
		*len += (size_t)r;
	}
}

int redis_cmd(struct redis_srv *s, const char *cmd, char *out, size_t n)
{
	static char b[1 << 16];
	size_t len = 0;
	char line[128];
	snprintf(line, sizeof(line), "%s\r\n", cmd);
	int rc = write_all(s->fd, line, strlen(line));
	if (rc)
		return rc;
	long e = read_line(s->fd, b, sizeof(b), &len, 0);
	if (e < 0)
		return (int)e;
	if (b[0] == '-') {
		snprintf(out, n, "%.*s", (int)e - 1, b + 1);
		return -EPROTO;
	}
	if (b[0] != '$') {
		snprintf(out, n, "%.*s", (int)e - 1, b + 1);
		return 0;
	}
	long blen = strtol(b + 1, NULL, 10);
	if (blen < 0 || (size_t)blen + (size_t)e + 4 > sizeof(b))
		return -E2BIG;
	size_t start = (size_t)e + 2;
	while (len < start + (size_t)blen + 2) {
		ssize_t r = recv(s->fd, b + len, sizeof(b) - len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ECONNRESET;
		len += (size_t)r;
	}
	snprintf(out, n, "%.*s", (int)blen, b + start);
	return 0;
}

/* The server's argv into A (the config: loopback, port, dir, no persistence). */
static void server_argv(const char *exe, const struct redis_srv *s, bool disable_thp, char *port,
			size_t pn, char **a)
{
	snprintf(port, pn, "%d", s->port);
	const char *v[] = {exe,
			   "--bind",
			   "127.0.0.1",
			   "--port",
			   port,
			   "--dir",
			   s->dir,
			   "--logfile",
			   "redis.log",
			   "--save",
			   "",
			   "--appendonly",
			   "no",
			   "--protected-mode",
			   "yes",
			   "--daemonize",
			   "no",
			   "--databases",
			   "1",
			   "--disable-thp",
			   disable_thp ? "yes" : "no",
			   NULL};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		a[i] = (char *)v[i];
}

/* Connect and PING until it answers (10 s), watching the child. 0 or -errno, WHY on error. */
static int server_wait(struct redis_srv *s, char *why, size_t n)
{
	double t0 = mono_ms();
	while (mono_ms() - t0 < 10000) {
		int code;
		if (child_exited(s->pid, &code)) {
			s->pid = 0;
			lab_fmt(why, n, "redis-server exited (status %d) at start; see its log",
				code);
			return -ECHILD;
		}
		int fd = dial(s->port);
		if (fd >= 0) {
			s->fd = fd;
			char pong[32];
			if (redis_cmd(s, "PING", pong, sizeof(pong)) == 0 && !strcmp(pong, "PONG"))
				return 0;
			close(fd);
			s->fd = -1;
		}
		nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
	}
	lab_fmt(why, n, "redis-server did not answer PING within 10 s");
	return -ETIMEDOUT;
}

int redis_start(struct redis_srv *s, const char *exe, bool disable_thp, const char *malloc_conf,
		char *err, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	int e = child_dir_make(s->dir, sizeof(s->dir), "redis", err, n);
	if (e)
		return e;
	memcpy(live_dir, s->dir, sizeof(live_dir));
	child_at_signal(on_fatal);
	s->port = child_free_port();
	if (s->port < 0) {
		e = s->port;
		snprintf(err, n, "no free loopback port: %s", strerror(-e));
		redis_stop(s);
		return e;
	}
	char port[16], *argv[32];
	server_argv(exe, s, disable_thp, port, sizeof(port), argv);
	struct child_spec cs = {.path = exe,
				.argv = argv,
				.in = -1,
				.out = -1,
				.err = -1,
				.before_exec = set_malloc_conf,
				.ctx = (void *)malloc_conf};
	pid_t pid = child_spawn(&cs);
	if (pid < 0) {
		snprintf(err, n, "fork: %s", strerror((int)-pid));
		redis_stop(s);
		return (int)pid;
	}
	s->pid = pid;
	/* on a signal: SIGTERM, so that it kills its BGSAVE child and removes the child's
	 * temp-PID.rdb itself (no save: --save ""); SIGKILL after 2 s. A SIGKILLed server
	 * leaves its BGSAVE child writing in the directory after the hook removed it */
	child_watch(pid, SIGTERM, 2000);
	int rc = server_wait(s, err, n);
	if (rc)
		redis_stop(s);
	return rc;
}

void redis_stop(struct redis_srv *s)
{
	if (s->pid > 0) {
		char r[64];
		if (s->fd >= 0)
			redis_cmd(s, "SHUTDOWN NOSAVE", r, sizeof(r));
		child_end(&s->pid, 0, 5000);
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->dir[0]) {
		remove_dir(s->dir);
		s->dir[0] = live_dir[0] = '\0';
	}
}

int redis_load(struct redis_srv *s, uint64_t nkeys)
{
	enum { BATCH = 256 };
	static char val[REDIS_VALUE_BYTES];
	memset(val, 'x', sizeof(val));
	size_t per = 64 + sizeof(val);
	char *b = malloc(per * BATCH);
	static char rb[BATCH * 8];
	if (!b)
		return -ENOMEM;
	int rc = 0;
	for (uint64_t k = 0; k < nkeys && !rc;) {
		size_t len = 0, cnt = 0;
		for (; cnt < BATCH && k < nkeys; cnt++, k++) {
			len += (size_t)sprintf(
				b + len, "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012" PRIu64 "\r\n$%zu\r\n",
				k, sizeof(val));
			memcpy(b + len, val, sizeof(val));
			len += sizeof(val);
			memcpy(b + len, "\r\n", 2);
			len += 2;
		}
		if ((rc = write_all(s->fd, b, len)))
			break;
		/* every reply is "+OK\r\n" */
		size_t got = 0, want = cnt * 5;
		while (got < want && !rc) {
			ssize_t r = recv(s->fd, rb,
					 want - got < sizeof(rb) ? want - got : sizeof(rb), 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				rc = r < 0 ? -errno : -ECONNRESET;
			else if (rb[0] == '-' && got == 0)
				rc = -EPROTO;
			else
				got += (size_t)r;
		}
	}
	free(b);
	return rc;
}

pid_t redis_bench_start(const struct redis_srv *s, const char *exe, uint64_t ops, uint64_t nkeys,
			int *outfd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	char port[16], n[24], r[24], d[16];
	snprintf(port, sizeof(port), "%d", s->port);
	snprintf(n, sizeof(n), "%" PRIu64, ops);
	snprintf(r, sizeof(r), "%" PRIu64, nkeys);
	snprintf(d, sizeof(d), "%d", REDIS_VALUE_BYTES);
	char *argv[] = {(char *)exe, "-h", "127.0.0.1", "-p", port, "-t", "set,get", "-n", n,
			"-r",	     r,	   "-d",	d,    "-c", "50", "--csv",   NULL};
	struct child_spec cs = {.path = exe, .argv = argv, .in = -1, .out = p[1], .err = -1};
	pid_t pid = child_spawn(&cs);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return pid;
	}
	*outfd = p[0];
	return pid;
}

/* The quoted CSV fields of LINE (up to MAX, unquoted, in place); their count. */
static int csv_split(char *line, char **f, int max)
{
	int k = 0;
	for (char *save = NULL, *t = strtok_r(line, ",", &save); t && k < max;
	     t = strtok_r(NULL, ",", &save)) {
		if (*t == '"')
			t++;
		size_t l = strlen(t);
		while (l && (t[l - 1] == '"' || t[l - 1] == '\r'))
			t[--l] = '\0';
		f[k++] = t;
	}
	return k;
}

int redis_parse_csv(const char *text, struct bench_row *set, struct bench_row *get)
{
	*set = *get = (struct bench_row){0};
	char *dup = strdup(text), *save = NULL;
	if (!dup)
		return 0;
	int col[4] = {-1, -1, -1, -1}; /* rps p50 p99 max */
	static const char *const names[4] = {"rps", "p50_latency_ms", "p99_latency_ms",
					     "max_latency_ms"};
	int filled = 0;
	for (char *l = strtok_r(dup, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f[16];
		int nf = csv_split(l, f, 16);
		if (nf && !strcmp(f[0], "test")) {
			for (int i = 0; i < nf; i++)
				for (int c = 0; c < 4; c++)
					if (!strcmp(f[i], names[c]))
						col[c] = i;
			continue;
		}
		struct bench_row *row = nf && !strcmp(f[0], "SET")   ? set
					: nf && !strcmp(f[0], "GET") ? get
								     : NULL;
		if (!row || col[0] < 0 || col[0] >= nf)
			continue;
		double v[4];
		bool ok = true;
		for (int c = 0; c < 4; c++) {
			char *end;
			v[c] = col[c] >= 0 && col[c] < nf ? strtod(f[col[c]], &end) : -1;
			if (col[c] < 0 || col[c] >= nf || end == f[col[c]] || *end)
				ok = false;
		}
		if (!ok)
			continue;
		*row = (struct bench_row){true, v[0], v[1], v[2], v[3]};
		filled++;
	}
	free(dup);
	return filled;
}

bool redis_info_str(const char *info, const char *field, char *out, size_t n)
{
	size_t fl = strlen(field);
	for (const char *p = info; p && *p;) {
		if (!strncmp(p, field, fl) && p[fl] == ':') {
			const char *v = p + fl + 1;
			size_t l = strcspn(v, "\r\n");
			snprintf(out, n, "%.*s", (int)l, v);
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

bool redis_info_u64(const char *info, const char *field, uint64_t *v)
{
	char s[32], *end;
	if (!redis_info_str(info, field, s, sizeof(s)) || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}
