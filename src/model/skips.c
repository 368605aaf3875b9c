// SPDX-License-Identifier: MIT
/* A bundle's skipped members as facts (model/skips.h). */
#include "skips.h"

#include "../util/str.h"

void bundle_skips_of(const struct sr_skips *sk, struct bundle_skips *out)
{
	*out = (struct bundle_skips){.total = sk->n};
	out->n = sk->n < SKIPS_MAX ? (size_t)sk->n : SKIPS_MAX;
	for (size_t i = 0; i < out->n; i++)
		str_copy(out->names[i], sizeof(out->names[i]), sk->names[i]);
}
