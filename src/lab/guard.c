// SPDX-License-Identifier: MIT
/*
 * The settings journal and the lock that serialises host changes. See guard.h
 * for the contract; lab/journal.c for the file's text and its allow-list.
 *
 * Why a POSIX record lock (fcntl F_SETLK) and not flock(): a record lock
 * belongs to the process, so children forked by a lab experiment do not
 * inherit it (a killed lab's children cannot keep "holding" a dead run's
 * change), and F_GETLK names the holder's pid. The kernel drops it when the
 * holder dies, however it dies, so "the lock is free and a journal exists"
 * means exactly "a run was killed before it restored". The catch: closing
 * ANY descriptor of the lock file drops the process's lock, so the lock file
 * is opened once (lab/guard_fs.c) and never closed.
 */
#include "guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "../kernel/parse.h"
#include "../kernel/sysfs.h"
#include "../util/fileio.h"
#include "journal.h"

#include "guard_int.h"

static struct {
	bool active; /* guard_begin() succeeded: we hold the lock */
	pid_t owner;
	int rootfd; /* O_PATH of "/": restore targets are resolved beneath it */
	int dirfd;  /* the journal directory */
	bool file_written;
	bool quiet;
	bool restore_failed; /* guard_restore() left entries in this guard: not tried again */
	struct journal j;
	struct sysroot sr;
} g = {.rootfd = -1, .dirfd = -1};

/* Signals after which we restore and then die as the signal says. */
static const int fatal_signals[] = {
	SIGHUP,
	SIGINT,
	SIGQUIT,
	SIGPIPE,
	SIGTERM,
	SIGUSR1,
	SIGUSR2,
	SIGALRM,
	SIGXCPU,
	SIGXFSZ,
	SIGVTALRM,
	SIGPROF,
	SIGABRT,
#ifndef __SANITIZE_ADDRESS__
	/* under ASan its own handler reports these, and exits without raising */
	SIGSEGV,
	SIGBUS,
	SIGFPE,
	SIGILL,
	SIGSYS,
	SIGTRAP,
#endif
};

/* ---- the journal file ---------------------------------------------------- */

/* Write J as the journal, durably: util's write_file_atomic (mkstemp, fsync, rename) + fsync(dir). */
static int journal_save(const struct journal *j)
{
	static char text[JOURNAL_MAX_BYTES];
	/* a journal re-saved by a recovery keeps the name of the run that changed the values */
	int len = journal_format(j, j->owner ? j->owner : (long)getpid(), text, sizeof(text));
	if (len < 0)
		return len;
	/* 0644: users are told of a pending restore */
	int r = write_file_atomic(guard_journal_path(), text, (size_t)len, 0644);
	if (!r)
		fsync(g.dirfd);
	return r;
}

static void journal_delete(void)
{
	if (unlinkat(g.dirfd, "journal", 0) == 0)
		fsync(g.dirfd);
}

/*
 * Read the journal into J. Returns 1 (one is there), 0 (none), or -errno
 * after a one-line warning on OUT (damaged: not a regular file, not root's,
 * too large, bad header).
 */
static int journal_load(struct journal *j, FILE *out)
{
	static char text[JOURNAL_MAX_BYTES + 1];
	ssize_t len = gfs_read_root_file(g.dirfd, "journal", text, sizeof(text), JOURNAL_MAX_BYTES);
	if (len == -ENOENT)
		return 0;
	if (len >= 0 && journal_parse(text, (size_t)len, j))
		len = -EBADMSG;
	if (len < 0) {
		fprintf(out, "thpctl: %s ignored: %s\n", guard_journal_path(),
			len == -EINVAL	  ? "not a regular file owned by root"
			: len == -EFBIG	  ? "too large to be a journal"
			: len == -EBADMSG ? "not a thpctl journal"
					  : strerror((int)-len));
		return (int)len;
	}
	if (j->rejected)
		fprintf(out,
			"thpctl: %s: %d entr%s refused (not a THP, hugetlb or compaction setting, or a malformed value), e.g. '%s'\n",
			guard_journal_path(), j->rejected, j->rejected == 1 ? "y" : "ies",
			j->first_rejected);
	return 1;
}

/* ---- restoring ----------------------------------------------------------- */

