/* SPDX-License-Identifier: MIT */
/*
 * `thpctl advise`: workload profiles and rules from the field -> recommended
 * settings (a diff against now), per-process levers and notes, each with the
 * fact it rests on. Pure: the command detects processes and collects the
 * host; advice_build() decides. Table-driven (profile_wants[] in advice.c).
 */
#ifndef THPCTL_MODEL_ADVICE_H
#define THPCTL_MODEL_ADVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/kconfig.h"
#include "../kernel/proc_status.h"
#include "evidence.h"
#include "findings.h"
#include "host.h"
#include "remedy.h"

enum workload {
	WL_REDIS,
	WL_MONGODB7, /* MongoDB 7.0 and earlier: THP off */
	WL_MONGODB8, /* MongoDB 8.0 and later: THP always, defer+madvise, max_ptes_none 0 */
	WL_POSTGRES,
	WL_JVM,
	WL_GO,
	WL_NODE,
	WL_LATENCY,
	WL_BATCH,
	WL_DENSE,
	WL_N
};

/* "redis", "mongodb7", ...; the names --workload takes (plus "mongodb"). */
const char *workload_name(enum workload w);
/* "Redis", "MongoDB >= 8.0", ...: for sentences. */
const char *workload_title(enum workload w);
/* An application (counts towards a mixed host), not a host trait like dense-containers. */
bool workload_is_app(enum workload w);
/*
 * Parse a --workload NAME. "mongodb" (version unknown) gives WL_MONGODB7 and
 * sets *ASSUMED. Returns 0 or -EINVAL.
 */
int workload_parse(const char *name, enum workload *w, bool *assumed);
/* The names, for messages: "redis, mongodb, mongodb7, ...". */
const char *workload_names(void);

/* Classify a process by its comm (and exe basename if known): a workload or -1. */
int workload_from_comm(const char *comm, const char *exe_base);

/* One detected process of a workload. */
struct adv_proc {
	long pid, ppid;
	char comm[COMM_LEN];
	enum workload wl;
	bool has_ver;
	int ver[2];	   /* major, minor (-1: unknown) */
	char ver_src[160]; /* where the version came from */
	int thp_enabled;   /* -1 unknown */
	int64_t rss_kb;	   /* -1 unknown */
	bool limited;	   /* in a memory cgroup with a limit */
	uint64_t limit_bytes;
	char unit[96];	       /* systemd unit from its cgroup, "" unknown */
	struct run_argv run;   /* its command line, to restart it with */
	char exe[160];	       /* its /proc/PID/exe, "" unknown */
	char prog[160];	       /* the path its commands start: argv[0] when it leads to exe */
	int prog_check;	       /* 1: prog leads to the running exe; 0: exe used; -1 unchecked */
	char title[160];       /* RUN_ARGS_REWRITTEN: what its cmdline reads, shell-quoted */
	bool has_smaps;	       /* the next three are known (smaps read) */
	uint64_t anon_huge_kb; /* AnonHugePages, all VMAs */
	uint64_t hg_kb;	       /* size of its MADV_HUGEPAGE (hg) VMAs */
	int hg_vmas;
	bool java_thp; /* -XX:+UseTransparentHugePages on its command line */
	enum ledger_cost
		flagged_cost; /* its ledger's largest flagged cost (LC_NONE: none, unknown) */
	int64_t flagged_kb;
	uint64_t shm_kb;  /* postgres: largest shared anonymous mapping, 0 unknown */
	bool shm_hugetlb; /* that mapping is hugetlb already */
};

#define ADV_MAX_PROCS 64
#define ADV_MAX_FLAGGED 16
#define ADV_MAX_OTHERS 256

