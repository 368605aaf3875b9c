// SPDX-License-Identifier: MIT
#include "json.h"

#include "table.h"
#include "../model/host.h" /* struct opt_u64 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
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

/*
 * jansson integers are json_int_t (long long). A u64 above INT64_MAX becomes a string marker:
 * a NUL byte, "u64:" and its decimal digits. No other string in a document holds a NUL
 * (json_str_n turns NUL into U+FFFD, and json_string() takes C strings), so jansson
 * serialises the marker as "\u0000u64:DIGITS" and json_dump_text() rewrites that token into
 * the bare digits.
 */
#define U64_MARK "\0u64:"
#define U64_MARK_LEN 5
#define U64_MARK_TEXT "\"\\u0000u64:"
#define U64_MARK_TEXT_LEN 11

json_t *json_u64(uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	char tmp[U64_MARK_LEN + 21];
	memcpy(tmp, U64_MARK, U64_MARK_LEN);
	int n = snprintf(tmp + U64_MARK_LEN, sizeof(tmp) - U64_MARK_LEN, "%llu",
			 (unsigned long long)v);
	return json_stringn(tmp, U64_MARK_LEN + (size_t)n);
}

json_t *json_u128(u128 v)
{
	if (u128_fits(v))
		return json_u64((uint64_t)v);
	char tmp[U64_MARK_LEN + 40];
	memcpy(tmp, U64_MARK, U64_MARK_LEN);
	size_t n = fmt_u128(tmp + U64_MARK_LEN, sizeof(tmp) - U64_MARK_LEN, v);
	return json_stringn(tmp, U64_MARK_LEN + n);
}

json_t *json_hex(uint64_t addr)
{
	char buf[20];
	snprintf(buf, sizeof(buf), "%llx", (unsigned long long)addr);
	return json_string(buf);
}

void json_put_hex_range(json_t *obj, uint64_t start, uint64_t end)
{
	json_put(obj, "start", json_hex(start));
	json_put(obj, "end", json_hex(end));
}

json_t *json_opt_u64(const struct opt_u64 *o)
{
	return o->present ? json_u64(o->v) : json_null();
}

void json_put(json_t *obj, const char *key, json_t *v)
{
	json_object_set_new(obj, key, v ? v : json_null());
}

json_t *json_obj(const char *key, json_t *v, ...)
{
	json_t *o = json_object();
	va_list ap;
	va_start(ap, v);
	for (const char *k = key; k; k = va_arg(ap, const char *)) {
		json_t *x = k == key ? v : va_arg(ap, json_t *);
		if (o)
			json_put(o, k, x);
		else
			json_decref(x);
	}
	va_end(ap);
	return o;
}

bool json_made(json_t **a, ...)
{
	bool ok = true;
	va_list ap;
	va_start(ap, a);
	for (json_t **p = a; p; p = va_arg(ap, json_t **))
		ok = ok && *p;
	va_end(ap);
	if (ok)
		return true;
	va_start(ap, a);
	for (json_t **p = a; p; p = va_arg(ap, json_t **)) {
		json_decref(*p);
		*p = NULL;
	}
	va_end(ap);
	return false;
}

json_t *json_with_schema(json_t *root, const char *cmd, const char *variant)
{
	json_t *out = json_is_object(root) ? json_object() : NULL;
	char id[96];
	snprintf(id, sizeof(id), "thpctl.%s%s%s/%d", cmd, variant ? "." : "",
		 variant ? variant : "", JSON_SCHEMA_VERSION);
	/* jansson 2.14 keeps an object's keys in insertion order, so the update keeps ROOT's */
	if (!out || json_object_set_new(out, "schema", json_string(id)) ||
	    json_object_update(out, root)) {
		json_decref(out);
		out = NULL;
	}
	json_decref(root);
	return out;
}

/* Length of the string token at T (T[0] is its opening quote), closing quote included. */
static size_t string_token_len(const char *t)
{
	size_t i = 1;
	while (t[i] && t[i] != '"')
		i += t[i] == '\\' && t[i + 1] ? 2 : 1;
	return t[i] ? i + 1 : i;
}

/* Digits of a u64 marker token at T ("\u0000u64:DIGITS"), or 0 when T is another string. */
static size_t marker_digits(const char *t, size_t len)
{
	if (len < U64_MARK_TEXT_LEN + 2 || t[len - 1] != '"' ||
	    memcmp(t, U64_MARK_TEXT, U64_MARK_TEXT_LEN) != 0)
		return 0;
	size_t n = len - U64_MARK_TEXT_LEN - 1;
	for (size_t i = 0; i < n; i++)
		if (t[U64_MARK_TEXT_LEN + i] < '0' || t[U64_MARK_TEXT_LEN + i] > '9')
			return 0;
	return n <= 39 ? n : 0; /* a u64, or a u128 of json_u128() */
}

