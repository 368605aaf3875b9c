// SPDX-License-Identifier: MIT
#include "common.h"
int cmd_ps(struct globals *g, int argc, char **argv)
{
	(void)g; (void)argc; (void)argv;
	return EXIT_FAIL;
}
int cmd_maps(struct globals *g, int argc, char **argv)
{
	(void)g; (void)argc; (void)argv;
	return EXIT_FAIL;
}
