// SPDX-License-Identifier: MIT
/*
 * `why`: nh VMAs. MADV_NOHUGEPAGE (nh) keeps a VMA from huge pages, but since
 * 6.7 the kernel also sets nh on every MAP_STACK mapping ("mm: mmap: map
 * MAP_STACK to VM_NOHUGEPAGE", c4608d1bf7c6): thread stacks and their guard
 * pages. Those are told apart by layout (smaps_stack_feed) and are not the
 * program's opt-out.
 */
#include "why.h"

void why_explain_nh(const struct why_vmas *v, long pid, struct why_report *out)
{
	int opted = v->nh - v->stack_nh;
	enum why_id id = opted > 0 ? WI_NH_OPTED : v->nh ? WI_NH_STACKS_ONLY : WI_NH_NONE;
	struct why_line *l = why_line_new(out, "nh", opted > 0 ? WE_HINDERS : WE_NEUTRAL, id,
					  KP_PROC_FILE, pid, "smaps");
	if (!l)
		return;
	l->ev.vmas = (struct why_ev_vmas){
		.count = opted > 0 ? opted : v->nh,
		.kb = opted > 0 ? v->nh_kb - v->stack_nh_kb : v->nh_kb,
		.largest = opted > 0 && v->largest_nh.present ? &v->largest_nh : NULL,
	};
}

void why_explain_thread_stacks(const struct why_vmas *v, long pid, struct why_report *out)
{
	if (!v->thread_stacks)
		return;
	struct why_line *l = why_line_new(out, "stack", WE_NEUTRAL, WI_THREAD_STACKS, KP_PROC_FILE,
					  pid, "smaps");
	if (l)
		l->ev.vmas = (struct why_ev_vmas){.count = v->thread_stacks, .kb = v->stack_nh_kb};
}
