// SPDX-License-Identifier: MIT
#include "common.h"

#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_setup(struct globals *g)
{
	const char *nc = getenv("NO_COLOR");
	g->color = !g->json && !g->no_color && !(nc && *nc) && isatty(STDOUT_FILENO);
	int r = sysroot_open(&g->sr, g->sysroot_dir);
	if (r) {
		g->sr.dirfd = -1;
		warnx("cannot open sysroot %s: %s", g->sysroot_dir ? g->sysroot_dir : "/",
		      strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_emit_json(json_t *root)
{
	if (!root) {
		warnx("out of memory building JSON");
		return EXIT_FAIL;
	}
	int r = json_dump(root, stdout);
	json_decref(root);
	return r ? EXIT_FAIL : EXIT_OK;
}
