// SPDX-License-Identifier: MIT
/* lab sparse: not implemented yet. */
#include "lab.h"

int lab_sparse(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "sparse: not implemented yet");
	return 0;
}
