// SPDX-License-Identifier: MIT
/*
 * /proc/PID/status (kernel/proc_status.c): proc_status_parse(), and the same
 * text as /etc/passwd for passwd_lookup(). Properties: names are NUL-terminated
 * within their arrays; absent numbers are -1, present ones non-negative.
 */
#include "fuzz.h"

#include "kernel/proc_status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_status st;
	memset(&st, 0x5a, sizeof(st));
	if (proc_status_parse((const char *)data, size, &st) == 0) {
		FUZZ_CHECK(memchr(st.name, '\0', sizeof(st.name)) != NULL);
		FUZZ_CHECK(st.ppid >= -1 && st.uid >= -1 && st.tgid >= -1);
		/* a VmRSS is known or damaged, never both */
		FUZZ_CHECK(!(st.vmrss_kb.present && (st.bad & PS_BAD_VMRSS)));
		FUZZ_CHECK(st.thp_enabled >= -1 && st.kthread >= -1);
	}
	char user[32];
	if (passwd_lookup((const char *)data, size, 0, user, sizeof(user)) == 0)
		FUZZ_CHECK(memchr(user, '\0', sizeof(user)) != NULL);
	return 0;
}
