// SPDX-License-Identifier: MIT
#include "cgroup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"

static void copy_path(char *dst, size_t n, const char *s, const char *e)
{
	size_t len = (size_t)(e - s);
	if (len >= n)
		len = n - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Whether the comma-separated controller list [s, e) holds WORD. */
static bool has_word(const char *s, const char *e, const char *word)
{
	size_t wl = strlen(word);
	while (s < e) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		const char *we = c ? c : e;
		if ((size_t)(we - s) == wl && memcmp(s, word, wl) == 0)
			return true;
		s = c ? c + 1 : e;
	}
	return false;
}

int proc_cgroup_parse(const char *text, size_t len, struct proc_cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	const char *pos = text, *end = text + len, *s, *e;
	int n = 0;
	bool twice = false;
	while (next_line(&pos, end, &s, &e)) {
		/* hierarchy-ID:controller-list:cgroup-path; the path may hold ':' */
		const char *c1 = memchr(s, ':', (size_t)(e - s));
		if (!c1)
			continue;
		const char *c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1));
		if (!c2 || c2 + 1 >= e || c2[1] != '/')
			continue;
		n++;
		/* a hierarchy listed twice is damage: which path is right is unknown */
		if (c1 - s == 1 && s[0] == '0' && c2 == c1 + 1) {
			twice |= cg->has_v2;
			cg->has_v2 = true;
			copy_path(cg->v2, sizeof(cg->v2), c2 + 1, e);
		} else if (has_word(c1 + 1, c2, "memory")) {
			twice |= cg->has_v1_memory;
			cg->has_v1_memory = true;
			copy_path(cg->v1_memory, sizeof(cg->v1_memory), c2 + 1, e);
		} else if (has_word(c1 + 1, c2, "name=systemd")) {
			twice |= cg->has_v1_systemd;
			cg->has_v1_systemd = true;
			copy_path(cg->v1_systemd, sizeof(cg->v1_systemd), c2 + 1, e);
		}
	}
	if (twice)
		memset(cg, 0, sizeof(*cg));
	return n && !twice ? 0 : -EINVAL;
}

int cgroup_limit_parse(const char *text, size_t len, bool *limited, uint64_t *bytes)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if (len == 3 && memcmp(text, "max", 3) == 0) {
		*limited = false;
		*bytes = 0;
		return 0;
	}
	uint64_t v;
	if (parse_u64_text(text, len, &v))
		return -EINVAL;
	/* v1 prints PAGE_COUNTER_MAX * PAGE_SIZE (9223372036854771712 with 4 KiB pages) */
	*limited = v < (1ULL << 62);
	*bytes = *limited ? v : 0;
	return 0;
}

int cgroup_unit(const char *path, char *out, size_t n)
{
	const char *end = path + strlen(path);
	while (end > path) {
		const char *s = end;
		while (s > path && s[-1] != '/')
			s--;
		size_t l = (size_t)(end - s);
		if ((l > 8 && memcmp(end - 8, ".service", 8) == 0) ||
		    (l > 6 && memcmp(end - 6, ".scope", 6) == 0)) {
			copy_path(out, n, s, end);
			return 0;
		}
		end = s > path ? s - 1 : path;
	}
	return -ENOENT;
}

/* The usage of the limited cgroup REL's directory (USAGE its file): its headroom into OUT. */
static void read_headroom(const struct sysroot *sr, const char *rel, const char *usage,
			  uint64_t limit, struct buf *b, struct cg_limit *out)
{
	char ufile[CG_PATH_LEN + 64];
	const char *slash = strrchr(rel, '/');
	int dl = slash ? (int)(slash - rel) : 0;
	snprintf(ufile, sizeof(ufile), "%.*s/%s", dl, rel, usage);
	uint64_t use;
	if (sysroot_read(sr, ufile, b) || parse_u64_text(b->p, b->len, &use)) {
		out->usage_unknown = true;
		return;
	}
	uint64_t room = limit > use ? limit - use : 0;
	if (out->has_headroom && room >= out->headroom_bytes)
		return;
	out->has_headroom = true;
	out->headroom_bytes = room;
	out->usage_bytes = use;
	out->usage_limit_bytes = limit;
	snprintf(out->usage_file, sizeof(out->usage_file), "%s", ufile);
}

