// SPDX-License-Identifier: MIT
#include "alloc.h"

#include <stdarg.h>
#include <string.h>

#include "json.h"
#include "table.h"
#include "hint.h"

void alloc_short(const struct alloc_fact *a, char *out, size_t n)
{
	const char *name = alloc_kind_name(a->kind);
	int mm[2];
	const char *q = a->doubt != AD_NONE ? "?" : ""; /* likely, not proven */
	if (a->kind == AK_UNKNOWN || !a->version[0])
		snprintf(out, n, "%s%s", name, q);
	else if (a->kind == AK_GO)
		snprintf(out, n, "%s", a->version); /* "go1.22.4" names both */
	else if (alloc_version_mm(a->version, mm))
		snprintf(out, n, "%s %d.%d%s", name, mm[0], mm[1], q);
	else
		snprintf(out, n, "%s %s%s", name, a->version, q);
}

const char *alloc_note_name(unsigned bit)
{
	switch (bit) {
	case AN_GLIBC_HUGETLB_DEFAULT:
		return "glibc-hugetlb-default-on";
	case AN_TUNABLES_IGNORED:
		return "glibc-tunables-ignored-at-secure";
	case AN_SEVERAL:
		return "several-allocators-mapped";
	case AN_SECURE:
		return "at-secure";
	default:
		return "";
	}
}

/* A growing line. */
struct line {
	char s[1400];
	size_t n;
};

