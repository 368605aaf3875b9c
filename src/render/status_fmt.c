// SPDX-License-Identifier: MIT
/* Small formatters shared by the status renderers (status_int.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "status_int.h"

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

void status_ratio_str(char *out, size_t n, const struct ratio *r)
{
	if (r->valid)
		snprintf(out, n, "%.1f%% (%llu of %llu)", r->value * 100,
			 (unsigned long long)r->num, (unsigned long long)r->den);
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
