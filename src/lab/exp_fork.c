// SPDX-License-Identifier: MIT
/* lab fork: not implemented yet. */
#include "lab.h"

int lab_fork(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "fork: not implemented yet");
	return 0;
}
