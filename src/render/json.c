// SPDX-License-Identifier: MIT
#include "json.h"

#include "table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

json_t *json_str_n(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char *tmp = malloc(n * 3 + 1);
	if (!tmp)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq(u + i, n - i);
		if (l) {
			memcpy(tmp + o, u + i, l);
			o += l;
			i += l;
		} else {
			memcpy(tmp + o, "\xef\xbf\xbd", 3); /* U+FFFD; NUL too */
			o += 3;
			i++;
		}
	}
	json_t *j = json_stringn(tmp, o);
	free(tmp);
	return j;
}

json_t *json_str(const char *s)
{
	return s ? json_str_n(s, strlen(s)) : json_null();
}

json_t *json_u64(uint64_t v)
{
	/* json_int_t is long long: clamp the (theoretical) top half */
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

void json_put_hex_range(json_t *obj, uint64_t start, uint64_t end)
{
	char buf[20];
	snprintf(buf, sizeof(buf), "%llx", (unsigned long long)start);
	json_put(obj, "start", json_string(buf));
	snprintf(buf, sizeof(buf), "%llx", (unsigned long long)end);
	json_put(obj, "end", json_string(buf));
}

json_t *json_opt_u64(const struct opt_u64 *o)
{
	return o->present ? json_u64(o->v) : json_null();
}

void json_put(json_t *obj, const char *key, json_t *v)
{
	json_object_set_new(obj, key, v ? v : json_null());
}

int json_dump(json_t *root, FILE *f)
{
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) ||
	    fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}
