// SPDX-License-Identifier: MIT
/* Unit tests: src/render/json.c (jansson helpers; invalid UTF-8 becomes U+FFFD). */
#include "unit.h"

#include "render/json.h"
#include "render/table.h"

#define FFFD "\xef\xbf\xbd"

/* json_str_n(IN) dumped inside an object and loaded back must read WANT. */
static void roundtrip(const char *in, size_t n, const char *want, size_t want_len)
{
	json_t *s = json_str_n(in, n);
	assert_non_null(s);
	assert_true(json_is_string(s));
	assert_int_equal(json_string_length(s), want_len);
	assert_memory_equal(json_string_value(s), want, want_len);

	json_t *obj = json_object();
	json_put(obj, "comm", s);
	char *text = json_dumps(obj, JSON_COMPACT);
	assert_non_null(text);
	json_error_t err;
	json_t *back = json_loads(text, 0, &err);
	assert_non_null(back);
	json_t *v = json_object_get(back, "comm");
	assert_true(json_is_string(v));
	assert_int_equal(json_string_length(v), want_len);
	assert_memory_equal(json_string_value(v), want, want_len);
	json_decref(back);
	free(text);
	json_decref(obj);
}

#define RT(in, want) roundtrip(in, sizeof(in) - 1, want, sizeof(want) - 1)

static void test_valid_utf8_kept(UNIT_STATE)
{
	RT("khugepaged", "khugepaged");
	RT("", "");
	RT("caf\xc3\xa9", "caf\xc3\xa9");	      /* 2 bytes */
	RT("\xe2\x82\xac 5", "\xe2\x82\xac 5");	      /* 3 bytes */
	RT("\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!"); /* 4 bytes */
	RT("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");   /* U+10FFFF, the last code point */
	RT("\xed\x9f\xbf", "\xed\x9f\xbf");	      /* U+D7FF, just below surrogates */
	RT("tab\there \"q\" \\ \x01", "tab\there \"q\" \\ \x01"); /* escaped by jansson */
}

