/* SPDX-License-Identifier: MIT */
/* Fixed-size result arrays: take the next item, zeroed, or learn that the array is full. */
#ifndef THPCTL_MODEL_SLOT_H
#define THPCTL_MODEL_SLOT_H

#include <stddef.h>
#include <string.h>

/*
 * The next free item of ARR (*N of MAX items of SIZE bytes in use), zeroed, with *N counted up;
 * NULL, *N unchanged, when all MAX are in use. No I/O, no other errors.
 */
static inline void *slot_take(void *arr, int *n, int max, size_t size)
{
	if (*n < 0 || *n >= max)
		return NULL;
	void *item = (char *)arr + (size_t)(*n)++ * size;
	memset(item, 0, size);
	return item;
}

/* slot_take() on a whole array member ARR counted by the int N: SLOT_TAKE(r->fix, r->nfix). */
#define SLOT_TAKE(arr, n)                                                                          \
	slot_take((arr), &(n), (int)(sizeof(arr) / sizeof((arr)[0])), sizeof((arr)[0]))

#endif
