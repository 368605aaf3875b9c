// SPDX-License-Identifier: MIT
#include "region.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/uapi_compat.h"
#include "../util/clock.h"

int region_map(struct region *r, size_t len, size_t align)
{
	memset(r, 0, sizeof(*r));
	if (!len || !align || (align & (align - 1)))
		return -EINVAL;
	size_t maplen = len + align;
	void *m = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	uintptr_t a = ((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1);
	/* trim both ends so the VMA is exactly the aligned region */
	size_t head = a - (uintptr_t)m, tail = maplen - head - len;
	if (head)
		munmap(m, head);
	if (tail)
		munmap((char *)a + len, tail);
	r->p = (char *)a;
	r->len = len;
	r->map = (void *)a;
	r->maplen = len;
	return 0;
}

void region_unmap(struct region *r)
{
	if (r->map)
		munmap(r->map, r->maplen);
	memset(r, 0, sizeof(*r));
}

int region_advise(struct region *r, enum lab_mode mode)
{
	int adv;
	switch (mode) {
	case MODE_MADV:
	case MODE_NOTHP:
		adv = MADV_HUGEPAGE;
		break;
	case MODE_NOHUGE:
		adv = MADV_NOHUGEPAGE;
		break;
	default:
		return 0;
	}
	return madvise(r->p, r->len, adv) ? -errno : 0;
}

size_t region_touch(struct region *r, size_t offset, size_t stride)
{
	size_t n = 0;
	volatile char *p = (volatile char *)r->p;
	for (size_t o = offset; o < r->len; o += stride, n++)
		p[o] = 1;
	return n;
}

int region_collapse(struct region *r)
{
	return madvise(r->p, r->len, MADV_COLLAPSE) ? -errno : 0;
}

long minflt_self(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int lab_prepare_state(enum lab_state state, size_t len)
{
	if (state == STATE_COLD) {
		/* free-page reporting hands freed memory back after ~2 s */
		sleep(6);
		return 0;
	}
	if (state != STATE_WARM)
		return 0;
	size_t n = len + (64u << 20);
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/*
	 * What makes it warm is that the guest pages behind it are backed by the
	 * host again, and it is cheapest when the kernel populates them in one
	 * call (MADV_POPULATE_WRITE, 5.14+) instead of a user fault per base
	 * page: 320 MiB took 0.3-1.7 s here against 5-17 s touched page by page
	 * (load 13). Small pages on purpose: MADV_HUGEPAGE would make each
	 * 2 MiB fault compact first (defrag=madvise), 3.5-8.6 s for the same
	 * 320 MiB. Freed, they are the unreported blocks the next allocation
	 * takes first, whatever its page size. Before 5.14: the loop below.
	 */
	madvise(p, n, MADV_NOHUGEPAGE);
	if (madvise(p, n, MADV_POPULATE_WRITE)) {
		long pg = sysconf(_SC_PAGESIZE);
		for (size_t o = 0; o < n; o += (size_t)pg)
			((volatile char *)p)[o] = 1;
	}
	munmap(p, n);
	return 0;
}

int lab_in_child(int (*fn)(void *arg, void *out), void *arg, void *out, size_t out_len, bool nothp)
{
	void *shared =
		mmap(NULL, out_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	memset(shared, 0, out_len);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		munmap(shared, out_len);
		return -e;
	}
	if (pid == 0) {
		if (nothp && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			_exit(126);
		_exit(fn(arg, shared) & 0x7f);
	}
	int st, ret;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			munmap(shared, out_len);
			return -errno;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 126)
		ret = -ECHILD;
	else
		ret = WEXITSTATUS(st);
	memcpy(out, shared, out_len);
	munmap(shared, out_len);
	return ret;
}
