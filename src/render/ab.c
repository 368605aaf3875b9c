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

static void cmd_line(FILE *f, char *const *cmd)
{
	for (int i = 0; cmd[i]; i++) {
		fputc(' ', f);
		fputs_safe(cmd[i], f);
	}
}

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

/* Median (min-max) with PREC decimals. */
static void stat_cell(struct table *t, const struct ab_stat *s, int prec)
{
	if (!s->ok)
		table_cell(t, "-");
	else
		table_cell(t, "%.*f (%.*f-%.*f)", prec, s->med, prec, s->min, prec, s->max);
}

static void kb_stat_cell(struct table *t, const struct ab_stat *s)
{
	char v[32];
	if (!s->ok) {
		table_cell(t, "-");
		return;
	}
	fmt_kb(v, sizeof(v), (uint64_t)(s->med + 0.5));
	table_cell(t, "%s", v);
}

/*
 * "1.14x faster" / "1.08x slower" from a ratio Y/X of wall times (LESS "faster", MORE "slower"),
 * "16.3x more" / "1.08x less" from one of peak RSS; "-" for no ratio.
 */
static void ratio_words(char *out, size_t n, double ratio, const char *less, const char *more)
{
	if (ratio <= 0)
		snprintf(out, n, "-");
	else if (ratio < 1)
		snprintf(out, n, "%.2fx %s", 1 / ratio, less);
	else
		snprintf(out, n, "%.2fx %s", ratio, more);
}

static void verdict_line(FILE *f, const struct ab_report *r, int i, int base, bool color)
{
	const struct ab_mode *m = &r->modes[i];
	const struct ab_summary *s = &r->sum[i];
	fprintf(f, "  %s: ", m->name);
	if (m->skipped) {
		fprintf(f, "skipped: %s\n", m->skip_reason);
		return;
	}
	if (m->failed || s->verdict == AV_NOT_RUN) {
		fprintf(f, "%sa run failed: the mode stopped (see stderr)%s\n", col_yellow(color),
			col_reset(color));
		return;
	}
	char w[48], lv[16];
	const char *bn = base >= 0 ? r->modes[base].name : "?";
	ab_ci_level(lv, sizeof(lv), &s->ci);
	switch (s->verdict) {
	case AV_BASE:
		fprintf(f, "the base the other modes are compared with");
		break;
	case AV_FASTER:
	case AV_SLOWER:
		ratio_words(w, sizeof(w), s->ci.est, "faster", "slower");
		fprintf(f, "%s%s wall than %s (%s CI %.2f-%.2fx of its time)%s",
			s->verdict == AV_SLOWER ? col_yellow(color) : "", w, bn, lv, s->ci.lo,
			s->ci.hi, s->verdict == AV_SLOWER ? col_reset(color) : "");
		break;
	case AV_NO_DIFFERENCE:
		fprintf(f, "no difference beyond 3%% from %s at N=%d (%s CI %.2f-%.2fx)", bn,
			r->runs, lv, s->ci.lo, s->ci.hi);
		break;
	case AV_INCONCLUSIVE:
		fprintf(f, "inconclusive: the host was too noisy (%s CI %.2f-%.2fx of %s's time)",
			lv, s->ci.lo, s->ci.hi, bn);
		break;
	default:
		fprintf(f, "too few runs for an interval (--runs %d; 4 or more per mode)", r->runs);
		break;
	}
	/* the proof */
	if (s->proof_unknown)
		fprintf(f, "; AnonHugePages not sampled (runs too short)");
	else {
		fprintf(f, "; AnonHugePages %.0f%% of anon",
			s->share.ok ? s->share.med * 100 : 0.0);
		if (base >= 0 && base != i && r->sum[base].share.ok)
			fprintf(f, " vs %.0f%% under %s", r->sum[base].share.med * 100, bn);
	}
	if (s->delta_med[AC_FAULT_ALLOC] >= 0)
		fprintf(f, "; thp_fault_alloc +%lld (host-wide)",
			(long long)s->delta_med[AC_FAULT_ALLOC]);
	if (s->proof_contradicts)
		fprintf(f, "%s; FLAGGED: AnonHugePages does not show what the mode intends%s",
			col_yellow(color), col_reset(color));
	fputc('\n', f);
	for (int k = 0; k < r->nmetrics && s->verdict != AV_BASE; k++) {
		const struct ratio_ci *ci = &s->metric_ci[k];
		const char *call = s->metric_call[k] == CI_TOO_FEW    ? "too few values"
				   : s->metric_call[k] == CI_WITHIN   ? "no difference beyond 3%"
				   : s->metric_call[k] == CI_TOO_WIDE ? "inconclusive (noisy)"
				   : (s->metric_call[k] == CI_ABOVE) == r->metrics[k].higher_better
					   ? "better"
					   : "worse";
		if (ci->ok)
			fprintf(f, "    %s: %s (ratio %.3f, %s CI %.3f-%.3f)\n", r->metrics[k].name,
				call, ci->est, ab_ci_level(lv, sizeof(lv), ci), ci->lo, ci->hi);
		else
			fprintf(f, "    %s: %s (no interval)\n", r->metrics[k].name, call);
	}
}

