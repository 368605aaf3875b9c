// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/model/hugetlb_plan.c, table-driven: pool size, page size,
 * memory and free blocks -> pages, fit, whether a runtime reservation can
 * succeed; and the sysctl / sysfs / command-line lines and notes that
 * src/render/hugetlb_plan.c writes from that plan.
 */
#include "unit.h"

#include "kernel/buddyinfo.h"
#include "model/hugetlb_plan.h"
#include "render/hugetlb_plan.h"
#include "render/json.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

struct plan_case {
	const char *name;
	uint64_t for_bytes;
	unsigned overhead;
	uint64_t page_kb;
	int node;	  /* -1 all */
	uint64_t mem_kb;  /* MemTotal; 0: unknown */
	uint64_t free_kb; /* MemFree */
	uint64_t nr;	  /* pages of that size reserved now */
	uint64_t blocks;  /* free blocks able to hold a page, on node 0 */
	int nnodes;	  /* 1 or 2 (node 1 has as much) */
	bool unsupported; /* no hugepages-<size>kB directory */
	/* expectations */
	uint64_t pages;
	int fits; /* 1 yes, 0 no, -1 unknown */
	enum hp_runtime runtime;
	const char *runtime_cmd;
	const char *persist;
	const char *cmdline;
	const char *note; /* a substring of a note, or NULL */
};

#define MEM24 24683652ull /* kB, the CI guest */

static const struct plan_case cases[] = {
	{"8G in 2M pages, blocks to spare", 8 * GiB, 0, 2048, -1, MEM24, 20 * GiB / 1024, 0, 8000,
	 1, false, 4096, 1, HP_RT_NOW, "sysctl -w vm.nr_hugepages=4096", "vm.nr_hugepages = 4096",
	 "hugepagesz=2M hugepages=4096", NULL},
	{"8G + 25% (shared_buffers and the rest)", 8 * GiB, 25, 2048, -1, MEM24, 20 * GiB / 1024, 0,
	 8000, 1, false, 5120, 1, HP_RT_NOW, "sysctl -w vm.nr_hugepages=5120",
	 "vm.nr_hugepages = 5120", "hugepagesz=2M hugepages=5120", NULL},
	{"a size that is not a whole page rounds up", 3 * MiB + 1, 0, 2048, -1, MEM24,
	 20 * GiB / 1024, 0, 8000, 1, false, 2, 1, HP_RT_NOW, "sysctl -w vm.nr_hugepages=2", NULL,
	 NULL, NULL},
	{"few free blocks, much free memory: compaction may do", 8 * GiB, 0, 2048, -1, MEM24,
	 22 * GiB / 1024, 0, 1578, 1, false, 4096, 1, HP_RT_COMPACT, NULL, NULL, NULL, NULL},
	{"few blocks, little free memory: boot", 8 * GiB, 0, 2048, -1, MEM24, 9 * GiB / 1024, 0, 10,
	 1, false, 4096, 1, HP_RT_BOOT, NULL, NULL, "hugepagesz=2M hugepages=4096", NULL},
	{"already reserved", 1 * GiB, 0, 2048, -1, MEM24, 20 * GiB / 1024, 512, 0, 1, false, 512, 1,
	 HP_RT_ALREADY, NULL, NULL, NULL, NULL},
	{"half reserved: only the rest counts", 2 * GiB, 0, 2048, -1, MEM24, 20 * GiB / 1024, 512,
	 600, 1, false, 1024, 1, HP_RT_NOW, "sysctl -w vm.nr_hugepages=1024", NULL, NULL,
	 "the pool has 512 pages now, all available"},
	{"does not fit with 1.5 GiB for the kernel", 23 * GiB, 0, 2048, -1, MEM24, 20 * GiB / 1024,
	 0, 99999, 1, false, 11776, 0, HP_RT_NOFIT, NULL, NULL, NULL, NULL},
	{"exactly the most that fits", (MEM24 - 1536 * 1024) / 2048 * 2 * MiB, 0, 2048, -1, MEM24,
	 20 * GiB / 1024, 0, 99999, 1, false, (MEM24 - 1536 * 1024) / 2048, 1, HP_RT_NOW, NULL,
	 NULL, NULL, NULL},
	{"1G pages: gigantic, boot", 10 * GiB, 0, 1048576, -1, MEM24, 20 * GiB / 1024, 0, 0, 1,
	 false, 10, 1, HP_RT_BOOT,
	 "echo 10 > /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages",
	 "w /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages - - - - 10",
	 "hugepagesz=1G hugepages=10", "not the default size"},
	{"a node of its own", 4 * GiB, 0, 2048, 1, 0, 20 * GiB / 1024, 0, 3000, 2, false, 2048, 1,
	 HP_RT_NOW,
	 "echo 2048 > /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages",
	 "w /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages - - - - 2048",
	 "hugepagesz=2M hugepages=1:2048", NULL},
	{"node too small", 14 * GiB, 0, 2048, 0, 0, 20 * GiB / 1024, 0, 99999, 2, false, 7168, 0,
	 HP_RT_NOFIT, NULL, NULL, NULL, NULL},
	{"a node that is not there", 1 * GiB, 0, 2048, 7, 0, 20 * GiB / 1024, 0, 99999, 2, false,
	 512, -1, HP_RT_UNKNOWN, NULL, NULL, "hugepagesz=2M hugepages=7:512",
	 "node 7 is not in this tree"},
	{"a size this kernel lacks (and above the largest buddy block)", 1 * GiB, 0, 32768, -1,
	 MEM24, 20 * GiB / 1024, 0, 100, 1, true, 32, 1, HP_RT_BOOT, NULL, NULL,
	 "hugepagesz=32M hugepages=32", "no 32M hugetlb pages"},
	{"MemTotal unknown", 1 * GiB, 0, 2048, -1, 0, 0, 0, 1000, 1, false, 512, -1, HP_RT_NOW,
	 NULL, NULL, NULL, NULL},
};

