/* SPDX-License-Identifier: MIT */
/* Rules over the host audit: (settings, counters) -> findings with evidence. */
#ifndef THPCTL_FINDINGS_H
#define THPCTL_FINDINGS_H

#include "host.h"

enum severity { SEV_INFO, SEV_WARN, SEV_CRIT };

const char *severity_name(enum severity s);

struct finding {
	const char *id; /* stable identifier, e.g. "defrag-always" */
	enum severity sev;
	char title[160];
	char evidence[256]; /* the values that triggered it */
	const char *why;    /* one line: why it matters */
	char fix[256];	    /* a command */
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

/* Run every rule, most severe first. */
void findings_evaluate(const struct host_snapshot *h, const struct host_derived *d,
		       struct findings *out);

#endif
