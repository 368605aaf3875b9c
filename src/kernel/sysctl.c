// SPDX-License-Identifier: MIT
#include "../util/esc.h"
#include "sysctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/buf.h"

int sysctl_read_line(const struct sysroot *sr, const char *group, const char *name, char *out,
		     size_t n)
{
	if (n)
		out[0] = '\0';
	if (strchr(group, '/') || strchr(name, '/') || strstr(name, "..") || !*name || !n)
		return -EINVAL;
	struct buf b = {0};
	int r = sysroot_readf(sr, &b, SR_PROC "/sys/%s/%s", group, name);
	if (!r) {
		size_t l = b.p ? strcspn(b.p, "\n") : 0;
		if (l >= n)
			r = -E2BIG;
		else if (esc_needed(b.p, l, ESC_KEEP_TAB))
			r = -EINVAL; /* a control byte or invalid UTF-8: no kernel prints that */
		else if (l)
			memcpy(out, b.p, l), out[l] = '\0';
	}
	buf_free(&b);
	return r;
}
