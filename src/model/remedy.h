/* SPDX-License-Identifier: MIT */
/*
 * What to change for one process whose THP ledger flags a cost (or that would
 * gain from huge pages): the mechanism, the part responsible for it, and the
 * fixes ranked by the bytes each saves, computed from the ledger. Pure: `advise`
 * (every flagged process) and `why` (its last block) collect a remedy_proc and
 * the host's facts, remedy_build() decides, render/remedy.c words it.
 *
 * Bytes saved, by fix (the ledger's parts, kB; -1 unknown):
 *  - the allocator's or runtime's own knob (MALLOC_CONF=thp:never, glibc's
 *    glibc.malloc.hugetlb=0, MIMALLOC_LARGE_OS_PAGES=0, MIMALLOC_ALLOW_THP=0 for a
 *    mimalloc that has it, -XX:-UseTransparentHugePages, GODEBUG=disablethp=1 for a Go
 *    that has it) or, for thread stacks, MAP_STACK: the flagged cost; never a knob its
 *    environment shows is off already. A C allocator whose environment opts it in to no
 *    MADV_HUGEPAGE (glibc without hugetlb=1, jemalloc without thp:always or metadata_thp,
 *    mimalloc without large OS pages, tcmalloc always) leaves a cost in hg regions to the
 *    program (RP_PROGRAM: or a setting compiled into jemalloc or mimalloc, not seen);
 *  - a per-service opt-out (thpctl run --thp=off, systemd MemoryTHP= where the
 *    installed systemd knows it, the program's own prctl): the flagged cost
 *    (the others go too, not added up: held and creep overlap when khugepaged
 *    collapses a range a held folio maps), and its huge pages with them;
 *  - a host knob: khugepaged/max_ptes_none=0 saves the creep of every process
 *    (others named; at the report's own value PMD/8 when its settings recommend that: the
 *    creep less what khugepaged may still add at PMD/8), enabled=madvise the THP outside MADV_HUGEPAGE regions of
 *    every process (others that hold some named); for invented memory, when
 *    shrink_underused is 1 and max_ptes_none at its maximum (where the underused
 *    shrinker splits nothing), max_ptes_none=PMD/8 lets that shrinker split THPs
 *    with more zero-filled pages under memory pressure: at most the invented
 *    bytes, and only under pressure (others with invented memory named);
 *  - lazy free is not a THP cost: reclaim takes it first under memory
 *    pressure; memory.reclaim of its cgroup (v2) gives it back now, and jemalloc's
 *    muzzy_decay_ms:0 stops it where it is set otherwise (5.2+ defaults to 0: only a
 *    MALLOC_CONF that sets it, a compiled-in one, or before 5.2).
 * Ranked by bytes saved, then by reach: the process's own knob, then the
 * service, then the host; a bound (at most) after a saving the ledger measured.
 */
#ifndef THPCTL_MODEL_REMEDY_H
#define THPCTL_MODEL_REMEDY_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "ledger.h"
#include "why.h"

/*
 * How the cost arose. Invented memory (all-zero subpages inside PMD THPs) comes from a THP
 * fault (the huge page allocated whole, then written sparsely) or a collapse (khugepaged at
 * max_ptes_none, or MADV_COLLAPSE, filling a range's empty pages with zeroes): no counter of
 * the process says which; remedy_build() decides from the evidence (enum remedy_origin_ev)
 * and says "unknown" rather than pick one.
 */
enum remedy_mech {
	RM_SPARSE_FAULT,   /* invented: huge pages faulted in whole, written sparsely */
	RM_CREEP,	   /* khugepaged may fill ranges at max_ptes_none */
	RM_DEFERRED_SPLIT, /* held: frees inside huge pages left them partially mapped */
	RM_LAZY_FREE,	   /* pages freed with MADV_FREE, still in RSS */
	RM_WOULD_GAIN,	   /* hot, fully written, PTE-mapped: huge pages would help */
	RM_COLLAPSED,	   /* invented: collapsed with empty pages filled, not faulted */
	RM_SPARSE_UNKNOWN, /* invented: faulted or collapsed, the evidence cannot tell */
};

