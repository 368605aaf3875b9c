/* SPDX-License-Identifier: MIT */
/*
 * `thpctl why PID`: why one process does or does not get huge pages, as plain
 * facts, each with the file it comes from. Pure: the command collects a
 * why_input, why_explain() turns it into lines.
 */
#ifndef THPCTL_MODEL_WHY_H
#define THPCTL_MODEL_WHY_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/ancestry.h"
#include "../kernel/cgroup.h"
#include "../kernel/proc_status.h"
#include "../kernel/proc_thp.h"
#include "../kernel/smaps.h"
#include "host.h"
#include "ledger.h"

/* What a fact does to this process's chance of huge pages. */
enum why_effect { WE_NEUTRAL, WE_HELPS, WE_HINDERS, WE_UNKNOWN };

const char *why_effect_name(enum why_effect e);

/* ---- hints from /proc/PID/environ and /proc/PID/cmdline ---- */

#define WHY_MAX_HINTS 12

struct why_hint {
	char var[32];	     /* "GLIBC_TUNABLES", "MALLOC_CONF", ..., or "cmdline" */
	char value[160];     /* the relevant part: "glibc.malloc.hugetlb=1", "thp:never" */
	const char *meaning; /* what it does to huge pages */
	enum why_effect effect;
};

/*
 * Find THP-relevant settings in TEXT, a NUL-separated list (environ, or with
 * CMDLINE the argument vector): GLIBC_TUNABLES glibc.malloc.hugetlb,
 * MIMALLOC_ALLOW_THP, MALLOC_CONF / _RJEM_MALLOC_CONF (jemalloc thp:),
 * GODEBUG disablethp, JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS / _JAVA_OPTIONS
 * (or, in a command line, the -XX flags themselves) with
 * UseTransparentHugePages / UseLargePages. Returns the number stored in OUT.
 */
int why_hints_parse(const char *text, size_t len, bool cmdline, struct why_hint *out, int max);

/*
 * Whether environ TEXT is a list of NAME=VALUE entries as the kernel keeps it:
 * non-empty, ending in a NUL, with at least one entry holding '='. A program
 * that overwrote its environment (Redis's process title blanks it: all NUL)
 * or an area cut off mid-entry is not: its THP hints are then unknown. Pure.
 */
bool why_environ_intact(const char *text, size_t len);

/*
 * Whether the prctl ancestry of a process with THP_enabled 0 is broken: its
 * first ancestor with THP_enabled 1 (PID STOP_PID, named STOP_COMM) is PID 1
 * or a systemd manager (a subreaper), which adopt orphans, so the parent that
 * started it may be gone. Pure.
 */
bool why_chain_broken(long stop_pid, const char *stop_comm);

/* ---- the process's VMAs, summed from full smaps ---- */

struct why_vma_top {
	bool present;
	char name[VMA_NAME_LEN];
	uint64_t start;
	uint64_t size_kb, anon_huge_kb;
};

struct why_vmas {
	int nvmas;
	bool has_vmflags, has_eligible;
	int hg, nh, eligible;
	uint64_t hg_kb, nh_kb, hg_huge_kb; /* AnonHugePages inside hg VMAs */
	int huge_not_hg;		   /* VMAs with AnonHugePages but no hg */
	uint64_t huge_not_hg_kb;
	/* of the nh VMAs: thread stacks with their guards below (smaps_stack_feed),
	 * nh set by the kernel for MAP_STACK (6.7+), not an opt-out */
	int thread_stacks; /* stack + guard pairs */
	int stack_nh;	   /* VMAs in them (2 per stack) */
	uint64_t stack_nh_kb;
	struct smaps_stack_scan stack_scan; /* walk state */
	struct why_vma_top guard_nh;	    /* the last VMA, when it may be a guard (pending) */
	/* largest_nh: the largest nh VMA that is not a thread stack or its guard */
	struct why_vma_top largest_hg, largest_nh;
	bool stack_found;
	unsigned stack_flags; /* VMF_* of [stack] */
	uint64_t stack_kb;
	int hugetlb_vmas;
	uint64_t hugetlb_kb;
	int shmem_vmas; /* shared memory: MAP_SHARED anonymous, SysV, memfd, /dev/shm */
	uint64_t shmem_kb, shmem_rss_kb, shmem_pmd_kb;
	struct why_vma_top largest_shmem;
	struct smaps_totals t; /* sums over all VMAs */
};

