// SPDX-License-Identifier: MIT
#include "exe.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "parse.h"

int exe_path(const struct sysroot *sr, pid_t pid, char *out, size_t n)
{
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d", (int)pid);
	/* proc/PID resolved as every read (in a recorded tree, below its root); the link's text */
	int dir = sysroot_openat(sr, rel, O_PATH | O_DIRECTORY);
	if (dir < 0)
		return dir;
	ssize_t r = readlinkat(dir, "exe", out, n - 1);
	int e = errno;
	close(dir);
	if (r < 0)
		return -e;
	out[r] = '\0';
	static const char del[] = " (deleted)";
	size_t l = (size_t)r, dl = sizeof(del) - 1;
	if (l > dl && strcmp(out + l - dl, del) == 0)
		out[l - dl] = '\0';
	return 0;
}

int exe_is_path(const struct sysroot *sr, pid_t pid, const char *path)
{
	if (!sr->live)
		return -ENOENT;
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d", (int)pid);
	int dir = sysroot_openat(sr, rel, O_PATH | O_DIRECTORY);
	if (dir < 0)
		return dir;
	struct stat a, b;
	int r = fstatat(dir, "exe", &a, 0) ? -errno : 0; /* the file the link stands for */
	close(dir);
	if (r)
		return r;
	while (*path == '/')
		path++;
	if ((r = sysroot_stat(sr, path, &b, false)))
		return r;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int exe_self_path(char *out, size_t n)
{
	ssize_t r = readlink("/proc/self/exe", out, n - 1);
	if (r < 0)
		return -errno;
	if ((size_t)r >= n - 1)
		return -ENAMETOOLONG;
	out[r] = '\0';
	return out[0] == '/' ? 0 : -EINVAL;
}

#define MAX_SECTIONS 4096
#define MAX_SHSTRTAB (1u << 20)

static const char go_magic[] = "\xff Go buildinf:"; /* 14 bytes, debug/buildinfo */

/* Go 1.18+: after the 32-byte header, the version as a uvarint-prefixed string. */
static void go_inline_version(const unsigned char *h, size_t hn, char *ver, size_t n)
{
	ver[0] = '\0';
	if (hn < 33 || !(h[15] & 0x2)) /* flagsVersionInl */
		return;
	uint64_t len = 0;
	size_t i = 32;
	for (int shift = 0; i < hn && shift < 63; shift += 7) {
		len |= (uint64_t)(h[i] & 0x7f) << shift;
		if (!(h[i++] & 0x80))
			break;
	}
	if (len == 0 || len > hn - i || len >= n)
		return;
	for (size_t k = 0; k < len; k++) /* printable ASCII only */
		if (h[i + k] < 0x21 || h[i + k] > 0x7e)
			return;
	memcpy(ver, h + i, len);
	ver[len] = '\0';
}

int elf_header_read(elf_read_fn rd, void *ctx, union elf_ehdr *eh, bool *is64)
{
	unsigned char id[EI_NIDENT];
	int r;
	if ((r = rd(ctx, id, sizeof(id), 0)))
		return r == -EIO ? -EINVAL : r;
	if (memcmp(id, ELFMAG, SELFMAG) != 0)
		return -EINVAL;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (id[EI_DATA] != ELFDATA2LSB)
		return -EINVAL;
#else
	if (id[EI_DATA] != ELFDATA2MSB)
		return -EINVAL;
#endif
	*is64 = id[EI_CLASS] == ELFCLASS64;
	if (!*is64 && id[EI_CLASS] != ELFCLASS32)
		return -EINVAL;
	if (rd(ctx, eh, *is64 ? sizeof(eh->e64) : sizeof(eh->e32), 0))
		return -EINVAL;
	return 0;
}

int elf_go_version(elf_read_fn rd, void *ctx, char *ver, size_t n)
{
	if (n)
		ver[0] = '\0';
	union elf_ehdr eh;
	bool is64;
	int r = elf_header_read(rd, ctx, &eh, &is64);
	if (r)
		return r;
#define EHF(f) (is64 ? eh.e64.f : eh.e32.f)
	uint64_t shoff = EHF(e_shoff);
	unsigned shentsize = EHF(e_shentsize), shnum = EHF(e_shnum), shstrndx = EHF(e_shstrndx);
#undef EHF
	size_t want = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (shoff == 0 || shnum == 0)
		return 0; /* no section headers (stripped hard): cannot tell */
	if (shentsize != want || shnum > MAX_SECTIONS || shstrndx >= shnum)
		return -EINVAL;
	size_t tab = (size_t)shnum * want;
	unsigned char *sh = malloc(tab);
	if (!sh)
		return -ENOMEM;
	char *names = NULL;
	int ret = -EINVAL;
	if (rd(ctx, sh, tab, shoff))
		goto out;
	uint64_t names_off, name_len; /* the section-name string table */
#define SHF(i, f) (is64 ? ((Elf64_Shdr *)sh)[i].f : ((Elf32_Shdr *)sh)[i].f)
	names_off = SHF(shstrndx, sh_offset);
	name_len = SHF(shstrndx, sh_size);
	if (name_len == 0 || name_len > MAX_SHSTRTAB)
		goto out;
	names = malloc(name_len + 1);
	if (!names) {
		ret = -ENOMEM;
		goto out;
	}
	if (rd(ctx, names, name_len, names_off))
		goto out;
	names[name_len] = '\0';
	ret = 0;
	for (unsigned i = 0; i < shnum; i++) {
		uint64_t nm = SHF(i, sh_name);
		if (nm >= name_len || strcmp(names + nm, ".go.buildinfo") != 0)
			continue;
		ret = 1;
		unsigned char h[64];
		uint64_t size = SHF(i, sh_size);
		size_t hn = size < sizeof(h) ? (size_t)size : sizeof(h);
		if (SHF(i, sh_type) != SHT_NOBITS && hn >= 16 &&
		    rd(ctx, h, hn, SHF(i, sh_offset)) == 0 && memcmp(h, go_magic, 14) == 0 && n)
			go_inline_version(h, hn, ver, n);
		break;
	}
#undef SHF
out:
	free(names);
	free(sh);
	return ret;
}

static int fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	return pread_exact(*(const int *)ctx, buf, n, off);
}