struct adv_input {
	const struct host_snapshot *h;
	const struct host_derived *d;
	const struct findings *fs;
	int nprocs;
	struct adv_proc procs[ADV_MAX_PROCS];
	unsigned requested;   /* bit (1 << workload) per --workload */
	bool mongodb_assumed; /* "mongodb" without a version: 7.0 assumed */
	int limited_cgroups;  /* distinct memory cgroups with a limit that hold processes */
	int limited_procs;
	uint64_t smallest_limit; /* bytes, of those cgroups */
	int scanned;		 /* processes with memory the workload detection looked at */
	/*
	 * Processes not fully readable, of UNREADABLE_OF: live, with the ledger scanned, those of
	 * the ledger's pass (unreadable_of = ledger_procs) whose smaps was denied
	 * (ledger_unreadable of them) or whose exe the workload detection was denied (exe_denied);
	 * else those of the workload pass (unreadable_of = scanned) whose exe was denied or, in a
	 * replay, whose smaps the capture did not record. One count, in text and JSON.
	 */
	int unreadable, unreadable_of;
	/* the workload pass's processes whose exe link was denied (EACCES, EPERM):
	 * advice_exe_denied(), freed by advice_input_free() */
	long *exe_denied;
	int nexe_denied, exe_denied_cap;
	int small_go;  /* Go processes too small to count as a workload */
	bool recorded; /* a recorded tree */
	struct kconfig_info
		kconfig; /* the kernel's build default of enabled, and where it was read */
	/* the ledger of every process (live only: cmd/advise_ledger.c) */
	int ledger_scan;    /* 1 scanned, 0 not (a recorded tree), -errno */
	int ledger_scanned; /* processes whose ledger was computed */
	/* the ledger's own pass over proc/: ledger_procs processes with memory, thpctl
	 * included, = ledger_scanned + ledger_self + ledger_unreadable + ledger_gone +
	 * ledger_failed */
	int ledger_procs;
	int ledger_self;       /* thpctl itself: skipped (0 or 1) */
	int ledger_unreadable; /* smaps denied (EACCES/EPERM): unknown, partial */
	int ledger_gone;       /* exited between the listing and its smaps */
	int ledger_failed;     /* smaps or the ledger failed otherwise: unknown, partial */
	bool as_root;	       /* run as root: a denied smaps is denied even to root */
	int nflagged;	       /* a flagged cost, or would gain */
	struct remedy_proc flagged[ADV_MAX_FLAGGED];
	/* flagged beyond ADV_MAX_FLAGGED, the least saving left out (advice_flagged_cmp); of
	 * them, those with a flagged cost (the others would gain) */
	int flagged_dropped;
	int flagged_dropped_cost;
	int nothers; /* every scanned process, for a host knob's reach */
	struct remedy_other others[ADV_MAX_OTHERS];
	/* of the ledger_scanned processes (all of them, not only flagged[]): those whose ledger
	 * flags invented memory (LC_INVENTED) or creep (LC_CREEP), and the sums of those costs
	 * in kB (advice_ledger_count) */
	int sparse_procs;		 /* either flagged */
	int invented_procs, creep_procs; /* each flagged */
	int64_t invented_kb, creep_kb;
	bool invented_sampled; /* an invented_kb among them is a sampled estimate */
	int systemd_thp;       /* systemd knows MemoryTHP=: 1, 0, -1 unknown */
};

/* ---- output: ids and typed evidence; render/advice*.c words them ---- */

#define ADV_MAX_SETTINGS 8
#define ADV_MAX_LEVERS 32
#define ADV_MAX_NOTES 24
#define ADV_MAX_ALT 3
#define ADV_MAX_WHY 8