/* What decided the mechanism of invented memory. */
enum remedy_origin_ev {
	ROE_NONE,   /* nothing: no counter read, no policy fact (RM_SPARSE_UNKNOWN) */
	ROE_CGROUP, /* its memory cgroup's memory.stat thp_fault_alloc, thp_collapse_alloc (v2,
		     * 5.4+; the cgroup's and its descendants', since the cgroup was made) */
	ROE_HOST,   /* vmstat thp_fault_alloc, thp_collapse_alloc: the host's since boot */
	ROE_POLICY, /* the PMD policy is madvise (or never): no fault gets a huge page outside a
		     * MADV_HUGEPAGE VMA, and none of its huge pages is in one */
};

/* The part of the process responsible: its allocator or runtime, or its thread stacks. */
enum remedy_part {
	RP_UNKNOWN,
	RP_THREAD_STACKS, /* threads' stack pointers inside VMAs that hold the huge pages */
	RP_JEMALLOC,
	RP_GLIBC,
	RP_MIMALLOC,
	RP_TCMALLOC,
	RP_GO,
	RP_JVM,
	RP_PROGRAM,  /* the program's own MADV_HUGEPAGE: its allocator (named) gives no such advice
		     * as its environment configures it (jemalloc, mimalloc: or compiled in) */
	RP_NOT_HEAP, /* glibc malloc's process, but most of its memory is outside malloc's heap:
		      * the program's own mmap(2) or malloc's mmap of a large block (not told
		      * apart), which no glibc tunable but hugetlb=1's advice reaches */
};

/* How the part was found. */
enum remedy_evidence {
	RE_NONE,
	RE_STACK_POINTERS, /* /proc/PID/task/TID/syscall */
	RE_ENVIRON,	   /* a hint in its environment (var=value) */
	RE_CMDLINE,	   /* a JVM flag on its command line */
	RE_GO_BUILDINFO,   /* the Go build info of its executable */
	RE_COMM,	   /* its name (java) */
	RE_ALLOC,   /* model/alloc.h: a mapped library, an executable's symbol or build info */
	RE_HG_VMAS, /* RP_PROGRAM: the cost sits in its MADV_HUGEPAGE VMAs (smaps VmFlags hg) */
	RE_VMAS,    /* RP_NOT_HEAP: where its anonymous memory sits (smaps: [heap], arenas) */
};

enum remedy_fix_id {
	RF_MALLOC_CONF_THP_NEVER, /* jemalloc: MALLOC_CONF=thp:never */
	RF_GLIBC_HUGETLB_0,	  /* GLIBC_TUNABLES=glibc.malloc.hugetlb=0 */
	RF_MIMALLOC_THP_0,	  /* MIMALLOC_ALLOW_THP=0 (mimalloc 1.9.9, 2.3.1, 3.3.1+) */
	RF_JVM_NO_THP,		  /* -XX:-UseTransparentHugePages */
	RF_GODEBUG_DISABLETHP,	  /* GODEBUG=disablethp=1 (Go 1.21.6+) */
	RF_MAP_STACK,		  /* the program maps its thread stacks with MAP_STACK */
	RF_RUN_OFF,		  /* thpctl run --thp=off -- its command */
	RF_SYSTEMD,		  /* MemoryTHP=disable in its unit (systemd that knows it) */
	RF_PRCTL,		  /* the program calls prctl(PR_SET_THP_DISABLE) itself */
	RF_HOST_MPN,		  /* thpctl set khugepaged/max_ptes_none=0 */
	RF_HOST_MADVISE,	  /* thpctl set enabled=madvise */
	RF_CG_RECLAIM,		  /* memory.reclaim of its cgroup (v2): give lazy free back now */
	RF_JE_MUZZY,	     /* jemalloc: MALLOC_CONF=muzzy_decay_ms:0 (purge, not MADV_FREE) */
	RF_COLLAPSE,	     /* thpctl collapse PID --dry-run (would gain) */
	RF_OPT_IN,	     /* its allocator's opt-in (would gain) */
	RF_PROGRAM_ADVICE,   /* in the program: its own MADV_HUGEPAGE where it writes sparsely */
	RF_HOST_SHRINK,	     /* thpctl set khugepaged/max_ptes_none=PMD/8: the underused shrinker */
	RF_PROGRAM_OPT_IN,   /* in the program: MADV_HUGEPAGE on what it maps itself (would gain) */
	RF_MIMALLOC_LARGE_0, /* mimalloc: its large OS pages opt-in (MIMALLOC_LARGE_OS_PAGES) =0 */
};

