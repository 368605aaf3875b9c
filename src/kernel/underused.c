// SPDX-License-Identifier: MIT
#include "underused.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"

size_t zero_subpages(const void *buf, size_t len, size_t page)
{
	const unsigned char *p = buf;
	size_t n = 0;
	for (size_t off = 0; off + page <= len; off += page) {
		const uint64_t *w = (const uint64_t *)(const void *)(p + off);
		uint64_t acc = 0;
		/* OR a page at a time: the compiler vectorises this loop */
		for (size_t i = 0; i < page / 8; i++)
			acc |= w[i];
		n += acc == 0;
	}
	return n;
}

int memfile_open(const struct sysroot *sr, pid_t pid)
{
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/mem", (int)pid);
	return sysroot_openat(sr, rel, O_RDONLY);
}

long memfile_zero_subpages(int fd, uint64_t addr, size_t len, size_t page, void *buf)
{
	size_t done = 0, zero = 0;
	while (done < len) {
		size_t want = len - done < MEMFILE_READ ? len - done : MEMFILE_READ;
		int r = pread_exact(fd, buf, want, addr + done);
		if (r)
			return r;
		zero += zero_subpages(buf, want, page);
		done += want;
	}
	return (long)zero;
}
