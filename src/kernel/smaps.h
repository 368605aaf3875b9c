/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/smaps and /proc/PID/smaps_rollup. Values are kB as printed by the
 * kernel. A field the kernel did not print is absent (bit clear in .present),
 * not zero: AnonHugePages before 2.6.38, THPeligible before 5.0, FilePmdMapped
 * before 5.4. smaps_rollup never has THPeligible or VmFlags.
 */
#ifndef THPCTL_SMAPS_H
#define THPCTL_SMAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum smaps_field {
	SM_SIZE,	    /* Size: */
	SM_KERNEL_PAGE,	    /* KernelPageSize: */
	SM_RSS,		    /* Rss: */
	SM_PSS,		    /* Pss: */
	SM_PRIVATE_DIRTY,   /* Private_Dirty: */
	SM_ANONYMOUS,	    /* Anonymous: */
	SM_ANON_HUGE,	    /* AnonHugePages: (PMD-mapped anon THP only) */
	SM_SHMEM_PMD,	    /* ShmemPmdMapped: */
	SM_FILE_PMD,	    /* FilePmdMapped: */
	SM_SHARED_HUGETLB,  /* Shared_Hugetlb: */
	SM_PRIVATE_HUGETLB, /* Private_Hugetlb: */
	SM_SWAP,	    /* Swap: */
	SM_LAZYFREE,	    /* LazyFree: (4.12+) MADV_FREE pages not yet reclaimed */
	SM_REFERENCED,	    /* Referenced: pages with the accessed bit set */
	SM_NFIELDS
};

/* Name of field F as the kernel prints it, without the colon. */
const char *smaps_field_name(enum smaps_field f);

#define VMF_HG (1u << 0) /* VM_HUGEPAGE: MADV_HUGEPAGE */
#define VMF_NH (1u << 1) /* VM_NOHUGEPAGE: MADV_NOHUGEPAGE */
#define VMF_HT (1u << 2) /* hugetlb */
#define VMF_SH (1u << 3) /* shared mapping (MAP_SHARED) */

/*
 * What kind of shmem (tmpfs-backed shared memory) a VMA is. Its huge pages follow
 * shmem_enabled (and, 6.11+, hugepages-<size>kB/shmem_enabled) or a tmpfs mount's huge=
 * option, never enabled; each kind reads them differently (model/shmem.h).
 */
enum shmem_kind {
	SHK_NONE,     /* not shmem: private, hugetlb, or a file of another filesystem */
	SHK_ANON,     /* MAP_SHARED|MAP_ANONYMOUS: "/dev/zero (deleted)", "[anon_shmem:NAME]" */
	SHK_INTERNAL, /* a file of the kernel's internal shm mount: SysV "/SYSV<key> (deleted)",
		       * memfd "/memfd:NAME (deleted)" */
	SHK_TMPFS,    /* a file of a tmpfs mount: "/dev/shm/NAME" */
	SHK_N
};

/*
 * The shmem kind of a VMA named NAME[0..LEN) with VMF_* FLAGS: shmem only when it is
 * shared (VMF_SH) and not hugetlb (VMF_HT; a MFD_HUGETLB memfd or SHM_HUGETLB segment has
 * the same names). Pure.
 */
enum shmem_kind smaps_shmem_kind(const char *name, size_t len, unsigned flags);

/* Sums over all VMAs (or the rollup's single block), kB. */
struct smaps_totals {
	uint64_t kb[SM_NFIELDS];
	uint32_t present; /* bit (1 << enum smaps_field) */
	uint32_t damaged; /* printed but not a whole number, or printed twice in one
			   * block: unknown, and so is its sum */
};

/* One VMA of /proc/PID/smaps. NAME points into the parsed text (not NUL-terminated). */
struct smaps_vma {
	uint64_t start, end; /* virtual addresses, bytes */
	char perms[5];
	const char *name; /* "" for anonymous; "[heap]", a path, "[anon:x]" */
	size_t name_len;
	struct smaps_totals t;
	int thp_eligible;  /* 0/1, -1 when absent (kernel < 5.0) or damaged */
	bool thp_seen;	   /* a THPeligible line was read (a second one is damage) */
	bool has_vmflags;  /* VmFlags line present (3.8+) */
	unsigned vmflags;  /* VMF_* */
	bool vmflags_seen; /* a VmFlags line was read (a second one is damage: unknown flags) */
	int nbad;	   /* damaged lines in this VMA (values, unknown lines, a NUL) */
};

/*
 * NAME[0..LEN), a VMA's name as maps and smaps print it, back to its bytes in place: each
 * "\012" becomes '\n'. Returns the new length. The streams below call it, so every VMA
 * name a caller gets is raw bytes (escape it to show it, util/esc.h). Pure.
 */
size_t smaps_name_unescape(char *name, size_t len);

/* Called for each VMA; return non-zero to stop the walk (returned by smaps_parse). */
typedef int (*smaps_vma_cb)(const struct smaps_vma *vma, void *ctx);

