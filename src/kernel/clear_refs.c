// SPDX-License-Identifier: MIT
#include "clear_refs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int proc_clear_refs(const struct sysroot *sr, pid_t pid)
{
	if (!sr->live)
		return -EROFS;
	char rel[48];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/clear_refs", (int)pid);
	int fd = sysroot_openat(sr, rel, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fd;
	int e = write(fd, "1", 1) == 1 ? 0 : -errno;
	close(fd);
	return e;
}