/* Where a fix acts: how many others it reaches. */
enum remedy_scope { RS_PROCESS, RS_SERVICE, RS_HOST };

#define REMEDY_MAX_FIXES 8
#define REMEDY_MAX_OTHERS 4

struct remedy_fix {
	enum remedy_fix_id id;
	enum remedy_scope scope;
	int64_t saves_kb;   /* what it gives back of this process, -1 unknown */
	bool upper_bound;   /* creep: at most; RF_HOST_SHRINK: at most, under memory pressure */
	long max_ptes_none; /* RF_HOST_MPN, RF_HOST_SHRINK: the value it sets (0, or 64 on
			     * x86-64: the report's one value, remedy_host.mpn_plan) */
	bool planned;	    /* that value is the one the report's settings recommend */
	/* a host knob: the other processes it changes (and what they give back or lose) */
	int others;
	int64_t others_kb;
	long other_pid[REMEDY_MAX_OTHERS];
	const char *other_comm[REMEDY_MAX_OTHERS];
};

/* Another process of the host, for a host knob's reach. */
struct remedy_other {
	long pid;
	char comm[16];
	int64_t creep_kb;	 /* what max_ptes_none=0 would stop, -1 unknown */
	int64_t invented_kb;	 /* never-written bytes in its PMD THPs, -1 unknown */
	uint64_t huge_not_hg_kb; /* THP outside hg regions: enabled=madvise would drop it */
};

/*
 * Where a restart command must run. Its arguments that name relative paths
 * (arg_relative_path(): "hp.py", "conf/app.yaml") are made absolute against the
 * process's working directory when the file is there; one that is not found
 * there (an output yet to be written, a process that changed directory) keeps
 * the command tied to that directory.
 */
struct run_cwd {
	bool needed;   /* a relative path argument could not be made absolute */
	char dir[256]; /* its working directory (proc/PID/cwd), "" unknown */
	int err;       /* -errno: why DIR is unknown (-ESTALE: DIR was removed since) */
	char arg[64];  /* the first argument that needs it, "" when it did not fit */
};

/* The most bytes of a restart command line kept (its NUL-separated argv). */
#define RUN_ARGV_MAX 4096

/* Whether a process's command line can be reused to restart it. */
enum run_args {
	RUN_ARGS_UNKNOWN,   /* cmdline or exe not readable */
	RUN_ARGS_INTACT,    /* argv[0] leads to its exe, NUL-separated arguments: argv holds them */
	RUN_ARGS_REWRITTEN, /* a process title written over argv: its arguments are unknown */
	RUN_ARGS_TOO_LONG,  /* intact, but more than RUN_ARGV_MAX bytes: not kept */
};

/*
 * The command line that restarts a process, exact (render/ quotes it for a shell, JSON
 * carries it as an array): its program (argv[0] when it leads to its exe, else the exe),
 * then its arguments, a relative path made absolute where it was found (struct run_cwd).
 */
struct run_argv {
	enum run_args state;
	size_t len;		 /* RUN_ARGS_INTACT: bytes of argv; RUN_ARGS_TOO_LONG: needed */
	char argv[RUN_ARGV_MAX]; /* each word NUL-terminated */
	struct run_cwd cwd;	 /* RUN_ARGS_INTACT: where it must run */
};

