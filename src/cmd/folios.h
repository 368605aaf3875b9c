/* SPDX-License-Identifier: MIT */
/* `maps PID --folios` and `maps PID --underused` (options parsed in maps.c). */
#ifndef THPCTL_CMD_FOLIOS_H
#define THPCTL_CMD_FOLIOS_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/folio_scan.h"
#include "../kernel/proc_status.h"
#include "../model/folios.h"
#include "cmd.h"

/*
 * Options of the folio reader from the environment (test hooks, not for
 * users): THPCTL_NO_PAGEMAP_SCAN=1 reads every page as on kernels before
 * 6.7, THPCTL_NO_PROBE=1 reads every frame's kpageflags, THPCTL_PROBE=1 proves folios
 * from 16 pages up from two frames, THPCTL_THREADS=N.
 */
void folio_opts_from_env(struct folio_opts *o);

/* Geometry of this host: page size, --cont, the hugepages-<size>kB/ directories. */
void folio_geom_host(const struct sysroot *sr, uint64_t cont_kb, struct folio_geom *g);

/* Explain a folio_ctx_new() or folio_scan_pid() error for PID; returns EXIT_FAIL. */
int folio_fail(const char *cmd, long pid, int err);

int maps_folios(struct globals *g, long pid, const struct proc_status *st, uint64_t cont_kb);
int maps_underused(struct globals *g, long pid, const struct proc_status *st);

#endif
