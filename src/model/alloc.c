// SPDX-License-Identifier: MIT
/* The allocator and runtime of a process, from its evidence (alloc.h). */
#include "alloc.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/names.h"

const char *alloc_evidence_name(enum alloc_evidence e)
{
	static const char *const n[AE_NEVIDENCE] = {
		[AE_NONE] = "none",
		[AE_MAPPED_LIB] = "mapped-library",
		[AE_EXE_SYMBOL] = "executable-symbol",
		[AE_GO_BUILDINFO] = "go-buildinfo",
	};
	return ENUM_NAME(n, e, "none");
}

const char *alloc_unknown_name(enum alloc_unknown u)
{
	static const char *const n[AU_NUNKNOWN] = {
		[AU_NONE] = "",
		[AU_MAPS_UNREADABLE] = "maps-unreadable",
		[AU_EXE_UNREADABLE] = "exe-unreadable",
		[AU_NOT_RECORDED] = "not-recorded",
		[AU_NOT_ELF] = "not-elf",
		[AU_STRIPPED] = "stripped",
		[AU_NO_MARKER] = "no-marker",
	};
	return ENUM_NAME(n, u, "");
}

const char *alloc_doubt_name(enum alloc_doubt d)
{
	static const char *const n[AD_NDOUBT] = {
		[AD_NONE] = "",
		[AD_EXE_STRIPPED] = "exe-stripped",
		[AD_SYMS_CUT] = "exe-symbols-unreadable",
		[AD_EXE_UNREADABLE] = "exe-unreadable",
		[AD_EXE_NOT_RECORDED] = "exe-not-recorded",
	};
	return ENUM_NAME(n, d, "");
}

/*
 * Whether the executable's symbols rule out an allocator linked into it: only a
 * .symtab read whole does (a stripped binary keeps no symbol of a static jemalloc).
 */
static enum alloc_doubt exe_doubt(const struct alloc_raw *r, bool recorded)
{
	if (r->exe_err)
		return recorded && r->exe_err == -ENOENT ? AD_EXE_NOT_RECORDED : AD_EXE_UNREADABLE;
	if (!r->exe.symtab)
		return AD_EXE_STRIPPED;
	if (r->exe.syms_cut)
		return AD_SYMS_CUT;
	return AD_NONE;
}

bool alloc_version_mm(const char *version, int mm[2])
{
	char *e;
	long a = strtol(version, &e, 10);
	if (e == version || *e != '.' || a < 0 || a > 100000)
		return false;
	const char *m = e + 1;
	long b = strtol(m, &e, 10);
	if (e == m || b < 0 || b > 100000)
		return false;
	mm[0] = (int)a;
	mm[1] = (int)b;
	return true;
}

static bool is_malloc(enum alloc_kind k)
{
	return k == AK_JEMALLOC || k == AK_TCMALLOC || k == AK_MIMALLOC;
}

static enum alloc_kind from_elf(enum elf_alloc a)
{
	return a == EA_JEMALLOC	  ? AK_JEMALLOC
	       : a == EA_TCMALLOC ? AK_TCMALLOC
	       : a == EA_MIMALLOC ? AK_MIMALLOC
	       : a == EA_GLIBC	  ? AK_GLIBC
				  : AK_UNKNOWN;
}

/* The C allocator: a mapped allocator library, an executable's symbol, then glibc. */
static void decide_malloc(const struct alloc_raw *r, bool recorded, struct alloc_fact *o)
{
	const struct alloc_lib *libc = NULL;
	for (int i = 0; i < r->nlibs; i++) {
		const struct alloc_lib *l = &r->libs[i];
		if (l->kind == AK_GLIBC && !libc)
			libc = l;
		if (!is_malloc(l->kind))
			continue;
		if (o->malloc_kind != AK_UNKNOWN) {
			if (o->malloc_kind != l->kind)
				o->notes |= AN_SEVERAL;
			continue;
		}
		o->malloc_kind = l->kind;
		o->malloc_evidence = AE_MAPPED_LIB;
		snprintf(o->malloc_version, sizeof(o->malloc_version), "%s", l->version);
		snprintf(o->malloc_path, sizeof(o->malloc_path), "%s", l->path);
	}
	if (libc)
		snprintf(o->glibc_version, sizeof(o->glibc_version), "%s", libc->version);
	enum alloc_kind sk = r->exe_err ? AK_UNKNOWN : from_elf(r->exe.alloc);
	if (o->malloc_kind == AK_UNKNOWN && sk != AK_UNKNOWN && (sk != AK_GLIBC || !libc)) {
		o->malloc_kind = sk;
		o->malloc_evidence = AE_EXE_SYMBOL;
		snprintf(o->malloc_version, sizeof(o->malloc_version), "%s", r->exe.version);
		snprintf(o->symbol, sizeof(o->symbol), "%s", r->exe.alloc_sym);
	}
	if (o->malloc_kind == AK_UNKNOWN && libc) {
		o->malloc_kind = AK_GLIBC;
		o->malloc_evidence = AE_MAPPED_LIB;
		o->malloc_doubt = exe_doubt(r, recorded); /* libc.so.6 is mapped in every program */
		snprintf(o->malloc_version, sizeof(o->malloc_version), "%s", libc->version);
		snprintf(o->malloc_path, sizeof(o->malloc_path), "%s", libc->path);
	}
}

