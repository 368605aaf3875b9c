/* SPDX-License-Identifier: MIT */
/*
 * A tiny ELF64 writer for the unit tests of kernel/elf_scan.c and
 * kernel/proc_alloc.c: sections laid out after the header (and one optional
 * PT_INTERP program header), then the section names, then the section
 * header table. Section i of the list is section i + 1 of the file.
 */
#ifndef THPCTL_TEST_ELF_BUILD_H
#define THPCTL_TEST_ELF_BUILD_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tsec {
	const char *name;
	uint32_t type;
	const void *data;
	size_t size;
	uint32_t link; /* file index of the linked section */
	uint64_t entsize;
};

/* Write the image into IMG (CAP bytes); returns its size, 0 when it does not fit. */
static inline size_t elf_build(unsigned char *img, size_t cap, const struct tsec *s, int n,
			       bool interp)
{
	size_t off = sizeof(Elf64_Ehdr) + (interp ? sizeof(Elf64_Phdr) : 0);
	size_t at[16], names_at[16];
	char names[512];
	size_t nl = 1;
	names[0] = '\0';
	if (n > 14 || off > cap)
		return 0;
	memset(img, 0, cap);
	for (int i = 0; i < n; i++) {
		off = (off + 7) & ~(size_t)7;
		if (off + s[i].size > cap)
			return 0;
		if (s[i].data)
			memcpy(img + off, s[i].data, s[i].size);
		at[i] = off;
		off += s[i].size;
		size_t l = strlen(s[i].name) + 1;
		memcpy(names + nl, s[i].name, l);
		names_at[i] = nl;
		nl += l;
	}
	static const char sh[] = ".shstrtab";
	memcpy(names + nl, sh, sizeof(sh));
	size_t sh_name = nl, names_off = off;
	nl += sizeof(sh);
	if (off + nl > cap)
		return 0;
	memcpy(img + off, names, nl);
	off = (off + nl + 7) & ~(size_t)7;
	size_t shoff = off, shnum = (size_t)n + 2;
	if (off + shnum * sizeof(Elf64_Shdr) > cap)
		return 0;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shoff = shoff;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = (uint16_t)shnum;
	eh->e_shstrndx = (uint16_t)(n + 1);
	if (interp) {
		eh->e_phoff = sizeof(Elf64_Ehdr);
		eh->e_phentsize = sizeof(Elf64_Phdr);
		eh->e_phnum = 1;
		((Elf64_Phdr *)(img + sizeof(Elf64_Ehdr)))->p_type = PT_INTERP;
	}
	Elf64_Shdr *h = (Elf64_Shdr *)(img + shoff);
	for (int i = 0; i < n; i++) {
		h[i + 1].sh_name = (Elf64_Word)names_at[i];
		h[i + 1].sh_type = s[i].type;
		h[i + 1].sh_offset = at[i];
		h[i + 1].sh_size = s[i].size;
		h[i + 1].sh_link = s[i].link;
		h[i + 1].sh_entsize = s[i].entsize;
	}
	h[n + 1].sh_name = (Elf64_Word)sh_name;
	h[n + 1].sh_type = SHT_STRTAB;
	h[n + 1].sh_offset = names_off;
	h[n + 1].sh_size = nl;
	return shoff + shnum * sizeof(Elf64_Shdr);
}

/* Go 1.18+ build info: the 32-byte header, then VERSION and MODINFO as uvarint-prefixed strings. */
static inline size_t go_buildinfo(unsigned char *p, const char *version, const char *modinfo)
{
	memset(p, 0, 32);
	memcpy(p, "\xff Go buildinf:", 14);
	p[14] = 8;
	p[15] = 2;
	size_t at = 32, vl = strlen(version), ml = strlen(modinfo);
	p[at++] = (unsigned char)vl;
	memcpy(p + at, version, vl);
	at += vl;
	if (ml >= 128) {
		p[at++] = (unsigned char)(0x80 | (ml & 0x7f));
		p[at++] = (unsigned char)(ml >> 7);
	} else {
		p[at++] = (unsigned char)ml;
	}
	memcpy(p + at, modinfo, ml);
	return at + ml;
}

/* A reader over memory for elf_scan. */
struct mem_src {
	const unsigned char *p;
	size_t n;
};

static inline int mem_src_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct mem_src *m = ctx;
	if (off > m->n || n > m->n - off)
		return -5; /* -EIO */
	memcpy(buf, m->p + off, n);
	return 0;
}

#endif
