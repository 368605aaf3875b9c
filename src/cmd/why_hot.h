/* SPDX-License-Identifier: MIT */
#ifndef THPCTL_CMD_WHY_HOT_H
#define THPCTL_CMD_WHY_HOT_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "../kernel/sysroot.h"
#include "common.h"

/*
 * Take "--hot SECONDS" / "--hot=SECONDS" out of ARGV (ARGC updated);
 * *SECONDS 0 when absent. 0, or -1 after a usage message.
 */
int why_hot_take(char **argv, int *argc, int *seconds);

/*
 * The hot set of PID over SECONDS (root): clear_refs, wait, smaps
 * Referenced, against the lab tlb record; printed, or as "hot" into DOC.
 * 0 or an exit code.
 */
int why_hot_run(const struct sysroot *sr, pid_t pid, int seconds, uint64_t pmd_kb, json_t *doc);

#endif