static void fill(const struct plan_case *c, struct hp_plan_input *in)
{
	memset(in, 0, sizeof(*in));
	in->for_bytes = c->for_bytes;
	in->overhead_pct = c->overhead;
	in->page_kb = c->page_kb;
	in->default_page_kb = 2048;
	in->base_page = 4096;
	in->node = c->node;
	in->has_mem_total = c->mem_kb != 0;
	in->mem_total_kb = c->mem_kb;
	in->has_mem_free = c->free_kb != 0;
	in->mem_free_kb = c->free_kb;
	in->size_supported = !c->unsupported;
	in->buddy_max_order = 10;
	in->nr = (struct opt_u64){.v = c->nr, .present = true};
	in->free = in->nr; /* all free, none promised to a mapping */
	in->resv = (struct opt_u64){.v = 0, .present = true};
	in->nnodes = c->nnodes;
	for (int i = 0; i < c->nnodes; i++) {
		struct hp_node *n = &in->nodes[i];
		n->node = i;
		n->has_buddy = true;
		n->free_blocks = i == 0 || c->node == 1 ? c->blocks : 0;
		n->nr = (struct opt_u64){.v = i == 0 ? c->nr : 0, .present = true};
		n->free = n->nr;
		if (c->nnodes > 1) {
			n->has_mem_total = true;
			n->mem_total_kb = MEM24 / 2;
		}
	}
}

static void test_plan_case(UNIT_STATE)
{
	const struct plan_case *c = *state;
	struct hp_plan_input in;
	struct hp_plan p;
	fill(c, &in);
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	bool ok = p.pages == c->pages && p.total_kb == c->pages * c->page_kb &&
		  p.runtime == c->runtime;
	if (c->fits >= 0)
		ok = ok && p.scope_mem_known && p.fits == (c->fits == 1);
	else
		ok = ok && !p.scope_mem_known;
	struct hp_lines l;
	char why[640], notes[HP_MAX_NOTES][HP_NOTE_LEN];
	hp_plan_lines(&in, &p, &l);
	hp_runtime_text(&in, &p, why, sizeof(why));
	int nn = hp_notes_text(&in, &p, notes);
	if (c->runtime_cmd)
		ok = ok && l.nruntime >= 1 && !strcmp(l.runtime_cmd[0], c->runtime_cmd);
	if (c->persist)
		ok = ok && !strcmp(l.persist, c->persist);
	if (c->cmdline)
		ok = ok && !strcmp(l.cmdline, c->cmdline);
	if (c->note) {
		bool hit = false;
		for (int i = 0; i < nn; i++)
			hit = hit || strstr(notes[i], c->note);
		ok = ok && hit;
	}
	ok = ok && why[0];
	if (!ok) {
		print_error("case '%s': pages %llu fits %d (known %d) runtime %s: %s\n", c->name,
			    (unsigned long long)p.pages, p.fits, p.scope_mem_known,
			    hp_runtime_name(p.runtime), why);
		print_error("  runtime: %s\n  persist: %s\n  cmdline: %s\n",
			    l.nruntime ? l.runtime_cmd[0] : "", l.persist, l.cmdline);
		for (int i = 0; i < nn; i++)
			print_error("  note: %s\n", notes[i]);
	}
	assert_true(ok);
}

