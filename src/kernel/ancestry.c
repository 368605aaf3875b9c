// SPDX-License-Identifier: MIT
#include "ancestry.h"

#include <stdio.h>
#include <string.h>

void thp_chain_walk(const struct sysroot *sr, struct buf *b, long ppid, struct thp_chain *c)
{
	memset(c, 0, sizeof(*c));
	c->stop_thp_enabled = -1;
	long pid = ppid;
	while (pid > 0 && c->n < THP_CHAIN_MAX) {
		struct proc_status st;
		if (sysroot_readf(sr, b, SR_PROC "/%ld/status", pid) ||
		    proc_status_parse(b->p, b->len, &st)) {
			c->cut = true;
			return;
		}
		if (st.thp_enabled != 0) {
			c->stop_thp_enabled = st.thp_enabled;
			c->stop_pid = pid;
			snprintf(c->stop_comm, sizeof(c->stop_comm), "%s", st.name);
			return;
		}
		c->a[c->n].pid = pid;
		snprintf(c->a[c->n].comm, sizeof(c->a[0].comm), "%s", st.name);
		c->n++;
		pid = st.ppid;
	}
}
