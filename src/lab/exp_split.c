// SPDX-License-Identifier: MIT
/* lab split: not implemented yet. */
#include "lab.h"

int lab_split(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "split: not implemented yet");
	return 0;
}
