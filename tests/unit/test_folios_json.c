// SPDX-License-Identifier: MIT
/*
 * The JSON of maps --folios, ps --folios and maps --underused, built from reports in memory:
 * the cases tests/json_schema.sh does not reach (its live runs look at a `sleep`, which holds
 * no THP, and folios read the live host only): VMAs with THP, no --cont, no file pages, the
 * partial (PFNs hidden) method and an unreadable process. Each document is checked here key
 * by key and, where python3-jsonschema is installed, against docs/json/ by tests/json_schema.py.
 * And the legend of maps --folios' text for a folio mapped in part.
 */
#include "unit.h"

#include "render/folios.h"
#include "render/json.h"

#define VMA_START 0x7f1234400000ull
#define VMA_END 0x7f1234800000ull /* 4 MiB: two PMD THPs */

/* A VMA of 4 MiB, 2 MiB of it one PMD-mapped anonymous THP, 2 MiB in 64 kB folios. */
static void one_vma(struct folio_report *r, const struct folio_geom *g, enum folio_method m)
{
	memset(r, 0, sizeof(*r));
	r->pid = 4242;
	snprintf(r->st.name, sizeof(r->st.name), "thp");
	r->method = m;
	r->g = *g;
	struct folio_vma v = {.start = VMA_START, .end = VMA_END, .perms = "rw-p"};
	v.c.rss[FT_ANON] = 1024;
	v.c.pmd[FT_ANON] = 512;
	v.c.aligned[FT_ANON][4] = 512;
	v.c.cont_pte[FT_ANON] = 512;
	assert_int_equal(folio_report_add(r, &v), 0);
	assert_int_equal(r->n, 1);
}

/* ROOT with its schema key (CMD, VARIANT), dumped and parsed back (the document a reader gets). */
static json_t *as_read(json_t *root, const char *cmd, const char *variant)
{
	root = json_with_schema(root, cmd, variant);
	assert_non_null(root);
	char *text = json_dump_text(root, JSON_INDENT(2));
	json_decref(root);
	assert_non_null(text);
	json_error_t e;
	json_t *d = json_loads(text, 0, &e);
	free(text);
	assert_non_null(d);
	return d;
}

static json_t *maps_folios(enum folio_method m, uint64_t cont_kb)
{
	struct folio_geom g;
	folio_geom_init(&g, 4096, cont_kb);
	struct folio_report r;
	one_vma(&r, &g, m);
	json_t *d = as_read(folio_maps_to_json(&r), "maps", "folios");
	folio_report_free(&r);
	return d;
}

static json_t *ps_folios(void)
{
	struct folio_geom g;
	folio_geom_init(&g, 4096, 0);
	struct folio_ps_row rows[2] = {
		{.pid = 10, .ppid = 1, .uid = 0, .user = "root", .comm = "thp"},
		/* its status unreadable too: no parent, user or VmRSS */
		{.pid = 11, .ppid = -1, .uid = -1, .user = "-", .comm = "other", .denied = true},
	};
	rows[0].c.rss[FT_ANON] = 512;
	rows[0].c.pmd[FT_ANON] = 512;
	struct folio_ps_report r = {.method = FM_PAGEFLAGS_SCAN,
				    .g = g,
				    .rows = rows,
				    .n = 2,
				    .denied = 1,
				    .as_root = true};
	return as_read(folio_ps_to_json(&r), "ps", "folios");
}

static json_t *maps_underused(void)
{
	struct underused_report r = {.pid = 4242, .max_ptes_none = 511, .shrink_underused = 1};
	folio_geom_init(&r.g, 4096, 0);
	snprintf(r.st.name, sizeof(r.st.name), "thp");
	assert_int_equal(underused_hist_init(&r.total, 512), 0);
	r.vmas = calloc(1, sizeof(*r.vmas));
	assert_non_null(r.vmas);
	r.n = r.cap = 1;
	r.vmas[0].start = VMA_START;
	r.vmas[0].end = VMA_END;
	snprintf(r.vmas[0].name, sizeof(r.vmas[0].name), "[anon]");
	assert_int_equal(underused_hist_init(&r.vmas[0].h, 512), 0);
	underused_hist_add(&r.vmas[0].h, 100);
	underused_hist_merge(&r.total, &r.vmas[0].h);
	json_t *d = as_read(underused_to_json(&r), "maps", "underused");
	underused_report_free(&r);
	return d;
}

