// SPDX-License-Identifier: MIT
/* Small formatters shared by the status renderers (status_int.h). */
#include <stdio.h>

#include "status_int.h"
#include "../util/units.h"

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
	char pct[24];
	fmt_pct(pct, sizeof(pct), r->num, r->den, 1);
	if (r->valid)
		snprintf(out, n, "%s (%llu of %llu)", pct, (unsigned long long)r->num,
			 (unsigned long long)r->den);
	else
		snprintf(out, n, "-");
}
