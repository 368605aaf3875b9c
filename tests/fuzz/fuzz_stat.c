// SPDX-License-Identifier: MIT
/* /proc/PID/stat and statm (kernel/proc_status.c): proc_stat_parse(), proc_statm_parse(). */
#include "fuzz.h"

#include "kernel/proc_status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_stat st;
	memset(&st, 0x5a, sizeof(st));
	if (proc_stat_parse((const char *)data, size, &st) == 0)
		FUZZ_CHECK(memchr(st.comm, '\0', sizeof(st.comm)) != NULL);
	struct proc_statm sm;
	(void)proc_statm_parse((const char *)data, size, &sm);
	return 0;
}
