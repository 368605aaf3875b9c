// SPDX-License-Identifier: MIT
/* `thpctl ab` in words and a table (render/ab.h ab_render_text). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"
#include "../util/units.h"
#include "../util/wrap.h"
#include "ab.h"
#include "table.h"

/* A share (0..1) as fmt_pct prints it: never 0% with a huge page in it, never 100% with one
 * missing (a FLAGGED off beside "0%" read as a contradiction) */
static const char *share_str(char *o, size_t n, double v)
{
	if (!(v >= 0)) {
		snprintf(o, n, "-");
		return o;
	}
	fmt_pct(o, n, (uint64_t)(v * 1e6 + 0.5), 1000000, 0);
	return o;
}

static const char *runs_word(int n)
{
	return n == 1 ? "run" : "runs";
}

int ab_command_quoted(struct buf *out, char *const *cmd)
{
	for (int i = 0; cmd[i]; i++) {
		size_t len = strlen(cmd[i]), need = shell_quote(NULL, 0, cmd[i], len) + 1;
		if ((i && buf_add(out, " ", 1)) || buf_reserve(out, out->len + need))
			return -ENOMEM;
		out->len += shell_quote(out->p + out->len, need, cmd[i], len);
	}
	return buf_add(out, "", 0);
}

int ab_command_text(struct buf *out, char *const *cmd, size_t width)
{
	struct buf q = {0}, l = {0};
	int r = ab_command_quoted(&q, cmd);
	if (!r)
		r = wrap_command(&l, q.p ? q.p : "", q.len, 2, width);
	/* a word wider than the line (a long sh -c script): broken at its blanks by the one
	 * rule of human output, as the last resort (wrap.h) */
	for (size_t at = 0; !r && at < l.len;) {
		const char *nl = memchr(l.p + at, '\n', l.len - at);
		size_t n = nl ? (size_t)(nl - l.p) - at : l.len - at;
		if (width && wrap_display_width(l.p + at, n) > width)
			r = wrap_line(out, l.p + at, n, width);
		else
			r = buf_add(out, l.p + at, n);
		if (!r && nl)
			r = buf_add(out, "\n", 1);
		at += n + (nl ? 1 : 0);
	}
	buf_free(&q);
	buf_free(&l);
	return r;
}

