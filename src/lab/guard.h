/* SPDX-License-Identifier: MIT */
/*
 * The settings journal: every host change (THP knobs, vm sysctls) goes
 * through guard_write(), which records the previous value on disk (fsync'd)
 * before the first write to that file. guard_restore() puts everything back;
 * it runs at exit, on SIGINT/SIGTERM/SIGHUP, and, for a run killed with
 * SIGKILL, at the start of the next thpctl command (guard_recover()).
 * A change meant to stay (`set`) calls guard_commit() once it is complete, so
 * only a half-done change is ever rolled back.
 *
 * Journal: $THPCTL_JOURNAL_DIR, else /run/thpctl (root), else
 * $XDG_RUNTIME_DIR/thpctl; file "journal", text, one "path<TAB>value" line
 * per entry after a header naming the owner pid and its start time.
 */
#ifndef THPCTL_LAB_GUARD_H
#define THPCTL_LAB_GUARD_H

#include <stdbool.h>
#include <stdio.h>

#include "../kernel/sysroot.h"

#define GUARD_MAX_ENTRIES 64
#define GUARD_VALUE_LEN 64

/*
 * Start guarding host changes made through SR (must be live) for PURPOSE
 * (e.g. "lab touch"). Installs the signal handlers and an atexit hook.
 * Restores a journal left by a dead run. Returns 0, -EPERM when not root, or
 * -errno.
 */
int guard_begin(const struct sysroot *sr, const char *purpose);

/*
 * Write VALUE to REL (relative to the sysroot, e.g. SR_THP "/enabled"),
 * journalling the old value first (once per file). Prints "thpctl: REL:
 * OLD -> VALUE" on stderr so the change is announced. Returns 0 or -errno
 * (-EINVAL: the kernel rejected the value; -EBUSY: another running thpctl
 * holds the journal, nothing written).
 */
int guard_write(const char *rel, const char *value);

/* Write without journalling, for one-shot actions (drop_caches, compact_memory). Announced. */
int guard_poke(const char *rel, const char *value);

/*
 * Whether guard_write() and guard_poke() announce each change on stderr
 * (default: yes). `set` and `snapshot restore` print their own "old -> new"
 * lines on stdout and turn it off.
 */
void guard_announce(bool on);

/* Put every journalled value back (newest first) and delete the journal. Idempotent. */
void guard_restore(void);

/* Keep the changes: delete the journal without restoring. */
void guard_commit(void);

/*
 * At the start of any command: if a journal left by a dead thpctl exists,
 * restore its values (as root) and report each on OUT. Returns the number of
 * values restored, 0 if none, -EPERM when a journal exists but we are not
 * root (reported too), -EBUSY when its owner still runs.
 */
int guard_recover(const struct sysroot *sr, FILE *out);

/* Path of the journal file (for messages and tests). */
const char *guard_journal_path(void);

/*
 * Host changes undone by an action rather than by writing a value back: a
 * tracefs instance made by `trace stalls` (KIND GUARD_UNDO_TRACEFS_INSTANCE,
 * ARG its name). Journalled before the change in a file of this process's
 * own, "undo.<pid>" beside the journal, so a trace can run while a lab holds
 * the journal. guard_recover() also runs the undo files of dead owners (the
 * next thpctl command after a SIGKILL). No signal handlers: the caller
 * undoes its changes itself and then calls guard_undo_done(). Returns 0,
 * -EPERM (not root), -EINVAL (unknown KIND), -ENOSPC, or -errno.
 */
#define GUARD_UNDO_TRACEFS_INSTANCE "tracefs-instance"
int guard_undo_add(const char *purpose, const char *kind, const char *arg);
/* The change KIND/ARG is undone: forget it (the file goes with the last one). */
void guard_undo_done(const char *kind, const char *arg);

#endif
