/* SPDX-License-Identifier: MIT */
/*
 * Per-process THP facts from /proc/PID/status plus smaps (full walk: flags,
 * THPeligible) or smaps_rollup (cheap: sums only). Full smaps walks the
 * target's page tables under its mmap_lock; smaps_rollup drops the lock for
 * waiting writers (5.10+, ff9f47f6f00c).
 */
#ifndef THPCTL_PROC_THP_H
#define THPCTL_PROC_THP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc_status.h"
#include "smaps.h"
#include "sysroot.h"

#define VMA_NAME_LEN 128

struct proc_thp {
	pid_t pid;
	struct proc_status st; /* Name, PPid, Uid, THP_enabled, VmRSS */
	bool rollup;	       /* collected from smaps_rollup: no per-VMA facts */
	struct smaps_totals t; /* kB sums (Rss, Anonymous, AnonHugePages, ...) */
	int nvmas;
	int hg_vmas, nh_vmas;  /* VMAs with VmFlags hg / nh */
	uint64_t hg_kb, nh_kb; /* their Size:, kB */
	/* of the nh VMAs: thread stacks and their guards (smaps_stack_feed), the
	 * kernel's own nh for MAP_STACK, not an opt-out by the program */
	int stack_nh_vmas;
	uint64_t stack_nh_kb;
	struct smaps_stack_scan stack_scan; /* walk state */
	int eligible_vmas;		    /* THPeligible: 1 */
	bool has_eligible;		    /* the kernel prints THPeligible (5.0+) */
	bool has_vmflags;
	bool status_read; /* st was read (a later smaps error leaves it valid) */
	int damaged; /* damaged status fields + smaps lines: shown unknown, the result partial */
	/* of the hg VMAs: shmem, by kind (smaps_shmem_kind; [SHK_NONE] unused), which
	 * shmem_enabled rules, not enabled; and of them those with THPeligible 1 */
	int hg_shm_vmas[SHK_N], hg_shm_eligible[SHK_N];
	uint64_t hg_shm_kb[SHK_N];
	uint64_t largest_hg_kb;
	char largest_hg_name[VMA_NAME_LEN]; /* "" anonymous, "[heap]", a path, "[anon:x]" */
};

enum proc_thp_err {
	PT_OK = 0,
	PT_GONE,    /* exited mid-scan (ENOENT/ESRCH), or a zombie with no memory */
	PT_KTHREAD, /* kernel thread: no mm */
	PT_DENIED,  /* status readable, smaps not (EACCES/EPERM, or absent from a
		     * recorded tree): st is valid */
	PT_ERROR,   /* other read or parse error */
};

/*
 * Collect PID into P using B as scratch. ROLLUP selects smaps_rollup.
 * Returns a proc_thp_err; *ERR gets the errno of a failed read (0 otherwise).
 */
enum proc_thp_err proc_thp_collect(const struct sysroot *sr, pid_t pid, bool rollup, struct buf *b,
				   struct proc_thp *p, int *err);

struct ledger_vmas;
/*
 * proc_thp_collect(), and (full smaps only) the VMAs the ledger scans
 * gathered in the same walk into LV (kernel/ledger.h ledger_vmas_add() under
 * POLICY; its array is reused: LV->n is reset, LV->err -ENOMEM after a failed
 * add). LV NULL: none. ALLOC (full smaps only; NULL: none): every VMA of
 * the walk also goes to alloc_maps_vma() (proc_alloc.h), for
 * proc_alloc_read_walked() when the outcome is PT_OK. One proc_read() of
 * status then smaps on one handle.
 */
struct alloc_raw;
enum proc_thp_err proc_thp_collect_lv(const struct sysroot *sr, pid_t pid, bool rollup,
				      struct buf *b, struct proc_thp *p, int *err,
				      struct ledger_vmas *lv, const char *policy,
				      struct alloc_raw *alloc);

/* Add one VMA of a full smaps walk (in address order) to P's counts. Pure. */
void proc_thp_add_vma(struct proc_thp *p, const struct smaps_vma *v);

/* Copy a VMA name for display: "" becomes "[anon]"; truncated to N-1 bytes. */
void vma_display_name(const char *name, size_t len, char *out, size_t n);

#endif
