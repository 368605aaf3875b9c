// SPDX-License-Identifier: MIT
#include "hint.h"

static bool run_as_root;

void hint_set_as_root(bool as_root)
{
	run_as_root = as_root;
}

bool hint_as_root(void)
{
	return run_as_root;
}

const char *hint_denied(void)
{
	return hint_proc_denied(run_as_root);
}
