// SPDX-License-Identifier: MIT
#include "elf_scan.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- pure matchers ---- */

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum elf_alloc elf_alloc_symbol(const char *name)
{
	static const char *const je[] = {"mallctl", "je_mallctl", "malloc_conf", "je_malloc_conf",
					 "mallctlnametomib"};
	for (size_t i = 0; i < sizeof(je) / sizeof(je[0]); i++)
		if (strcmp(name, je[i]) == 0)
			return EA_JEMALLOC;
	if (starts(name, "_rjem_"))
		return EA_JEMALLOC;
	if (starts(name, "TCMalloc") || starts(name, "_ZN8tcmalloc") ||
	    strcmp(name, "tc_malloc") == 0 || (starts(name, "_ZN") && strstr(name, "N8tcmalloc")))
		return EA_TCMALLOC;
	if (strcmp(name, "mi_malloc") == 0 || strcmp(name, "mi_version") == 0)
		return EA_MIMALLOC;
	if (strcmp(name, "_int_malloc") == 0)
		return EA_GLIBC;
	return EA_NONE;
}

static bool dig(char c)
{
	return c >= '0' && c <= '9';
}

static bool hexl(char c)
{
	return dig(c) || (c >= 'a' && c <= 'f');
}

/* Digits at P[0..N): how many (at most 6), 0 when none. */
static size_t ndig(const char *p, size_t n)
{
	size_t k = 0;
	while (k < n && k < 7 && dig(p[k]))
		k++;
	return k > 6 ? 0 : k;
}

/* "X.Y" or "X.Y.Z" at P (up to N bytes): its length, 0 when not one. PARTS: 2 or 3 numbers. */
static size_t dotted(const char *p, size_t n, int parts)
{
	size_t at = 0;
	for (int i = 0; i < parts; i++) {
		if (i) {
			if (at >= n || p[at] != '.')
				return 0;
			at++;
		}
		size_t k = ndig(p + at, n - at);
		if (!k)
			return 0;
		at += k;
	}
	return at;
}

static void copy_ver(char *out, size_t n_out, const char *p, size_t len)
{
	if (len >= n_out)
		len = n_out - 1;
	memcpy(out, p, len);
	out[len] = '\0';
}

/* jemalloc's JEMALLOC_VERSION: "5.3.0-0-g" then 40 hex digits. */
static bool je_version(const char *p, size_t n, char *out, size_t n_out)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (!dig(p[i]) || (i && (dig(p[i - 1]) || p[i - 1] == '.')))
			continue;
		size_t v = dotted(p + i, n - i, 3);
		if (!v || i + v >= n || p[i + v] != '-')
			continue;
		size_t at = i + v + 1, k = ndig(p + at, n - at);
		if (!k || at + k + 2 + 40 > n || p[at + k] != '-' || p[at + k + 1] != 'g')
			continue;
		const char *sha = p + at + k + 2;
		size_t h = 0;
		while (h < 40 && hexl(sha[h]))
			h++;
		if (h == 40) {
			copy_ver(out, n_out, p + i, v);
			return true;
		}
	}
	return false;
}

/* The first "NEEDLE" in P[0..N), then within WINDOW bytes "AFTER" and an X.Y version. */
static bool after_version(const char *p, size_t n, const char *needle, const char *after,
			  size_t window, char *out, size_t n_out)
{
	size_t nl = strlen(needle), al = strlen(after);
	for (const char *s = p, *e = p + n; s < e;) {
		const char *hit = memmem(s, (size_t)(e - s), needle, nl);
		if (!hit)
			return false;
		const char *w = hit + nl, *we = (size_t)(e - w) > window ? w + window : e;
		for (const char *q = w; q + al < we; q++) {
			if (*q == '\0' || *q == '\n')
				break;
			if (memcmp(q, after, al))
				continue;
			size_t v = dotted(q + al, (size_t)(e - (q + al)), 2);
			if (v) {
				copy_ver(out, n_out, q + al, v);
				return true;
			}
		}
		s = hit + 1;
	}
	return false;
}

