/* SPDX-License-Identifier: MIT */
/* `thpctl lab`: the notice and the question before host-wide changes (cmd/lab_host.c). */
#ifndef THPCTL_CMD_LAB_HOST_H
#define THPCTL_CMD_LAB_HOST_H

#include <stdbool.h>

#include "../kernel/sysroot.h"
#include "../lab/lab.h"

/*
 * Before running the N experiments XS with O as root (LABEL: "lab quick"):
 * when any changes host-wide settings (lab_changes_host), say on stderr what
 * and for about how long, and name the processes it reaches (THP users and
 * eligible ones, from every process's smaps through SR); then, unless YES,
 * ask on the terminal. Without a terminal and without YES: refuse, change
 * nothing. Returns -1 to go on, or the exit code (2: refused, not confirmed).
 */
int lab_host_confirm(const struct sysroot *sr, const char *label,
		     const struct lab_experiment *const *xs, int n, const struct lab_opts *o,
		     bool yes);

#endif
