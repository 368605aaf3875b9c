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
#include "../kernel/kpath.h"
#include "../kernel/proc_status.h"
#include "../kernel/proc_thp.h"
#include "../kernel/smaps.h"
#include "evidence.h"
#include "host.h"
#include "ledger.h"
#include "shmem.h"

/* What a fact does to this process's chance of huge pages. */
enum why_effect { WE_NEUTRAL, WE_HELPS, WE_HINDERS, WE_UNKNOWN };

const char *why_effect_name(enum why_effect e);

/* ---- hints from /proc/PID/environ and /proc/PID/cmdline ---- */

#define WHY_MAX_HINTS 12

/* What a hint does to huge pages (render/why.c words it). */
enum why_hint_id {
	HI_JAVA_THP_ON,	     /* -XX:+UseTransparentHugePages */
	HI_JAVA_THP_OFF,     /* -XX:-UseTransparentHugePages */
	HI_JAVA_LARGE_PAGES, /* -XX:+UseLargePages */
	HI_GLIBC_UNKNOWN,    /* glibc.malloc.hugetlb=other */
	HI_GLIBC_0,
	HI_GLIBC_1,
	HI_GLIBC_2,
	HI_MIMALLOC_OFF, /* MIMALLOC_ALLOW_THP=0 */
	HI_MIMALLOC_ON,
	HI_JE_UNKNOWN, /* MALLOC_CONF thp:other */
	HI_JE_ALWAYS,
	HI_JE_NEVER,
	HI_JE_DEFAULT,
	HI_JE_METADATA, /* metadata_thp: */
	HI_GO_DISABLETHP,
	HI_GO_THP_KERNEL,     /* disablethp=0 */
	HI_MIMALLOC_LARGE_ON, /* MIMALLOC_LARGE_OS_PAGES=1 (or, 1.8.2/2.1+, ALLOW_LARGE_OS_PAGES) */
	HI_MIMALLOC_LARGE_OFF, /* the same set to 0 */
	HI_JE_MUZZY,	       /* MALLOC_CONF muzzy_decay_ms: (MADV_FREE purging, 5.2+ default 0) */
};

struct why_hint {
	char var[32];	 /* "GLIBC_TUNABLES", "MALLOC_CONF", ..., or "cmdline" */
	char value[160]; /* the relevant part: "glibc.malloc.hugetlb=1", "thp:never" */
	enum why_hint_id meaning;
	enum why_effect effect;
};

/*
 * Find THP-relevant settings in TEXT, a NUL-separated list (environ, or with
 * CMDLINE the argument vector): GLIBC_TUNABLES glibc.malloc.hugetlb,
 * MIMALLOC_ALLOW_THP, MIMALLOC_LARGE_OS_PAGES / MIMALLOC_ALLOW_LARGE_OS_PAGES,
 * MALLOC_CONF / _RJEM_MALLOC_CONF (jemalloc thp:, metadata_thp:, muzzy_decay_ms:),
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
	unsigned vmflags; /* VMF_* */
};

/* MADV_HUGEPAGE VMAs of one shmem kind (smaps_shmem_kind): shmem_enabled, not enabled, rules them. */
struct why_shm_hg {
	int vmas;
	uint64_t kb;
	uint64_t pmd_rss_kb;	/* Rss of those that can hold an aligned PMD */
	uint64_t pmd_mapped_kb; /* ... and their ShmemPmdMapped */
};

struct why_vmas {
	int nvmas;
	bool has_vmflags, has_eligible;
	int hg, nh, eligible;
	uint64_t hg_kb, nh_kb, hg_huge_kb; /* AnonHugePages inside hg VMAs */
	uint64_t pmd_bytes;	   /* set before the walk (0: 2 MiB): which VMAs can hold a PMD */
	uint64_t hg_rss_kb;	   /* Rss of the hg VMAs that can hold an aligned PMD */
	uint64_t hg_pmd_huge_kb;   /* ... and their PMD-mapped memory: AnonHugePages,
				  * ShmemPmdMapped and FilePmdMapped */
	uint64_t hg_pmd_mapped_kb; /* that PMD-mapped memory of every hg VMA */
	int huge_not_hg;	   /* VMAs with AnonHugePages but no hg */
	uint64_t huge_not_hg_kb;
	/* of the nh VMAs: thread stacks with their guards below (smaps_stack_feed),
	 * nh set by the kernel for MAP_STACK (6.7+), not an opt-out */
	int thread_stacks; /* stack + guard pairs */
	int stack_nh;	   /* VMAs in them (2 per stack) */
	uint64_t stack_nh_kb;
	uint64_t nh_anon_kb;	   /* Anonymous of the nh VMAs, thread stacks included */
	uint64_t stack_nh_anon_kb; /* ... of the thread stacks alone */
	uint64_t hg_anon_kb;	   /* Anonymous of the hg VMAs */
	/* Anonymous of glibc malloc's VMAs, nh ones left out: [heap], the names
	 * glibc.mem.decorate_maps gives (why_glibc_heap_name) and its thread arenas' heaps */
	uint64_t malloc_anon_kb;
	struct {
		bool pending;	  /* the last VMA may be an arena heap's used part */
		uint64_t start;	  /* its start, bytes */
		uint64_t end;	  /* its end, bytes */
		uint64_t anon_kb; /* its Anonymous */
	} arena;
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
	struct why_shm_hg hg_shm[SHK_N]; /* of the hg VMAs: shmem, by kind ([SHK_NONE] unused) */
	struct smaps_totals t;		 /* sums over all VMAs */
};

