// SPDX-License-Identifier: MIT
/*
 * thpctl-churn: the program `thpctl lab allocators` runs under each heap
 * allocator (LD_PRELOAD of Debian's libraries, or glibc's own malloc). A
 * separate program, built without sanitizers, because an allocator must be
 * the one from the start of a process (jemalloc's TLS cannot be dlopen()ed
 * and a sanitizer replaces malloc).
 *
 *   thpctl-churn THREADS OBJECTS MIN MAX KEEP_PERMILLE SEED
 *
 * Prints "start", waits for a line on stdin, then each of THREADS threads
 * allocates OBJECTS objects of MIN..MAX bytes (uniform, each written in full),
 * frees each with probability 1 - KEEP/1000 in random order and keeps the
 * rest; then the allocator is asked to return its free memory to the kernel
 * when it has a call for that (glibc malloc_trim(0), jemalloc
 * mallctl("arena.<all>.purge"), gperftools MallocExtension_ReleaseFreeMemory,
 * mimalloc mi_collect(true)), as a long-running service's allocator does over
 * time. Prints "ready LIVE_BYTES LIVE_OBJECTS ALLOCATED_BYTES RELEASE" and
 * keeps everything until stdin reaches its end. Exit 0, or 1 with a message.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct worker {
	pthread_t t;
	unsigned long objects, keep;
	size_t min, max;
	uint64_t rng;
	uint64_t live_bytes, live_objects, alloc_bytes;
	char **p;
	int err;
};

static pthread_barrier_t done;
static pthread_mutex_t quit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t quit_cond = PTHREAD_COND_INITIALIZER;
static int quit;

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	w->p = malloc(w->objects * sizeof(*w->p));
	if (!w->p) {
		w->err = ENOMEM;
	} else {
		for (unsigned long i = 0; i < w->objects; i++) {
			size_t n = w->min + (size_t)(next(&w->rng) % (w->max - w->min + 1));
			w->p[i] = malloc(n);
			if (!w->p[i]) {
				w->err = ENOMEM;
				w->objects = i;
				break;
			}
			memset(w->p[i], 0xa5, n);
			((size_t *)(void *)w->p[i])[0] = n; /* MIN >= sizeof(size_t) */
			w->alloc_bytes += n;
		}
		/* free in random order: a random permutation of the indexes */
		for (unsigned long i = w->objects; i > 1; i--) {
			unsigned long j = (unsigned long)(next(&w->rng) % i);
			char *t = w->p[i - 1];
			w->p[i - 1] = w->p[j];
			w->p[j] = t;
		}
		for (unsigned long i = 0; i < w->objects; i++) {
			if (next(&w->rng) % 1000 < w->keep) {
				w->live_bytes += ((size_t *)(void *)w->p[i])[0];
				w->live_objects++;
			} else {
				free(w->p[i]);
				w->p[i] = NULL;
			}
		}
	}
	/* stay alive: a thread's exit would flush its caches and arenas */
	pthread_barrier_wait(&done);
	pthread_mutex_lock(&quit_lock);
	while (!quit)
		pthread_cond_wait(&quit_cond, &quit_lock);
	pthread_mutex_unlock(&quit_lock);
	return NULL;
}

/* The allocator's call to give free memory back, found by name; its name or "none". */
static const char *release(void)
{
	int (*mallctl)(const char *, void *, size_t *, void *, size_t) =
		(int (*)(const char *, void *, size_t *, void *, size_t))dlsym(RTLD_DEFAULT,
									       "mallctl");
	if (mallctl) {
		mallctl("arena.4096.purge", NULL, NULL, NULL, 0); /* MALLCTL_ARENAS_ALL */
		return "mallctl(arena.all.purge)";
	}
	void (*gperf)(void) =
		(void (*)(void))dlsym(RTLD_DEFAULT, "MallocExtension_ReleaseFreeMemory");
	if (gperf) {
		gperf();
		return "MallocExtension_ReleaseFreeMemory()";
	}
	void (*mi)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "mi_collect");
	if (mi) {
		mi(1);
		return "mi_collect(true)";
	}
	malloc_trim(0);
	return "malloc_trim(0)";
}

static int arg(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
	char *e;
	errno = 0;
	unsigned long x = strtoul(s, &e, 10);
	if (!*s || *e || errno || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long threads, objects, min, max, keep, seed;
	if (argc != 7 || arg(argv[1], 1, 256, &threads) || arg(argv[2], 1, 1ul << 26, &objects) ||
	    arg(argv[3], sizeof(size_t), 1ul << 20, &min) || arg(argv[4], min, 1ul << 20, &max) ||
	    arg(argv[5], 0, 1000, &keep) || arg(argv[6], 0, ~0ul, &seed)) {
		fprintf(stderr, "usage: thpctl-churn THREADS OBJECTS MIN MAX KEEP_PERMILLE SEED\n");
		return 2;
	}
	printf("start\n");
	fflush(stdout);
	char line[64];
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	static struct worker w[256];
	pthread_barrier_init(&done, NULL, (unsigned)threads + 1);
	for (unsigned long i = 0; i < threads; i++) {
		w[i] = (struct worker){.objects = objects,
				       .keep = keep,
				       .min = min,
				       .max = max,
				       .rng = (seed + 1) * 0x9e3779b97f4a7c15ull + i * 7919 + 1};
		if (pthread_create(&w[i].t, NULL, work, &w[i])) {
			fprintf(stderr, "thpctl-churn: pthread_create failed\n");
			return 1;
		}
	}
	pthread_barrier_wait(&done);
	uint64_t live = 0, nlive = 0, alloc = 0;
	for (unsigned long i = 0; i < threads; i++) {
		if (w[i].err) {
			fprintf(stderr, "thpctl-churn: out of memory\n");
			return 1;
		}
		live += w[i].live_bytes;
		nlive += w[i].live_objects;
		alloc += w[i].alloc_bytes;
	}
	const char *rel = release();
	printf("ready %llu %llu %llu %s\n", (unsigned long long)live, (unsigned long long)nlive,
	       (unsigned long long)alloc, rel);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		;
	pthread_mutex_lock(&quit_lock);
	quit = 1;
	pthread_cond_broadcast(&quit_cond);
	pthread_mutex_unlock(&quit_lock);
	for (unsigned long i = 0; i < threads; i++)
		pthread_join(w[i].t, NULL);
	return 0;
}
