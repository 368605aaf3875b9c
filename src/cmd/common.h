/* SPDX-License-Identifier: MIT */
#ifndef THPCTL_CMD_COMMON_H
#define THPCTL_CMD_COMMON_H

#include "../render/json.h"
#include "cmd.h"

/* Decide colour and open the sysroot. Returns EXIT_OK or EXIT_FAIL (after a message). */
int cmd_setup(struct globals *g);
/* Print ROOT to stdout and free it. EXIT_OK, or EXIT_FAIL on ENOMEM (ROOT NULL) or write error. */
int cmd_emit_json(json_t *root);

#endif
