// SPDX-License-Identifier: MIT
/*
 * thpctl-sweep.so: the opt-in LD_PRELOAD helper of `thpctl ab --sweep`. With
 * THPCTL_SWEEP_PERCENT=P (an integer 0..100) in the environment, every
 * anonymous private region of at least 2 MiB the program gets has its
 * PMD-aligned 2 MiB slots advised: MADV_HUGEPAGE on a share P% of them,
 * MADV_NOHUGEPAGE on the rest, interleaved by one counter for the whole process
 * (slot i is huge when floor((i+1)P/100) > floor(iP/100)), so about P% of the
 * memory the program touches can be huge-backed whatever the host's `enabled`
 * (madvise or always; never leaves it all small). Absent or invalid P: the
 * helper does nothing.
 *
 * Covered: mmap()/mmap64() called by the program (anonymous, private), and the
 * blocks of at least 2 MiB that malloc, calloc, realloc, posix_memalign,
 * aligned_alloc and memalign return (glibc's malloc maps big blocks with its
 * own internal mmap, which no preload sees, so the block is advised after the
 * allocator returns it: slots wholly inside it, mmap'd or from the brk heap).
 * Not covered: smaller allocations (the heap's small objects), memory the
 * program maps by a raw syscall, and advice the program gives itself later
 * (its own madvise wins). A block that realloc grows is advised again as a
 * whole, its slots drawn anew from the counter. Every region split by the
 * advice is a VMA: at 50% one per slot, so a heap of many GiB can reach
 * vm.max_map_count, after which madvise fails and the rest is left as it is.
 *
 * The wrappers allocate nothing and print nothing: the real functions are
 * found with dlsym(RTLD_NEXT) once (a constructor, or the first call), the
 * share is read once, the slot counter is an atomic.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SLOT (2UL << 20)

static int percent = -1; /* -1: off */
static unsigned long slot_no;

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mmap64)(void *, size_t, int, int, int, off_t);
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

static __thread int resolving; /* dlsym may allocate: those calls get NULL */

static void resolve(void)
{
	resolving = 1;
	real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	real_mmap64 = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap64");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	resolving = 0;
}

__attribute__((constructor)) static void sweep_init(void)
{
	const char *s = getenv("THPCTL_SWEEP_PERCENT");
	int v = 0, digits = 0;
	for (const char *p = s; p && *p; p++, digits++) {
		if (*p < '0' || *p > '9' || digits >= 3) {
			digits = -1;
			break;
		}
		v = v * 10 + (*p - '0');
	}
	if (digits > 0 && v <= 100)
		percent = v;
	if (!real_malloc)
		resolve();
}

/* Advise the whole 2 MiB slots inside [P, P+LEN): runs of one kind in one madvise each. */
static void advise(void *p, size_t len)
{
	if (percent < 0 || len < SLOT)
		return;
	uintptr_t lo = ((uintptr_t)p + SLOT - 1) & ~(SLOT - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(SLOT - 1);
	if (hi <= lo)
		return;
	unsigned long n = (unsigned long)((hi - lo) / SLOT);
	unsigned long first = __atomic_fetch_add(&slot_no, n, __ATOMIC_RELAXED);
	unsigned long run_start = 0;
	int run_huge = -1;
	for (unsigned long k = 0; k <= n; k++) {
		int huge = -1;
		if (k < n) {
			unsigned long i = first + k;
			huge = (i + 1) * (unsigned long)percent / 100 >
			       i * (unsigned long)percent / 100;
		}
		if (huge == run_huge)
			continue;
		if (run_huge >= 0 &&
		    madvise((void *)(lo + run_start * SLOT), (k - run_start) * SLOT,
			    run_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
			return; /* ENOMEM at max_map_count, EINVAL without THP: leave the rest */
		run_start = k;
		run_huge = huge;
	}
}

static void *map_common(void *(*fn)(void *, size_t, int, int, int, off_t), void *addr, size_t len,
			int prot, int flags, int fd, off_t off)
{
	int e = errno;
	void *r = fn ? fn(addr, len, prot, flags, fd, off)
		     : (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	if (r != MAP_FAILED && (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE) {
		advise(r, len);
		errno = e;
	}
	return r;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_common(real_mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return map_common(real_mmap64 ? real_mmap64 : real_mmap, addr, len, prot, flags, fd, off);
}

/* A block of N bytes at P from the allocator: advised when big (errno kept). */
static void *block(void *p, size_t n)
{
	if (p && n >= SLOT) {
		int e = errno;
		advise(p, n);
		errno = e;
	}
	return p;
}

void *malloc(size_t n)
{
	if (!real_malloc) {
		if (resolving)
			return NULL;
		resolve();
	}
	return real_malloc ? block(real_malloc(n), n) : NULL;
}

void *calloc(size_t k, size_t n)
{
	if (!real_calloc) {
		if (resolving)
			return NULL; /* dlsym's own buffer: it copes with NULL */
		resolve();
	}
	if (!real_calloc)
		return NULL;
	size_t total;
	if (__builtin_mul_overflow(k, n, &total))
		return real_calloc(k, n);
	return block(real_calloc(k, n), total);
}

void *realloc(void *p, size_t n)
{
	if (!real_realloc) {
		if (resolving)
			return NULL;
		resolve();
	}
	return real_realloc ? block(real_realloc(p, n), n) : NULL;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (!real_posix_memalign)
		resolve();
	if (!real_posix_memalign)
		return ENOMEM;
	int r = real_posix_memalign(out, align, n);
	if (!r)
		block(*out, n);
	return r;
}

void *aligned_alloc(size_t align, size_t n)
{
	if (!real_aligned_alloc)
		resolve();
	return real_aligned_alloc ? block(real_aligned_alloc(align, n), n) : NULL;
}

void *memalign(size_t align, size_t n)
{
	if (!real_memalign)
		resolve();
	return real_memalign ? block(real_memalign(align, n), n) : NULL;
}
