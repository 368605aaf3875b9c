// SPDX-License-Identifier: MIT
#include "tuned.h"

#include "capture.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/buf.h"
#include "parse.h"

#define SR_TUNED_ACTIVE "etc/tuned/active_profile"
#define SR_TUNED_PID "run/tuned/tuned.pid"
#define SR_TUNED_WANTS "etc/systemd/system/multi-user.target.wants/tuned.service"
/* where tuned's locator looks for NAME/tuned.conf, the first found wins (2.23+ use profiles/) */
static const char *const profile_dirs[] = {"etc/tuned/profiles", "etc/tuned",
					   "usr/lib/tuned/profiles", "usr/lib/tuned"};
/* the THP tree as tuned's [sysfs] lines name it (and RHEL 6's) */
static const char *const thp_paths[] = {"/sys/kernel/mm/transparent_hugepage/",
					"/sys/kernel/mm/redhat_transparent_hugepage/"};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Copy [S, E) trimmed of blanks into OUT (N bytes). Returns false when it does not fit. */
static bool copy_trim(const char *s, const char *e, char *out, size_t n)
{
	while (s < e && blank(*s))
		s++;
	while (e > s && blank(e[-1]))
		e--;
	if ((size_t)(e - s) >= n)
		return false;
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = '\0';
	return true;
}

int ini_walk(const char *text, size_t len,
	     void (*fn)(void *ctx, const char *section, const char *key, const char *value),
	     void *ctx)
{
	char section[128] = "", key[256], value[512];
	const char *pos = text, *end = text + len, *s, *e;
	int bad = 0;
	while (next_line(&pos, end, &s, &e)) {
		while (s < e && blank(*s))
			s++;
		while (e > s && blank(e[-1]))
			e--;
		if (s == e || *s == '#' || *s == ';')
			continue;
		if (memchr(s, '\0', (size_t)(e - s))) { /* a NUL would cut the key or value short */
			bad++;
			continue;
		}
		if (*s == '[') {
			if (e[-1] != ']' || !copy_trim(s + 1, e - 1, section, sizeof(section)))
				bad++;
			continue;
		}
		const char *eq = memchr(s, '=', (size_t)(e - s));
		if (!eq || eq == s || !copy_trim(s, eq, key, sizeof(key)) ||
		    !copy_trim(eq + 1, e, value, sizeof(value))) {
			bad++;
			continue;
		}
		size_t vl = strlen(value);
		if (vl >= 2 && (value[0] == '"' || value[0] == '\'') && value[vl - 1] == value[0]) {
			memmove(value, value + 1, vl - 2);
			value[vl - 2] = '\0';
		}
		fn(ctx, section, key, value);
	}
	return bad;
}

#define TUNED_MAX_UNITS 32

/* Pass 1 of tuned_conf_parse(): each section's plugin (type=, else its name) and enabled=. */
struct units {
	int n;
	struct {
		char name[128];
		char type[32];
		bool off;
	} u[TUNED_MAX_UNITS];
};

static int unit_index(struct units *us, const char *section)
{
	for (int i = 0; i < us->n; i++)
		if (strcmp(us->u[i].name, section) == 0)
			return i;
	if (us->n == TUNED_MAX_UNITS)
		return -1;
	snprintf(us->u[us->n].name, sizeof(us->u[0].name), "%s", section);
	snprintf(us->u[us->n].type, sizeof(us->u[0].type), "%s", section);
	us->u[us->n].off = false;
	return us->n++;
}

static void units_cb(void *ctx, const char *section, const char *key, const char *value)
{
	struct units *us = ctx;
	int i = unit_index(us, section);
	if (i < 0)
		return;
	if (strcmp(key, "type") == 0)
		snprintf(us->u[i].type, sizeof(us->u[0].type), "%s", value);
	else if (strcmp(key, "enabled") == 0)
		us->u[i].off = strcmp(value, "false") == 0 || strcmp(value, "0") == 0 ||
			       strcmp(value, "no") == 0 || strcmp(value, "off") == 0;
}

struct conf_ctx {
	struct units *us;
	struct tuned_conf *out;
};

