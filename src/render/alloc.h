/* SPDX-License-Identifier: MIT */
/* The allocator and runtime of a process (model/alloc.h) in words, cells and JSON. */
#ifndef THPCTL_RENDER_ALLOC_H
#define THPCTL_RENDER_ALLOC_H

#include <jansson.h>
#include <stdio.h>

#include "../model/alloc.h"

/*
 * The short name for a table cell into OUT: "jemalloc 5.3", "glibc 2.36",
 * "go1.22.4", "jvm 17", "tcmalloc", "unknown" (versions cut to major.minor).
 */
void alloc_short(const struct alloc_fact *a, char *out, size_t n);

/*
 * The `why` line of process PID: what manages its heap, its version and the
 * evidence, then the environment variables that configure it and the notes
 * (glibc 2.43+ on aarch64, AT_SECURE), as "allocator: TEXT  [SOURCE]".
 * Every string from the process is escaped.
 */
void alloc_render_why(FILE *f, const struct alloc_fact *a, long pid);

/*
 * {"kind", "version", "version_from", "evidence", "evidence_path", "symbol",
 *  "malloc": {...} | null, "go_default_godebug", "glibc_version", "unknown_reason",
 *  "at_secure", "notes": [...], "env": [...], "recorded"}; unknown values null.
 */
json_t *alloc_to_json(const struct alloc_fact *a);

/* The names of the notes bits, for JSON and the exporter: "glibc-hugetlb-default-on", ... */
const char *alloc_note_name(unsigned bit);

#endif