/* The facts a plan records: which file reserves it, and what its notes must say. */
static void test_plan_target_and_notes(UNIT_STATE)
{
	static const struct {
		int i; /* into cases[] */
		enum hp_target target;
		unsigned notes;
	} want[] = {
		{0, HP_TARGET_DEFAULT, 0},
		{6, HP_TARGET_DEFAULT, HP_NOTE_POOL_SHARED},
		{9, HP_TARGET_SIZE, HP_NOTE_NOT_DEFAULT},
		{10, HP_TARGET_NODE, 0},
		{12, HP_TARGET_NODE, HP_NOTE_NO_NODE},
		{13, HP_TARGET_SIZE, HP_NOTE_UNSUPPORTED | HP_NOTE_NOT_DEFAULT},
	};
	for (size_t k = 0; k < UNIT_LEN(want); k++) {
		struct hp_plan_input in;
		struct hp_plan p;
		fill(&cases[want[k].i], &in);
		assert_int_equal(hugetlb_plan(&in, &p), 0);
		assert_int_equal(p.file, want[k].target);
		assert_int_equal(p.notes, want[k].notes);
	}
}

/* A tree that records no hugetlb pool (an sos report): the pool is unknown, never empty, so no
 * line sets nr_hugepages (it could shrink a pool the tree did not record); buddyinfo unread:
 * its free blocks unknown, never 0. */
static void test_plan_pools_unrecorded(UNIT_STATE)
{
	struct hp_plan_input in;
	struct hp_plan p;
	struct hp_lines l;
	char why[640];
	fill(&cases[13], &in);
	in.pools_unrecorded = true;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_false(p.have_known);
	assert_int_equal(p.runtime, HP_RT_UNKNOWN);
	assert_int_equal(p.unknown, HP_UNK_UNRECORDED);
	assert_int_equal(p.notes, HP_NOTE_UNRECORDED | HP_NOTE_NOT_DEFAULT);
	assert_false(hp_plan_reservable(&p));
	hp_plan_lines(&in, &p, &l);
	assert_int_equal(l.nruntime, 0);
	assert_null(l.persist_file);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_non_null(strstr(why, "this tree records no hugetlb pool"));
	assert_true(p.blocks_known);
	/* the same without buddyinfo */
	for (int i = 0; i < in.nnodes; i++)
		in.nodes[i].has_buddy = false;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_false(p.blocks_known);
	/* a live host (or a tree with pools) lacking the size: none there, the lines fail */
	fill(&cases[13], &in);
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_true(p.have_known);
	assert_int_equal(p.notes, HP_NOTE_UNSUPPORTED | HP_NOTE_NOT_DEFAULT);
}

/* The runtime verdict in words, from the plan's numbers. */
static void test_runtime_text(UNIT_STATE)
{
	struct hp_plan_input in;
	struct hp_plan p;
	char why[640];
	fill(&cases[0], &in);
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_string_equal(why, "now: 4096 more pages needed (the 2M pool is empty), 8000 free "
				 "blocks of order >= 9 (15.62 GiB) in /proc/buddyinfo");
	fill(&cases[5], &in);
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_string_equal(why, "nothing to do: the 2M pool has 512 pages, 512 free, 0 of them "
				 "promised to mappings not yet faulted in, which covers the 512 "
				 "needed");
	fill(&cases[4], &in);
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_string_equal(why, "reserve at boot: 4096 more pages needed (the 2M pool is empty), "
				 "only 10 free blocks of order >= 9 (20.0 MiB) and not enough free "
				 "memory to compact into");
	/* the same with a buddyinfo row dropped (cut short or repeated): what is left is a lower
	 * bound, so too few is unknown, never "reserve at boot" ... */
	fill(&cases[4], &in);
	in.nodes[0].buddy_partial = true;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_UNKNOWN);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_contains(why, "unknown: 4096 more pages needed (the 2M pool is empty), at least 10 "
			     "free blocks");
	/* ... and enough is enough */
	fill(&cases[0], &in);
	in.nodes[0].buddy_partial = true;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_NOW);
	fill(&cases[9], &in);
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_true(p.gigantic);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_contains(why,
			"a 1G page is larger than the buddy allocator's largest block (order 10)");
}

