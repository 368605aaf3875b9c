/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): each defines
 * LLVMFuzzerTestOneInput() over one parser. A property that does not hold
 * aborts through FUZZ_CHECK, which libFuzzer reports as a crash with the input.
 */
#ifndef THPCTL_FUZZ_H
#define THPCTL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__,        \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* DATA[0..SIZE) as a malloc'd NUL-terminated string (stops at an embedded NUL for C readers). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Call FN on each line of TEXT[0..LEN) without its newline (the last may lack one). */
#define FUZZ_EACH_LINE(text, len, line, n, body)                                                   \
	do {                                                                                       \
		const char *p_ = (text), *e_ = (text) + (len);                                     \
		while (p_ < e_) {                                                                  \
			const char *nl_ = memchr(p_, '\n', (size_t)(e_ - p_));                     \
			const char *line = p_;                                                     \
			size_t n = (size_t)((nl_ ? nl_ : e_) - p_);                                \
			body;                                                                      \
			p_ = nl_ ? nl_ + 1 : e_;                                                   \
		}                                                                                  \
	} while (0)

#endif
