/* SPDX-License-Identifier: MIT */
/*
 * Shared by test_smaps.c and test_smaps_damage.c: what a smaps callback saw
 * (struct seen, collect), a whole-text stream and a check of present fields.
 */
#ifndef THPCTL_TEST_SMAPS_H
#define THPCTL_TEST_SMAPS_H

#include "unit.h"

#include "kernel/smaps.h"

struct seen {
	int n;
	uint64_t start[8], end[8];
	char perms[8][5];
	char name[8][64];
	struct smaps_totals t[8];
	int thp_eligible[8];
	bool has_vmflags[8];
	unsigned vmflags[8];
	int stop_at; /* return 7 from the callback at this VMA (1-based); 0 = never */
};

static inline int collect(const struct smaps_vma *v, void *ctx)
{
	struct seen *s = ctx;
	if (s->n == 8)
		return -1;
	int i = s->n++;
	s->start[i] = v->start;
	s->end[i] = v->end;
	memcpy(s->perms[i], v->perms, 5);
	size_t l = v->name_len < 63 ? v->name_len : 63;
	memcpy(s->name[i], v->name, l);
	s->name[i][l] = '\0';
	s->t[i] = v->t;
	s->thp_eligible[i] = v->thp_eligible;
	s->has_vmflags[i] = v->has_vmflags;
	s->vmflags[i] = v->vmflags;
	return s->stop_at == s->n ? 7 : 0;
}

/*
 * Stream all of TEXT (LEN bytes) in one feed into a zeroed S and T; fails unless it
 * parses with NBAD damaged lines into NVMAS VMAs.
 */
static inline void stream_expect(const char *text, size_t len, struct seen *s,
				 struct smaps_totals *t, unsigned nbad, int nvmas)
{
	struct smaps_stream st;
	memset(s, 0, sizeof(*s));
	smaps_stream_init(&st, collect, s, t);
	assert_int_equal(smaps_stream_feed(&st, text, len), 0);
	assert_int_equal(smaps_stream_finish(&st), 0);
	assert_int_equal(st.nbad, nbad);
	assert_int_equal(s->n, nvmas);
}

#define B(f) (1u << (f))

/* T has each field of the bits YES (B(SM_...)) and none of the bits NO. */
static inline void expect_has(const struct smaps_totals *t, unsigned yes, unsigned no)
{
	for (int f = 0; f < SM_NFIELDS; f++) {
		if ((yes & B(f)) && !smaps_has(t, f))
			fail_msg("field %s is absent", smaps_field_name(f));
		if ((no & B(f)) && smaps_has(t, f))
			fail_msg("field %s is present", smaps_field_name(f));
	}
}

#endif
