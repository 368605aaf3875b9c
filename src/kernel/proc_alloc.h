/* SPDX-License-Identifier: MIT */
/*
 * Who manages a process's heap: the evidence in its files, uninterpreted
 * (model/alloc.h decides). Libraries of interest mapped in /proc/PID/maps
 * (glibc's libc.so.6, libjemalloc, libtcmalloc*, libmimalloc*, libjvm) with
 * the version their file name or their own version string gives; the
 * executable (/proc/PID/exe) read as ELF, never run (elf_scan.h); AT_SECURE
 * from /proc/PID/auxv (or set-id from status). Libraries are read through
 * /proc/PID/map_files (root) or /proc/PID/root (the process's own view, so
 * containers work); results are cached by device and inode.
 *
 * Recorded trees: `thpctl capture` writes what the live reader found to
 * capture/alloc/PID (alloc_raw_format), because the executable and its
 * libraries are not part of a bundle (size, and a support bundle should
 * not carry programs); a tree may instead hold the executable itself as a
 * regular file proc/PID/exe (the fixtures do), which is then scanned.
 */
#ifndef THPCTL_PROC_ALLOC_H
#define THPCTL_PROC_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/buf.h"
#include "elf_scan.h"
#include "sysroot.h"

/* Capture's facts file of process PID, relative to the tree. */
#define SR_ALLOC_FACTS_FMT "capture/alloc/%d"

enum alloc_kind {
	AK_UNKNOWN,
	AK_GLIBC,
	AK_JEMALLOC,
	AK_TCMALLOC,
	AK_MIMALLOC,
	AK_GO,
	AK_JVM,
	AK_NKINDS
};

/* "unknown", "glibc", "jemalloc", "tcmalloc", "mimalloc", "go", "jvm". */
const char *alloc_kind_name(enum alloc_kind k);
/* The kind named NAME, or -1. */
int alloc_kind_parse(const char *name);

/* Where a version came from. */
enum alloc_vsrc {
	AV_NONE,
	AV_FILE_NAME, /* libc-2.31.so, libmimalloc.so.2.0 */
	AV_STRING,    /* a version string inside the file (.rodata) */
	AV_PATH,      /* a directory of its path: /usr/lib/jvm/java-17-openjdk-amd64 */
	AV_BUILDINFO, /* Go's .go.buildinfo */
	AV_NSRC
};

/* "none", "file-name", "version-string", "path", "go-buildinfo". */
const char *alloc_vsrc_name(enum alloc_vsrc v);

#define ALLOC_MAX_LIBS 6
#define ALLOC_PATH_LEN 256

/* A library of interest mapped by the process. */
struct alloc_lib {
	enum alloc_kind kind;
	char path[ALLOC_PATH_LEN]; /* as maps names it, " (deleted)" dropped */
	bool deleted;		   /* maps said " (deleted)": PATH now names another file */
	uint64_t start, end;	   /* its first mapping (for map_files) */
	char version[ELF_VER_LEN]; /* "" unknown */
	enum alloc_vsrc vsrc;
	int err; /* reading the file for its version string: 0 or -errno (-ENOENT recorded) */
	uint16_t machine; /* its e_machine, 0 unknown */
};

struct alloc_raw {
	int maps_err; /* 0 or -errno of proc/PID/maps (in a tree: smaps as fallback) */
	bool dynamic; /* a shared object (*.so*) is mapped: dynamically linked */
	int nlibs;
	struct alloc_lib libs[ALLOC_MAX_LIBS];
	int exe_err;	       /* 0: exe scanned as ELF; -errno (-ENOENT: none, not recorded) */
	struct elf_facts exe;  /* valid when exe_err is 0 */
	int at_secure;	       /* 1, 0, -1 unknown */
	bool secure_from_auxv; /* at_secure read from auxv (else status's set-id or unknown) */
	bool from_facts;       /* a recorded tree's capture/alloc/PID */
};

/* The library kind of a mapped file's base name NAME, and its version from the name. Pure. */
enum alloc_kind alloc_lib_kind(const char *name, char *ver, size_t n);

/*
 * Add the libraries of interest in maps TEXT (or smaps: only its VMA header
 * lines are read) to R (deduplicated by path, at most ALLOC_MAX_LIBS), and
 * R->dynamic. Pure.
 */
void alloc_maps_parse(const char *text, size_t len, struct alloc_raw *r);

/* AT_SECURE in /proc/PID/auxv P[0..N) (native word pairs): 1, 0, or -1 absent/damaged. Pure. */
int auxv_at_secure(const unsigned char *p, size_t n);

/*
 * Whether status TEXT's Uid: or Gid: line has an effective id other than the
 * real one (a set-id program, run with AT_SECURE): 1, 0, -1 unreadable. Pure.
 */
int status_setid(const char *text, size_t len);

/*
 * R as capture's facts text into B (replacing it): "thpctl-alloc 1" then one
 * "key\tvalue..." line per fact. Paths with a tab or a newline are written
 * as "?". Returns 0 or -ENOMEM.
 */
int alloc_raw_format(const struct alloc_raw *r, struct buf *b);

/*
 * Parse facts TEXT into R. Unknown keys are skipped (a newer thpctl); a key
 * other than "lib" seen twice, a bad kind, number or version is damage.
 * Returns 0 or -EINVAL.
 */
int alloc_raw_parse(const char *text, size_t len, struct alloc_raw *r);

/*
 * Read process PID's allocator evidence into R (zeroed first). Live: maps,
 * the libraries' version strings, the exe as ELF, auxv. Recorded: the facts
 * file when present, else maps (or smaps) and proc/PID/exe if it is a
 * regular file. Returns 0 (each part's outcome in R), -ESRCH when proc/PID
 * is gone, or -ENOMEM.
 */
int proc_alloc_read(const struct sysroot *sr, pid_t pid, struct alloc_raw *r);

/*
 * One VMA of a walk of smaps (NAME, LEN bytes, [START, END)) into R's
 * libraries and R->dynamic, as maps' line for it would add. Pure.
 */
void alloc_maps_vma(struct alloc_raw *r, const char *name, size_t len, uint64_t start,
		    uint64_t end);

/*
 * proc_alloc_read, for a process whose VMAs were all given to R through
 * alloc_maps_vma by a whole smaps walk (R zeroed before it): maps is not read
 * again; the rest is. Returns as proc_alloc_read.
 */
int proc_alloc_read_walked(const struct sysroot *sr, pid_t pid, struct alloc_raw *r);

#endif
