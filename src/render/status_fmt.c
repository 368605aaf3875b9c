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

const char *status_tri_str(enum tri t)
{
	return t == TRI_YES ? "yes" : t == TRI_NO ? "no" : "-";
}

json_t *status_tri_json(enum tri t)
{
	return t == TRI_UNKNOWN ? json_null() : json_boolean(t == TRI_YES);
}

const char *status_choice_str(const struct choice *c)
{
	return c->present ? c->selected : "-";
}

void status_opt_str(char *out, size_t n, const struct opt_u64 *o)
{
	if (o->present)
		snprintf(out, n, "%llu", (unsigned long long)o->v);
	else
		snprintf(out, n, "-");
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
	json_put(root, "partial", json_boolean(h->nmissing > 0));
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

void status_ratio_str(char *out, size_t n, const struct ratio *r)
{
	char pct[24];
	fmt_pct(pct, sizeof(pct), r->num, r->den, 1);
	if (r->valid)
		snprintf(out, n, "%s (%llu of %llu)", pct, (unsigned long long)r->num,
			 (unsigned long long)r->den);
	else
		snprintf(out, n, "-");
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