/* Set KEY=VALUE in the list (the later line of a file wins). */
static void put(struct tuned_setting *set, int *n, const char *key, const char *value,
		const char *profile, bool vm)
{
	int i = 0;
	while (i < *n && strcmp(set[i].key, key) != 0)
		i++;
	if (i == *n) {
		if (*n == TUNED_MAX_SET)
			return;
		(*n)++;
	}
	snprintf(set[i].key, sizeof(set[i].key), "%s", key);
	snprintf(set[i].value, sizeof(set[i].value), "%s", value);
	snprintf(set[i].profile, sizeof(set[i].profile), "%s", profile);
	set[i].vm = vm;
}

/* "/sys/kernel/mm/transparent_hugepage//khugepaged/defrag" -> "khugepaged/defrag"; NULL if outside. */
static const char *thp_rel(const char *path, char *tmp, size_t n)
{
	size_t j = 0;
	for (size_t i = 0; path[i] && j + 1 < n; i++)
		if (!(path[i] == '/' && j && tmp[j - 1] == '/'))
			tmp[j++] = path[i];
	tmp[j] = '\0';
	for (size_t i = 0; i < sizeof(thp_paths) / sizeof(thp_paths[0]); i++) {
		size_t l = strlen(thp_paths[i]);
		if (strncmp(tmp, thp_paths[i], l) == 0 && tmp[l])
			return tmp + l;
	}
	return NULL;
}

static void conf_cb(void *ctx, const char *section, const char *key, const char *value)
{
	struct conf_ctx *c = ctx;
	struct tuned_conf *o = c->out;
	int i = unit_index(c->us, section);
	if (i < 0 || c->us->u[i].off)
		return;
	const char *type = c->us->u[i].type;
	if (strcmp(section, "main") == 0 && strcmp(key, "include") == 0) {
		o->has_include = true;
		snprintf(o->include, sizeof(o->include), "%s", value);
	} else if (strcmp(type, "vm") == 0) {
		if (strcmp(key, "transparent_hugepages") == 0 ||
		    strcmp(key, "transparent_hugepage") == 0)
			put(o->set, &o->nset, "enabled", value, "", true);
		else if (strcmp(key, "transparent_hugepage.defrag") == 0)
			put(o->set, &o->nset, "defrag", value, "", true);
	} else if (strcmp(type, "sysfs") == 0 && key[0] == '/') {
		char tmp[256];
		const char *rel = thp_rel(key, tmp, sizeof(tmp));
		if (rel)
			put(o->set, &o->nset, rel, value, "", false);
		else
			o->nother++;
	}
}

int tuned_conf_parse(const char *text, size_t len, struct tuned_conf *out)
{
	static struct units us;
	memset(out, 0, sizeof(*out));
	us.n = 0;
	/* a unit's type= or enabled= may follow its settings: learn them first */
	out->nbad = ini_walk(text, len, units_cb, &us);
	struct conf_ctx c = {.us = &us, .out = out};
	ini_walk(text, len, conf_cb, &c);
	return 0;
}

bool tuned_profile_name_ok(const char *s)
{
	if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

/* Read profile NAME's tuned.conf into B. Returns 0 or -ENOENT/-errno. */
static int read_profile(const struct sysroot *sr, const char *name, struct buf *b)
{
	int r = -ENOENT;
	for (size_t i = 0; i < sizeof(profile_dirs) / sizeof(profile_dirs[0]); i++) {
		r = sysroot_readf(sr, b, "%s/%s/tuned.conf", profile_dirs[i], name);
		if (r != -ENOENT)
			return r;
	}
	return r;
}

static void __attribute__((format(printf, 2, 3)))
set_partial(struct tuned_state *t, const char *fmt, ...)
{
	if (!t->partial) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(t->partial_why, sizeof(t->partial_why), fmt, ap);
		va_end(ap);
	}
	t->partial = true;
}