/* The value at the path of object keys that follow (NULL-terminated) in D; fails when absent. */
static json_t *at(json_t *d, ...) __attribute__((sentinel));
static json_t *at(json_t *d, ...)
{
	va_list ap;
	va_start(ap, d);
	for (const char *k = va_arg(ap, const char *); k; k = va_arg(ap, const char *)) {
		if (!json_is_object(d) || !json_object_get(d, k))
			fail_msg("no key \"%s\"", k);
		d = json_object_get(d, k);
	}
	va_end(ap);
	return d;
}

/* V's KEY is the string WANT (an address: a hex string, not a number). */
static void string_is(json_t *v, const char *key, const char *want)
{
	json_t *x = at(v, key, NULL);
	if (!json_is_string(x))
		fail_msg("\"%s\" is not a string (JSON type %d)", key, (int)json_typeof(x));
	assert_string_equal(json_string_value(x), want);
}

static void test_maps_folios_keys(UNIT_STATE)
{
	json_t *d = maps_folios(FM_PAGEFLAGS_SCAN, 0);
	json_t *v = json_array_get(at(d, "vmas", NULL), 0);
	/* addresses are hex strings, as maps --json writes them */
	string_is(v, "start", "7f1234400000");
	string_is(v, "end", "7f1234800000");
	/* no --cont: cont_kb and every cont are there, null */
	assert_true(json_is_null(at(d, "cont_kb", NULL)));
	assert_true(json_is_null(at(v, "anon", "cont", NULL)));
	assert_true(json_is_null(at(v, "file", "cont", NULL)));
	assert_true(json_is_null(at(d, "totals", "anon", "cont", NULL)));
	/* no file pages: a share of nothing is unknown, the kB are 0 */
	assert_true(json_is_null(at(v, "file", "thp_share", NULL)));
	assert_true(json_is_null(at(v, "file", "pmd_share", NULL)));
	assert_int_equal(json_integer_value(at(v, "file", "rss_kb", NULL)), 0);
	assert_true(json_real_value(at(v, "anon", "pmd_share", NULL)) == 0.5);
	json_decref(d);

	d = maps_folios(FM_PAGEFLAGS_SCAN, 64);
	v = json_array_get(at(d, "vmas", NULL), 0);
	assert_int_equal(json_integer_value(at(d, "cont_kb", NULL)), 64);
	assert_int_equal(json_integer_value(at(v, "anon", "cont", "pmd_kb", NULL)), 2048);
	assert_int_equal(json_integer_value(at(v, "anon", "cont", "pte_kb", NULL)), 2048);
	assert_true(json_is_null(at(v, "file", "cont", "pte_share", NULL)));
	json_decref(d);

	/* PFNs hidden: PTE-level counts unknown */
	d = maps_folios(FM_SMAPS_SCAN, 64);
	v = json_array_get(at(d, "vmas", NULL), 0);
	assert_true(json_is_null(at(v, "anon", "partial_kb", NULL)));
	assert_true(json_is_null(at(v, "anon", "cont", "pte_kb", NULL)));
	assert_true(json_is_null(at(v, "zero_page_pte_kb", NULL)));
	json_decref(d);
}