/*
 * Whether V is glibc malloc's by its name: [heap] (brk, the main arena), or a name
 * glibc.mem.decorate_maps gives (2.39+, CONFIG_ANON_VMA_NAME): "[anon: glibc: malloc arena]",
 * "[anon: glibc: malloc]" (a large block malloc mapped itself). An unnamed VMA may be a
 * thread arena's heap: that is told by layout (why_vmas_add). Pure.
 */
bool why_glibc_heap_name(const struct smaps_vma *v);

/*
 * A glibc thread arena's heap (arena.c new_heap): a reservation of HEAP_MAX_SIZE (64 MiB on
 * 64-bit: 2 * DEFAULT_MMAP_THRESHOLD_MAX) aligned to its size, its used part read-write and
 * the rest PROT_NONE. A program's own mapping of that shape is counted too.
 */
#define WHY_ARENA_HEAP_BYTES (64ull << 20)

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

/* What a line states: render/why.c words each id from the line's evidence. */
enum why_id {
	/* policy: the PMD size's anonymous policy */
	WI_POLICY_NO_THP,
	WI_POLICY_UNREAD,
	WI_POLICY_ALWAYS,
	WI_POLICY_MADVISE,
	WI_POLICY_NEVER,
	WI_POLICY_OTHER,
	/* mthp: the smaller sizes */
	WI_MTHP_NO_SIZES,
	WI_MTHP_OFF,
	WI_MTHP_ON,
	/* defrag, as it applies to this process */
	WI_DEFRAG_UNREAD,
	WI_DEFRAG_NO_FAULTS, /* prctl off or policy never: defrag does not apply */
	WI_DEFRAG,
	/* khugepaged */
	WI_KHP,
	/* prctl */
	WI_PRCTL_NO_LINE,
	WI_PRCTL_ON,
	WI_PRCTL_OFF,
	WI_PRCTL_INHERITED,
	WI_PRCTL_ORPHANED,
	WI_PRCTL_SELF,
	WI_PRCTL_PARENT_UNKNOWN,
	/* its VMAs */
	WI_VMAS_UNREAD,
	WI_VMAS_NO_VMFLAGS,
	WI_HG,
	WI_HG_NONE,
	WI_NH_OPTED,
	WI_NH_STACKS_ONLY,
	WI_NH_NONE,
	WI_ELIGIBLE,
	WI_COLLAPSED,
	WI_HUGETLB,
	WI_STACK_NONE,
	WI_STACK,
	WI_THREAD_STACKS,
	WI_SMAPS_TRUNCATED,
	/* stall exposure */
	WI_STALL_UNKNOWN,
	WI_STALL,
	/* shared memory */
	WI_SHMEM,
	WI_SHMEM_NO_HUGETLB,
	/* environment and command line */
	WI_ENV_UNREAD,
	WI_ENV_OVERWRITTEN,
	WI_ENV_NONE,
	WI_ENV_HINT,
	WI_CMD_HINT,
	/* memory cgroup */
	WI_CG_UNREAD,
	WI_CG_LIMIT_UNREAD,
	WI_CG_NONE,
	WI_CG_UNLIMITED,
	WI_CG_LIMITED,
	WI_CG_LIMIT_PARTIAL, /* a limit file on its path not readable: the limit is unknown */
	WI_CG_TIGHT,	     /* limited, headroom under one PMD or usage over 90% */
};

#define WHY_MAX_MTHP 16