/* The version source of the C allocator's version. */
static enum alloc_vsrc malloc_vsrc(const struct alloc_raw *r, const struct alloc_fact *o)
{
	if (!o->malloc_version[0])
		return AV_NONE;
	if (o->malloc_evidence == AE_EXE_SYMBOL)
		return AV_STRING;
	for (int i = 0; i < r->nlibs; i++)
		if (strcmp(r->libs[i].path, o->malloc_path) == 0)
			return r->libs[i].vsrc;
	return AV_NONE;
}

static enum alloc_unknown why_unknown(const struct alloc_raw *r, bool recorded)
{
	if (r->maps_err) /* libraries unknown: nothing can be ruled out */
		return recorded && r->maps_err == -ENOENT ? AU_NOT_RECORDED : AU_MAPS_UNREADABLE;
	if (r->dynamic)
		return AU_NO_MARKER; /* shared libraries, none known (musl, another libc) */
	if (r->exe_err == -EINVAL)
		return AU_NOT_ELF;
	if (r->exe_err)
		return recorded && r->exe_err == -ENOENT ? AU_NOT_RECORDED : AU_EXE_UNREADABLE;
	if (!r->exe.symtab && !r->exe.syms && !r->exe.go)
		return AU_STRIPPED;
	return AU_NO_MARKER;
}

/* The allocator or runtime an environment variable VAR=VAL configures, or AK_UNKNOWN. */
static enum alloc_kind env_kind(const char *var, size_t vl, const char *val, size_t n)
{
#define IS(k) (vl == sizeof(k) - 1 && memcmp(var, k, vl) == 0)
#define PFX(k) (vl > sizeof(k) - 1 && memcmp(var, k, sizeof(k) - 1) == 0)
	if (IS("MALLOC_CONF") || IS("_RJEM_MALLOC_CONF") || IS("JE_MALLOC_CONF"))
		return AK_JEMALLOC;
	if (IS("GLIBC_TUNABLES"))
		return memmem(val, n, "glibc.malloc.", 13) ? AK_GLIBC : AK_UNKNOWN;
	if (PFX("MIMALLOC_"))
		return AK_MIMALLOC;
	if (PFX("TCMALLOC_"))
		return AK_TCMALLOC;
	if (IS("GODEBUG") || IS("GOGC") || IS("GOMEMLIMIT"))
		return AK_GO;
	if (IS("JAVA_TOOL_OPTIONS") || IS("JDK_JAVA_OPTIONS") || IS("_JAVA_OPTIONS"))
		return AK_JVM;
	if (IS("LD_PRELOAD")) { /* an allocator library preloaded: its name */
		for (const char *p = val, *e = val + n; p < e;) {
			const char *sep = p;
			while (sep < e && *sep != ':' && *sep != ' ')
				sep++;
			char one[128], ver[ELF_VER_LEN];
			size_t l = (size_t)(sep - p) < sizeof(one) - 1 ? (size_t)(sep - p)
								       : sizeof(one) - 1;
			memcpy(one, p, l);
			one[l] = '\0';
			const char *base = strrchr(one, '/');
			enum alloc_kind k = alloc_lib_kind(base ? base + 1 : one, ver, sizeof(ver));
			if (is_malloc(k))
				return k;
			p = sep + 1;
		}
	}
	return AK_UNKNOWN;
#undef IS
#undef PFX
}

