/* SPDX-License-Identifier: MIT */
/* Renderers of the host audit (`thpctl status`). They print; they open nothing. */
#ifndef THPCTL_RENDER_STATUS_H
#define THPCTL_RENDER_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/findings.h"
#include "../model/host.h"

void status_render_text(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			const struct findings *fs, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *status_to_json(const struct host_snapshot *h, const struct host_derived *d,
		       const struct findings *fs);

#endif
