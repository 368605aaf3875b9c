// SPDX-License-Identifier: MIT
/* Capture's facts file of a process's allocator evidence (proc_alloc.h): writer and parser. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "proc_alloc.h"

#define FACTS_MAGIC "thpctl-alloc 1"

/* S when it holds no tab, newline or other control character, else "?". */
static const char *clean(const char *s)
{
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "?";
	return s;
}

static enum alloc_kind from_elf(enum elf_alloc a)
{
	static const enum alloc_kind k[EA_NKINDS] = {
		[EA_NONE] = AK_UNKNOWN,	     [EA_JEMALLOC] = AK_JEMALLOC,
		[EA_TCMALLOC] = AK_TCMALLOC, [EA_MIMALLOC] = AK_MIMALLOC,
		[EA_GLIBC] = AK_GLIBC,
	};
	return (unsigned)a < EA_NKINDS ? k[a] : AK_UNKNOWN;
}

static enum elf_alloc to_elf(int k)
{
	return k == AK_JEMALLOC	  ? EA_JEMALLOC
	       : k == AK_TCMALLOC ? EA_TCMALLOC
	       : k == AK_MIMALLOC ? EA_MIMALLOC
	       : k == AK_GLIBC	  ? EA_GLIBC
				  : EA_NONE;
}

static const char *const flag_names[] = {"sections", "phdrs",	 "dynamic", "symtab",	 "go",
					 "go_magic", "syms_cut", "rodata",  "rodata_cut"};
#define NFLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

static bool *flag_ptr(struct elf_facts *f, size_t i)
{
	bool *p[NFLAGS] = {&f->sections, &f->phdrs,    &f->dynamic, &f->symtab,	   &f->go,
			   &f->go_magic, &f->syms_cut, &f->rodata,  &f->rodata_cut};
	return p[i];
}

static int format_exe(const struct alloc_raw *r, struct buf *b)
{
	int e = buf_addf(b, "exe\t%d\n", r->exe_err);
	if (e || r->exe_err)
		return e;
	const struct elf_facts *f = &r->exe;
	e = buf_addf(b, "exe_elf\t%u\t%d\t", (unsigned)f->machine, f->is64 ? 64 : 32);
	bool any = false;
	for (size_t i = 0; !e && i < NFLAGS; i++)
		if (*flag_ptr((struct elf_facts *)f, i)) {
			e = buf_addf(b, "%s%s", any ? "," : "", flag_names[i]);
			any = true;
		}
	e = e ?: buf_addf(b, "%s\nexe_syms\t%llu\n", any ? "" : "-", (unsigned long long)f->syms);
	if (!e && f->go_version[0])
		e = buf_addf(b, "exe_go\t%s\n", clean(f->go_version));
	if (!e && f->go_godebug[0])
		e = buf_addf(b, "exe_godebug\t%s\n", clean(f->go_godebug));
	if (!e && f->alloc != EA_NONE)
		e = buf_addf(b, "exe_alloc\t%s\t%s\n", alloc_kind_name(from_elf(f->alloc)),
			     clean(f->alloc_sym));
	if (!e && f->version[0])
		e = buf_addf(b, "exe_version\t%s\n", clean(f->version));
	return e;
}

int alloc_raw_format(const struct alloc_raw *r, struct buf *b)
{
	b->len = 0;
	int e = buf_addf(b, FACTS_MAGIC "\nmaps\t%d\ndynamic\t%d\n", r->maps_err,
			 r->dynamic ? 1 : 0);
	for (int i = 0; !e && i < r->nlibs; i++) {
		const struct alloc_lib *l = &r->libs[i];
		e = buf_addf(b, "lib\t%s\t%s\t%d\t%u\t%s\t%s\n", alloc_kind_name(l->kind),
			     alloc_vsrc_name(l->vsrc), l->err, (unsigned)l->machine,
			     l->version[0] ? clean(l->version) : "-", clean(l->path));
	}
	e = e ?: format_exe(r, b);
	e = e
		    ?: buf_addf(b, "secure\t%d\t%s\n", r->at_secure,
				r->secure_from_auxv ? "auxv"
				: r->at_secure >= 0 ? "status"
						    : "none");
	return e;
}

/* ---- parser ---- */