/* The evidence of a line, by topic. Strings point into the why_input. */
struct why_ev_policy {
	uint64_t pmd_kb;      /* 0: unknown */
	const char *eff;      /* the effective policy */
	const char *size_val; /* hugepages-<pmd>kB/enabled as read; NULL: absent, enabled decides */
	const char *top;      /* enabled; NULL: unreadable */
	bool vmas_known;      /* smaps read: hg and hg_kb valid */
	int hg;		      /* MADV_HUGEPAGE VMAs */
	uint64_t hg_kb;
	int hg_shm; /* of them shmem, which enabled does not rule (shmem_enabled does) */
	uint64_t hg_shm_kb;
};

/*
 * The MADV_HUGEPAGE shmem of a process that its shmem policy keeps from PMD huge pages
 * (why_hg_shmem_off): no fault there allocates one, khugepaged does not collapse it.
 */
struct why_shm_off {
	int vmas;		/* hg shmem VMAs whose policy forbids a PMD huge page */
	uint64_t kb;		/* their size */
	uint64_t small_kb;	/* their resident small pages (in VMAs that can hold a PMD) */
	uint64_t pmd_mapped_kb; /* their ShmemPmdMapped (made before the policy changed) */
	int hg;			/* hg VMAs in all */
	int live;		/* hg VMAs that may still get one: hg - vmas */
	struct shmem_pmd pol;	/* the policy of the kind with the most of them */
};

struct why_ev_mthp {
	int sizes; /* anonymous sizes besides the PMD size */
	int on;	   /* of them, not never */
	bool any_madvise;
	struct {
		uint64_t kb;
		const char *policy;
	} s[WHY_MAX_MTHP]; /* the first min(on, WHY_MAX_MTHP) that are on */
};

struct why_ev_defrag {
	const char *defrag;
	bool prctl_off;	 /* NO_FAULTS: THP off by prctl (else the policy is never) */
	bool always;	 /* the PMD policy is always */
	bool vmas_known; /* smaps read: hg valid */
	int hg;
	bool has_stall; /* host compact_stall read */
	uint64_t compact_stall;
	struct why_shm_off shm; /* hg counts only the VMAs that may get a huge page: not these */
};

/*
 * The charge headroom of a process's memory cgroup (why_cg_room_of): a THP fault or a
 * khugepaged collapse there needs one PMD of charge, refused below it.
 */
struct why_cg_room {
	bool known;	    /* limited, its usage read, every limit file on the path read */
	bool starved;	    /* known, and the headroom is under one PMD */
	bool tight;	    /* known, and starved or its usage is over 90% of its limit */
	uint64_t headroom;  /* bytes: limit - usage, the smallest on the path */
	uint64_t usage;	    /* bytes, of the cgroup with the smallest headroom */
	uint64_t limit;	    /* bytes, of the same cgroup */
	uint64_t pmd_bytes; /* the PMD size (2 MiB when unknown) */
	const char *path;   /* the process's memory cgroup */
	/* usage and limit are another cgroup's than the smallest limit's (an ancestor with
	 * less headroom): its usage file, sysroot-relative; NULL when the same cgroup's */
	const char *other_usage_file;
};

/* The cgroup headroom of IN into OUT (all false when no limit, or one is unknown). Pure. */
void why_cg_room_of(const struct why_input *in, struct why_cg_room *out);

/*
 * Bound IN's ledger's creep by its memory cgroup's headroom (model/ledger.h ledger_creep_cg):
 * a cgroup or limit file not read, or a usage unknown under a limit, is LCG_UNKNOWN, never
 * "no limit". Call it once the ledger and the limit are read, before why_explain. Pure.
 */
void why_creep_cg(struct why_input *in);

struct why_ev_khp {
	bool always;  /* the PMD policy is always (else madvise) */
	bool nothing; /* smaps read: it has no region khugepaged would collapse (no hg VMA under
		       * madvise, no THPeligible VMA under always) */
	bool full;    /* smaps read: what it would collapse is huge-backed already (under madvise
		       * its hg regions' Rss all AnonHugePages, under always all its Anonymous):
		       * nothing left to collapse now */
	bool has_mpn;
	uint64_t mpn, per;	/* max_ptes_none, base pages per PMD */
	int smaps_err;		/* not 0: its VMAs are unknown (-errno of smaps), so whether
			    * khugepaged has anything of it to collapse is unknown */
	bool recorded;		/* a recorded tree: a missing smaps was not captured */
	struct why_shm_off shm; /* hg shmem it cannot collapse (nothing: all of its hg is) */
	struct why_cg_room cg;	/* its memory cgroup's headroom: a collapse needs a PMD of it */
};

struct why_ev_prctl {
	bool except_advised; /* PR_THP_DISABLE_EXCEPT_ADVISED exists (6.18+) */
	long pid; /* the ancestor (INHERITED), the new parent (ORPHANED), or the parent */
	const char *comm;
	int generations;
	bool cut;
};

