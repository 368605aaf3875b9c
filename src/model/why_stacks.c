// SPDX-License-Identifier: MIT
/*
 * `why`: nh VMAs. MADV_NOHUGEPAGE (nh) keeps a VMA from huge pages, but since
 * 6.7 the kernel also sets nh on every MAP_STACK mapping ("mm: mmap: map
 * MAP_STACK to VM_NOHUGEPAGE", c4608d1bf7c6): thread stacks and their guard
 * pages. Those are told apart by layout (smaps_stack_feed) and are not the
 * program's opt-out.
 */
#include <stdio.h>

#include "../util/units.h"
#include "why.h"

void why_explain_nh(const struct why_vmas *v, const char *source, struct why_report *out)
{
	char a[32], b[32];
	int opted = v->nh - v->stack_nh;
	const struct why_vma_top *l = &v->largest_nh;
	struct why_line *line =
		why_line_new(out, "nh", opted > 0 ? WE_HINDERS : WE_NEUTRAL, source);
	if (!line)
		return;
	if (opted > 0) {
		fmt_kb(a, sizeof(a), v->nh_kb - v->stack_nh_kb);
		char largest[VMA_NAME_LEN + 64] = "";
		if (l->present)
			snprintf(largest, sizeof(largest), "; largest %s at %llx: %s", l->name,
				 (unsigned long long)l->start,
				 (fmt_kb(b, sizeof(b), l->size_kb), b));
		snprintf(
			line->text, sizeof(line->text),
			"%d VMA%s opted out with MADV_NOHUGEPAGE (nh), %s: never huge there, not even by MADV_COLLAPSE%s",
			opted, opted == 1 ? "" : "s", a, largest);
	} else if (v->nh) {
		snprintf(
			line->text, sizeof(line->text),
			"no VMA opted out with MADV_NOHUGEPAGE: its %d nh VMA%s are thread stacks and their guard pages (the kernel's nh)",
			v->nh, v->nh == 1 ? "" : "s");
	} else {
		snprintf(line->text, sizeof(line->text),
			 "no VMA opted out with MADV_NOHUGEPAGE (no nh)");
	}
}

void why_explain_thread_stacks(const struct why_vmas *v, const char *source, struct why_report *out)
{
	if (!v->thread_stacks)
		return;
	char a[32];
	fmt_kb(a, sizeof(a), v->stack_nh_kb);
	why_linef(
		out, "stack", WE_NEUTRAL, source,
		"%d thread stack%s (nh VMA%s with an nh guard page below, %s in all): nh set by the kernel for MAP_STACK (6.7+, c4608d1bf7c6), not an opt-out",
		v->thread_stacks, v->thread_stacks == 1 ? "" : "s",
		v->thread_stacks == 1 ? "" : "s", a);
}