static void add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct line *l, const char *fmt, ...)
{
	if (l->n >= sizeof(l->s) - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(l->s + l->n, sizeof(l->s) - l->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		l->n = l->n + (size_t)k < sizeof(l->s) ? l->n + (size_t)k : sizeof(l->s) - 1;
}

static const char *base(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static const char *vsrc_words(enum alloc_vsrc v)
{
	switch (v) {
	case AV_FILE_NAME:
		return "from its file name";
	case AV_STRING:
		return "from its version string, read as data";
	case AV_PATH:
		return "from its directory";
	case AV_BUILDINFO:
		return "from .go.buildinfo";
	default:
		return "";
	}
}

static const char *unknown_words(enum alloc_unknown u)
{
	switch (u) {
	case AU_MAPS_UNREADABLE: /* the hint as this run needs it (hint_set_as_root) */
		return hint_as_root() ? "its maps cannot be read (" HINT_PROC_DENIED_ROOT ")"
				      : "its maps cannot be read (" HINT_PROC_DENIED ")";
	case AU_EXE_UNREADABLE:
		return "a static program whose executable cannot be read";
	case AU_NOT_RECORDED:
		return "its executable and libraries were not recorded in this tree";
	case AU_NOT_ELF:
		return "its executable is not ELF of this byte order, or is damaged";
	case AU_STRIPPED:
		return "a stripped static executable: no symbols, no Go build info";
	default:
		return "no library or symbol of a known allocator";
	}
}

/* Why a named allocator is likely, not proven. */
static const char *doubt_words(enum alloc_doubt d)
{
	switch (d) {
	case AD_EXE_STRIPPED:
		return "executable stripped: a statically linked allocator cannot be ruled out";
	case AD_SYMS_CUT:
		return "symbols unreadable (the executable's symbol table is damaged or too "
		       "large): a statically linked allocator cannot be ruled out";
	case AD_EXE_UNREADABLE:
		return "executable unreadable: a statically linked allocator cannot be ruled out";
	case AD_EXE_NOT_RECORDED:
		return "executable not recorded in this tree: a statically linked allocator "
		       "cannot be ruled out";
	default:
		return "";
	}
}

/* "jemalloc 5.3.0: /usr/lib/.../libjemalloc.so.2 mapped, version from ..." for kind K. */
static void who(struct line *l, enum alloc_kind k, const char *ver, enum alloc_vsrc vs,
		enum alloc_evidence ev, enum alloc_doubt d, const char *path, const char *sym,
		long pid)
{
	const char *name = k == AK_GO ? "Go runtime" : k == AK_JVM ? "Java VM" : alloc_kind_name(k);
	add(l, "%s%s%s", name, ver[0] ? " " : "", ver);
	if (ev == AE_MAPPED_LIB)
		add(l, " (%s mapped, " PATH_PROC "/%ld/maps", path, pid);
	else if (ev == AE_EXE_SYMBOL)
		add(l, " (symbol %s in " PATH_PROC "/%ld/exe, read as ELF", sym, pid);
	else if (ev == AE_GO_BUILDINFO)
		add(l, " (.go.buildinfo of " PATH_PROC "/%ld/exe, read as ELF", pid);
	if (ver[0]) { /* a version shown is never called unknown (the C heap's has no source) */
		if (vs != AV_NONE)
			add(l, "; version %s", vsrc_words(vs));
	} else if (k != AK_UNKNOWN) {
		add(l, "; version unknown");
	}
	if (d != AD_NONE)
		add(l, "; likely, not proven: %s", doubt_words(d));
	add(l, ")");
}

void alloc_render_why(FILE *f, const struct alloc_fact *a, long pid)
{
	struct line l = {.n = 0};
	l.s[0] = '\0';
	if (a->kind == AK_UNKNOWN) {
		add(&l, "unknown: %s", unknown_words(a->why_unknown));
	} else if (a->kind == AK_GO || a->kind == AK_JVM) {
		who(&l, a->kind, a->version, a->vsrc, a->evidence, AD_NONE, a->path, "", pid);
		if (a->godebug[0])
			add(&l, "; GODEBUG defaults in the binary: %s", a->godebug);
		if (a->malloc_kind != AK_UNKNOWN) {
			add(&l, "; C heap: ");
			who(&l, a->malloc_kind, a->malloc_version, AV_NONE, a->malloc_evidence,
			    a->malloc_doubt, base(a->malloc_path), a->symbol, pid);
		}
	} else {
		who(&l, a->kind, a->version, a->vsrc, a->evidence, a->doubt, a->path, a->symbol,
		    pid);
	}
	for (int i = 0; i < a->nenv; i++) {
		const struct alloc_env *e = &a->env[i];
		add(&l, "; %s=%s in its environment", e->var, e->value);
		if (e->ignored)
			add(&l, " (ignored: an AT_SECURE program, setuid/setgid/capabilities)");
		else if (!e->applies)
			add(&l, " (no %s found in it)", alloc_kind_name(e->kind));
	}
	if (a->notes & AN_GLIBC_HUGETLB_DEFAULT)
		add(&l,
		    "; glibc %s on aarch64: glibc.malloc.hugetlb is on by default (2.43+: its "
		    "heaps are madvised for THP; GLIBC_TUNABLES=glibc.malloc.hugetlb=0 turns it off)",
		    a->glibc_version);
	if (a->notes & AN_SEVERAL)
		add(&l, "; more than one allocator library is mapped");
	if ((a->notes & AN_SECURE) && !(a->notes & AN_TUNABLES_IGNORED) &&
	    a->malloc_kind == AK_GLIBC)
		add(&l, "; AT_SECURE program: glibc ignores GLIBC_TUNABLES for it");
	fprintf(f, "allocator: ");
	fputs_safe(l.s, f);
	if (a->kind == AK_UNKNOWN && a->why_unknown == AU_MAPS_UNREADABLE)
		fprintf(f, "  [" PATH_PROC "/%ld/maps]\n", pid);
	else if (a->recorded)
		fprintf(f, "  [capture/alloc/%ld: recorded by thpctl capture]\n", pid);
	else
		fprintf(f, "  [" PATH_PROC "/%ld/%s]\n", pid,
			a->evidence == AE_MAPPED_LIB ? "maps" : "exe");
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_str(s) : json_null();
}

/* "proven", "likely" (not proven: not_proven_reason says why), or null for unknown. */
static json_t *confidence(enum alloc_kind k, enum alloc_doubt d)
{
	return k == AK_UNKNOWN ? json_null() : json_str(d != AD_NONE ? "likely" : "proven");
}

json_t *alloc_to_json(const struct alloc_fact *a)
{
	json_t *o = json_object();
	json_put(o, "kind", json_str(alloc_kind_name(a->kind)));
	json_put(o, "version", str_or_null(a->version));
	json_put(o, "version_from", a->version[0] ? json_str(alloc_vsrc_name(a->vsrc)) : NULL);
	json_put(o, "evidence",
		 a->evidence != AE_NONE ? json_str(alloc_evidence_name(a->evidence)) : NULL);
	json_put(o, "evidence_path", str_or_null(a->path));
	json_put(o, "symbol", a->evidence == AE_EXE_SYMBOL ? str_or_null(a->symbol) : NULL);
	json_put(o, "confidence", confidence(a->kind, a->doubt));
	json_put(o, "not_proven_reason",
		 a->doubt != AD_NONE ? json_str(alloc_doubt_name(a->doubt)) : NULL);
	json_t *m = NULL;
	if (a->malloc_kind != AK_UNKNOWN) {
		m = json_object();
		json_put(m, "kind", json_str(alloc_kind_name(a->malloc_kind)));
		json_put(m, "version", str_or_null(a->malloc_version));
		json_put(m, "evidence", json_str(alloc_evidence_name(a->malloc_evidence)));
		json_put(m, "evidence_path", str_or_null(a->malloc_path));
		json_put(m, "confidence", confidence(a->malloc_kind, a->malloc_doubt));
		json_put(m, "not_proven_reason",
			 a->malloc_doubt != AD_NONE ? json_str(alloc_doubt_name(a->malloc_doubt))
						    : NULL);
	}
	json_put(o, "malloc", m);
	json_put(o, "go_default_godebug", a->kind == AK_GO ? str_or_null(a->godebug) : NULL);
	json_put(o, "glibc_version", str_or_null(a->glibc_version));
	json_put(o, "unknown_reason",
		 a->kind == AK_UNKNOWN ? json_str(alloc_unknown_name(a->why_unknown)) : NULL);
	json_put(o, "at_secure", a->at_secure >= 0 ? json_boolean(a->at_secure) : NULL);
	json_t *notes = json_array();
	for (unsigned bit = 1; bit <= AN_SECURE; bit <<= 1)
		if (a->notes & bit)
			json_array_append_new(notes, json_str(alloc_note_name(bit)));
	json_put(o, "notes", notes);
	json_t *env = json_array();
	for (int i = 0; i < a->nenv; i++) {
		json_t *e = json_object();
		json_put(e, "var", json_str(a->env[i].var));
		json_put(e, "value", json_str(a->env[i].value));
		json_put(e, "configures", json_str(alloc_kind_name(a->env[i].kind)));
		json_put(e, "applies", json_boolean(a->env[i].applies));
		json_put(e, "ignored", json_boolean(a->env[i].ignored));
		json_array_append_new(env, e);
	}
	json_put(o, "env", env);
	json_put(o, "recorded", json_boolean(a->recorded));
	return o;
}