char *json_u64_unmark(char *text)
{
	if (!text || !strstr(text, U64_MARK_TEXT))
		return text;
	size_t r = 0, w = 0;
	while (text[r]) {
		if (text[r] != '"') {
			text[w++] = text[r++];
			continue;
		}
		size_t len = string_token_len(text + r);
		size_t nd = marker_digits(text + r, len);
		if (nd) {
			memmove(text + w, text + r + U64_MARK_TEXT_LEN, nd);
			w += nd;
		} else {
			memmove(text + w, text + r, len);
			w += len;
		}
		r += len;
	}
	text[w] = '\0';
	return text;
}

/*
 * jansson escapes C0 controls in strings but writes DEL and the C1 controls
 * (U+0080..U+009F, 0x9b an 8-bit CSI to some terminals) as they are: those
 * bytes occur only inside strings, so each becomes its \u escape here, the
 * same string to any JSON reader and no control to a terminal. TEXT is freed
 * when a new string is returned.
 */
static char *escape_ctl(char *text)
{
	if (!text)
		return NULL;
	size_t n = 0, len = strlen(text);
	const unsigned char *u = (const unsigned char *)text;
	for (size_t i = 0; i < len; i++)
		n += u[i] == 0x7f ||
		     (u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] < 0xa0);
	if (!n)
		return text;
	char *out = malloc(len + n * 6 + 1);
	if (!out) {
		free(text);
		return NULL;
	}
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned cp = u[i] == 0x7f ? 0x7f
			      : u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] < 0xa0
				      ? u[++i]
				      : 0;
		if (cp)
			o += (size_t)sprintf(out + o, "\\u%04x", cp);
		else
			out[o++] = (char)u[i];
	}
	out[o] = '\0';
	free(text);
	return out;
}

char *json_dump_text(const json_t *root, size_t flags)
{
	return escape_ctl(json_u64_unmark(json_dumps(root, flags)));
}

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6))

int json_dump(json_t *root, FILE *f)
{
	char *text = json_dump_text(root, DUMP_FLAGS);
	if (!text)
		return -ENOMEM;
	int bad = fputs(text, f) == EOF || fputc('\n', f) == EOF;
	free(text);
	return bad ? -EIO : 0;
}

/* TEXT (a whole item's dump) written to F with every line indented by 4: the depth of an
 * item of a top-level array. 0 or -EIO. */
static int put_indented(const char *text, FILE *f)
{
	for (const char *p = text; *p;) {
		/* a dump's only newlines are its own: a string holds "\n", never the byte */
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (fputs("    ", f) == EOF || fwrite(p, 1, len, f) != len)
			return -EIO;
		p += len;
	}
	return 0;
}

int json_dump_streamed(json_t *root, FILE *f, const char *key, size_t n, json_item_fn item,
		       void *ctx)
{
	json_t *arr = json_object_get(root, key);
	if (!n || !json_is_array(arr) || json_array_size(arr)) {
		int r = n ? -EINVAL : json_dump(root, f);
		json_decref(root);
		return r;
	}
	char *text = json_dump_text(root, DUMP_FLAGS), mark[80];
	json_decref(root);
	if (!text)
		return -ENOMEM;
	/* the empty array at depth 1: after a newline and two blanks, outside every string */
	snprintf(mark, sizeof(mark), "\n  \"%s\": [", key);
	char *at = strstr(text, mark);
	if (!at || strncmp(at + strlen(mark), "]", 1)) {
		free(text);
		return -EINVAL;
	}
	size_t head = (size_t)(at - text) + strlen(mark);
	int r = fwrite(text, 1, head, f) == head ? 0 : -EIO;
	for (size_t i = 0; !r && i < n; i++) {
		json_t *o = item(i, ctx);
		char *t = o ? json_dump_text(o, DUMP_FLAGS) : NULL;
		json_decref(o);
		if (!t) {
			r = -ENOMEM;
			break;
		}
		r = fputc('\n', f) == EOF ? -EIO : put_indented(t, f);
		if (!r && i + 1 < n && fputc(',', f) == EOF)
			r = -EIO;
		free(t);
	}
	if (!r &&
	    (fputs("\n  ", f) == EOF || fputs(text + head, f) == EOF || fputc('\n', f) == EOF))
		r = -EIO;
	free(text);
	return r;
}
