// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/elf_scan.c (ELF files read as data: Go build info, symbols, versions). */
#include "unit.h"

#include "elf_build.h"
#include "kernel/elf_scan.h"

#define IMG_CAP (64u << 10)

static const char je_ver[] = "xx\0"
			     "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c\0tail";
static const char modinfo[] = "0w\xaf\x0c\x92t\x08\x02"
			      "A\xe1\xc1\x07\xe6\xd6\x18\xe6"
			      "path\texample.com/app\nmod\texample.com/app\t(devel)\t\n"
			      "build\t-compiler=gc\nbuild\tDefaultGODEBUG=panicnil=1,x509sha1=1\n"
			      "build\tCGO_ENABLED=0\n";

/* .symtab with NAMES (defined unless their name starts with '!': undefined). */
static size_t symtab(Elf64_Sym *sym, char *str, const char *const *names, int n)
{
	size_t sl = 1;
	str[0] = '\0';
	memset(sym, 0, sizeof(*sym) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		bool undef = names[i][0] == '!';
		const char *nm = names[i] + undef;
		sym[i + 1].st_name = (Elf64_Word)sl;
		sym[i + 1].st_shndx = undef ? SHN_UNDEF : 1;
		memcpy(str + sl, nm, strlen(nm) + 1);
		sl += strlen(nm) + 1;
	}
	return sl;
}

/* An executable with .rodata (jemalloc's version), .go.buildinfo and .symtab of NAMES. */
static size_t rich(unsigned char *img, const char *const *names, int n, bool interp)
{
	static Elf64_Sym sym[16];
	static char str[512];
	static unsigned char bi[512];
	size_t sl = symtab(sym, str, names, n);
	size_t bl = go_buildinfo(bi, "go1.22.4", modinfo);
	struct tsec s[] = {
		{".rodata", SHT_PROGBITS, je_ver, sizeof(je_ver), 0, 0},
		{".go.buildinfo", SHT_PROGBITS, bi, bl, 0, 0},
		{".symtab", SHT_SYMTAB, sym, sizeof(Elf64_Sym) * (size_t)(n + 1), 4,
		 sizeof(Elf64_Sym)},
		{".strtab", SHT_STRTAB, str, sl, 0, 0},
	};
	return elf_build(img, IMG_CAP, s, 4, interp);
}

static int scan_mem(const unsigned char *img, size_t n, unsigned want, enum elf_alloc vk,
		    struct elf_facts *f)
{
	struct mem_src m = {img, n};
	struct elf_src src = {mem_src_read, &m, n};
	return elf_scan(&src, want, vk, f);
}

