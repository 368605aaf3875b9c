/* SPDX-License-Identifier: MIT */
/*
 * The one per-process reader: proc_read(sr, pid, PROC_STATUS | PROC_SMAPS |
 * ..., &pi) reads the files the flags name from one handle on proc/PID (so a
 * pid reused mid-read is never mixed in) and parses them with the parsers of
 * proc_status.c, smaps.c and cgroup.c. Each file has its own outcome:
 *   - 0: read and parsed, its fields are valid (bit set in .got);
 *   - gone: the process exited mid-scan (ESRCH, or ENOENT on a live root):
 *     proc_read returns -ESRCH, .gone is set and the files not yet read get
 *     -ESRCH;
 *   - unreadable: -EACCES / -EPERM (another user's process), or -ENOENT in a
 *     recorded tree (the file was unreadable at capture);
 *   - -EINVAL: malformed (never a plausible 0).
 * Cheap files first: status, stat, statm, cgroup, cmdline, environ, exe, maps, then
 * smaps_rollup, then full smaps, which walks the target's page tables under
 * its mmap_lock (read it only for what needs it).
 */
#ifndef THPCTL_PROC_READ_H
#define THPCTL_PROC_READ_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ancestry.h"
#include "cgroup.h"
#include "ledger.h"
#include "numa.h"
#include "proc_status.h"
#include "smaps.h"
#include "sysroot.h"

struct alloc_raw;

/* What proc_read() fills (flags, OR-ed). */
enum proc_fill {
	PROC_STATUS = 1u << 0,	 /* status -> st */
	PROC_SMAPS = 1u << 1,	 /* smaps, streamed: each VMA to .vma_cb, sums into .t, .nvmas */
	PROC_ROLLUP = 1u << 2,	 /* smaps_rollup -> .t (no VMAs, no THPeligible, no VmFlags) */
	PROC_CGROUP = 1u << 3,	 /* cgroup -> cg */
	PROC_ENVIRON = 1u << 4,	 /* environ -> .environ, raw NUL-separated (root for others') */
	PROC_CMDLINE = 1u << 5,	 /* cmdline -> .cmdline, raw NUL-separated */
	PROC_MAPS = 1u << 6,	 /* maps -> .maps, raw text (no page-table walk) */
	PROC_EXE = 1u << 7,	 /* the exe link -> .exe (kernel/exe.h exe_path) */
	PROC_CHAIN = 1u << 8,	 /* when status (read now or by an earlier call for this pid)
				 * has THP_enabled 0: who set the prctl (ancestry.h) -> .chain */
	PROC_TASKS = 1u << 9,	 /* the thread ids of task/ -> .tids, .ntids */
	PROC_EXE_GO = 1u << 10,	 /* whether the exe is a Go binary (exe.h exe_go_version)
				 * -> .exe_go, .gover; reads the ELF headers */
	PROC_STAT = 1u << 11,	 /* stat -> .stat (state, PF_* flags, CPU ticks, start time) */
	PROC_STATM = 1u << 12,	 /* statm -> .statm (pages; the cheapest file, no mmap_lock) */
	PROC_LEDGER = 1u << 13,	 /* with PROC_SMAPS: the VMAs the ledger scans, gathered in the
				 * same walk (ledger_vmas_add() under .ledger_policy) -> .lv */
	PROC_ALLOWED = 1u << 14, /* the CPUs its threads may run on (numa_proc_allowed())
				  * -> .allowed */
	PROC_LAST = PROC_ALLOWED,
};

struct proc_info {
	/* set by the caller, kept across calls */
	smaps_vma_cb vma_cb; /* PROC_SMAPS: called for each VMA (may be NULL); its
			      * non-zero return stops the walk and is smaps_err */
	void *vma_ctx;
	/*
	 * Called (when set) after the files of each round: returns more PROC_*
	 * flags to read in the same pass, on the same proc/PID handle (0: done),
	 * so a caller decides from status what else to read without a second
	 * proc_read(). At most PROC_MAX_ROUNDS rounds.
	 */
	unsigned (*more)(struct proc_info *pi, void *ctx);
	void *more_ctx;
	const char *ledger_policy; /* PROC_LEDGER: the PMD size's anon policy (ledger.h) */

