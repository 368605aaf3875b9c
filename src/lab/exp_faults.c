// SPDX-License-Identifier: MIT
/* lab faults: not implemented yet. */
#include "lab.h"

int lab_faults(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "faults: not implemented yet");
	return 0;
}
