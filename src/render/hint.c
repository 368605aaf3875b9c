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

static bool live_user;

void hint_set_live_user(bool v)
{
	live_user = v;
}

bool hint_live_user(void)
{
	return live_user;
}

const char *hint_denied(void)
{
	return hint_proc_denied(run_as_root);
}
