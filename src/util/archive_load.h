/* SPDX-License-Identifier: MIT */
/*
 * libarchive, loaded on first use: only capture and --sysroot FILE.tar.gz map
 * it and its dependencies (libxml2, ICU, libstdc++, nettle, zstd, ...: about
 * 3 MB of peak RSS that no other command should pay). tarball.c and tarx.c
 * call it through the pointers in la. A static build links it
 * (THPCTL_ARCHIVE_LINKED) or goes without (THPCTL_NO_ARCHIVE).
 */
#ifndef THPCTL_UTIL_ARCHIVE_LOAD_H
#define THPCTL_UTIL_ARCHIVE_LOAD_H

#include <stddef.h>

#include <archive.h>
#include <archive_entry.h>

// clang-format off
#define LA_FUNCS(X) \
	X(archive_entry_filetype) \
	X(archive_entry_free) \
	X(archive_entry_hardlink) \
	X(archive_entry_new) \
	X(archive_entry_pathname) \
	X(archive_entry_perm) \
	X(archive_entry_set_filetype) \
	X(archive_entry_set_mtime) \
	X(archive_entry_set_pathname) \
	X(archive_entry_set_perm) \
	X(archive_entry_set_size) \
	X(archive_entry_size) \
	X(archive_entry_size_is_set) \
	X(archive_error_string) \
	X(archive_filter_bytes) \
	X(archive_read_data) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open_fd) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_format_tar) \
	X(archive_write_add_filter_gzip) \
	X(archive_write_close) \
	X(archive_write_data) \
	X(archive_write_free) \
	X(archive_write_header) \
	X(archive_write_new) \
	X(archive_write_open_fd) \
	X(archive_write_set_bytes_in_last_block) \
	X(archive_write_set_format_gnutar)
// clang-format on

struct la_api {
#define LA_SLOT(f) __typeof__(&f) f;
	LA_FUNCS(LA_SLOT)
#undef LA_SLOT
};

/* The functions, set by la_load(). */
extern struct la_api la;

/*
 * Load libarchive (THPCTL_ARCHIVE_SONAME, the one built against) once (dl.h).
 * Returns 0, or with why in ERR (LEN bytes) -ENOENT (not installed, or a
 * symbol missing) or -ENOTSUP (a build without it).
 */
int la_load(char *err, size_t len);

#endif