static void header(FILE *f, const struct ab_report *r, bool color)
{
	fprintf(f, "%sthpctl ab%s: %d %s per mode", col_bold(color), col_reset(color), r->runs,
		runs_word(r->runs));
	if (r->warmup)
		fprintf(f, " after %d warm-up %s", r->warmup, runs_word(r->warmup));
	else
		fprintf(f, ", no warm-up run");
	fprintf(f, "%s; the command:\n", r->n > 1 ? ", the modes interleaved" : "");
	struct buf b = {0};
	if (ab_command_text(&b, r->cmd, r->width) == 0 && b.p)
		fprintf(f, "%s\n", b.p);
	buf_free(&b);
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

/* How mode M stopped, after "  NAME: ". */
static void failure_words(FILE *f, const struct ab_report *r, const struct ab_mode *m, bool color)
{
	char rn[32];
	if (m->fail_run < r->warmup)
		snprintf(rn, sizeof(rn), "its warm-up run %d", m->fail_run + 1);
	else
		snprintf(rn, sizeof(rn), "its run %d", m->fail_run - r->warmup + 1);
	fprintf(f, "%snot compared: ", col_yellow(color));
	switch (m->fail) {
	case AF_EXIT:
		fprintf(f, "%s exited with status %d", rn, m->fail_code);
		break;
	case AF_SIGNAL:
		fprintf(f, "%s was killed by signal %d (%s)", rn, m->fail_code,
			strsignal(m->fail_code));
		break;
	case AF_TIMEOUT:
		fprintf(f, "%s ran past --timeout %ld s and was killed", rn, r->timeout_s);
		break;
	case AF_NOT_STARTED:
		fprintf(f, "the command could not be started (%s)", strerror(m->fail_code));
		break;
	default:
		fprintf(f, "no run succeeded");
		break;
	}
	fprintf(f, "%s; the mode stopped there (its output's last lines: stderr)\n",
		col_reset(color));
}

/* CI's bounds "LO-HI" at 2 decimals, more where one would print onto 1 from its side (a
 * decided interval never reads as touching "no change"). */
static const char *ci_bounds(char *o, size_t n, const struct ratio_ci *ci)
{
	char a[24], b[24];
	fmt_bound(a, sizeof(a), ci->lo, 1, 2);
	fmt_bound(b, sizeof(b), ci->hi, 1, 2);
	snprintf(o, n, "%s-%s", a, b);
	return o;
}

/* The wall-time call of mode I against the base BN. */
static void wall_words(FILE *f, const struct ab_report *r, int i, int base, bool color)
{
	const struct ab_summary *s = &r->sum[i];
	const char *bn = r->modes[base].name;
	char w[48], lv[16], cb[64];
	ab_ci_level(lv, sizeof(lv), &s->ci);
	switch (s->verdict) {
	case AV_BASE:
		fprintf(f, r->n > 1 ? "the base" : "the only mode");
		break;
	case AV_FASTER:
	case AV_SLOWER:
		ratio_words(w, sizeof(w), s->ci.est, "faster", "slower");
		fprintf(f, "%s%s wall than %s (%s CI %sx of its time)%s",
			s->verdict == AV_SLOWER ? col_yellow(color) : "", w, bn, lv,
			ci_bounds(cb, sizeof(cb), &s->ci),
			s->verdict == AV_SLOWER ? col_reset(color) : "");
		break;
	case AV_NO_DIFFERENCE:
		fprintf(f, "no difference beyond %.0f%% from %s (%s CI %.2f-%.2fx of its time)",
			AB_SAME_WITHIN * 100, bn, lv, s->ci.lo, s->ci.hi);
		break;
	case AV_INCONCLUSIVE:
		fprintf(f,
			"inconclusive: its %s CI %.2f-%.2fx of %s's time holds both no change and "
			"one beyond %.0f%% (noise; more --runs narrow it)",
			lv, s->ci.lo, s->ci.hi, bn, AB_SAME_WITHIN * 100);
		break;
	default:
		fprintf(f,
			"no interval: %d good %s of it and %d of %s are too few for one of 95%% "
			"(4 of each suffice)",
			r->modes[i].nruns, runs_word(r->modes[i].nruns), r->modes[base].nruns, bn);
		break;
	}
}

/* Metric K of mode I: its value (how many runs gave it), its call against the base, or why it
 * is unknown. */
static void metric_line(FILE *f, const struct ab_report *r, int i, int k, int base)
{
	const struct ab_summary *s = &r->sum[i];
	const struct ab_metric *mt = &r->metrics[k];
	const struct ab_metric_count *n = &s->metric_n[k];
	const struct ratio_ci *ci = &s->metric_ci[k];
	fprintf(f, "    %s (%s is better): ", mt->name, mt->higher_better ? "higher" : "lower");
	switch (n->why) {
	case AMW_KNOWN:
		break;
	case AMW_NOT_NUMBER:
		fprintf(f, "unknown: the regex matched in %d of %d %s, never a number\n",
			n->not_number, n->runs, runs_word(n->runs));
		return;
	case AMW_UNREAD:
		fprintf(f, "unknown: the output of %d of %d %s could not be read (over %u MiB?)\n",
			n->unread, n->runs, runs_word(n->runs), AB_OUTPUT_MAX >> 20);
		return;
	default:
		fprintf(f, "unknown: the regex matched the output of none of the %d %s\n", n->runs,
			runs_word(n->runs));
		return;
	}
	const char *call = ab_metric_call_name(s, k, mt->higher_better);
	char lv[16];
	if (call && ci->ok)
		fprintf(f, "%s: ratio %.3f to %s's (%s CI %.3f-%.3f); ", call, ci->est,
			r->modes[base].name, ab_ci_level(lv, sizeof(lv), ci), ci->lo, ci->hi);
	else if (call)
		fprintf(f, "%s; ",
			s->metric_noratio[k] == ANR_BASE_NONE
				? "no interval (the base has no value)"
			: s->metric_noratio[k] == ANR_NOT_POSITIVE
				? "no ratio (a value is 0 or below)"
				: "no interval (too few values)");
	fprintf(f, "median %g (%g-%g) over %d of %d %s", s->metric[k].med, s->metric[k].min,
		s->metric[k].max, n->matched, n->runs, runs_word(n->runs));
	if (n->matched < n->runs)
		fprintf(f, ", the rest %s",
			n->not_number ? "not a number or no match" : "no match");
	fputc('\n', f);
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
		failure_words(f, r, m, color);
		return;
	}
	const char *bn = r->modes[base].name;
	wall_words(f, r, i, base, color);
	/* the proof */
	if (s->proof_unknown)
		fprintf(f, "; AnonHugePages not sampled (runs too short)");
	else if (!s->share.ok)
		fprintf(f, "; AnonHugePages share unknown (no anonymous memory in the samples)");
	else {
		char p1[32], p2[32];
		fprintf(f, "; AnonHugePages %s of anon", share_str(p1, sizeof(p1), s->share.med));
		if (base >= 0 && base != i && r->sum[base].share.ok)
			fprintf(f, " vs %s under %s",
				share_str(p2, sizeof(p2), r->sum[base].share.med), bn);
	}
	if (s->proof_moot) {
		char kb[24], pmd[24];
		fmt_kb(kb, sizeof(kb), (uint64_t)s->moot_rss_kb);
		fmt_kb(pmd, sizeof(pmd), m->pmd_kb);
		fprintf(f,
			", none possible: no process of it reached one %s huge page of memory "
			"(peak RSS %s, wait4)",
			pmd, kb);
	}
	if (s->delta_med[AC_FAULT_ALLOC] >= 0)
		fprintf(f, "; thp_fault_alloc +%lld (host-wide)",
			(long long)s->delta_med[AC_FAULT_ALLOC]);
	if (s->proof_contradicts) {
		char pk[32] = "";
		/* less THP intended: the run's peak that contradicts it */
		if (ab_kind_intent(r->modes[i].kind, r->modes[i].arg) == AI_LESS && s->ahp.ok) {
			char kb[24];
			fmt_kb(kb, sizeof(kb), (uint64_t)(s->ahp.max + 0.5));
			snprintf(pk, sizeof(pk), " (peak %s)", kb);
		}
		fprintf(f, "%s; FLAGGED: AnonHugePages%s does not show what the mode intends%s",
			col_yellow(color), pk, col_reset(color));
	}
	fputc('\n', f);
	for (int k = 0; k < r->nmetrics; k++)
		metric_line(f, r, i, k, base);
}

