/* SPDX-License-Identifier: MIT */
/*
 * tracefs: find it, or mount a private one, and run a private instance.
 *
 * Found: tracefs mounted at sys/kernel/tracing or sys/kernel/debug/tracing
 * (per proc/self/mounts; debug/tracing is not touched unless already
 * mounted, since looking at it would automount tracefs there).
 * Not mounted: a mount nobody else sees. With the new mount API (5.2+:
 * fsopen/fsmount) a detached mount that lives in our file descriptor only;
 * before that, in a mount namespace of our own (unshare + MS_PRIVATE). Both
 * vanish with the process, even after SIGKILL; the host's mount table never
 * changes. tracefs has one superblock, so that private mount shows the same
 * events and instances as any other.
 *
 * Instance: instances/NAME, a ring buffer and event switches of its own, so
 * the host's top-level trace and other tools' instances are not touched.
 * rmdir removes it with everything enabled in it. It outlives a killed
 * process; the caller journals it (lab/guard.h, guard_undo_add) so the next
 * thpctl command removes it.
 *
 * THPCTL_TRACEFS_MOUNT=ns forces the namespace fallback (tests).
 */
#ifndef THPCTL_TRACEFS_H
#define THPCTL_TRACEFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "sysroot.h"

struct tracefs {
	int root;	       /* tracefs root directory, -1 */
	int inst;	       /* instances/NAME, -1 */
	bool private_mount;    /* we mounted it (detached, or in our own namespace) */
	char ns_mnt[PATH_MAX]; /* the namespace fallback's mount point, to unmount; "" */
	char where[PATH_MAX];  /* for messages: "/sys/kernel/tracing", "private mount" */
	char name[64];	       /* the instance, "" */
};

/*
 * Which of SR_TRACEFS, SR_DEBUG_TRACING is a tracefs mount according to
 * MOUNTS[0..N) (the text of proc/self/mounts, mount points absolute):
 * the sysroot-relative path, or NULL.
 */
const char *tracefs_find_mount(const char *mounts, size_t n);

/*
 * Open tracefs of the live system SR: found, or privately mounted (needs
 * CAP_SYS_ADMIN). Returns 0 or -errno (-EPERM not root, -ENODEV no tracefs
 * in this kernel).
 */
int tracefs_open(struct tracefs *t, const struct sysroot *sr);

/* Whether NAME is a name thpctl gives its instances: "thpctl-<digits>". */
bool tracefs_instance_name_ok(const char *name);

/* mkdir instances/NAME and open it. 0, -EEXIST, or -errno. */
int tracefs_instance_create(struct tracefs *t, const char *name);

/* Write VAL to REL inside the instance ("events/compaction/mm_compaction_end/enable"). */
int tracefs_iwrite(struct tracefs *t, const char *rel, const char *val);

/* Read REL inside the instance into OUT (NUL-terminated, trailing newline dropped). */
int tracefs_iread(struct tracefs *t, const char *rel, char *out, size_t n);

/* openat() REL inside the instance. An fd or -errno. */
int tracefs_iopen(struct tracefs *t, const char *rel, int flags);

/* Whether event SYS/NAME exists (events/SYS/NAME at the tracefs root). */
bool tracefs_has_event(const struct tracefs *t, const char *sys_name);

/*
 * Remove the instance (close everything of it first: an open trace_pipe
 * makes rmdir fail with EBUSY). 0, or -errno; -ENOENT counts as done (0).
 */
int tracefs_instance_remove(struct tracefs *t);

/* Close tracefs, unmounting a private mount. Idempotent. */
void tracefs_close(struct tracefs *t);

/*
 * For the journal's recovery: remove instances/NAME of the live system,
 * mounting tracefs privately if needed. 0 (also when it is gone already),
 * -EINVAL for a name that is not thpctl's, or -errno.
 */
int tracefs_remove_instance_named(const char *name);

#endif
