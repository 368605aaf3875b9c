// SPDX-License-Identifier: MIT
/* Unit tests: src/render/alloc.c (the allocator in a cell, a `why` line, JSON). */
#include "unit.h"

#include "render/alloc.h"
#include "render/json.h"

static void fact(struct alloc_fact *a, enum alloc_kind k, const char *ver)
{
	memset(a, 0, sizeof(*a));
	a->kind = k;
	a->at_secure = -1;
	snprintf(a->version, sizeof(a->version), "%s", ver);
}

static void test_alloc_short_names_fit_a_cell(UNIT_STATE)
{
	static const struct {
		enum alloc_kind kind;
		const char *version, *want;
	} c[] = {
		{AK_JEMALLOC, "5.3.0", "jemalloc 5.3"},
		{AK_GO, "go1.22.4", "go1.22.4"},
		{AK_JVM, "17", "jvm 17"},
		{AK_TCMALLOC, "", "tcmalloc"},
		{AK_UNKNOWN, "", "unknown"},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		struct alloc_fact a;
		char s[32];
		fact(&a, c[i].kind, c[i].version);
		alloc_short(&a, s, sizeof(s));
		unit_row_str(c[i].want, "alloc_short", s, c[i].want);
	}
}

static char *why_text(const struct alloc_fact *a, long pid)
{
	static char out[2048];
	FILE *f = fmemopen(out, sizeof(out), "w");
	assert_non_null(f);
	alloc_render_why(f, a, pid);
	fclose(f);
	return out;
}

