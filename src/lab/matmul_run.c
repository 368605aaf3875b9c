// SPDX-License-Identifier: MIT
/* lab matmul: the python3/numpy child, its dTLB counters, the parsers (matmul_run.h). */
#include "matmul_run.h"
#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/clock.h"
#include "child.h"

/*
 * The child's program. numpy (>= 1.20) itself advises MADV_HUGEPAGE on
 * arrays of 4 MiB and more; that is switched off so that under
 * enabled=madvise glibc's tunable is the only opt-in. calloc'd arrays stay
 * unfaulted, hence empty() + fill().
 */
static const char script[] =
	"import sys, time\n"
	"try:\n"
	"    import numpy as np\n"
	"except ImportError:\n"
	"    sys.exit(3)\n"
	"np.core.multiarray._set_madvise_hugepage(False)\n"
	"n, reps = int(sys.argv[1]), int(sys.argv[2])\n"
	"g = np.random.default_rng(1)\n"
	"a = g.random((n, n)); b = g.random((n, n)); c = np.empty((n, n)); c.fill(1.0)\n"
	"print('ready', flush=True)\n"
	"sys.stdin.readline()\n"
	"t = []\n"
	"for i in range(reps):\n"
	"    s = time.perf_counter(); np.dot(a, b, out=c); t.append(time.perf_counter() - s)\n"
	"print('times', *('%.6f' % x for x in t), flush=True)\n"
	"sys.stdin.readline()\n";

/* One dTLB read counter (RESULT access or miss) on PID and its later threads. fd or -errno. */
static int dtlb_open(pid_t pid, unsigned result)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HW_CACHE,
		.size = sizeof(a),
		.config = PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			  ((unsigned long long)result << 16),
		.disabled = 1,
		.inherit = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* What the child does before exec (child_spec.before_exec). */
struct pre_exec {
	const struct matmul_spec *sp;
	int gate; /* read one byte first (the counters are open), -1: none */
};

/* In the child: wait for the gate, the prctl, the tunable. Exits 126 or 125 when one fails. */
static void before_exec(void *ctx)
{
	const struct pre_exec *x = ctx;
	const struct matmul_spec *sp = x->sp;
	char g;
	if (x->gate >= 0 && read(x->gate, &g, 1) != 1)
		_exit(126);
	/* per-mm since 4.13, inherited by fork and kept across execve (as thpctl run --thp=off) */
	if (sp->thp_off && prctl(PR_SET_THP_DISABLE, 1UL, 0UL, 0UL, 0UL))
		_exit(125);
	if (sp->glibc_thp)
		setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
	else
		unsetenv("GLIBC_TUNABLES");
}

/* One line from FD into OUT (without the newline), waiting <= MS. 0 or -errno. */
static int read_line(int fd, char *out, size_t n, double ms)
{
	size_t len = 0;
	double t0 = mono_ms();
	for (;;) {
		int left = (int)(ms - (mono_ms() - t0));
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr < 0 ? -errno : -ETIMEDOUT;
		char ch;
		ssize_t r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EPIPE;
		if (ch == '\n')
			break;
		if (len + 1 < n)
			out[len++] = ch;
	}
	out[len] = '\0';
	return 0;
}

/* The child's exit, as words into WHY, after a failed read. */
static void child_why(struct matmul_child *c, int rc, char *why, size_t n)
{
	int code;
	if (child_exited(c->pid, &code)) {
		c->pid = 0;
		lab_fmt(why, n, "%s exited with status %d%s", MATMUL_PYTHON, code,
			code == 3     ? " (numpy missing)"
			: code == 125 ? " (prctl PR_SET_THP_DISABLE failed)"
				      : "");
	} else
		lab_fmt(why, n, "%s: %s", MATMUL_PYTHON, strerror(-rc));
}

