/* SPDX-License-Identifier: MIT */
/*
 * The kernel's build configuration: which `enabled` value THP boots with
 * (CONFIG_TRANSPARENT_HUGEPAGE_{ALWAYS,MADVISE,NEVER}), from
 * boot/config-RELEASE or proc/config.gz (CONFIG_IKCONFIG_PROC; read with zlib
 * when built with it). Upstream's Kconfig default is ALWAYS; distributions
 * choose, so it is read, never assumed.
 */
#ifndef THPCTL_KCONFIG_H
#define THPCTL_KCONFIG_H

#include <stddef.h>

#include "../util/buf.h"
#include "sysroot.h"

#define SR_BOOT_CONFIG "boot/config-"
#define SR_PROC_CONFIG_GZ "proc/config.gz"

/* The boot default of enabled that the config chose. */
enum kconfig_thp {
	KCT_UNKNOWN, /* no config read, or it names no choice */
	KCT_ALWAYS,
	KCT_MADVISE,
	KCT_NEVER,
	KCT_NO_THP, /* CONFIG_TRANSPARENT_HUGEPAGE is not set */
};

/* Where the config was read. */
enum kconfig_src { KCS_NONE, KCS_BOOT, KCS_PROC_GZ };

struct kconfig_info {
	enum kconfig_thp thp;
	enum kconfig_src src;
	int err; /* KCS_NONE: -errno of the last try (-ENOENT: neither file; -ENOTSUP: gz without zlib) */
};

/* The THP choice in config TEXT ("CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y"). Pure. */
enum kconfig_thp kconfig_thp_parse(const char *text, size_t len);

/*
 * Read the config of kernel RELEASE (uname -r, "" unknown): boot/config-RELEASE
 * first, then proc/config.gz. Fills OUT; returns 0 when one was read, else
 * OUT->err (-ENOENT neither there, -ENOTSUP gz but no zlib, -EINVAL bad gz).
 */
int kconfig_read(const struct sysroot *sr, const char *release, struct kconfig_info *out);

/* Inflate gzip data IN (LEN bytes) into OUT (at most 8 MiB). 0 or -errno: -ENOTSUP built
 * without zlib, -ELIBACC zlib not loadable (util/dl_libs.h). */
int kconfig_gunzip(const char *in, size_t len, struct buf *out);

#endif