static void test_alloc_why_line_names_the_evidence(UNIT_STATE)
{
	struct alloc_fact a;
	fact(&a, AK_JEMALLOC, "5.3.0");
	a.evidence = AE_MAPPED_LIB;
	a.vsrc = AV_STRING;
	snprintf(a.path, sizeof(a.path), "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
	a.nenv = 1;
	snprintf(a.env[0].var, sizeof(a.env[0].var), "MALLOC_CONF");
	snprintf(a.env[0].value, sizeof(a.env[0].value), "thp:never\x1b[2J");
	a.env[0].kind = AK_JEMALLOC;
	a.env[0].applies = true;
	char *t = why_text(&a, 42);
	assert_string_equal(
		t, "allocator: jemalloc 5.3.0 (/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 mapped, "
		   "/proc/42/maps; version from its version string, read as data); "
		   "MALLOC_CONF=thp:never\\x1b[2J in its environment  [/proc/42/maps]\n");
	fact(&a, AK_UNKNOWN, "");
	a.why_unknown = AU_STRIPPED;
	assert_string_equal(why_text(&a, 7),
			    "allocator: unknown: a stripped static executable: no symbols, no Go "
			    "build info  [/proc/7/exe]\n");
	fact(&a, AK_GO, "go1.22.4");
	a.evidence = AE_GO_BUILDINFO;
	a.vsrc = AV_BUILDINFO;
	snprintf(a.godebug, sizeof(a.godebug), "disablethp=1");
	a.recorded = true;
	t = why_text(&a, 9);
	assert_contains(
		t, "Go runtime go1.22.4 (.go.buildinfo of /proc/9/exe, read as ELF; "
		   "version from .go.buildinfo); GODEBUG defaults in the binary: disablethp=1");
	assert_contains(t, "[capture/alloc/9: recorded by thpctl capture]");
	fact(&a, AK_GLIBC, "2.43");
	a.malloc_kind = AK_GLIBC;
	snprintf(a.glibc_version, sizeof(a.glibc_version), "2.43");
	a.notes = AN_GLIBC_HUGETLB_DEFAULT | AN_SECURE;
	t = why_text(&a, 1);
	assert_contains(t, "glibc 2.43 on aarch64: glibc.malloc.hugetlb is on by default");
	assert_contains(t, "AT_SECURE program: glibc ignores GLIBC_TUNABLES for it");
	/* a JVM's C heap with its version: shown, never called unknown beside it */
	fact(&a, AK_JVM, "17");
	a.evidence = AE_MAPPED_LIB;
	a.vsrc = AV_PATH;
	snprintf(a.path, sizeof(a.path), "/usr/lib/jvm/java-17/lib/server/libjvm.so");
	a.malloc_kind = AK_GLIBC;
	a.malloc_evidence = AE_MAPPED_LIB;
	snprintf(a.malloc_version, sizeof(a.malloc_version), "2.36");
	snprintf(a.malloc_path, sizeof(a.malloc_path), "/usr/lib/x86_64-linux-gnu/libc.so.6");
	t = why_text(&a, 5);
	assert_contains(t, "; C heap: glibc 2.36 (libc.so.6 mapped, /proc/5/maps)");
	assert_null(strstr(t, "version unknown"));
}

static void test_alloc_json_unknowns_are_null(UNIT_STATE)
{
	struct alloc_fact a;
	fact(&a, AK_UNKNOWN, "");
	a.why_unknown = AU_NOT_RECORDED;
	json_t *j = alloc_to_json(&a);
	char *s = json_dump_text(j, JSON_COMPACT);
	assert_string_equal(
		s, "{\"kind\":\"unknown\",\"version\":null,\"version_from\":null,\"evidence\":null,"
		   "\"evidence_path\":null,\"symbol\":null,\"confidence\":null,"
		   "\"not_proven_reason\":null,\"malloc\":null,\"go_default_godebug\":null,"
		   "\"glibc_version\":null,\"unknown_reason\":\"not-recorded\",\"at_secure\":null,"
		   "\"notes\":[],\"env\":[],\"recorded\":false}");
	free(s);
	json_decref(j);
	fact(&a, AK_GO, "go1.21.6");
	a.evidence = AE_GO_BUILDINFO;
	a.vsrc = AV_BUILDINFO;
	a.malloc_kind = AK_GLIBC;
	a.malloc_evidence = AE_MAPPED_LIB;
	a.at_secure = 0;
	a.notes = AN_TUNABLES_IGNORED;
	j = alloc_to_json(&a);
	s = json_dump_text(j, JSON_COMPACT);
	assert_contains(
		s, "\"kind\":\"go\",\"version\":\"go1.21.6\",\"version_from\":\"go-buildinfo\","
		   "\"evidence\":\"go-buildinfo\"");
	assert_contains(
		s,
		"\"malloc\":{\"kind\":\"glibc\",\"version\":null,\"evidence\":\"mapped-library\"");
	assert_contains(s, "\"at_secure\":false,\"notes\":[\"glibc-tunables-ignored-at-secure\"]");
	free(s);
	json_decref(j);
}

/* glibc named from its mapped libc.so.6 only: likely, said why, in the cell, the line and JSON */
static void test_alloc_glibc_likely_says_why(UNIT_STATE)
{
	struct alloc_fact a;
	fact(&a, AK_GLIBC, "2.36");
	a.evidence = a.malloc_evidence = AE_MAPPED_LIB;
	a.vsrc = AV_STRING;
	a.malloc_kind = AK_GLIBC;
	a.doubt = a.malloc_doubt = AD_EXE_STRIPPED;
	snprintf(a.path, sizeof(a.path), "/usr/lib/x86_64-linux-gnu/libc.so.6");
	char s[32];
	alloc_short(&a, s, sizeof(s));
	assert_string_equal(s, "glibc 2.36?");
	assert_string_equal(why_text(&a, 3),
			    "allocator: glibc 2.36 (/usr/lib/x86_64-linux-gnu/libc.so.6 mapped, "
			    "/proc/3/maps; version from its version string, read as data; "
			    "likely, not proven: executable stripped: a statically linked "
			    "allocator cannot be ruled out)  [/proc/3/maps]\n");
	a.doubt = a.malloc_doubt = AD_SYMS_CUT;
	assert_contains(why_text(&a, 3), "likely, not proven: symbols unreadable");
	json_t *j = alloc_to_json(&a);
	char *t = json_dump_text(j, JSON_COMPACT);
	assert_contains(t, "\"confidence\":\"likely\","
			   "\"not_proven_reason\":\"exe-symbols-unreadable\",\"malloc\":{");
	assert_contains(t, "\"evidence\":\"mapped-library\",\"evidence_path\":null,"
			   "\"confidence\":\"likely\","
			   "\"not_proven_reason\":\"exe-symbols-unreadable\"}");
	free(t);
	json_decref(j);
	/* proven: no mark, no words */
	a.doubt = a.malloc_doubt = AD_NONE;
	alloc_short(&a, s, sizeof(s));
	assert_string_equal(s, "glibc 2.36");
	assert_null(strstr(why_text(&a, 3), "not proven"));
	j = alloc_to_json(&a);
	t = json_dump_text(j, JSON_COMPACT);
	assert_contains(t, "\"confidence\":\"proven\",\"not_proven_reason\":null");
	free(t);
	json_decref(j);
}

UNIT_TESTS(test_alloc_short_names_fit_a_cell, test_alloc_why_line_names_the_evidence,
	   test_alloc_json_unknowns_are_null, test_alloc_glibc_likely_says_why)