/* Whether a v2 cgroup REL's directory with no memory.max has the memory controller. */
static bool v2_has_memory(const struct sysroot *sr, const char *rel)
{
	char f[CG_PATH_LEN + 64];
	const char *slash = strrchr(rel, '/');
	snprintf(f, sizeof(f), "%.*s/memory.current", slash ? (int)(slash - rel) : 0, rel);
	return sysroot_exists(sr, f) == 0;
}

/*
 * Read the limit file of DIR (sysroot-relative) and its ancestors up to BASE, and the
 * usage file beside each limit. A limit file that is not readable makes the limit
 * unknown, but for a v2 cgroup with no memory controller (no memory.max, no
 * memory.current: the root, or a parent that does not enable it).
 */
static int walk_limits(const struct sysroot *sr, const char *base, const char *path,
		       const char *file, const char *usage, struct buf *b, struct cg_limit *out)
{
	char dir[CG_PATH_LEN];
	snprintf(dir, sizeof(dir), "%s", path);
	int err = -ENOENT;
	bool v2 = strcmp(file, "memory.max") == 0;
	for (;;) {
		size_t l = strlen(dir);
		while (l > 1 && dir[l - 1] == '/')
			dir[--l] = '\0';
		char rel[CG_PATH_LEN + 64];
		snprintf(rel, sizeof(rel), "%s%s/%s", base, strcmp(dir, "/") ? dir : "", file);
		int r = sysroot_read(sr, rel, b);
		bool lim;
		uint64_t v;
		if (r == 0 && cgroup_limit_parse(b->p, b->len, &lim, &v) == 0) {
			out->read_any = true;
			if (lim && (!out->limited || v < out->limit_bytes)) {
				out->limited = true;
				out->limit_bytes = v;
				snprintf(out->limit_file, sizeof(out->limit_file), "%s", rel);
			}
			if (lim)
				read_headroom(sr, rel, usage, v, b, out);
		} else {
			if (r == 0)
				r = -EINVAL;
			if (err == -ENOENT)
				err = r;
			if (!out->limit_unknown &&
			    (!v2 || r != -ENOENT || v2_has_memory(sr, rel))) {
				out->limit_unknown = true;
				out->unknown_err = r;
				snprintf(out->unknown_file, sizeof(out->unknown_file), "%s", rel);
			}
		}
		if (strcmp(dir, "/") == 0 || !*dir)
			break;
		char *slash = strrchr(dir, '/');
		if (!slash)
			break;
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
	return out->read_any ? 0 : err;
}

int cgroup_memory_limit(const struct sysroot *sr, const struct proc_cgroup *cg, struct buf *b,
			struct cg_limit *out)
{
	memset(out, 0, sizeof(*out));
	/* a path that climbs out of the cgroup tree is not the kernel's */
	if ((cg->has_v1_memory && strstr(cg->v1_memory, "/..")) ||
	    (cg->has_v2 && strstr(cg->v2, "/..")))
		return -EINVAL;
	/* v1 first: on a hybrid host the v2 tree (unified/) has no memory controller */
	if (cg->has_v1_memory && sysroot_exists(sr, SR_CGROUP "/memory") == 0) {
		out->version = 1;
		snprintf(out->path, sizeof(out->path), "%s", cg->v1_memory);
		return walk_limits(sr, SR_CGROUP "/memory", cg->v1_memory, "memory.limit_in_bytes",
				   "memory.usage_in_bytes", b, out);
	}
	if (cg->has_v2 && sysroot_exists(sr, SR_CGROUP "/cgroup.controllers") == 0) {
		out->version = 2;
		snprintf(out->path, sizeof(out->path), "%s", cg->v2);
		int r = walk_limits(sr, SR_CGROUP, cg->v2, "memory.max", "memory.current", b, out);
		/* the root cgroup has no memory.max, nor has a cgroup whose parent
		 * does not enable the memory controller: no limit there */
		return r == -ENOENT ? 0 : r;
	}
	return 0;
}

/* A cgroup memory file: a number, or "max" (v2) / a huge value (v1) for no limit. */
static bool cg_read(const struct sysroot *sr, struct buf *b, const char *dir, const char *file,
		    uint64_t *v)
{
	if (sysroot_readf(sr, b, "%s/%s", dir, file))
		return false;
	if (b->len >= 3 && strncmp(b->p, "max", 3) == 0) {
		*v = UINT64_MAX;
		return true;
	}
	if (parse_u64_text(b->p, b->len, v))
		return false;
	if (*v >= (1ull << 60)) /* v1 prints PAGE_COUNTER_MAX pages for "none" */
		*v = UINT64_MAX;
	return true;
}

uint64_t cgroup_self_headroom(const struct sysroot *sr, uint64_t *limit)
{
	static const struct {
		const char *base, *limit, *usage;
		bool v2;
	} kinds[] = {
		{SR_CGROUP "/memory", "memory.limit_in_bytes", "memory.usage_in_bytes", false},
		{SR_CGROUP, "memory.max", "memory.current", true},
		{SR_CGROUP "/unified", "memory.max", "memory.current", true},
	};
	struct buf b = {0}, cg = {0};
	uint64_t best = 0;
	*limit = 0;
	if (sysroot_read(sr, SR_PROC "/self/cgroup", &cg)) {
		buf_free(&cg);
		return 0;
	}
	const char *pos = cg.p, *end = cg.p + cg.len, *l, *le;
	while (next_line(&pos, end, &l, &le)) {
		/* "4:memory:/a/b" (v1) or "0::/a/b" (v2) */
		const char *c1 = memchr(l, ':', (size_t)(le - l));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(le - c1 - 1)) : NULL;
		if (!c2)
			continue;
		bool v2 = c1 - l == 1 && l[0] == '0' && c2 == c1 + 1;
		bool v1mem = false;
		for (const char *t = c1 + 1; t < c2;) {
			const char *comma = memchr(t, ',', (size_t)(c2 - t));
			const char *te = comma ? comma : c2;
			if (te - t == 6 && strncmp(t, "memory", 6) == 0)
				v1mem = true;
			t = te + 1;
		}
		if (!v2 && !v1mem)
			continue;
		char path[PATH_MAX];
		size_t plen = (size_t)(le - c2 - 1);
		if (plen >= sizeof(path) - 1)
			continue;
		memcpy(path, c2 + 1, plen);
		path[plen] = '\0';
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			if (kinds[k].v2 != v2)
				continue;
			/* walk up to the root; a cgroup namespace may hide the path: the root decides then */
			char p[PATH_MAX];
			snprintf(p, sizeof(p), "%s", path);
			for (;;) {
				char dir[PATH_MAX + 64];
				snprintf(dir, sizeof(dir), "%s%s", kinds[k].base,
					 strcmp(p, "/") ? p : "");
				uint64_t lim, use;
				if (cg_read(sr, &b, dir, kinds[k].limit, &lim) &&
				    lim != UINT64_MAX &&
				    cg_read(sr, &b, dir, kinds[k].usage, &use)) {
					uint64_t room = lim > use ? lim - use : 1;
					if (!best || room < best) {
						best = room;
						*limit = lim;
					}
				}
				char *slash = strrchr(p, '/');
				if (!slash || (slash == p && !p[1]))
					break;
				if (slash == p)
					p[1] = '\0';
				else
					*slash = '\0';
			}
		}
	}
	buf_free(&b);
	buf_free(&cg);
	return best;
}

int cgroup_v2_has_file(const struct sysroot *sr, const char *path, const char *name)
{
	char rel[PATH_MAX];
	int n = snprintf(rel, sizeof(rel), "%s%s/%s", SR_CGROUP, strcmp(path, "/") ? path : "",
			 name);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	return sysroot_exists(sr, rel);
}
