// SPDX-License-Identifier: MIT
#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Length of a valid UTF-8 sequence at S (max N bytes), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return c ? 1 : 0;
	if ((c & 0xe0) == 0xc0) {
		len = 2;
		cp = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		cp = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

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
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) || fputc('\n', f) == EOF)
		return -EIO;
	return 0;
}
