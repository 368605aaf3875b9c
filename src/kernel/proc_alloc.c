// SPDX-License-Identifier: MIT
/* The allocator evidence of a process (proc_alloc.h): maps, libraries, exe, auxv. */
#include "proc_alloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "../util/names.h"
#include "exe.h"
#include "parse.h"
#include "smaps.h"

static const char *const kind_names[AK_NKINDS] = {
	[AK_UNKNOWN] = "unknown",   [AK_GLIBC] = "glibc",	[AK_JEMALLOC] = "jemalloc",
	[AK_TCMALLOC] = "tcmalloc", [AK_MIMALLOC] = "mimalloc", [AK_GO] = "go",
	[AK_JVM] = "jvm",
};

const char *alloc_kind_name(enum alloc_kind k)
{
	return ENUM_NAME(kind_names, k, "unknown");
}

int alloc_kind_parse(const char *name)
{
	for (int k = 0; k < AK_NKINDS; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return -1;
}

static const char *const vsrc_names[AV_NSRC] = {
	[AV_NONE] = "none", [AV_FILE_NAME] = "file-name",    [AV_STRING] = "version-string",
	[AV_PATH] = "path", [AV_BUILDINFO] = "go-buildinfo",
};

const char *alloc_vsrc_name(enum alloc_vsrc v)
{
	return ENUM_NAME(vsrc_names, v, "none");
}

/* ---- pure parsers ---- */

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "X.Y" at S (digits, a dot, digits) followed by END ("" for the end of S): copied into VER. */
static bool dotted_then(const char *s, const char *end, char *ver, size_t n)
{
	const char *p = s;
	while (digit(*p))
		p++;
	if (p == s || *p != '.' || !digit(p[1]))
		return false;
	p++;
	while (digit(*p))
		p++;
	size_t el = strlen(end);
	if (strncmp(p, end, el) != 0 || (!el && *p) || (size_t)(p - s) >= n)
		return false;
	memcpy(ver, s, (size_t)(p - s));
	ver[p - s] = '\0';
	return true;
}

enum alloc_kind alloc_lib_kind(const char *name, char *ver, size_t n)
{
	if (n)
		ver[0] = '\0';
	if (strcmp(name, "libc.so.6") == 0)
		return AK_GLIBC;
	if (starts(name, "libc-") && dotted_then(name + 5, ".so", ver, n))
		return AK_GLIBC; /* glibc < 2.34: libc-2.31.so */
	if (starts(name, "libjemalloc") && strchr("._-", name[11] ? name[11] : 'x') &&
	    strstr(name, ".so"))
		return AK_JEMALLOC;
	if (starts(name, "libtcmalloc") && strchr("._-", name[11] ? name[11] : 'x') &&
	    strstr(name, ".so"))
		return AK_TCMALLOC;
	if (starts(name, "libmimalloc") && strchr("._-", name[11] ? name[11] : 'x')) {
		const char *so = strstr(name, ".so");
		if (!so)
			return AK_UNKNOWN;
		if (so[3] == '.') /* libmimalloc.so.2.0: its major.minor */
			dotted_then(so + 4, "", ver, n);
		return AK_MIMALLOC;
	}
	if (strcmp(name, "libjvm.so") == 0)
		return AK_JVM;
	return AK_UNKNOWN;
}

/*
 * The Java major version in a JDK's directory name: the first number after a
 * '-' in the component that names "jdk", "jre" or "java" ("java-17-openjdk-amd64",
 * "jdk-21.0.2", "temurin-11-jdk", "java-1.8.0-openjdk": 8). 0 when none.
 */
static int jvm_major(const char *path)
{
	for (const char *c = path; c && *c; c = strchr(c + 1, '/')) {
		const char *s = *c == '/' ? c + 1 : c, *e = strchr(s, '/');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		char comp[128];
		if (l >= sizeof(comp))
			continue;
		memcpy(comp, s, l);
		comp[l] = '\0';
		if (!strstr(comp, "jdk") && !strstr(comp, "jre") && !strstr(comp, "java"))
			continue;
		for (const char *q = strchr(comp, '-'); q; q = strchr(q + 1, '-')) {
			if (!digit(q[1]))
				continue;
			char *end;
			long m = strtol(q + 1, &end, 10);
			if (m == 1 && end[0] == '.' && digit(end[1])) /* 1.8: Java 8 */
				m = strtol(end + 1, &end, 10);
			if (m > 0 && m < 1000 &&
			    (!*end || *end == '-' || *end == '.' || *end == '+'))
				return (int)m;
		}
	}
	return 0;
}

/* Add PATH (LEN bytes) mapped at A-B to R when it is a library of interest. */
static void add_path(struct alloc_raw *r, const char *path, size_t len, uint64_t a, uint64_t b)
{
	static const char del[] = " (deleted)";
	bool deleted = len > sizeof(del) - 1 &&
		       memcmp(path + len - (sizeof(del) - 1), del, sizeof(del) - 1) == 0;
	if (deleted)
		len -= sizeof(del) - 1;
	if (!len || path[0] != '/' || len >= ALLOC_PATH_LEN)
		return;
	char p[ALLOC_PATH_LEN];
	memcpy(p, path, len);
	p[len] = '\0';
	const char *base = strrchr(p, '/') + 1;
	if (strstr(base, ".so"))
		r->dynamic = true;
	char ver[ELF_VER_LEN];
	enum alloc_kind k = alloc_lib_kind(base, ver, sizeof(ver));
	if (k == AK_UNKNOWN)
		return;
	for (int i = 0; i < r->nlibs; i++)
		if (strcmp(r->libs[i].path, p) == 0)
			return;
	if (r->nlibs == ALLOC_MAX_LIBS)
		return;
	struct alloc_lib *l = &r->libs[r->nlibs++];
	memset(l, 0, sizeof(*l));
	l->kind = k;
	memcpy(l->path, p, len + 1);
	l->deleted = deleted;
	l->start = a;
	l->end = b;
	int v;
	if (ver[0]) {
		snprintf(l->version, sizeof(l->version), "%s", ver);
		l->vsrc = AV_FILE_NAME;
	} else if (k == AK_JVM && (v = jvm_major(p)) > 0) {
		snprintf(l->version, sizeof(l->version), "%d", v);
		l->vsrc = AV_PATH;
	}
}

void alloc_maps_parse(const char *text, size_t len, struct alloc_raw *r)
{
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		char line[ALLOC_PATH_LEN + 128];
		size_t l = (size_t)(e - s) < sizeof(line) - 1 ? (size_t)(e - s) : sizeof(line) - 1;
		memcpy(line, s, l);
		line[l] = '\0';
		unsigned long long a, b;
		char perms[8];
		int off = 0;
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms, &off) != 3 ||
		    !off || b <= a)
			continue;
		if ((size_t)(e - s) > sizeof(line) - 1)
			continue; /* a path cut here would be a wrong name */
		/* the kernel's \012 for a newline in the path, undone as smaps' names are */
		add_path(r, line + off, smaps_name_unescape(line + off, strlen(line + off)), a, b);
	}
}

