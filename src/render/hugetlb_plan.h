/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl hugetlb plan`. */
#ifndef THPCTL_RENDER_HUGETLB_PLAN_H
#define THPCTL_RENDER_HUGETLB_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/hugetlb_plan.h"

/* The lines that reserve the pool of a plan, as root: now, across reboots, at boot. */
struct hp_lines {
	int nruntime;
	char runtime_cmd[2][200]; /* now: sysctl -w or echo > sysfs */
	const char *persist_file; /* sysctl.d or tmpfiles.d file */
	char persist[200];	  /* its line */
	char cmdline[200];	  /* kernel command line parameters */
};

/* The lines for P (its target) from IN; none (nruntime 0, persist_file NULL, persist and
 * cmdline "") when P cannot be reserved (hp_plan_reservable). */
void hp_plan_lines(const struct hp_plan_input *in, const struct hp_plan *p, struct hp_lines *l);

/* Whether and how a runtime reservation can succeed, in words ("now: 2048 more pages ..."). */
void hp_runtime_text(const struct hp_plan_input *in, const struct hp_plan *p, char *out, size_t n);

#define HP_MAX_NOTES 7
#define HP_NOTE_LEN 480

/* P's notes (HP_NOTE_*) in words, in order, into OUT; returns how many. */
int hp_notes_text(const struct hp_plan_input *in, const struct hp_plan *p,
		  char out[HP_MAX_NOTES][HP_NOTE_LEN]);

void hp_render_text(FILE *f, const struct hp_plan_input *in, const struct hp_plan *p, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *hp_to_json(const struct hp_plan_input *in, const struct hp_plan *p);

#endif
