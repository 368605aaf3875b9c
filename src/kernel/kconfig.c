// SPDX-License-Identifier: MIT
#include "kconfig.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../util/dl_libs.h"

#define GUNZIP_MAX ((size_t)8 << 20)

/* Whether [s, e) is exactly WORD. */
static bool line_is(const char *s, const char *e, const char *word)
{
	size_t l = strlen(word);
	return (size_t)(e - s) == l && memcmp(s, word, l) == 0;
}

enum kconfig_thp kconfig_thp_parse(const char *text, size_t len)
{
	enum kconfig_thp r = KCT_UNKNOWN;
	bool thp = false, no_thp = false;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if (line_is(p, e, "CONFIG_TRANSPARENT_HUGEPAGE=y"))
			thp = true;
		else if (line_is(p, e, "# CONFIG_TRANSPARENT_HUGEPAGE is not set"))
			no_thp = true;
		else if (line_is(p, e, "CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y"))
			r = KCT_ALWAYS;
		else if (line_is(p, e, "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y"))
			r = KCT_MADVISE;
		else if (line_is(p, e, "CONFIG_TRANSPARENT_HUGEPAGE_NEVER=y"))
			r = KCT_NEVER;
		p = e + 1;
	}
	if (no_thp && !thp)
		return KCT_NO_THP;
	return r;
}

int kconfig_gunzip(const char *in, size_t len, struct buf *out)
{
#ifdef THPCTL_ZLIB
	if (zl_load(NULL, 0))
		return -ELIBACC;
	z_stream z;
	memset(&z, 0, sizeof(z));
	/* inflateInit2() is a macro over inflateInit2_ */
	if (zl.inflateInit2_(&z, 16 + MAX_WBITS, ZLIB_VERSION, (int)sizeof(z)) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	out->len = 0;
	int r = 0, zr = Z_OK;
	while (zr != Z_STREAM_END) {
		if (out->len + 1 >= out->cap &&
		    (out->cap >= GUNZIP_MAX || buf_reserve(out, out->cap ? out->cap * 2 : 65536))) {
			r = out->cap >= GUNZIP_MAX ? -EFBIG : -ENOMEM;
			break;
		}
		z.next_out = (Bytef *)out->p + out->len;
		z.avail_out = (uInt)(out->cap - out->len - 1);
		zr = zl.inflate(&z, Z_NO_FLUSH);
		out->len = (size_t)((char *)z.next_out - out->p);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			r = zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL; /* damaged or truncated */
			break;
		}
		if (zr == Z_OK && z.avail_in == 0 && z.avail_out > 0) {
			r = -EINVAL; /* ended before the gzip trailer */
			break;
		}
	}
	zl.inflateEnd(&z);
	if (out->p)
		out->p[out->len] = '\0';
	return r;
#else
	(void)in;
	(void)len;
	(void)out;
	return -ENOTSUP;
#endif
}

int kconfig_read(const struct sysroot *sr, const char *release, struct kconfig_info *out)
{
	memset(out, 0, sizeof(*out));
	struct buf b = {0}, text = {0};
	int r = -ENOENT;
	if (release && release[0] && !strchr(release, '/')) {
		char rel[160];
		snprintf(rel, sizeof(rel), SR_BOOT_CONFIG "%s", release);
		r = sysroot_read(sr, rel, &b);
		if (r == 0) {
			out->src = KCS_BOOT;
			out->thp = kconfig_thp_parse(b.p, b.len);
		}
	}
	if (r) {
		r = sysroot_read(sr, SR_PROC_CONFIG_GZ, &b);
		if (r == 0)
			r = kconfig_gunzip(b.p, b.len, &text);
		if (r == 0) {
			out->src = KCS_PROC_GZ;
			out->thp = kconfig_thp_parse(text.p, text.len);
		}
	}
	out->err = r;
	buf_free(&b);
	buf_free(&text);
	return r;
}