/* The memory verdict of mode I: peak RSS against the base, and its AnonHugePages share. */
static void memory_line(FILE *f, const struct ab_report *r, int i, int base, bool color)
{
	const struct ab_summary *s = &r->sum[i];
	if (r->modes[i].skipped || r->modes[i].failed || s->mem_verdict == AV_NOT_RUN)
		return;
	char w[48], a[32], b[32], lv[16];
	const char *bn = base >= 0 ? r->modes[base].name : "?";
	ab_ci_level(lv, sizeof(lv), &s->rss_ci);
	fprintf(f, "  %s: ", r->modes[i].name);
	switch (s->mem_verdict) {
	case AV_BASE:
		fprintf(f, "the base");
		break;
	case AV_FASTER:
	case AV_SLOWER:
		ratio_words(w, sizeof(w), s->rss_ci.est, "less", "more");
		fprintf(f, "%s%s peak RSS than %s (%s CI %.2f-%.2fx)%s",
			s->mem_verdict == AV_SLOWER ? col_yellow(color) : "", w, bn, lv,
			s->rss_ci.lo, s->rss_ci.hi,
			s->mem_verdict == AV_SLOWER ? col_reset(color) : "");
		break;
	case AV_NO_DIFFERENCE:
		fprintf(f, "no peak RSS difference beyond 3%% from %s (%s CI %.2f-%.2fx)", bn, lv,
			s->rss_ci.lo, s->rss_ci.hi);
		break;
	case AV_INCONCLUSIVE:
		fprintf(f, "inconclusive: peak RSS too spread (%s CI %.2f-%.2fx of %s's)", lv,
			s->rss_ci.lo, s->rss_ci.hi, bn);
		break;
	default:
		fprintf(f, "too few runs for an interval of peak RSS");
		break;
	}
	if (s->maxrss.ok) {
		fmt_kb(a, sizeof(a), (uint64_t)(s->maxrss.med + 0.5));
		fprintf(f, "; MAXRSS %s", a);
		if (base >= 0 && base != i && r->sum[base].maxrss.ok) {
			fmt_kb(b, sizeof(b), (uint64_t)(r->sum[base].maxrss.med + 0.5));
			fprintf(f, " vs %s", b);
		}
	}
	if (s->share.ok)
		fprintf(f, "; AnonHugePages %.0f%% of anon (runs %.0f-%.0f%%)", s->share.med * 100,
			s->share.min * 100, s->share.max * 100);
	fputc('\n', f);
}

void ab_render_text(FILE *f, const struct ab_report *r, bool color)
{
	int base = -1;
	for (int i = 0; i < r->n && base < 0; i++)
		if (r->sum[i].verdict == AV_BASE)
			base = i;
	fprintf(f, "%sthpctl ab%s:", col_bold(color), col_reset(color));
	cmd_line(f, r->cmd);
	fprintf(f, "  (%d runs per mode after %d warmup, interleaved)\n", r->runs, r->warmup);
	ab_render_sweep(f, r, color);
	fprintf(f, "verdicts (wall time against the first mode that ran):\n");
	for (int i = 0; i < r->n; i++)
		verdict_line(f, r, i, base, color);
	fprintf(f,
		"memory (peak RSS against the first mode that ran: what THP costs beside what it buys):\n");
	for (int i = 0; i < r->n; i++)
		memory_line(f, r, i, base, color);
	static const char *const hdr[] = {"MODE",	  "RUNS",	   "WALL s (min-max)",
					  "USER s",	  "SYS s",	   "MAXRSS",
					  "MINFLT",	  "AnonHuge peak", "THP%anon",
					  "fault_alloc*", "fallback*",	   "compact_stall*"};
	struct table *t = table_new(12, hdr, "lrrrrrrrrrrr");
	for (int i = 0; i < r->n; i++) {
		const struct ab_summary *s = &r->sum[i];
		table_cell(t, "%s", r->modes[i].name);
		table_cell(t, "%d", r->modes[i].nruns);
		stat_cell(t, &s->wall, 3);
		stat_cell(t, &s->user, 2);
		stat_cell(t, &s->sys, 2);
		kb_stat_cell(t, &s->maxrss);
		if (s->minflt.ok)
			table_cell(t, "%.0f", s->minflt.med);
		else
			table_cell(t, "-");
		kb_stat_cell(t, &s->ahp);
		if (s->share.ok)
			table_cell(t, "%.0f%%", s->share.med * 100);
		else
			table_cell(t, "-");
		for (int k = AC_FAULT_ALLOC; k <= AC_COMPACT_STALL; k++)
			if (s->delta_med[k] >= 0)
				table_cell(t, "+%lld", (long long)s->delta_med[k]);
			else
				table_cell(t, "-");
	}
	table_flush(t, f, 0, color);
	fprintf(f, "medians over runs; MAXRSS, MINFLT: wait4 rusage; AnonHuge: peak of the process "
		   "tree's smaps_rollup, sampled; * host-wide /proc/vmstat deltas per run (other "
		   "processes add to them)\n");
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
				x->metric_ok[k] ? fprintf(f, ",%g", x->metric[k]) : fprintf(f, ",");
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
	json_put(o, "proof_contradicts_intent", json_boolean(s->proof_contradicts));
	json_t *d = json_object();
	for (int c = 0; c < AC_N; c++)
		json_put(d, ab_counter_name((enum ab_counter)c),
			 s->delta_med[c] >= 0 ? json_integer(s->delta_med[c]) : NULL);
	json_put(o, "host_wide_delta_median", d);
	json_t *mt = json_object();
	for (int k = 0; k < r->nmetrics; k++) {
		json_t *x = json_object();
		json_put(x, "value", stat_json(&s->metric[k]));
		json_put(x, "ratio_to_base", ci_json(&s->metric_ci[k]));
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
	for (int i = 0; i < r->n; i++)
		json_array_append_new(modes, mode_json(r, i));
	json_put(root, "modes", modes);
	json_put(root, "sweep", ab_sweep_json(r->sweep, r->modes));
	return root;
}