/* Why a setting is recommended: a workload profile's reason or a rule from the field. */
enum adv_why_id {
	AW_REDIS_ENABLED,
	AW_MONGODB7_ENABLED,
	AW_MONGODB8_ENABLED,
	AW_MONGODB8_DEFRAG,
	AW_MONGODB8_MPN,
	AW_POSTGRES_ENABLED,
	AW_JVM_ENABLED,
	AW_GO_MPN,
	AW_LATENCY_ENABLED,
	AW_LATENCY_DEFRAG,
	AW_BATCH_ENABLED,
	AW_BATCH_DEFRAG,
	AW_DENSE_ENABLED,
	AW_DENSE_MPN,
	AW_RULE_DEFRAG_ALWAYS,	  /* defrag=always: change it first */
	AW_RULE_COW,		  /* the kernel splits no THP on COW after fork (< 5.8): release */
	AW_RULE_LIMITS,		  /* memory-limited cgroups: procs, cgroups, smallest, fallback */
	AW_RULE_LIMITS_ASKED,	  /* --workload dense-containers, no limit seen */
	AW_RULE_ALWAYS_MPN,	  /* enabled=always with max_ptes_none at its maximum: mpn */
	AW_RULE_PMD_OVERRIDE,	  /* the PMD size's own policy overrides enabled */
	AW_RULE_SHRINK_UNDERUSED, /* shrink_underused: frees zero-filled pages below the max */
	AW_RULE_SHRINK_NOOP_LEDGER, /* shrink_underused=1, max_ptes_none at its maximum, and the
				     * ledger flags invented or creep memory: lower it */
	AW_N
};

/* "redis-enabled", ..., "shrink-underused-noop": the id of a reason (advise --json). */
const char *adv_why_name(enum adv_why_id id);

struct adv_why {
	enum adv_why_id id;
	const char *who; /* a workload name or "rule: NAME" (a key) */
	/* evidence, as the id needs it */
	const char *release; /* AW_RULE_COW */
	int limited_procs, limited_cgroups;
	uint64_t smallest_limit; /* bytes */
	bool has_fallback;	 /* thp_fault_fallback_charge read */
	uint64_t fallback;
	uint64_t mpn;	  /* AW_RULE_ALWAYS_MPN, _SHRINK_NOOP_LEDGER: max_ptes_none now */
	uint64_t max_mpn; /* AW_RULE_SHRINK_UNDERUSED: base pages per PMD - 1 */
	uint64_t pmd_kb;  /* AW_RULE_PMD_OVERRIDE */
	uint64_t bound;	  /* AW_RULE_SHRINK_NOOP_LEDGER: the max_ptes_none it asks for */
	/* ... the ledger's facts (adv_input's sparse_procs and the rest) */
	int sparse_procs, invented_procs, creep_procs;
	int64_t invented_kb, creep_kb;
	bool invented_sampled;
	const char *size_val; /* ... its own policy */
	const char *enabled;  /* ... the value enabled gets */
};

struct adv_setting {
	char key[48]; /* kernel name: "enabled", "khugepaged/max_ptes_none", ... */
	bool has_now;
	char now[24];
	char want[24];
	bool change;
	int nwhy;
	struct adv_why why[ADV_MAX_WHY]; /* the wants the value meets: reasons and who */
};

/* What to do about one process (or a workload asked for with no process). */
enum adv_lever_id {
	AL_ALREADY_OFF,	    /* already opted out (THP_enabled 0) */
	AL_OPT_OUT,	    /* opt it out of THP (restart it so) */
	AL_OPT_OUT_SAFE,    /* keep it opted out as a safeguard */
	AL_PG_HUGETLB,	    /* shared_buffers in hugetlb pages */
	AL_PG_HUGETLB_DONE, /* its shared memory is hugetlb already */
	AL_JVM_ALREADY,	    /* runs with -XX:+UseTransparentHugePages */
	AL_JVM_ADD,	    /* add -XX:+UseTransparentHugePages */
	AL_JVM_LEDGER,	    /* do not add it: its own ledger flags a THP cost */
	AL_GO_LIMITED,	    /* GODEBUG=disablethp=1 if its RSS creeps to its limit */
	AL_NOTHING,	    /* nothing to do (Go, Node.js) */
	AL_MONGODB8_PRCTL,  /* restart it without the prctl opt-out */
	AL_MONGODB8_HOST,   /* no per-process lever: it needs the host settings */
};

