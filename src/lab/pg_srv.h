/* SPDX-License-Identifier: MIT */
/*
 * lab postgres: a private PostgreSQL cluster from Debian's postgresql package
 * (/usr/lib/postgresql/<ver>/bin) run as an unprivileged user (postgres, else
 * nobody): initdb in a fresh directory under $TMPDIR (or /tmp) owned by that
 * user, the server started with its whole config on the command line, unix
 * socket only (listen_addresses '', the socket in that directory, a free
 * private port), pgbench against it. Every child drops to the user with
 * setgid/setuid before it execs, dies with thpctl (PDEATHSIG), and is stopped
 * by the guard's signal hook on SIGINT/SIGTERM, which also removes the
 * directory. Plus the pure parsers of what pgbench and postgres print.
 */
#ifndef THPCTL_LAB_PG_SRV_H
#define THPCTL_LAB_PG_SRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../kernel/smaps.h"
#include "../util/stats.h"
#include "lab.h"

/* A private cluster (one data directory, at most one server running). */
struct pg_cluster {
	char bin[64]; /* /usr/lib/postgresql/<ver>/bin */
	char ver[16]; /* "15" */
	char user[16];
	uid_t uid;
	gid_t gid;
	char dir[64]; /* the private directory (socket, log, data/), "" when none */
	int port;
	pid_t pid; /* the postmaster, 0 when not running */
};

/* Where Debian's postgresql-<ver> packages put their binaries: PG_ROOT/<ver>/bin. */
#define PG_ROOT "/usr/lib/postgresql"

/*
 * The highest numeric version directory under ROOT (PG_ROOT) whose bin/
 * holds executable postgres, initdb and pgbench into C->bin, C->ver.
 * 0, or -ENOENT (none, or ROOT unreadable).
 */
int pg_find(const char *root, struct pg_cluster *c);

/*
 * The private directory (mkdtemp, then owned by postgres or nobody), a free
 * port, and initdb (trust auth, UTF8, no locale, --no-sync). 0 or -errno
 * (C cleaned up; ERR: why, with initdb's last line).
 */
int pg_init(struct pg_cluster *c, char *err, size_t n);

/*
 * `postgres -C NAME` with ARGS (the -c settings, NULL-terminated) on the
 * stopped cluster: the value printed (shared_memory_size, in MB) as an
 * integer. 0 or -errno.
 */
int pg_show(const struct pg_cluster *c, const char *name, const char *const *args, uint64_t *v);

/*
 * Start the server with ARGS (-c NAME=VALUE pairs, NULL-terminated) after the
 * private ones (port, socket directory, listen_addresses ''), wait (<= 30 s)
 * until postmaster.pid says ready. 0 or -errno (ERR: the server log's last line).
 */
int pg_start(struct pg_cluster *c, const char *const *args, char *err, size_t n);

/* Fast shutdown (SIGINT), then SIGQUIT after 15 s, SIGKILL after 5 more; reaps it. Idempotent. */
void pg_stop(struct pg_cluster *c);

/* pg_stop, then remove the directory (rm -rf as a child). Idempotent. */
void pg_destroy(struct pg_cluster *c);

/*
 * Run pgbench with ARGS (NULL-terminated, after the connection options)
 * against the running server, its stdout and stderr into OUT (NUL-terminated,
 * truncated to N-1). Returns the pid (> 0) or -errno; then child_collect() (child.h).
 */
pid_t pg_bench_start(const struct pg_cluster *c, const char *const *args, int *outfd);

#define PG_MAX_PROGRESS 64

/* What pgbench printed (fields absent stay false / -1). */
struct pgbench_out {
	bool has_tps, has_lat, has_sd, has_xacts;
	double tps;	/* "tps = X (without initial connection time)" */
	double lat_ms;	/* "latency average = X ms" */
	double sd_ms;	/* "latency stddev = X ms" (printed with -P) */
	uint64_t xacts; /* "number of transactions actually processed: N" */
	int nprog;	/* -P lines, in order (the first PG_MAX_PROGRESS) */
	double prog_tps[PG_MAX_PROGRESS];
	double prog_t[PG_MAX_PROGRESS]; /* seconds since the start */
};

/*
 * Parse pgbench's output (PostgreSQL 10..17: the summary on stdout, -P 1
 * "progress: 1.0 s, 47300.5 tps, lat 0.081 ms stddev 0.174" lines on stderr)
 * into O (pure). The tps is the one without connection time ("excluding
 * connections establishing" before 14). Returns 0 when tps and latency
 * average were found, else -EPROTO (what was found stays set).
 */
int pgbench_parse(const char *text, struct pgbench_out *o);

/* Where the server's shared memory lives: its largest shared segment in smaps. */
struct pg_shm {
	bool found;
	char name[40];	  /* "/dev/zero (deleted)", "/anon_hugepage (deleted)", "/SYSV..." */
	uint64_t size_kb; /* Size: */
	uint64_t kps_kb;  /* KernelPageSize: */
	uint64_t rss_kb;  /* Rss: */
	uint64_t pmd_kb;  /* ShmemPmdMapped: */
	uint64_t htlb_kb; /* Shared_Hugetlb + Private_Hugetlb */
	bool has_pmd;	  /* ShmemPmdMapped was printed */
};

/*
 * Feed one VMA of the postmaster's smaps (pure): a shared ("s" in the perms)
 * mapping of shmem or hugetlb ("/dev/zero (deleted)", "/anon_hugepage
 * (deleted)", "/SYSV<key> (deleted)", "[anon_shmem...") larger than the one
 * S holds replaces it. Returns true when V was taken.
 */
bool pg_shm_feed(struct pg_shm *s, const struct smaps_vma *v);

/*
 * The call on a claim that the ratio lies in the band LO..HI (HI may be
 * INFINITY) from the interval CI (pure): confirmed when the whole interval
 * is inside the band, contradicted when it lies wholly outside (the spread
 * smaller than the distance), inconclusive otherwise or without an interval.
 */
enum claim_call pg_band_call(const struct ratio_ci *ci, double lo, double hi);

/*
 * CALL held to the rounds (pure): the modes run one after another, so the
 * per-second interval cannot tell a load change between them from the mode.
 * A call stands only with 2 or more rounds whose own ratios MODE[i] / BASE[i]
 * (tps, N rounds paired by index) all agree with it: all inside LO..HI for
 * confirmed, all outside on one side for contradicted; otherwise inconclusive,
 * and WHY (N bytes) says so. Returns the call that stands.
 */
enum claim_call pg_rounds_gate(enum claim_call call, const double *base, const double *mode, int n,
			       double lo, double hi, char *why, size_t wn);

enum pg_backing { PG_BACKED, PG_BACKED_WRONG, PG_BACKING_UNKNOWN };

/*
 * The backing call on N modes (pure): HAVE[k] the mode gave figures, FOUND[k]
 * its shared segment was found in the postmaster's smaps, RIGHT[k] that
 * segment sat on the pages the mode should give it. A mode read with the
 * wrong backing decides (PG_BACKED_WRONG), whatever else is missing; else a
 * mode without figures or segment leaves it PG_BACKING_UNKNOWN; else
 * PG_BACKED (every mode right).
 */
enum pg_backing pg_backing_call(const bool *have, const bool *found, const bool *right, int n);

#endif
