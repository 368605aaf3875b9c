/* SPDX-License-Identifier: MIT */
/*
 * What a process runs: /proc/PID/exe (its path; whether it is a Go binary,
 * from the ELF section .go.buildinfo, and which Go), and package versions
 * from var/lib/dpkg/status. Used by `advise` to pick workload profiles.
 */
#ifndef THPCTL_EXE_H
#define THPCTL_EXE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/buf.h"
#include "sysroot.h"

#define SR_DPKG_STATUS "var/lib/dpkg/status"
#define SR_DPKG_INFO "var/lib/dpkg/info"

/*
 * readlink proc/PID/exe into OUT (N bytes), without a " (deleted)" suffix.
 * Returns 0 or -errno (-EACCES for another user's process unprivileged,
 * -ENOENT for kernel threads and in recorded trees).
 */
int exe_path(const struct sysroot *sr, pid_t pid, char *out, size_t n);

/*
 * Whether PATH (absolute, as proc/PID/exe reads) names, in thpctl's view of
 * the files, the executable process PID runs: 1 when the file behind
 * proc/PID/exe and PATH under the sysroot are one (st_dev and st_ino), 0 when
 * they are two (a container's /usr/bin/redis-server is not the host's), -errno
 * when either cannot be stat'ed (a recorded tree keeps no exe link: -ENOENT).
 * A service with a private mount namespace of the host's own files (systemd's
 * PrivateTmp=) is 1.
 */
int exe_is_path(const struct sysroot *sr, pid_t pid, const char *path);

/*
 * The absolute path of the running thpctl (readlink /proc/self/exe on the live
 * host, whatever the sysroot) into OUT (N bytes). Returns 0 or -errno.
 */
int exe_self_path(char *out, size_t n);

/* Reads N bytes at OFF into BUF; returns 0 or -errno (short read: -EIO). */
typedef int (*elf_read_fn)(void *ctx, void *buf, size_t n, uint64_t off);

/*
 * Whether the ELF file behind RD has a .go.buildinfo section: 1 (Go; its
 * version, e.g. "go1.22.5", copied into VER when inline, Go 1.18+, else ""),
 * 0 (an ELF file without it), -EINVAL (not ELF or malformed), -errno.
 * Native byte order only (ELF32 and ELF64).
 */
int elf_go_version(elf_read_fn rd, void *ctx, char *ver, size_t n);

/* An ELF file header, 32- or 64-bit. */
union elf_ehdr {
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;
};

/*
 * The identity and header of the ELF file behind RD (offset 0): native byte
 * order, ELF32 or ELF64 (*IS64), the header into EH. Returns 0, -EINVAL (not
 * ELF, another byte order or class, too short) or -errno of RD.
 */
int elf_header_read(elf_read_fn rd, void *ctx, union elf_ehdr *eh, bool *is64);

/* elf_go_version of proc/PID/exe. */
int exe_go_version(const struct sysroot *sr, pid_t pid, char *ver, size_t n);

/*
 * A MAJOR.MINOR version inside a path: the first number after '/' or '-'
 * followed by a '.', or a number that is a whole path component
 * ("/usr/lib/postgresql/15/bin/postgres" -> 15 with the minor unknown, -1;
 * "/opt/mongodb-linux-x86_64-8.0.4/bin/mongod" -> 8.0). 0 or -ENOENT.
 */
int version_from_path(const char *path, int v[2]);

/* "1:8.0.4-1~deb12" -> {8, 0} (epoch skipped); "15" -> {15, -1} (minor unknown). 0 or -EINVAL. */
int version_parse_mm(const char *s, int v[2]);

/*
 * The Version: of installed package PKG in dpkg status TEXT, copied into OUT.
 * Returns 0 or -ENOENT (absent, or not "install ok installed").
 */
int dpkg_status_version(const char *text, size_t len, const char *pkg, char *out, size_t n);

/*
 * The largest shared anonymous mapping in /proc/PID/maps TEXT: a System V or
 * MAP_SHARED|MAP_ANONYMOUS segment ("/SYSV...", "/dev/zero (deleted)",
 * "[anon_shmem...") or a hugetlb one ("/anon_hugepage (deleted)", *HUGETLB
 * set). PostgreSQL's main shared memory segment is one. 0 or -ENOENT.
 */
int maps_largest_shared(const char *text, size_t len, uint64_t *kb, bool *hugetlb);

/*
 * Whether a process's cmdline TEXT (LEN bytes, NUL-separated) is its argument
 * vector as started: non-empty, ending in one NUL (a title written over the
 * argument area, as Redis and PostgreSQL do, leaves NUL padding or no final
 * NUL), argv[0] the exe path EXE or a name whose last component is EXE's.
 * Returns 1 intact, 0 not (its arguments are then unknown). Pure.
 */
int cmdline_intact(const char *text, size_t len, const char *exe);

/* Whether dpkg file list TEXT (var/lib/dpkg/info/PKG.list) holds the line PATH: 1 or 0. Pure. */
int dpkg_list_has(const char *text, size_t len, const char *path);

/*
 * The package that installed file PATH (`dpkg -S`, without spawning it): the
 * var/lib/dpkg/info/PKG.list naming it (also as /bin/x for /usr/bin/x), its
 * ":arch" dropped, into PKG. 0, -ENOENT (no package), -errno of the directory.
 */
int dpkg_owner(const struct sysroot *sr, const char *path, char *pkg, size_t n);

/* var/lib/dpkg/status, read once on first use and kept (a few MB on a desktop). */
struct dpkg_status {
	bool read; /* tried */
	int err;   /* 0, or the read's -errno (-ENOENT: not a dpkg system) */
	struct buf text;
};

/*
 * The Version: of installed package PKG (dpkg_status_version()) into OUT,
 * reading var/lib/dpkg/status into D on the first call. Returns 0, -ENOENT
 * (not installed, or no status file), or the read's -errno.
 */
int dpkg_installed_version(const struct sysroot *sr, struct dpkg_status *d, const char *pkg,
			   char *out, size_t n);
void dpkg_status_free(struct dpkg_status *d);

#endif