int matmul_start(struct matmul_child *c, const struct matmul_spec *sp, char *why, size_t n)
{
	*c = (struct matmul_child){.in = -1, .out = -1, .dtlb_fd = {-1, -1}, .dtlb_err = -ENODATA};
	int pin[2], pout[2], gate[2] = {-1, -1};
	if (pipe2(pin, O_CLOEXEC))
		return -errno;
	if (pipe2(pout, O_CLOEXEC) || (sp->count_dtlb && pipe2(gate, O_CLOEXEC))) {
		int e = -errno;
		close(pin[0]);
		close(pin[1]);
		lab_fmt(why, n, "pipe: %s", strerror(-e));
		return e;
	}
	char ns[16], rs[16];
	snprintf(ns, sizeof(ns), "%d", sp->n);
	snprintf(rs, sizeof(rs), "%d", sp->reps);
	char *argv[] = {MATMUL_PYTHON, "-c", (char *)script, ns, rs, NULL};
	struct pre_exec x = {.sp = sp, .gate = gate[0]};
	struct child_spec cs = {.path = MATMUL_PYTHON,
				.argv = argv,
				.in = pin[0],
				.out = pout[1],
				.err = -1,
				.before_exec = before_exec,
				.ctx = &x};
	pid_t pid = child_spawn(&cs);
	int e = pid < 0 ? (int)pid : 0;
	close(pin[0]);
	close(pout[1]);
	if (gate[0] >= 0)
		close(gate[0]);
	c->in = pin[1];
	c->out = pout[0];
	if (pid < 0) {
		lab_fmt(why, n, "fork: %s", strerror(-e));
		matmul_stop(c);
		return e;
	}
	c->pid = pid;
	if (sp->count_dtlb) {
		int a = dtlb_open(pid, PERF_COUNT_HW_CACHE_RESULT_ACCESS);
		int m = a >= 0 ? dtlb_open(pid, PERF_COUNT_HW_CACHE_RESULT_MISS) : a;
		if (a >= 0 && m < 0)
			close(a);
		c->dtlb_err = m < 0 ? m : 0;
		c->dtlb_fd[0] = m < 0 ? -1 : a;
		c->dtlb_fd[1] = m < 0 ? -1 : m;
		if (write(gate[1], "g", 1) != 1)
			e = -EPIPE;
		close(gate[1]);
	}
	char line[64];
	int rc = read_line(c->out, line, sizeof(line), 600000);
	if (!rc && strcmp(line, "ready"))
		rc = -EPROTO;
	if (rc) {
		child_why(c, rc, why, n);
		matmul_stop(c);
	}
	return rc;
}

/* The count of counter FD, or -1. */
static double count_of(int fd)
{
	unsigned long long v;
	return fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? (double)v : -1;
}

int matmul_finish(struct matmul_child *c, double *t, int *nt, double *acc, double *miss, char *why,
		  size_t n)
{
	*nt = 0;
	for (int i = 0; i < 2; i++)
		if (c->dtlb_fd[i] >= 0)
			ioctl(c->dtlb_fd[i], PERF_EVENT_IOC_ENABLE, 0);
	static char line[512];
	int rc = write(c->in, "go\n", 3) == 3 ? 0 : -EPIPE;
	if (!rc)
		rc = read_line(c->out, line, sizeof(line), 1200000);
	for (int i = 0; i < 2; i++)
		if (c->dtlb_fd[i] >= 0)
			ioctl(c->dtlb_fd[i], PERF_EVENT_IOC_DISABLE, 0);
	*acc = count_of(c->dtlb_fd[0]);
	*miss = count_of(c->dtlb_fd[1]);
	if (rc) {
		child_why(c, rc, why, n);
		return rc;
	}
	int k = matmul_parse_times(line, t, MATMUL_MAX_REPS);
	if (k < 0) {
		lab_fmt(why, n, "unexpected line from the child: %.60s", line);
		return k;
	}
	*nt = k;
	return 0;
}

void matmul_stop(struct matmul_child *c)
{
	if (c->in >= 0)
		close(c->in); /* EOF: the child's last readline returns and it exits */
	c->in = -1;
	child_end(&c->pid, 0, 5000);
	if (c->out >= 0)
		close(c->out);
	c->out = -1;
	for (int i = 0; i < 2; i++) {
		if (c->dtlb_fd[i] >= 0)
			close(c->dtlb_fd[i]);
		c->dtlb_fd[i] = -1;
	}
}

int matmul_parse_times(const char *line, double *t, int max)
{
	if (strncmp(line, "times", 5) || (line[5] != ' ' && line[5] != '\0'))
		return -EINVAL;
	int k = 0;
	for (const char *p = line + 5; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno || !(v > 0) || (*end && *end != ' ') || k >= max)
			return -EINVAL;
		t[k++] = v;
		p = end;
	}
	return k ? k : -EINVAL;
}

/* Rank of a BLAS file name: 2 an optimised one, 1 another with "blas" in it, 0 none. */
static int blas_rank(const char *name, size_t len)
{
	static const char *const fast[] = {"libopenblas", "libblis", "libmkl"};
	bool any = false;
	for (size_t i = 0; i + 4 <= len; i++)
		if (!strncmp(name + i, "blas", 4))
			any = true;
	for (size_t f = 0; f < sizeof(fast) / sizeof(fast[0]); f++)
		if (len >= strlen(fast[f]) && !strncmp(name, fast[f], strlen(fast[f])))
			return 2;
	return any ? 1 : 0;
}

bool matmul_blas_path(const char *text, size_t len, char *out, size_t n)
{
	int best = 0;
	out[0] = '\0';
	for (size_t i = 0; i < len;) {
		const char *l = text + i, *e = memchr(l, '\n', len - i);
		size_t ll = e ? (size_t)(e - l) : len - i;
		i += ll + 1;
		const char *path = memchr(l, '/', ll);
		if (!path)
			continue;
		size_t pl = ll - (size_t)(path - l);
		const char *base = path;
		for (const char *q = path; q < path + pl; q++)
			if (*q == '/')
				base = q + 1;
		int rank = blas_rank(base, pl - (size_t)(base - path));
		if (rank > best) {
			best = rank;
			snprintf(out, n, "%.*s", (int)pl, path);
		}
	}
	return best > 0;
}
