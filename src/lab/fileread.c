// SPDX-License-Identifier: MIT
/*
 * lab fileread's private directory, its tmpfs mounts and their undo, the
 * page chain, and the band rule of its claims. See fileread.h.
 */
#include "fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../util/names.h"
#include "guard.h"

#define FR_SEED 0x66696c6572656164ull /* "fileread": the same chain every run */

static const char *const huge_names[FR_NMOUNTS] = {"never", "always", "within_size"};
static const char *const mnt_names[FR_NMOUNTS] = {"mnt-never", "mnt-always", "mnt-within_size"};

/* The directory the signal hook removes ("" when none). */
static char live_dir[96];

const char *fr_mount_huge(int k)
{
	return ENUM_NAME(huge_names, k, "?");
}

bool fr_dir_path_ok(const char *dir)
{
	size_t n = strlen(dir);
	if (n < 2 || n >= sizeof(live_dir) || dir[0] != '/' || dir[n - 1] == '/')
		return false;
	for (const char *c = dir; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.' || *c == '/'))
			return false;
	/* no empty, "." or ".." component */
	for (const char *c = dir; *c; c++) {
		if (*c != '/')
			continue;
		const char *e = c + 1;
		size_t len = strcspn(e, "/");
		if (len == 0 || (len == 1 && e[0] == '.') ||
		    (len == 2 && e[0] == '.' && e[1] == '.'))
			return false;
	}
	const char *base = strrchr(dir, '/') + 1;
	return strncmp(base, FR_PREFIX, strlen(FR_PREFIX)) == 0 && strlen(base) > strlen(FR_PREFIX);
}

/* DIR "/" NAME into OUT (N bytes), without stdio (async-signal-safe). False when too long. */
static bool join(char *out, size_t n, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	if (a + 1 + b + 1 > n)
		return false;
	memcpy(out, dir, a);
	out[a] = '/';
	memcpy(out + a + 1, name, b + 1);
	return true;
}

int fr_dir_undo(const char *dir)
{
	if (!fr_dir_path_ok(dir))
		return -EINVAL;
	struct stat ds;
	if (lstat(dir, &ds))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(ds.st_mode))
		return -EINVAL;
	int first = 0;
	char p[160];
	for (int k = 0; k < FR_NMOUNTS; k++) {
		if (!join(p, sizeof(p), dir, mnt_names[k]))
			return -ENAMETOOLONG;
		struct stat ms;
		struct statfs fs;
		/* a tmpfs on another device than DIR: our mount point */
		if (lstat(p, &ms) == 0 && S_ISDIR(ms.st_mode) && ms.st_dev != ds.st_dev &&
		    statfs(p, &fs) == 0 && fs.f_type == TMPFS_MAGIC &&
		    umount2(p, MNT_DETACH | UMOUNT_NOFOLLOW) && !first)
			first = -errno;
		if (rmdir(p) && errno != ENOENT && !first)
			first = -errno;
	}
	if (!join(p, sizeof(p), dir, "data"))
		return -ENAMETOOLONG;
	if (unlink(p) && errno != ENOENT && !first)
		first = -errno;
	if (rmdir(dir) && errno != ENOENT && !first)
		first = -errno;
	return first;
}

static void on_fatal(void)
{
	if (live_dir[0] && fr_dir_undo(live_dir) == 0)
		guard_undo_drop_signal(); /* done: nothing left for the next command */
}

int fr_dir_make(struct fr_dir *d)
{
	memset(d, 0, sizeof(*d));
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 48)
		tmp = "/tmp";
	snprintf(d->path, sizeof(d->path), "%s/" FR_PREFIX "XXXXXX", tmp);
	if (!fr_dir_path_ok(d->path)) {
		d->path[0] = '\0';
		return -EINVAL; /* $TMPDIR of a shape the undo file refuses */
	}
	if (!mkdtemp(d->path)) {
		int e = -errno;
		d->path[0] = '\0';
		return e;
	}
	int r = guard_undo_add("lab fileread", GUARD_UNDO_LAB_DIR, d->path);
	if (r) {
		rmdir(d->path);
		d->path[0] = '\0';
		return r;
	}
	d->undo = true;
	memcpy(live_dir, d->path, sizeof(live_dir));
	guard_at_signal(on_fatal);
	return 0;
}

int fr_mount(struct fr_dir *d, int k, uint64_t size)
{
	char p[160], opts[96];
	if (k < 0 || k >= FR_NMOUNTS || !join(p, sizeof(p), d->path, mnt_names[k]))
		return -EINVAL;
	if (mkdir(p, 0700) && errno != EEXIST)
		return -errno;
	snprintf(opts, sizeof(opts), "huge=%s,size=%llu,mode=0700", huge_names[k],
		 (unsigned long long)size);
	if (mount("thpctl-fileread", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts))
		return -errno;
	d->mounted[k] = true;
	return 0;
}

void fr_file_path(const struct fr_dir *d, int k, char *out, size_t n)
{
	if (k < 0)
		snprintf(out, n, "%s/data", d->path);
	else
		snprintf(out, n, "%s/%s/data", d->path, mnt_names[k < FR_NMOUNTS ? k : 0]);
}

void fr_dir_remove(struct fr_dir *d)
{
	if (!d->path[0])
		return;
	for (int k = 0; k < FR_NMOUNTS; k++) {
		if (!d->mounted[k])
			continue;
		char p[192];
		fr_file_path(d, k, p, sizeof(p));
		unlink(p);
		char m[160];
		if (join(m, sizeof(m), d->path, mnt_names[k]) && umount2(m, UMOUNT_NOFOLLOW))
			umount2(m, MNT_DETACH | UMOUNT_NOFOLLOW); /* still mapped somewhere */
		d->mounted[k] = false;
	}
	int r = fr_dir_undo(d->path);
	if (r)
		fprintf(stderr, "thpctl: lab fileread: could not remove %s: %s\n", d->path,
			strerror(-r));
	if (d->undo && !r)
		guard_undo_done(GUARD_UNDO_LAB_DIR, d->path);
	guard_at_signal(NULL);
	live_dir[0] = '\0';
	d->path[0] = '\0';
}

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void fr_chain(uint32_t *next, size_t npages)
{
	uint64_t seed = FR_SEED;
	for (size_t i = 0; i < npages; i++)
		next[i] = (uint32_t)i;
	/* Sattolo: j < i, so the permutation is a single cycle through every page */
	for (size_t i = npages - 1; i > 0 && npages > 1; i--) {
		size_t j = (size_t)(mix(&seed) % i);
		uint32_t t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
}

size_t fr_slot(size_t i, size_t page)
{
	/* a different cache line per page, so the loads do not all fall in one cache set */
	uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15ull;
	return (size_t)((h >> 40) % (page / 64)) * 64 + (size_t)((h >> 20) % 8) * 8;
}

enum claim_call fr_band_call(double lo, double hi, double claimed, double tol)
{
	if (!(lo <= hi))
		return CLAIM_INCONCLUSIVE;
	if (lo >= claimed - tol && hi <= claimed + tol)
		return CLAIM_CONFIRMED;
	if (hi < claimed - tol || lo > claimed + tol)
		return CLAIM_CONTRADICTED;
	return CLAIM_INCONCLUSIVE;
}
