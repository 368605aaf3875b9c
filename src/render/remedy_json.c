// SPDX-License-Identifier: MIT
/* What to change for a flagged process (model/remedy.h) in JSON: advise's flagged[] and why's
 * what_to_change (the words come from render/remedy.c). */
#include "remedy.h"

#include "alloc.h"
#include "json.h"

/* Invented memory: what decided its mechanism, and the counters read. */
static json_t *origin_json(const struct remedy *r)
{
	bool c = r->origin_counted;
	return json_obj("evidence", json_str(remedy_origin_ev_name(r->origin_ev)), "counters",
			!c		   ? json_null()
			: r->origin_cgroup ? json_str("memory-cgroup")
					   : json_str("host"),
			"thp_fault_alloc", c ? json_u64(r->fault_alloc) : json_null(),
			"thp_collapse_alloc", c ? json_u64(r->collapse_alloc) : json_null(), NULL);
}

json_t *remedy_to_json(const struct remedy *r)
{
	char t[1024];
	json_t *o = json_object(), *fx = json_array();
	json_put(o, "pid", json_integer(r->p->pid));
	json_put(o, "comm", json_str(r->p->comm));
	json_put(o, "mechanism", json_str(remedy_mech_name(r->mech)));
	json_put(o, "cost", r->cost == LC_NONE ? json_null() : json_str(ledger_cost_name(r->cost)));
	/* a gain is no cost: its bytes under their own key */
	bool gain = r->mech == RM_WOULD_GAIN;
	json_put(o, "cost_kb", !gain && r->cost_kb >= 0 ? json_integer(r->cost_kb) : json_null());
	json_put(o, "gain_kb", gain && r->cost_kb >= 0 ? json_integer(r->cost_kb) : json_null());
	json_put(o, "mechanism_text", json_str(remedy_mech_words(r, t, sizeof(t))));
	json_put(o, "origin", r->cost == LC_INVENTED ? origin_json(r) : json_null());
	json_t *part = json_object();
	json_put(part, "name", json_str(remedy_part_name(r->part)));
	const struct alloc_fact *al = r->p->alloc_known ? &r->p->alloc : NULL;
	json_put(part, "version",
		 r->evidence == RE_ALLOC && al->version[0] ? json_str(al->version)
		 : r->part == RP_GO && r->p->gover[0]	   ? json_str(r->p->gover)
							   : json_null());
	static const char *const ev[] = {[RE_NONE] = NULL,
					 [RE_STACK_POINTERS] = "stack-pointers",
					 [RE_ENVIRON] = "environment",
					 [RE_CMDLINE] = "command-line",
					 [RE_GO_BUILDINFO] = "go-buildinfo",
					 [RE_COMM] = "name",
					 [RE_ALLOC] = NULL,
					 [RE_HG_VMAS] = "hg-vmas",
					 [RE_VMAS] = "vmas"};
	json_put(part, "evidence",
		 r->evidence == RE_ALLOC ? json_str(alloc_evidence_name(al->evidence))
		 : ev[r->evidence]	 ? json_str(ev[r->evidence])
					 : json_null());
	json_put(part, "threads_in_huge_vmas",
		 r->part == RP_THREAD_STACKS ? json_integer(r->p->stack_threads) : json_null());
	json_put(part, "text", json_str(remedy_part_words(r, t, sizeof(t))));
	json_put(o, "responsible", part);
	for (int i = 0; i < r->nfix; i++) {
		const struct remedy_fix *f = &r->fix[i];
		json_t *x = json_object();
		json_put(x, "rank", json_integer(i + 1));
		json_put(x, "fix", json_str(remedy_fix_name(f->id)));
		json_put(x, "scope",
			 json_str(f->scope == RS_PROCESS   ? "process"
				  : f->scope == RS_SERVICE ? "service"
							   : "host"));
		json_put(x, "saves_kb",
			 f->saves_kb >= 0 && r->mech != RM_WOULD_GAIN ? json_integer(f->saves_kb)
								      : json_null());
		json_put(x, "saves_upper_bound", json_boolean(f->upper_bound));
		char c[RUN_CMD_MAX];
		remedy_fix_command(r, i, c, sizeof(c));
		json_put(x, "command", c[0] ? json_str(c) : json_null());
		json_put(x, "run_argv",
			 f->id == RF_RUN_OFF ? run_argv_json(&r->p->restart) : json_null());
		json_put(x, "text", json_str(remedy_fix_words(r, i, t, sizeof(t))));
		if (f->scope == RS_HOST) {
			json_t *others = json_array();
			for (int k = 0; k < f->others && k < REMEDY_MAX_OTHERS; k++)
				json_array_append_new(others, json_integer(f->other_pid[k]));
			json_put(x, "other_processes",
				 f->others >= 0 ? json_integer(f->others) : json_null());
			json_put(x, "other_kb",
				 f->others >= 0 ? json_integer(f->others_kb) : json_null());
			json_put(x, "other_pids", others);
		}
		json_array_append_new(fx, x);
	}
	json_put(o, "fixes", fx);
	return o;
}
