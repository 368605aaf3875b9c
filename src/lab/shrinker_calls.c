// SPDX-License-Identifier: MIT
#include "shrinker_calls.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool sh_pressed(int err)
{
	return err == 0 || err == -EBUSY || err == -EAGAIN;
}

enum claim_call sh_split_call(const struct sh_phase *p)
{
	if (!p->ok || p->thps < 1 || p->ahp0 <= 0)
		return CLAIM_INCONCLUSIVE;
	bool gone = p->ahp1 <= p->ahp0 * 0.10, kept = p->ahp1 >= p->ahp0 * 0.90;
	if (gone && p->split >= p->thps * 0.9)
		return CLAIM_CONFIRMED;
	if (kept && p->split == 0 && p->pressed)
		return CLAIM_CONTRADICTED;
	return CLAIM_INCONCLUSIVE;
}

static const char *did(enum claim_call c, const struct sh_phase *p)
{
	return c == CLAIM_CONFIRMED	 ? "split"
	       : c == CLAIM_CONTRADICTED ? "kept"
	       : p->ok && !p->pressed	 ? "no pressure"
					 : "unclear";
}

void sh_claims_and_verdict(struct lab_result *r, const struct sh_phase *p, int n)
{
	long top = -1;
	for (int i = 0; i < n; i++)
		if (p[i].mpn > top)
			top = p[i].mpn;
	/* each phase's words whole ("at 511: AnonHugePages 16777216 -> 16777216 kB, counter
	 * +8192 (unclear)"): a claim's here holds two, the verdict all; "..." if ever longer */
	char here_lo[sizeof(r->claims[0].here)] = "", here_top[sizeof(r->claims[0].here)] = "";
	char all[LAB_MAX_PHASES * 128] = "";
	size_t kl = 0, ka = 0;
	int below = 0, split = 0, kept = 0;
	enum claim_call at_top = CLAIM_INCONCLUSIVE;
	bool made = n > 0, read = n > 0;
	for (int i = 0; i < n; i++) {
		enum claim_call c = sh_split_call(&p[i]);
		read &= p[i].ok;
		made &= !p[i].ok || p[i].thps >= 1;
		char one[128], a0[24], a1[24], sp[24];
		/* a measure not read (< 0) is "-", never a plausible 0 */
		lab_fmt(one, sizeof(one), "at %ld: AnonHugePages %s -> %s kB, counter %s (%s)",
			p[i].mpn, lab_fmt_num(a0, sizeof(a0), p[i].ahp0, 0),
			lab_fmt_num(a1, sizeof(a1), p[i].ahp1, 0),
			p[i].split >= 0 ? lab_fmt_delta(sp, sizeof(sp), p[i].split) : "-",
			did(c, &p[i]));
		lab_catf(all, sizeof(all), &ka, "%s%s", ka ? "; " : "", one);
		if (p[i].mpn == top) {
			at_top = c;
			lab_fmt(here_top, sizeof(here_top), "%s", one);
			continue;
		}
		below++;
		split += c == CLAIM_CONFIRMED;
		kept += c == CLAIM_CONTRADICTED;
		lab_catf(here_lo, sizeof(here_lo), &kl, "%s%s", kl ? "; " : "", one);
	}
	enum claim_call c1 = below && split == below  ? CLAIM_CONFIRMED
			     : below && kept == below ? CLAIM_CONTRADICTED
						      : CLAIM_INCONCLUSIVE;
	lab_claim(r,
		  "shrink_underused splits THPs with more than max_ptes_none zero pages under "
		  "memory pressure",
		  "kernel docs, transparent_hugepage shrink_underused (6.12)", here_lo, c1, "%s",
		  c1 == CLAIM_CONFIRMED ? "every phase below the top: AnonHugePages gone and the "
					  "counter up by its THPs"
		  : c1 == CLAIM_CONTRADICTED
			  ? "every phase below the top: AnonHugePages kept, the "
			    "counter unmoved, under pressure"
			  : "a phase's two measures disagree, it was not read, or its pressure did "
			    "not reach reclaim (kept without pressure proves nothing)");
	enum claim_call c2 = at_top == CLAIM_CONFIRMED	    ? CLAIM_CONTRADICTED
			     : at_top == CLAIM_CONTRADICTED ? CLAIM_CONFIRMED
							    : CLAIM_INCONCLUSIVE;
	lab_claim(r, "at max_ptes_none=511 the underused shrinker splits nothing",
		  "mm/huge_memory.c thp_underused() (Oct 2025 sources)", here_top, c2, "%s",
		  c2 == CLAIM_CONFIRMED
			  ? "AnonHugePages kept and the counter unmoved under pressure"
		  : c2 == CLAIM_CONTRADICTED
			  ? "AnonHugePages gone and the counter up by its THPs"
			  : "the two measures disagree, it was not read, or the pressure did not "
			    "reach reclaim");
	if (made && !read) { /* a phase's measures not read: nothing is decided */
		lab_verdict(r, false, "inconclusive: a phase was not read: %s", all);
		r->inconclusive = true;
		return;
	}
	lab_verdict(r, made, "%s%s", made ? "" : "UNEXPECTED: no THPs made in a phase: ", all);
}
