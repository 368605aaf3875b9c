/* SPDX-License-Identifier: MIT */
/*
 * `thpctl hugetlb plan`: how many hugetlb pages a pool of a given size takes,
 * whether it fits (leaving the kernel at least 1.5 GiB), whether a runtime
 * reservation can succeed now (free buddy blocks of the page's order), and
 * the sysctl / sysfs and kernel command line that reserve it. Pure.
 */
#ifndef THPCTL_HUGETLB_PLAN_H
#define THPCTL_HUGETLB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/boot_tools.h"

#include "../kernel/buddyinfo.h"
#include "../kernel/parse.h"
#include "../util/wide.h"
#include "skips.h"

/* What the kernel keeps at the least: 1.5 GiB. */
#define HP_KERNEL_RESERVE_KB (1536ull * 1024)

#define HP_MAX_NODES 64
#define HP_MAX_LINES 4

struct hp_node {
	int node;
	bool has_mem_total;
	uint64_t mem_total_kb; /* nodeN/meminfo MemTotal */
	bool has_mem_free;
	uint64_t mem_free_kb; /* nodeN/meminfo MemFree: what compaction on the node works with */
	bool has_buddy;
	bool buddy_partial;	 /* buddyinfo dropped a row (cut short or listed twice): the
				  * count is at least free_blocks */
	u128 free_blocks;	 /* free blocks able to hold one page of the size (not ZONE_DMA) */
	struct opt_u64 nr, free; /* this node's pool of the size now */
};

struct hp_plan_input {
	uint64_t for_bytes;	  /* the pool the user wants (e.g. shared_buffers) */
	unsigned overhead_pct;	  /* added on top (--overhead) */
	uint64_t page_kb;	  /* hugetlb page size */
	uint64_t default_page_kb; /* meminfo Hugepagesize; 0 unknown */
	long base_page;		  /* bytes; 0 unknown */
	int node;		  /* -1: all nodes */
	bool has_mem_total, has_mem_free;
	uint64_t mem_total_kb, mem_free_kb; /* /proc/meminfo */
	bool size_supported;		    /* sys/kernel/mm/hugepages/hugepages-<kb>kB exists */
	bool pools_unrecorded; /* a tree without sys/kernel/mm/hugepages (an sos report): whether
				* its kernel has the size, and what the pool holds, are unknown */
	int buddy_max_order;   /* highest order buddyinfo prints; -1 unknown */
	struct opt_u64 nr, free, resv; /* the global pool of the size now */
	/* nr_overcommit_hugepages (the most surplus pages the kernel may allocate on demand)
	 * and surplus_hugepages (those allocated now) of the global pool */
	struct opt_u64 overcommit, surplus;
	int nnodes;
	struct hp_node nodes[HP_MAX_NODES];
	enum boot_tool boot; /* how this host sets the kernel command line (boot_tools.h) */
	/* files the plan reads that could not be read or parsed ("proc/buddyinfo (a symlink)") */
	int nunread;
	const char *unread[HP_MAX_LINES];
	struct bundle_skips skips; /* a --sysroot bundle's members not extracted: partial too */
};

enum hp_runtime {
	HP_RT_ALREADY, /* the pool's free pages (less those reserved by mappings) cover the pool */
	HP_RT_NOW,     /* enough free blocks of the order now */
	HP_RT_COMPACT, /* not enough blocks, but enough free memory: compaction may do it */
	HP_RT_BOOT,    /* reserve at boot (command line) */
	HP_RT_NOFIT,   /* does not fit at all */
	HP_RT_UNKNOWN, /* the pool's counts, buddyinfo or the scope's MemFree unreadable */
};

/* Why the runtime verdict is HP_RT_UNKNOWN. */
enum hp_unknown {
	HP_UNK_NONE,
	HP_UNK_POOL,	      /* nr_hugepages, free_hugepages or resv_hugepages unreadable */
	HP_UNK_UNRECORDED,    /* a tree without sys/kernel/mm/hugepages (pools_unrecorded) */
	HP_UNK_BUDDY,	      /* no buddyinfo (for the node) or no page order */
	HP_UNK_BUDDY_DAMAGED, /* buddyinfo dropped a row and the rest fall short: a lower bound */
	HP_UNK_MEMFREE,	      /* too few free blocks, and the scope's MemFree unreadable */
};

