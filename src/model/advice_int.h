/* SPDX-License-Identifier: MIT */
/* Internal to model/advice*.c: the wants, the decision context. */
#ifndef THPCTL_ADVICE_INT_H
#define THPCTL_ADVICE_INT_H

#include "advice.h"

enum ak { AK_ENABLED, AK_DEFRAG, AK_MPN, AK_SHRINK, AK_N };

struct want {
	enum ak key;
	unsigned accept;
	int prefer;
	uint64_t bound; /* AK_MPN: at most this; AK_SHRINK: the value */
	bool per_process;
	int wl;		    /* a workload, or -1 for a rule */
	struct adv_why why; /* its reason and who (why.who) */
	bool first;
};

#define MAX_WANTS 32

struct adv_ctx {
	const struct adv_input *in;
	struct advice *out;
	int nw;
	struct want w[MAX_WANTS];
	uint64_t pmd_pages; /* 512 on x86-64 */
	/* resolved */
	int enabled_now, defrag_now; /* index into the values, -1 unknown */
	int enabled_res, defrag_res;
	bool pp_off[WL_N]; /* this workload's wants were left to per-process levers */
};

/* Add the per-process levers of every active workload (advice_levers.c). */
void advice_levers(struct adv_ctx *c);

/* Add a note of kind K and id ID to A (NULL when ADV_MAX_NOTES are there); the caller adds evidence. */
struct adv_note *adv_note(struct advice *a, enum adv_note_kind k, enum adv_note_id id);

/* The notes of the advice in C (after its settings and levers are resolved). */
void advice_notes(struct adv_ctx *c);

/* What to change for each flagged process of C's input (model/remedy.h). */
void advice_remedies(struct adv_ctx *c);

#endif
