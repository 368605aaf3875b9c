// SPDX-License-Identifier: MIT
#include "chase_verdict.h"

#include <stdio.h>

#include "common.h"

/* The headline word of a call (the clause says why). */
static const char *call_word(int call)
{
	static const char *const word[] = {[FASTER_YES] = "faster",
					   [FASTER_SLOWER] = "slower: unexpected",
					   [FASTER_SAME] = "no difference beyond +-10%",
					   [FASTER_FEW] = "inconclusive (too few runs)",
					   [FASTER_NOISY] = "inconclusive (host too noisy)",
					   [FASTER_BAD] = "inconclusive (no interval)"};
	return call >= 0 && call <= FASTER_BAD ? word[call] : "?";
}

/* every part below at its longest, each clause at LAB_CLAUSE_LEN: the verdict is never cut */
#define PREFIX_LEN 48 /* "UNEXPECTED (backing not as intended): " */
#define TAIL_LEN 80   /* "; see the smaps proof: ..." */
_Static_assert(PREFIX_LEN + 96 + LAB_MAX_SIZES * (LAB_CLAUSE_LEN + 16) + 192 + 128 + TAIL_LEN <=
		       sizeof(((struct lab_result *)0)->verdict),
	       "lab_result.verdict cannot hold chase's longest verdict");

void chase_verdict(struct lab_result *r, const struct chase_size_res *res, int nsizes, int nran,
		   bool guest)
{
	bool verified = true;
	int head = -1;
	long faults = 0;
	char parts[LAB_VERDICT_LEN] = "", sz[32];
	size_t off = 0;
	for (int i = 0; i < nsizes; i++) {
		if (!res[i].ran)
			continue;
		lab_fmt_size(sz, sizeof(sz), res[i].size);
		verified &= res[i].verified;
		faults += res[i].faults;
		if (head < 0 || res[i].size >= res[head].size)
			head = i;
		lab_catf(parts, sizeof(parts), &off, "%s%s at %s", off ? "; " : "", res[i].clause,
			 sz);
	}
	if (head < 0) {
		lab_verdict(r, false, "no size was timed (see proof)");
		return;
	}
	for (int i = 0; i < nsizes; i++)
		if (res[i].ran && res[i].call == FASTER_SLOWER)
			head = i;
	int call = res[head].call;
	bool undecided = call == FASTER_FEW || call == FASTER_NOISY || call == FASTER_BAD;
	char lead[96] = "", fl[128] = "", gl[192] = "";
	lab_fmt_size(sz, sizeof(sz), res[head].size);
	if (nran > 1)
		lab_fmt(lead, sizeof(lead), "%s at %s. ", call_word(call), sz);
	if (faults)
		lab_fmt(fl, sizeof(fl),
			"; %ld page faults inside the timed walks (see the timing proof): not a "
			"walk over populated memory",
			faults);
	if (guest && call == FASTER_SAME)
		snprintf(
			gl, sizeof(gl),
			"; a guest: as expected here (nested paging: the TLB holds 2 MiB only "
			"where the host backs the memory with huge pages too, unseen from inside)");
	bool ok = call == FASTER_YES || (guest && call == FASTER_SAME);
	lab_verdict(r, verified && !faults && ok, "%s%s%s%s%s; %s",
		    verified ? "" : "UNEXPECTED (backing not as intended): ", lead, parts, gl, fl,
		    verified ? "backing verified in region smaps AnonHugePages before timing"
			     : "see the smaps proof: the timing does not compare huge with small");
	/* faults inside the timing: what was timed is not the walk the verdict is about */
	r->inconclusive = verified && (undecided || faults);
}
