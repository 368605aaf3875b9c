// SPDX-License-Identifier: MIT
/* lab postgres: the pure parsers of pgbench's output and of the server's smaps (pg_srv.h). */
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pg_srv.h"

/* A finite number >= 0 at P (strtod), its end in *END; false when none. */
static bool number(const char *p, double *v, const char **end)
{
	char *e;
	double x = strtod(p, &e);
	if (e == p || !isfinite(x) || x < 0)
		return false;
	*v = x;
	if (end)
		*end = e;
	return true;
}

/* Whether LINE (up to EOL) starts with PREFIX; *REST after it. */
static bool starts(const char *line, const char *prefix, const char **rest)
{
	size_t l = strlen(prefix);
	if (strncmp(line, prefix, l))
		return false;
	*rest = line + l;
	return true;
}

/* "progress: 1.0 s, 47300.5 tps, lat ..." into O's next slot. */
static void progress(const char *p, struct pgbench_out *o)
{
	double t, tps;
	const char *e;
	if (!number(p, &t, &e) || strncmp(e, " s, ", 4) || !number(e + 4, &tps, &e) ||
	    strncmp(e, " tps", 4) || o->nprog >= PG_MAX_PROGRESS)
		return;
	o->prog_t[o->nprog] = t;
	o->prog_tps[o->nprog++] = tps;
}

/* "X ms" at P into *V; false otherwise. */
static bool ms(const char *p, double *v)
{
	const char *e;
	return number(p, v, &e) && !strncmp(e, " ms", 3);
}

/* One line of pgbench's output into O. */
static void line(const char *l, struct pgbench_out *o, bool *tps_final)
{
	const char *p;
	double v;
	if (starts(l, "progress: ", &p))
		progress(p, o);
	else if (starts(l, "latency average = ", &p) && ms(p, &v)) {
		o->lat_ms = v;
		o->has_lat = true;
	} else if (starts(l, "latency stddev = ", &p) && ms(p, &v)) {
		o->sd_ms = v;
		o->has_sd = true;
	} else if (starts(l, "number of transactions actually processed: ", &p) &&
		   number(p, &v, NULL) && v == floor(v)) {
		o->xacts = (uint64_t)v;
		o->has_xacts = true;
	} else if (starts(l, "tps = ", &p) && !*tps_final && number(p, &v, &p)) {
		/* 14+: "(without initial connection time)"; before: "including" then "excluding" */
		bool final = strstr(p, "without initial") || strstr(p, "excluding");
		if (final || !o->has_tps) {
			o->tps = v;
			o->has_tps = true;
		}
		*tps_final = final;
	}
}

int pgbench_parse(const char *text, struct pgbench_out *o)
{
	memset(o, 0, sizeof(*o));
	o->tps = o->lat_ms = o->sd_ms = -1;
	bool tps_final = false;
	char l[512];
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		size_t take = len < sizeof(l) - 1 ? len : sizeof(l) - 1;
		memcpy(l, p, take);
		l[take] = '\0';
		if (take && l[take - 1] == '\r')
			l[take - 1] = '\0';
		line(l, o, &tps_final);
		p += len;
		if (*p)
			p++;
	}
	return o->has_tps && o->has_lat ? 0 : -EPROTO;
}

/* Whether NAME (LEN bytes) is a shmem or hugetlb segment's smaps name. */
static bool shm_name(const char *name, size_t len)
{
	static const char *const exact[] = {"/dev/zero (deleted)", "/anon_hugepage (deleted)"};
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (len == strlen(exact[i]) && !memcmp(name, exact[i], len))
			return true;
	return (len > 5 && !memcmp(name, "/SYSV", 5)) ||
	       (len > 11 && !memcmp(name, "[anon_shmem", 11));
}

bool pg_shm_feed(struct pg_shm *s, const struct smaps_vma *v)
{
	if (v->perms[3] != 's' || !shm_name(v->name, v->name_len) || !smaps_has(&v->t, SM_SIZE) ||
	    !smaps_has(&v->t, SM_KERNEL_PAGE) || (s->found && v->t.kb[SM_SIZE] <= s->size_kb))
		return false;
	memset(s, 0, sizeof(*s));
	s->found = true;
	size_t l = v->name_len < sizeof(s->name) - 1 ? v->name_len : sizeof(s->name) - 1;
	memcpy(s->name, v->name, l);
	s->size_kb = v->t.kb[SM_SIZE];
	s->kps_kb = v->t.kb[SM_KERNEL_PAGE];
	s->rss_kb = v->t.kb[SM_RSS];
	s->has_pmd = smaps_has(&v->t, SM_SHMEM_PMD);
	s->pmd_kb = v->t.kb[SM_SHMEM_PMD];
	s->htlb_kb = v->t.kb[SM_SHARED_HUGETLB] + v->t.kb[SM_PRIVATE_HUGETLB];
	return true;
}

enum claim_call pg_band_call(const struct ratio_ci *ci, double lo, double hi)
{
	if (!ci->ok)
		return CLAIM_INCONCLUSIVE;
	if (ci->lo >= lo && ci->hi <= hi)
		return CLAIM_CONFIRMED;
	if (ci->lo > hi || ci->hi < lo)
		return CLAIM_CONTRADICTED;
	return CLAIM_INCONCLUSIVE;
}

enum claim_call pg_rounds_gate(enum claim_call call, const double *base, const double *mode, int n,
			       double lo, double hi, char *why, size_t wn)
{
	if (call == CLAIM_INCONCLUSIVE)
		return call;
	if (n < 2) {
		snprintf(
			why, wn,
			"one round: the modes ran one after the other, so a load change between them is not told apart from the mode (2+ rounds: no --quick)");
		return CLAIM_INCONCLUSIVE;
	}
	int in = 0, below = 0, above = 0;
	for (int i = 0; i < n; i++) {
		double q = base[i] > 0 && mode[i] >= 0 ? mode[i] / base[i] : -1;
		if (q < 0)
			continue;
		in += q >= lo && q <= hi;
		below += q < lo;
		above += q > hi;
	}
	bool agree = call == CLAIM_CONFIRMED ? in == n : (below == n || above == n);
	if (agree)
		return call;
	lab_fmt(why, wn,
		"the %d rounds' own tps ratios disagree (%d inside the band, %d below, %d above)",
		n, in, below, above);
	return CLAIM_INCONCLUSIVE;
}

enum pg_backing pg_backing_call(const bool *have, const bool *found, const bool *right, int n)
{
	bool unknown = false, wrong = false;
	for (int k = 0; k < n; k++) {
		if (!have[k] || !found[k])
			unknown = true;
		else if (!right[k])
			wrong = true;
	}
	return wrong ? PG_BACKED_WRONG : unknown ? PG_BACKING_UNKNOWN : PG_BACKED;
}
