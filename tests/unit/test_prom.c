// SPDX-License-Identifier: MIT
/* Unit tests: src/render/prom.c (metric naming, escaping, exposition format). */
#include "unit.h"

#include "render/prom.h"

static char *render_label(const char *s)
{
	static struct pbuf b;
	pbuf_free(&b);
	prom_escape_label(&b, s);
	return b.p ? b.p : (char *)"";
}

static void test_names(UNIT_STATE)
{
	static const char *const yes[] = {"thp_fault_alloc_total", "a:b_C9", "_x", NULL};
	static const char *const no[] = {"",	      "9lives",	       "thp-fault", "thp fault",
					 "thp.fault", "thp_f\xc3\xa9", NULL};
	unit_accepts("prom_valid_name", prom_valid_name, yes, no);
}

static void test_escape(UNIT_STATE)
{
	assert_string_equal(render_label("plain"), "plain");
	assert_string_equal(render_label(""), "");
	assert_string_equal(render_label("a\"b"), "a\\\"b");
	assert_string_equal(render_label("back\\slash"), "back\\\\slash");
	assert_string_equal(render_label("two\nlines"), "two\\nlines");
	assert_string_equal(render_label("\\\"\n"), "\\\\\\\"\\n");
	/* valid UTF-8 kept; an invalid byte becomes U+FFFD and its hex */
#define MARK "\xef\xbf\xbd"
	assert_string_equal(render_label("caf\xc3\xa9"), "caf\xc3\xa9");
	assert_string_equal(render_label("x\xff y"), "x" MARK "FF y");
	assert_string_equal(render_label("\xc3"), MARK "C3"); /* cut sequence */
	/* a tab is kept; other controls (legal in label values) must not reach a terminal */
	assert_string_equal(render_label("a\tb"), "a\tb");
	assert_string_equal(render_label("x\x1b[2J\x07\x7f\xc2\x9by"),
			    "x" MARK "1B[2J" MARK "07" MARK "7F" MARK "C2" MARK "9By");
	/* one to one: names differing only in such a byte stay apart, and a U+FFFD of the
	 * name itself is doubled, so no name can spell another's escape */
	assert_string_equal(render_label("job\x01"), "job" MARK "01");
	assert_string_equal(render_label("job\x02"), "job" MARK "02");
	assert_string_equal(render_label("job" MARK "01"), "job" MARK MARK "01");
	assert_string_equal(render_label(MARK), MARK MARK);
	assert_string_equal(render_label("\xef\xbf"), MARK "EF" MARK "BF"); /* a cut U+FFFD */
#undef MARK

	struct pbuf b = {0};
	prom_escape_help(&b, "a\\b\nc \"q\"");
	assert_string_equal(b.p, "a\\\\b\\nc \"q\""); /* quotes stay in HELP */
	pbuf_reset(&b);
	prom_escape_help(&b, "\n\\x\\\\\n");
	prom_escape_help(&b, "");
	prom_escape_help(&b, "end\\");
	assert_string_equal(b.p, "\\n\\\\x\\\\\\\\\\nend\\\\");
	pbuf_free(&b);
}