struct why_ev_vmas {
	int count, total;		   /* VMAs of the kind, VMAs in all */
	uint64_t kb, huge_kb;		   /* their size, their AnonHugePages */
	const struct why_vma_top *largest; /* NULL: none */
	bool madvise;			   /* HG_NONE: the policy is madvise */
	unsigned flags;			   /* STACK: its VMF_* */
	int err;			   /* VMAS_UNREAD: -errno */
	bool recorded;
	struct why_shm_off shm; /* HG: those of them their shmem policy keeps from huge pages */
};

struct why_ev_stall {
	const char *defrag;
	uint64_t pmd_kb;
	uint64_t need;	    /* PMD ranges of its hg regions not yet huge-backed (shm left out) */
	uint64_t blocks;    /* free PMD-order blocks, host-wide */
	bool buddy_damaged; /* STALL_UNKNOWN: buddyinfo read, but a zone's row dropped */
	/* of need, the PMD ranges' worth of small pages resident already (Rss - AnonHugePages
	 * of its hg regions that can hold a PMD, shm left out): faulted in, no fault there asks
	 * for a huge page again; only a collapse can make them huge */
	uint64_t small;
	struct why_shm_off shm; /* hg shmem that cannot get huge pages: not in need */
	struct why_cg_room cg;	/* starved: the cgroup charge likely refused them */
};

struct why_ev_shmem {
	int vmas;
	uint64_t kb, rss_kb, pmd_mapped_kb;
	const struct why_vma_top *largest;
	struct shmem_pmd pol; /* the PMD policy of the largest one (its kind, its hg) */
	bool none_pmd;	      /* none of it can be PMD-mapped now */
	uint64_t hugetlb_total, hugetlb_free; /* SHMEM_NO_HUGETLB */
};

struct why_ev_env {
	int err; /* ENV_UNREAD: -errno */
	bool recorded;
	const struct why_hint *hint; /* ENV_HINT, CMD_HINT */
};

struct why_ev_cg {
	int err; /* -errno */
	bool recorded;
	const struct cg_limit *lim;
	bool has_fallback; /* host thp_fault_fallback_charge read */
	uint64_t fallback;
	struct why_cg_room room;
	bool has_collapse_failed; /* host thp_collapse_alloc_failed read */
	uint64_t collapse_failed;
};

union why_ev {
	struct why_ev_policy policy;
	struct why_ev_mthp mthp;
	struct why_ev_defrag defrag;
	struct why_ev_khp khp;
	struct why_ev_prctl prctl;
	struct why_ev_vmas vmas;
	struct why_ev_stall stall;
	struct why_ev_shmem shmem;
	struct why_ev_env env;
	struct why_ev_cg cg;
};

/* Where a line's evidence was read: why_source() gives the path. */
struct why_src {
	enum kpath file;
	long long arg;	  /* a PID or a size in kB (kernel/kpath.h) */
	const char *name; /* a proc file name, or a path under the root */
};

struct why_line {
	const char *topic; /* "policy", "mthp", "defrag", "khugepaged", "prctl", "vmas", ... */
	enum why_effect effect;
	enum why_id id;
	struct why_src src;
	union why_ev ev;
};

enum why_verdict {
	WV_HUGE,    /* has PMD-mapped huge pages now */
	WV_NONE,    /* has none, and the reasons are known */
	WV_UNKNOWN, /* smaps not readable */
};

/* What the first line says: the verdict and its main reason. */
enum why_sum_id {
	WS_PRCTL_INHERITED, /* THP off by prctl, inherited from pid/comm */
	WS_PRCTL,	    /* THP off by prctl */
	WS_PRCTL_HELD,	 /* THP off by prctl, yet AnonHugePages > 0: made before it, or at fork */
	WS_UNKNOWN,	 /* smaps unreadable */
	WS_HUGE_BLOATED, /* huge pages, mostly never written (invented is the largest cost) */
	WS_HUGE,	 /* huge pages; `cost` names the largest flagged cost, if any */
	WS_HUGE_SHARED,	 /* PMD-mapped shmem or file pages, no anonymous one (AnonHugePages 0) */
	WS_NONE_HELD,	 /* none; large folios partially unmapped, held */
	WS_NONE,	 /* none, for reason `none`; or `cost`, the largest flagged cost */
};

enum why_huge_how { WH_HG, WH_ALWAYS, WH_COLLAPSED };

