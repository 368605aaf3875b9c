/* SPDX-License-Identifier: MIT */
/*
 * Who manages a process's heap, decided from the evidence kernel/proc_alloc.h
 * collected: the runtime (Go, a JVM) and the C heap allocator (glibc,
 * jemalloc, tcmalloc, mimalloc) with its version where the files say it,
 * and the evidence it rests on. Unknown is AK_UNKNOWN with the reason, never
 * a guess. Environment variables that configure an allocator are supporting
 * evidence only: they never decide the kind. Pure: no I/O, no sentences.
 */
#ifndef THPCTL_MODEL_ALLOC_H
#define THPCTL_MODEL_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "../kernel/proc_alloc.h"

/* What the named kind rests on. */
enum alloc_evidence {
	AE_NONE,
	AE_MAPPED_LIB,	 /* its shared library in /proc/PID/maps (path: the library) */
	AE_EXE_SYMBOL,	 /* a symbol of it in the executable's symbol table (symbol) */
	AE_GO_BUILDINFO, /* the executable's .go.buildinfo section */
	AE_NEVIDENCE
};

/* "none", "mapped-library", "executable-symbol", "go-buildinfo". */
const char *alloc_evidence_name(enum alloc_evidence e);

/* Why the kind is unknown. */
enum alloc_unknown {
	AU_NONE,
	AU_MAPS_UNREADABLE, /* /proc/PID/maps not readable (another user's process) */
	AU_EXE_UNREADABLE,  /* a static program whose executable could not be read */
	AU_NOT_RECORDED,    /* a recorded tree without the executable or capture's facts */
	AU_NOT_ELF,	    /* the executable is not ELF of this byte order, or damaged */
	AU_STRIPPED,	    /* a static executable without symbols or Go build info */
	AU_NO_MARKER,	    /* symbols or libraries, none of a known allocator */
	AU_NUNKNOWN
};

/* "", "maps-unreadable", "exe-unreadable", "not-recorded", "not-elf", "stripped", "no-marker". */
const char *alloc_unknown_name(enum alloc_unknown u);

/*
 * Why glibc, named because libc.so.6 is mapped, is likely but not proven: an
 * allocator linked statically into the executable (tikv-jemallocator in a
 * Rust binary) shows only in its symbol table, which could not be read whole.
 */
enum alloc_doubt {
	AD_NONE,	   /* proven: the evidence names it */
	AD_EXE_STRIPPED,   /* the executable has no .symtab */
	AD_SYMS_CUT,	   /* its symbol table beyond the bounds or damaged (elf_facts.syms_cut) */
	AD_EXE_UNREADABLE, /* the executable could not be read as ELF */
	AD_EXE_NOT_RECORDED, /* a recorded tree without the executable or capture's facts */
	AD_NDOUBT
};

/* "", "exe-stripped", "exe-symbols-unreadable", "exe-unreadable", "exe-not-recorded". */
const char *alloc_doubt_name(enum alloc_doubt d);

/* Notes that change what advice applies (bits of alloc_fact.notes). */
enum {
	AN_GLIBC_HUGETLB_DEFAULT = 1 << 0, /* glibc 2.43+ on aarch64: glibc.malloc.hugetlb
					    * behaviour on by default (THP madvise of its heaps) */
	AN_TUNABLES_IGNORED = 1 << 1,	   /* GLIBC_TUNABLES set, but an AT_SECURE program
					    * (setuid/setgid/capabilities) ignores it */
	AN_SEVERAL = 1 << 2,		   /* more than one allocator library mapped: the first
					    * in address order is named */
	AN_SECURE = 1 << 3,		   /* the program runs with AT_SECURE */
};

#define ALLOC_MAX_ENV 4

/* An environment variable that configures an allocator or runtime. */
struct alloc_env {
	char var[32];	      /* "MALLOC_CONF", "GLIBC_TUNABLES", "LD_PRELOAD", ... */
	char value[96];	      /* raw bytes, cut; render escapes them */
	enum alloc_kind kind; /* what it configures */
	bool applies;	      /* that allocator or runtime was found in this process */
	bool ignored;	      /* GLIBC_TUNABLES under AT_SECURE */
};

struct alloc_fact {
	enum alloc_kind kind; /* the runtime (go, jvm) when there is one, else the C allocator */
	char version[ELF_VER_LEN];
	enum alloc_vsrc vsrc;
	enum alloc_evidence evidence;
	enum alloc_doubt doubt;	   /* kind not proven, only likely: why (AD_NONE proven) */
	char path[ALLOC_PATH_LEN]; /* AE_MAPPED_LIB: the library; else "" (the executable) */
	char symbol[ELF_SYM_LEN];  /* AE_EXE_SYMBOL: the symbol that decided */
	/* the C heap allocator beside a runtime (cgo, the JVM's native heap); AK_UNKNOWN none */
	enum alloc_kind malloc_kind;
	char malloc_version[ELF_VER_LEN];
	enum alloc_evidence malloc_evidence;
	enum alloc_doubt malloc_doubt; /* malloc_kind not proven: why */
	char malloc_path[ALLOC_PATH_LEN];
	char godebug[ELF_GODEBUG_LEN]; /* Go: DefaultGODEBUG recorded in the build info */
	char glibc_version[ELF_VER_LEN];
	enum alloc_unknown why_unknown; /* kind AK_UNKNOWN: why */
	unsigned notes;			/* AN_* */
	int at_secure;			/* 1, 0, -1 unknown */
	bool recorded;			/* from capture's facts in a recorded tree */
	int nenv;
	struct alloc_env env[ALLOC_MAX_ENV];
};

/*
 * Decide from R (proc_alloc_read) and ENVIRON (LEN bytes, NUL-separated; NULL
 * when unread or overwritten) into OUT. RECORDED: R comes from a recorded
 * tree (a missing executable is "not recorded"). Pure.
 */
void alloc_decide(const struct alloc_raw *r, const char *environ, size_t len, bool recorded,
		  struct alloc_fact *out);

/* "X.Y..." VERSION as {X, Y}; false when it does not start that way. Pure. */
bool alloc_version_mm(const char *version, int mm[2]);

#endif