const char *hp_runtime_name(enum hp_runtime r);

/* Which file or sysctl reserves the pool (render/hugetlb_plan.c writes the lines). */
enum hp_target {
	HP_TARGET_SIZE,	   /* hugepages/hugepages-<kB>kB/nr_hugepages: not the default size */
	HP_TARGET_DEFAULT, /* vm.nr_hugepages: the default size (meminfo Hugepagesize) */
	HP_TARGET_NODE,	   /* node<N>/hugepages/hugepages-<kB>kB/nr_hugepages */
};

/* What else the plan must say, in this order. */
enum {
	HP_NOTE_UNSUPPORTED = 1 << 0,  /* no hugepages-<kB>kB directory: the lines fail here */
	HP_NOTE_POOL_SHARED = 1 << 1,  /* a pool exists (have) and grows: it may serve others */
	HP_NOTE_NOT_DEFAULT = 1 << 2,  /* not the default size: programs must ask for it */
	HP_NOTE_NO_NODE = 1 << 3,      /* the node is not in this tree */
	HP_NOTE_HAVE_UNKNOWN = 1 << 4, /* the pool's counts unreadable: have, need unknown */
	HP_NOTE_RESV_GLOBAL = 1 << 5,  /* --node with resv > 0: counted for all nodes only */
	HP_NOTE_OVERCOMMIT = 1 << 6,   /* overcommit or surplus pages: on demand, may fail */
	HP_NOTE_UNRECORDED = 1 << 7,   /* the tree records no hugetlb pool: have, need unknown */
};

struct hp_plan {
	uint64_t pool_bytes;   /* for_bytes plus the overhead */
	uint64_t pages;	       /* hugetlb pages of page_kb */
	uint64_t total_kb;     /* pages * page_kb */
	int order;	       /* log2(page / base page), -1 unknown */
	uint64_t scope_mem_kb; /* MemTotal of the node, or of the host */
	bool scope_mem_known;
	bool fits;
	uint64_t left_kb;   /* memory left to the rest, when it fits */
	uint64_t max_pages; /* the most pages that fit with the reserve */
	uint64_t have;	    /* nr_hugepages of this size now (node or host), when have_known */
	uint64_t free;	    /* free_hugepages now (node or host), when have_known */
	uint64_t resv;	    /* resv_hugepages (global only): free pages promised to mappings */
	uint64_t avail;	    /* free - resv (at least 0): what a new mapping can get now */
	bool have_known;    /* nr, free and resv read (or no pool of the size: all 0) */
	uint64_t need;	    /* pages - avail: the shortfall to add to the pool, when have_known */
	uint64_t target;    /* have + need: what the lines set nr_hugepages to (never below have) */
	/* the overcommit (global): nr_overcommit_hugepages, surplus_hugepages and what the
	 * kernel may still allocate on demand (overcommit - surplus, at least 0), when known */
	bool overcommit_known;
	uint64_t overcommit, surplus, overcommit_room;
	bool scope_free_known;
	uint64_t scope_free_kb; /* MemFree of the node, or of the host */
	enum hp_unknown unknown;
	u128 free_blocks;  /* able to hold one page each, in the scope (exact), when blocks_known */
	bool blocks_known; /* buddyinfo read for the scope (a node's, or any node's) */
	bool blocks_at_least; /* buddyinfo dropped a row: free_blocks is a lower bound */
	bool gigantic;	      /* order above the buddy allocator's largest block */
	enum hp_runtime runtime;
	enum hp_target file;
	unsigned notes; /* HP_NOTE_* */
};

/*
 * Fill OUT from IN. Returns 0, or -EINVAL when the size is unknown
 * (page_kb 0), the pool is empty, or the arithmetic overflows.
 */
int hugetlb_plan(const struct hp_plan_input *in, struct hp_plan *out);

/*
 * Whether P can be reserved at all, so that its commands are offered (text and JSON
 * alike): not when it does not fit (HP_RT_NOFIT), where a reservation would leave the
 * kernel less than HP_KERNEL_RESERVE_KB, or fall short; nor when the pool's counts are
 * unknown (a value written could shrink a pool that serves something else).
 */
bool hp_plan_reservable(const struct hp_plan *p);

#endif