/* Load NAME: its includes first, then its own settings over them. */
static void load(const struct sysroot *sr, struct tuned_state *t, const char *name, int depth)
{
	if (strchr(name, '$')) {
		set_partial(t, "include=%s is a tuned variable (not resolved)", name);
		return;
	}
	if (!tuned_profile_name_ok(name)) {
		set_partial(t, "'%s' is not a profile name", name);
		return;
	}
	if (depth > TUNED_MAX_DEPTH || t->nfiles == TUNED_MAX_FILES) {
		set_partial(t, "includes below %s not followed (too many levels)", name);
		return;
	}
	struct buf b = {0};
	int r = read_profile(sr, name, &b);
	if (r) {
		set_partial(t, "profile %s: no tuned.conf found", name);
		buf_free(&b);
		return;
	}
	static struct tuned_conf c[TUNED_MAX_DEPTH + 2];
	struct tuned_conf *cf = &c[depth];
	tuned_conf_parse(b.p, b.len, cf);
	buf_free(&b);
	snprintf(t->files[t->nfiles++], sizeof(t->files[0]), "%s", name);
	if (cf->has_include) {
		char inc[sizeof(cf->include)];
		snprintf(inc, sizeof(inc), "%s", cf->include);
		/* one name, or several separated by blanks, ',' or ';' */
		for (char *save = NULL, *w = strtok_r(inc, " \t,;", &save); w;
		     w = strtok_r(NULL, " \t,;", &save))
			load(sr, t, w, depth + 1);
	}
	for (int i = 0; i < cf->nset; i++)
		put(t->set, &t->nset, cf->set[i].key, cf->set[i].value, name, cf->set[i].vm);
}

int tuned_active_profile(const struct sysroot *sr, char *out, size_t n)
{
	struct buf b = {0};
	int r = sysroot_read(sr, SR_TUNED_ACTIVE, &b);
	out[0] = '\0';
	if (!r && b.p && !copy_trim(b.p, b.p + strcspn(b.p, "\n"), out, n))
		r = -EFBIG;
	buf_free(&b);
	if (!r && !out[0])
		r = -ENOENT;
	return r;
}

int tuned_profile_include(const struct sysroot *sr, const char *name, char *out, size_t n)
{
	if (!tuned_profile_name_ok(name))
		return -ENOENT;
	struct buf b = {0};
	int r = read_profile(sr, name, &b);
	if (!r) {
		static struct tuned_conf c;
		tuned_conf_parse(b.p, b.len, &c);
		r = c.has_include && c.include[0] ? 0 : -ENOENT;
		if (!r)
			snprintf(out, n, "%s", c.include);
	}
	buf_free(&b);
	return r;
}

/* Whether a thpctl capture's manifest says REL was absent on the host (a tree without one: false). */
static bool recorded_absent(const struct sysroot *sr, const char *rel)
{
	struct buf m = {0};
	bool absent = !sr->live && sysroot_read(sr, SR_CAPTURE_MANIFEST, &m) == 0 &&
		      capture_manifest_state(m.p ? m.p : "", m.len, rel) == CAP_ABSENT;
	buf_free(&m);
	return absent;
}

static enum tri exists_tri(const struct sysroot *sr, const char *rel, const char *dir)
{
	if (sysroot_exists(sr, rel) == 0)
		return TRI_YES;
	return sr->live || sysroot_exists(sr, dir) == 0 || recorded_absent(sr, rel) ? TRI_NO
										    : TRI_UNKNOWN;
}

int tuned_read(const struct sysroot *sr, struct tuned_state *t)
{
	memset(t, 0, sizeof(*t));
	/* a recorded tree may predate the capture of etc/tuned: absence proves nothing there */
	if (sysroot_exists(sr, "etc/tuned") == 0 || sysroot_exists(sr, "usr/lib/tuned") == 0)
		t->installed = TRI_YES;
	else
		t->installed = sr->live || (recorded_absent(sr, "etc/tuned") &&
					    recorded_absent(sr, "usr/lib/tuned"))
				       ? TRI_NO
				       : TRI_UNKNOWN;
	t->running = exists_tri(sr, SR_TUNED_PID, "run");
	t->enabled = exists_tri(sr, SR_TUNED_WANTS, "etc/systemd/system");
	if (tuned_active_profile(sr, t->active, sizeof(t->active)))
		return 0;
	t->has_active = true;
	char names[sizeof(t->active)];
	snprintf(names, sizeof(names), "%s", t->active);
	for (char *save = NULL, *w = strtok_r(names, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save))
		load(sr, t, w, 0);
	return 0;
}
