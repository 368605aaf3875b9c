// SPDX-License-Identifier: MIT
#include "tlb_record.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "lab_record.h"
#include "parse.h"

#define MAGIC "thpctl-lab-tlb 1"

static bool ns_ok(double v)
{
	return isfinite(v) && v >= -1e6 && v <= 1e6;
}

static bool size_line(const char *s, size_t l, struct tlb_record *r)
{
	char line[200];
	if (r->n == TLB_RECORD_MAX || !lab_record_copy(s, l, line, sizeof(line)))
		return false;
	unsigned long long kb, reach, hi;
	int step, used = 0;
	double pen, lo, phi;
	if (sscanf(line, "%llu %d %llu %llu %lf %lf %lf%n", &kb, &step, &reach, &hi, &pen, &lo,
		   &phi, &used) != 7 ||
	    line[used] || !kb || kb > (1ull << 30) || (step != 0 && step != 1) || !reach ||
	    reach > (1ull << 60) || hi > (1ull << 60) || (step && hi <= reach) || !ns_ok(pen) ||
	    !ns_ok(lo) || !ns_ok(phi))
		return false;
	for (int i = 0; i < r->n; i++)
		if (r->c[i].page_kb == kb)
			return false;
	r->c[r->n++] = (struct tlb_calib){kb, step == 1, reach, hi, pen, lo, phi};
	return true;
}

struct own {
	struct tlb_record *r;
	bool guest, sweep;
};

static int own_line(const char *s, size_t l, void *ctx)
{
	struct own *o = ctx;
	if (l == 7 && !memcmp(s, "guest ", 6)) {
		if (o->guest || (s[6] != '0' && s[6] != '1'))
			return -EINVAL;
		o->r->guest = s[6] == '1';
		o->guest = true;
	} else if (l > 6 && !memcmp(s, "sweep ", 6)) {
		bool q = l == 11 && !memcmp(s + 6, "quick", 5);
		if (o->sweep || (!q && (l != 10 || memcmp(s + 6, "full", 4))))
			return -EINVAL;
		o->r->quick = q;
		o->sweep = true;
	} else if (!(l > 5 && !memcmp(s, "size ", 5) && size_line(s + 5, l - 5, o->r))) {
		return -EINVAL;
	}
	return 0;
}

int tlb_record_parse(const char *text, size_t len, struct tlb_record *r)
{
	memset(r, 0, sizeof(*r));
	const struct lab_record_head h = {r->kernel, sizeof(r->kernel), r->time, sizeof(r->time)};
	struct own o = {r, false, false};
	int e = lab_record_parse(text, len, MAGIC, &h, own_line, &o);
	return e ? e : o.guest && o.sweep && r->n ? 0 : -EINVAL;
}

int tlb_record_format(const struct tlb_record *r, struct buf *b)
{
	char text[1536];
	int k = snprintf(text, sizeof(text), MAGIC "\nkernel %s\ntime %s\nguest %d\nsweep %s\n",
			 r->kernel, r->time, r->guest ? 1 : 0, r->quick ? "quick" : "full");
	for (int i = 0; i < r->n && k > 0 && (size_t)k < sizeof(text); i++)
		k += snprintf(text + k, sizeof(text) - (size_t)k,
			      "size %llu %d %llu %llu %.3f %.3f %.3f\n",
			      (unsigned long long)r->c[i].page_kb, r->c[i].step ? 1 : 0,
			      (unsigned long long)r->c[i].reach_b,
			      (unsigned long long)r->c[i].reach_hi_b, r->c[i].penalty_ns,
			      r->c[i].penalty_lo, r->c[i].penalty_hi);
	return lab_record_text(text, k, sizeof(text), b);
}

/* tlb_record_parse for lab_record_read (REC: struct tlb_record). */
static int parse_rec(const char *text, size_t len, void *rec)
{
	return tlb_record_parse(text, len, rec);
}

int tlb_record_read(const struct sysroot *sr, struct tlb_record *r)
{
	return lab_record_read(sr, SR_TLB_RECORD, parse_rec, r);
}

const struct tlb_calib *tlb_record_size(const struct tlb_record *r, uint64_t page_kb)
{
	for (int i = 0; i < r->n; i++)
		if (r->c[i].page_kb == page_kb)
			return &r->c[i];
	return NULL;
}
