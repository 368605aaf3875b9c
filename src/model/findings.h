/* SPDX-License-Identifier: MIT */
/* Rules over the host audit: (settings, counters) -> findings with evidence. */
#ifndef THPCTL_FINDINGS_H
#define THPCTL_FINDINGS_H

#include "host.h"

enum severity { SEV_INFO, SEV_WARN, SEV_CRIT };

const char *severity_name(enum severity s);

/* What a finding is about: the verdict block shows the worst finding of each. */
enum finding_area {
	AREA_LATENCY,	    /* faults that wait: direct reclaim and compaction */
	AREA_MEMORY,	    /* memory THP invents or holds: bloat, deferred split, COW */
	AREA_FRAGMENTATION, /* huge page faults falling back for want of free blocks */
	AREA_KHUGEPAGED,    /* the collapse daemon's cost */
	AREA_HUGETLB,	    /* reserved hugetlb pools */
	AREA_VISIBILITY,    /* what cannot be measured on this kernel */
	AREA_ACCESS,	    /* who may change the settings */
	AREA_N,
};

/* "latency", "memory", ...: the area's name in text and JSON. */
const char *finding_area_name(enum finding_area a);

/* The findings, one per rule; finding_id() gives the stable name ("defrag-always"). */
enum finding_kind {
	FK_DEFRAG_ALWAYS,
	FK_ALWAYS_MAX_PTES_NONE,
	FK_FAULT_SUCCESS_LOW,
	FK_COMPACT_STALL,
	FK_DEFERRED_SPLIT,
	FK_SHRINK_UNDERUSED_NOOP,
	FK_COW_COPY,
	FK_LARGE_PMD,
	FK_MTHP_NO_STATS,
	FK_HUGETLB_IDLE,
	FK_KHUGEPAGED_CPU,
	FK_READ_ONLY,
	FK_TUNED_SETS_THP,
	FK_N,
};

/* "defrag-always", ...: the finding's stable identifier in text and JSON. */
const char *finding_id(enum finding_kind k);

/* One THP setting of a tuned profile, as the tuned-sets-thp rule compared it. */
struct finding_tuned_set {
	int i;		       /* index in tuned_state.set */
	bool differs;	       /* the live value differs */
	bool unread;	       /* the live value could not be read */
	char live[CHOICE_LEN]; /* the live value when it differs */
};

/*
 * The evidence a rule read, typed, by kind (render/findings.c words it).
 * Pointers point into the host snapshot the rules ran over.
 */
