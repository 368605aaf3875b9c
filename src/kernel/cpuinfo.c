// SPDX-License-Identifier: MIT
#include "cpuinfo.h"

#include <errno.h>
#include <string.h>

#include "parse.h"

/* "NAME<blanks>: value": the value after the colon when the line's name is NAME, else NULL. */
static const char *value_of(const char *s, const char *e, const char *name)
{
	size_t n = strlen(name);
	if ((size_t)(e - s) <= n || memcmp(s, name, n) != 0)
		return NULL;
	const char *p = s + n;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p < e && *p == ':' ? p + 1 : NULL;
}

int cpuinfo_parse_flag(const char *text, size_t len, const char *flag)
{
	const char *pos = text, *end = text + len, *s, *e;
	size_t fl = strlen(flag);
	while (next_line(&pos, end, &s, &e)) {
		const char *v = value_of(s, e, "flags");
		if (!v)
			v = value_of(s, e, "Features");
		if (!v)
			continue;
		const char *w, *we;
		while (next_word(&v, e, &w, &we))
			if ((size_t)(we - w) == fl && memcmp(w, flag, fl) == 0)
				return 1;
		return 0;
	}
	return -ENOENT;
}

int cpuinfo_has_flag(const struct sysroot *sr, const char *flag, bool *has)
{
	struct buf b = {0};
	*has = false;
	int r = sysroot_read(sr, SR_PROC "/cpuinfo", &b);
	if (!r) {
		r = cpuinfo_parse_flag(b.p ? b.p : "", b.len, flag);
		*has = r == 1;
		r = r < 0 ? r : 0;
	}
	buf_free(&b);
	return r;
}
