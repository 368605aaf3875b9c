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
#include "findings.h"
#include "host.h"

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

#define ADV_CMD_LEN 384

/* Whether a process's command line can be reused to restart it. */
enum adv_args {
	ADV_ARGS_UNKNOWN,   /* cmdline or exe not readable */
	ADV_ARGS_INTACT,    /* argv[0] is its exe, NUL-separated arguments: cmdline holds them */
	ADV_ARGS_REWRITTEN, /* a process title written over argv: its arguments are unknown */
};

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
	char unit[96];		   /* systemd unit from its cgroup, "" unknown */
	char cmdline[ADV_CMD_LEN]; /* shell-quoted exe and arguments, "" unknown */
	enum adv_args args;
	char exe[160];	       /* its /proc/PID/exe, "" unknown */
	char title[96];	       /* ADV_ARGS_REWRITTEN: what its cmdline reads, shell-quoted */
	bool has_smaps;	       /* the next three are known (smaps read) */
	uint64_t anon_huge_kb; /* AnonHugePages, all VMAs */
	uint64_t hg_kb;	       /* size of its MADV_HUGEPAGE (hg) VMAs */
	int hg_vmas;
	bool java_thp;	  /* -XX:+UseTransparentHugePages on its command line */
	uint64_t shm_kb;  /* postgres: largest shared anonymous mapping, 0 unknown */
	bool shm_hugetlb; /* that mapping is hugetlb already */
};

#define ADV_MAX_PROCS 64

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
	int scanned, unreadable; /* processes looked at; not fully readable */
	int small_go;		 /* Go processes too small to count as a workload */
	bool recorded;		 /* a recorded tree */
	struct kconfig_info
		kconfig; /* the kernel's build default of enabled, and where it was read */
};

/* ---- output ---- */

#define ADV_MAX_SETTINGS 8
#define ADV_MAX_LEVERS 32
#define ADV_MAX_NOTES 24
#define ADV_MAX_ALT 3

struct adv_setting {
	char key[48]; /* kernel name: "enabled", "khugepaged/max_ptes_none", ... */
	bool has_now;
	char now[24];
	char want[24];
	bool change;
	char reason[600]; /* the facts it rests on */
	char by[96];	  /* who wants it: "mongodb8, dense-containers", "rule: defrag-always" */
};

struct adv_lever {
	long pid; /* 0: for a workload asked for with --workload, no process found */
	char comm[COMM_LEN];
	enum workload wl;
	bool needed; /* the host setting conflicts with this process: act */
	char what[160];
	char command[ADV_CMD_LEN + 64]; /* the command to run, or "" */
	int nalt;
	char alt[ADV_MAX_ALT][240];
	char reason[400];
};

enum adv_note_kind { AN_CONFLICT, AN_ASSUMPTION, AN_WATCH, AN_FINDING, AN_INFO };

const char *adv_note_kind_name(enum adv_note_kind k);

struct adv_note {
	enum adv_note_kind kind;
	char text[600];
};

struct adv_workload {
	bool active, detected, requested;
	int npids;
	long pids[8];
	char version[32];      /* "8.0", "15" (minor unknown), "" unknown */
	char version_src[160]; /* where it came from: "dpkg: postgresql-15 15.18-0+deb12u1" */
};

struct advice {
	bool mixed; /* two or more application workloads share the host */
	struct adv_workload wl[WL_N];
	int nsettings;
	struct adv_setting s[ADV_MAX_SETTINGS];
	int nchanges;
	char set_cmd[512];     /* "thpctl set KEY=VALUE ...", "" when nothing changes */
	char persist_cmd[512]; /* "thpctl persist KEY=VALUE ..." */
	int nlevers;
	struct adv_lever l[ADV_MAX_LEVERS];
	int nnotes;
	struct adv_note notes[ADV_MAX_NOTES];
};

/* Decide. Pure; OUT is overwritten. */
void advice_build(const struct adv_input *in, struct advice *out);

/*
 * Shell-quote a NUL-separated argv (TEXT, LEN) into OUT: words made of safe
 * characters stay bare, others get single quotes. Returns 0, or -ENOSPC when
 * it does not fit (OUT then holds "").
 */
int shell_quote_argv(const char *text, size_t len, char *out, size_t n);

#endif
