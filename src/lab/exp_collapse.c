// SPDX-License-Identifier: MIT
/* lab collapse: not implemented yet. */
#include "lab.h"

int lab_collapse(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "collapse: not implemented yet");
	return 0;
}