int auxv_at_secure(const unsigned char *p, size_t n)
{
	size_t w = sizeof(unsigned long);
	for (size_t at = 0; at + 2 * w <= n; at += 2 * w) {
		unsigned long type, val;
		memcpy(&type, p + at, w);
		memcpy(&val, p + at + w, w);
		if (type == AT_NULL)
			return -1;
		if (type == AT_SECURE)
			return val ? 1 : 0;
	}
	return -1;
}

/* The real and effective ids of status line KEY ("Uid:"): false when absent or damaged. */
static bool ids(const char *text, size_t len, const char *key, unsigned long *real,
		unsigned long *eff)
{
	const char *pos = text, *end = text + len, *s, *e;
	size_t kl = strlen(key);
	while (next_line(&pos, end, &s, &e)) {
		if ((size_t)(e - s) <= kl || memcmp(s, key, kl) != 0)
			continue;
		char line[128];
		size_t l = (size_t)(e - s) < sizeof(line) - 1 ? (size_t)(e - s) : sizeof(line) - 1;
		memcpy(line, s + kl, l - kl);
		line[l - kl] = '\0';
		return sscanf(line, "%lu %lu", real, eff) == 2;
	}
	return false;
}

int status_setid(const char *text, size_t len)
{
	unsigned long ur, ue, gr, ge;
	if (!ids(text, len, "Uid:", &ur, &ue) || !ids(text, len, "Gid:", &gr, &ge))
		return -1;
	return ur != ue || gr != ge;
}

/* ---- the reader ---- */

#define CACHE_N 64