/*
 * Add one smaps VMA, in address order. A possible thread-stack guard is held
 * back from largest_nh until the next VMA shows whether a stack sits on it
 * (the last VMA of a walk is [vsyscall] or [stack] in practice). Pure.
 */
void why_vmas_add(struct why_vmas *w, const struct smaps_vma *v);

/* ---- input and report ---- */

struct why_input {
	long pid;
	struct proc_status st;
	bool recorded; /* a recorded tree: a missing file was not captured */

	const struct host_snapshot *h; /* settings, features, vmstat */

	bool chain_walked; /* THP_enabled 0: chain holds the ancestors */
	struct thp_chain chain;

	int smaps_err; /* 0: vmas valid; else -errno of reading /proc/PID/smaps */
	bool smaps_truncated;
	struct why_vmas vmas;

	int environ_err;	  /* 0: hints valid */
	bool environ_overwritten; /* readable but not a list of NAME=VALUE (all NUL, or cut off) */
	int nenv;
	struct why_hint env[WHY_MAX_HINTS];
	int cmdline_err;
	int ncmd;
	struct why_hint cmd[WHY_MAX_HINTS];

	struct thp_ledger led; /* what THP buys and costs it (ledger_unknown when not scanned) */

	int cgroup_err; /* 0: cg valid; -errno of /proc/PID/cgroup */
	int limit_err;	/* 0: lim valid; -errno of the limit files */
	struct cg_limit lim;
};

#define WHY_MAX_LINES 48

struct why_line {
	const char *topic; /* "policy", "mthp", "defrag", "khugepaged", "prctl", "vmas", ... */
	enum why_effect effect;
	char text[480];
	char source[200]; /* absolute path of the evidence: /proc/123/status, /sys/.../enabled */
};

enum why_verdict {
	WV_HUGE,    /* has PMD-mapped huge pages now */
	WV_NONE,    /* has none, and the reasons are known */
	WV_UNKNOWN, /* smaps not readable */
};

struct why_report {
	enum why_verdict verdict;
	char summary[320];
	int n;
	struct why_line lines[WHY_MAX_LINES];
};

/* Whether a shared VMA named NAME[0..LEN) is shmem (tmpfs-backed): /dev/zero (deleted), /SYSV..., /memfd:..., /dev/shm/..., [anon_shmem:...]. */
bool why_shmem_name(const char *name, size_t len);

/* Add a line to OUT (NULL when it is full); the caller writes its text. */
struct why_line *why_line_new(struct why_report *r, const char *topic, enum why_effect e,
			      const char *source);

/* Add a line to R whose text is FMT (printf) formatted; nothing when R is full. */
__attribute__((format(printf, 5, 6))) void why_linef(struct why_report *r, const char *topic,
						     enum why_effect e, const char *source,
						     const char *fmt, ...);

/* The shared-memory lines of IN (why_shmem.c): shmem_enabled, ShmemPmdMapped, hugetlb fallback. */
void why_explain_shmem(const struct why_input *in, struct why_report *out);

/*
 * The nh line of V, read from SOURCE (why_stacks.c): the VMAs the program
 * opted out (hinders), thread stacks and their guards set apart.
 */
void why_explain_nh(const struct why_vmas *v, const char *source, struct why_report *out);

/* The thread-stack line of V (why_stacks.c), when it has any: nh by the kernel for MAP_STACK. */
void why_explain_thread_stacks(const struct why_vmas *v, const char *source,
			       struct why_report *out);

/* The stall-exposure line of IN (why_stall.c): defrag against free PMD-order blocks. */
void why_explain_stall(const struct why_input *in, struct why_report *out);

/* Turn IN into the verdict and the lines, in a fixed order. */
void why_explain(const struct why_input *in, struct why_report *out);

#endif
