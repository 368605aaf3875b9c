// SPDX-License-Identifier: MIT
#include "alloc.h"

#include <errno.h>
#include <string.h>

#include "../kernel/proc_alloc.h"
#include "../kernel/proc_read.h"

/* RAW's evidence (its libraries from maps, or given by a walk when WALKED) decided into A. */
static int collect(const struct sysroot *sr, pid_t pid, struct alloc_raw *raw, bool walked,
		   struct alloc_fact *a)
{
	int r = walked ? proc_alloc_read_walked(sr, pid, raw) : proc_alloc_read(sr, pid, raw);
	if (r)
		return r;
	struct proc_info pi = {0};
	r = proc_read(sr, pid, PROC_ENVIRON, &pi);
	/* a title written over the environment (all NUL, or cut off) says nothing */
	bool env =
		!r && !pi.environ_err && pi.environ.len && pi.environ.p[pi.environ.len - 1] == '\0';
	alloc_decide(raw, env ? pi.environ.p : NULL, env ? pi.environ.len : 0, !sr->live, a);
	proc_info_free(&pi);
	return r == -ENOMEM ? r : 0;
}

int alloc_collect(const struct sysroot *sr, pid_t pid, struct alloc_fact *a)
{
	static struct alloc_raw raw;
	return collect(sr, pid, &raw, false, a);
}

int alloc_collect_walked(const struct sysroot *sr, pid_t pid, struct alloc_raw *raw,
			 struct alloc_fact *a)
{
	return collect(sr, pid, raw, true, a);
}
