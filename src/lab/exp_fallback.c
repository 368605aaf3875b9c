// SPDX-License-Identifier: MIT
/* lab fallback: not implemented yet. */
#include "lab.h"

int lab_fallback(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "fallback: not implemented yet");
	return 0;
}