/* The command of a lever. */
enum adv_cmd {
	ACM_NONE,
	ACM_RUN,	    /* thpctl run --thp=MODE -- its command line (or the placeholder) */
	ACM_HUGETLB_PLAN,   /* thpctl hugetlb plan --for MIB */
	ACM_HUGETLB_SHARED, /* thpctl hugetlb plan --for SHARED_BUFFERS --overhead 25 */
	ACM_JAVA_TOOL,	    /* JAVA_TOOL_OPTIONS=-XX:+UseTransparentHugePages */
	ACM_GODEBUG,	    /* GODEBUG=disablethp=1 */
};

/* Another way to the same end. */
enum adv_alt {
	AA_RUN_REWRITTEN, /* thpctl run with its arguments unknown (a process title) */
	AA_RUN_UNREAD,	  /* thpctl run yourself: its command line not read or not kept whole */
	AA_REDIS_CONF,	  /* redis.conf: disable-thp yes */
	AA_SYSTEMD,	  /* systemd MemoryTHP= in its unit */
	AA_PG_HUGE_PAGES, /* postgresql.conf: huge_pages = on */
	AA_PG_SIZE,	  /* postgres -C shared_memory_size_in_huge_pages */
};

/* Why a lever. */
enum adv_lever_why {
	ALW_NONE,
	ALW_ALREADY_OFF,     /* THP_enabled 0 */
	ALW_HOLDS,	     /* it holds THP now and has MADV_HUGEPAGE VMAs */
	ALW_HELD_BEFORE,     /* it holds THP outside any MADV_HUGEPAGE VMA: made before */
	ALW_WANTS_OFF,	     /* its workload wants THP off; the host keeps it on */
	ALW_UNREADABLE,	     /* its smaps could not be read */
	ALW_KEEPS,	     /* the host's enabled keeps THP off its heap already */
	ALW_PG_DONE,	     /* its shared memory is a hugetlb mapping */
	ALW_PG_SEGMENT,	     /* its segment is MIB, in small pages */
	ALW_PG_GENERIC,	     /* hugetlb pages cut page table memory in every backend */
	ALW_JVM_MADVISED,    /* its heap is madvised */
	ALW_JVM_MADVISE,     /* the JVM then madvises its heap */
	ALW_LEDGER,	     /* its ledger flags COST (proc->flagged_cost, flagged_kb) */
	ALW_LEDGER_OWN,	     /* it has THP, and its ledger flags COST: What to change takes it on */
	ALW_GO_LIMITED,	     /* the Go runtime then marks its heap nh */
	ALW_GO_NO_ADVICE,    /* Go gives no huge page advice */
	ALW_MONGODB8_PRCTL,  /* its status shows THP_enabled 0 */
	ALW_MONGODB8_ALWAYS, /* MongoDB 8.0 does not madvise */
	ALW_NODE,	     /* V8 gives no huge page advice */
};

struct adv_lever {
	long pid; /* 0: for a workload asked for with --workload, no process found */
	char comm[COMM_LEN];
	enum workload wl;
	const struct adv_proc *proc; /* NULL: no process */
	bool needed;		     /* the host setting conflicts with this process: act */
	enum adv_lever_id id;
	enum adv_cmd cmd;
	const char *mode;	 /* ACM_RUN, AA_RUN_REWRITTEN: "off" */
	const char *placeholder; /* ACM_RUN without a process: "redis-server /etc/..." */
	uint64_t mib;		 /* ACM_HUGETLB_PLAN, ALW_PG_SEGMENT */
	int nalt;
	enum adv_alt alt[ADV_MAX_ALT];
	const char *systemd_value; /* AA_SYSTEMD: "disable" */
	enum adv_lever_why why;
	int enabled; /* the host's enabled after the advice (index into adv_enabled_vals, -1) */
	bool except_advised;
	bool recorded; /* ALW_UNREADABLE: a recorded tree (a capture): read by whoever took it */
};