enum why_none {
	WN_NO_THP,	  /* the kernel has no THP */
	WN_NEVER,	  /* the PMD policy is never */
	WN_NH_OPTED,	  /* most of its anonymous memory is in VMAs it opted out (nh) */
	WN_MADVISE_NO_HG, /* madvise and no MADV_HUGEPAGE region */
	WN_HG_NONE,	  /* its hg regions got none: not touched */
	WN_HG_SMALL,	  /* its hg regions hold small pages: faulted before the advice */
	WN_SHMEM_OFF,	  /* its (most) hg memory is shmem its shmem policy keeps from them */
	WN_ALWAYS_NONE,	  /* under always, none of its regions got one */
	WN_OTHER,
};

struct why_summary {
	enum why_sum_id id;
	long pid; /* PRCTL_INHERITED (PRCTL_HELD: when inherited): the ancestor, else 0 */
	const char *comm;
	uint64_t huge_kb, anon_kb; /* AnonHugePages, Anonymous (0: unknown or none) */
	/* NH_OPTED: the Anonymous of the VMAs it opted out (thread stacks aside); and whether
	 * the policy is madvise with no hg VMA (its other memory gets none either) */
	uint64_t nh_anon_kb;
	bool madvise_no_hg;
	uint64_t shmem_pmd_kb, file_pmd_kb; /* ShmemPmdMapped, FilePmdMapped (0: unknown or none) */
	enum why_huge_how how;
	enum why_none none;
	bool prctl_unseen; /* the kernel shows no THP_enabled: a prctl would not show */
	const struct thp_ledger *led;
	enum ledger_cost cost;	/* the ledger's largest cost past its threshold, LC_NONE */
	uint64_t hg_small_kb;	/* its hg regions' resident small pages (Rss - AnonHugePages),
				* but for those of shm */
	struct why_shm_off shm; /* SHMEM_OFF: the hg shmem its policy keeps from huge pages */
	bool always;		/* the PMD policy is always */
	bool pmd_never;		/* SHMEM_OFF: and the PMD policy is never (its other memory) */
	bool has_fallback;	/* host thp_fault_fallback read */
	uint64_t fallback;	/* ... since boot */
};

struct remedy;

struct why_report {
	enum why_verdict verdict;
	struct why_summary sum;
	const struct remedy
		*rem; /* what to change (model/remedy.h), set by the command; NULL none */
	/* the ledger's creep is bounded by the cgroup's headroom (led.creep_cg_bounded, set by
	 * why_creep_cg): at most room.headroom, none while starved */
	bool creep_cg_bound;
	struct why_cg_room room;
	int n;
	struct why_line lines[WHY_MAX_LINES];
};

/* The host path of L's source into OUT (N bytes), through kernel/kpath.h. Returns OUT. */
const char *why_source(const struct why_line *l, char *out, size_t n);

/* Whether a shared VMA named NAME[0..LEN) is shmem (tmpfs-backed): /dev/zero (deleted), /SYSV..., /memfd:..., /dev/shm/..., [anon_shmem:...]. */
bool why_shmem_name(const char *name, size_t len);

/* Add a line of id ID to R, its source FILE/ARG/NAME (kernel/kpath.h); NULL when R is full. */
struct why_line *why_line_new(struct why_report *r, const char *topic, enum why_effect e,
			      enum why_id id, enum kpath file, long long arg, const char *name);

/*
 * The MADV_HUGEPAGE shmem of IN that its shmem policy (model/shmem.h, from IN's host)
 * forbids PMD huge pages into OUT (why_shmem.c); all 0 when smaps was not read. Pure.
 */
void why_hg_shmem_off(const struct why_input *in, struct why_shm_off *out);

/* The shared-memory lines of IN (why_shmem.c): shmem_enabled, ShmemPmdMapped, hugetlb fallback. */
void why_explain_shmem(const struct why_input *in, struct why_report *out);

/*
 * The nh line of V, read from SOURCE (why_stacks.c): the VMAs the program
 * opted out (hinders), thread stacks and their guards set apart.
 */
void why_explain_nh(const struct why_vmas *v, long pid, struct why_report *out);

/* The thread-stack line of V (why_stacks.c), when it has any: nh by the kernel for MAP_STACK. */
void why_explain_thread_stacks(const struct why_vmas *v, long pid, struct why_report *out);

/* The stall-exposure line of IN (why_stall.c): defrag against free PMD-order blocks. */
void why_explain_stall(const struct why_input *in, struct why_report *out);

/* The memory cgroup line of IN (why_cgroup.c): its limit, and its headroom beside it. */
void why_explain_cgroup(const struct why_input *in, struct why_report *out);

/* Turn IN into the verdict and the lines, in a fixed order. */
void why_explain(const struct why_input *in, struct why_report *out);

#endif