static void test_invalid_utf8_replaced(UNIT_STATE)
{
	RT("a\xff"
	   "b",
	   "a" FFFD "b");				      /* never valid */
	RT("\x80", FFFD);				      /* lone continuation */
	RT("\xc3", FFFD);				      /* truncated at end */
	RT("\xe2\x82", FFFD FFFD);			      /* truncated 3-byte */
	RT("\xe2\x82x", FFFD FFFD "x");			      /* interrupted */
	RT("\xc0\x80", FFFD FFFD);			      /* overlong NUL */
	RT("\xc1\xbf", FFFD FFFD);			      /* overlong 2-byte */
	RT("\xe0\x80\xaf", FFFD FFFD FFFD);		      /* overlong 3-byte '/' */
	RT("\xf0\x80\x80\xaf", FFFD FFFD FFFD FFFD);	      /* overlong 4-byte */
	RT("\xed\xa0\x80", FFFD FFFD FFFD);		      /* surrogate U+D800 */
	RT("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);	      /* above U+10FFFF */
	RT("\xf8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD); /* 5-byte form */
	RT("ok\xc3\xa9\xff\xc3\xa9", "ok\xc3\xa9" FFFD "\xc3\xa9");
}

static void test_nul_replaced(UNIT_STATE)
{
	/* a NUL inside the length would end the string for C readers */
	RT("a\0b", "a" FFFD "b");
	json_t *s = json_str_n("a\0b", 3);
	assert_non_null(s);
	assert_string_equal(json_string_value(s), "a" FFFD "b");
	json_decref(s);
}

static void test_raw_jansson_rejects(UNIT_STATE)
{
	/* why json_str_n exists: jansson refuses invalid UTF-8 outright */
	assert_null(json_stringn("a\xff", 2));
	json_t *s = json_str_n("a\xff", 2);
	assert_non_null(s);
	json_decref(s);
}

static void test_all_bytes(UNIT_STATE)
{
	/* every byte value, and a comm cut in the middle of a sequence: always valid JSON */
	char in[256 + 2];
	for (int i = 0; i < 256; i++)
		in[i] = (char)i;
	in[256] = '\xe2';
	in[257] = '\x82';
	json_t *obj = json_object();
	json_put(obj, "x", json_str_n(in, sizeof(in)));
	char *text = json_dumps(obj, 0);
	assert_non_null(text);
	json_t *back = json_loads(text, 0, NULL);
	assert_non_null(back);
	const char *v = json_string_value(json_object_get(back, "x"));
	assert_non_null(v);
	/* 127 ASCII bytes kept; the NUL, 128 high bytes and 2 trailing ones replaced */
	assert_int_equal(json_string_length(json_object_get(back, "x")), 127 + (1 + 128 + 2) * 3);
	assert_memory_equal(v, FFFD "\x01\x02", 5); /* the NUL first */
	json_decref(back);
	free(text);
	json_decref(obj);
}

static void test_json_str_null(UNIT_STATE)
{
	json_t *n = json_str(NULL);
	assert_true(json_is_null(n));
	json_decref(n);
	json_t *s = json_str("madvise");
	assert_string_equal(json_string_value(s), "madvise");
	json_decref(s);
}

static void test_numbers(UNIT_STATE)
{
	struct opt_u64 absent = {.v = 5, .present = false}, present = {.v = 511, .present = true};
	json_t *a = json_opt_u64(&absent), *p = json_opt_u64(&present);
	assert_true(json_is_null(a));
	assert_true(json_is_integer(p));
	assert_int_equal(json_integer_value(p), 511);
	json_decref(a);
	json_decref(p);
	json_t *top = json_u64(INT64_MAX); /* the largest that is still a jansson integer */
	assert_true(json_is_integer(top));
	assert_true(json_integer_value(top) == INT64_MAX);
	json_decref(top);
	json_t *z = json_u64(0);
	assert_int_equal(json_integer_value(z), 0);
	json_decref(z);
}

/* json_dump() of OBJ into a malloc'd string; its length in *LEN (when LEN is not NULL). */
static char *dumped(json_t *obj, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(json_dump(obj, f), 0);
	assert_int_equal(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

static void test_put_and_dump(UNIT_STATE)
{
	json_t *obj = json_object();
	json_put(obj, "b", NULL); /* NULL becomes null */
	json_put(obj, "a", json_u64(2048));
	json_put(obj, "name", json_str_n("x\xff", 2));
	size_t len;
	char *buf = dumped(obj, &len);
	assert_true(len > 2);
	assert_int_equal(buf[len - 1], '\n');
	/* insertion order is kept: "b" before "a" */
	assert_true(strstr(buf, "\"b\"") < strstr(buf, "\"a\""));
	json_t *back = json_loads(buf, 0, NULL);
	assert_non_null(back);
	assert_true(json_is_null(json_object_get(back, "b")));
	assert_int_equal(json_integer_value(json_object_get(back, "a")), 2048);
	assert_string_equal(json_string_value(json_object_get(back, "name")), "x" FFFD);
	json_decref(back);
	free(buf);
	json_decref(obj);
	/* json_obj: the pairs in order, NULL values as null; json_made: all or nothing */
	{
		json_t *o = json_obj("b", json_integer(2), "a", NULL, "big", json_u64(UINT64_MAX),
				     NULL);
		assert_non_null(o);
		char *t = json_dump_text(o, JSON_COMPACT);
		assert_string_equal(t, "{\"b\":2,\"a\":null,\"big\":18446744073709551615}");
		free(t);
		json_decref(o);
		json_t *x = json_object(), *y = json_array(), *z = NULL;
		assert_true(json_made(&x, &y, NULL));
		assert_false(json_made(&x, &y, &z, NULL));
		assert_null(x);
		assert_null(y);
	}
}

/* TEXT parsed by Python's json module: PY (an expression over the document d) must be True. */
static void python_says(const char *text, const char *py)
{
	char path[] = "/tmp/thpctl-json-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "sys.exit(0 if (%s) else 3)' %s",
		 py, path);
	int rc = system(cmd);
	unlink(path);
	if (rc != 0)
		fail_msg("python3: %s is not true of %s (status %d)", py, text, rc);
}

static void test_u64_exact(UNIT_STATE)
{
	json_t *obj = json_object(), *arr = json_array();
	json_put(obj, "max", json_u64(UINT64_MAX));
	json_put(obj, "half", json_u64((uint64_t)INT64_MAX + 1));
	json_put(obj, "i64max", json_u64(INT64_MAX));
	json_put(obj, "zero", json_u64(0));
	json_array_append_new(arr, json_u64(UINT64_MAX - 1));
	json_array_append_new(arr, json_u64(7));
	json_put(obj, "list", arr);
	/* strings that look like the marker stay strings */
	json_put(obj, "nul", json_str_n("\0u64:5", 6));
	json_put(obj, "esc", json_str("\\u0000u64:5"));
	json_put(obj, "quote", json_str("\"\\u0000u64:6\""));
	for (int compact = 0; compact < 2; compact++) {
		char *t = json_dump_text(obj, compact ? JSON_COMPACT | JSON_PRESERVE_ORDER
						      : JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		assert_non_null(t);
		assert_contains(t, compact ? "\"max\":18446744073709551615,"
					   : "\"max\": 18446744073709551615,");
		assert_contains(t, compact ? "\"half\":9223372036854775808,"
					   : "\"half\": 9223372036854775808,");
		assert_contains(t, "18446744073709551614");
		assert_contains(t, "\"" FFFD "u64:5\""); /* a NUL from the kernel is no marker */
		python_says(t, "d[\"max\"] == 18446744073709551615 and "
			       "d[\"half\"] == 9223372036854775808 and "
			       "d[\"i64max\"] == 9223372036854775807 and d[\"zero\"] == 0 and "
			       "d[\"list\"] == [18446744073709551614, 7] and "
			       "d[\"esc\"] == \"\\\\u0000u64:5\" and "
			       "d[\"quote\"] == \"\\\"\\\\u0000u64:6\\\"\"");
		free(t);
	}
	/* json_dump() goes the same way, and the result is valid JSON for jansson too */
	char *buf = dumped(obj, NULL);
	assert_contains(buf, "\"max\": 18446744073709551615,");
	json_error_t je;
	json_t *back = json_loads(buf, JSON_DECODE_INT_AS_REAL, &je);
	assert_non_null(back);
	assert_true(json_real_value(json_object_get(back, "max")) > 1.8e19);
	json_decref(back);
	free(buf);
	json_decref(obj);
}

static void test_u64_unmark_only_markers(UNIT_STATE)
{
	/* a document without markers is returned as it was */
	char plain[] = "{\"a\": \"\\u0000x\", \"b\": \"\\\\u0000u64:1\"}";
	char copy[sizeof(plain)];
	memcpy(copy, plain, sizeof(plain));
	assert_string_equal(json_u64_unmark(plain), copy);
	/* a marker with a non-digit, or unterminated, stays a string */
	char odd[] = "[\"\\u0000u64:12x\", \"\\u0000u64:\", \"\\u0000u64:42\"]";
	assert_string_equal(json_u64_unmark(odd), "[\"\\u0000u64:12x\", \"\\u0000u64:\", 42]");
	char cut[] = "[\"\\u0000u64:42";
	assert_string_equal(json_u64_unmark(cut), "[\"\\u0000u64:42");
	assert_null(json_u64_unmark(NULL));
}

/* Text output: a process name must not drive the terminal. */
static void test_strip_ctl(UNIT_STATE)
{
	char esc[] = "a\x1b[31mred\x1b[0m\n";
	assert_string_equal(strip_ctl(esc), "a?[31mred?[0m?");
	char c1[] = "x\xc2\x9by"; /* U+009B: the 8-bit CSI */
	assert_string_equal(strip_ctl(c1), "x??y");
	char bad[] = "k\xff\xfe\x7f";
	assert_string_equal(strip_ctl(bad), "k???");
	char ok[] = "caf\xc3\xa9 \xe2\x82\xac"; /* "café €" stays */
	assert_string_equal(strip_ctl(ok), "caf\xc3\xa9 \xe2\x82\xac");
	unsigned char nbsp[] = {0xc2, 0xa0, 0};
	assert_int_equal(utf8_seq(nbsp, 2), 2);
	assert_int_equal(utf8_seq((const unsigned char *)"\xc0\x80", 2), 0); /* overlong */
}

static void test_schema_first_key(UNIT_STATE)
{
	json_t *o = json_object();
	json_put(o, "b", json_integer(2));
	json_put(o, "a", json_u64(UINT64_MAX));
	json_t *w = json_with_schema(o, "status", NULL);
	char *text = json_dump_text(w, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(text,
			    "{\"schema\":\"thpctl.status/1\",\"b\":2,\"a\":18446744073709551615}");
	free(text);
	json_decref(w);
	w = json_with_schema(json_object(), "ps", "folios");
	assert_string_equal(json_string_value(json_object_get(w, "schema")), "thpctl.ps.folios/1");
	json_decref(w);
	assert_null(json_with_schema(json_array(), "lab", NULL)); /* not an object: freed, NULL */
	assert_null(json_with_schema(NULL, "lab", NULL));
}

/* Item I of the streamed array: a u64 past int64, a string with a newline, DEL and a C1
 * control, a nested object and array, null. */
static json_t *stream_item(size_t i, void *ctx)
{
	(void)ctx;
	return json_obj("i", json_integer((json_int_t)i), "big", json_u64(UINT64_MAX - i), "s",
			json_str(i == 1 ? "a\nb\x7f\xc2\x9b \"vmas\": []" : "x"), "o",
			json_obj("n", json_null(), "arr", json_pack("[i,s]", 1, "y"), NULL), NULL);
}

/* A root with "vmas": [] and keys before and after it (one with the same text in a string). */
static json_t *stream_root(void)
{
	return json_obj("pid", json_integer(7), "comm", json_str("\n  \"vmas\": ["), "vmas",
			json_array(), "totals", json_obj("size_kb", json_u64(UINT64_MAX), NULL),
			NULL);
}

/* json_dump_streamed writes the bytes json_dump of the whole tree writes, for 0, 1 and 3
 * items; an array that is not empty or not there is refused. */
static void test_streamed_dump_is_the_whole_dump(UNIT_STATE)
{
	for (size_t n = 0; n <= 3; n += n ? 2 : 1) {
		char *a = NULL, *b = NULL;
		size_t la = 0, lb = 0;
		FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
		assert_non_null(fa);
		assert_non_null(fb);
		json_t *whole = stream_root();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(json_object_get(whole, "vmas"), stream_item(i, NULL));
		assert_int_equal(json_dump(whole, fa), 0);
		json_decref(whole);
		assert_int_equal(
			json_dump_streamed(stream_root(), fb, "vmas", n, stream_item, NULL), 0);
		fclose(fa);
		fclose(fb);
		assert_string_equal(a, b);
		if (n == 3) { /* the markers undone, the controls escaped, in the streamed items */
			assert_non_null(strstr(b, "\"big\": 18446744073709551613"));
			assert_non_null(strstr(b, "a\\nb\\u007f\\u009b"));
		}
		free(a);
		free(b);
	}
	FILE *f = fopen("/dev/null", "w");
	assert_non_null(f);
	json_t *full = stream_root();
	json_array_append_new(json_object_get(full, "vmas"), json_integer(1));
	assert_int_equal(json_dump_streamed(full, f, "vmas", 1, stream_item, NULL), -EINVAL);
	assert_int_equal(json_dump_streamed(stream_root(), f, "nope", 1, stream_item, NULL),
			 -EINVAL);
	fclose(f);
}

UNIT_TESTS(test_streamed_dump_is_the_whole_dump, test_schema_first_key, test_valid_utf8_kept,
	   test_invalid_utf8_replaced, test_nul_replaced, test_raw_jansson_rejects, test_all_bytes,
	   test_json_str_null, test_numbers, test_put_and_dump, test_strip_ctl, test_u64_exact,
	   test_u64_unmark_only_markers)