static void test_bad_input(UNIT_STATE)
{
	struct hp_plan_input in;
	struct hp_plan p;
	fill(&cases[0], &in);
	in.page_kb = 0;
	assert_int_equal(hugetlb_plan(&in, &p), -EINVAL);
	fill(&cases[0], &in);
	in.for_bytes = 0;
	assert_int_equal(hugetlb_plan(&in, &p), -EINVAL);
	fill(&cases[0], &in);
	in.for_bytes = UINT64_MAX - 10;
	in.overhead_pct = 25;
	assert_int_equal(hugetlb_plan(&in, &p), -EINVAL);
	fill(&cases[0], &in);
	in.for_bytes = UINT64_MAX;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_false(p.fits);
}

/*
 * A pool that does not fit gets no command, in JSON as in text (the user's 30G on a
 * 23.5 GiB host: the text said "reserve not at all", the JSON still carried
 * "sysctl -w vm.nr_hugepages=15360", its persist line and command line).
 */
static void test_no_fit_offers_no_command(UNIT_STATE)
{
	struct hp_plan_input in;
	struct hp_plan p;
	struct hp_lines l;
	fill(&cases[7], &in); /* does not fit with 1.5 GiB for the kernel */
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_NOFIT);
	assert_false(hp_plan_reservable(&p));
	hp_plan_lines(&in, &p, &l);
	assert_int_equal(l.nruntime, 0);
	assert_null(l.persist_file);
	assert_string_equal(l.persist, "");
	assert_string_equal(l.cmdline, "");
	json_t *j = hp_to_json(&in, &p);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "runtime_commands")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "cmdline_commands")), 0);
	assert_true(json_is_null(json_object_get(j, "persist_file")));
	assert_true(json_is_null(json_object_get(j, "persist_line")));
	assert_true(json_is_null(json_object_get(j, "cmdline")));
	assert_string_equal(json_string_value(json_object_get(j, "runtime")), "does-not-fit");
	json_decref(j);
	char out[2048] = "";
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	hp_render_text(f, &in, &p, false);
	fclose(f);
	assert_contains(out, "reserve  not at all");
	assert_null(strstr(out, "nr_hugepages"));
	assert_null(strstr(out, "Keep across reboots"));
	/* one that fits keeps its lines */
	fill(&cases[0], &in);
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_true(hp_plan_reservable(&p));
	j = hp_to_json(&in, &p);
	assert_int_equal(json_array_size(json_object_get(j, "runtime_commands")), 1);
	assert_string_equal(json_string_value(json_object_get(j, "persist_line")),
			    "vm.nr_hugepages = 4096");
	json_decref(j);
}

/*
 * A pool in use: what a new mapping can get is free_hugepages less resv_hugepages, not
 * nr_hugepages; the lines grow the pool by the shortfall and never lower it (a user's
 * tree, nr 300 free 10, --for 500M: "already there: 300 pages", sysctl -w
 * vm.nr_hugepages=250, which would have shrunk a pool serving something else).
 */