static void decide_env(const char *env, size_t len, struct alloc_fact *o)
{
	for (const char *p = env, *end = env + len; p < end && o->nenv < ALLOC_MAX_ENV;) {
		const char *z = memchr(p, '\0', (size_t)(end - p)), *e = z ? z : end;
		const char *eq = memchr(p, '=', (size_t)(e - p));
		if (eq) {
			enum alloc_kind k =
				env_kind(p, (size_t)(eq - p), eq + 1, (size_t)(e - eq - 1));
			if (k != AK_UNKNOWN && (size_t)(eq - p) < sizeof(o->env[0].var)) {
				struct alloc_env *v = &o->env[o->nenv++];
				memset(v, 0, sizeof(*v));
				memcpy(v->var, p, (size_t)(eq - p));
				size_t vl = (size_t)(e - eq - 1);
				if (vl >= sizeof(v->value))
					vl = sizeof(v->value) - 1;
				memcpy(v->value, eq + 1, vl);
				v->kind = k;
				v->applies = k == o->kind || k == o->malloc_kind;
				v->ignored = k == AK_GLIBC && o->at_secure == 1;
				if (v->ignored)
					o->notes |= AN_TUNABLES_IGNORED;
			}
		}
		p = e + 1;
	}
}

/* glibc 2.43+ on aarch64 madvises its heaps unless GLIBC_TUNABLES (honoured) says otherwise. */
static void glibc_default(const struct alloc_raw *r, struct alloc_fact *o)
{
	int mm[2];
	if (o->malloc_kind != AK_GLIBC || !alloc_version_mm(o->glibc_version, mm) || mm[0] < 2 ||
	    (mm[0] == 2 && mm[1] < 43))
		return;
	uint16_t mach = r->exe_err ? 0 : r->exe.machine;
	for (int i = 0; i < r->nlibs && !mach; i++)
		if (r->libs[i].kind == AK_GLIBC)
			mach = r->libs[i].machine;
	if (mach != EM_AARCH64)
		return;
	for (int i = 0; i < o->nenv; i++)
		if (o->env[i].kind == AK_GLIBC && !o->env[i].ignored &&
		    strstr(o->env[i].value, "glibc.malloc.hugetlb="))
			return; /* set explicitly, and honoured */
	o->notes |= AN_GLIBC_HUGETLB_DEFAULT;
}

void alloc_decide(const struct alloc_raw *r, const char *environ, size_t len, bool recorded,
		  struct alloc_fact *o)
{
	memset(o, 0, sizeof(*o));
	o->at_secure = r->at_secure;
	o->recorded = r->from_facts;
	if (r->at_secure == 1)
		o->notes |= AN_SECURE;
	decide_malloc(r, recorded, o);
	if (!r->exe_err && r->exe.go) {
		o->kind = AK_GO;
		o->evidence = AE_GO_BUILDINFO;
		snprintf(o->version, sizeof(o->version), "%s", r->exe.go_version);
		o->vsrc = o->version[0] ? AV_BUILDINFO : AV_NONE;
		snprintf(o->godebug, sizeof(o->godebug), "%s", r->exe.go_godebug);
	} else {
		for (int i = 0; i < r->nlibs && o->kind == AK_UNKNOWN; i++)
			if (r->libs[i].kind == AK_JVM) {
				o->kind = AK_JVM;
				o->evidence = AE_MAPPED_LIB;
				snprintf(o->version, sizeof(o->version), "%s", r->libs[i].version);
				o->vsrc = r->libs[i].vsrc;
				snprintf(o->path, sizeof(o->path), "%s", r->libs[i].path);
			}
	}
	if (o->kind == AK_UNKNOWN && o->malloc_kind != AK_UNKNOWN) {
		/* no runtime: the C allocator is the one named; malloc_* stays for JSON */
		o->kind = o->malloc_kind;
		o->evidence = o->malloc_evidence;
		o->doubt = o->malloc_doubt;
		snprintf(o->version, sizeof(o->version), "%s", o->malloc_version);
		o->vsrc = malloc_vsrc(r, o);
		snprintf(o->path, sizeof(o->path), "%s", o->malloc_path);
	}
	if (o->kind == AK_UNKNOWN)
		o->why_unknown = why_unknown(r, recorded);
	if (environ)
		decide_env(environ, len, o);
	glibc_default(r, o);
}
