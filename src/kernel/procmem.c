// SPDX-License-Identifier: MIT
#include "procmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "pagemap.h"
#include "uapi_compat.h"

int procmem_pidfd_open(pid_t pid)
{
	long fd = syscall(__NR_pidfd_open, pid, 0);
	return fd < 0 ? -errno : (int)fd;
}

int procmem_pidfd_alive(int pidfd)
{
	if (syscall(__NR_pidfd_send_signal, pidfd, 0, NULL, 0U) == 0 || errno == EPERM)
		return 1;
	return errno == ESRCH ? 0 : -errno;
}

long long procmem_madvise(int pidfd, uint64_t start, uint64_t len, int advice)
{
	struct iovec iov = {.iov_base = (void *)(uintptr_t)start, .iov_len = (size_t)len};
	long r;
	do
		r = syscall(__NR_process_madvise, pidfd, &iov, 1UL, advice, 0U);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

int procmem_pagemap_open(const struct sysroot *sr, pid_t pid)
{
	char rel[64];
	if (pid)
		snprintf(rel, sizeof(rel), SR_PROC "/%d/pagemap", (int)pid);
	else
		snprintf(rel, sizeof(rel), SR_PROC "/self/pagemap");
	return sysroot_openat(sr, rel, O_RDONLY);
}

int procmem_kpageflags_open(const struct sysroot *sr)
{
	return sysroot_openat(sr, SR_PROC "/kpageflags", O_RDONLY);
}

int procmem_populated(int fd, uint64_t start, uint64_t npages, long page_size, uint64_t *count)
{
	uint64_t ent[512];
	uint64_t done = 0, c = 0;
	if (page_size <= 0)
		return -EINVAL;
	while (done < npages) {
		uint64_t want = npages - done < 512 ? npages - done : 512;
		uint64_t off = (start / (uint64_t)page_size + done) * sizeof(uint64_t);
		int r = pread_exact(fd, ent, want * sizeof(uint64_t), off);
		if (r)
			return r;
		for (uint64_t i = 0; i < want; i++)
			if (ent[i] & ((1ULL << PM_PRESENT_BIT) | (1ULL << PM_SWAP_BIT)))
				c++;
		done += want;
	}
	*count = c;
	return 0;
}

int procmem_pmd_mapped(int fd, uint64_t start, uint64_t pmd, bool *zero)
{
	struct pm_range out[2];
	uint64_t next;
	*zero = false;
	/* one PMD mapping is one region: [START, START + PMD), HUGE (and PRESENT) */
	int n = pagemap_scan(fd, start, start + pmd, out, 2, &next);
	if (n < 0)
		return n;
	if (n != 1 || out[0].start != start || out[0].end != start + pmd ||
	    !(out[0].cat & PAGE_IS_HUGE))
		return 0;
	*zero = (out[0].cat & PAGE_IS_PFNZERO) != 0;
	return 1;
}
