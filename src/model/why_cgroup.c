// SPDX-License-Identifier: MIT
/*
 * `why`: the memory cgroup. Its effective limit and, beside it, its headroom (limit
 * - usage, the smallest on the path): a THP fault or a khugepaged collapse needs one
 * PMD of charge, so a cgroup with less than that left refuses both (the fault falls
 * back to small pages, thp_fault_fallback_charge; the collapse allocates and fails
 * the charge). A limit file that was not read leaves the limit unknown, never "none".
 */
#include <string.h>

#include "why.h"

void why_cg_room_of(const struct why_input *in, struct why_cg_room *out)
{
	memset(out, 0, sizeof(*out));
	const struct cg_limit *l = &in->lim;
	out->pmd_bytes = in->h->feat.pmd_size ? in->h->feat.pmd_size : 2ull << 20;
	out->path = l->path;
	if (in->cgroup_err || in->limit_err || !l->version || !l->limited || l->limit_unknown ||
	    !l->has_headroom)
		return;
	out->known = true;
	out->headroom = l->headroom_bytes;
	out->usage = l->usage_bytes;
	out->limit = l->usage_limit_bytes;
	const char *ls = strrchr(l->limit_file, '/'), *us = strrchr(l->usage_file, '/');
	size_t ld = ls ? (size_t)(ls - l->limit_file) : 0,
	       ud = us ? (size_t)(us - l->usage_file) : 0;
	if (ld != ud || strncmp(l->limit_file, l->usage_file, ld))
		out->other_usage_file = l->usage_file;
	out->starved = out->headroom < out->pmd_bytes;
	/* over 90%: usage > limit * 0.9, in 128-bit-free form */
	out->tight = out->starved || (out->limit && out->usage / 9 > out->limit / 10);
}

void why_creep_cg(struct why_input *in)
{
	struct why_cg_room room;
	why_cg_room_of(in, &room);
	const struct cg_limit *l = &in->lim;
	enum ledger_cg cg = LCG_UNKNOWN;
	if (room.known)
		cg = LCG_LIMITED;
	else if (!in->cgroup_err && !in->limit_err && !l->limit_unknown &&
		 (!l->version || !l->limited))
		cg = LCG_NO_LIMIT;
	ledger_creep_cg(&in->led, cg, room.headroom, room.starved);
}

void why_explain_cgroup(const struct why_input *in, struct why_report *r)
{
	struct why_ev_cg e = {.recorded = in->recorded, .lim = &in->lim};
	const struct kvlist *vm = &in->h->vmstat;
	e.has_fallback = kv_get(vm, "thp_fault_fallback_charge", &e.fallback);
	e.has_collapse_failed = kv_get(vm, "thp_collapse_alloc_failed", &e.collapse_failed);
	why_cg_room_of(in, &e.room);
	const struct cg_limit *l = &in->lim;
	enum why_effect eff = WE_NEUTRAL;
	enum why_id id;
	enum kpath f = KP_PROC_FILE;
	long long arg = in->pid;
	const char *name = "cgroup";
	if (in->cgroup_err) {
		e.err = in->cgroup_err;
		eff = WE_UNKNOWN, id = WI_CG_UNREAD;
	} else if (in->limit_err) {
		e.err = in->limit_err;
		eff = WE_UNKNOWN, id = WI_CG_LIMIT_UNREAD;
	} else if (l->version == 0) {
		id = WI_CG_NONE;
	} else if (l->limit_unknown) {
		e.err = l->unknown_err;
		eff = WE_UNKNOWN, id = WI_CG_LIMIT_PARTIAL;
		f = KP_TREE, arg = 0, name = l->unknown_file;
	} else if (!l->limited) {
		id = WI_CG_UNLIMITED;
	} else {
		id = e.room.tight ? WI_CG_TIGHT : WI_CG_LIMITED;
		eff = e.room.tight ? WE_HINDERS : WE_NEUTRAL;
		f = KP_TREE, arg = 0;
		name = e.room.tight && l->usage_file[0] ? l->usage_file : l->limit_file;
	}
	struct why_line *line = why_line_new(r, "cgroup", eff, id, f, arg, name);
	if (line)
		line->ev.cg = e;
}
