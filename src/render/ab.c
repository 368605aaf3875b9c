// SPDX-License-Identifier: MIT
#include "ab.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "../util/buf.h"
#include "../util/units.h"
#include "../util/wrap.h"
#include "json.h"
#include "table.h"

/* LINE (a format) on F, wrapped at 80 columns under its own indent + 4. */
__attribute__((format(printf, 2, 3))) static void put_wrapped(FILE *f, const char *fmt, ...)
{
	struct buf line = {0}, out = {0};
	va_list ap;
	va_start(ap, fmt);
	int r = buf_vaddf(&line, fmt, ap);
	va_end(ap);
	if (!r && line.len && !wrap_line(&out, line.p, line.len, 80))
		fprintf(f, "%s\n", out.p);
	else if (!r && line.len)
		fprintf(f, "%.*s\n", (int)line.len, line.p);
	buf_free(&line);
	buf_free(&out);
}

void ab_render_host_notice(FILE *f, const struct ab_mode *modes, struct settings_plan *const *plans,
			   int n, const char *thp_dir, const char *journal)
{
	bool any = false;
	for (int i = 0; i < n; i++)
		any |= plans[i] != NULL;
	if (!any)
		return;
	put_wrapped(f,
		    "thpctl: ab: its host: modes change host-wide THP settings (%s), which "
		    "apply to every process on this host while a run of the mode lasts:",
		    thp_dir);
	for (int i = 0; i < n; i++) {
		if (!plans[i])
			continue;
		char name[AB_NAME_LEN * 4], key[KNOB_KEY_LEN * 4], old[PLAN_VALUE_LEN * 4],
			new[PLAN_VALUE_LEN * 4];
		put_wrapped(f, "  %s:", esc_buf(name, sizeof(name), modes[i].name));
		for (int k = 0; k < plans[i]->n; k++) {
			const struct plan_entry *e = &plans[i]->e[k];
			esc_buf(key, sizeof(key), e->key);
			esc_buf(old, sizeof(old), e->old);
			esc_buf(new, sizeof(new), e->new);
			if (e->state == PS_UNCHANGED)
				put_wrapped(f, "    %s: %s (unchanged)", key, old);
			else
				put_wrapped(f, "    %s: %s -> %s", key, old, new);
		}
	}
	put_wrapped(f,
		    "Each is journalled in %s before it is written and put back after every "
		    "run of its mode, at exit, on a signal, or by the next thpctl after a "
		    "SIGKILL.",
		    journal);
}

const char *ab_ci_level(char *out, size_t n, const struct ratio_ci *ci)
{
	double p = floor(ci->level * 1000 + 1e-6) / 10; /* rounded down: never overstated */
	snprintf(out, n, p == floor(p) ? "%.0f%%" : "%.1f%%", p);
	return out;
}

void ab_render_csv(FILE *f, const struct ab_report *r)
{
	fprintf(f, "mode,run,ok,wall_s,user_s,sys_s,maxrss_kb,minflt,anon_huge_peak_kb,anon_kb");
	for (int c = 0; c < AC_N; c++)
		fprintf(f, ",%s_delta", ab_counter_name((enum ab_counter)c));
	for (int k = 0; k < r->nmetrics; k++)
		fprintf(f, ",%s", r->metrics[k].name);
	fputc('\n', f);
	for (int i = 0; i < r->n; i++)
		for (int j = 0; j < r->modes[i].nruns; j++) {
			const struct ab_run *x = &r->modes[i].runs[j];
			fprintf(f, "%s,%d,%d,%.6f,%.6f,%.6f,%llu,%llu,", r->modes[i].name, j + 1,
				x->ok, x->wall_s, x->user_s, x->sys_s,
				(unsigned long long)x->maxrss_kb, (unsigned long long)x->minflt);
			if (x->ahp_peak_kb >= 0)
				fprintf(f, "%lld,%lld", (long long)x->ahp_peak_kb,
					(long long)x->anon_peak_kb);
			else
				fputc(',', f);
			for (int c = 0; c < AC_N; c++)
				x->delta[c] >= 0 ? fprintf(f, ",%lld", (long long)x->delta[c])
						 : fprintf(f, ",");
			for (int k = 0; k < r->nmetrics; k++)
				x->metric_got[k] == AM_VALUE ? fprintf(f, ",%g", x->metric[k])
							     : fprintf(f, ",");
			fputc('\n', f);
		}
}

static json_t *stat_json(const struct ab_stat *s)
{
	return s->ok ? json_obj("median", json_real(s->med), "min", json_real(s->min), "max",
				json_real(s->max), NULL)
		     : json_null();
}

static json_t *ci_json(const struct ratio_ci *ci)
{
	return ci->ok ? json_obj("estimate", json_real(ci->est), "low", json_real(ci->lo), "high",
				 json_real(ci->hi), "level", json_real(ci->level), NULL)
		      : json_null();
}

