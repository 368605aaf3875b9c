/* SPDX-License-Identifier: MIT */
#ifndef THPCTL_UTIL_VERSION_H
#define THPCTL_UTIL_VERSION_H

/*
 * thpctl's version, as scripts/version printed it at build time (the Makefile
 * defines THPCTL_VERSION for version.o alone): "0.1.0", "0.1.0-g1a2b3c4" ...
 */
const char *thpctl_version(void);

#endif
