// SPDX-License-Identifier: MIT
#include "common.h"
#include "fragment.h"
#include "guard.h"

#include "../kernel/kv.h"
#include "../kernel/sysfs.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

void lab_fmt_size(char *out, size_t n, uint64_t b)
{
	if (b >= (1ull << 30) && b % (1ull << 30) == 0)
		lab_fmt(out, n, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1ull << 20))
		lab_fmt(out, n, "%llu MiB", (unsigned long long)(b >> 20));
	else
		lab_fmt(out, n, "%llu KiB", (unsigned long long)(b >> 10));
}

void lab_progress(const struct lab_opts *o, const char *fmt, ...)
{
	if (o->quiet)
		return;
	bool tty = isatty(STDERR_FILENO);
	va_list ap;
	va_start(ap, fmt);
	fputs(tty ? "\rthpctl: lab: " : "thpctl: lab: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(tty ? "\033[K" : "\n", stderr);
}

void lab_progress_run(const struct lab_opts *o, const char *name, uint64_t size, const char *label,
		      int i, int runs)
{
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	lab_progress(o, "%s %s: %s run %d/%d", name, sz, label, i + 1, runs);
}

void lab_progress_done(const struct lab_opts *o)
{
	if (!o->quiet && isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
}

void lab_fmt_folios(char *out, size_t n, const struct folio_counts *fc, long page_size)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 31; i >= 1; i--)
		if (fc->by_order[i])
			lab_catf(out, n, &o, "%sorder%d (%lukB) x%llu", o ? ", " : "", i,
				 (unsigned long)((page_size << i) >> 10),
				 (unsigned long long)fc->by_order[i]);
	lab_catf(out, n, &o, "%ssmall pages x%llu", o ? ", " : "", (unsigned long long)fc->small);
}

const char *lab_pmd_policy(const struct lab_ctx *ctx)
{
	const struct thp_size *sz = thp_size_find(ctx->thp, ctx->pmd_size / 1024);
	if (sz && sz->eff_enabled)
		return sz->eff_enabled;
	return ctx->thp->enabled.present ? ctx->thp->enabled.selected : "?";
}

int lab_size(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t def,
	     struct lab_result *r, uint64_t *size)
{
	uint64_t s = o->size ? o->size : def;
	s = (s + ctx->pmd_size - 1) / ctx->pmd_size * ctx->pmd_size; /* whole PMDs */
	uint64_t avail_kb = 0;
	if (meminfo_get(ctx->sr, "MemAvailable", &avail_kb))
		avail_kb = 0;
	/* leave 512 MiB and a quarter of what is available to everyone else */
	uint64_t avail = avail_kb * 1024;
	uint64_t limit = avail > (512ull << 20) ? (avail - (512ull << 20)) / 4 * 3 : 0;
	if (avail_kb && s > limit) {
		char a[32], l[32];
		lab_fmt_size(a, sizeof(a), s);
		lab_fmt_size(l, sizeof(l), limit);
		lab_skip(r,
			 "%s refused: more than this host can spare now (MemAvailable allows %s)",
			 a, l);
		r->expected = false;
		return -E2BIG;
	}
	r->size = s;
	*size = s;
	return 0;
}

/* lab_thp_off_reason (sparse, chase, fork) */
#include <sys/prctl.h>

#include "../kernel/uapi_compat.h"

const char *lab_thp_off_reason(const struct lab_ctx *ctx)
{
	int d = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	/* 6.18 except-advised mode (bit 1) still lets advised regions have THP */
	if (d > 0 && !(d & 2))
		return "THP disabled for this process (PR_SET_THP_DISABLE, inherited)";
	if (strcmp(lab_pmd_policy(ctx), "never") == 0)
		return "enabled=never";
	return "";
}

bool lab_needs_write(const struct lab_ctx *ctx, struct lab_result *r, const char *what)
{
	if (ctx->can_write)
		return false;
	lab_skip(r, "needs root (and the settings lock) to %s; here: %s", what,
		 ctx->no_write[0] ? ctx->no_write : "needs root");
	return true;
}

/* lab_begin() with a va_list. */
static int lab_vbegin(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t def,
		      struct lab_result *r, uint64_t *size, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));
static int lab_vbegin(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t def,
		      struct lab_result *r, uint64_t *size, const char *fmt, va_list ap)
{
	int rc = lab_size(ctx, o, def, r, size);
	if (!rc)
		lab_vfmt(r->title, sizeof(r->title), fmt, ap);
	return rc;
}

int lab_begin(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t def,
	      struct lab_result *r, uint64_t *size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = lab_vbegin(ctx, o, def, r, size, fmt, ap);
	va_end(ap);
	return rc;
}

int lab_begin_write(const struct lab_ctx *ctx, const struct lab_opts *o, const char *what,
		    uint64_t def, struct lab_result *r, uint64_t *size, const char *fmt, ...)
{
	if (lab_needs_write(ctx, r, what))
		return 1;
	va_list ap;
	va_start(ap, fmt);
	int rc = lab_vbegin(ctx, o, def, r, size, fmt, ap);
	va_end(ap);
	return rc;
}

void lab_folio_proof(const struct lab_ctx *ctx, struct lab_result *r, const char *label,
		     const char *prefix, const struct folio_counts *fc, int fc_err)
{
	char key[40], fol[LAB_FOLIOS_LEN];
	snprintf(key, sizeof(key), "%s kpageflags", label);
	if (!ctx->root)
		lab_proof(r, key, "skipped: not root (/proc/kpageflags is root-only)");
	else if (fc_err == -ENODATA)
		lab_proof(r, key, "not read: the run that reads them did not complete");
	else if (fc_err)
		lab_proof(r, key, "unreadable: %s", strerror(-fc_err));
	else {
		lab_fmt_folios(fol, sizeof(fol), fc, ctx->page_size);
		lab_proof(r, key, "%s%s", prefix, fol);
	}
}