enum adv_note_kind { AN_CONFLICT, AN_ASSUMPTION, AN_WATCH, AN_FINDING, AN_INFO };

const char *adv_note_kind_name(enum adv_note_kind k);

enum adv_note_id {
	ANI_NO_THP,	      /* the kernel has no THP */
	ANI_CONFLICT,	      /* a want left out: no per-process lever gives it its setting */
	ANI_PER_PROCESS,      /* a workload opts out per process while the host keeps a value */
	ANI_MONGODB_ASSUMED,  /* MongoDB version unknown: 7.0 assumed */
	ANI_MONGODB_VERSION,  /* mongod PID is MongoDB X.Y (source) */
	ANI_NOT_WRITABLE,     /* the settings are not writable here */
	ANI_FINDING,	      /* a finding of status the settings do not cover */
	ANI_WATCH_STALL,      /* watch compact_stall */
	ANI_UNREADABLE,	      /* processes not fully readable */
	ANI_SMALL_GO,	      /* Go processes under 64 MiB */
	ANI_NO_WORKLOAD,      /* nothing detected, nothing asked */
	ANI_SHRINK_UNDECIDED, /* finding shrink-underused-noop, but no max_ptes_none change: why */
};

#define ADV_MAX_NEEDS 4

struct adv_note {
	enum adv_note_kind kind;
	enum adv_note_id id;
	/* evidence, as the id needs it */
	const char *who, *winner, *key, *value; /* ANI_CONFLICT */
	unsigned accept;			/* ... the values the loser accepts (bits) */
	const char *const *vals;		/* ... the setting's values */
	int nvals;
	int wl;				  /* ANI_PER_PROCESS: the workload that opts out */
	int nneeds;			  /* ... who needs the host value */
	const char *needs[ADV_MAX_NEEDS]; /* workload titles or rule names */
	long pid;			  /* ANI_MONGODB_VERSION */
	int ver[2];
	const char *ver_src;
	int err;		       /* ANI_NOT_WRITABLE */
	const struct finding *finding; /* ANI_FINDING */
	uint64_t compact_stall;	       /* ANI_WATCH_STALL */
	double uptime_s;	       /* ... 0 unknown */
	int defrag;		       /* ... the defrag after the advice (index, -1) */
	enum compact_cause cause;      /* ... compact_stall_cause() under that defrag */
	int n, of; /* ANI_UNREADABLE (adv_input unreadable of unreadable_of), ANI_SMALL_GO (n) */
	bool recorded; /* ANI_UNREADABLE: a recorded tree (a capture): read by whoever took it */
	int smaps;     /* ANI_UNREADABLE: of N, smaps denied (ledger_unreadable); -1 no ledger */
	int flagged;   /* ANI_SHRINK_UNDECIDED: of N, flagged invented or creep (sparse_procs) */
	bool thp_off;  /* ... the settings resolve enabled to never */
	bool as_root;  /* ANI_UNREADABLE: denied to root (another namespace, a security module) */
	/* ANI_SHRINK_UNDECIDED: finding (its fix's key and value), the ledger's pass:
	 * ledger_scan (1, 0 recorded, -errno), n = ledger_scanned, of = not read (partial) */
	int ledger_scan;
};

struct adv_workload {
	bool active, detected, requested;
	int npids;
	long pids[8];
	char version[32];      /* "8.0", "15" (minor unknown), "" unknown or differing */
	char version_src[160]; /* where it came from: "dpkg: postgresql-15 15.18-0+deb12u1" */
	bool versions_differ;  /* its processes' versions differ (one unknown counts): version
				* is "" then, each process's is adv_proc_version's */
};

