/* SPDX-License-Identifier: MIT */
/*
 * lab iouring: what an operator asks before using io_uring (the setup
 * syscall, SQPOLL as this user) and fio (Debian's `fio`) runs of 4 KiB
 * random direct reads with one engine each, as a child that dies with
 * thpctl and is stopped by the guard's signal hook; the parser of fio's
 * --output-format=json.
 */
#ifndef THPCTL_LAB_IOURING_RUN_H
#define THPCTL_LAB_IOURING_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * io_uring_setup(2) with 4 entries, FLAGS (0 or IORING_SETUP_SQPOLL), the
 * ring closed at once. Returns 0 when it succeeded, else -errno (-ENOSYS: no
 * io_uring in this kernel, -EPERM: kernel.io_uring_disabled or the SQPOLL
 * privilege check refused it). Since Linux 5.1; SQPOLL unprivileged since 5.11.
 */
int uring_probe(unsigned flags);

/* One fio job's figures (fio_parse). */
struct fio_res {
	bool ok;       /* the job ran without error and did I/O */
	int error;     /* the job's "error" (an errno), 0 none */
	double iops;   /* read.iops */
	double p99_us; /* read.clat_ns.percentile["99.000000"] / 1000, -1 absent or suspect */
	double p99_suspect_us; /* that percentile when fio's clat cannot be a completion latency
				* (its max above lat_ns' max, or the p99 above the job's runtime):
				* fio before 3.36 stamps the wrong request's issue time under
				* SQPOLL; -1 when not suspect */
	double clat_max_us, lat_max_us; /* read.clat_ns.max, read.lat_ns.max / 1000; -1 absent */
	double cpu_ms_k;  /* (usr_cpu + sys_cpu) % x job_runtime per 1000 reads (ms), -1 absent */
	uint64_t ios;	  /* read.total_ios */
	double runtime_s; /* job_runtime / 1000 */
};

/*
 * Parse fio --output-format=json TEXT (LEN bytes; lines before the first
 * '{' are skipped, fio prints notes there) into R from its first job (pure).
 * A clat p99 that the document itself contradicts is moved to p99_suspect_us.
 * Returns 0, or -EINVAL when it is not such a document (no jobs, no read
 * section, no iops).
 */
int fio_parse(const char *text, size_t len, struct fio_res *r);

/* One fio run: engine, its queue depth, SQPOLL, the file and its size, the seconds. */
struct fio_spec {
	const char *engine; /* "psync", "libaio", "io_uring" */
	int iodepth;
	bool sqpoll;	  /* --sqthread_poll=1 (io_uring) */
	const char *file; /* in a private directory */
	uint64_t size;	  /* bytes */
	int runtime_s;
};

/*
 * Run EXE (fio) per SPEC with its JSON on a pipe into R. Returns 0, or
 * -errno with WHY (fio exited non-zero: its first stderr line).
 */
int fio_run(const char *exe, const struct fio_spec *s, struct fio_res *r, char *why, size_t n);

#endif