static void test_elf_go_rust_jemalloc_and_its_version(UNIT_STATE)
{
	static unsigned char img[IMG_CAP];
	const char *names[] = {"main", "!mallctl", "_rjem_malloc", "mallctl"};
	size_t n = rich(img, names, 4, false);
	assert_true(n > 0);
	struct elf_facts f;
	assert_int_equal(scan_mem(img, n, ELF_WANT_GO | ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_true(f.sections && f.symtab && f.go && f.go_magic && f.is64 && !f.dynamic);
	assert_int_equal(f.machine, EM_X86_64);
	assert_string_equal(f.go_version, "go1.22.4");
	assert_string_equal(f.go_godebug, "panicnil=1,x509sha1=1");
	/* the undefined mallctl is no evidence; the first defined allocator symbol is */
	assert_int_equal(f.alloc, EA_JEMALLOC);
	assert_string_equal(f.alloc_sym, "_rjem_malloc");
	assert_string_equal(f.version, ""); /* not asked */
	assert_int_equal(scan_mem(img, n, ELF_WANT_VERSION, EA_JEMALLOC, &f), 0);
	assert_string_equal(f.version, "5.3.0");
	assert_true(f.rodata && !f.rodata_cut);
	assert_int_equal(f.alloc, EA_NONE); /* symbols not asked */
}

static void test_elf_interp_is_dynamic_and_stripped_has_nothing(UNIT_STATE)
{
	static unsigned char img[IMG_CAP];
	const char *names[] = {"main"};
	size_t n = rich(img, names, 1, true);
	struct elf_facts f;
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_true(f.dynamic && f.phdrs);
	assert_int_equal(f.alloc, EA_NONE);
	assert_int_equal(f.syms, 1);
	/* no section headers at all (sstrip): nothing found, not an error */
	((Elf64_Ehdr *)img)->e_shoff = 0;
	assert_int_equal(scan_mem(img, n, ELF_WANT_GO | ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_false(f.sections || f.symtab || f.go);
	assert_int_equal(f.syms, 0);
}

static void test_elf_truncated_never_reads_past_the_end(UNIT_STATE)
{
	static unsigned char img[IMG_CAP];
	const char *names[] = {"_rjem_malloc"};
	size_t n = rich(img, names, 1, false);
	struct elf_facts f;
	for (size_t cut = 0; cut < n; cut += 7) {
		int r = scan_mem(img, cut, ELF_WANT_GO | ELF_WANT_SYMS | ELF_WANT_VERSION,
				 EA_JEMALLOC, &f);
		/* the section table is at the end: any cut before it is a damaged header */
		assert_int_equal(r, -EINVAL);
	}
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_int_equal(f.alloc, EA_JEMALLOC);
}

static void test_elf_damaged_tables_are_flagged_not_trusted(UNIT_STATE)
{
	static unsigned char img[IMG_CAP];
	const char *names[] = {"tc_malloc"};
	size_t n = rich(img, names, 1, false);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
	struct elf_facts f;
	/* a string table beyond the file: symbols not read, flagged */
	uint64_t keep = sh[4].sh_offset;
	sh[4].sh_offset = UINT64_MAX - 8; /* off + size wraps */
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_true(f.syms_cut);
	assert_int_equal(f.alloc, EA_NONE);
	sh[4].sh_offset = keep;
	/* a wrong entry size, a link out of range, a huge symbol count */
	sh[3].sh_entsize = 7;
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_true(f.syms_cut);
	sh[3].sh_entsize = sizeof(Elf64_Sym);
	sh[3].sh_link = 999;
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_true(f.syms_cut);
	sh[3].sh_link = 4;
	sh[3].sh_size = (uint64_t)(ELF_MAX_SYMS + 1) * sizeof(Elf64_Sym);
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_true(f.syms_cut);
	sh[3].sh_size = 2 * sizeof(Elf64_Sym);
	/* a name offset past its string table is skipped */
	((Elf64_Sym *)(img + sh[3].sh_offset))[1].st_name = 100000;
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_int_equal(f.alloc, EA_NONE);
	assert_int_equal(f.syms, 0);
	/* section names out of range: no section is found by name */
	sh[5].sh_size = (uint64_t)ELF_MAX_SHSTRTAB + 1;
	assert_int_equal(scan_mem(img, n, ELF_WANT_GO, EA_NONE, &f), 0);
	assert_false(f.go);
	/* header tables out of the file or too many: not scanned at all */
	eh->e_shnum = ELF_MAX_SECTIONS + 1;
	assert_int_equal(scan_mem(img, n, ELF_WANT_GO, EA_NONE, &f), -EINVAL);
	eh->e_shnum = 6;
	eh->e_shstrndx = 6;
	assert_int_equal(scan_mem(img, n, ELF_WANT_GO, EA_NONE, &f), -EINVAL);
	eh->e_shstrndx = 5;
	eh->e_shoff = n;
	assert_int_equal(scan_mem(img, n, ELF_WANT_GO, EA_NONE, &f), -EINVAL);
	/* not ELF, the other byte order, a bad class */
	img[0] = 'M';
	assert_int_equal(scan_mem(img, n, 0, EA_NONE, &f), -EINVAL);
	img[0] = 0x7f;
	img[EI_DATA] = ELFDATA2MSB;
	assert_int_equal(scan_mem(img, n, 0, EA_NONE, &f), -EINVAL);
	img[EI_DATA] = ELFDATA2LSB;
	img[EI_CLASS] = 9;
	assert_int_equal(scan_mem(img, n, 0, EA_NONE, &f), -EINVAL);
	assert_int_equal(scan_mem(img, 3, 0, EA_NONE, &f), -EINVAL);
}

/*
 * A string table far larger than the reader's 64 kB of pages, named out of order: the
 * allocator's name sits across a page boundary near the end, and the symbols before it
 * in the table (an undefined one of the same name among them) name filler strings in a
 * shuffled order, so pages are read, evicted and read again.
 */
static void test_elf_symbols_of_a_large_string_table(UNIT_STATE)
{
	enum { NFILL = 6000, NSYM = NFILL + 3 };
	size_t strcap = 400u << 10, cap = strcap + NSYM * sizeof(Elf64_Sym) + 8192;
	char *str = calloc(1, strcap);
	Elf64_Sym *sym = calloc(NSYM, sizeof(*sym));
	unsigned char *img = malloc(cap);
	uint32_t *fill = calloc(NFILL, sizeof(*fill));
	assert_non_null(str && sym && img && fill);
	size_t sl = 1;
	for (int i = 0; i < NFILL; i++) {
		fill[i] = (uint32_t)sl;
		sl += (size_t)sprintf(str + sl, "filler_%05d_abcdefghijklmnopqrstuvwxyz_0123456789",
				      i) +
		      1;
	}
	sl = (sl / 4096 + 1) * 4096 - 4; /* "je_mallctl" starts 4 bytes before a page ends */
	uint32_t je = (uint32_t)sl;
	sl += (size_t)sprintf(str + sl, "je_mallctl") + 1;
	assert_true(sl > (256u << 10) && sl < strcap);
	/* the symbols: filler in a scrambled order (a step coprime to NFILL), the undefined
	 * allocator name, then the defined one */
	for (int i = 0; i < NFILL; i++) {
		sym[i + 1].st_name = fill[(size_t)i * 2477 % NFILL];
		sym[i + 1].st_shndx = 1;
	}
	sym[NFILL + 1] = (Elf64_Sym){.st_name = je, .st_shndx = SHN_UNDEF};
	sym[NFILL + 2] = (Elf64_Sym){.st_name = je, .st_shndx = 1};
	struct tsec sec[] = {
		{".symtab", SHT_SYMTAB, sym, NSYM * sizeof(*sym), 2, sizeof(Elf64_Sym)},
		{".strtab", SHT_STRTAB, str, sl, 0, 0},
	};
	size_t n = elf_build(img, cap, sec, 2, false);
	assert_true(n > 0);
	struct elf_facts f;
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_false(f.syms_cut);
	assert_int_equal(f.syms, NFILL + 1); /* the defined ones */
	assert_int_equal(f.alloc, EA_JEMALLOC);
	assert_string_equal(f.alloc_sym, "je_mallctl");
	/* the same table cut short: the name past its end is unreadable, the scan says cut */
	sec[1].size = je + 3;
	n = elf_build(img, cap, sec, 2, false);
	assert_int_equal(scan_mem(img, n, ELF_WANT_SYMS, EA_NONE, &f), 0);
	assert_int_equal(f.alloc, EA_NONE); /* "je_" is no allocator's name */
	free(str);
	free(sym);
	free(img);
	free(fill);
}

static void test_elf_version_straddling_a_read_chunk(UNIT_STATE)
{
	size_t ro = (1u << 20) + 4096, cap = ro + 4096;
	unsigned char *img = malloc(cap), *data = calloc(1, ro);
	assert_non_null(img);
	assert_non_null(data);
	static const char banner[] =
		"GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n";
	memcpy(data + (1u << 20) - 30, banner, sizeof(banner)); /* across a read (64 KiB chunks) */
	struct tsec s[] = {{".rodata", SHT_PROGBITS, data, ro, 0, 0}};
	size_t n = elf_build(img, cap, s, 1, true);
	assert_true(n > 0);
	struct elf_facts f;
	assert_int_equal(scan_mem(img, n, ELF_WANT_VERSION, EA_GLIBC, &f), 0);
	assert_string_equal(f.version, "2.36");
	/* only the asked allocator's string counts */
	assert_int_equal(scan_mem(img, n, ELF_WANT_VERSION, EA_JEMALLOC, &f), 0);
	assert_string_equal(f.version, "");
	free(img);
	free(data);
}

/* elf_version_in: KIND's version string in TEXT (LEN bytes), WANT ("": none found). */
static const struct {
	enum elf_alloc kind;
	const char *text;
	size_t len;
	const char *want;
} version_rows[] = {
	{EA_JEMALLOC,
	 LIT("\0"
	     "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"),
	 "5.3.0"},
	{EA_JEMALLOC, LIT("x 4.5.10-12-gaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "4.5.10"},
	/* 39 hex digits, an upper-case digit, a number glued to another, huge numbers */
	{EA_JEMALLOC, LIT("5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90"), ""},
	{EA_JEMALLOC, LIT("5.3.0-0-g54EAED1d8b56b1aa528be3bdd1877e59c56fa90c"), ""},
	{EA_JEMALLOC, LIT("15.3.0.1-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"), ""},
	{EA_JEMALLOC, LIT("12345678.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"), ""},
	{EA_GLIBC, LIT("GNU C Library (GNU libc) stable release version 2.43, by R"), "2.43"},
	{EA_GLIBC, LIT("GNU C Library\nversion 2.36"), ""},
	{EA_GLIBC, LIT("version 2.36 GNU C Library"), ""},
	{EA_TCMALLOC, LIT("\0gperftools 2.10\0"), "2.10"},
	{EA_TCMALLOC, LIT("gperftools version"), ""},
	{EA_MIMALLOC, LIT("mimalloc 2.0.9"), ""},
};

static void test_elf_version_strings(UNIT_STATE)
{
	for (size_t i = 0; i < UNIT_LEN(version_rows); i++) {
		const char *row = version_rows[i].text + (version_rows[i].text[0] == '\0');
		char v[ELF_VER_LEN] = "stale";
		bool found = elf_version_in(version_rows[i].kind, version_rows[i].text,
					    version_rows[i].len, v, sizeof(v));
		unit_row_int(row, "found", found, version_rows[i].want[0] != '\0');
		unit_row_str(row, "the version", v, version_rows[i].want);
	}
}

static void test_elf_go_buildinfo_forms(UNIT_STATE)
{
	unsigned char p[512];
	char ver[ELF_VER_LEN], gd[ELF_GODEBUG_LEN];
	size_t n = go_buildinfo(p, "go1.21.6", "build\tDefaultGODEBUG=disablethp=1\n");
	assert_true(elf_go_buildinfo(p, n, ver, sizeof(ver), gd, sizeof(gd)));
	assert_string_equal(ver, "go1.21.6");
	assert_string_equal(gd, "disablethp=1");
	/* pre-1.18: the version is behind pointers, not inline: Go, version unknown */
	p[15] = 0;
	assert_true(elf_go_buildinfo(p, n, ver, sizeof(ver), gd, sizeof(gd)));
	assert_string_equal(ver, "");
	/* a length past the end, a version with a control byte, no magic */
	n = go_buildinfo(p, "go1.22.0", "");
	p[32] = 120;
	assert_true(elf_go_buildinfo(p, n, ver, sizeof(ver), gd, sizeof(gd)));
	assert_string_equal(ver, "");
	n = go_buildinfo(p, "go1.2\x01", "");
	assert_true(elf_go_buildinfo(p, n, ver, sizeof(ver), gd, sizeof(gd)));
	assert_string_equal(ver, "");
	p[1] = 'X';
	assert_false(elf_go_buildinfo(p, n, ver, sizeof(ver), gd, sizeof(gd)));
	/* DefaultGODEBUG only as a line of its own */
	n = go_buildinfo(p, "go1.22.0", "xbuild\tDefaultGODEBUG=a=1\n");
	assert_true(elf_go_buildinfo(p, n, ver, sizeof(ver), gd, sizeof(gd)));
	assert_string_equal(gd, "");
	/* an unterminated varint */
	memset(p + 32, 0xff, 20);
	assert_true(elf_go_buildinfo(p, 52, ver, sizeof(ver), gd, sizeof(gd)));
	assert_string_equal(ver, "");
}

static void test_elf_alloc_symbols(UNIT_STATE)
{
	static const struct unit_str_int c[] = {
		{"mallctl", EA_JEMALLOC},
		{"je_mallctl", EA_JEMALLOC},
		{"_rjem_sdallocx", EA_JEMALLOC},
		{"TCMallocInternalMalloc", EA_TCMALLOC},
		{"_ZN8tcmalloc17tcmalloc_internal6StaticE", EA_TCMALLOC},
		{"_ZNK4absl8tcmalloc3FooEv", EA_NONE},
		{"_ZN4absl3fooEN8tcmalloc3BarE", EA_TCMALLOC},
		{"tc_malloc", EA_TCMALLOC},
		{"mi_malloc", EA_MIMALLOC},
		{"_int_malloc", EA_GLIBC},
		{"malloc", EA_NONE},
		{"mallctlx", EA_NONE},
		{"", EA_NONE},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++)
		unit_row_int(c[i].in, "elf_alloc_symbol", elf_alloc_symbol(c[i].in), c[i].want);
}

static int fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	return pread_exact(*(int *)ctx, buf, n, off);
}

/* Debian's own libraries, when installed: the version strings as they are shipped. */
static void test_elf_live_libraries(UNIT_STATE)
{
	static const struct unit_str_int libs[] = {
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", EA_GLIBC},
		{"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", EA_JEMALLOC},
		{"/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4", EA_TCMALLOC},
	};
	int seen = 0;
	for (size_t i = 0; i < UNIT_LEN(libs); i++) {
		enum elf_alloc k = (enum elf_alloc)libs[i].want;
		int fd = open(libs[i].in, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		assert_int_equal(fstat(fd, &st), 0);
		struct elf_src src = {fd_read, &fd, (uint64_t)st.st_size};
		struct elf_facts f;
		assert_int_equal(elf_scan(&src, ELF_WANT_VERSION | ELF_WANT_SYMS, k, &f), 0);
		close(fd);
		printf("      %s: version %s, symbols %llu\n", libs[i].in, f.version,
		       (unsigned long long)f.syms);
		int a, b;
		assert_int_equal(sscanf(f.version, "%d.%d", &a, &b), 2);
		assert_true(f.dynamic);
		if (k != EA_GLIBC) /* libc's own malloc is not exported as _int_malloc */
			assert_int_equal(f.alloc, k);
		seen++;
	}
	if (!seen)
		skip();
}

UNIT_TESTS(test_elf_go_rust_jemalloc_and_its_version,
	   test_elf_interp_is_dynamic_and_stripped_has_nothing,
	   test_elf_truncated_never_reads_past_the_end,
	   test_elf_damaged_tables_are_flagged_not_trusted,
	   test_elf_symbols_of_a_large_string_table, test_elf_version_straddling_a_read_chunk,
	   test_elf_version_strings, test_elf_go_buildinfo_forms, test_elf_alloc_symbols,
	   test_elf_live_libraries)