bool elf_version_in(enum elf_alloc kind, const char *p, size_t n, char *out, size_t n_out)
{
	if (!n_out)
		return false;
	out[0] = '\0';
	switch (kind) {
	case EA_JEMALLOC:
		return je_version(p, n, out, n_out);
	case EA_GLIBC: /* "GNU C Library (Debian GLIBC 2.36-9) stable release version 2.36." */
		return after_version(p, n, "GNU C Library", "version ", 200, out, n_out);
	case EA_TCMALLOC: /* gperftools' TC_VERSION_STRING "gperftools 2.10" */
		return after_version(p, n, "gperftools", " ", 2, out, n_out);
	default:
		return false;
	}
}

/* A uvarint at P[*at..N): its value, *at moved past it; false when cut or too long. */
static bool uvarint(const unsigned char *p, size_t n, size_t *at, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *at < n && shift < 63; shift += 7) {
		unsigned char b = p[(*at)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* Visible ASCII only: no space, no control byte (a version or a GODEBUG list). */
static bool printable(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x21 || p[i] > 0x7e)
			return false;
	return true;
}

bool elf_go_buildinfo(const unsigned char *p, size_t n, char *ver, size_t vn, char *godebug,
		      size_t gn)
{
	if (vn)
		ver[0] = '\0';
	if (gn)
		godebug[0] = '\0';
	if (n < 16 || memcmp(p, "\xff Go buildinf:", 14) != 0)
		return false;
	if (n < 33 || !(p[15] & 0x2)) /* flagsVersionInl: Go 1.18+ */
		return true;
	size_t at = 32;
	uint64_t len;
	if (!uvarint(p, n, &at, &len) || len > n - at)
		return true;
	if (len && len < vn && printable(p + at, (size_t)len)) {
		memcpy(ver, p + at, (size_t)len);
		ver[len] = '\0';
	}
	at += (size_t)len;
	if (!uvarint(p, n, &at, &len) || len > n - at)
		return true;
	static const char key[] = "build\tDefaultGODEBUG=";
	const unsigned char *m = p + at;
	const unsigned char *k = memmem(m, (size_t)len, key, sizeof(key) - 1);
	if (!k || (k > m && k[-1] != '\n'))
		return true;
	const unsigned char *v = k + sizeof(key) - 1, *e = m + len;
	const unsigned char *nl = memchr(v, '\n', (size_t)(e - v));
	size_t vl = (size_t)((nl ? nl : e) - v);
	if (vl < gn && printable(v, vl)) {
		memcpy(godebug, v, vl);
		godebug[vl] = '\0';
	}
	return true;
}

/* ---- the file ---- */

struct sec {
	uint32_t name, type, link;
	uint64_t off, size, entsize;
};

struct scan {
	const struct elf_src *src;
	bool is64;
	unsigned nsec;
	struct sec *s;
	char *names; /* section names, NUL-terminated */
	uint64_t names_len;
	struct elf_facts *out;
};

/* Whether [OFF, OFF+LEN) lies inside the file (when its size is known). */
static bool inside(const struct scan *c, uint64_t off, uint64_t len)
{
	if (off + len < off)
		return false;
	return !c->src->size || off + len <= c->src->size;
}

static int rd(const struct scan *c, void *buf, size_t n, uint64_t off)
{
	if (!inside(c, off, n))
		return -EIO;
	return c->src->read(c->src->ctx, buf, n, off);
}

/* rd as an elf_read_fn (CTX: struct scan). */
static int scan_rd(void *ctx, void *buf, size_t n, uint64_t off)
{
	return rd(ctx, buf, n, off);
}

static const char *sec_name(const struct scan *c, unsigned i)
{
	return c->s[i].name < c->names_len ? c->names + c->s[i].name : "";
}

/* The section headers and their names. 0, -EINVAL (outside the file), -ENOMEM, -errno. */
static int read_sections(struct scan *c, uint64_t shoff, unsigned shentsize, unsigned shnum,
			 unsigned shstrndx)
{
	size_t want = c->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (shoff == 0 || shnum == 0)
		return 0; /* no section headers: nothing but the program headers to go by */
	if (shentsize != want || shnum > ELF_MAX_SECTIONS || shstrndx >= shnum ||
	    !inside(c, shoff, (uint64_t)shnum * want))
		return -EINVAL;
	unsigned char *raw = malloc((size_t)shnum * want);
	c->s = calloc(shnum, sizeof(*c->s));
	if (!raw || !c->s) {
		free(raw);
		return -ENOMEM;
	}
	int r = rd(c, raw, (size_t)shnum * want, shoff);
	for (unsigned i = 0; !r && i < shnum; i++) {
		struct sec *s = &c->s[i];
		if (c->is64) {
			const Elf64_Shdr *h = (const Elf64_Shdr *)(raw + i * want);
			*s = (struct sec){h->sh_name,	h->sh_type, h->sh_link,
					  h->sh_offset, h->sh_size, h->sh_entsize};
		} else {
			const Elf32_Shdr *h = (const Elf32_Shdr *)(raw + i * want);
			*s = (struct sec){h->sh_name,	h->sh_type, h->sh_link,
					  h->sh_offset, h->sh_size, h->sh_entsize};
		}
	}
	free(raw);
	if (r)
		return r == -EIO ? -EINVAL : r;
	c->nsec = shnum;
	const struct sec *ns = &c->s[shstrndx];
	if (ns->size == 0 || ns->size > ELF_MAX_SHSTRTAB || !inside(c, ns->off, ns->size))
		return 0; /* no names: sections unnamed, nothing found by name */
	c->names = malloc(ns->size + 1);
	if (!c->names)
		return -ENOMEM;
	if (rd(c, c->names, ns->size, ns->off)) {
		free(c->names);
		c->names = NULL;
		return 0;
	}
	c->names[ns->size] = '\0';
	c->names_len = ns->size;
	return 0;
}

/* PT_INTERP or PT_DYNAMIC among the program headers. */
static void read_phdrs(struct scan *c, uint64_t phoff, unsigned phentsize, unsigned phnum)
{
	size_t want = c->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (!phoff || !phnum || phentsize != want || phnum > ELF_MAX_PHDRS ||
	    !inside(c, phoff, (uint64_t)phnum * want))
		return;
	unsigned char *raw = malloc((size_t)phnum * want);
	if (!raw)
		return;
	if (rd(c, raw, (size_t)phnum * want, phoff) == 0) {
		c->out->phdrs = true;
		for (unsigned i = 0; i < phnum; i++) {
			uint32_t t = c->is64 ? ((const Elf64_Phdr *)(raw + i * want))->p_type
					     : ((const Elf32_Phdr *)(raw + i * want))->p_type;
			if (t == PT_INTERP || t == PT_DYNAMIC)
				c->out->dynamic = true;
		}
	}
	free(raw);
}

static void scan_go(struct scan *c, const struct sec *s)
{
	c->out->go = true;
	uint64_t n = s->size < ELF_MAX_BUILDINFO ? s->size : ELF_MAX_BUILDINFO;
	if (c->src->size && n && !inside(c, s->off, n)) /* what of it lies in the file */
		n = s->off < c->src->size ? c->src->size - s->off : 0;
	if (s->type == SHT_NOBITS || n < 16)
		return;
	unsigned char *p = malloc((size_t)n);
	if (!p)
		return;
	if (rd(c, p, (size_t)n, s->off) == 0)
		c->out->go_magic = elf_go_buildinfo(p, (size_t)n, c->out->go_version, ELF_VER_LEN,
						    c->out->go_godebug, ELF_GODEBUG_LEN);
	free(p);
}

/* NAME into OUT (N bytes), cut, anything but visible ASCII as '?'. */
static void copy_sym(char *out, size_t n, const char *name)
{
	size_t i = 0;
	for (; name[i] && i + 1 < n; i++)
		out[i] = name[i] > 0x20 && name[i] < 0x7f ? name[i] : '?';
	out[i] = '\0';
}

#define SYM_CHUNK 1024 /* symbols a read (24 kB of Elf64_Sym) */
#define STR_PAGE 4096  /* the string table is read a page at a time ... */
#define STR_SLOTS 16   /* ... into 16 slots (64 kB, a page per slot by its number) */
#define STR_NAME 4096  /* longer names are cut (no allocator symbol is near that long) */

/*
 * A symbol string table read in pages on demand, so a scan's memory is 68 kB whatever
 * the table's size (an unstripped binary's .strtab is megabytes; it was read whole).
 * Symbol tables name their strings mostly in order: nearly every lookup is in a page
 * read for the one before.
 */
struct strtab {
	const struct scan *c;
	uint64_t off, size;
	int64_t tag[STR_SLOTS]; /* the page in each slot; -1 none */
	char page[STR_SLOTS][STR_PAGE];
	char name[STR_NAME + 1];
};

/* The name at offset NM of T (cut at STR_NAME bytes or the table's end), or NULL on a read error. */
static const char *str_at(struct strtab *t, uint64_t nm)
{
	size_t n = 0;
	for (uint64_t at = nm; n < STR_NAME && at < t->size;) {
		uint64_t pg = at / STR_PAGE;
		size_t slot = (size_t)(pg % STR_SLOTS), in = (size_t)(at % STR_PAGE);
		size_t len = t->size - pg * STR_PAGE < STR_PAGE ? (size_t)(t->size - pg * STR_PAGE)
								: STR_PAGE;
		if (t->tag[slot] != (int64_t)pg) {
			t->tag[slot] = -1;
			if (rd(t->c, t->page[slot], len, t->off + pg * STR_PAGE))
				return NULL;
			t->tag[slot] = (int64_t)pg;
		}
		const char *p = t->page[slot] + in, *z = memchr(p, '\0', len - in);
		size_t take = z ? (size_t)(z - p) : len - in;
		if (take > STR_NAME - n)
			take = STR_NAME - n;
		memcpy(t->name + n, p, take);
		n += take;
		at += take;
		if (z)
			break;
	}
	t->name[n] = '\0';
	return t->name;
}

/* The symbols of table S (its strings in section S->link): the first allocator's, and a count. */
static int scan_syms(struct scan *c, const struct sec *s)
{
	size_t es = c->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	struct elf_facts *o = c->out;
	if (s->entsize != es || s->link >= c->nsec || s->size / es > ELF_MAX_SYMS ||
	    !inside(c, s->off, s->size)) {
		o->syms_cut = true;
		return 0;
	}
	const struct sec *st = &c->s[s->link];
	if (st->type != SHT_STRTAB || st->size > ELF_MAX_STRTAB || !inside(c, st->off, st->size)) {
		o->syms_cut = true;
		return 0;
	}
	struct strtab *str = malloc(sizeof(*str));
	unsigned char *chunk = malloc(SYM_CHUNK * es);
	if (!str || !chunk) {
		free(str);
		free(chunk);
		return -ENOMEM;
	}
	*str = (struct strtab){.c = c, .off = st->off, .size = st->size};
	for (size_t i = 0; i < STR_SLOTS; i++)
		str->tag[i] = -1;
	uint64_t nsyms = s->size / es;
	int r = 0;
	for (uint64_t i = 0; !r && i < nsyms && o->alloc == EA_NONE;) {
		size_t k = nsyms - i < SYM_CHUNK ? (size_t)(nsyms - i) : SYM_CHUNK;
		if ((r = rd(c, chunk, k * es, s->off + i * es)))
			break;
		for (size_t j = 0; j < k; j++) {
			uint32_t nm;
			uint16_t shndx;
			if (c->is64) {
				const Elf64_Sym *y = (const Elf64_Sym *)(chunk + j * es);
				nm = y->st_name;
				shndx = y->st_shndx;
			} else {
				const Elf32_Sym *y = (const Elf32_Sym *)(chunk + j * es);
				nm = y->st_name;
				shndx = y->st_shndx;
			}
			if (shndx == SHN_UNDEF || nm == 0 || nm >= st->size)
				continue;
			o->syms++;
			const char *name = str_at(str, nm);
			if (!name) {
				r = -EIO;
				break;
			}
			enum elf_alloc a = elf_alloc_symbol(name);
			if (a != EA_NONE && o->alloc == EA_NONE) {
				o->alloc = a;
				copy_sym(o->alloc_sym, sizeof(o->alloc_sym), name);
			}
		}
		i += k;
	}
	if (r)
		o->syms_cut = true;
	free(str);
	free(chunk);
	return 0;
}

#define RO_CHUNK (64u << 10) /* a read: a larger one only adds to peak RSS */
#define RO_OVERLAP 256

/* KIND's version string in section S, read in chunks that overlap by RO_OVERLAP bytes. */
static int scan_version(struct scan *c, const struct sec *s, enum elf_alloc kind)
{
	struct elf_facts *o = c->out;
	o->rodata = true;
	if (s->type == SHT_NOBITS || !inside(c, s->off, s->size)) {
		o->rodata_cut = true;
		return 0;
	}
	uint64_t len = s->size;
	if (len > ELF_MAX_RODATA) {
		len = ELF_MAX_RODATA;
		o->rodata_cut = true;
	}
	char *p = malloc(RO_CHUNK + RO_OVERLAP);
	if (!p)
		return -ENOMEM;
	size_t keep = 0; /* bytes carried over from the previous chunk */
	for (uint64_t at = 0; at < len;) {
		size_t k = len - at < RO_CHUNK ? (size_t)(len - at) : RO_CHUNK;
		if (rd(c, p + keep, k, s->off + at)) {
			o->rodata_cut = true;
			break;
		}
		size_t have = keep + k;
		if (elf_version_in(kind, p, have, o->version, sizeof(o->version)))
			break;
		at += k;
		keep = have < RO_OVERLAP ? have : RO_OVERLAP;
		memmove(p, p + have - keep, keep);
	}
	free(p);
	return 0;
}

int elf_scan(const struct elf_src *src, unsigned want, enum elf_alloc version_of,
	     struct elf_facts *out)
{
	memset(out, 0, sizeof(*out));
	struct scan c = {.src = src, .out = out};
	union elf_ehdr eh;
	int r = elf_header_read(scan_rd, &c, &eh, &c.is64);
	if (r)
		return r;
	out->is64 = c.is64;
#define EHF(f) (c.is64 ? eh.e64.f : eh.e32.f)
	out->machine = EHF(e_machine);
	read_phdrs(&c, EHF(e_phoff), EHF(e_phentsize), EHF(e_phnum));
	r = read_sections(&c, EHF(e_shoff), EHF(e_shentsize), EHF(e_shnum), EHF(e_shstrndx));
#undef EHF
	out->sections = r == 0 && c.nsec > 0;
	bool go_done = false, ro_done = false;
	for (unsigned i = 0; r == 0 && i < c.nsec; i++) {
		const struct sec *s = &c.s[i];
		const char *nm = sec_name(&c, i);
		if (s->type == SHT_SYMTAB)
			out->symtab = true;
		if ((want & ELF_WANT_SYMS) && (s->type == SHT_SYMTAB || s->type == SHT_DYNSYM))
			r = scan_syms(&c, s);
		else if ((want & ELF_WANT_GO) && !go_done && strcmp(nm, ".go.buildinfo") == 0) {
			scan_go(&c, s);
			go_done = true;
		} else if ((want & ELF_WANT_VERSION) && !ro_done && strcmp(nm, ".rodata") == 0) {
			r = scan_version(&c, s, version_of);
			ro_done = true;
		}
	}
	free(c.s);
	free(c.names);
	return r;
}
