/* SPDX-License-Identifier: MIT */
/*
 * Typed readers of one-value files (a number, a word, a choice) in sysfs and
 * procfs, through the sysroot, in the spirit of util-linux's
 * ul_path_read_u64(): a caller asks for the value of a knob or counter and
 * never reads or parses the file itself. THP knobs are named relative to
 * transparent_hugepage/ ("enabled", "khugepaged/max_ptes_none",
 * "hugepages-64kB/enabled"). The paths that the settings guard writes are
 * built here too (thp_knob_rel(), ...), so no kernel path is spelled outside
 * src/kernel/.
 */
#ifndef THPCTL_KERNEL_SYSFS_H
#define THPCTL_KERNEL_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#include "kv.h"
#include "parse.h"
#include "sysroot.h"

/* The most bytes of a one-value file these readers take (a knob prints < 100). */
#define SYSFS_VALUE_MAX 512

/*
 * The value of a one-value file's TEXT: the bracketed word of a choice
 * ("always [madvise] never" -> "madvise"), else the text without trailing
 * newlines and blanks (up to a NUL, which no real file holds), into OUT (N
 * bytes). Pure. Returns 0, or -E2BIG when it does not fit.
 */
int sysfs_value_parse(const char *text, size_t len, char *out, size_t n);

/*
 * The file REL (relative to the sysroot) as one unsigned decimal and its final
 * newline (blanks allowed) into *V, read without allocating. Returns 0,
 * -EINVAL (not a number, empty, or cut: no final newline), -ERANGE, -EFBIG (over SYSFS_VALUE_MAX), or
 * the read's -errno (-ENOENT: no such file on this kernel).
 */
int sysfs_u64(const struct sysroot *sr, const char *rel, uint64_t *v);

/* The file REL's value (sysfs_value_parse()) into OUT (N bytes). 0, -E2BIG, -EFBIG or -errno. */
int sysfs_value(const struct sysroot *sr, const char *rel, char *out, size_t n);

/*
 * The file REL as a choice (choice_parse()) into C. 0, -EINVAL (malformed, or
 * cut: no final newline, which the kernel always writes; C then not present),
 * -EFBIG or -errno.
 */
int sysfs_choice(const struct sysroot *sr, const char *rel, struct choice *c);

/* The same, KEY relative to transparent_hugepage/ (RHEL 6's name is found by the sysroot). */
int thp_knob_u64(const struct sysroot *sr, const char *key, uint64_t *v);
int thp_knob_value(const struct sysroot *sr, const char *key, char *out, size_t n);
int thp_knob_choice(const struct sysroot *sr, const char *key, struct choice *c);

/* hugepages-<SIZE_KB>kB/stats/NAME (6.10+) into *V, without allocating. 0 or as sysfs_u64(). */
int thp_size_stat(const struct sysroot *sr, uint64_t size_kb, const char *name, uint64_t *v);

/*
 * The sizes (kB) of the hugepages-<N>kB directories under
 * transparent_hugepage/ (6.8+: one per mTHP size), ascending, at most MAX
 * into KB. Returns the count, or -ENOENT when there is no THP directory.
 */
int thp_sizes_list(const struct sysroot *sr, uint64_t *kb, int max);

/*
 * Every file of hugepages-<SIZE_KB>kB/stats/ (6.10+: anon_fault_alloc,
 * nr_anon, ...) into L (cleared first), in directory order; a file that is
 * not one number is counted in L->bad. Returns 0, -ENOENT (no stats/ here) or
 * -ENOMEM.
 */
int thp_size_stats_read(const struct sysroot *sr, uint64_t size_kb, struct kvlist *l);

/*
 * Sysroot-relative paths of the files a command or experiment writes (through
 * lab/guard.h): transparent_hugepage/KEY; transparent_hugepage/hugepages-
 * <SIZE_KB>kB/FILE; hugepages/hugepages-<SIZE_KB>kB/FILE (a hugetlb pool);
 * proc/sys/vm/NAME. Into OUT (N bytes). Return 0, or -ENAMETOOLONG.
 */
int thp_knob_rel(char *out, size_t n, const char *key);

/*
 * KEY without a leading "/sys/kernel/mm/transparent_hugepage/" or
 * "transparent_hugepage/" (a knob named by its path): a pointer into KEY (pure).
 */
const char *thp_knob_key(const char *key);
int thp_size_rel(char *out, size_t n, uint64_t size_kb, const char *file);
int hugetlb_pool_rel(char *out, size_t n, uint64_t size_kb, const char *file);
int sysctl_vm_rel(char *out, size_t n, const char *name);

/*
 * REL as the kernel names it in SR: on a RHEL 6 tree (rhel_thp) a path under
 * SR_THP is written into OUT (N bytes) under SR_THP_RHEL6, else REL itself is
 * copied. For writers, which must journal and open the real file. 0 or
 * -ENAMETOOLONG.
 */
int thp_real_rel(const struct sysroot *sr, const char *rel, char *out, size_t n);

/* The THP directory of SR as a host path ("/sys/kernel/mm/..."), for words and scripts. */
const char *thp_dir_host(const struct sysroot *sr);

#endif
