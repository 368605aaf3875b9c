// SPDX-License-Identifier: MIT
#include "shrinker_record.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "lab_record.h"
#include "parse.h"

#define MAGIC "thpctl-lab-shrinker 1"

static bool phase(const char *s, size_t l, struct shrinker_record *r)
{
	char line[160];
	if (r->n == SHRINKER_MAX_PHASES || !lab_record_copy(s, l, line, sizeof(line)))
		return false;
	long mpn;
	unsigned long long thps, split, before, after;
	int used = 0;
	if (sscanf(line, "%ld %llu %llu %llu %llu%n", &mpn, &thps, &split, &before, &after,
		   &used) != 5 ||
	    line[used] || mpn < 0 || mpn > 65535 || before > (1ull << 50) || after > (1ull << 50))
		return false;
	for (int i = 0; i < r->n; i++)
		if (r->p[i].max_ptes_none == mpn)
			return false;
	r->p[r->n++] = (struct shrinker_phase){mpn, thps, split, before, after};
	return true;
}

static int own_line(const char *s, size_t l, void *ctx)
{
	return l > 6 && !memcmp(s, "phase ", 6) && phase(s + 6, l - 6, ctx) ? 0 : -EINVAL;
}

int shrinker_record_parse(const char *text, size_t len, struct shrinker_record *r)
{
	memset(r, 0, sizeof(*r));
	const struct lab_record_head h = {r->kernel, sizeof(r->kernel), r->time, sizeof(r->time)};
	int e = lab_record_parse(text, len, MAGIC, &h, own_line, r);
	return e ? e : r->n ? 0 : -EINVAL;
}

int shrinker_record_format(const struct shrinker_record *r, struct buf *b)
{
	char text[1024];
	int k = snprintf(text, sizeof(text), MAGIC "\nkernel %s\ntime %s\n", r->kernel, r->time);
	for (int i = 0; i < r->n && k > 0 && (size_t)k < sizeof(text); i++)
		k += snprintf(text + k, sizeof(text) - (size_t)k, "phase %ld %llu %llu %llu %llu\n",
			      r->p[i].max_ptes_none, (unsigned long long)r->p[i].thps,
			      (unsigned long long)r->p[i].split_host,
			      (unsigned long long)r->p[i].ahp_before_kb,
			      (unsigned long long)r->p[i].ahp_after_kb);
	return lab_record_text(text, k, sizeof(text), b);
}

/* shrinker_record_parse for lab_record_read (REC: struct shrinker_record). */
static int parse_rec(const char *text, size_t len, void *rec)
{
	return shrinker_record_parse(text, len, rec);
}

int shrinker_record_read(const struct sysroot *sr, struct shrinker_record *r)
{
	return lab_record_read(sr, SR_SHRINKER_RECORD, parse_rec, r);
}

const struct shrinker_phase *shrinker_record_phase(const struct shrinker_record *r,
						   long max_ptes_none)
{
	for (int i = 0; i < r->n; i++)
		if (r->p[i].max_ptes_none == max_ptes_none)
			return &r->p[i];
	return NULL;
}
