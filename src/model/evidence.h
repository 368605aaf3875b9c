/* SPDX-License-Identifier: MIT */
/*
 * The path of a file cited as evidence, for render/: model facts keep the
 * file as an id (kernel/kpath.h), render shows it through this function so
 * that no render file names a kernel path or calls into kernel/.
 */
#ifndef THPCTL_MODEL_EVIDENCE_H
#define THPCTL_MODEL_EVIDENCE_H

#include <stddef.h>

#include "../kernel/kpath.h"

/* The host path of file K (with ARG and NAME as kernel/kpath.h says) into OUT (N bytes). Returns OUT. */
const char *evidence_path(enum kpath k, long long arg, const char *name, char *out, size_t n);

#endif
