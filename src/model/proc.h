/* SPDX-License-Identifier: MIT */
/* Why a process does or does not use huge pages, from its collected facts. */
#ifndef THPCTL_MODEL_PROC_H
#define THPCTL_MODEL_PROC_H

#include "../kernel/proc_thp.h"
#include "../util/buf.h"
#include "alloc.h"
#include "ledger.h"
#include "shmem.h"
#include "skips.h"

/*
 * nh VMAs the program opted out itself (MADV_NOHUGEPAGE, or a library for
 * it): all nh VMAs but thread stacks and their guards, which the kernel marks
 * nh for MAP_STACK (6.7+; proc_thp.h stack_nh_vmas).
 */
int proc_thp_optout_vmas(const struct proc_thp *p);

/*
 * Whether P has anything THP-related (huge pages, hg VMAs, nh VMAs it opted
 * out itself, prctl disable): thread stacks alone do not count.
 */
bool proc_thp_relevant(const struct proc_thp *p);

/* Why a process does or does not use huge pages (render/ps.c words it), first that holds. */
enum thp_reason {
	TR_PRCTL_OFF,	/* THP disabled by prctl (status THP_enabled: 0) */
	TR_MADVISE_IN,	/* hg VMAs: opted in by madvise */
	TR_MADVISE_OUT, /* nh VMAs besides thread stacks, no huge pages: opted out */
	TR_ALWAYS,	/* huge pages under a PMD policy of always */
	TR_ROLLUP_HUGE, /* huge pages, VMA flags not read (--rollup) */
	TR_COLLAPSED,	/* huge pages without hg VMAs and without always: khugepaged */
	TR_SHMEM_FILE,	/* shmem or file huge pages only */
	TR_SHMEM_OFF,	/* none; its hg VMAs are shmem its shmem policy keeps from huge pages */
	TR_NONE_STACKS, /* none; its only nh VMAs are thread stacks (the kernel's, MAP_STACK) */
	TR_NONE,	/* none */
};

/*
 * The kind of P's hg shmem that SHMEM (model/shmem.h; NULL unknown) keeps from PMD huge
 * pages, the one with the most of it (SHK_NONE: none); *VMAS (may be NULL) gets how many
 * hg VMAs of every such kind. A VMA the kernel shows THPeligible 1 is not counted: the
 * kernel allows it some size. Pure.
 */
/* Whether P has MADV_HUGEPAGE shmem VMAs (of any kind). Pure. */
bool proc_thp_hg_shmem(const struct proc_thp *p);

enum shmem_kind proc_thp_shmem_off(const struct proc_thp *p, const struct shmem_rules *shmem,
				   int *vmas);

/*
 * Why P uses huge pages or not. POLICY is the effective anon policy of the
 * PMD size ("always", "madvise", "never") or NULL when unknown; SHMEM the
 * shmem policy (model/shmem.h) or NULL when unknown.
 */
enum thp_reason proc_thp_reason(const struct proc_thp *p, const char *policy,
				const struct shmem_rules *shmem);

/* Whether smaps gave field F of T (absent: unknown, never 0). */
bool smaps_known(const struct smaps_totals *t, enum smaps_field f);

/* ---- the reports of `ps` and `maps` (render/ps.c) ---- */

/* One row of `ps`: the collected facts plus what the command derived. */
struct ps_row {
	struct proc_thp p;
	char user[32];
	enum thp_reason reason;
	enum shmem_kind shm_off;  /* SHMEM_OFF: the kind whose shmem policy it is */
	bool denied;		  /* smaps not readable: only status facts are valid */
	struct thp_ledger *led;	  /* ps --ledger: malloc'd, else NULL (328 B a row kept) */
	struct alloc_fact *alloc; /* ps --ledger and --json: malloc'd when collected, else NULL
				   * (1.4 kB: a row of every process kept it before) */
};

