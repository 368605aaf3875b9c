// SPDX-License-Identifier: MIT
/* lab khugepaged: not implemented yet. */
#include "lab.h"

int lab_khugepaged(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	(void)ctx;
	(void)o;
	lab_skip(r, "khugepaged: not implemented yet");
	return 0;
}
