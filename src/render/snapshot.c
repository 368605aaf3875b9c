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