/*
 * Restore every entry of J (newest first); entries that did not take stay in
 * J. SAY: print "thpctl: /REL: restored V" per success (errors always).
 * Returns 0 when all took, else -EIO.
 */
static int restore_list(struct journal *j, bool say)
{
	int kept = 0;
	for (int i = j->n - 1; i >= 0; i--) {
		int r = gfs_restore_one(g.rootfd, &j->e[i]);
		if (r) {
			fprintf(stderr,
				"thpctl: /%s: could NOT put back %s: %s (kept in %s; any thpctl command run as root retries)\n",
				j->e[i].rel, j->e[i].old,
				r == -EIO ? "the kernel reads back another value" : strerror(-r),
				guard_journal_path());
			continue;
		}
		if (say)
			fprintf(stderr, "thpctl: /%s: restored %s\n", j->e[i].rel, j->e[i].old);
		j->e[i].rel[0] = '\0';
	}
	for (int i = 0; i < j->n; i++)
		if (j->e[i].rel[0])
			j->e[kept++] = j->e[i];
	j->n = kept;
	return kept ? -EIO : 0;
}

static void (*volatile signal_hook)(void);

void guard_fatal_sigset(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(set, fatal_signals[i]);
}

/* The process that set the hook: a forked child still running our handler does not run it. */
static volatile pid_t hook_owner;

static void on_signal(int sig);

/* on_signal for the fatal signals: IF_DEFAULT only where the disposition is the default (another
 * handler stays); an inherited SIG_IGN (nohup) stays ignored either way. */
static void catch_fatal(bool if_default)
{
	struct sigaction sa = {.sa_handler = on_signal}, old;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		if (sigaction(fatal_signals[i], NULL, &old) == 0 &&
		    (old.sa_handler == SIG_IGN || (if_default && old.sa_handler != SIG_DFL)))
			continue;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

void guard_at_signal(void (*fn)(void))
{
	hook_owner = getpid();
	signal_hook = fn;
	/* without root no guard_begin() installs the handler: the hook must run anyway (a
	 * workload's files, its children) */
	if (fn)
		catch_fatal(true);
}

/* Async-signal-safe: the hook, restore, and delete the journal only if all took. */
static void on_signal(int sig)
{
	int saved = errno;
	void (*hook)(void) = signal_hook;
	if (hook && getpid() == hook_owner)
		hook();
	if (g.active && getpid() == g.owner && g.j.n) {
		bool all = true;
		for (int i = g.j.n - 1; i >= 0; i--)
			if (gfs_restore_one(g.rootfd, &g.j.e[i]))
				all = false;
		static const char ok[] = "thpctl: interrupted: settings put back\n";
		static const char bad[] =
			"thpctl: interrupted: some settings could NOT be put back; the journal stays for the next thpctl command run as root\n";
		if (all && g.file_written)
			unlinkat(g.dirfd, "journal", 0);
		ssize_t w = all ? write(2, ok, sizeof(ok) - 1) : write(2, bad, sizeof(bad) - 1);
		(void)w;
	}
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

static void block_all(sigset_t *prev)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, prev);
}

int guard_restore(void)
{
	if (!g.active || getpid() != g.owner)
		return 0;
	sigset_t prev;
	block_all(&prev);
	int r = restore_list(&g.j, !g.quiet);
	g.restore_failed = r != 0;
	g.j.unrestored = r != 0; /* the next run says so, not "killed" */
	if (!r) {
		if (g.file_written)
			journal_delete();
		g.file_written = false;
	} else if (journal_save(&g.j) == 0) {
		g.file_written = true;
	}
	sigprocmask(SIG_SETMASK, &prev, NULL);
	return r;
}

void guard_commit(void)
{
	if (!g.active || getpid() != g.owner)
		return;
	sigset_t prev;
	block_all(&prev);
	if (g.file_written)
		journal_delete();
	g.j.n = 0;
	g.file_written = false;
	sigprocmask(SIG_SETMASK, &prev, NULL);
}

void guard_end(void)
{
	if (!g.active || getpid() != g.owner)
		return;
	/* a restore that failed in this run is not tried (and said) again at its end: what
	 * it could not put back stays journalled for the next run */
	if (g.j.n && !g.restore_failed)
		guard_restore();
	g.active = false;
	gfs_lock_drop();
}