static void test_pbuf_cap(UNIT_STATE)
{
	struct pbuf b = {.max = 10};
	pbuf_puts(&b, "12345");
	assert_false(b.overflow);
	pbuf_printf(&b, "%d", 6789);
	assert_false(b.overflow);
	assert_string_equal(b.p, "123456789");
	pbuf_puts(&b, "ab"); /* 11 > 10 */
	assert_true(b.overflow);
	assert_int_equal(b.len, 9);
	pbuf_puts(&b, "c"); /* sticky */
	assert_int_equal(b.len, 9);
	pbuf_reset(&b);
	assert_false(b.overflow);
	assert_int_equal(b.len, 0);
	/* a long printf goes past the stack buffer */
	struct pbuf big = {0};
	char s[600];
	memset(s, 'x', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	pbuf_printf(&big, "<%s>", s);
	assert_int_equal(big.len, 601);
	assert_int_equal(big.p[0], '<');
	assert_int_equal(big.p[600], '>');
	pbuf_free(&b);
	pbuf_free(&big);
}

static struct sample smp;

static void mk(void)
{
	memset(&smp, 0, sizeof(smp));
	const char vm[] = "nr_free_pages 100\n"
			  "nr_anon_transparent_hugepages 3\n"
			  "thp_fault_alloc 1234\n"
			  "thp_fault_fallback 56\n"
			  "compact_stall 17\n"
			  "allocstall_dma32 1\n"
			  "allocstall_normal 2\n"
			  "pgscan_direct 99\n"
			  "pgsteal_kswapd 5\n";
	assert_int_equal(vmstat_parse(LIT(vm), &smp.host.vmstat), 0);
	smp.host.has_vmstat = true;
	assert_int_equal(meminfo_parse(LIT("MemTotal: 1000 kB\nAnonHugePages:    6144 kB\n"
					   "ShmemPmdMapped: 0 kB\n"),
				       &smp.host.meminfo),
			 0);
	smp.host.has_meminfo = true;
	assert_int_equal(buddyinfo_parse(LIT("Node 0, zone Normal 1 2 3 4 5 6 7 8 9 10 11\n"),
					 &smp.host.buddy),
			 0);
	smp.host.has_buddy = true;
	smp.host.pmd_order = 9;
	smp.host.has_settings = true;
	struct thp_settings *t = &smp.host.thp;
	t->present = true;
	assert_int_equal(choice_parse(LIT("always [madvise] never\n"), &t->enabled), 0);
	assert_int_equal(choice_parse(LIT("always defer [never]\n"), &t->defrag), 0);
	t->use_zero_page = (struct opt_u64){1, true};
	t->hpage_pmd_size = (struct opt_u64){2097152, true};
	t->khp[KHP_SCAN_SLEEP_MS] = (struct opt_u64){10000, true};
	t->khp[KHP_MAX_PTES_NONE] = (struct opt_u64){511, true};
	t->khp[KHP_FULL_SCANS] = (struct opt_u64){3, true};
	snprintf(t->extra[0].name, sizeof(t->extra[0].name), "vendor_knob");
	snprintf(t->extra[0].value, sizeof(t->extra[0].value), "a\"b");
	t->nextra = 1;
	struct thp_size *sz = &t->sizes[t->nsizes++];
	sz->size_kb = 64;
	assert_int_equal(choice_parse(LIT("always [inherit] madvise never\n"), &sz->enabled), 0);
	sz->eff_enabled = t->enabled.selected;
	sz->has_stats = true;
	kvlist_add(&sz->stats, "anon_fault_alloc", 16, 42);
	kvlist_add(&sz->stats, "nr_anon", 7, 8);
	sz = &t->sizes[t->nsizes++];
	sz->size_kb = 2048;
	sz->has_stats = true;
	kvlist_add(&sz->stats, "anon_fault_alloc", 16, 7);
	smp.host.has_khugepaged_cpu = true;
	smp.host.khugepaged_cpu_s = 1.5;
	smp.host.has_hugetlb = true;
	smp.host.hugetlb.npools = 2;
	smp.host.hugetlb.pools[0] = (struct hugetlb_pool){.size_kb = 2048,
							  .node = -1,
							  .nr = {4, true},
							  .free = {3, true},
							  .resv = {1, true},
							  .surplus = {0, true},
							  .overcommit = {0, true}};
	smp.host.hugetlb.pools[1] = (struct hugetlb_pool){.size_kb = 2048,
							  .node = 0,
							  .nr = {4, true},
							  .free = {3, true},
							  .surplus = {0, true}};
	smp.procs = calloc(2, sizeof(*smp.procs));
	smp.procs_cap = 2;
	smp.nprocs = 2;
	smp.procs[0] = (struct proc_sample){.pid = 42,
					    .rss_kb = 3000,
					    .rss_known = true,
					    .anon_huge_kb = 2048,
					    .readable = true,
					    .thp_enabled = 1};
	snprintf(smp.procs[0].comm, sizeof(smp.procs[0].comm), "we\"ird\\na\nme");
	smp.procs[1] = (struct proc_sample){
		.pid = 7, .rss_kb = 10, .rss_known = true, .readable = true, .thp_enabled = -1};
	snprintf(smp.procs[1].comm, sizeof(smp.procs[1].comm), "x");
	smp.procs_seen = 300;
	smp.procs_candidates = 2;
	smp.procs_unreadable = 1;
	smp.duration_s = 0.00125;
}

/* The whole line starting with PREFIX (followed by ' ' or '{'), or NULL. */
static char *line_of(const char *text, const char *prefix)
{
	static char out[512];
	size_t n = strlen(prefix);
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len >= n && memcmp(p, prefix, n) == 0 && len < sizeof(out)) {
			memcpy(out, p, len);
			out[len] = '\0';
			return out;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

/* The line that starts with PREFIX is LINE exactly; with LINE NULL there is none. */
struct want_line {
	const char *prefix, *line;
};

static void check_lines(const char *text, const struct want_line *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (w[i].line)
			assert_string_equal(line_of(text, w[i].prefix), w[i].line);
		else
			assert_null(line_of(text, w[i].prefix));
	}
}

/*
 * Structural checks of the text format: every sample's family has HELP and
 * TYPE before its first sample, each family's samples are contiguous, and no
 * HELP/TYPE appears twice.
 */
static void check_format(const char *text)
{
	char fam[64][96];
	int nfam = 0;
	char cur[96] = "";
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		assert_non_null(e); /* every line ends with a newline */
		char line[1024];
		size_t len = (size_t)(e - p);
		assert_true(len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		p = e + 1;
		if (strncmp(line, "# HELP ", 7) == 0) {
			char name[96];
			assert_int_equal(sscanf(line + 7, "%95s", name), 1);
			for (int i = 0; i < nfam; i++)
				assert_string_not_equal(fam[i], name);
			assert_true(nfam < 64);
			snprintf(fam[nfam++], sizeof(fam[0]), "%s", name);
			snprintf(cur, sizeof(cur), "%s", name);
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			char name[96], type[32];
			assert_int_equal(sscanf(line + 7, "%95s %31s", name, type), 2);
			assert_string_equal(name, cur);
			assert_true(!strcmp(type, "counter") || !strcmp(type, "gauge"));
			/* counters end in _total, and only they */
			size_t nl = strlen(name);
			bool total = nl > 6 && strcmp(name + nl - 6, "_total") == 0;
			assert_int_equal(total, strcmp(type, "counter") == 0);
			continue;
		}
		assert_true(line[0] != '#');
		size_t nl = strcspn(line, "{ ");
		assert_int_equal(strlen(cur), nl);
		assert_memory_equal(line, cur, nl);
	}
}

static void test_render(UNIT_STATE)
{
	mk();
	struct prom_meta m = {.version = "1.2-test",
			      .collections = 5,
			      .process_metrics = true,
			      .top = 20,
			      .min_ahp_bytes = 1};
	struct pbuf b = {0};
	assert_int_equal(prom_render(&smp, &m, &b), 0);
	const char *t = b.p;
	check_format(t);
	assert_non_null(strstr(t, "# HELP thp_fault_alloc_total /proc/vmstat thp_fault_alloc"));
	assert_non_null(strstr(t, "# TYPE thp_fault_alloc_total counter\n"));
	assert_non_null(strstr(t, "# TYPE thp_nr_anon_transparent_hugepages gauge\n"));
	assert_null(strstr(t, "kswapd"));
	static const struct want_line vmstat_lines[] = {
		{"thp_fault_alloc_total", "thp_fault_alloc_total 1234"},
		{"thp_fault_fallback_total", "thp_fault_fallback_total 56"},
		/* not THP's own: the kernel's name under thpctl_vmstat_ (node_vmstat_compact_stall) */
		{"thpctl_vmstat_compact_stall_total", "thpctl_vmstat_compact_stall_total 17"},
		{"thp_compact_stall_total", NULL},
		{"thp_nr_anon_transparent_hugepages ", "thp_nr_anon_transparent_hugepages 3"},
		{"thpctl_vmstat_allocstall_total{zone=\"normal\"}",
		 "thpctl_vmstat_allocstall_total{zone=\"normal\"} 2"},
		{"thp_allocstall_total", NULL},
		{"thpctl_vmstat_pgscan_direct_total", "thpctl_vmstat_pgscan_direct_total 99"},
		{"thp_pgscan_direct_total", NULL},
		{"thp_nr_free_pages", NULL},
		/* per-size: counter and gauge, label size */
		{"thp_mthp_anon_fault_alloc_total{size=\"64kB\"}",
		 "thp_mthp_anon_fault_alloc_total{size=\"64kB\"} 42"},
		{"thp_mthp_anon_fault_alloc_total{size=\"2048kB\"}",
		 "thp_mthp_anon_fault_alloc_total{size=\"2048kB\"} 7"},
		{"thp_mthp_nr_anon{", "thp_mthp_nr_anon{size=\"64kB\"} 8"},
	};
	check_lines(t, vmstat_lines, UNIT_LEN(vmstat_lines));
	assert_non_null(strstr(t, "# TYPE thp_mthp_nr_anon gauge\n"));
	/* settings */
	assert_non_null(strstr(t, "thp_setting_info{knob=\"enabled\",value=\"madvise\"} 1\n"));
	assert_non_null(strstr(t, "thp_setting_info{knob=\"defrag\",value=\"never\"} 1\n"));
	assert_non_null(strstr(t, "thp_setting_info{knob=\"vendor_knob\",value=\"a\\\"b\"} 1\n"));
	assert_non_null(strstr(t, "thp_size_setting_info{size=\"64kB\",knob=\"enabled\","
				  "value=\"inherit\",effective=\"madvise\"} 1\n"));
	static const struct want_line settings_lines[] = {
		{"thp_use_zero_page", "thp_use_zero_page 1"},
		{"thp_shrink_underused", NULL}, /* absent, not 0 */
		{"thp_hpage_pmd_size_bytes", "thp_hpage_pmd_size_bytes 2097152"},
		{"thp_khugepaged_scan_sleep_seconds", "thp_khugepaged_scan_sleep_seconds 10"},
		{"thp_khugepaged_max_ptes_none", "thp_khugepaged_max_ptes_none 511"},
		{"thp_khugepaged_full_scans_total", "thp_khugepaged_full_scans_total 3"},
		{"thp_khugepaged_pages_to_scan", NULL},
		{"thp_khugepaged_cpu_seconds_total", "thp_khugepaged_cpu_seconds_total 1.5"},
		/* meminfo in bytes */
		{"thp_meminfo_anon_huge_pages_bytes", "thp_meminfo_anon_huge_pages_bytes 6291456"},
		{"thp_meminfo_shmem_pmd_mapped_bytes", "thp_meminfo_shmem_pmd_mapped_bytes 0"},
		{"thp_meminfo_file_huge_pages_bytes", NULL},
	};
	check_lines(t, settings_lines, UNIT_LEN(settings_lines));
	/* hugetlb */
	assert_non_null(strstr(t, "thp_hugetlb_pages{size=\"2048kB\",state=\"total\"} 4\n"));
	assert_non_null(strstr(t, "thp_hugetlb_pages{size=\"2048kB\",state=\"reserved\"} 1\n"));
	assert_non_null(
		strstr(t, "thp_hugetlb_node_pages{size=\"2048kB\",node=\"0\",state=\"free\"} 3\n"));
	assert_null(
		strstr(t, "thp_hugetlb_node_pages{size=\"2048kB\",node=\"0\",state=\"reserved\""));
	assert_non_null(strstr(t, "thp_hugetlb_overcommit_limit_pages{size=\"2048kB\"} 0\n"));
	/* buddyinfo: every order, and the PMD summary (orders 9, 10: 10 + 11*2) */
	assert_non_null(
		strstr(t, "thp_buddy_free_blocks{node=\"0\",zone=\"Normal\",order=\"10\"} 11\n"));
	assert_string_equal(line_of(t, "thp_free_pmd_blocks"), "thp_free_pmd_blocks 32");
	/* processes: escaped comm, bytes, THP_enabled only when present */
	assert_non_null(strstr(t, "thp_process_anon_huge_pages_bytes{pid=\"42\",comm="
				  "\"we\\\"ird\\\\na\\nme\"} 2097152\n"));
	assert_non_null(strstr(t, "thp_process_rss_bytes{pid=\"7\",comm=\"x\"} 10240\n"));
	assert_non_null(strstr(t, "thp_process_thp_enabled{pid=\"42\","));
	assert_null(strstr(t, "thp_process_thp_enabled{pid=\"7\""));
	assert_null(strstr(t, "thp_process_hugepage_advised_bytes"));
	static const struct want_line self_lines[] = {
		{"thpctl_processes_unreadable", "thpctl_processes_unreadable 1"},
		{"thpctl_processes_seen", "thpctl_processes_seen 300"},
		{"thpctl_scrape_duration_seconds", "thpctl_scrape_duration_seconds 0.00125"},
		{"thpctl_scrape_errors", "thpctl_scrape_errors 0"},
		{"thpctl_collections_total", "thpctl_collections_total 5"},
		{"thpctl_build_info", "thpctl_build_info{version=\"1.2-test\"} 1"},
	};
	check_lines(t, self_lines, UNIT_LEN(self_lines));

	/* the same scrape as JSON: families, types, unescaped labels, values */
	json_t *j = prom_text_to_json(b.p, b.len);
	assert_non_null(j);
	json_t *fam = NULL, *procs = NULL;
	for (size_t i = 0; i < json_array_size(j); i++) {
		json_t *f = json_array_get(j, i);
		const char *n = json_string_value(json_object_get(f, "name"));
		if (!strcmp(n, "thp_fault_alloc_total"))
			fam = f;
		if (!strcmp(n, "thp_process_anon_huge_pages_bytes"))
			procs = f;
	}
	assert_non_null(fam);
	assert_string_equal(json_string_value(json_object_get(fam, "type")), "counter");
	assert_non_null(strstr(json_string_value(json_object_get(fam, "help")), "/proc/vmstat"));
	json_t *s0 = json_array_get(json_object_get(fam, "samples"), 0);
	assert_int_equal(json_integer_value(json_object_get(s0, "value")), 1234);
	assert_int_equal(json_object_size(json_object_get(s0, "labels")), 0);
	assert_non_null(procs);
	s0 = json_array_get(json_object_get(procs, "samples"), 0);
	json_t *lab = json_object_get(s0, "labels");
	assert_string_equal(json_string_value(json_object_get(lab, "pid")), "42");
	assert_string_equal(json_string_value(json_object_get(lab, "comm")), "we\"ird\\na\nme");
	assert_int_equal(json_integer_value(json_object_get(s0, "value")), 2097152);
	size_t nhelp = 0;
	for (const char *q = b.p; (q = strstr(q, "# HELP ")); q++)
		nhelp++;
	assert_true(nhelp > 30);
	assert_int_equal(json_array_size(j), nhelp);
	json_decref(j);
	/* lines prom_render never writes */
	assert_null(prom_text_to_json(LIT("x 1\n")));			   /* sample before HELP */
	assert_null(prom_text_to_json(LIT("# HELP a h\na{b=\"c} 1\n")));   /* open quote */
	assert_null(prom_text_to_json(LIT("# HELP a h\na{b=\"c\"} x\n"))); /* not a number */
	j = prom_text_to_json(LIT("# HELP a h \\n\\\\\n# TYPE a gauge\na 0.5\n"));
	assert_non_null(j);
	fam = json_array_get(j, 0);
	assert_string_equal(json_string_value(json_object_get(fam, "help")), "h \n\\");
	assert_true(json_real_value(json_object_get(
			    json_array_get(json_object_get(fam, "samples"), 0), "value")) == 0.5);
	json_decref(j);

	/* --process-flags: hg bytes for the processes that have them */
	smp.procs[0].has_hg = true;
	smp.procs[0].hg_kb = 4096;
	m.process_flags = true;
	pbuf_reset(&b);
	assert_int_equal(prom_render(&smp, &m, &b), 0);
	check_format(b.p);
	assert_non_null(strstr(b.p, "thp_process_hugepage_advised_bytes{pid=\"42\","));
	assert_null(strstr(b.p, "thp_process_hugepage_advised_bytes{pid=\"7\""));

	/* no per-process families without them; errors counted */
	m.process_metrics = false;
	smp.host.nmissing = 2;
	smp.procs_errors = 1;
	pbuf_reset(&b);
	assert_int_equal(prom_render(&smp, &m, &b), 0);
	assert_null(strstr(b.p, "thp_process_"));
	assert_null(strstr(b.p, "thpctl_processes_"));
	assert_string_equal(line_of(b.p, "thpctl_scrape_errors"), "thpctl_scrape_errors 3");

	/* over the cap: -E2BIG, never a cut body */
	struct pbuf small = {.max = 1000};
	assert_int_equal(prom_render(&smp, &m, &small), -E2BIG);
	assert_true(small.overflow);
	pbuf_free(&small);
	pbuf_free(&b);
	sample_free(&smp);
}

/* A vmstat key that is not a valid metric name, or collides with ours, is skipped. */
static void test_render_odd_keys(UNIT_STATE)
{
	memset(&smp, 0, sizeof(smp));
	assert_int_equal(
		vmstat_parse(LIT("thp_ok 1\nthp_process_x 2\ncompact_a.b 3\n"), &smp.host.vmstat),
		0);
	smp.host.has_vmstat = true;
	struct prom_meta m = {0};
	struct pbuf b = {0};
	assert_int_equal(prom_render(&smp, &m, &b), 0);
	check_format(b.p);
	assert_string_equal(line_of(b.p, "thp_ok_total"), "thp_ok_total 1");
	assert_null(strstr(b.p, "thp_process_x"));
	assert_null(strstr(b.p, "compact_a"));
	/* with nothing read, only the exporter's own families */
	assert_null(strstr(b.p, "thp_buddy"));
	assert_non_null(strstr(b.p, "thpctl_build_info{version=\"\"} 1\n"));
	pbuf_free(&b);
	sample_free(&smp);
}

/* Each thp_* counter's HELP says what it counts: PMD-sized on 6.10+, PUD, the huge zero page. */
static void test_render_vmstat_help_per_counter(UNIT_STATE)
{
	memset(&smp, 0, sizeof(smp));
	assert_int_equal(vmstat_parse(LIT("thp_fault_alloc 1\nthp_split_pud 2\n"
					  "thp_zero_page_alloc 3\nthp_zero_page_alloc_failed 4\n"
					  "compact_stall 5\n"),
				      &smp.host.vmstat),
			 0);
	smp.host.has_vmstat = true;
	struct prom_meta m = {0};
	struct pbuf b = {0};
	assert_int_equal(prom_render(&smp, &m, &b), 0);
	check_format(b.p);
	static const char *const want[] = {
		"# HELP thp_fault_alloc_total /proc/vmstat thp_fault_alloc, cumulative since boot "
		"(PMD-sized THPs only on 6.10+)\n",
		"# HELP thp_split_pud_total /proc/vmstat thp_split_pud, cumulative since boot "
		"(PUD-sized mappings, where the arch supports them)\n",
		"# HELP thp_zero_page_alloc_total /proc/vmstat thp_zero_page_alloc, cumulative since "
		"boot (the PMD-sized huge zero page, use_zero_page)\n",
		"# HELP thp_zero_page_alloc_failed_total /proc/vmstat thp_zero_page_alloc_failed, "
		"cumulative since boot (the PMD-sized huge zero page, use_zero_page)\n",
		"# HELP thpctl_vmstat_compact_stall_total /proc/vmstat compact_stall, cumulative "
		"since boot\n",
	};
	for (size_t i = 0; i < UNIT_LEN(want); i++)
		if (!strstr(b.p, want[i]))
			fail_msg("no line %s in:\n%s", want[i], b.p);
	pbuf_free(&b);
	sample_free(&smp);
}

UNIT_TESTS(test_names, test_escape, test_pbuf_cap, test_render, test_render_odd_keys,
	   test_render_vmstat_help_per_counter)
