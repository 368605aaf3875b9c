/* SPDX-License-Identifier: MIT */
/*
 * lab fileread: what exp_fileread.c shares with the guard and the tests.
 * Its private directory ($TMPDIR/thpctl-fileread.XXXXXX: a data file and
 * three tmpfs mounts, huge=never|always|within_size), journalled as a guard
 * undo (GUARD_UNDO_LAB_DIR) so a SIGKILLed run's mounts go with the next
 * thpctl command run as root; the page chain the reads follow; the band
 * rule its claims are called by.
 */
#ifndef THPCTL_LAB_FILEREAD_H
#define THPCTL_LAB_FILEREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab.h"

#define FR_NMOUNTS 3
#define FR_PREFIX "thpctl-fileread."

/* The tmpfs huge= value of mount K (0..FR_NMOUNTS-1): "never", "always", "within_size". */
const char *fr_mount_huge(int k);

/* A private directory with its data file and mounts. */
struct fr_dir {
	char path[96]; /* "" when none */
	bool mounted[FR_NMOUNTS];
	bool undo; /* recorded as a guard undo */
};

/*
 * Make D under $TMPDIR (or /tmp; mode 0700) and record it as a guard undo
 * (root only) before anything is mounted in it; installs the guard's
 * signal hook that removes it. Returns 0 or -errno.
 */
int fr_dir_make(struct fr_dir *d);

/*
 * Mount a tmpfs (source "thpctl-fileread", huge=fr_mount_huge(K), size
 * SIZE bytes, mode 0700, nosuid nodev noexec) on D/mnt-<huge>, made here.
 * Returns 0 or -errno.
 */
int fr_mount(struct fr_dir *d, int k, uint64_t size);

/* Path of the data file (K < 0: D/data) or of the file in mount K, into OUT. */
void fr_file_path(const struct fr_dir *d, int k, char *out, size_t n);

/* Unmount, unlink, remove D and forget its undo. Idempotent. */
void fr_dir_remove(struct fr_dir *d);

/*
 * The undo action for directory DIR (an absolute path whose last component
 * starts with FR_PREFIX, no ".." or "."): lazily unmount each D/mnt-* that
 * is a tmpfs mount point, remove the mount directories, D/data and D.
 * Async-signal-safe. Returns 0 when DIR is gone (or was), -EINVAL for a
 * path of another shape, or the first -errno.
 */
int fr_dir_undo(const char *dir);

/* Whether DIR has the shape fr_dir_undo() accepts (pure). */
bool fr_dir_path_ok(const char *dir);

/*
 * The page chain: one random cycle through NPAGES pages (Sattolo, fixed
 * seed) into NEXT[NPAGES] (NEXT[i] the page after i), and the byte offset
 * of page I's 8-byte slot within its page (pure; PAGE a multiple of 64).
 */
void fr_chain(uint32_t *next, size_t npages);
size_t fr_slot(size_t i, size_t page);

/*
 * The call on a claimed value CLAIMED from this host's interval [LO, HI]
 * of the same quantity, band +-TOL around the claim (pure): confirmed when
 * the interval lies inside the band, contradicted when it lies wholly
 * outside, inconclusive when it straddles an edge or LO > HI (no interval).
 */
enum claim_call fr_band_call(double lo, double hi, double claimed, double tol);

#endif
