// SPDX-License-Identifier: MIT
#include "hot.h"

#include <stdbool.h>

static void hot_fmt_kb(char *out, size_t n, double kb)
{
	if (kb >= 1024 * 1024)
		snprintf(out, n, "%.1f GiB", kb / (1024 * 1024));
	else if (kb >= 1024)
		snprintf(out, n, "%.1f MiB", kb / 1024);
	else
		snprintf(out, n, "%.0f kB", kb);
}

/* Each call's id (JSON "call") and its words (text, JSON "text"). */
static const struct {
	const char *id, *words;
} calls[] = {
	[HOT_NO_CALIB] =
		{"no-calibration",
		 "no calibration: run thpctl lab tlb (root) to compare with the TLB reach"},
	[HOT_COLD] = {"cold", "nothing referenced in the interval: no translation pressure seen"},
	[HOT_FITS_4K] = {"fits-4k-reach",
			 "fits the 4 KiB TLB reach: little to gain from THP in translation"},
	[HOT_ALREADY_HUGE] = {"already-huge", "already mostly huge-backed: THP is doing its part"},
	[HOT_LIKELY_GAIN] = {"likely-gain", "likely to gain from THP; confirm with `thpctl ab`"},
	[HOT_BEYOND_2M] = {"beyond-2m-reach", "beyond the 2 MiB reach too: THP cuts misses, not "
					      "all; confirm with `thpctl ab`"},
	[HOT_ABITS_LOST] = {"inconclusive-abits-lost",
			    "inconclusive: this host lost accessed bits in the window (the probe "
			    "below), so the hot set read is only a lower bound"},
	[HOT_GUEST_LOW] =
		{"inconclusive-guest",
		 "inconclusive: in a guest of an unnamed hypervisor a process's accessed "
		 "bits can be lost even while a probe of thpctl's own pages keeps its bits "
		 "(a busy 64 MiB chase read under 1 MiB at times), so a small hot set, idle "
		 "or not, decides nothing here; confirm with `thpctl ab`"},
};

/* Call C's id (WORDS false) or its words; "?" for a value the table does not have. */
static const char *call_text(enum hot_call c, bool words)
{
	if ((unsigned)c >= sizeof(calls) / sizeof(calls[0]) || !calls[c].id)
		return "?";
	return words ? calls[c].words : calls[c].id;
}

void hot_render_text(FILE *f, const struct hot_report *h)
{
	const struct hot_verdict *v = h->v;
	char hot[32], x[96] = "";
	hot_fmt_kb(hot, sizeof(hot), (double)h->s->hot_kb);
	if (v->x4k >= 0)
		snprintf(x, sizeof(x), ", %.*fx the 4 KiB reach", v->x4k < 10 ? 1 : 0, v->x4k);
	fprintf(f, "\nhot set (%d s): %s%s, %.0f%% huge-backed%s:\n", h->seconds,
		v->abits_lost ? "at least " : "", hot, v->huge_share * 100, x);
	fprintf(f, "  %s\n", call_text(v->call, true));
	fprintf(f,
		"  method: wrote 1 to /proc/%d/clear_refs (clears its referenced bits: a\n"
		"  slight perturbation), waited %d s, summed smaps Referenced over %d VMAs;\n"
		"  huge-backed is an estimate (per VMA, Referenced x AnonHugePages/Rss), and a\n"
		"  referenced PMD-mapped THP counts whole\n",
		h->pid, h->seconds, h->s->vmas_hot);
	const struct hot_probe *p = h->probe;
	if (p && p->taken) {
		char tk[32], rk[32], line[320];
		hot_fmt_kb(tk, sizeof(tk), (double)p->touched_kb);
		hot_fmt_kb(rk, sizeof(rk), (double)p->ref_kb);
		snprintf(
			line, sizeof(line),
			"accessed-bit probe: thpctl cleared its own bits, touched %s of its own "
			"small pages %d times in the window and smaps read %s of it Referenced: %s",
			tk, p->touches, rk,
			v->abits_lost ? "bits lost (a guest whose hypervisor shadows page tables "
					"does this); the hot set is a lower bound"
				      : "bits kept");
		fprintf(f, "  %s\n", line);
	} else {
		fprintf(f, "  accessed-bit probe: not taken (no memory for it); the hot set is as "
			   "read\n");
	}
	if (!h->rec) {
		fprintf(f, "  TLB reach: none recorded (/var/lib/thpctl/lab-tlb)\n");
		return;
	}
	if (v->x2m >= 0)
		fprintf(f, "  2 MiB reach: hot set %.1fx it%s\n", v->x2m,
			v->reach2m_lower ? " (the reach is a lower bound: no step found)" : "");
	fprintf(f, "  calibration: lab tlb %s, %s%s\n", h->rec->time, h->rec->kernel,
		h->rec->guest ? ", guest" : "");
}

json_t *hot_to_json(const struct hot_report *h)
{
	const struct hot_verdict *v = h->v;
	json_t *o = json_object();
	json_object_set_new(o, "seconds", json_integer(h->seconds));
	json_object_set_new(o, "hot_kb", json_integer((json_int_t)h->s->hot_kb));
	json_object_set_new(o, "hot_huge_kb_estimate", json_real(h->s->hot_huge_kb));
	json_object_set_new(o, "huge_share_estimate", json_real(v->huge_share));
	json_object_set_new(o, "vmas_hot", json_integer(h->s->vmas_hot));
	json_object_set_new(o, "x_reach_4k", v->x4k >= 0 ? json_real(v->x4k) : json_null());
	json_object_set_new(o, "x_reach_2m", v->x2m >= 0 ? json_real(v->x2m) : json_null());
	json_object_set_new(o, "reach_2m_lower_bound", json_boolean(v->reach2m_lower));
	json_object_set_new(o, "calibration", h->rec ? json_string(h->rec->time) : json_null());
	const struct hot_probe *p = h->probe;
	json_t *pr = json_object();
	json_object_set_new(pr, "taken", json_boolean(p && p->taken));
	json_object_set_new(pr, "touched_kb",
			    p && p->taken ? json_integer((json_int_t)p->touched_kb) : json_null());
	json_object_set_new(pr, "referenced_kb",
			    p && p->taken ? json_integer((json_int_t)p->ref_kb) : json_null());
	json_object_set_new(pr, "touches", p && p->taken ? json_integer(p->touches) : json_null());
	json_object_set_new(pr, "lost", json_boolean(v->abits_lost));
	json_object_set_new(o, "abit_probe", pr);
	json_object_set_new(o, "hot_kb_lower_bound", json_boolean(v->abits_lost));
	json_object_set_new(o, "guest_unsure", json_boolean(v->guest_unsure));
	json_object_set_new(o, "call", json_string(call_text(v->call, false)));
	json_object_set_new(o, "text", json_string(call_text(v->call, true)));
	return o;
}
