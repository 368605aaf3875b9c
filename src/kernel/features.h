/* SPDX-License-Identifier: MIT */
/*
 * What this kernel offers, probed once at start-up by the presence of files
 * or by EINVAL from a syscall, never by version number alone (the one
 * exception, COW-after-fork, is labelled inferred).
 */
#ifndef THPCTL_FEATURES_H
#define THPCTL_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

#include "sysroot.h"

/* A capability: yes, no, or unknown (not probed: a recorded tree, or no permission). */
enum tri { TRI_UNKNOWN = -1, TRI_NO = 0, TRI_YES = 1 };

struct features {
	char release[96];	 /* proc/sys/kernel/osrelease, "" if absent */
	int kver[3];		 /* parsed release, {0,0,0} if unparsable */
	long page_size;		 /* bytes; 0 unknown */
	bool page_size_inferred; /* from a recorded smaps KernelPageSize */
	uint64_t pmd_size;	 /* bytes, hpage_pmd_size; 0 if absent */
	bool thp;		 /* transparent_hugepage/ exists */
	int mthp_sizes;		 /* hugepages-*kB dirs with an anon "enabled" file */
	bool per_size_stats;	 /* hugepages-*kB/stats/ (6.10+) */
	bool shrink_underused;
	enum tri madv_collapse;	     /* MADV_COLLAPSE on a small private mapping (6.1+) */
	int madv_collapse_err;	     /* errno of the probe when not TRI_YES */
	enum tri except_advised;     /* PR_THP_DISABLE_EXCEPT_ADVISED in a forked child (6.18+) */
	enum tri status_thp_enabled; /* "THP_enabled:" in /proc/PID/status (5.0+) */
	enum tri smaps_thpeligible;  /* "THPeligible:" in /proc/PID/smaps (5.0+) */
	enum tri cow_split;	     /* inferred from release >= 5.8 */
	char cmdline_thp[32];	     /* transparent_hugepage= from proc/cmdline, "" if none */
	/*
	 * What the absence of a file under the THP tree means: REC_LIVE and
	 * REC_WHOLE (a capture that recorded the tree whole, or found it
	 * absent) "the kernel lacks it"; REC_TREE (a tree without a capture
	 * manifest) cannot tell; REC_MISSING (a capture that could not record
	 * the tree, or recorded it partial) "not recorded".
	 */
	enum { REC_LIVE, REC_TREE, REC_WHOLE, REC_MISSING } thp_recorded;
	bool has_cmdline;
};

/*
 * Fill F. On a live sysroot the syscall probes run (the MADV_COLLAPSE probe
 * maps and collapses one PMD of private memory and unmaps it; the prctl probe
 * runs in a throw-away child); on a recorded tree they stay TRI_UNKNOWN.
 * Returns 0; missing files only leave fields unknown.
 */
int features_probe(const struct sysroot *sr, struct features *f);

struct thp_settings;

/*
 * Fill the fields that follow from the settings tree already read
 * (pmd_size, shrink_underused, mthp_sizes, per_size_stats), so that no file
 * is read twice. A file present but unparsable counts as absent.
 */
void features_from_settings(struct features *f, const struct thp_settings *s);

/* Parse "6.18.44-foo" into V[3]. Returns 0 or -EINVAL. */
int kernel_version_parse(const char *release, int v[3]);

/* Whether release V is at least MAJ.MIN. */
bool kver_at_least(const int v[3], int maj, int min);

/*
 * Whether a THP file that kernels have from MAJ.MIN on, absent here, says the
 * kernel lacks it: on the live host and in a capture that recorded the THP tree
 * whole, yes; in a tree without a manifest (an older capture, a sos report)
 * only when its release is older than MAJ.MIN; else it was not recorded. Pure.
 */
bool features_absence_known(const struct features *f, int maj, int min);

/* Find transparent_hugepage=VALUE in cmdline TEXT. Returns 0 and copies VALUE, or -ENOENT. */
int cmdline_thp_parse(const char *text, size_t len, char *out, size_t n);

#endif