static void at_exit(void)
{
	guard_end();
}

void guard_announce(bool on)
{
	g.quiet = !on;
}

/* A listing of the journal directory (its own descriptor), or NULL. */
static DIR *journal_dir_open(void)
{
	int fd = openat(g.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* Whether the journal directory holds a journal or a temporary of one (*JOURNAL), and undo
 * files of `thpctl run` (*UNDO): one listing for both, the start of every live command. */
static void leftovers(bool *journal, bool *undo)
{
	*journal = *undo = false;
	DIR *d = journal_dir_open();
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		*journal |= strcmp(de->d_name, "journal") == 0 ||
			    strncmp(de->d_name, ".journal.", 9) == 0;
		*undo |= strncmp(de->d_name, "undo.", 5) == 0;
	}
	closedir(d);
}

/* Remove temporaries (".journal.XXXXXX") of a run killed inside journal_save(); we hold the lock. */
static void sweep_temporaries(void)
{
	DIR *d = journal_dir_open();
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strncmp(de->d_name, ".journal.", 9) == 0 && strlen(de->d_name) == 15)
			unlinkat(g.dirfd, de->d_name, 0);
	closedir(d);
}

/* Who left journal J: a killed run, or one that exited after its restore failed. */
static const char *guard_left_by(const struct journal *j)
{
	return j->unrestored ? "a thpctl that could not put them back" : "a killed thpctl";
}

/* Restore a dead run's journal; we hold the lock. Returns entries restored or -EIO. */
static int recover_locked(FILE *out)
{
	static struct journal j, before;
	sweep_temporaries();
	int r = journal_load(&j, out);
	if (r <= 0)
		return 0;
	if (!j.n) {
		journal_delete();
		return 0;
	}
	before = j;
	r = restore_list(&j, false);
	if (r == 0)
		journal_delete();
	else
		journal_save(&j);
	/* one line, on stderr and in syslog, so an operator learns why a setting moved */
	char line[2048];
	int k = snprintf(line, sizeof(line),
			 "restored %d setting(s) left changed by %s (%s, pid %ld):", before.n - j.n,
			 guard_left_by(&before), before.purpose, before.owner);
	for (int i = before.n - 1; i >= 0 && (size_t)k < sizeof(line); i--) {
		bool failed = false;
		for (int f = 0; f < j.n; f++)
			failed |= strcmp(j.e[f].rel, before.e[i].rel) == 0;
		if (!failed)
			k += snprintf(line + k, sizeof(line) - (size_t)k, " /%s=%s",
				      before.e[i].rel, before.e[i].old);
	}
	if (r && (size_t)k < sizeof(line))
		snprintf(line + k, sizeof(line) - (size_t)k,
			 "; %d could NOT be put back (kept in %s)", j.n, guard_journal_path());
	fprintf(out, "thpctl: %s\n", line);
	openlog("thpctl", LOG_PID, LOG_USER);
	syslog(r ? LOG_WARNING : LOG_NOTICE, "%s", line);
	closelog();
	return r ? -EIO : before.n;
}

int guard_begin(const struct sysroot *sr, const char *purpose, bool wait)
{
	if (geteuid() != 0)
		return -EPERM;
	if (!sr->live)
		return -EROFS;
	if (g.active)
		return 0;
	int r = gfs_dir(true);
	if (r < 0)
		return r;
	g.dirfd = r;
	if ((g.rootfd = gfs_root()) < 0)
		return g.rootfd;
	r = gfs_lock_take(wait, purpose);
	if (r)
		return r;
	if (recover_locked(stderr) < 0) {
		gfs_lock_drop();
		return -EIO;
	}
	g.sr = *sr;
	g.owner = getpid();
	g.j.n = 0;
	g.j.owner = (long)getpid();
	g.file_written = false;
	snprintf(g.j.purpose, sizeof(g.j.purpose), "%s", purpose);
	g.active = true;
	g.restore_failed = false;
	static bool installed;
	if (!installed) {
		installed = true;
		atexit(at_exit);
		catch_fatal(
			false); /* over a command's own handler (ab's): this one runs its hook */
	}
	return 0;
}

/* The value to write back: the bracketed word of a choice file, else the trimmed text. */
static int current_value(const char *rel, char *out, size_t n)
{
	return sysfs_value(&g.sr, rel, out, n);
}

