/* SPDX-License-Identifier: MIT */
/*
 * Host changes, made safely. Every change (THP knobs, hugetlb pools, vm
 * sysctls) goes through guard_write() while the process holds the settings
 * lock; the previous value of each file is journalled on disk (fsync'd)
 * before its first write, and put back by guard_restore(): at the end of the
 * change, at exit, on every fatal signal (SIGHUP INT QUIT PIPE TERM USR1 USR2
 * ALRM XCPU XFSZ VTALRM PROF ABRT; an inherited SIG_IGN stays ignored), and,
 * for a run killed with SIGKILL, by the next thpctl command run as root
 * (guard_recover()). A change meant to stay (`set`) calls guard_commit() once
 * complete, so only a half-done change is ever rolled back.
 *
 * The lock: a POSIX write lock on /run/thpctl/lock held from guard_begin()
 * to guard_end() (or exit): one changer at a time, and "journal present, lock
 * free" means its writer died. Every restore is read back; a value that did
 * not take stays in the journal and is reported.
 *
 * The journal (/run/thpctl/journal, lab/journal.h) is trusted only as far as
 * its checks: the directory must be root's, not a symlink, not writable by
 * others; the file a regular root-owned file of bounded size, opened without
 * following links or blocking; each entry a path on the allow-list
 * (journal_rel_allowed) resolved beneath / without symlinks or "..".
 * Test builds (THPCTL_TEST_HOOKS) also honour $THPCTL_JOURNAL_DIR, which must
 * be root's with mode 0700; release builds ignore it.
 */
#ifndef THPCTL_LAB_GUARD_H
#define THPCTL_LAB_GUARD_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "../kernel/sysroot.h"

/*
 * Start guarding host changes made through SR (must be live) for PURPOSE
 * (e.g. "lab touch"): take the settings lock (WAIT: wait for a holder to
 * finish, else fail at once), restore a journal left by a dead run, install
 * the signal handlers and an atexit hook. Returns 0, -EPERM (not root),
 * -EROFS (not the live system), -EBUSY (another process holds the lock:
 * guard_holder() names it), -EIO (a dead run's values could not all be put
 * back: reported, nothing new may start) or -errno.
 */
int guard_begin(const struct sysroot *sr, const char *purpose, bool wait);

/* Who holds the lock after -EBUSY: "pid 1234 (lab quick)". */
const char *guard_holder(void);

/*
 * Write VALUE to REL (relative to /, from kernel/sysfs.h: thp_knob_rel(), thp_size_rel(), ...), journalling
 * the old value first (once per file). Announces "thpctl: /REL: OLD -> VALUE"
 * on stderr unless guard_announce(false). Returns 0 or -errno (-EPERM: no
 * guard_begin(); -EACCES: REL is not on the journal's allow-list; -EINVAL: a
 * value that is not a knob word or number; what the write returned).
 */
int guard_write(const char *rel, const char *value);

/*
 * FN (NULL: none) runs first in the fatal-signal handler of the process
 * that set it, before the settings go back: it must be async-signal-safe
 * (kill, waitpid, unlink). One hook; a later call replaces it. A non-NULL FN
 * also installs the handler on the fatal signals still at their default
 * disposition, so the hook runs without guard_begin() too (not root).
 */
void guard_at_signal(void (*fn)(void));

/*
 * The fatal signals guard_begin() catches, into SET: for a command that cleans up on the same
 * signals before its first guard_begin() (ab: the command it runs, its log directory), through
 * the same hook (guard_at_signal()), so that either handler does it.
 */
void guard_fatal_sigset(sigset_t *set);

/* Write without journalling, for one-shot actions (drop_caches, compact_memory only). Announced. */
int guard_poke(const char *rel, const char *value);

/*
 * Whether guard_write() and guard_poke() announce each change on stderr
 * (default: yes). `set` and `snapshot restore` print their own "old -> new"
 * lines on stdout and turn it off.
 */
void guard_announce(bool on);

/*
 * Put every journalled value back (newest first), reading each back. Values
 * that did not take stay journalled and are reported on stderr. Keeps the
 * lock. Returns 0, or -EIO when some value could not be put back.
 */
int guard_restore(void);

/* Keep the changes: delete the journal without restoring. Keeps the lock. */
void guard_commit(void);

/* Restore what is left (guard_restore) and let go of the lock. Idempotent. */
void guard_end(void);

/*
 * At the start of any command: as root, if the lock is free and a journal
 * exists (a killed run), restore it and say so on OUT in one line, also sent
 * to syslog. A user other than root is only told of a pending journal.
 * Returns the number of values restored, 0 if none, -EBUSY when a live run
 * holds the lock, -EPERM (not root, a journal is pending), -EIO when some
 * value could not be put back (it stays journalled).
 */
int guard_recover(FILE *out);

/* Path of the journal file (for messages and tests). */
const char *guard_journal_path(void);

/*
 * Host changes undone by an action rather than by writing a value back: a
 * tracefs instance made by `trace stalls` (KIND GUARD_UNDO_TRACEFS_INSTANCE,
 * ARG its name), the private directory of `lab fileread` with its tmpfs
 * mounts (GUARD_UNDO_LAB_DIR, ARG its path). Journalled before the change in a file of this process's
 * own, "undo.<pid>" beside the journal and locked by it while it lives, so a
 * trace can run while a lab holds the settings lock. guard_recover() also
 * runs the undo files nobody holds (the next thpctl command after a SIGKILL). No signal handlers: the caller
 * undoes its changes itself and then calls guard_undo_done(). Returns 0,
 * -EPERM (not root), -EINVAL (unknown KIND), -ENOSPC, or -errno.
 */
#define GUARD_UNDO_TRACEFS_INSTANCE "tracefs-instance"
/* A lab's private directory (ARG its absolute path): its tmpfs mounts unmounted, it removed. */
#define GUARD_UNDO_LAB_DIR "lab-dir"
/* A lab's memory cgroup (ARG its absolute path, kernel/memcg_lab.h): its processes killed, it removed. */
#define GUARD_UNDO_MEMCG "memcg"
int guard_undo_add(const char *purpose, const char *kind, const char *arg);
/* The change KIND/ARG is undone: forget it (the file goes with the last one). */
void guard_undo_done(const char *kind, const char *arg);
/*
 * In a fatal-signal hook, once the caller has undone every change it
 * recorded: remove this process's undo file. Async-signal-safe.
 */
void guard_undo_drop_signal(void);
/* Run the undo files of dead owners (root), or tell of them. Returns the number of files seen. */
int guard_undo_recover(FILE *out);

#endif
