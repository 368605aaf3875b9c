// SPDX-License-Identifier: MIT
#include "clear_refs.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "proc_read.h"

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

#define PROBE_PAGE 4096u

int abit_probe_start(const struct sysroot *sr, struct abit_probe *p, size_t kb)
{
	memset(p, 0, sizeof(*p));
	if (!sr->live)
		return -EROFS;
	size_t len = kb * 1024;
	if (!len)
		return -EINVAL;
	void *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return -errno;
	(void)madvise(b, len, MADV_NOHUGEPAGE); /* small pages: the target's worst case */
	memset(b, 1, len);
	int e = proc_clear_refs(sr, getpid());
	if (e) {
		munmap(b, len);
		return e;
	}
	p->buf = b;
	p->len = len;
	abit_probe_touch(p);
	p->touched_kb = kb;
	return 0;
}

void abit_probe_touch(struct abit_probe *p)
{
	if (!p->buf)
		return;
	volatile const char *b = p->buf;
	unsigned sum = 0;
	for (size_t i = 0; i < p->len; i += PROBE_PAGE)
		sum += (unsigned)b[i];
	(void)sum;
	p->touches++;
}

struct probe_find {
	uint64_t start;
	uint64_t ref_kb;
	bool found;
};

static int probe_vma(const struct smaps_vma *v, void *ctx)
{
	struct probe_find *f = ctx;
	if (v->start != f->start)
		return 0;
	f->ref_kb = v->t.kb[SM_REFERENCED];
	f->found = true;
	return 1; /* stop: found */
}

int abit_probe_read(const struct sysroot *sr, const struct abit_probe *p, uint64_t *ref_kb)
{
	if (!p->buf)
		return -EINVAL;
	static struct proc_info pi;
	memset(&pi, 0, sizeof(pi));
	struct probe_find f = {(uint64_t)(uintptr_t)p->buf, 0, false};
	pi.vma_cb = probe_vma;
	pi.vma_ctx = &f;
	int e = proc_read(sr, getpid(), PROC_SMAPS, &pi);
	proc_info_free(&pi);
	if (!f.found)
		return e ? e : -ENOENT;
	*ref_kb = f.ref_kb;
	return 0;
}

void abit_probe_end(struct abit_probe *p)
{
	if (p->buf)
		munmap(p->buf, p->len);
	memset(p, 0, sizeof(*p));
}