/*
 * Parse full smaps TEXT, calling CB for each VMA (CB may be NULL) and summing
 * all VMAs into TOTALS (may be NULL). A truncated last VMA is still reported
 * with whatever fields it had; a last line without its newline is dropped. Returns 0, CB's non-zero value, or -EINVAL when
 * the text does not start with a VMA header line (empty text is 0 VMAs).
 */
int smaps_parse(const char *text, size_t len, smaps_vma_cb cb, void *ctx,
		struct smaps_totals *totals);

/*
 * Incremental form of smaps_parse for reading a large smaps in chunks: feed
 * whole lines (a chunk may end mid-file but not mid-line), then finish.
 * VMA names are copied into the stream, so chunks may be reused.
 */
/*
 * Ceilings of a stream, far above any real process (max_map_count defaults
 * to 65530; a VMA prints about 25 lines): more VMAs, or more lines in one
 * VMA, stop the stream with -EFBIG.
 */
#define SMAPS_MAX_VMAS (1u << 24)
#define SMAPS_MAX_VMA_LINES 1024u

struct smaps_stream {
	smaps_vma_cb cb;
	void *ctx;
	struct smaps_totals *totals;
	struct smaps_vma cur;
	bool have;
	unsigned nvmas;	 /* VMA headers seen */
	unsigned nbad;	 /* damaged lines in all VMAs, sums past 2^64: the result is partial */
	unsigned nlines; /* lines of the current VMA */
	int err;	 /* sticky: -EINVAL, -EFBIG (a ceiling) or the callback's value */
	bool truncated;	 /* the text ended mid-line: the file was cut; that line is dropped */
	/* kept fields (bits as smaps_totals.present) that some VMA printed and every VMA did:
	 * the kernel prints the same fields in every block, so one missing from a block (a
	 * damaged or cut file) makes its total unknown, not a sum of the others */
	uint32_t fields_any, fields_all;
	uint32_t totals_missing_seen; /* those already marked (smaps_stream_finish once more) */
	char name[PATH_MAX + 64];
};

void smaps_stream_init(struct smaps_stream *s, smaps_vma_cb cb, void *ctx,
		       struct smaps_totals *totals);
/* Feed TEXT (whole lines). Returns the sticky error: 0, -EINVAL, -EFBIG or CB's value. */
int smaps_stream_feed(struct smaps_stream *s, const char *text, size_t len);
/* Report the last VMA. Returns the sticky error. */
int smaps_stream_finish(struct smaps_stream *s);

/*
 * Parse smaps_rollup TEXT into T. Returns 0, or -EINVAL if no known field was
 * found (empty or garbled file).
 */
int smaps_rollup_parse(const char *text, size_t len, struct smaps_totals *t);

/*
 * Thread stacks by layout. glibc (and musl) map a thread stack with MAP_STACK
 * and turn its lowest page(s) into a PROT_NONE guard, so smaps shows an
 * anonymous "---p" guard VMA directly below (ending where it starts) an
 * anonymous "rw-p" stack VMA. Since 6.7 ("mm: mmap: map MAP_STACK to
 * VM_NOHUGEPAGE", c4608d1bf7c6) the kernel marks the whole mapping nh, so
 * both carry VmFlags nh: the kernel's choice, not the program's
 * MADV_NOHUGEPAGE (the flags alone are the same). A pair counts only when
 * both are nh and the guard is at most SMAPS_STACK_GUARD_MAX_KB; a program
 * that madvised a region shaped like that is counted as a stack too, and a
 * guard made with MADV_GUARD_INSTALL (6.13+, no VMA of its own) is not seen.
 */
#define SMAPS_STACK_GUARD_MAX_KB 1024

/* Feed the VMAs in address order; zero it before the first. */
struct smaps_stack_scan {
	bool guard;   /* the previous VMA could be a thread stack's guard */
	uint64_t end; /* its end address */
	uint64_t kb;  /* its Size:, kB */
};

/*
 * Feed V (the next VMA of one smaps walk) to S. Returns true when V is a
 * thread stack whose guard was the previous VMA: the pair is then both
 * VMAs, *KB their Size: sum (kB). Pure.
 */
bool smaps_stack_feed(struct smaps_stack_scan *s, const struct smaps_vma *v, uint64_t *kb);

/* Whether V alone could be a thread stack's guard: anonymous, "---p", nh, small. Pure. */
bool smaps_stack_guard(const struct smaps_vma *v);

/* The VmFlags line's flags after its colon, [P, E) (smaps_vma.c): sets V->has_vmflags and ORs
 * the VMF_ bits of the two-letter flags it knows into V->vmflags. No error: other words are
 * no flag. */
void smaps_vmflags_parse(const char *p, const char *e, struct smaps_vma *v);

static inline bool smaps_has(const struct smaps_totals *t, enum smaps_field f)
{
	return t->present & (1u << f);
}

#endif