/* ELF scans by file identity: one scan per library or binary in a ps run. */
static struct cache_ent {
	bool used;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	unsigned want;
	enum elf_alloc vk;
	int rc;
	struct elf_facts f;
} cache[CACHE_N];
static unsigned cache_next;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	return pread_exact(*(const int *)ctx, buf, n, off);
}

static bool same(const struct cache_ent *c, const struct stat *st, unsigned want, enum elf_alloc vk)
{
	return c->used && c->dev == st->st_dev && c->ino == st->st_ino && c->size == st->st_size &&
	       c->mtime.tv_sec == st->st_mtim.tv_sec && c->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       c->want == want && c->vk == vk;
}

/* elf_scan of the regular file FD (closed here), cached. 0 or -errno. */
static int scan_fd(int fd, unsigned want, enum elf_alloc vk, struct elf_facts *f)
{
	struct stat st;
	if (fstat(fd, &st)) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -ERR_NOTREG;
	}
	pthread_mutex_lock(&cache_lock);
	for (int i = 0; i < CACHE_N; i++)
		if (same(&cache[i], &st, want, vk)) {
			*f = cache[i].f;
			int rc = cache[i].rc;
			pthread_mutex_unlock(&cache_lock);
			close(fd);
			return rc;
		}
	pthread_mutex_unlock(&cache_lock);
	struct elf_src src = {fd_read, &fd, (uint64_t)st.st_size};
	int rc = elf_scan(&src, want, vk, f);
	close(fd);
	if (rc == -ENOMEM)
		return rc;
	pthread_mutex_lock(&cache_lock);
	struct cache_ent *c = &cache[cache_next++ % CACHE_N];
	*c = (struct cache_ent){true, st.st_dev, st.st_ino, st.st_size, st.st_mtim,
				want, vk,	 rc,	    *f};
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

static enum elf_alloc elf_kind(enum alloc_kind k)
{
	return k == AK_GLIBC	  ? EA_GLIBC
	       : k == AK_JEMALLOC ? EA_JEMALLOC
	       : k == AK_TCMALLOC ? EA_TCMALLOC
				  : EA_NONE;
}

/*
 * Library L's version string (live): map_files (root), else the process's root; not
 * for a deleted library, whose path there is its replacement (an upgrade), not what
 * is mapped: its version stays unknown.
 */
static void lib_version(const struct sysroot *sr, pid_t pid, struct alloc_lib *l)
{
	enum elf_alloc vk = elf_kind(l->kind);
	if (l->version[0] || vk == EA_NONE)
		return;
	if (!sr->live) {
		l->err = -ENOENT; /* not recorded */
		return;
	}
	char rel[ALLOC_PATH_LEN + 64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)l->start, (unsigned long long)l->end);
	int fd = sysroot_openat(sr, rel, O_RDONLY);
	if (fd < 0 && !l->deleted) {
		snprintf(rel, sizeof(rel), SR_PROC "/%d/root%s", (int)pid, l->path);
		fd = sysroot_openat(sr, rel, O_RDONLY);
	}
	if (fd < 0) {
		l->err = fd;
		return;
	}
	struct elf_facts f;
	l->err = scan_fd(fd, ELF_WANT_VERSION, vk, &f);
	l->machine = f.machine;
	if (!l->err && f.version[0]) {
		snprintf(l->version, sizeof(l->version), "%s", f.version);
		l->vsrc = AV_STRING;
	}
}

/* The executable as ELF: its Go build info and allocator symbols, then that allocator's version. */
static void read_exe(const struct sysroot *sr, pid_t pid, struct alloc_raw *r)
{
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/exe", (int)pid);
	/* live: the magic link to the running program; a tree: a regular file or nothing */
	int fd = sr->live ? sysroot_openat(sr, rel, O_RDONLY) : sysroot_open_file(sr, rel);
	int fd2 = fd >= 0 ? dup(fd) : -1;
	if (fd < 0) {
		r->exe_err = fd;
		return;
	}
	r->exe_err = scan_fd(fd, ELF_WANT_GO | ELF_WANT_SYMS, EA_NONE, &r->exe);
	enum elf_alloc vk = r->exe.alloc;
	if (!r->exe_err && fd2 >= 0 && (vk == EA_JEMALLOC || vk == EA_TCMALLOC)) {
		struct elf_facts v;
		if (scan_fd(fd2, ELF_WANT_VERSION, vk, &v) == 0) {
			memcpy(r->exe.version, v.version, sizeof(v.version));
			r->exe.rodata = v.rodata;
			r->exe.rodata_cut = v.rodata_cut;
		}
	} else if (fd2 >= 0) {
		close(fd2);
	}
}