static void test_pool_in_use(UNIT_STATE)
{
	static const struct {
		uint64_t nr, free, resv;
		enum hp_runtime runtime;
		uint64_t need, target;
		const char *cmd; /* NULL: nothing to run now */
		const char *persist, *cmdline;
	} want[] = {
		/* 290 of 300 in use: 240 more (250 less the 10 free), the pool to 540 */
		{300, 10, 0, HP_RT_NOW, 240, 540, "sysctl -w vm.nr_hugepages=540",
		 "vm.nr_hugepages = 540", "hugepagesz=2M hugepages=540"},
		/* all 300 free: nothing to do, and the boot-time value keeps 300, not 250 */
		{300, 300, 0, HP_RT_ALREADY, 0, 300, NULL, "vm.nr_hugepages = 300",
		 "hugepagesz=2M hugepages=300"},
		/* 300 free but 200 promised to mappings not yet faulted in: 100 available */
		{300, 300, 200, HP_RT_NOW, 150, 450, "sysctl -w vm.nr_hugepages=450",
		 "vm.nr_hugepages = 450", "hugepagesz=2M hugepages=450"},
	};
	for (size_t k = 0; k < UNIT_LEN(want); k++) {
		struct hp_plan_input in;
		struct hp_plan p;
		struct hp_lines l;
		fill(&cases[0], &in);
		in.for_bytes = 500 * MiB;
		in.nr = (struct opt_u64){.v = want[k].nr, .present = true};
		in.free = (struct opt_u64){.v = want[k].free, .present = true};
		in.resv = (struct opt_u64){.v = want[k].resv, .present = true};
		assert_int_equal(hugetlb_plan(&in, &p), 0);
		assert_int_equal(p.pages, 250);
		assert_int_equal(p.runtime, want[k].runtime);
		assert_int_equal(p.need, want[k].need);
		assert_int_equal(p.target, want[k].target);
		assert_true(p.target >= want[k].nr);
		hp_plan_lines(&in, &p, &l);
		assert_int_equal(l.nruntime, want[k].cmd ? 1 : 0);
		if (want[k].cmd)
			assert_string_equal(l.runtime_cmd[0], want[k].cmd);
		assert_string_equal(l.persist, want[k].persist);
		assert_string_equal(l.cmdline, want[k].cmdline);
		assert_int_equal(!!(p.notes & HP_NOTE_POOL_SHARED), want[k].need != 0);
	}
	/* the text of the first: the shortfall, the pool as it is, nothing shrunk */
	struct hp_plan_input in;
	struct hp_plan p;
	fill(&cases[0], &in);
	in.for_bytes = 500 * MiB;
	in.nr = (struct opt_u64){.v = 300, .present = true};
	in.free = (struct opt_u64){.v = 10, .present = true};
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	char out[4096] = "";
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	hp_render_text(f, &in, &p, false);
	fclose(f);
	assert_contains(out, "reserve  now: 240 more pages needed (the 2M pool has 300 pages, 10 "
			     "free, 0 of them promised to mappings not yet faulted in)");
	assert_contains(out, "sysctl -w vm.nr_hugepages=540");
	assert_contains(out, "grow it by the 240 missing to 540, never lower");
	assert_contains(out, "the pool has 300 pages now, 290 of them in use or promised");
	assert_contains(out, "its 10 available pages are counted for this pool: if they are meant "
			     "for something else, add them (550)");
	assert_null(strstr(out, "=250"));
	/* a free count above nr_hugepages, or resv unreadable: unknown, and no line */
	in.free = (struct opt_u64){.v = 301, .present = true};
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_UNKNOWN);
	assert_false(hp_plan_reservable(&p));
	in.free = (struct opt_u64){.v = 10, .present = true};
	in.resv.present = false;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_UNKNOWN);
	assert_int_equal(p.unknown, HP_UNK_POOL);
}

/*
 * --node judges compaction by the node's own MemFree (nodeN/meminfo), never the host's:
 * node 1 with 512 MiB free of a host with 19 GiB free cannot assemble 8 GiB.
 */
static void test_node_memfree(UNIT_STATE)
{
	struct hp_plan_input in;
	struct hp_plan p;
	char why[640];
	fill(&cases[10], &in); /* node 1 of 2, 4G: 2048 pages */
	in.for_bytes = 8 * GiB;
	in.has_mem_free = true;
	in.mem_free_kb = 19 * GiB / 1024;
	in.nodes[1].free_blocks = 10;
	in.nodes[1].has_mem_free = true;
	in.nodes[1].mem_free_kb = 512 * 1024;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_BOOT);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_contains(why, "not enough free memory of the node to compact into");
	/* the node's MemFree unreadable: unknown, not the host's figure */
	in.nodes[1].has_mem_free = false;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_UNKNOWN);
	assert_int_equal(p.unknown, HP_UNK_MEMFREE);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_contains(why, "MemFree of the node is not readable");
	/* a node with room: compaction may, and the figure is the node's */
	in.nodes[1].has_mem_free = true;
	in.nodes[1].mem_free_kb = 11 * GiB / 1024;
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.runtime, HP_RT_COMPACT);
	hp_runtime_text(&in, &p, why, sizeof(why));
	assert_contains(why, "MemFree of the node is 11.00 GiB");
	/* resv is counted for all nodes only: taken from the node's free pages, and said */
	in.nodes[1].nr = (struct opt_u64){.v = 100, .present = true};
	in.nodes[1].free = (struct opt_u64){.v = 100, .present = true};
	in.resv = (struct opt_u64){.v = 40, .present = true};
	assert_int_equal(hugetlb_plan(&in, &p), 0);
	assert_int_equal(p.avail, 60);
	assert_int_equal(p.need, 4096 - 60);
	assert_int_equal(p.target, 100 + 4096 - 60);
	assert_true(p.notes & HP_NOTE_RESV_GLOBAL);
}

