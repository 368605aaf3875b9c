/* SPDX-License-Identifier: MIT */
/*
 * ELF files read as data, never run: which heap allocator or runtime a binary
 * or a shared library carries. Section headers and their names, the symbol
 * tables (.symtab, .dynsym) and their string tables, Go's build info
 * (.go.buildinfo: magic "\xff Go buildinf:", the Go version and the module
 * info's DefaultGODEBUG), and a version string in .rodata (jemalloc's
 * "5.3.0-0-g<sha>", glibc's "GNU C Library ... version 2.36", gperftools'
 * "gperftools 2.10"). Every offset and size is checked against the file's
 * size before it is read and every read is bounded (ELF_MAX_*), so a hostile
 * file costs at most a few bounded reads: tests/fuzz/fuzz_elf.c.
 */
#ifndef THPCTL_ELF_SCAN_H
#define THPCTL_ELF_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exe.h" /* elf_read_fn */

#define ELF_MAX_SECTIONS 8192
#define ELF_MAX_PHDRS 512
#define ELF_MAX_SHSTRTAB (1u << 20)   /* section names */
#define ELF_MAX_STRTAB (64u << 20)    /* one symbol string table */
#define ELF_MAX_SYMS (4u << 20)	      /* entries of one symbol table */
#define ELF_MAX_RODATA (64u << 20)    /* bytes of .rodata searched for a version string */
#define ELF_MAX_BUILDINFO (64u << 10) /* bytes of .go.buildinfo read */

#define ELF_VER_LEN 32
#define ELF_GODEBUG_LEN 192
#define ELF_SYM_LEN 48

/* An allocator found in an ELF file's symbols, or whose version string is looked for. */
enum elf_alloc {
	EA_NONE,
	EA_JEMALLOC, /* mallctl, je_mallctl, malloc_conf; _rjem_* (Rust's tikv-jemallocator) */
	EA_TCMALLOC, /* TCMalloc*, tcmalloc:: (_ZN8tcmalloc...), tc_malloc (gperftools) */
	EA_MIMALLOC, /* mi_malloc, mi_version */
	EA_GLIBC,    /* _int_malloc (glibc's malloc linked in statically) */
	EA_NKINDS
};

/* A file to scan: READ(CTX, ...) over SIZE bytes (0: size unknown, reads decide). */
struct elf_src {
	elf_read_fn read;
	void *ctx;
	uint64_t size;
};

/* What to look for (OR-ed). */
enum {
	ELF_WANT_GO = 1 << 0,	   /* .go.buildinfo */
	ELF_WANT_SYMS = 1 << 1,	   /* allocator symbols */
	ELF_WANT_VERSION = 1 << 2, /* the version string of one allocator in .rodata */
};

struct elf_facts {
	uint16_t machine; /* e_machine: 62 x86-64, 183 aarch64 */
	bool is64;
	bool sections; /* section headers present and read */
	bool phdrs;    /* program headers read */
	bool dynamic;  /* PT_INTERP or PT_DYNAMIC: linked against shared libraries */
	bool symtab;   /* a .symtab section (not stripped) */
	uint64_t syms; /* defined symbols seen in .symtab and .dynsym */
	bool syms_cut; /* a symbol table or its strings beyond the bounds, or damaged */
	bool go;       /* a .go.buildinfo section */
	bool go_magic; /* ... beginning with the build info magic */
	char go_version[ELF_VER_LEN];	  /* "go1.22.4" (Go 1.18+ keep it inline), else "" */
	char go_godebug[ELF_GODEBUG_LEN]; /* the module info's DefaultGODEBUG=..., else "" */
	enum elf_alloc alloc;		  /* from a defined symbol */
	char alloc_sym[ELF_SYM_LEN];	  /* that symbol's name */
	char version[ELF_VER_LEN];	  /* ELF_WANT_VERSION: "5.3.0", "2.36", else "" */
	bool rodata;			  /* a .rodata section was searched */
	bool rodata_cut;		  /* ... beyond ELF_MAX_RODATA or unreadable in part */
};

/*
 * Scan the ELF file SRC for what WANT asks (ELF_WANT_*; VERSION_OF names the
 * allocator whose version string ELF_WANT_VERSION looks for) into OUT.
 * Native byte order only (ELF32 and ELF64). Returns 0 (damage inside a
 * section table is flagged in OUT, not an error), -EINVAL (not ELF, another
 * byte order, or a header whose section or program tables lie outside the
 * file), -ENOMEM, or the reader's -errno.
 */
int elf_scan(const struct elf_src *src, unsigned want, enum elf_alloc version_of,
	     struct elf_facts *out);

/*
 * The allocator a symbol NAME (NUL-terminated) belongs to, or EA_NONE (pure):
 * see enum elf_alloc for the names.
 */
enum elf_alloc elf_alloc_symbol(const char *name);

/*
 * Search P[0..N) for KIND's version string and copy the version ("5.3.0",
 * "2.36", "2.10") into OUT (N_OUT bytes). Returns true when found (pure).
 */
bool elf_version_in(enum elf_alloc kind, const char *p, size_t n, char *out, size_t n_out);

/*
 * The Go build info at the start of .go.buildinfo (P, N bytes): whether it
 * has the magic (returned), its inline version into VER and the module info's
 * DefaultGODEBUG value into GODEBUG (each "" when absent or not printable).
 */
bool elf_go_buildinfo(const unsigned char *p, size_t n, char *ver, size_t vn, char *godebug,
		      size_t gn);

#endif