struct ps_report {
	struct ps_row *rows;
	size_t n;
	bool rollup;
	int denied;		   /* processes whose smaps could not be read */
	bool recorded;		   /* a recorded tree: "denied" means unreadable at capture */
	bool capture;		   /* that tree is a thpctl capture (it records few processes) */
	bool as_root;		   /* euid 0: "denied" means another namespace or an LSM */
	int errors;		   /* other read/parse failures */
	int damaged;		   /* rows kept with damaged fields shown unknown (status, smaps) */
	struct bundle_skips skips; /* a --sysroot bundle's members not extracted (partial) */
	const char *policy;	   /* effective PMD policy, NULL unknown */
	const struct shmem_rules *shmem; /* the shmem policy, NULL unknown */
	bool flags_absent;		 /* kernel prints no VmFlags (< 3.8) */
	bool eligible_absent;		 /* no THPeligible (< 5.0) */
	bool ledger;			 /* --ledger: rows carry .led */
	bool relevant_only; /* the default selection: processes with something THP-related */
	int ledger_k;
	long long host_partial_thps; /* nr_anon_partially_mapped summed over sizes, -1 unknown */
	/* AnonHugePages of /proc/meminfo (host-wide, kB), beside the per-process sum */
	bool has_host_ahp;
	uint64_t host_ahp_kb;
};

/* The smaps fields a `maps` row shows (maps_report.totals keeps them all). */
enum maps_field { MF_SIZE, MF_RSS, MF_ANON_HUGE, MF_N };

/*
 * One VMA row of `maps`: 64 bytes, where a copy of smaps_totals made it 168. A process of
 * 10 000 VMAs then touched 1.6 MB of fresh pages for its rows, and a first touch costs
 * ~10 us a page under some hypervisors (bench/maps.sh prints it).
 */
struct maps_vma {
	uint64_t start, end;
	uint64_t kb[MF_N]; /* kB, valid where KNOWN has the field's bit */
	uint8_t known;	   /* bit (1 << enum maps_field): printed and not damaged */
	char perms[5];
	int8_t thp_eligible; /* 0/1, -1 absent (kernel < 5.0) or damaged */
	bool has_vmflags;
	unsigned vmflags;
	size_t name_off; /* its name in maps_report.names (maps_vma_name), NUL-terminated */
};

/* VMAs in a block of maps_report.chunks: blocks are never moved, so rows are never copied. */
#define MAPS_CHUNK 1024

struct maps_ancestor {
	long pid;
	char comm[COMM_LEN];
};

struct maps_report {
	long pid;
	struct proc_status st;
	struct maps_vma **chunks; /* MAPS_CHUNK VMAs each (maps_vma_at, maps_vma_add) */
	size_t nchunks;
	size_t n;
	struct buf names; /* the VMAs' names, one after another (not 256 bytes a VMA) */
	struct smaps_totals totals;
	struct thp_ledger led; /* what THP buys and costs it */
	/* THP_enabled 0: the chain of ancestors that also have 0, nearest first */
	struct maps_ancestor chain[32];
	int nchain;
	bool chain_cut;	      /* an ancestor could not be read */
	int stop_thp_enabled; /* THP_enabled of the first ancestor not in the chain: 1, or -1 unknown */
	bool partial;	      /* smaps ended mid-line: the VMAs shown may be incomplete */
};

/* The name of V, a VMA of R: "[anon]", "[heap]", a path, "[anon:x]". */
static inline const char *maps_vma_name(const struct maps_report *r, const struct maps_vma *v)
{
	return r->names.p ? r->names.p + v->name_off : "";
}

/* The Ith VMA of R, I < R->n. */
static inline const struct maps_vma *maps_vma_at(const struct maps_report *r, size_t i)
{
	return &r->chunks[i / MAPS_CHUNK][i % MAPS_CHUNK];
}

/*
 * Append V to R: its range, perms, flags, THPeligible, the MF_* fields of V->t, and NAME
 * (its display name, copied into R->names). 0, or -ENOMEM (R unchanged but for room).
 */
int maps_vma_add(struct maps_report *r, const struct smaps_vma *v, const char *name);
/* Free what maps_vma_add() allocated in R. */
void maps_report_free(struct maps_report *r);

/* AnonHugePages / Anonymous as a ratio in [0,1]; -1 when Anonymous is 0 or absent. */
double proc_thp_share(const struct proc_thp *p);

#endif
