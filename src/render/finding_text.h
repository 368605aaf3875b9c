/* SPDX-License-Identifier: MIT */
/*
 * The words of a finding (model/findings.h): its title, evidence, why and fix
 * sentences and the command that shows more, written from the facts the rule
 * recorded. Text and JSON both print these, so they cannot drift.
 */
#ifndef THPCTL_RENDER_FINDING_TEXT_H
#define THPCTL_RENDER_FINDING_TEXT_H

#include "../model/findings.h"

struct finding_text {
	char title[160];
	char evidence[256]; /* the values that triggered it */
	char fix[256];	    /* a command, with a '#' comment when it needs one */
	const char *why;    /* one line: why it matters */
	const char *more;   /* the thpctl command that shows more: its area's (finding_more), or
			     * its own ("thpctl advise" for shrink-underused-noop); runs as printed */
	char more_buf[96];  /* a command of the finding's own values, when MORE points here */
	const char
		*more_as; /* NULL, or who should run MORE ("as root"): said after it, not in it */
};

/* Write F's sentences into OUT. */
void finding_text(const struct finding *f, struct finding_text *out);

/*
 * When a defrag change may lessen compact_stall under defrag=madvise
 * (COMPACT_CAUSE_MADVISED): the condition after "consider ... defrag=defer, ",
 * the same in status's finding compact-stall and advise's watch note.
 */
const char *compact_madvised_condition(void);

/* The thpctl command that shows more about area A ("thpctl watch"). */
const char *finding_more(enum finding_area a);

#endif