/* The facts of one process a remedy rests on (collected by the command). */
struct remedy_proc {
	long pid;
	char comm[16];
	int thp_enabled; /* -1 unknown */
	struct thp_ledger led;
	bool env_known; /* environ read and intact */
	int nenv;
	struct why_hint env[WHY_MAX_HINTS];
	int ncmd;
	struct why_hint cmd[WHY_MAX_HINTS];
	bool stacks_known;	/* threads' stack pointers read */
	int threads;		/* threads with a known stack pointer */
	int stack_threads;	/* of them, inside a VMA (not [stack], not nh) that holds THP */
	uint64_t stack_huge_kb; /* AnonHugePages of those VMAs */
	/* from its smaps (remedy_proc_vmas): AnonHugePages in and outside hg VMAs; the
	 * Anonymous of its VMAs that are not nh (the memory THP can reach), of them in hg VMAs
	 * and in glibc malloc's ([heap], its arenas: why_vmas.malloc_anon_kb); hg VMAs */
	uint64_t hg_huge_kb, huge_not_hg_kb;
	uint64_t anon_kb, hg_anon_kb, malloc_kb;
	int hg_vmas;
	bool go;		 /* a Go executable (build info) */
	char gover[32];		 /* "go1.22.5", "" unknown */
	bool java;		 /* comm java, or JVM flags */
	bool jvm_thp;		 /* -XX:+UseTransparentHugePages in effect */
	struct run_argv restart; /* its restart command line */
	char unit[96];		 /* systemd unit, "" none */
	int cg_version;		 /* 1, 2; 0 unknown */
	char cg_path[256];	 /* its memory cgroup */
	bool referenced_hot;	 /* smaps Referenced >= half its Rss */
	bool thp_unwanted;	 /* a workload that asks for no THP (Redis): never told to opt in */
	bool alloc_known;	 /* alloc below was decided (kernel/proc_alloc.h, model/alloc.h) */
	struct alloc_fact alloc;
	/* its memory cgroup's THP events (v2 memory.stat, 5.4+), absent when not read or v1;
	 * cg_v1: its memory cgroup is v1, which counts no THP events */
	struct opt_u64 cg_fault_alloc, cg_collapse_alloc;
	bool cg_v1;
};

/* The host facts a remedy needs. */
struct remedy_host {
	bool always;		/* the PMD policy is always */
	long max_ptes_none;	/* -1 unknown */
	long max_ptes_none_max; /* its maximum, HPAGE_PMD_NR - 1 (511 on x86-64); 0 unknown */
	bool shrink_underused;	/* transparent_hugepage/shrink_underused (6.12+) reads 1 */
	/* the max_ptes_none the report's settings recommend (advise's Settings; never in why):
	 * every host fix on that knob then sets this value, so a report gives one value for it;
	 * without one, creep gets 0 and the underused shrinker PMD/8 */
	bool mpn_planned;
	long mpn_plan;
	int systemd_thp; /* 1: the installed systemd knows MemoryTHP=, 0: it does not, -1 unknown */
	int nothers;
	const struct remedy_other *others; /* every process scanned, or NULL (why: not scanned) */
	/* the PMD size's effective anon policy ("always", "madvise", "never"; NULL unknown) and
	 * the host's THP events since boot (vmstat; absent when not read) */
	const char *policy;
	struct opt_u64 fault_alloc, collapse_alloc;
};

struct remedy {
	const struct remedy_proc *p;
	enum remedy_mech mech;
	enum ledger_cost cost; /* the cost it removes (LC_NONE for a gain) */
	int64_t cost_kb;       /* gain: the fully written PTE-mapped bytes */
	enum remedy_part part;
	enum remedy_evidence evidence;
	const struct why_hint *hint; /* RE_ENVIRON, RE_CMDLINE; with RE_ALLOC a supporting hint */
	bool not_malloc; /* lazy free in a glibc malloc process: glibc does not MADV_FREE */
	/* invented memory: what decided its mechanism, and the counters read (from its memory
	 * cgroup when origin_cgroup, else the host's), shown whatever they decided */
	enum remedy_origin_ev origin_ev;
	bool origin_counted, origin_cgroup;
	bool policy_never; /* ROE_POLICY: the policy is never (else madvise) */
	uint64_t fault_alloc, collapse_alloc;
	int nfix;
	struct remedy_fix fix[REMEDY_MAX_FIXES];
};

/* Copy into P what its smaps walk W says of its VMAs (the fields above). Pure. */
void remedy_proc_vmas(struct remedy_proc *p, const struct why_vmas *w);

/*
 * Whether P would gain from huge pages: fully written PTE-mapped ranges >= 64 MiB, hot; never
 * a workload that asks for no THP (p->thp_unwanted: advise tells it to opt out instead).
 */
bool remedy_would_gain(const struct remedy_proc *p);

/*
 * The remedy of P on host H into OUT: for its largest flagged cost, or its
 * gain. Returns false when P has neither (OUT untouched).
 */
bool remedy_build(const struct remedy_proc *p, const struct remedy_host *h, struct remedy *out);

const char *remedy_mech_name(enum remedy_mech m);
const char *remedy_origin_ev_name(enum remedy_origin_ev e);
const char *remedy_part_name(enum remedy_part p);
const char *remedy_fix_name(enum remedy_fix_id f);

#endif