const char *lab_fmt_delta(char *out, size_t n, double v)
{
	if (isnan(v))
		snprintf(out, n, "-");
	else
		snprintf(out, n, "%+.0f", v);
	return out;
}

const char *lab_fmt_num(char *out, size_t n, double v, int prec)
{
	if (isnan(v) || v < 0)
		snprintf(out, n, "-");
	else
		snprintf(out, n, "%.*f", prec, v);
	return out;
}

bool lab_modes_unknown(char *why, size_t n, const char *const *label, int nm, const bool *have,
		       const bool *read, const char *what)
{
	char miss[320] = "", unread[200] = "";
	size_t km = 0, ku = 0, k = 0;
	int nmiss = 0;
	for (int i = 0; i < nm; i++)
		if (!have[i]) {
			nmiss++;
			lab_catf(miss, sizeof(miss), &km, "%s\"%s\"", km ? ", " : "", label[i]);
		} else if (!read[i]) {
			lab_catf(unread, sizeof(unread), &ku, "%s\"%s\"", ku ? ", " : "", label[i]);
		}
	why[0] = '\0';
	if (nmiss == nm)
		lab_catf(why, n, &k, "no mode gave figures (each failed: see its proof)");
	else if (nmiss)
		lab_catf(why, n, &k, "no figures from %s (failed: see the proofs)", miss);
	if (unread[0])
		lab_catf(why, n, &k, "%s%s not read for %s", k ? "; " : "", what, unread);
	return why[0] != '\0';
}

void lab_verdict_ok(struct lab_result *r, bool expected, const char *fmt, ...)
{
	r->expected = expected;
	int n = snprintf(r->verdict, sizeof(r->verdict),
			 "%s: ", expected ? "as expected" : "UNEXPECTED");
	if (n < 0 || (size_t)n >= sizeof(r->verdict))
		return;
	va_list ap;
	va_start(ap, fmt);
	lab_vfmt(r->verdict + n, sizeof(r->verdict) - (size_t)n, fmt, ap); /* "..." if cut */
	va_end(ap);
}

void lab_failed(struct lab_result *r, const char *key, int err)
{
	lab_proof(r, key, "failed: %s", strerror(-err));
	r->partial = true;
}

void lab_cols_add(struct lab_result *r, const struct lab_coldef *defs, int n, int *idx)
{
	for (int i = 0; i < n; i++) {
		int c = lab_col_add(r, defs[i].name, defs[i].unit);
		if (idx)
			idx[i] = c;
	}
}

void lab_delta_cols(struct lab_result *r, const char *const *names, size_t n, int *idx)
{
	for (size_t i = 0; i < n; i++) {
		int c = lab_col_add(r, names[i], "+");
		if (idx)
			idx[i] = c;
	}
}

size_t lab_values_read(double *out, const double *v, int n)
{
	size_t k = 0;
	for (int i = 0; i < n; i++)
		if (v[i] >= 0)
			out[k++] = v[i];
	return k;
}

int lab_row_samples(struct lab_result *r, const char *label, const double *v, size_t stride,
		    int ncols, size_t n)
{
	int row = lab_row_add(r, label);
	for (int c = 0; c < ncols; c++)
		lab_cell_set(r, row, c, v + (size_t)c * stride, n);
	return row;
}

void lab_run_prepare(const struct lab_opts *o, uint64_t size, struct frag *f, uint64_t *left_max)
{
	lab_prepare_state(o->state, size);
	if (f) {
		uint64_t left = frag_sink(f);
		if (left > *left_max)
			*left_max = left;
	}
}

int lab_thp_write(const char *key, const char *value)
{
	char rel[PATH_MAX];
	int r = thp_knob_rel(rel, sizeof(rel), key);
	return r ? r : guard_write(rel, value);
}

int lab_size_enabled(uint64_t size_kb, const char *value)
{
	char rel[PATH_MAX];
	int r = thp_size_rel(rel, sizeof(rel), size_kb, "enabled");
	return r ? r : guard_write(rel, value);
}

int lab_drop_caches(void)
{
	char rel[PATH_MAX];
	int r = sysctl_vm_rel(rel, sizeof(rel), "drop_caches");
	return r ? r : guard_poke(rel, "2");
}

int lab_set_enabled(const struct lab_ctx *ctx, const char *value)
{
	int e = lab_thp_write("enabled", value);
	const struct thp_size *ts = thp_size_find(ctx->thp, ctx->pmd_size >> 10);
	/* 6.8+: the PMD size follows the top-level file only through "inherit" */
	if (!e && ts && ts->enabled.present && strcmp(ts->enabled.selected, "inherit"))
		e = lab_size_enabled(ctx->pmd_size >> 10, value);
	return e;
}

int lab_thp_off_begin(void)
{
	int prev = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
	if (prev < 0)
		return -errno;
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		return -errno;
	return prev;
}

void lab_thp_off_end(int prev)
{
	if (prev < 0)
		return;
	/* bit 1: 6.18's except-advised mode, set again with its flag */
	prctl(PR_SET_THP_DISABLE, prev ? 1 : 0, prev & 2 ? PR_THP_DISABLE_EXCEPT_ADVISED : 0, 0, 0);
}

const char *lab_found_enabled(const struct lab_ctx *ctx)
{
	return ctx->thp->enabled.present ? ctx->thp->enabled.selected : NULL;
}

const char *lab_found_defrag(const struct lab_ctx *ctx)
{
	return ctx->thp->defrag.present ? ctx->thp->defrag.selected : NULL;
}