/* Whether mode I has a memory line: it ran. */
static bool memory_shown(const struct ab_report *r, int i)
{
	return !r->modes[i].skipped && !r->modes[i].failed && r->sum[i].mem_verdict != AV_NOT_RUN;
}

/* The memory verdict of mode I (memory_shown): peak RSS against the base, its AnonHugePages
 * share. */
static void memory_line(FILE *f, const struct ab_report *r, int i, int base, bool color)
{
	const struct ab_summary *s = &r->sum[i];
	char w[48], a[32], b[32], lv[16], cb[64];
	const char *bn = r->modes[base].name;
	ab_ci_level(lv, sizeof(lv), &s->rss_ci);
	fprintf(f, "  %s: ", r->modes[i].name);
	switch (s->mem_verdict) {
	case AV_BASE:
		fprintf(f, r->n > 1 ? "the base" : "the only mode");
		break;
	case AV_FASTER:
	case AV_SLOWER:
		ratio_words(w, sizeof(w), s->rss_ci.est, "less", "more");
		fprintf(f, "%s%s peak RSS than %s (%s CI %sx)%s",
			s->mem_verdict == AV_SLOWER ? col_yellow(color) : "", w, bn, lv,
			ci_bounds(cb, sizeof(cb), &s->rss_ci),
			s->mem_verdict == AV_SLOWER ? col_reset(color) : "");
		break;
	case AV_NO_DIFFERENCE:
		fprintf(f, "no peak RSS difference beyond %.0f%% from %s (%s CI %.2f-%.2fx)",
			AB_SAME_WITHIN * 100, bn, lv, s->rss_ci.lo, s->rss_ci.hi);
		break;
	case AV_INCONCLUSIVE:
		fprintf(f, "inconclusive: peak RSS too spread (%s CI %.2f-%.2fx of %s's)", lv,
			s->rss_ci.lo, s->rss_ci.hi, bn);
		break;
	default:
		fprintf(f, "no interval of peak RSS: too few runs with a MAXRSS for one of 95%% (4 "
			   "of each suffice)");
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
	if (s->share.ok) {
		char p1[32], p2[32], p3[32];
		share_str(p2, sizeof(p2), s->share.min);
		size_t l = strlen(p2);
		if (l && p2[l - 1] == '%') /* "runs 0-0.2%" */
			p2[l - 1] = '\0';
		fprintf(f, "; AnonHugePages %s of anon (runs %s-%s)",
			share_str(p1, sizeof(p1), s->share.med), p2,
			share_str(p3, sizeof(p3), s->share.max));
	}
	fputc('\n', f);
}

static void table(FILE *f, const struct ab_report *r, bool color)
{
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
		char pc[32];
		table_cell(t, "%s", share_str(pc, sizeof(pc), s->share.ok ? s->share.med : -1));
		for (int k = AC_FAULT_ALLOC; k <= AC_COMPACT_STALL; k++)
			if (s->delta_med[k] >= 0)
				table_cell(t, "+%lld", (long long)s->delta_med[k]);
			else
				table_cell(t, "-");
	}
	table_flush(t, f, 0, color);
	fprintf(f, "medians over the good runs; MAXRSS, MINFLT: wait4 rusage, the command's own; "
		   "AnonHuge: peak of the process tree's smaps_rollup, sampled; * deltas of the "
		   "host-wide /proc/vmstat per run (other processes add to them)\n");
}

void ab_render_text(FILE *f, const struct ab_report *r, bool color)
{
	int base = -1;
	for (int i = 0; i < r->n && base < 0; i++)
		if (r->sum[i].verdict == AV_BASE)
			base = i;
	header(f, r, color);
	ab_render_sweep(f, r, color);
	if (r->n == 1)
		fprintf(f, "verdict (one mode: nothing to compare it with):\n");
	else if (base >= 0)
		fprintf(f,
			"verdicts: wall time against %s, the first mode that ran (Hodges-Lehmann "
			"estimate of the ratio, exact Mann-Whitney interval):\n",
			r->modes[base].name);
	else
		fprintf(f, "verdicts: no mode ran to its end, so none is compared:\n");
	for (int i = 0; i < r->n; i++)
		verdict_line(f, r, i, base, color);
	/* its heading only over lines: none when no mode ran */
	if (base >= 0)
		fprintf(f, "memory: peak RSS (MAXRSS)%s%s, what THP costs beside what it buys:\n",
			r->n > 1 ? " against " : "", r->n > 1 ? r->modes[base].name : "");
	for (int i = 0; base >= 0 && i < r->n; i++)
		if (memory_shown(r, i))
			memory_line(f, r, i, base, color);
	table(f, r, color);
}
