/* SPDX-License-Identifier: MIT */
/* jansson helpers: valid JSON from whatever bytes the kernel gave us. */
#ifndef THPCTL_JSON_H
#define THPCTL_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../kernel/parse.h"

/* A JSON string of S[0..N); invalid UTF-8 bytes become U+FFFD. Never NULL unless ENOMEM. */
json_t *json_str_n(const char *s, size_t n);
json_t *json_str(const char *s);
/* An integer, or null when absent. */
json_t *json_opt_u64(const struct opt_u64 *o);
json_t *json_u64(uint64_t v);
/*
 * "start" and "end" of an address range in OBJ as lower-case hex strings without 0x
 * (addresses above 2^53, or 2^63: [vsyscall], lose digits as JSON numbers).
 */
void json_put_hex_range(json_t *obj, uint64_t start, uint64_t end);
/* Set KEY in OBJ, taking ownership of V (NULL becomes json null). */
void json_put(json_t *obj, const char *key, json_t *v);
/* Dump ROOT to F with a trailing newline. Returns 0 or -EIO. */
int json_dump(json_t *root, FILE *f);

#endif