static int do_write(const char *rel, const char *value)
{
	int fd = gfs_open_beneath(g.rootfd, rel, O_WRONLY);
	if (fd < 0)
		return fd;
	int r = write_all(fd, value, strlen(value));
	close(fd);
	return r;
}

/* *REL past its leading slashes, when the guard is active (-EPERM) and ALLOWED(*REL) (-EACCES). */
static int guard_check(const char **rel, bool (*allowed)(const char *rel))
{
	if (!g.active)
		return -EPERM;
	while (**rel == '/')
		(*rel)++;
	return allowed(*rel) ? 0 : -EACCES;
}

int guard_write(const char *rel, const char *value)
{
	/* journalled and written as the kernel names it (RHEL 6: redhat_transparent_hugepage) */
	char real[JOURNAL_REL_LEN];
	if (g.active && thp_real_rel(&g.sr, rel, real, sizeof(real)))
		return -EACCES;
	if (g.active)
		rel = real;
	int r = guard_check(&rel, journal_rel_allowed);
	if (r)
		return r;
	if (!journal_value_ok(value))
		return -EINVAL;
	char old[JOURNAL_VALUE_LEN];
	if ((r = current_value(rel, old, sizeof(old))))
		return r;
	bool known = false;
	for (int i = 0; i < g.j.n; i++)
		if (strcmp(g.j.e[i].rel, rel) == 0)
			known = true;
	if (!known) {
		if (g.j.n == JOURNAL_MAX_ENTRIES)
			return -ENOSPC;
		if (!journal_value_ok(old))
			return -EINVAL;
		/* block signals while the entry and the journal disagree */
		sigset_t prev;
		block_all(&prev);
		snprintf(g.j.e[g.j.n].rel, sizeof(g.j.e[0].rel), "%s", rel);
		snprintf(g.j.e[g.j.n].old, sizeof(g.j.e[0].old), "%s", old);
		g.j.n++;
		r = journal_save(&g.j);
		if (r) {
			g.j.n--;
		} else {
			g.file_written = true;
			g.restore_failed = false; /* a new entry: guard_end restores again */
		}
		sigprocmask(SIG_SETMASK, &prev, NULL);
		if (r) {
			fprintf(stderr, "thpctl: cannot write %s: %s\n", guard_journal_path(),
				strerror(-r));
			return -ENOLCK;
		}
	}
	if (strcmp(old, value) == 0)
		return 0;
	if (!g.quiet)
		fprintf(stderr, "thpctl: /%s: %s -> %s\n", rel, old, value);
	return do_write(rel, value);
}

int guard_poke(const char *rel, const char *value)
{
	int r = guard_check(&rel, journal_poke_allowed);
	if (r)
		return r;
	if (!g.quiet)
		fprintf(stderr, "thpctl: /%s <- %s\n", rel, value);
	return do_write(rel, value);
}

/* A user other than root: tell of a journal that nobody is restoring, never act on it. */
static int report_pending(FILE *out)
{
	if (gfs_lock_check() == -EBUSY)
		return 0; /* a run holds it and will restore */
	static struct journal j;
	if (journal_load(&j, out) <= 0 || !j.n)
		return 0;
	fprintf(out,
		"thpctl: %s holds %d setting(s) left changed by %s (%s): run any thpctl command as root to restore them\n",
		guard_journal_path(), j.n, guard_left_by(&j), j.purpose);
	return -EPERM;
}

int guard_recover(FILE *out)
{
	if (g.active)
		return 0;
	int dfd = gfs_dir(false);
	if (dfd < 0)
		return 0;
	g.dirfd = dfd;
	bool journal, undo;
	leftovers(&journal, &undo);
	if (undo)
		guard_undo_recover(out); /* undo files have locks of their own */
	/* no journal and no temporary: nothing to recover, and no lock taken */
	if (!journal)
		return 0;
	if (geteuid() != 0)
		return report_pending(out);
	if ((g.rootfd = gfs_root()) < 0)
		return 0;
	int r = gfs_lock_take(false, GFS_RECOVERY);
	if (r == -EBUSY)
		return -EBUSY;
	if (r)
		return 0;
	r = recover_locked(out);
	gfs_lock_drop();
	return r;
}
