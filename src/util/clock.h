/* SPDX-License-Identifier: MIT */
/* CLOCK_MONOTONIC readings for durations and deadlines (never wall time). */
#ifndef THPCTL_UTIL_CLOCK_H
#define THPCTL_UTIL_CLOCK_H

#include <stdint.h>

/* Monotonic time in nanoseconds, seconds and milliseconds since an arbitrary start. */
uint64_t mono_ns(void);
double mono_s(void);
double mono_ms(void);

#endif
