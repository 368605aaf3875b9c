/* SPDX-License-Identifier: MIT */
/* Shared by set, snapshot and persist: reading the knobs, applying a plan. */
#ifndef THPCTL_CMD_CONTROL_H
#define THPCTL_CMD_CONTROL_H

#include "../kernel/thp_knobs.h"
#include "../model/settings_plan.h"
#include "cmd.h"

/* The absolute path of transparent_hugepage/ on the host (for shell lines and units). */
#define THP_DIR_ABS PATH_THP

/*
 * Read every knob of G's sysroot into K and set *PMD_NR (HPAGE_PMD_NR, 0 if
 * unknown). WHO names the command in messages. Returns EXIT_OK, or EXIT_FAIL
 * after a message (out of memory, or no THP in this kernel).
 */
int control_read_knobs(struct globals *g, const char *who, struct thp_knobs *k, uint64_t *pmd_nr);

/*
 * Write every pending entry of P through the settings journal (lab/guard.h):
 * the old value of each file is journalled (fsync'd) before its first write,
 * so a run killed halfway is rolled back by the next thpctl command. Each
 * written value is read back. If a write fails, or the kernel kept another
 * value, every value already written is put back and the entries say so;
 * on success the journal is committed (the change stays). Prints nothing on
 * stdout. Returns EXIT_OK, EXIT_FAIL (after a message on stderr: needs root,
 * another thpctl busy, the kernel refused a value) or EXIT_USAGE (a
 * --sysroot tree: only the running kernel is written).
 *
 * Test-only hooks (environment; only in test builds, -DTHPCTL_TEST_HOOKS,
 * which `make` gives the ASan build; used by tests/live/control.sh and
 * tests/live/safety.sh):
 *   THPCTL_TEST_SET_PAUSE=S  sleep S seconds between two writes, so a test
 *                            can SIGKILL the run halfway;
 *   THPCTL_TEST_SET_FAIL=KEY make the write of KEY fail with EIO (after the
 *                            writes before it), to exercise the rollback.
 */
int control_apply(struct globals *g, const char *who, struct settings_plan *p);

/*
 * control_apply() with KEEP; without KEEP, a successful apply leaves the
 * journal open and the settings lock held (signals restore too) until
 * control_undo() puts every value back: `ab` host modes, one run each. A
 * failed apply is rolled back and released either way.
 */
int control_apply_held(struct globals *g, const char *who, struct settings_plan *p, bool keep);

/* Put back what control_apply_held(..., false) wrote and release the lock. 0 or -errno. */
int control_undo(void);

/*
 * What set and snapshot restore share: with DRY print P as shell lines (or
 * JSON) and write nothing; else control_apply() it and, with --json, print
 * the result. Returns the exit code when the command is done, or -1 with
 * *RC set to control_apply()'s code when the caller prints text.
 */
int control_execute(struct globals *g, const char *who, struct settings_plan *p, bool dry, int *rc);

/* Whether any entry of P failed to be written. */
bool plan_any_failed(const struct settings_plan *p);

/* The first line of proc/sys/kernel/REL_NAME ("osrelease", "hostname") into OUT, "" if unreadable. */
void control_kernel_string(struct globals *g, const char *name, char *out, size_t n);

/* Print P's invalid entries (and skipped ones when SKIPS) on stderr as "WHO: KEY: reason". */
void control_report_notes(const char *who, const struct settings_plan *p, bool skips);

#endif