/* AT_SECURE from auxv, else a set-id program from status. */
static void read_secure(const struct sysroot *sr, pid_t pid, struct buf *b, struct alloc_raw *r)
{
	r->at_secure = -1;
	if (sr->live && sysroot_readf(sr, b, SR_PROC "/%d/auxv", (int)pid) == 0) {
		r->at_secure = auxv_at_secure((const unsigned char *)b->p, b->len);
		r->secure_from_auxv = r->at_secure >= 0;
	}
	if (r->at_secure < 0 && sysroot_readf(sr, b, SR_PROC "/%d/status", (int)pid) == 0 &&
	    status_setid(b->p, b->len) == 1)
		r->at_secure = 1;
}

/* A recorded tree's facts file: 0 (R filled), -ENOENT, -EINVAL. */
static int read_facts(const struct sysroot *sr, pid_t pid, struct buf *b, struct alloc_raw *r)
{
	char rel[64];
	snprintf(rel, sizeof(rel), SR_ALLOC_FACTS_FMT, (int)pid);
	int fd = sysroot_open_file(sr, rel);
	if (fd < 0)
		return fd;
	int e = buf_read_fd(b, fd, 64u << 10, 0);
	close(fd);
	if (e)
		return e == -EFBIG ? -EINVAL : e;
	return alloc_raw_parse(b->p, b->len, r);
}

/* alloc_maps_parse as a sysroot_read_chunks callback (CTX: struct alloc_raw). */
static int maps_chunk(void *ctx, const char *text, size_t len)
{
	alloc_maps_parse(text, len, ctx);
	return 0;
}

void alloc_maps_vma(struct alloc_raw *r, const char *name, size_t len, uint64_t start, uint64_t end)
{
	if (end > start)
		add_path(r, name, len, start, end);
}

/* Read R's evidence of PID; its libraries from maps unless WALKED (given already). */
static int alloc_read(const struct sysroot *sr, pid_t pid, struct alloc_raw *r, bool walked)
{
	struct alloc_raw seen;
	if (walked)
		seen = *r;
	memset(r, 0, sizeof(*r));
	r->at_secure = -1;
	struct buf b = {0};
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d", (int)pid);
	int e = sysroot_exists(sr, rel);
	if (e) {
		buf_free(&b);
		return e == -ENOMEM ? e : -ESRCH;
	}
	if (!sr->live && read_facts(sr, pid, &b, r) == 0) {
		r->from_facts = true;
		buf_free(&b);
		return 0;
	}
	memset(r, 0, sizeof(*r));
	if (walked) {
		r->dynamic = seen.dynamic;
		r->nlibs = seen.nlibs;
		memcpy(r->libs, seen.libs, sizeof(r->libs));
	} else {
		/* in chunks of whole lines: a process of 20 000 VMAs has 1.5 MB of maps */
		snprintf(rel, sizeof(rel), SR_PROC "/%d/maps", (int)pid);
		r->maps_err = sysroot_read_chunks(sr, rel, &b, maps_chunk, r);
		if (r->maps_err == -ENOENT && !sr->live) { /* its VMA header lines are maps' */
			snprintf(rel, sizeof(rel), SR_PROC "/%d/smaps", (int)pid);
			r->maps_err = sysroot_read_chunks(sr, rel, &b, maps_chunk, r);
		}
		if (r->maps_err) { /* what a part read gave is not the process's */
			r->dynamic = false;
			r->nlibs = 0;
		}
	}
	for (int i = 0; i < r->nlibs; i++)
		lib_version(sr, pid, &r->libs[i]);
	read_exe(sr, pid, r);
	read_secure(sr, pid, &b, r);
	buf_free(&b);
	return 0;
}

int proc_alloc_read(const struct sysroot *sr, pid_t pid, struct alloc_raw *r)
{
	return alloc_read(sr, pid, r, false);
}

int proc_alloc_read_walked(const struct sysroot *sr, pid_t pid, struct alloc_raw *r)
{
	return alloc_read(sr, pid, r, true);
}