static json_t *mode_json(const struct ab_report *r, int i)
{
	const struct ab_mode *m = &r->modes[i];
	const struct ab_summary *s = &r->sum[i];
	json_t *o = json_object(), *runs = json_array();
	json_put(o, "mode", json_str(m->name));
	json_put(o, "skipped", m->skipped ? json_str(m->skip_reason) : NULL);
	json_put(o, "failed", json_boolean(m->failed));
	json_put(o, "failure",
		 m->fail == AF_NONE
			 ? NULL
			 : json_obj("run", json_integer(m->fail_run + 1), "warmup",
				    json_boolean(m->fail_run < r->warmup), "kind",
				    json_str(ab_fail_name(m->fail)), "code",
				    m->fail == AF_TIMEOUT ? NULL : json_integer(m->fail_code),
				    NULL));
	json_put(o, "verdict", json_str(ab_verdict_name(s->verdict)));
	json_put(o, "wall_ratio_to_base", ci_json(&s->ci));
	json_put(o, "memory_verdict", json_str(ab_mem_name(s->mem_verdict)));
	json_put(o, "peak_rss_ratio_to_base", ci_json(&s->rss_ci));
	json_put(o, "wall_s", stat_json(&s->wall));
	json_put(o, "user_s", stat_json(&s->user));
	json_put(o, "sys_s", stat_json(&s->sys));
	json_put(o, "maxrss_kb", stat_json(&s->maxrss));
	json_put(o, "minflt", stat_json(&s->minflt));
	json_put(o, "anon_huge_peak_kb", stat_json(&s->ahp));
	json_put(o, "anon_huge_share", stat_json(&s->share));
	/* null: not judged (the mode did not finish, or AnonHugePages was never sampled) */
	json_put(o, "proof_contradicts_intent",
		 s->verdict == AV_NOT_RUN || s->proof_unknown ? json_null()
							      : json_boolean(s->proof_contradicts));
	json_put(o, "proof_cannot_show",
		 s->verdict == AV_NOT_RUN || s->proof_unknown ? json_null()
							      : json_boolean(s->proof_moot));
	json_t *d = json_object();
	for (int c = 0; c < AC_N; c++)
		json_put(d, ab_counter_name((enum ab_counter)c),
			 s->delta_med[c] >= 0 ? json_integer(s->delta_med[c]) : NULL);
	json_put(o, "host_wide_delta_median", d);
	json_t *mt = json_object();
	for (int k = 0; k < r->nmetrics; k++) {
		const struct ab_metric_count *n = &s->metric_n[k];
		json_t *x = json_object();
		json_put(x, "value", stat_json(&s->metric[k]));
		json_put(x, "ratio_to_base", ci_json(&s->metric_ci[k]));
		json_put(x, "call",
			 json_str(ab_metric_call_name(s, k, r->metrics[k].higher_better)));
		json_put(x, "matched_runs", json_integer(n->matched));
		json_put(x, "runs", json_integer(n->runs));
		json_put(x, "reason", json_str(ab_metric_why_name(n->why)));
		json_put(mt, r->metrics[k].name, x);
	}
	json_put(o, "metrics", mt);
	for (int j = 0; j < m->nruns; j++) {
		const struct ab_run *x = &m->runs[j];
		json_array_append_new(
			runs,
			json_obj("ok", json_boolean(x->ok), "wall_s", json_real(x->wall_s),
				 "user_s", json_real(x->user_s), "sys_s", json_real(x->sys_s),
				 "maxrss_kb", json_u64(x->maxrss_kb), "minflt", json_u64(x->minflt),
				 "anon_huge_peak_kb",
				 x->ahp_peak_kb >= 0 ? json_integer(x->ahp_peak_kb) : NULL,
				 "anon_kb_at_peak",
				 x->anon_peak_kb >= 0 ? json_integer(x->anon_peak_kb) : NULL,
				 "anon_max_kb",
				 x->anon_max_kb >= 0 ? json_integer(x->anon_max_kb) : NULL,
				 "huge_fraction",
				 ab_run_fraction(x) >= 0 ? json_real(ab_run_fraction(x)) : NULL,
				 "samples", json_integer(x->samples), NULL));
	}
	json_put(o, "runs", runs);
	return o;
}

json_t *ab_to_json(const struct ab_report *r)
{
	json_t *root = json_object(), *cmd = json_array(), *modes = json_array();
	for (int i = 0; r->cmd[i]; i++)
		json_array_append_new(cmd, json_str(r->cmd[i]));
	json_put(root, "command", cmd);
	json_put(root, "runs_per_mode", json_integer(r->runs));
	json_put(root, "warmup", json_integer(r->warmup));
	json_put(root, "confidence", json_real(0.95));
	json_put(root, "timeout_s", json_integer(r->timeout_s));
	json_t *defs = json_array();
	for (int k = 0; k < r->nmetrics; k++)
		json_array_append_new(defs,
				      json_obj("name", json_str(r->metrics[k].name), "regex",
					       json_str(r->metrics[k].regex), "higher_is_better",
					       json_boolean(r->metrics[k].higher_better), NULL));
	json_put(root, "metrics", defs);
	for (int i = 0; i < r->n; i++)
		json_array_append_new(modes, mode_json(r, i));
	json_put(root, "modes", modes);
	json_put(root, "sweep", ab_sweep_json(r->sweep, r->modes));
	return root;
}
