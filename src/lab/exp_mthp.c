// SPDX-License-Identifier: MIT
/* lab mthp: not implemented yet. */
#include "lab.h"

int lab_mthp(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "mthp: not implemented yet");
	return 0;
}
