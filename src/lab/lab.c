// SPDX-License-Identifier: MIT
#include "lab.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/stats.h"

/* The entries LAB_EXPERIMENT() put in section thpctl_lab (the linker names its bounds). */
extern const struct lab_experiment *const __start_thpctl_lab[];
extern const struct lab_experiment *const __stop_thpctl_lab[];

/* The entry with the smallest order above AFTER (INT_MIN: the first). */
static const struct lab_experiment *next_after(int after, bool first)
{
	const struct lab_experiment *best = NULL;
	for (const struct lab_experiment *const *e = __start_thpctl_lab; e < __stop_thpctl_lab; e++)
		if ((first || (*e)->order > after) && (!best || (*e)->order < best->order))
			best = *e;
	return best;
}

const struct lab_experiment *lab_first(void)
{
	return next_after(0, true);
}

const struct lab_experiment *lab_next(const struct lab_experiment *x)
{
	return next_after(x->order, false);
}

size_t lab_count(void)
{
	return (size_t)(__stop_thpctl_lab - __start_thpctl_lab);
}

const struct lab_experiment *lab_find(const char *name)
{
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

const char *lab_mode_name(enum lab_mode m)
{
	static const char *const n[MODE_NMODES] = {"plain", "madv", "nohuge", "nothp", "collapse"};
	return (unsigned)m < MODE_NMODES ? n[m] : "?";
}

const char *lab_state_name(enum lab_state s)
{
	return s == STATE_WARM ? "warm" : s == STATE_COLD ? "cold" : "asis";
}

int lab_col_add(struct lab_result *r, const char *name, const char *unit)
{
	if (r->ncols == LAB_MAX_COLS)
		return -1;
	struct lab_col *c = &r->cols[r->ncols];
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->unit, sizeof(c->unit), "%s", unit ? unit : "");
	return r->ncols++;
}

int lab_row_add(struct lab_result *r, const char *label)
{
	if (r->nrows == LAB_MAX_ROWS)
		return -1;
	struct lab_row *row = &r->rows[r->nrows];
	memset(row, 0, sizeof(*row));
	snprintf(row->label, sizeof(row->label), "%s", label);
	return r->nrows++;
}

void lab_cell_set(struct lab_result *r, int row, int col, const double *v, size_t n)
{
	if (row < 0 || col < 0 || row >= r->nrows || col >= r->ncols || !n)
		return;
	double tmp[256];
	if (n > 256)
		n = 256;
	memcpy(tmp, v, n * sizeof(*v));
	struct summary s;
	summarize(tmp, n, &s);
	struct lab_cell *c = &r->rows[row].c[col];
	c->present = true;
	c->median = s.median;
	c->min = s.min;
	c->max = s.max;
	c->range = n > 1;
}

void lab_cell_set1(struct lab_result *r, int row, int col, double v)
{
	lab_cell_set(r, row, col, &v, 1);
}

void lab_proof(struct lab_result *r, const char *key, const char *fmt, ...)
{
	if (r->nproofs == LAB_MAX_PROOFS)
		return;
	struct lab_proof *p = &r->proofs[r->nproofs++];
	snprintf(p->key, sizeof(p->key), "%s", key);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->value, sizeof(p->value), fmt, ap);
	va_end(ap);
}

void lab_verdict(struct lab_result *r, bool expected, const char *fmt, ...)
{
	r->expected = expected;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->verdict, sizeof(r->verdict), fmt, ap);
	va_end(ap);
}

void lab_skip(struct lab_result *r, const char *fmt, ...)
{
	r->skipped = true;
	r->expected = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->verdict, sizeof(r->verdict), fmt, ap);
	va_end(ap);
}
