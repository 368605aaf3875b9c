/* SPDX-License-Identifier: MIT */
/*
 * The one wording of what to do when a process's files were denied. smaps,
 * smaps_rollup, maps, pagemap, environ and the exe and cwd links are opened
 * under a ptrace read check (fs/proc: proc_mem_open(PTRACE_MODE_READ),
 * ptrace_may_access()): the caller must be the process's user (uid and gid,
 * the process dumpable) or hold CAP_SYS_PTRACE; their file modes do not decide
 * it, so CAP_DAC_READ_SEARCH does not help. (mem takes an attach check, which
 * Yama's ptrace_scope may narrow further.) Every command, on stdout and on
 * stderr, says it with these words.
 */
#ifndef THPCTL_RENDER_HINT_H
#define THPCTL_RENDER_HINT_H

#include <stdbool.h>

/* What a user other than root does to read a process's denied files. */
#define HINT_PROC_DENIED "run as root or as the process's owner"
/* The same, for a service that may keep its user (thpctl exporter's unit). */
#define HINT_PROC_DENIED_CAP "run as root, as the process's owner or with CAP_SYS_PTRACE"
/* When root was denied too: not a matter of users. */
#define HINT_PROC_DENIED_ROOT "denied even to root: another namespace or a security module"

/* HINT_PROC_DENIED, or HINT_PROC_DENIED_ROOT when thpctl ran as root (AS_ROOT). */
static inline const char *hint_proc_denied(bool as_root)
{
	return as_root ? HINT_PROC_DENIED_ROOT : HINT_PROC_DENIED;
}

/*
 * Whether this run reads the live host as root (cmd_setup says so once): renderers without
 * that fact in their model (why's facts, the allocator line) word a denial with
 * hint_denied(), so that root is never told to run as root.
 */
void hint_set_as_root(bool as_root);

/* What hint_set_as_root() said (false until then). */
bool hint_as_root(void);

/*
 * Whether this run reads the live host as a user other than root (cmd_setup says so once):
 * advice that weighs every process's ledger is then pointed at root (render/finding_text.c).
 */
void hint_set_live_user(bool live_user);

/* What hint_set_live_user() said (false until then). */
bool hint_live_user(void);

/* hint_proc_denied() for this run (HINT_PROC_DENIED until hint_set_as_root). */
const char *hint_denied(void);

#endif