union finding_facts {
	/* always-max-ptes-none: khugepaged/max_ptes_none */
	uint64_t max_ptes_none;
	struct finding_shrink { /* shrink-underused-noop */
		uint64_t max_ptes_none;
		bool measured;	    /* `thpctl lab shrinker` ran on this kernel at that value */
		char time[32];	    /* when (UTC) */
		uint64_t before_kb; /* the child's AnonHugePages before and after the pressure */
		uint64_t after_kb;
		bool has_low; /* a phase at a lower max_ptes_none, for contrast */
		long low_mpn;
		uint64_t low_before_kb, low_after_kb;
	} shrink;
	struct finding_fault { /* fault-success-low */
		struct ratio r;
		uint64_t size_kb;     /* the mTHP size, 0 for the PMD size */
		int pmd_order;	      /* -1: unknown, no free-block evidence */
		u128 free_pmd_blocks; /* exact: a u64 count << order may not fit 64 bits */
		bool has_free_blocks; /* buddyinfo read: free_pmd_blocks is a count, not 0 */
	} fault;
	struct finding_compact { /* compact-stall */
		uint64_t stall, fail, success;
		bool has_outcome;      /* compact_fail and compact_success were read */
		enum defrag_stall who; /* who may stall under the current defrag */
		enum compact_cause
			cause;	    /* compact_stall_cause(): whether THP faults may be in it */
		const char *defrag; /* its value, NULL unread */
		bool has_faults;    /* thp_fault_alloc and thp_fault_fallback were read */
		uint64_t fault_alloc, fault_fallback; /* since boot */
	} compact;
	struct finding_split { /* deferred-split */
		uint64_t deferred, split;
		u128 partially_mapped;	   /* summed over sizes: exact */
		bool has_partially_mapped; /* 6.12+: nr_anon_partially_mapped, what is held now */
	} split;
	const char *release;	    /* cow-copy: the kernel release */
	struct finding_pmd {	    /* large-pmd */
		uint64_t pmd_size;  /* bytes */
		const char *policy; /* PMD-size policy, NULL unknown */
		bool always;
	} pmd;
	struct finding_mthp { /* mthp-no-stats */
		uint64_t size_kb;
		const char *enabled, *effective;
	} mthp;
	struct finding_pool { /* hugetlb-idle */
		uint64_t size_kb, nr, free, resv;
		bool default_size; /* the default hugetlb size: vm.nr_hugepages sets it */
	} pool;
	struct finding_khp { /* khugepaged-cpu */
		double share, cpu_s, uptime_s;
		double alive_s; /* since it started: uptime_s when at boot */
		bool late;	/* host_derived's khugepaged_late */
	} khp;
	int write_err;	       /* settings-read-only: -errno of the write check */
	struct finding_tuned { /* tuned-sets-thp */
		const struct tuned_state *t;
		int nset, ndiff; /* THP settings it writes, and those unlike the live value */
		struct finding_tuned_set set[TUNED_MAX_SET];
	} tuned;
};

struct finding {
	enum finding_kind kind;
	const char *id; /* finding_id(kind) */
	enum severity sev;
	enum finding_area area;
	union finding_facts ev;
	/*
	 * When the fix is a setting: its `thpctl set` key and value (the fix
	 * then reads "thpctl set KEY=VALUE"), or with SYSCTL the vm.* sysctl of
	 * `thpctl persist --format sysctl`. "" when the fix is not a setting.
	 */
	char set_key[64];
	char set_value[32];
	bool sysctl;
	/* tuned applies THP settings here (tuned-sets-thp fired): persist the fix as a tuned profile */
	bool via_tuned;
};

#define FINDINGS_MAX 32

struct findings {
	int n;
	struct finding f[FINDINGS_MAX];
};

/* One rule: appends zero or one finding to OUT. */
typedef void (*finding_rule)(const struct host_snapshot *h, const struct host_derived *d,
			     struct findings *out);

/* Individual rules, exported for unit tests. */
void rule_defrag_always(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out);
void rule_always_max_ptes_none(const struct host_snapshot *h, const struct host_derived *d,
			       struct findings *out);
void rule_fault_success_low(const struct host_snapshot *h, const struct host_derived *d,
			    struct findings *out);
void rule_compact_stall(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out);
void rule_deferred_split(const struct host_snapshot *h, const struct host_derived *d,
			 struct findings *out);
void rule_shrink_underused_noop(const struct host_snapshot *h, const struct host_derived *d,
				struct findings *out);
void rule_cow_copy(const struct host_snapshot *h, const struct host_derived *d,
		   struct findings *out);
void rule_large_pmd(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out);
void rule_mthp_no_stats(const struct host_snapshot *h, const struct host_derived *d,
			struct findings *out);
void rule_hugetlb_idle(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out);
void rule_khugepaged_cpu(const struct host_snapshot *h, const struct host_derived *d,
			 struct findings *out);
void rule_read_only(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out);
/* tuned is active and its profile writes THP settings (warn when one differs from the live value). */
void rule_tuned_thp(const struct host_snapshot *h, const struct host_derived *d,
		    struct findings *out);

/*
 * The verdict: index into FS of the worst finding of each area (the first of
 * the most severe, as FS is sorted), -1 where the area has none. OUT has
 * AREA_N entries.
 */
void findings_worst_per_area(const struct findings *fs, int out[AREA_N]);

/* Run every rule, most severe first. */
void findings_evaluate(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out);

#endif
