/* SPDX-License-Identifier: MIT */
/*
 * The programs an experiment runs as children (redis-server and
 * redis-benchmark, postgres, initdb and pgbench, fio, python3 with numpy):
 * started so that they die with thpctl (PR_SET_PDEATHSIG), with the default
 * disposition of the signals thpctl handles, their standard streams on the
 * given fds or /dev/null; stopped with a signal and a bounded wait; reaped;
 * and watched, so that the settings guard's signal hook (guard_at_signal())
 * stops every one still running before the settings go back. One place for
 * what lab/redis_srv.c, pg_srv.c, iouring_run.c and matmul_run.c used to
 * repeat.
 */
#ifndef THPCTL_LAB_CHILD_H
#define THPCTL_LAB_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How to start one child. */
struct child_spec {
	const char *path;  /* the executable */
	char *const *argv; /* argv[0] included, NULL-terminated */
	char *const *envp; /* NULL: thpctl's environment */
	int in, out, err;  /* its fds 0, 1, 2; -1: /dev/null */
	const char *cwd;   /* NULL: thpctl's */
	bool drop;	   /* run as UID:GID (supplementary groups dropped); exit 126 if not */
	uid_t uid;
	gid_t gid;
	/* in the child, after the above, before exec (may _exit); NULL: none */
	void (*before_exec)(void *ctx);
	void *ctx;
};

/*
 * fork and exec S. In the child: the uid change (S->drop), then
 * PR_SET_PDEATHSIG SIGKILL (a uid change clears it) and exit 125 when thpctl
 * is already gone, SIGINT, SIGTERM, SIGHUP and SIGPIPE back to their
 * defaults, the fds, the directory (exit 126 if it fails), S->before_exec,
 * exec (exit 127 if it fails). The child is watched (child_watch(), SIGKILL).
 * Returns its pid or -errno.
 */
pid_t child_spawn(const struct child_spec *s);

/*
 * The signal hook stops PID: SIG (SIGKILL, or SIGQUIT for a server that
 * shuts down cleanly), up to MS for it to exit, then SIGKILL. A later call
 * for the same PID replaces its way; at most CHILD_MAX_WATCHED at a time.
 */
#define CHILD_MAX_WATCHED 8
void child_watch(pid_t pid, int sig, long ms);
/* Forget PID (reaped by its owner). */
void child_unwatch(pid_t pid);

/*
 * FN runs in the signal hook after the watched children are stopped: what
 * they leave (a directory, a socket file). Async-signal-safe only (unlink,
 * rmdir, child_remove_tree()). One function; a later call replaces it.
 */
void child_at_signal(void (*fn)(void));

/* The exit code of a wait status: the code, or 128 + the signal. */
int child_code(int status);

/*
 * Whether PID has exited, without waiting; reaped then, its exit code
 * (child_code()) in *CODE. Unwatched once reaped.
 */
bool child_exited(pid_t pid, int *code);

/*
 * Send SIG to PID (0: none, it was asked some other way) and wait up to MS
 * (< 0: no limit) for it to exit. True when it was reaped (or is not a child
 * of thpctl any more). Async-signal-safe.
 */
bool child_stop(pid_t pid, int sig, long ms);

/*
 * End the child *PID (nothing when <= 0): SIG (0: it was asked some other
 * way, a SHUTDOWN or an EOF), up to MS for it to exit, then SIGKILL; reaped,
 * unwatched, *PID set to 0.
 */
void child_end(pid_t *pid, int sig, long ms);

/*
 * A private directory $TMPDIR/thpctl-NAME.XXXXXX (/tmp when TMPDIR is unset,
 * empty, or too long for DIR's N bytes) into DIR. Returns 0, or -errno with
 * the reason in ERR (ERRN bytes) and DIR empty.
 */
int child_dir_make(char *dir, size_t n, const char *name, char *err, size_t errn);

/* Wait for PID to exit (EINTR retried). Its exit code (child_code()), or -errno. */
int child_reap(pid_t pid);

/*
 * Read FD to its end into OUT (N bytes, NUL-terminated; the rest is read and
 * dropped), close FD, then reap PID. Its exit code, or -errno.
 */
int child_collect(pid_t pid, int fd, char *out, size_t n);

/* A free loopback TCP port (bound, read, released) for a server child, or -errno. */
int child_free_port(void);

/* Sleep MS milliseconds (EINTR resumed). */
void child_sleep_ms(long ms);

/* rm -rf --one-file-system DIR as a child, reaped (async-signal-safe). */
void child_remove_tree(const char *dir);

#endif
