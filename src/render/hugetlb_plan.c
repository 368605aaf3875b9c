// SPDX-License-Identifier: MIT
#include "hugetlb_plan.h"

#include "../model/persist.h"

#include "json.h"
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
			fmt_kb(b, sizeof(b), p->left_kb);
			fprintf(f,
				"  fits     yes: MemTotal%s %s leaves %s to everything else (at least 1.5 GiB kept for the kernel)\n",
				of, a, b);
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
	fprintf(f, "  reserve  %s", rc);
	fputs_safe(p->runtime_why, f);
	fprintf(f, "%s\n", *rc ? col_reset(color) : "");
	if (p->runtime != HP_RT_NOFIT) {
		bool boot = p->runtime == HP_RT_BOOT;
		char routes[2][320];
		int nr = persist_cmdline_routes(in->boot, p->cmdline, routes);
		if (boot) {
			fprintf(f, "\nOn the kernel command line (needed here):\n");
			for (int i = 0; i < nr; i++)
				fprintf(f, "  %s%s\n", i ? "or: " : "", routes[i]);
		}
		fprintf(f, "\n%s:\n",
			boot ? "At runtime, as root (may fall short: read nr_hugepages back)"
			     : "Reserve now, as root");
		for (int i = 0; i < p->nruntime; i++)
			fprintf(f, "  %s\n", p->runtime_cmd[i]);
		fprintf(f, "Keep across reboots (%s):\n  %s\n", p->persist_file, p->persist);
		if (!boot) {
			fprintf(f,
				"Or on the kernel command line (most reliable: memory is not fragmented yet):\n");
			for (int i = 0; i < nr; i++)
				fprintf(f, "  %s%s\n", i ? "or: " : "", routes[i]);
		}
	}
	for (int i = 0; i < p->nnotes; i++)
		fprintf(f, "note: %s\n", p->notes[i]);
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
	json_put(o, "needed", p->have_known ? json_u64(p->need) : NULL);
	json_put(o, "free_blocks", json_u128(p->free_blocks));
	json_put(o, "gigantic", json_boolean(p->gigantic));
	json_put(o, "runtime", json_str(hp_runtime_name(p->runtime)));
	json_put(o, "runtime_reason", json_str(p->runtime_why));
	json_t *rt = json_array();
	for (int i = 0; i < p->nruntime; i++)
		json_array_append_new(rt, json_str(p->runtime_cmd[i]));
	json_put(o, "runtime_commands", rt);
	json_put(o, "persist_file", json_str(p->persist_file));
	json_put(o, "persist_line", json_str(p->persist));
	json_put(o, "cmdline", json_str(p->cmdline));
	char routes[2][320];
	int nr = persist_cmdline_routes(in->boot, p->cmdline, routes);
	json_t *how = json_array();
	for (int i = 0; i < nr; i++)
		json_array_append_new(how, json_str(routes[i]));
	json_put(o, "cmdline_commands", how);
	json_t *notes = json_array();
	for (int i = 0; i < p->nnotes; i++)
		json_array_append_new(notes, json_str(p->notes[i]));
	json_put(o, "notes", notes);
	json_t *un = json_array();
	for (int i = 0; i < in->nunread; i++)
		json_array_append_new(un, json_str(in->unread[i]));
	json_put(o, "partial", json_boolean(in->nunread > 0 || !p->have_known));
	json_put(o, "unread", un);
	return o;
}
