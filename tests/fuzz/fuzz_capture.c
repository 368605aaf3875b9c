// SPDX-License-Identifier: MIT
/*
 * What a capture keeps and what a bundle may name (kernel/capture_filter.c,
 * util/tarball.c): capture_filter_environ(), tar_name_sanitize(),
 * capture_manifest_state(). Properties: the environ output has one entry per
 * input entry with the same name, and a variable outside the kept set never
 * carries a byte of its value; a sanitized name is relative, has no "." or
 * ".." component, no empty component, none over 255 bytes (control bytes kept),
 * and sanitizes to itself.
 */
#include "fuzz.h"

#include "kernel/capture.h"
#include "util/tarball.h"

static bool kept_name(const char *s, size_t kl)
{
	static const char *const whole[] = {
		"MALLOC_CONF",	     "_RJEM_MALLOC_CONF", "JE_MALLOC_CONF",
		"GLIBC_TUNABLES",    "MALLOC_ARENA_MAX",  "GODEBUG",
		"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS",  "_JAVA_OPTIONS"};
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		if (kl == strlen(whole[i]) && memcmp(s, whole[i], kl) == 0)
			return true;
	return (kl > 9 && memcmp(s, "MIMALLOC_", 9) == 0) ||
	       (kl > 8 && memcmp(s, "MALLOC_", 7) == 0 && s[kl - 1] == '_');
}

static void check_environ(const char *in, size_t len)
{
	struct buf b = {0};
	if (capture_filter_environ(in, len, &b)) {
		buf_free(&b);
		return;
	}
	const char *p = in, *end = in + len, *o = b.p, *oend = b.p + b.len;
	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		const char *e = z ? z : end;
		if (e > p) {
			FUZZ_CHECK(o < oend);
			const char *oz = memchr(o, '\0', (size_t)(oend - o));
			FUZZ_CHECK(oz != NULL);
			const char *eq = memchr(p, '=', (size_t)(e - p));
			if (!eq) {
				FUZZ_CHECK(strcmp(o, "<redacted>") == 0);
			} else {
				size_t kl = (size_t)(eq - p);
				FUZZ_CHECK((size_t)(oz - o) > kl && memcmp(o, p, kl + 1) == 0);
				const char *ov = o + kl + 1;
				if (!kept_name(p, kl))
					FUZZ_CHECK(*ov == '\0' || strcmp(ov, "<redacted>") == 0);
			}
			o = oz + 1;
		}
		p = e + 1;
	}
	FUZZ_CHECK(o == oend);
	buf_free(&b);
}

static void check_name(const char *in)
{
	char out[512], again[512];
	if (tar_name_sanitize(in, out, sizeof(out)))
		return;
	FUZZ_CHECK(out[0] && out[0] != '/');
	for (const char *c = out;;) {
		const char *s = strchrnul(c, '/');
		size_t l = (size_t)(s - c);
		/* control bytes are kept (a cgroup's name may hold them: 62bfba1), NUL cannot be */
		FUZZ_CHECK(l > 0 && l <= 255 && !(l == 1 && c[0] == '.') &&
			   !(l == 2 && c[0] == '.' && c[1] == '.'));
		if (!*s)
			break;
		c = s + 1;
	}
	FUZZ_CHECK(tar_name_sanitize(out, again, sizeof(again)) == 0 && strcmp(out, again) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	check_environ(t, size);
	char name[1024];
	size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
	memcpy(name, data, n);
	name[n] = '\0';
	check_name(name);
	(void)capture_manifest_state(t, size, "sys/kernel/mm/transparent_hugepage");
	return 0;
}
