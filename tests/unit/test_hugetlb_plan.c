// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/model/hugetlb_plan.c, table-driven: pool size, page size,
 * memory and free blocks -> pages, fit, whether a runtime reservation can
 * succeed, and the sysctl / sysfs / command-line lines.
 */
#include "unit.h"

#include "kernel/buddyinfo.h"
#include "model/hugetlb_plan.h"

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
	 600, 1, false, 1024, 1, HP_RT_NOW, NULL, NULL, NULL, "512 pages now"},
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
	in->nnodes = c->nnodes;
	for (int i = 0; i < c->nnodes; i++) {
		struct hp_node *n = &in->nodes[i];
		n->node = i;
		n->has_buddy = true;
		n->free_blocks = i == 0 || c->node == 1 ? c->blocks : 0;
		n->nr = (struct opt_u64){.v = i == 0 ? c->nr : 0, .present = true};
		if (c->nnodes > 1) {
			n->has_mem_total = true;
			n->mem_total_kb = MEM24 / 2;
		}
	}
}

static void test_plan_case(void **state)
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
	if (c->runtime_cmd)
		ok = ok && p.nruntime >= 1 && !strcmp(p.runtime_cmd[0], c->runtime_cmd);
	if (c->persist)
		ok = ok && !strcmp(p.persist, c->persist);
	if (c->cmdline)
		ok = ok && !strcmp(p.cmdline, c->cmdline);
	if (c->note) {
		bool hit = false;
		for (int i = 0; i < p.nnotes; i++)
			hit = hit || strstr(p.notes[i], c->note);
		ok = ok && hit;
	}
	ok = ok && p.runtime_why[0];
	if (!ok) {
		print_error("case '%s': pages %llu fits %d (known %d) runtime %s: %s\n", c->name,
			    (unsigned long long)p.pages, p.fits, p.scope_mem_known,
			    hp_runtime_name(p.runtime), p.runtime_why);
		print_error("  runtime: %s\n  persist: %s\n  cmdline: %s\n",
			    p.nruntime ? p.runtime_cmd[0] : "", p.persist, p.cmdline);
		for (int i = 0; i < p.nnotes; i++)
			print_error("  note: %s\n", p.notes[i]);
	}
	assert_true(ok);
}

static void test_bad_input(void **state)
{
	(void)state;
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

static void test_free_blocks(void **state)
{
	(void)state;
	static const char text[] =
		"Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
		"Node 0, zone    DMA32      1      3      0      2      3      2      1      4      4      2    752 \n"
		"Node 0, zone   Normal      1      0      1      5      4      3      2      2      3      2     35 \n"
		"Node 1, zone   Normal      0      0      0      0      0      0      0      0      0      4      1 \n";
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(LIT(text), &bi), 0);
	bool found;
	/* order 9 (2M): DMA left out; order-10 blocks hold two each */
	assert_int_equal(hp_free_blocks(&bi, 0, 9, &found), 2 + 752 * 2 + 2 + 35 * 2);
	assert_true(found);
	assert_int_equal(hp_free_blocks(&bi, 1, 9, &found), 4 + 2);
	assert_int_equal(hp_free_blocks(&bi, -1, 10, &found), 752 + 35 + 1);
	assert_int_equal(hp_free_blocks(&bi, 2, 9, &found), 0);
	assert_false(found);
	/* above the largest order: nothing */
	assert_int_equal(hp_free_blocks(&bi, 0, 18, &found), 0);
	assert_true(found);

	uint64_t kb;
	static const char nm[] =
		"Node 1 MemFree:         1000 kB\nNode 1 MemTotal:       12341826 kB\n";
	assert_int_equal(hp_node_meminfo_total(LIT(nm), &kb), 0);
	assert_int_equal(kb, 12341826);
	assert_int_equal(hp_node_meminfo_total(LIT("MemTotal: 5 kB\n"), &kb), -ENOENT);
	/* MemTotal twice: damage, neither copy */
	assert_int_equal(
		hp_node_meminfo_total(LIT("Node 1 MemTotal: 5 kB\nNode 1 MemTotal: 5 kB\n"), &kb),
		-EINVAL);
}

UNIT_MAIN_CASES("test_hugetlb_plan", test_plan_case, cases, cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_free_blocks))