struct advice {
	bool mixed; /* two or more application workloads share the host */
	struct adv_workload wl[WL_N];
	int nsettings;
	struct adv_setting s[ADV_MAX_SETTINGS];
	int nchanges;	    /* settings that change: `thpctl set` / `persist` them */
	bool persist_tuned; /* tuned applies THP settings here (status's finding tuned-sets-thp):
			     * keep them as a tuned profile, as status's persist lines do */
	int nlevers;
	struct adv_lever l[ADV_MAX_LEVERS];
	int nnotes;
	struct adv_note notes[ADV_MAX_NOTES];
	/* a setting a rule may change left undecided: its evidence, the THP ledger, was not read
	 * (ANI_SHRINK_UNDECIDED with no ledger, or smaps denied that root could read): the
	 * finding that asks for it (its set_key and set_value), ledger_scan (1: scanned, 0: a
	 * recorded tree, -errno), the processes read and not read (smaps denied or failed);
	 * NULL finding: none undecided */
	const struct finding *undecided;
	int undecided_scan;
	int undecided_read, undecided_unread;
	int nrem; /* what to change for each flagged process, as in.flagged[] */
	struct remedy rem[ADV_MAX_FLAGGED];
	int nrem_cost; /* of them, a cost their ledger flags (ps --ledger's FLAG) */
	int nrem_gain; /* of them, none flagged but they would gain (RM_WOULD_GAIN) */
};

extern const char *const adv_enabled_vals[3]; /* always madvise never */
extern const char *const adv_defrag_vals[5];  /* always defer defer+madvise madvise never */

/* Decide. Pure; OUT is overwritten. */
void advice_build(const struct adv_input *in, struct advice *out);

/* P's version into OUT ("8.0", "15" when the minor is unknown; "" unknown). src/model/advice.c */
void adv_proc_version(const struct adv_proc *p, char *out, size_t n);
/*
 * Count L (one process's ledger, of the ledger's pass) into IN: sparse_procs,
 * invented_procs/_kb, creep_procs/_kb by ledger_cost_flagged().
 */
void advice_ledger_count(struct adv_input *in, const struct thp_ledger *l);
/*
 * The order of flagged processes by what acting on them saves: a flagged cost first, the
 * largest cost first; then those that would gain, the most fully written bytes first; then
 * by PID. Negative when A comes before B. advise lists the first ADV_MAX_FLAGGED.
 */
int advice_flagged_cmp(const struct remedy_proc *a, const struct remedy_proc *b);
/*
 * Count PID of the workload pass as not fully readable (unreadable): its exe link was denied;
 * kept in exe_denied for the ledger's pass. Returns 0, or -ENOMEM (counted, not kept).
 */
int advice_exe_denied(struct adv_input *in, long pid);

/* Free what IN holds (exe_denied); IN's other fields are left as they are. */
void advice_input_free(struct adv_input *in);

/*
 * Count process PID of the ledger's pass: its smaps denied (SMAPS_DENIED: ledger_unreadable)
 * and, once whatever was denied, among the processes not fully readable (unreadable): its
 * smaps, or its exe link in IN's exe_denied (the workload pass). Pure.
 */
void advice_count_unreadable(struct adv_input *in, long pid, bool smaps_denied);

/* Whether the ledger's pass left processes unknown (smaps not readable, a read failed). */
bool advice_ledger_partial(const struct adv_input *in);
/* Whether IN is partial: a host file not read or damaged, a process not (fully) readable. */
bool advice_partial(const struct adv_input *in);

/*
 * Whether A, an argument of a command line, names a path relative to the working directory:
 * not empty, not an option ('-'), not absolute, no '=' and no "://", and either a '/' in it
 * ("conf/app.yaml", "./run.sh") or a file name's extension of 1 to 8 letters and digits with
 * a letter among them ("hp.py", "app.jar"; not "0.5" nor "v1.2.3"). Pure.
 */
bool arg_relative_path(const char *a);

/*
 * DIR (absolute) and REL (relative; its leading "./" dropped) joined into OUT (N bytes):
 * "/srv/app" and "./hp.py" give "/srv/app/hp.py", "/" and "hp.py" "/hp.py". Returns 0, or
 * -ENOSPC (OUT "").
 */
int path_join_rel(const char *dir, const char *rel, char *out, size_t n);

#endif
