// SPDX-License-Identifier: MIT
/* lab iouring: the io_uring probes, the fio child, fio's JSON (iouring_run.h). */
#include "iouring_run.h"
#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <jansson.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child.h"

int uring_probe(unsigned flags)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = 10; /* ms; SQPOLL only */
	long fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

/* The number at KEY of object O, or -1 when absent or not a number. */
static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : -1;
}

int fio_parse(const char *text, size_t len, struct fio_res *r)
{
	*r = (struct fio_res){.p99_us = -1,
			      .p99_suspect_us = -1,
			      .cpu_ms_k = -1,
			      .clat_max_us = -1,
			      .lat_max_us = -1};
	const char *b = memchr(text, '{', len);
	if (!b)
		return -EINVAL;
	json_t *doc = json_loadb(b, len - (size_t)(b - text), JSON_DISABLE_EOF_CHECK, NULL);
	json_t *job = json_array_get(json_object_get(doc, "jobs"), 0);
	json_t *rd = json_object_get(job, "read");
	double iops = num(rd, "iops"), ios = num(rd, "total_ios"), err = num(job, "error");
	if (!json_is_object(rd) || iops < 0 || ios < 0 || err < 0) {
		json_decref(doc);
		return -EINVAL;
	}
	r->iops = iops;
	r->ios = (uint64_t)ios;
	r->error = (int)err;
	json_t *clat = json_object_get(rd, "clat_ns");
	double p99 = num(json_object_get(clat, "percentile"), "99.000000");
	double usr = num(job, "usr_cpu"), sys = num(job, "sys_cpu"), rt = num(job, "job_runtime");
	/* a completion latency is part of the whole latency (lat = slat + clat, exact maxima,
	 * not buckets) and within the job's runtime (ms): past either, fio lost an issue time */
	double clat_max = num(clat, "max"), lat_max = num(json_object_get(rd, "lat_ns"), "max");
	bool suspect =
		(clat_max >= 0 && lat_max >= 0 && clat_max > lat_max) || (rt > 0 && p99 > rt * 1e6);
	if (p99 >= 0 && ios > 0)
		*(suspect ? &r->p99_suspect_us : &r->p99_us) = p99 / 1000;
	r->clat_max_us = clat_max >= 0 ? clat_max / 1000 : -1;
	r->lat_max_us = lat_max >= 0 ? lat_max / 1000 : -1;
	if (rt >= 0)
		r->runtime_s = rt / 1000;
	if (usr >= 0 && sys >= 0 && rt > 0 && ios > 0)
		r->cpu_ms_k = (usr + sys) / 100 * rt / (ios / 1000);
	r->ok = r->error == 0 && ios > 0 && iops > 0;
	json_decref(doc);
	return 0;
}

/* One fio argument: "--filename=" and a data file under a TMPDIR of up to PATH_MAX. */
#define FIO_ARG (PATH_MAX + 32)

/* fio's argv for S into A (strings in ST); -ENAMETOOLONG when the file's path does not fit
 * (a cut --filename would make fio write a file no cleanup knows). */
static int fio_argv(const char *exe, const struct fio_spec *s, char st[6][FIO_ARG], char **a)
{
	int fl = snprintf(st[0], FIO_ARG, "--filename=%s", s->file);
	if (fl < 0 || fl >= FIO_ARG)
		return -ENAMETOOLONG;
	snprintf(st[1], 96, "--size=%llu", (unsigned long long)s->size);
	snprintf(st[2], 96, "--ioengine=%s", s->engine);
	snprintf(st[3], 96, "--iodepth=%d", s->iodepth);
	snprintf(st[4], 96, "--runtime=%d", s->runtime_s);
	snprintf(st[5], 96, "--sqthread_poll=%d", s->sqpoll ? 1 : 0);
	/* --thread: the job is a thread of the fio we watch (child.h), not a process of its own
	 * that outlives it on a signal */
	const char *v[] = {exe,
			   "--name=thpctl",
			   st[0],
			   st[1],
			   "--rw=randread",
			   "--bs=4k",
			   "--direct=1",
			   st[2],
			   st[3],
			   "--numjobs=1",
			   "--thread",
			   "--time_based",
			   st[4],
			   "--output-format=json",
			   s->sqpoll ? st[5] : NULL,
			   NULL};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		a[i] = (char *)v[i];
	return 0;
}

/* Read FD to EOF (at most 8 MiB) into a NUL-terminated allocation of *LEN bytes; NULL: no memory. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 1 << 16;
	char *out = malloc(cap);
	*len = 0;
	if (!out)
		return NULL;
	for (;;) {
		if (*len + 4096 > cap) {
			char *p = cap < (8u << 20) ? realloc(out, cap * 2) : NULL;
			if (!p)
				break;
			out = p;
			cap *= 2;
		}
		ssize_t r = read(fd, out + *len, cap - *len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	out[*len] = '\0';
	return out;
}

/* The first line of OUT naming an error ("fio: ..." or "err="), as WHY. */
static void fio_why(const char *out, int st, char *why, size_t n)
{
	const char *l = out ? strstr(out, "fio: ") : NULL;
	if (!l && out)
		l = strstr(out, "err=");
	if (l)
		lab_fmt(why, n, "fio exited %d: %.*s", st, (int)strcspn(l, "\n"), l);
	else
		lab_fmt(why, n, "fio exited %d", st);
}

int fio_run(const char *exe, const struct fio_spec *s, struct fio_res *r, char *why, size_t n)
{
	*r = (struct fio_res){.p99_us = -1,
			      .p99_suspect_us = -1,
			      .cpu_ms_k = -1,
			      .clat_max_us = -1,
			      .lat_max_us = -1};
	static char st[6][FIO_ARG]; /* one fio at a time */
	char *argv[20];
	int e = fio_argv(exe, s, st, argv);
	if (e)
		return e;
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	struct child_spec cs = {.path = exe, .argv = argv, .in = -1, .out = p[1], .err = p[1]};
	pid_t pid = child_spawn(&cs);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return (int)pid;
	}
	size_t len = 0;
	char *out = slurp(p[0], &len);
	close(p[0]);
	int code = child_reap(pid);
	int rc = out && fio_parse(out, len, r) == 0 ? 0 : -EPROTO;
	if (code || rc || !r->ok) {
		fio_why(out, code, why, n);
		rc = rc ? rc : -EIO;
	}
	free(out);
	return rc;
}
