// SPDX-License-Identifier: MIT
/* A program file's linkage, read as data (kernel/exe_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "elf_scan.h"
#include "exe_file.h"

static int fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	return pread_exact(*(const int *)ctx, buf, n, off);
}

int exe_file_dynamic(const char *path, bool *dynamic)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = fstat(fd, &st) ? -errno : !S_ISREG(st.st_mode) ? -ENOEXEC : 0;
	struct elf_facts f = {0};
	if (!rc) {
		struct elf_src src = {fd_read, &fd, (uint64_t)st.st_size};
		rc = elf_scan(&src, 0, EA_NONE, &f);
		if (rc == -EINVAL || (!rc && !f.phdrs))
			rc = -ENOEXEC;
	}
	close(fd);
	if (!rc)
		*dynamic = f.dynamic;
	return rc;
}
