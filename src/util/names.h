/* SPDX-License-Identifier: MIT */
/*
 * Names of enum values from a designated-initializer table:
 *   static const char *const names[] = {[A] = "a", [B] = "b"};
 *   return ENUM_NAME(names, v, "?");
 */
#ifndef THPCTL_UTIL_NAMES_H
#define THPCTL_UTIL_NAMES_H

#include <stddef.h>

/* NAMES[V] when V is below N and that entry is set, else DFLT (which may be NULL). No errors. */
static inline const char *enum_name(const char *const *names, size_t n, unsigned v,
				    const char *dflt)
{
	return v < n && names[v] ? names[v] : dflt;
}

/* enum_name() over a whole array NAMES; V is converted to unsigned, so a negative value is out. */
#define ENUM_NAME(names, v, dflt)                                                                  \
	enum_name((names), sizeof(names) / sizeof((names)[0]), (unsigned)(v), (dflt))

#endif
