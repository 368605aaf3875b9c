/* SPDX-License-Identifier: MIT */
/*
 * A knob snapshot (model/snapshot.h) as a JSON document, and back:
 *
 *   {"thpctl_snapshot": 1, "kernel": "6.18.44-...", "date": "2025-...Z",
 *    "host": "name", "knobs": {"enabled": "madvise", "khugepaged/defrag": "1", ...}}
 */
#ifndef THPCTL_RENDER_SNAPSHOT_H
#define THPCTL_RENDER_SNAPSHOT_H

#include <jansson.h>
#include <stddef.h>

#include "../model/snapshot.h"

/* The JSON document for S (NULL on ENOMEM). */
json_t *snapshot_to_json(const struct snapshot *s);

/*
 * Parse a snapshot file's TEXT[0..LEN) into a JSON value (the caller's to json_decref), a key
 * seen twice in any object being damage (jansson's JSON_REJECT_DUPLICATES; else the last
 * would win silently). NULL on error, with the reason in WHY (N bytes): "line L: ...", the
 * key named, decoded, when one is seen twice. WHY may hold the file's bytes: escape it.
 */
json_t *snapshot_parse(const char *text, size_t len, char *why, size_t n);

/*
 * Read ROOT into S. Values may be strings or non-negative integers.
 * Returns 0, or -EINVAL with the reason in WHY (N bytes).
 */
int snapshot_from_json(const json_t *root, struct snapshot *s, char *why, size_t n);

/* The keys S could not read (s->bad), ", "-joined into OUT (N bytes, cut at a whole key);
 * returns OUT ("" when none). */
const char *snapshot_bad_names(const struct snapshot *s, char *out, size_t n);

#endif