int exe_go_version(const struct sysroot *sr, pid_t pid, char *ver, size_t n)
{
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/exe", (int)pid);
	int fd = sysroot_openat(sr, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	int r = elf_go_version(fd_read, &fd, ver, n);
	close(fd);
	return r;
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

int version_parse_mm(const char *s, int v[2])
{
	const char *colon = strchr(s, ':');
	if (colon && colon - s < 4) /* a dpkg epoch */
		s = colon + 1;
	if (!digit(*s))
		return -EINVAL;
	char *end;
	long maj = strtol(s, &end, 10), min = -1;
	if (*end == '.' && digit(end[1]))
		min = strtol(end + 1, &end, 10);
	if (maj > 100000 || min > 100000)
		return -EINVAL;
	v[0] = (int)maj;
	v[1] = (int)min;
	return 0;
}

int version_from_path(const char *path, int v[2])
{
	for (const char *p = path; *p; p++) {
		if (!digit(*p) || p == path || (p[-1] != '/' && p[-1] != '-'))
			continue;
		const char *e = p;
		while (digit(*e))
			e++;
		/* "15/" (a whole component) or "8.0" */
		if ((p[-1] == '/' && *e == '/') || (*e == '.' && digit(e[1])))
			return version_parse_mm(p, v);
	}
	return -ENOENT;
}

int dpkg_status_version(const char *text, size_t len, const char *pkg, char *out, size_t n)
{
	const char *pos = text, *end = text + len, *s, *e;
	size_t pl = strlen(pkg);
	bool in = false, installed = false;
	char ver[96] = "";
	while (next_line(&pos, end, &s, &e)) {
		size_t l = (size_t)(e - s);
		if (l == 0) { /* end of a stanza */
			if (in && installed && *ver) {
				snprintf(out, n, "%s", ver);
				return 0;
			}
			in = installed = false;
			ver[0] = '\0';
			continue;
		}
		if (l > 9 && memcmp(s, "Package: ", 9) == 0)
			in = l - 9 == pl && memcmp(s + 9, pkg, pl) == 0;
		else if (in && l > 8 && memcmp(s, "Status: ", 8) == 0)
			installed = l >= 8 + 10 && memcmp(e - 10, " installed", 10) == 0;
		else if (in && l > 9 && memcmp(s, "Version: ", 9) == 0)
			snprintf(ver, sizeof(ver), "%.*s", (int)(l - 9), s + 9);
	}
	if (in && installed && *ver) {
		snprintf(out, n, "%s", ver);
		return 0;
	}
	return -ENOENT;
}

int maps_largest_shared(const char *text, size_t len, uint64_t *kb, bool *hugetlb)
{
	static const char *const names[] = {"/SYSV", "/dev/zero", "[anon_shmem", "/anon_hugepage"};
	const char *pos = text, *end = text + len, *s, *e;
	uint64_t best = 0;
	bool best_ht = false;
	while (next_line(&pos, end, &s, &e)) {
		unsigned long long a, b;
		char perms[8];
		int off = 0;
		char line[512];
		size_t l = (size_t)(e - s) < sizeof(line) - 1 ? (size_t)(e - s) : sizeof(line) - 1;
		memcpy(line, s, l);
		line[l] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms, &off) != 3 ||
		    !off || b <= a || perms[3] != 's')
			continue;
		const char *name = line + off;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strncmp(name, names[i], strlen(names[i])) != 0)
				continue;
			uint64_t k = (b - a) / 1024;
			if (k > best) {
				best = k;
				best_ht = i == 3;
			}
			break;
		}
	}
	if (!best)
		return -ENOENT;
	*kb = best;
	*hugetlb = best_ht;
	return 0;
}

