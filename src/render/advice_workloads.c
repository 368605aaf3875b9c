// SPDX-License-Identifier: MIT
/* `thpctl advise`'s Workloads: the line of each workload and its JSON, versions per process. */
#include "advice_workloads.h"

#include "json.h"
#include "table.h"

/* ", versions differ: PID 10 7.0 (its path ...), PID 11 unknown" for workload W's processes. */
static void versions_by_process(FILE *f, const struct adv_input *in, enum workload w)
{
	fputs(", versions differ:", f);
	for (int i = 0, k = 0; i < in->nprocs; i++) {
		const struct adv_proc *p = &in->procs[i];
		if (p->wl != w)
			continue;
		char v[32];
		adv_proc_version(p, v, sizeof(v));
		fprintf(f, "%s PID %ld ", k++ ? "," : "", p->pid);
		if (!v[0]) {
			fputs("unknown", f);
			continue;
		}
		fputs_safe(v, f);
		fputs(" (", f);
		fputs_safe(p->ver_src, f);
		fputc(')', f);
	}
}

void advice_workloads_text(FILE *f, const struct adv_input *in, const struct advice *a, bool color)
{
	fprintf(f, "\n%sWorkloads%s%s\n", col_bold(color), col_reset(color),
		a->mixed ? " (a mixed host)" : "");
	int shown = 0;
	for (int w = 0; w < WL_N; w++) {
		const struct adv_workload *x = &a->wl[w];
		if (!x->active)
			continue;
		shown++;
		fprintf(f, "  %-17s", workload_name((enum workload)w));
		if (x->detected && x->npids) {
			fprintf(f, " detected: PID");
			for (int i = 0; i < x->npids; i++)
				fprintf(f, "%s%ld", i ? "," : " ", x->pids[i]);
			for (int i = 0; i < in->nprocs; i++)
				if (in->procs[i].wl == (enum workload)w) {
					fprintf(f, " (");
					fputs_safe(in->procs[i].comm, f);
					fprintf(f, ")");
					break;
				}
		} else if (x->detected) {
			fprintf(f, " detected: %d memory-limited cgroups", in->limited_cgroups);
		}
		if (x->requested)
			fprintf(f, "%s--workload", x->detected ? ", " : " ");
		if (x->version[0]) {
			fputs(", version ", f);
			fputs_safe(x->version, f); /* read from the program's file */
			fputs(" (", f);
			fputs_safe(x->version_src, f);
			fputc(')', f);
		} else if (x->versions_differ) {
			versions_by_process(f, in, (enum workload)w);
		}
		fputc('\n', f);
	}
	if (!shown)
		fprintf(f, "  none detected or asked for\n");
}

/* Each process of workload W: {pid, version (null unknown), source}. */
static json_t *versions_json(const struct adv_input *in, enum workload w)
{
	json_t *arr = json_array();
	for (int i = 0; i < in->nprocs; i++) {
		const struct adv_proc *p = &in->procs[i];
		if (p->wl != w)
			continue;
		char v[32];
		adv_proc_version(p, v, sizeof(v));
		json_t *o = json_object();
		json_put(o, "pid", json_integer(p->pid));
		json_put(o, "version", v[0] ? json_str(v) : json_null());
		json_put(o, "source", v[0] ? json_str(p->ver_src) : json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *advice_workloads_json(const struct adv_input *in, const struct advice *a)
{
	json_t *wls = json_array();
	for (int w = 0; w < WL_N; w++) {
		const struct adv_workload *x = &a->wl[w];
		if (!x->active)
			continue;
		json_t *o = json_object();
		json_put(o, "name", json_str(workload_name((enum workload)w)));
		json_put(o, "detected", json_boolean(x->detected));
		json_put(o, "requested", json_boolean(x->requested));
		json_t *pids = json_array();
		for (int i = 0; i < x->npids; i++)
			json_array_append_new(pids, json_integer(x->pids[i]));
		json_put(o, "pids", pids);
		json_put(o, "version", x->version[0] ? json_str(x->version) : json_null());
		json_put(o, "version_source",
			 x->version[0] ? json_str(x->version_src) : json_null());
		json_put(o, "versions_differ", json_boolean(x->versions_differ));
		json_put(o, "versions", versions_json(in, (enum workload)w));
		json_array_append_new(wls, o);
	}
	return wls;
}
