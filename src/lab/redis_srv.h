/* SPDX-License-Identifier: MIT */
/*
 * lab redis: Debian's redis-server and redis-benchmark as child processes
 * (loopback, a private port and directory, the config on the command line),
 * a minimal RESP client for PING, INFO, BGSAVE and the key loader, and the
 * parsers of what they print. The children die with thpctl (PDEATHSIG) and
 * are stopped by the guard's signal hook on SIGINT/SIGTERM (the server with
 * SIGTERM: it ends its BGSAVE child; SIGKILL after 2 s).
 */
#ifndef THPCTL_LAB_REDIS_SRV_H
#define THPCTL_LAB_REDIS_SRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The value size of every key the loader writes and redis-benchmark sets (bytes). */
#define REDIS_VALUE_BYTES 1000

/* A running redis-server of ours. */
struct redis_srv {
	pid_t pid; /* 0: not running */
	int fd;	   /* client connection, -1 when none */
	int port;
	char dir[64]; /* private directory (mkdtemp), "" when none */
};

/*
 * The full path of PROG found on $PATH into OUT. Returns 0, or -ENOENT when
 * it is not there (or not executable).
 */
int redis_find(const char *prog, char *out, size_t n);

/*
 * Start EXE as a server on 127.0.0.1, a free port, a fresh directory under
 * $TMPDIR (or /tmp), no persistence, `disable-thp yes|no` (DISABLE_THP), its
 * environment's MALLOC_CONF set to MALLOC_CONF (jemalloc's options, e.g.
 * "thp:always") or removed (NULL), and wait (<= 10 s) until it answers PING.
 * Returns 0 or -errno (S cleaned up; ERR, N: a reason such as "exited with
 * status 1").
 */
int redis_start(struct redis_srv *s, const char *exe, bool disable_thp, const char *malloc_conf,
		char *err, size_t n);

/*
 * SHUTDOWN NOSAVE, wait (SIGKILL after 5 s), remove the directory and all in
 * it. Idempotent. (On a fatal signal the hook stops the server with SIGTERM,
 * SIGKILL after 2 s, and removes the directory the same way.)
 */
void redis_stop(struct redis_srv *s);

/* SET key:%012d (0..NKEYS-1, redis-benchmark's -r names) to a REDIS_VALUE_BYTES value. 0 or -errno. */
int redis_load(struct redis_srv *s, uint64_t nkeys);

/* Send one inline command CMD and read its reply (status, integer or bulk text) into OUT. 0 or -errno. */
int redis_cmd(struct redis_srv *s, const char *cmd, char *out, size_t n);

/*
 * Start redis-benchmark EXE against S: OPS requests each of SET and GET over
 * NKEYS random keys, 50 clients, --csv on a pipe. Returns the pid (> 0) or
 * -errno; *OUTFD is the read end: child_collect() (child.h) reads it and reaps.
 */
pid_t redis_bench_start(const struct redis_srv *s, const char *exe, uint64_t ops, uint64_t nkeys,
			int *outfd);

/* One redis-benchmark --csv line. */
struct bench_row {
	bool present;
	double rps, p50_ms, p99_ms, max_ms;
};

/*
 * Parse redis-benchmark --csv output (Redis >= 6.2: "test","rps",
 * "avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",
 * "p99_latency_ms","max_latency_ms") into SET and GET (pure). Columns are
 * found by the header. Returns the number of rows filled.
 */
int redis_parse_csv(const char *text, struct bench_row *set, struct bench_row *get);

/* The value of FIELD ("latest_fork_usec") in INFO text as an integer (pure). false when absent. */
bool redis_info_u64(const char *info, const char *field, uint64_t *v);

/* The value of FIELD in INFO text as a string into OUT (pure). false when absent. */
bool redis_info_str(const char *info, const char *field, char *out, size_t n);

#endif