	/* filled by proc_read() */
	pid_t pid;
	unsigned got; /* PROC_* read and parsed, by this call or earlier ones for the same pid */
	bool gone;    /* the process exited (or never was) */
	int status_err, smaps_err, rollup_err, cgroup_err, environ_err, cmdline_err, maps_err,
		exe_err, tasks_err, stat_err, statm_err,
		allowed_err; /* 0 or -errno, per file asked for; valid where .got says */
	int exe_go;	     /* PROC_EXE_GO: 1 Go, 0 not, -errno (-EINVAL: not ELF) */
	char gover[32];	     /* "go1.22.5" when inline in the binary (Go 1.18+), else "" */

	struct proc_status st;
	struct proc_stat stat;
	struct proc_statm statm;
	struct smaps_totals t; /* kB: PROC_SMAPS sums over all VMAs, or PROC_ROLLUP */
	int nvmas;	       /* PROC_SMAPS: VMAs seen */
	bool smaps_truncated;  /* smaps ended mid-line: the last line was dropped */
	int smaps_damaged;     /* damaged smaps lines (values not whole numbers, stray lines) */
	struct proc_cgroup cg;
	struct buf environ, cmdline, maps;
	char exe[PATH_MAX];
	struct thp_chain chain;
	bool chain_walked;
	pid_t *tids;
	int ntids;
	struct ledger_vmas lv;	      /* PROC_LEDGER; lv.err -ENOMEM when an add failed */
	struct alloc_raw *alloc_walk; /* set by the caller: each VMA of the smaps walk goes to
				       * alloc_maps_vma() (proc_alloc.h), so maps is not read
				       * again for the allocator */
	struct cpuset allowed;	      /* PROC_ALLOWED */
	bool lv_walk;		      /* private: PROC_LEDGER in the smaps walk under way */

	struct buf b; /* scratch */
};

#define PROC_MAX_ROUNDS 8

/*
 * Read process PID's files named by FLAGS (enum proc_fill) into PI, which the
 * caller zeroes once (then sets vma_cb) and frees with proc_info_free. Calls
 * for the same pid add to what PI holds (re-reading the files of FLAGS); a
 * call for another pid starts afresh. FLAGS 0 only checks that proc/PID exists.
 * PID 0 is the calling process (proc/self).
 * Returns 0 (each file's outcome in its *_err), -ESRCH when the process is
 * gone (status_err then says how: -ENOENT when proc/PID is missing), or
 * -ENOMEM.
 */
int proc_read(const struct sysroot *sr, pid_t pid, unsigned flags, struct proc_info *pi);

/* Free what PI holds (its buffers) and zero it. */
void proc_info_free(struct proc_info *pi);

/* What proc_mm_read() found PID to be, for a command that shows a process's memory. */
enum proc_mm {
	PROC_MM_YES,	 /* a process with a memory map (status has VmRSS) */
	PROC_MM_ABSENT,	 /* no such process: proc/PID missing, or it exited */
	PROC_MM_KTHREAD, /* a kernel thread (status Kthread: 1, or PF_KTHREAD in stat) */
	PROC_MM_ZOMBIE,	 /* a zombie (stat state Z or X): exited, its memory freed */
	PROC_MM_NONE,	 /* no VmRSS in status and stat does not say: a kernel thread or a zombie */
	PROC_MM_UNREADABLE, /* there, but its status cannot be read: PI->status_err says why */
};

/*
 * Whether PID has a memory map to show: proc/PID/status, and proc/PID/stat
 * to tell a kernel thread from a zombie (a recorded tree keeps only a kernel
 * thread's stat). PI (zeroed once, no .more) holds both afterwards; free it
 * with proc_info_free. Returns an enum proc_mm, or -ENOMEM.
 */
int proc_mm_read(const struct sysroot *sr, pid_t pid, struct proc_info *pi);

/* -EACCES, -EPERM, or -ENOENT in a recorded tree: the file could not be read, the process is there. */
bool proc_err_unreadable(const struct sysroot *sr, int err);

/*
 * Whether the recorded tree SR lacks proc/PID/smaps (its capture could not read it: the
 * manifest says unreadable); false on the live host. For a process with memory.
 */
bool proc_tree_smaps_unrecorded(const struct sysroot *sr, pid_t pid);

#endif