int cmdline_intact(const char *text, size_t len, const char *exe)
{
	if (!len || text[len - 1] != '\0' || text[0] == '\0')
		return 0;
	/* a title written over the argument area is padded with NULs */
	if (len >= 2 && text[len - 2] == '\0')
		return 0;
	const char *a0 = text, *b0 = strrchr(a0, '/'), *be = strrchr(exe, '/');
	b0 = b0 ? b0 + 1 : a0;
	be = be ? be + 1 : exe;
	/* argv[0] the exe itself, or a name or path whose last component is the exe's */
	if (strcmp(a0, exe) == 0 || strcmp(b0, be) == 0)
		return 1;
	return 0;
}

int dpkg_list_has(const char *text, size_t len, const char *path)
{
	size_t pl = strlen(path);
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e))
		if ((size_t)(e - s) == pl && memcmp(s, path, pl) == 0)
			return 1;
	return 0;
}

struct list_find {
	const char *path, *alt;
};

/* A chunk of whole lines of a .list file: 1 (stop: found) or 0. */
static int list_chunk(void *ctx, const char *text, size_t len)
{
	const struct list_find *f = ctx;
	return dpkg_list_has(text, len, f->path) || (f->alt && dpkg_list_has(text, len, f->alt));
}

int dpkg_owner(const struct sysroot *sr, const char *path, char *pkg, size_t n)
{
	DIR *d = sysroot_opendir(sr, SR_DPKG_INFO);
	if (!d)
		return -errno;
	/* usrmerge: /usr/bin/x may be listed as /bin/x */
	const char *alt = strncmp(path, "/usr/", 5) == 0 ? path + 4 : NULL;
	struct buf b = {0};
	int r = -ENOENT;
	struct dirent *de;
	while (r == -ENOENT && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l <= 5 || strcmp(de->d_name + l - 5, ".list") != 0)
			continue;
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), SR_DPKG_INFO "/%s", de->d_name);
		/* streamed: a package's list can be megabytes (google-cloud-cli: 4 MB) */
		struct list_find f = {path, alt};
		if (sysroot_read_chunks(sr, rel, &b, list_chunk, &f) == 1) {
			/* "postgresql-15.list", "libc6:amd64.list": the package name */
			size_t k = l - 5;
			const char *colon = memchr(de->d_name, ':', k);
			if (colon)
				k = (size_t)(colon - de->d_name);
			snprintf(pkg, n, "%.*s", (int)k, de->d_name);
			r = 0;
		}
	}
	closedir(d);
	buf_free(&b);
	return r;
}

int dpkg_installed_version(const struct sysroot *sr, struct dpkg_status *d, const char *pkg,
			   char *out, size_t n)
{
	if (!d->read) {
		d->read = true;
		d->err = sysroot_read(sr, SR_DPKG_STATUS, &d->text);
	}
	if (d->err)
		return d->err;
	return d->text.len ? dpkg_status_version(d->text.p, d->text.len, pkg, out, n) : -ENOENT;
}

void dpkg_status_free(struct dpkg_status *d)
{
	buf_free(&d->text);
	memset(d, 0, sizeof(*d));
}
