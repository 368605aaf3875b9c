// SPDX-License-Identifier: MIT
/* lab chase: not implemented yet. */
#include "lab.h"

int lab_chase(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "chase: not implemented yet");
	return 0;
}