/*
 * nr_overcommit_hugepages: surplus pages the kernel may allocate on demand are a source of
 * the shortfall, named with the surplus now and their risk; never a reason to reserve less.
 */
static void test_overcommit(UNIT_STATE)
{
	(void)state;
	/* 1 GiB in 2M pages: 512; 100 free in the pool now, so 412 missing */
	const struct plan_case c = {.name = "overcommit",
				    .for_bytes = 1 * GiB,
				    .page_kb = 2048,
				    .node = -1,
				    .mem_kb = MEM24,
				    .free_kb = 20 * GiB / 1024,
				    .nr = 100,
				    .blocks = 8000,
				    .nnodes = 1};
	const struct {
		bool known;
		uint64_t over, surplus, room;
		const char *note; /* NULL: no overcommit note */
	} want[] = {
		{true, 1000, 40, 960,
		 "nr_overcommit_hugepages is 1000, 40 surplus pages allocated now "
		 "(counted in nr_hugepages): the kernel may allocate 960 more on "
		 "demand, which would cover all of the 412 missing, but they are "
		 "not reserved"},
		{true, 200, 0, 200, "which would cover part of the 412 missing"},
		{true, 50, 50, 0,
		 "no more can be allocated on demand, so it covers none of the 412 "
		 "missing"},
		{true, 0, 0, 0, NULL},
		{false, 0, 0, 0, NULL},
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		struct hp_plan_input in;
		struct hp_plan p;
		fill(&c, &in);
		in.overcommit = (struct opt_u64){.v = want[k].over, .present = want[k].known};
		in.surplus = (struct opt_u64){.v = want[k].surplus, .present = want[k].known};
		assert_int_equal(hugetlb_plan(&in, &p), 0);
		assert_int_equal(p.need, 412); /* the overcommit reserves nothing */
		assert_int_equal(p.target, 512);
		assert_int_equal(p.overcommit_known, want[k].known);
		assert_int_equal(p.overcommit_room, want[k].room);
		char notes[HP_MAX_NOTES][HP_NOTE_LEN];
		int nn = hp_notes_text(&in, &p, notes);
		const char *hit = NULL;
		for (int i = 0; i < nn; i++)
			if (strstr(notes[i], "nr_overcommit_hugepages"))
				hit = notes[i];
		if (want[k].note)
			assert_non_null(hit), assert_non_null(strstr(hit, want[k].note));
		else
			assert_null(hit);
		json_t *o = hp_to_json(&in, &p);
		assert_non_null(o);
		json_t *a = json_object_get(o, "overcommit_available");
		json_t *sp = json_object_get(o, "surplus_now");
		if (want[k].known) {
			assert_true(json_is_integer(a) && json_is_integer(sp));
			assert_int_equal(json_integer_value(a), (json_int_t)want[k].room);
			assert_int_equal(json_integer_value(sp), (json_int_t)want[k].surplus);
		} else {
			assert_true(json_is_null(a) && json_is_null(sp)); /* unknown, never 0 */
		}
		json_decref(o);
	}
}

UNIT_MAIN_CASES("test_hugetlb_plan", test_plan_case, cases, cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_no_fit_offers_no_command),
		cmocka_unit_test(test_plan_target_and_notes),
		cmocka_unit_test(test_plan_pools_unrecorded), cmocka_unit_test(test_runtime_text),
		cmocka_unit_test(test_pool_in_use), cmocka_unit_test(test_node_memfree),
		cmocka_unit_test(test_overcommit))
