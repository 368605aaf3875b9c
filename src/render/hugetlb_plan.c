// SPDX-License-Identifier: MIT
#include "hugetlb_plan.h"

#include "persist.h"

#include <string.h>

#include "../util/wrap.h"
#include "json.h"
#include "skips.h"
#include "table.h"

/* An exact size as given: "8 GiB", "512 MiB", else the usual rounding. */
static void exact(char *out, size_t n, uint64_t b)
{
	if (b >= (1ull << 30) && b % (1ull << 30) == 0)
		snprintf(out, n, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
		snprintf(out, n, "%llu MiB", (unsigned long long)(b >> 20));
	else
		fmt_bytes(out, n, b);
}

typedef unsigned long long ull;

void hp_plan_lines(const struct hp_plan_input *in, const struct hp_plan *p, struct hp_lines *l)
{
	char sz[16], file[160];
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	/* the pool's size after it: what is there now plus the shortfall, never less */
	ull n = (ull)p->target, kb = (ull)in->page_kb;
	memset(l, 0, sizeof(*l));
	if (!hp_plan_reservable(p))
		return;		       /* no command for a pool that cannot be reserved */
	l->nruntime = p->need ? 1 : 0; /* the free pages cover it: nothing to run now */
	if (p->file == HP_TARGET_DEFAULT) {
		snprintf(l->runtime_cmd[0], sizeof(l->runtime_cmd[0]),
			 "sysctl -w vm.nr_hugepages=%llu", n);
		l->persist_file = "/etc/sysctl.d/80-thpctl-hugetlb.conf"; /* as persist names it */
		snprintf(l->persist, sizeof(l->persist), "vm.nr_hugepages = %llu", n);
		snprintf(l->cmdline, sizeof(l->cmdline), "hugepagesz=%s hugepages=%llu", sz, n);
		return;
	}
	/* vm.nr_hugepages only sets the default size's pool: the size's (or node's) file, under / */
	if (p->file == HP_TARGET_NODE)
		snprintf(file, sizeof(file),
			 "sys/devices/system/node/node%d/hugepages/hugepages-%llukB/nr_hugepages",
			 in->node, kb);
	else
		snprintf(file, sizeof(file),
			 "sys/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages", kb);
	snprintf(l->runtime_cmd[0], sizeof(l->runtime_cmd[0]), "echo %llu > /%s", n, file);
	l->persist_file = "/etc/tmpfiles.d/hugetlb.conf";
	snprintf(l->persist, sizeof(l->persist), "w /%s - - - - %llu", file, n);
	/* hugepages=NODE:COUNT: 5.16 (b5389086ad7b) */
	if (p->file == HP_TARGET_NODE)
		snprintf(l->cmdline, sizeof(l->cmdline), "hugepagesz=%s hugepages=%d:%llu", sz,
			 in->node, n);
	else
		snprintf(l->cmdline, sizeof(l->cmdline), "hugepagesz=%s hugepages=%llu", sz, n);
}

/* "N free block(s) of order >= O (SIZE)": what buddyinfo offers. */
static void blocks_text(const struct hp_plan_input *in, const struct hp_plan *p, char *out,
			size_t n)
{
	char a[64], nb[40];
	u128 kb; /* free blocks x page size: exact, "-" beyond 2^128 */
	if (__builtin_mul_overflow(p->free_blocks, (u128)in->page_kb, &kb))
		snprintf(a, sizeof(a), "-");
	else
		fmt_kb_wide(a, sizeof(a), kb);
	fmt_u128(nb, sizeof(nb), p->free_blocks);
	snprintf(out, n, "%s free block%s of order >= %d (%s)", nb, p->free_blocks == 1 ? "" : "s",
		 p->order, a);
}

/* "the 2M pool has 300 pages, 10 free, 0 of them promised to mappings": what it can give. */
static void pool_text(const struct hp_plan_input *in, const struct hp_plan *p, char *out, size_t n)
{
	char sz[16];
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	if (!p->have)
		snprintf(out, n, "the %s pool%s is empty", sz, in->node >= 0 ? " of the node" : "");
	else
		snprintf(out, n,
			 "the %s pool%s has %llu page%s, %llu free, %s%llu of them promised to "
			 "mappings not yet faulted in",
			 sz, in->node >= 0 ? " of the node" : "", (ull)p->have,
			 p->have == 1 ? "" : "s", (ull)p->free,
			 p->notes & HP_NOTE_RESV_GLOBAL ? "up to " : "", (ull)p->resv);
}

void hp_runtime_text(const struct hp_plan_input *in, const struct hp_plan *p, char *out, size_t n)
{
	char sz[16], blocks[160], b[32], pool[200];
	const char *of = in->node >= 0 ? " of the node" : "";
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	blocks_text(in, p, blocks, sizeof(blocks));
	pool_text(in, p, pool, sizeof(pool));
	switch (p->runtime) {
	case HP_RT_NOFIT:
		snprintf(out, n, "not at all: the pool does not leave the kernel 1.5 GiB");
		break;
	case HP_RT_ALREADY:
		snprintf(out, n, "nothing to do: %s, which covers the %llu needed", pool,
			 (ull)p->pages);
		break;
	case HP_RT_UNKNOWN:
		if (p->unknown == HP_UNK_UNRECORDED)
			snprintf(
				out, n,
				"unknown: this tree records no hugetlb pool (no sys/kernel/mm/hugepages), so whether its kernel has %s pages, and what the pool holds, is unknown",
				sz);
		else if (p->unknown == HP_UNK_POOL)
			snprintf(
				out, n,
				"unknown: nr_hugepages, free_hugepages or resv_hugepages of the %s pool%s could not be read (or free exceeds nr), so what it can give a new mapping is unknown",
				sz, in->node >= 0 ? " of this node" : "");
		else if (p->unknown == HP_UNK_MEMFREE)
			snprintf(
				out, n,
				"unknown: %llu more page%s needed (%s), only %s in /proc/buddyinfo, and MemFree%s is not readable, so whether compaction can assemble the rest is unknown",
				(ull)p->need, p->need == 1 ? "" : "s", pool, blocks, of);
		else if (p->unknown == HP_UNK_BUDDY_DAMAGED)
			snprintf(
				out, n,
				"unknown: %llu more page%s needed (%s), at least %s in /proc/buddyinfo, which has a damaged or repeated zone row left out: the free blocks there are unknown",
				(ull)p->need, p->need == 1 ? "" : "s", pool, blocks);
		else
			snprintf(out, n,
				 "unknown: no buddyinfo%s to count free blocks of the page's order",
				 in->node >= 0 ? " for this node" : "");
		break;
	case HP_RT_NOW:
		snprintf(out, n, "now: %llu more page%s needed (%s), %s in /proc/buddyinfo",
			 (ull)p->need, p->need == 1 ? "" : "s", pool, blocks);
		break;
	case HP_RT_COMPACT:
		fmt_kb(b, sizeof(b), p->scope_free_kb);
		snprintf(
			out, n,
			"maybe: %llu more page%s needed (%s) %s %s in /proc/buddyinfo%s; MemFree%s is %s, so compaction may assemble the rest (the kernel compacts while reserving; echo 1 > /proc/sys/vm/compact_memory first helps); read nr_hugepages back, and reserve at boot if it falls short",
			(ull)p->need, p->need == 1 ? "" : "s", pool,
			p->blocks_at_least ? "with at least" : "but only", blocks,
			p->blocks_at_least ? " (a damaged or repeated zone row left out)" : "", of,
			b);
		break;
	case HP_RT_BOOT:
		if (p->gigantic)
			snprintf(
				out, n,
				"reserve at boot: a %s page is larger than the buddy allocator's largest block (order %d), so a runtime reservation must find %s of free, movable, contiguous memory per page, which rarely exists once the host has run a while",
				sz, in->buddy_max_order, sz);
		else
			snprintf(
				out, n,
				"reserve at boot: %llu more page%s needed (%s), only %s and not enough free memory%s to compact into",
				(ull)p->need, p->need == 1 ? "" : "s", pool, blocks, of);
		break;
	}
}

/* HP_NOTE_OVERCOMMIT: what the overcommit may give on demand, and at what risk. */
static void overcommit_text(const struct hp_plan *p, char *out, size_t n)
{
	int w = snprintf(out, n,
			 "nr_overcommit_hugepages is %llu, %llu surplus page%s allocated now "
			 "(counted in nr_hugepages)",
			 (ull)p->overcommit, (ull)p->surplus, p->surplus == 1 ? "" : "s");
	if (w < 0 || (size_t)w >= n)
		return;
	out += w, n -= (size_t)w;
	if (!p->need)
		snprintf(out, n, ": the kernel allocates them on demand and frees them after");
	else if (!p->overcommit_room)
		snprintf(out, n,
			 ": no more can be allocated on demand, so it covers none of the "
			 "%llu missing",
			 (ull)p->need);
	else
		snprintf(
			out, n,
			": the kernel may allocate %llu more on demand, which would cover %s the %llu missing, but they are not reserved: they are allocated when a mapping needs them and fail when memory is fragmented (mmap fails, or SIGBUS at fault time with MAP_NORESERVE); reserving the pool is what makes them sure",
			(ull)p->overcommit_room,
			p->overcommit_room >= p->need ? "all of" : "part of", (ull)p->need);
}

int hp_notes_text(const struct hp_plan_input *in, const struct hp_plan *p,
		  char out[HP_MAX_NOTES][HP_NOTE_LEN])
{
	char sz[16];
	int k = 0;
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	if (p->notes & HP_NOTE_UNSUPPORTED)
		snprintf(
			out[k++], sizeof(out[0]),
			"this kernel has no %s hugetlb pages (no hugepages-%llukB directory): the lines that reserve them will fail here",
			sz, (ull)in->page_kb);
	if (p->notes & HP_NOTE_HAVE_UNKNOWN)
		snprintf(
			out[k++], sizeof(out[0]),
			"nr_hugepages of the %s pool could not be read (damaged or unreadable): reserved_now and needed are unknown",
			sz);
	if (p->notes & HP_NOTE_POOL_SHARED) {
		char more[160] = "";
		if (p->avail && p->target <= UINT64_MAX - p->avail)
			snprintf(
				more, sizeof(more),
				"; its %llu available pages are counted for this pool: if they are "
				"meant for something else, add them (%llu)",
				(ull)p->avail, (ull)p->target + p->avail);
		char used[120] = ", all available";
		if (p->have > p->avail)
			snprintf(
				used, sizeof(used),
				", %llu of them in use or promised to something thpctl cannot name",
				(ull)(p->have - p->avail));
		snprintf(
			out[k++], sizeof(out[0]),
			"the pool has %llu pages now%s: the lines grow it by the %llu missing to %llu, never lower, and the boot-time value %llu keeps what it serves now and this pool%s",
			(ull)p->have, used, (ull)p->need, (ull)p->target, (ull)p->target, more);
	}
	if (p->notes & HP_NOTE_NOT_DEFAULT)
		snprintf(
			out[k++], sizeof(out[0]),
			"not the default size (Hugepagesize %llu kB): programs must ask for %s pages (MAP_HUGE_%s, hugetlbfs pagesize=%s, PostgreSQL huge_page_size = %s), or boot with default_hugepagesz=%s",
			(ull)in->default_page_kb, sz, sz, sz, sz, sz);
	if (p->notes & HP_NOTE_RESV_GLOBAL)
		snprintf(
			out[k++], sizeof(out[0]),
			"resv_hugepages (%llu) is counted for all nodes only: taken here from node %d's free pages, so the shortfall may be smaller",
			(ull)p->resv, in->node);
	if (p->notes & HP_NOTE_NO_NODE)
		snprintf(out[k++], sizeof(out[0]),
			 "node %d is not in this tree (sys/devices/system/node)", in->node);
	if (p->notes & HP_NOTE_OVERCOMMIT)
		overcommit_text(p, out[k++], sizeof(out[0]));
	return k;
}

/*
 * The line that keeps the pool, to add to its file: as it is when it fits the width (a
 * line of a file is never broken), else as the command that appends it to the file, which
 * wrap_put_command() may break between its words (a tmpfiles.d 'w' line on a node's pool
 * is 85 columns; its words have no character the shell would expand).
 */
static void put_persist(FILE *f, const struct hp_lines *l)
{
	size_t w = wrap_stdout_width();
	if (!w || wrap_display_width(l->persist, strlen(l->persist)) + 2 <= w) {
		wrap_put_verbatim(f, 2, l->persist);
		return;
	}
	char cmd[sizeof(l->persist) + 200];
	snprintf(cmd, sizeof(cmd), "echo %s >> %s", l->persist, l->persist_file);
	wrap_put_command(f, 2, cmd);
}

void hp_render_text(FILE *f, const struct hp_plan_input *in, const struct hp_plan *p, bool color)
{
	char a[32], b[32], c[32], sz[16];
	fmt_size_token(sz, sizeof(sz), in->page_kb);
	exact(a, sizeof(a), in->for_bytes);
	exact(b, sizeof(b), p->pool_bytes);
	fprintf(f, "%shugetlb plan%s: %s", col_bold(color), col_reset(color), a);
	if (in->overhead_pct)
		fprintf(f, " + %u%% = %s", in->overhead_pct, b);
	fprintf(f, " in %s pages", sz);
	if (in->node >= 0)
		fprintf(f, " on node %d", in->node);
	fputc('\n', f);
	for (int i = 0; i < in->nunread; i++) {
		fprintf(f, "  %spartial: could not read ", col_yellow(color));
		fputs_safe(in->unread[i], f);
		fprintf(f, "%s\n", col_reset(color));
	}
	skips_note(f, "  ", NULL, &in->skips);
	/* pages * page size is at most the pool plus a page: above 2^64 bytes, in kB exactly */
	if (p->total_kb <= UINT64_MAX / 1024)
		exact(c, sizeof(c), p->total_kb * 1024);
	else
		fmt_kb_wide(c, sizeof(c), p->total_kb);
	fprintf(f, "  pages    %llu x %s = %s\n", (unsigned long long)p->pages, sz, c);
	const char *of = in->node >= 0 ? " of the node" : "";
	if (p->scope_mem_known) {
		fmt_kb(a, sizeof(a), p->scope_mem_kb);
		if (p->fits) {
			char grown[64] = "";
			if (p->have_known && p->target != p->pages)
				snprintf(grown, sizeof(grown), " with the pool at %llu pages",
					 (unsigned long long)p->target);
			fmt_kb(b, sizeof(b), p->left_kb);
			fprintf(f,
				"  fits     yes: MemTotal%s %s%s leaves %s to everything else (at least 1.5 GiB kept for the kernel)\n",
				of, a, grown, b);
		} else {
			fprintf(f,
				"  %sfits     no: MemTotal%s %s less 1.5 GiB for the kernel holds at most %llu pages of %s%s\n",
				col_red(color), of, a, (unsigned long long)p->max_pages, sz,
				col_reset(color));
		}
	} else {
		fprintf(f, "  fits     unknown: MemTotal%s not readable\n", of);
	}
	const char *rc = p->runtime == HP_RT_NOW || p->runtime == HP_RT_ALREADY ? ""
			 : p->runtime == HP_RT_COMPACT				? col_yellow(color)
										: col_red(color);
	char why[640];
	hp_runtime_text(in, p, why, sizeof(why));
	fprintf(f, "  reserve  %s", rc);
	fputs_safe(why, f);
	fprintf(f, "%s\n", *rc ? col_reset(color) : "");
	struct hp_lines l;
	hp_plan_lines(in, p, &l);
	if (l.persist_file) {
		bool boot = p->runtime == HP_RT_BOOT;
		char routes[2][320];
		int nr = persist_cmdline_routes(in->boot, l.cmdline, routes);
		if (boot) {
			fprintf(f, "\nOn the kernel command line (needed here):\n");
			for (int i = 0; i < nr; i++)
				fprintf(f, "  %s%s\n", i ? "or: " : "", routes[i]);
		}
		if (l.nruntime)
			fprintf(f, "\n%s:\n",
				boot ? "At runtime, as root (may fall short: read nr_hugepages back)"
				     : "Reserve now, as root");
		else
			fprintf(f,
				"\nReserve now: nothing to do (the pool's free pages cover it).\n");
		for (int i = 0; i < l.nruntime; i++)
			wrap_put_command(f, 2, l.runtime_cmd[i]); /* "echo N > PATH": whole */
		fprintf(f, "Keep across reboots (%s):\n", l.persist_file);
		put_persist(f, &l);
		if (!boot) {
			fprintf(f,
				"Or on the kernel command line (most reliable: memory is not fragmented yet):\n");
			for (int i = 0; i < nr; i++)
				fprintf(f, "  %s%s\n", i ? "or: " : "", routes[i]);
		}
	}
	char notes[HP_MAX_NOTES][HP_NOTE_LEN];
	int nn = hp_notes_text(in, p, notes);
	for (int i = 0; i < nn; i++)
		fprintf(f, "note: %s\n", notes[i]);
}

json_t *hp_to_json(const struct hp_plan_input *in, const struct hp_plan *p)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_put(o, "for_bytes", json_u64(in->for_bytes));
	json_put(o, "overhead_pct", json_integer(in->overhead_pct));
	json_put(o, "pool_bytes", json_u64(p->pool_bytes));
	json_put(o, "page_size_kb", json_u64(in->page_kb));
	json_put(o, "default_page_size_kb",
		 in->default_page_kb ? json_u64(in->default_page_kb) : json_null());
	json_put(o, "size_supported", json_boolean(in->size_supported));
	json_put(o, "node", in->node >= 0 ? json_integer(in->node) : json_null());
	json_put(o, "pages", json_u64(p->pages));
	json_put(o, "total_kb", json_u64(p->total_kb));
	json_put(o, "order", p->order >= 0 ? json_integer(p->order) : json_null());
	json_put(o, "mem_total_kb", p->scope_mem_known ? json_u64(p->scope_mem_kb) : json_null());
	json_put(o, "kernel_reserve_kb", json_u64(HP_KERNEL_RESERVE_KB));
	json_put(o, "fits", p->scope_mem_known ? json_boolean(p->fits) : json_null());
	json_put(o, "left_kb", p->scope_mem_known && p->fits ? json_u64(p->left_kb) : json_null());
	json_put(o, "max_pages", p->scope_mem_known ? json_u64(p->max_pages) : json_null());
	json_put(o, "reserved_now", p->have_known ? json_u64(p->have) : NULL);
	json_put(o, "free_now", p->have_known ? json_u64(p->free) : NULL);
	json_put(o, "resv_now", p->have_known ? json_u64(p->resv) : NULL);
	json_put(o, "available_now", p->have_known ? json_u64(p->avail) : NULL);
	json_put(o, "needed", p->have_known ? json_u64(p->need) : NULL);
	json_put(o, "overcommit_now", p->overcommit_known ? json_u64(p->overcommit) : NULL);
	json_put(o, "surplus_now", p->overcommit_known ? json_u64(p->surplus) : NULL);
	json_put(o, "overcommit_available",
		 p->overcommit_known ? json_u64(p->overcommit_room) : NULL);
	json_put(o, "target_pages", p->have_known ? json_u64(p->target) : NULL);
	json_put(o, "free_blocks", p->blocks_known ? json_u128(p->free_blocks) : NULL);
	json_put(o, "gigantic", json_boolean(p->gigantic));
	json_put(o, "runtime", json_str(hp_runtime_name(p->runtime)));
	char why[640];
	hp_runtime_text(in, p, why, sizeof(why));
	json_put(o, "runtime_reason", json_str(why));
	struct hp_lines l;
	hp_plan_lines(in, p, &l);
	json_t *rt = json_array();
	for (int i = 0; i < l.nruntime; i++)
		json_array_append_new(rt, json_str(l.runtime_cmd[i]));
	json_put(o, "runtime_commands", rt);
	json_put(o, "persist_file", l.persist_file ? json_str(l.persist_file) : NULL);
	json_put(o, "persist_line", l.persist[0] ? json_str(l.persist) : NULL);
	json_put(o, "cmdline", l.cmdline[0] ? json_str(l.cmdline) : NULL);
	char routes[2][320];
	int nr = l.cmdline[0] ? persist_cmdline_routes(in->boot, l.cmdline, routes) : 0;
	json_t *how = json_array();
	for (int i = 0; i < nr; i++)
		json_array_append_new(how, json_str(routes[i]));
	json_put(o, "cmdline_commands", how);
	char nt[HP_MAX_NOTES][HP_NOTE_LEN];
	int nn = hp_notes_text(in, p, nt);
	json_t *notes = json_array();
	for (int i = 0; i < nn; i++)
		json_array_append_new(notes, json_str(nt[i]));
	json_put(o, "notes", notes);
	json_t *un = json_array();
	for (int i = 0; i < in->nunread; i++)
		json_array_append_new(un, json_str(in->unread[i]));
	skips_json_missing(un, &in->skips);
	json_put(o, "partial",
		 json_boolean(in->nunread > 0 || !p->have_known || bundle_skips_any(&in->skips)));
	json_put(o, "unread", un);
	return o;
}
