/* SPDX-License-Identifier: MIT */
/* jansson helpers: valid JSON from whatever bytes the kernel gave us. */
#ifndef THPCTL_JSON_H
#define THPCTL_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct opt_u64; /* kernel/parse.h, through the model headers */
#include "../util/wide.h"

/* A JSON string of S[0..N); invalid UTF-8 bytes become U+FFFD. Never NULL unless ENOMEM. */
json_t *json_str_n(const char *s, size_t n);
json_t *json_str(const char *s);
/* An integer, or null when absent. */
json_t *json_opt_u64(const struct opt_u64 *o);
/*
 * An unsigned 64-bit integer, exact: above INT64_MAX (beyond jansson's json_int_t) it is a
 * marker string that json_dump()/json_dump_text() write as the bare decimal digits. Never
 * read such a value back with json_integer_value(); NULL only on ENOMEM.
 */
json_t *json_u64(uint64_t v);
/* An unsigned integer up to 2^128-1 (a sum or product of kernel numbers), exact, as json_u64. */
json_t *json_u128(u128 v);
/*
 * A virtual address as a lower-case hex string without 0x, as /proc/PID/maps writes it
 * ("7fc90c800000"): every document writes addresses so (addresses above 2^53, or 2^63:
 * [vsyscall], lose digits as JSON numbers in many readers). NULL only on ENOMEM.
 */
json_t *json_hex(uint64_t addr);
/* "start" and "end" of an address range in OBJ, each a json_hex() string. */
void json_put_hex_range(json_t *obj, uint64_t start, uint64_t end);
/* Set KEY in OBJ, taking ownership of V (NULL becomes json null). */
void json_put(json_t *obj, const char *key, json_t *v);

/*
 * An object of the KEY, VALUE pairs that follow, up to a NULL key (each value taken; NULL
 * becomes null). NULL on ENOMEM, the values released.
 */
json_t *json_obj(const char *key, json_t *v, ...) __attribute__((sentinel));

/*
 * Whether the new values *A, *B ... (a NULL-terminated list of json_t **) were all made:
 * when one is NULL (ENOMEM) every one is released and set to NULL, and the caller gives up.
 */
bool json_made(json_t **a, ...) __attribute__((sentinel));
/*
 * ROOT serialised with jansson FLAGS, u64 markers (json_u64) rewritten into their digits:
 * a malloc'd string, or NULL on ENOMEM. Every JSON document thpctl prints goes through it.
 */
char *json_dump_text(const json_t *root, size_t flags);
/* Rewrite the u64 marker tokens in jansson's TEXT in place; returns TEXT (NULL stays NULL). */
char *json_u64_unmark(char *text);
/*
 * The version of every JSON document's shape (docs/json/): a renamed, removed or retyped key
 * makes it 2. A document's first key is "schema": "thpctl.CMD/1" (CMD the command) or
 * "thpctl.CMD.VARIANT/1" for a second shape of one command (status --brief: status.brief).
 */
#define JSON_SCHEMA_VERSION 1
/*
 * ROOT (an object; it is taken) with "schema": "thpctl.CMD[.VARIANT]/1" put first and its own
 * keys after in their order. VARIANT may be NULL. Returns the new object, or NULL on ENOMEM
 * or when ROOT is NULL or not an object (ROOT is freed then too).
 */
json_t *json_with_schema(json_t *root, const char *cmd, const char *variant);
/* Dump ROOT to F (2-space indent) with a trailing newline. Returns 0, -ENOMEM or -EIO. */
int json_dump(json_t *root, FILE *f);
/* Makes item I of a streamed array (json_dump_streamed); NULL: out of memory. */
typedef json_t *(*json_item_fn)(size_t i, void *ctx);
/*
 * json_dump() of ROOT whose top-level array KEY (in ROOT, empty) holds N items that ITEM
 * makes: each made, written and freed before the next, so a document of 10 000 VMAs (maps)
 * never holds a tree of them (~27 MB, ~7000 fresh pages). The bytes are those json_dump()
 * of the whole would write. ROOT is freed. 0, -ENOMEM, -EIO, -EINVAL (no such empty array).
 */
int json_dump_streamed(json_t *root, FILE *f, const char *key, size_t n, json_item_fn item,
		       void *ctx);

#endif