/* Split LINE (NUL-terminated, modified) at tabs into at most MAX fields; returns how many. */
static int fields(char *line, char **f, int max)
{
	int n = 0;
	for (char *p = line; n < max;) {
		f[n++] = p;
		char *t = strchr(p, '\t');
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	return n;
}

static bool num(const char *s, long lo, long hi, long *v)
{
	char *e;
	errno = 0;
	long x = strtol(s, &e, 10);
	if (!*s || *e || errno || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

/* A printable token (without spaces unless SPACES), shorter than N, copied into OUT. */
static bool token(const char *s, char *out, size_t n, bool spaces)
{
	size_t l = strlen(s);
	if (!l || l >= n)
		return false;
	for (size_t i = 0; i < l; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || (!spaces && s[i] == ' '))
			return false;
	memcpy(out, s, l + 1);
	return true;
}

/* A library's version: a token, or "-" for none. */
static bool lib_version(const char *s, char *out, size_t n)
{
	if (strcmp(s, "-") == 0) {
		out[0] = '\0';
		return true;
	}
	return token(s, out, n, false);
}

static bool parse_lib(char **f, int n, struct alloc_raw *r)
{
	long err, mach;
	int k = n == 7 ? alloc_kind_parse(f[1]) : -1;
	if (k <= 0 || r->nlibs == ALLOC_MAX_LIBS)
		return false;
	struct alloc_lib *l = &r->libs[r->nlibs];
	memset(l, 0, sizeof(*l));
	l->kind = (enum alloc_kind)k;
	int v;
	for (v = 0; v < AV_NSRC && strcmp(alloc_vsrc_name((enum alloc_vsrc)v), f[2]); v++)
		;
	if (v == AV_NSRC || !num(f[3], -4095, 0, &err) || !num(f[4], 0, 65535, &mach) ||
	    !lib_version(f[5], l->version, sizeof(l->version)) ||
	    !token(f[6], l->path, sizeof(l->path), true) ||
	    (l->path[0] != '/' && strcmp(l->path, "?")))
		return false;
	l->vsrc = (enum alloc_vsrc)v;
	l->err = (int)err;
	l->machine = (uint16_t)mach;
	r->nlibs++;
	return true;
}

static bool parse_elf(char **f, int n, struct elf_facts *x)
{
	long mach, bits;
	if (n != 4 || !num(f[1], 0, 65535, &mach) || !num(f[2], 32, 64, &bits) ||
	    (bits != 32 && bits != 64))
		return false;
	x->machine = (uint16_t)mach;
	x->is64 = bits == 64;
	if (strcmp(f[3], "-") == 0)
		return true;
	for (char *save = NULL, *w = strtok_r(f[3], ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		size_t i = 0;
		while (i < NFLAGS && strcmp(flag_names[i], w))
			i++;
		if (i == NFLAGS)
			return false;
		*flag_ptr(x, i) = true;
	}
	return true;
}

/* One "key\tvalue" line; SEEN has a bit per key. false when damaged. */
static bool parse_line(char *line, struct alloc_raw *r, unsigned *seen)
{
	static const char *const keys[] = {"maps",	"dynamic",     "lib",	 "exe",
					   "exe_elf",	"exe_syms",    "exe_go", "exe_godebug",
					   "exe_alloc", "exe_version", "secure"};
	char *f[8];
	int n = fields(line, f, 8);
	int k = 0;
	while (k < (int)(sizeof(keys) / sizeof(keys[0])) && strcmp(keys[k], f[0]))
		k++;
	if (k == (int)(sizeof(keys) / sizeof(keys[0])))
		return true; /* a newer thpctl's key */
	if (k != 2 && (*seen & (1u << k)))
		return false; /* a key seen twice */
	*seen |= 1u << k;
	struct elf_facts *x = &r->exe;
	long v;
	switch (k) {
	case 0:
		return n == 2 && num(f[1], -4095, 0, &v) && ((r->maps_err = (int)v), true);
	case 1:
		return n == 2 && num(f[1], 0, 1, &v) && ((r->dynamic = v), true);
	case 2:
		return parse_lib(f, n, r);
	case 3:
		return n == 2 && num(f[1], -4095, 0, &v) && ((r->exe_err = (int)v), true);
	case 4:
		return parse_elf(f, n, x);
	case 5:
		return n == 2 && num(f[1], 0, 1L << 40, &v) && ((x->syms = (uint64_t)v), true);
	case 6:
		return n == 2 && token(f[1], x->go_version, sizeof(x->go_version), false);
	case 7:
		return n == 2 && token(f[1], x->go_godebug, sizeof(x->go_godebug), false);
	case 8: {
		int a = n == 3 ? alloc_kind_parse(f[1]) : -1;
		x->alloc = to_elf(a);
		return x->alloc != EA_NONE &&
		       token(f[2], x->alloc_sym, sizeof(x->alloc_sym), false);
	}
	case 9:
		return n == 2 && token(f[1], x->version, sizeof(x->version), false);
	default:
		if (n != 3 || !num(f[1], -1, 1, &v))
			return false;
		r->at_secure = (int)v;
		r->secure_from_auxv = strcmp(f[2], "auxv") == 0;
		return true;
	}
}

int alloc_raw_parse(const char *text, size_t len, struct alloc_raw *r)
{
	memset(r, 0, sizeof(*r));
	r->at_secure = -1;
	r->maps_err = r->exe_err = -ENOENT;
	const char *pos = text, *end = text + len, *s, *e;
	unsigned seen = 0;
	bool first = true;
	while (next_line(&pos, end, &s, &e)) {
		char line[512];
		size_t l = (size_t)(e - s);
		if (l >= sizeof(line) || memchr(s, '\0', l))
			return -EINVAL;
		memcpy(line, s, l);
		line[l] = '\0';
		if (first) {
			if (strcmp(line, FACTS_MAGIC))
				return -EINVAL;
			first = false;
			continue;
		}
		if (l && !parse_line(line, r, &seen))
			return -EINVAL;
	}
	/* an exe scanned (exe 0) has its ELF line */
	if (first || !(seen & 1u) || !(seen & (1u << 3)) || (!r->exe_err && !(seen & (1u << 4))))
		return -EINVAL;
	return 0;
}
