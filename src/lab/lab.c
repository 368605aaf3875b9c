// SPDX-License-Identifier: MIT
#include "lab.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/stats.h"

const struct lab_experiment lab_experiments[] = {
	{"touch", lab_touch, "write one byte per base page: time, faults, AnonHugePages per mode",
	 true},
	{"sparse", lab_sparse, "one byte per PMD over 1 GiB: RSS plain vs MADV_HUGEPAGE", true},
	{"chase", lab_chase, "dependent random pointer chase: ns/access on huge vs small pages",
	 true},
	{"fork", lab_fork, "fork, then write one byte per PMD: COW split or copy", true},
	{"faults", lab_faults, "fault one PMD at a time: per-chunk latency and fallbacks", true},
	{"split", lab_split, "MADV_DONTNEED one page per PMD: deferred split", true},
	{"collapse", lab_collapse, "plain touch then MADV_COLLAPSE", true},
	{"mthp", lab_mthp, "each mTHP size at always (root): per-size allocations and folio orders",
	 true},
	{"khugepaged", lab_khugepaged, "1 page in 8 touched, then khugepaged: RSS creep", false},
	{"fallback", lab_fallback, "enabled=always (root): fault allocations vs silent fallbacks",
	 false},
	{"fragment", lab_fragment, "fragment memory (root) and show free PMD-order blocks", false},
};
const size_t lab_nexperiments = sizeof(lab_experiments) / sizeof(lab_experiments[0]);

const struct lab_experiment *lab_find(const char *name)
{
	for (size_t i = 0; i < lab_nexperiments; i++)
		if (strcmp(lab_experiments[i].name, name) == 0)
			return &lab_experiments[i];
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
