// SPDX-License-Identifier: MIT
#include "status_recent.h"

#include "../model/rates.h"
#include "json.h"
#include "status_int.h"
#include "table.h"

const char *status_recent_hint(const struct host_derived *d)
{
	return d->recent ? "" : "not sampled: thpctl status --sample 5 (rates: thpctl watch)";
}

static void rate_cell(struct table *t, const struct rate *r, double interval_s, unsigned *seen)
{
	if (r->state == RATE_ABSENT) /* not in vmstat */
		table_cell(t, "%s", status_dash(seen, SD_ABSENT));
	else if (r->state == RATE_NEW)
		table_cell(t, "- (appeared during the sample)");
	else
		table_cell(t, "%.1f/s (%llu in %.1f s)%s", r->per_s, (unsigned long long)r->delta,
			   interval_s, r->state == RATE_RESET ? " (counter reset)" : "");
}

void status_recent_render_text(FILE *f, const struct host_derived *d, bool color, unsigned *seen)
{
	const struct host_recent *rc = d->recent;
	if (!rc)
		return;
	fprintf(f, "\n%sLast %.0f s%s (two reads %.1f s apart, host-wide)\n", col_bold(color),
		rc->interval_s, col_reset(color), rc->interval_s);
	struct table *t = table_new(2, NULL, "ll");
	table_cell(t, "khugepaged CPU");
	if (rc->khugepaged_valid)
		table_cell(t, "%.2f%% of a CPU (%.2f s of CPU time over the last %.1f s)",
			   rc->khugepaged_cpu_ratio * 100, rc->khugepaged_cpu_s, rc->interval_s);
	else
		table_cell(t, "- (no [khugepaged] thread in both reads: THP off, or it restarted)");
	for (int c = 0; c < WC_N; c++) {
		table_cell(t, "%s", watch_col_key((enum watch_col)c));
		rate_cell(t, &rc->r[c], rc->interval_s, seen);
	}
	table_flush(t, f, 2, color);
}

json_t *status_recent_json(const struct host_derived *d)
{
	const struct host_recent *rc = d->recent;
	if (!rc)
		return json_null();
	json_t *o = json_object(), *cs = json_object();
	json_put(o, "interval_s", json_real(rc->interval_s));
	json_put(o, "khugepaged_cpu_ratio",
		 rc->khugepaged_valid ? json_real(rc->khugepaged_cpu_ratio) : NULL);
	json_put(o, "khugepaged_cpu_s",
		 rc->khugepaged_valid ? json_real(rc->khugepaged_cpu_s) : NULL);
	for (int c = 0; c < WC_N; c++) {
		const struct rate *r = &rc->r[c];
		json_t *x = NULL;
		if (rate_valid(r)) {
			x = json_object();
			json_put(x, "delta", json_u64(r->delta));
			json_put(x, "per_s", json_real(r->per_s));
			json_put(x, "reset", json_boolean(r->state == RATE_RESET));
		}
		json_put(cs, watch_col_key((enum watch_col)c), x);
	}
	json_put(o, "counters", cs);
	return o;
}
