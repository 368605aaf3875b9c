// SPDX-License-Identifier: MIT
/*
 * ELF files read as data (kernel/elf_scan.c) and capture's allocator facts
 * (kernel/alloc_facts.c). Properties: a scan returns 0 or -EINVAL and is the
 * same twice; every string it found is NUL-terminated visible ASCII; it
 * agrees with the older Go reader (kernel/exe.c elf_go_version): a Go
 * version that one reads inline, the other reads too; the facts of a scan
 * written as capture's text parse back to what was written, and the input
 * itself parsed as facts text never crashes.
 */
#include "fuzz.h"

#include <errno.h>

#include "kernel/elf_scan.h"
#include "kernel/exe.h"
#include "kernel/proc_alloc.h"

struct mem {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	const struct mem *m = ctx;
	if (off > m->n || n > m->n - off)
		return -EIO;
	memcpy(buf, m->p + off, n);
	return 0;
}

static void check_str(const char *s, size_t cap)
{
	size_t l = strnlen(s, cap);
	FUZZ_CHECK(l < cap);
	for (size_t i = 0; i < l; i++)
		FUZZ_CHECK(s[i] > 0x20 && s[i] < 0x7f);
}

static void check_facts_text(const struct elf_facts *f)
{
	struct alloc_raw r, back;
	memset(&r, 0, sizeof(r));
	r.at_secure = -1;
	r.exe = *f;
	struct buf a = {0}, b = {0};
	if (alloc_raw_format(&r, &a) == 0) {
		FUZZ_CHECK(alloc_raw_parse(a.p, a.len, &back) == 0);
		FUZZ_CHECK(alloc_raw_format(&back, &b) == 0);
		FUZZ_CHECK(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
	}
	buf_free(&a);
	buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = {data, size};
	struct elf_src src = {mem_read, &m, size};
	static const enum elf_alloc kinds[] = {EA_JEMALLOC, EA_GLIBC, EA_TCMALLOC};
	enum elf_alloc vk = kinds[size % 3];
	unsigned want = ELF_WANT_GO | ELF_WANT_SYMS | ELF_WANT_VERSION;
	struct elf_facts f, g;
	int r = elf_scan(&src, want, vk, &f);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	int r2 = elf_scan(&src, want, vk, &g);
	FUZZ_CHECK(r == r2);
	if (r == 0) {
		FUZZ_CHECK(memcmp(&f, &g, sizeof(f)) == 0);
		check_str(f.go_version, sizeof(f.go_version));
		check_str(f.go_godebug, sizeof(f.go_godebug));
		check_str(f.alloc_sym, sizeof(f.alloc_sym));
		check_str(f.version, sizeof(f.version));
		FUZZ_CHECK(!f.go_version[0] || f.go_magic);
		FUZZ_CHECK((f.alloc == EA_NONE) == !f.alloc_sym[0]);
		check_facts_text(&f);
	}
	char ver[32];
	int old = elf_go_version(mem_read, &m, ver, sizeof(ver));
	if (old == 1 && ver[0]) {
		FUZZ_CHECK(r == 0 && f.go && strcmp(f.go_version, ver) == 0);
	}
	/* the input as capture's facts text */
	struct alloc_raw raw;
	if (alloc_raw_parse((const char *)data, size, &raw) == 0) {
		struct buf a = {0};
		FUZZ_CHECK(alloc_raw_format(&raw, &a) == 0);
		struct alloc_raw back;
		FUZZ_CHECK(alloc_raw_parse(a.p, a.len, &back) == 0);
		buf_free(&a);
	}
	return 0;
}
