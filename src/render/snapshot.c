// SPDX-License-Identifier: MIT
#include "snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

json_t *snapshot_to_json(const struct snapshot *s)
{
	json_t *root = json_object(), *knobs = json_object();
	if (!json_made(&root, &knobs, NULL))
		return NULL;
	json_put(root, "thpctl_snapshot", json_integer(SNAPSHOT_FORMAT));
	json_put(root, "kernel", json_str(s->kernel));
	json_put(root, "date", json_str(s->date));
	json_put(root, "host", json_str(s->host));
	for (int i = 0; i < s->n; i++)
		json_put(knobs, s->kv[i].key, json_str(s->kv[i].value));
	json_put(root, "knobs", knobs);
	return json_with_schema(root, "snapshot", NULL);
}

/* The key token that ends just before TEXT[END] ('"' at END-1), decoded into OUT; 0 or -1. */
static int key_before(const char *text, size_t end, char *out, size_t n)
{
	if (end < 2 || text[end - 1] != '"')
		return -1;
	for (size_t i = end - 1; i-- > 0;) {
		if (text[i] != '"')
			continue;
		size_t bs = 0; /* an escaped quote is inside the key */
		while (bs < i && text[i - 1 - bs] == '\\')
			bs++;
		if (bs % 2)
			continue;
		json_error_t je;
		json_t *k = json_loadb(text + i, end - i, JSON_DECODE_ANY, &je);
		int r = json_is_string(k) ? 0 : -1;
		if (!r)
			snprintf(out, n, "%s", json_string_value(k));
		json_decref(k);
		return r;
	}
	return -1;
}

json_t *snapshot_parse(const char *text, size_t len, char *why, size_t n)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (root)
		return root;
	char key[KNOB_KEY_LEN + 8];
	if (json_error_code(&je) == json_error_duplicate_key && je.position > 0 &&
	    (size_t)je.position <= len && !key_before(text, (size_t)je.position, key, sizeof(key)))
		snprintf(why, n, "line %d: the key \"%s\" is given twice (a damaged snapshot)",
			 je.line, key);
	else if (json_error_code(&je) == json_error_duplicate_key)
		snprintf(why, n, "line %d: a key is given twice (a damaged snapshot)", je.line);
	else if (je.line < 1)
		snprintf(why, n, "%s", je.text);
	else
		snprintf(why, n, "line %d: %s", je.line, je.text);
	return NULL;
}

static void copy_str(const json_t *o, const char *key, char *out, size_t n)
{
	const json_t *v = json_object_get(o, key);
	snprintf(out, n, "%s", json_is_string(v) ? json_string_value(v) : "");
}

int snapshot_from_json(const json_t *root, struct snapshot *s, char *why, size_t n)
{
	memset(s, 0, sizeof(*s));
	if (!json_is_object(root)) {
		snprintf(why, n, "not a JSON object");
		return -EINVAL;
	}
	const json_t *fmt = json_object_get(root, "thpctl_snapshot");
	if (!json_is_integer(fmt)) {
		snprintf(why, n, "not a thpctl snapshot (no \"thpctl_snapshot\" key)");
		return -EINVAL;
	}
	if (json_integer_value(fmt) != SNAPSHOT_FORMAT) {
		snprintf(why, n, "snapshot format %" JSON_INTEGER_FORMAT " (this thpctl reads %d)",
			 json_integer_value(fmt), SNAPSHOT_FORMAT);
		return -EINVAL;
	}
	copy_str(root, "kernel", s->kernel, sizeof(s->kernel));
	copy_str(root, "date", s->date, sizeof(s->date));
	copy_str(root, "host", s->host, sizeof(s->host));
	const json_t *knobs = json_object_get(root, "knobs");
	if (!json_is_object(knobs)) {
		snprintf(why, n, "no \"knobs\" object");
		return -EINVAL;
	}
	const char *key;
	const json_t *v;
	json_object_foreach((json_t *)knobs, key, v)
	{
		if (s->n == PLAN_MAX) {
			snprintf(why, n, "more than %d knobs", PLAN_MAX);
			return -EINVAL;
		}
		struct knob_kv *e = &s->kv[s->n];
		if (strlen(key) >= sizeof(e->key)) {
			snprintf(why, n, "knob name too long: %.40s...", key);
			return -EINVAL;
		}
		snprintf(e->key, sizeof(e->key), "%s", key);
		if (json_is_string(v) && strlen(json_string_value(v)) < sizeof(e->value)) {
			snprintf(e->value, sizeof(e->value), "%s", json_string_value(v));
		} else if (json_is_integer(v) && json_integer_value(v) >= 0) {
			snprintf(e->value, sizeof(e->value), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(v));
		} else {
			snprintf(why, n, "%s: value is not a string or a non-negative integer",
				 key);
			return -EINVAL;
		}
		s->n++;
	}
	return 0;
}

const char *snapshot_bad_names(const struct snapshot *s, char *out, size_t n)
{
	size_t l = 0;
	if (n)
		out[0] = '\0';
	for (int i = 0; i < s->nbad && n; i++) {
		int w = snprintf(out + l, n - l, "%s%s", i ? ", " : "", s->bad[i]);
		if (w < 0 || (size_t)w >= n - l) {
			out[l] = '\0'; /* no half key */
			break;
		}
		l += (size_t)w;
	}
	return out;
}
