// SPDX-License-Identifier: MIT
/* What a capture keeps of environ, the kernel cmdline and mounts (capture.h). */
#include "capture.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool name_is(const char *s, size_t kl, const char *k)
{
	return kl == strlen(k) && memcmp(s, k, kl) == 0;
}

static bool has(const char *p, size_t n, const char *needle)
{
	return memmem(p, n, needle, strlen(needle)) != NULL;
}

/* Keep the items of V (separated by SEP) for which KEEP holds; "<redacted>" for the rest. */
static int keep_items(struct buf *b, const char *v, const char *e, char sep,
		      bool (*keep)(const char *p, size_t n))
{
	bool first = true, dropped = false;
	while (v < e) {
		const char *s = memchr(v, sep, (size_t)(e - v));
		const char *ie = s ? s : e;
		if (ie > v && keep(v, (size_t)(ie - v))) {
			if ((!first && buf_add(b, &sep, 1)) || buf_add(b, v, (size_t)(ie - v)))
				return -ENOMEM;
			first = false;
		} else if (ie > v) {
			dropped = true;
		}
		v = s ? s + 1 : e;
	}
	if (dropped && ((!first && buf_add(b, &sep, 1)) || buf_add(b, "<redacted>", 10)))
		return -ENOMEM;
	return 0;
}

static bool go_item(const char *p, size_t n)
{
	return n >= 11 && memcmp(p, "disablethp=", 11) == 0;
}

static bool java_item(const char *p, size_t n)
{
	return n > 4 && memcmp(p, "-XX:", 4) == 0 &&
	       (has(p, n, "HugePage") || has(p, n, "LargePage") || has(p, n, "THP"));
}

static int env_entry(struct buf *b, const char *s, const char *e)
{
	const char *eq = memchr(s, '=', (size_t)(e - s));
	if (!eq)
		return buf_add(b, "<redacted>", 11); /* with its NUL */
	size_t kl = (size_t)(eq - s);
	const char *v = eq + 1;
	if (buf_add(b, s, kl + 1))
		return -ENOMEM;
	int r;
	if (name_is(s, kl, "MALLOC_CONF") || name_is(s, kl, "_RJEM_MALLOC_CONF") ||
	    name_is(s, kl, "JE_MALLOC_CONF") || name_is(s, kl, "GLIBC_TUNABLES") ||
	    name_is(s, kl, "MALLOC_ARENA_MAX") || (kl > 9 && memcmp(s, "MIMALLOC_", 9) == 0) ||
	    (kl > 8 && memcmp(s, "MALLOC_", 7) == 0 && s[kl - 1] == '_'))
		r = buf_add(b, v, (size_t)(e - v));
	else if (name_is(s, kl, "GODEBUG"))
		r = keep_items(b, v, e, ',', go_item);
	else if (name_is(s, kl, "JAVA_TOOL_OPTIONS") || name_is(s, kl, "JDK_JAVA_OPTIONS") ||
		 name_is(s, kl, "_JAVA_OPTIONS"))
		r = keep_items(b, v, e, ' ', java_item);
	else
		r = e > v ? buf_add(b, "<redacted>", 10) : 0;
	return r ? r : buf_add(b, "", 1);
}

int capture_filter_environ(const char *in, size_t len, struct buf *out)
{
	out->len = 0;
	if (buf_reserve(out, 1))
		return -ENOMEM;
	out->p[0] = '\0';
	const char *p = in, *end = in + len;
	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		const char *e = z ? z : end;
		if (e > p && env_entry(out, p, e))
			return -ENOMEM;
		p = e + 1;
	}
	return 0;
}

int capture_filter_cmdline(const char *in, size_t len, struct buf *out)
{
	out->len = 0;
	size_t l = len && in[len - 1] == '\n' ? len - 1 : len, keep = l;
	const char *d = memmem(in, l, " -- ", 4);
	if (l >= 3 && memcmp(in, "-- ", 3) == 0)
		keep = 0;
	else if (d)
		keep = (size_t)(d - in);
	else if (l >= 3 && memcmp(in + l - 3, " --", 3) == 0)
		keep = l - 3;
	if (buf_add(out, in, keep) || (l < len && buf_add(out, "\n", 1)))
		return -ENOMEM;
	return 0;
}

/* Field I (0-based) of the mounts line P..E into F[N]; false when absent. */
static bool field(const char *p, const char *e, int i, char *f, size_t n)
{
	for (int k = 0;; k++) {
		while (p < e && *p == ' ')
			p++;
		const char *s = p;
		while (p < e && *p != ' ')
			p++;
		if (s == p)
			return false;
		if (k == i) {
			snprintf(f, n, "%.*s", (int)(p - s), s);
			return true;
		}
	}
}

static bool mount_kept(const char *p, const char *e)
{
	char dir[256], type[64], opts[1024];
	if (!field(p, e, 1, dir, sizeof(dir)) || !field(p, e, 2, type, sizeof(type)) ||
	    !field(p, e, 3, opts, sizeof(opts)))
		return false;
	if (!strcmp(dir, "/") || !strcmp(dir, "/proc") || !strcmp(dir, "/sys") ||
	    !strcmp(type, "sysfs") || !strcmp(type, "hugetlbfs"))
		return true;
	return !strcmp(type, "tmpfs") && (!strncmp(opts, "huge=", 5) || strstr(opts, ",huge="));
}

int capture_filter_mounts(const char *in, size_t len, struct buf *out)
{
	out->len = 0;
	if (buf_add(out, "", 0))
		return -ENOMEM;
	const char *p = in, *end = in + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if (mount_kept(p, e) && buf_add(out, p, (size_t)(nl ? e + 1 - p : e - p)))
			return -ENOMEM;
		p = e + 1;
	}
	return 0;
}

enum capture_state capture_manifest_state(const char *text, size_t len, const char *path)
{
	static const char *const words[] = {
		[CAP_COMPLETE] = "complete",
		[CAP_PARTIAL] = "partial",
		[CAP_ABSENT] = "absent",
		[CAP_WRITEONLY] = "writeonly",
		[CAP_UNREADABLE] = "unreadable",
		[CAP_NOMM] = "nomm",
		[CAP_GONE] = "gone",
	};
	size_t pl = strlen(path);
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *sp = memchr(p, ' ', (size_t)(e - p));
		/* "WORD PATH" or "WORD PATH why..." */
		if (sp && (size_t)(e - sp - 1) >= pl && memcmp(sp + 1, path, pl) == 0 &&
		    (sp + 1 + pl == e || sp[1 + pl] == ' '))
			for (size_t w = 1; w < sizeof(words) / sizeof(words[0]); w++)
				if ((size_t)(sp - p) == strlen(words[w]) &&
				    memcmp(p, words[w], (size_t)(sp - p)) == 0)
					return (enum capture_state)w;
		p = e + 1;
	}
	return CAP_NOT_LISTED;
}
