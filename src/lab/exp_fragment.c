// SPDX-License-Identifier: MIT
/* lab fragment: not implemented yet. */
#include "lab.h"

int lab_fragment(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "fragment: not implemented yet");
	return 0;
}
