// SPDX-License-Identifier: MIT
/*
 * The stack pointer of /proc/PID/task/TID/syscall (kernel/task_sp.c). Oracle:
 * a line (trailing newlines and spaces dropped) of 3 or 9 space-separated
 * words whose last two are "0x" and 1..16 lowercase hex digits gives the
 * second-to-last; "running" is -EAGAIN; anything else -EINVAL.
 */
#include "fuzz.h"

#include <errno.h>

#include "kernel/task_sp.h"

static int hexword(const char *s, size_t n, uint64_t *v)
{
	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return -1;
	uint64_t x = 0;
	for (size_t i = 2; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

static int ref(const char *s, size_t n, uint64_t *sp)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	if (n == 7 && !memcmp(s, "running", 7))
		return -EAGAIN;
	size_t st[16], ln[16];
	int w = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && s[i] == ' ')
			i++;
		size_t b = i;
		while (i < n && s[i] != ' ')
			i++;
		if (i > b) {
			if (w == 16)
				return -EINVAL;
			st[w] = b;
			ln[w++] = i - b;
		}
	}
	uint64_t pc;
	if ((w != 3 && w != 9) || hexword(s + st[w - 2], ln[w - 2], sp) ||
	    hexword(s + st[w - 1], ln[w - 1], &pc))
		return -EINVAL;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	uint64_t a = 1, b = 2;
	int r = task_syscall_sp(s, size, &a), rr = ref(s, size, &b);
	FUZZ_CHECK(r == rr);
	if (r == 0)
		FUZZ_CHECK(a == b);
	return 0;
}
