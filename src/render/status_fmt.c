// SPDX-License-Identifier: MIT
/* Small formatters shared by the status renderers (status_int.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "status_int.h"
#include "../util/units.h"

const char *const status_usage_meminfo[STATUS_N_USAGE_MEMINFO] = {
	"AnonHugePages",  "ShmemHugePages",  "ShmemPmdMapped", "FileHugePages",
	"FilePmdMapped",  "HugePages_Total", "HugePages_Free", "HugePages_Rsvd",
	"HugePages_Surp", "Hugepagesize",    "Hugetlb",
};

const char *status_dash(unsigned *seen, unsigned why)
{
	if (seen)
		*seen |= why;
	return "-";
}

void status_dash_legend(FILE *f, const struct host_snapshot *h, unsigned seen)
{
	/* where nothing was unreadable, a '-' of a file is one the kernel (or the tree) lacks */
	const char *absent = host_snapshot_partial(h)
				     ? "no such file or counter, or not readable (partial, above)"
			     : h->feat.thp_recorded == REC_LIVE
				     ? "no such file or counter in this kernel"
				     : "no such file or counter in the recorded tree";
	const struct {
		unsigned bit;
		const char *what;
	} kinds[] = {
		{SD_ABSENT, absent},
		{SD_SHMEM_ONLY, "no anon THP of that size (shmem/file only)"},
		{SD_NODE_RESV, "hugetlb resv is counted for all nodes only"},
		{SD_UNKNOWN, "unknown (not derivable from what was read)"},
	};
	const char *sep = "\n  '-': ";
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!(seen & kinds[i].bit))
			continue;
		fprintf(f, "%s%s", sep, kinds[i].what);
		sep = "; ";
	}
	if (seen)
		fputc('\n', f);
}

const char *status_tri_str(enum tri t, unsigned *seen)
{
	return t == TRI_YES ? "yes" : t == TRI_NO ? "no" : status_dash(seen, SD_UNKNOWN);
}

json_t *status_tri_json(enum tri t)
{
	return t == TRI_UNKNOWN ? json_null() : json_boolean(t == TRI_YES);
}

const char *status_choice_str(const struct choice *c, unsigned *seen)
{
	return c->present ? c->selected : status_dash(seen, SD_ABSENT);
}

void status_opt_str(char *out, size_t n, const struct opt_u64 *o, unsigned *seen, unsigned why)
{
	if (o->present)
		snprintf(out, n, "%llu", (unsigned long long)o->v);
	else
		snprintf(out, n, "%s", status_dash(seen, why));
}

json_t *status_ratio_json(const struct ratio *r)
{
	return r->valid ? json_obj("ok", json_u64(r->num), "attempts", json_u64(r->den), "ratio",
				   json_real(r->value), NULL)
			: json_null();
}

void status_partial_json(json_t *root, const struct host_snapshot *h)
{
	json_t *miss = json_array();
	for (int i = 0; i < h->nmissing; i++)
		json_array_append_new(miss, json_str(h->missing[i]));
	struct bundle_skips sk;
	bundle_skips_of(&h->skips, &sk);
	skips_json_missing(miss, &sk);
	json_put(root, "partial", json_boolean(host_snapshot_partial(h)));
	json_put(root, "missing", miss);
}

const char *status_tuned_state(const struct tuned_state *t, const char *unknown)
{
	if (t->running == TRI_YES)
		return "running";
	if (t->running == TRI_NO)
		return t->enabled == TRI_YES ? "not running, enabled at boot" : "not running";
	return t->enabled == TRI_YES ? "enabled at boot" : unknown;
}

void status_ratio_str(char *out, size_t n, const struct ratio *r, unsigned *seen, unsigned absent)
{
	char pct[24];
	fmt_pct(pct, sizeof(pct), r->num, r->den, 1);
	if (r->valid)
		snprintf(out, n, "%s (%llu of %llu)", pct, (unsigned long long)r->num,
			 (unsigned long long)r->den);
	else if (r->gap == RATIO_NO_EVENTS)
		snprintf(out, n, "no attempts yet");
	else
		snprintf(out, n, "%s",
			 status_dash(seen, r->gap == RATIO_WRAPS ? SD_UNKNOWN : absent));
}

void status_write_note(const struct host_snapshot *h, char *out, size_t n)
{
	int e = h->thp.write_err;
	if (!h->thp.present)
		snprintf(out, n, "-");
	else if (e == 0)
		snprintf(out, n, "yes");
	else if (e == -ENODATA)
		snprintf(out, n, "not recorded (no /sys line in a recorded proc/mounts)");
	else if (e == -EROFS)
		snprintf(out, n, "no: read-only here; host-wide setting");
	else if (e == -EACCES || e == -EPERM)
		snprintf(out, n, "no: %s (run as root to change)", strerror(-e));
	else
		snprintf(out, n, "no: %s", strerror(-e));
}