static void test_ps_folios_unreadable_row(UNIT_STATE)
{
	json_t *d = ps_folios();
	json_t *p = at(d, "processes", NULL);
	assert_true(json_is_object(at(json_array_get(p, 0), "anon", NULL)));
	json_t *den = json_array_get(p, 1);
	assert_true(json_is_false(at(den, "readable", NULL)));
	/* every count of a process that could not be read is there, unknown */
	static const char *const keys[] = {"anon",    "file",	    "zero_page_pte_kb",
					   "swap_kb", "hugetlb_kb", "numa",
					   "ppid",    "vmrss_kb"};
	for (size_t i = 0; i < UNIT_LEN(keys); i++)
		assert_row(keys[i], json_is_null(at(den, keys[i], NULL)));
	json_decref(d);
}

static void test_underused_addresses(UNIT_STATE)
{
	json_t *d = maps_underused();
	json_t *v = json_array_get(at(d, "vmas", NULL), 0);
	string_is(v, "start", "7f1234400000");
	string_is(v, "end", "7f1234800000");
	json_decref(d);
}

/* The text of maps --folios of R (no colour). */
static char *folios_text(const struct folio_report *r)
{
	struct unit_mem m;
	folio_maps_render_text(unit_mem_open(&m), r, false);
	return unit_mem_text(&m);
}

/* A FOLIO of '-' (a folio mapped in part: its size not read) is said under the table. */
static void test_text_partial_legend(UNIT_STATE)
{
	struct folio_geom g;
	folio_geom_init(&g, 4096, 0);
	struct folio_report r;
	one_vma(&r, &g, FM_PAGEFLAGS_SCAN);
	char *t = folios_text(&r);
	assert_null(strstr(t, "FOLIO -"));
	free(t);
	r.vmas[0].c.partial[FT_ANON] = 128;
	r.total.partial[FT_ANON] = 128;
	t = folios_text(&r);
	assert_contains(t, "partial");
	assert_contains(t, "FOLIO - (MAPPED partial): pages of folios mapped only in part");
	free(t);
	folio_report_free(&r);
}

/* D written as DIR/N.json with the command words ARGS in DIR/N.args (tests/json_schema.py). */
static void save_doc(const char *dir, int n, json_t *d, const char *args)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%d.json", dir, n);
	char *text = json_dump_text(d, JSON_INDENT(2));
	assert_non_null(text);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(text);
	snprintf(path, sizeof(path), "%s/%d.args", dir, n);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", args);
	fclose(f);
	json_decref(d);
}

/* Every document above against its schema in docs/json/ (run from the repository root). */
static void test_documents_match_schemas(UNIT_STATE)
{
	if (system("python3 -c 'import jsonschema' 2>/dev/null") != 0 ||
	    access("docs/json/maps.folios.json", R_OK) != 0) {
		print_message("no python3-jsonschema or no docs/json here: schemas not checked\n");
		skip();
	}
	char dir[] = "/tmp/thpctl-folios-json-XXXXXX";
	assert_non_null(mkdtemp(dir));
	int n = 0;
	save_doc(dir, ++n, maps_folios(FM_PAGEFLAGS_SCAN, 0), "maps 4242 --folios --json");
	save_doc(dir, ++n, maps_folios(FM_PAGEFLAGS_SCAN, 64),
		 "maps 4242 --folios --cont 64K --json");
	save_doc(dir, ++n, maps_folios(FM_SMAPS_SCAN, 0), "maps 4242 --folios --json");
	save_doc(dir, ++n, maps_folios(FM_SMAPS, 64), "maps 4242 --folios --cont 64K --json");
	save_doc(dir, ++n, ps_folios(), "ps --folios --json");
	save_doc(dir, ++n, maps_underused(), "maps 4242 --underused --json");
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "python3 tests/json_schema.py docs/json %s --runs-only > %s/out 2>&1; rc=$?; "
		 "grep -v '^ok' %s/out >&2; exit $rc",
		 dir, dir, dir);
	int rc = system(cmd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	if (rc != 0)
		fail_msg("tests/json_schema.py: status %d (the lines above)", rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_folios_keys),
		cmocka_unit_test(test_ps_folios_unreadable_row),
		cmocka_unit_test(test_underused_addresses),
		cmocka_unit_test(test_documents_match_schemas),
		cmocka_unit_test(test_text_partial_legend),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
