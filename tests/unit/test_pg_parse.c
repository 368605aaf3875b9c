// SPDX-License-Identifier: MIT
/*
 * Unit tests: the pure parts of lab postgres (src/lab/pg_parse.c, pg_srv.c):
 * pgbench's output, the shared segment in the postmaster's smaps, the band
 * call on a ratio interval, and the version directory search.
 */
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/pg_srv.h"

/* PostgreSQL 15.18's pgbench -S -M prepared -T 4 -c 4 -j 2 -P 1, as printed on this host. */
static const char pg15[] = "pgbench (15.18 (Debian 15.18-0+deb12u1))\n"
			   "starting vacuum...end.\n"
			   "progress: 1.0 s, 47300.5 tps, lat 0.081 ms stddev 0.174, 0 failed\n"
			   "progress: 2.0 s, 55985.3 tps, lat 0.067 ms stddev 0.243, 0 failed\n"
			   "progress: 3.0 s, 52284.4 tps, lat 0.072 ms stddev 0.353, 0 failed\n"
			   "progress: 4.0 s, 52932.9 tps, lat 0.071 ms stddev 0.269, 0 failed\n"
			   "transaction type: <builtin: select only>\n"
			   "scaling factor: 8\n"
			   "query mode: prepared\n"
			   "number of clients: 4\n"
			   "number of threads: 2\n"
			   "maximum number of tries: 1\n"
			   "duration: 4 s\n"
			   "number of transactions actually processed: 209191\n"
			   "number of failed transactions: 0 (0.000%)\n"
			   "latency average = 0.073 ms\n"
			   "latency stddev = 0.271 ms\n"
			   "initial connection time = 8.303 ms\n"
			   "tps = 52234.767929 (without initial connection time)\n";

static void test_pgbench_15_summary_and_progress(UNIT_STATE)
{
	struct pgbench_out o;
	assert_int_equal(pgbench_parse(pg15, &o), 0);
	assert_true(o.has_tps && o.tps == 52234.767929);
	assert_true(o.has_lat && o.lat_ms == 0.073);
	assert_true(o.has_sd && o.sd_ms == 0.271);
	assert_true(o.has_xacts);
	assert_int_equal(o.xacts, 209191);
	assert_int_equal(o.nprog, 4);
	assert_true(o.prog_t[0] == 1.0 && o.prog_tps[0] == 47300.5);
	assert_true(o.prog_t[3] == 4.0 && o.prog_tps[3] == 52932.9);
}

static void test_pgbench_13_takes_the_tps_excluding_connections(UNIT_STATE)
{
	/* before 14: two tps lines, "including" first; CRLF line ends too */
	const char *pg13 = "latency average = 1.250 ms\r\n"
			   "tps = 3190.100000 (including connections establishing)\r\n"
			   "tps = 3200.500000 (excluding connections establishing)\r\n";
	struct pgbench_out o;
	assert_int_equal(pgbench_parse(pg13, &o), 0);
	assert_true(o.tps == 3200.5 && o.lat_ms == 1.25);
	assert_false(o.has_sd); /* no -P: no stddev line, unknown, not 0 */
	assert_true(o.sd_ms == -1);
	assert_int_equal(o.nprog, 0);
}

static void test_pgbench_without_summary_is_an_error(UNIT_STATE)
{
	struct pgbench_out o;
	/* killed mid-run: progress lines only */
	assert_int_equal(pgbench_parse("progress: 1.0 s, 100.0 tps, lat 1 ms stddev 0\n", &o),
			 -EPROTO);
	assert_false(o.has_tps);
	assert_true(o.tps == -1);
	assert_int_equal(o.nprog, 1);
	/* an error message and damaged numbers are not values */
	assert_int_equal(pgbench_parse("pgbench: error: connection to server failed\n"
				       "tps = abc (without initial connection time)\n"
				       "latency average = -3 ms\n"
				       "progress: 2.0 s, tps\n",
				       &o),
			 -EPROTO);
	assert_false(o.has_tps || o.has_lat);
	assert_int_equal(o.nprog, 0);
	assert_int_equal(pgbench_parse("", &o), -EPROTO);
	/* tps without latency: still incomplete */
	assert_int_equal(pgbench_parse("tps = 10.0 (without initial connection time)\n", &o),
			 -EPROTO);
	assert_true(o.has_tps && o.tps == 10.0);
}

static void test_pgbench_progress_keeps_the_first_64(UNIT_STATE)
{
	char *t = malloc(100 * 64);
	assert_non_null(t);
	size_t len = 0;
	for (int i = 1; i <= 80; i++)
		len += (size_t)sprintf(t + len, "progress: %d.0 s, %d.5 tps, lat 0.1 ms\n", i, i);
	struct pgbench_out o;
	assert_int_equal(pgbench_parse(t, &o), -EPROTO);
	assert_int_equal(o.nprog, PG_MAX_PROGRESS);
	assert_true(o.prog_tps[63] == 64.5 && o.prog_t[63] == 64.0);
	free(t);
}

/* A postmaster's smaps: the 4 kB shmem segment, the SysV header, a private heap. */
static const char smaps_shmem[] =
	"55d0c0000000-55d0c0100000 rw-p 00000000 00:00 0                          [heap]\n"
	"Size:               1024 kB\n"
	"KernelPageSize:        4 kB\n"
	"Rss:                1024 kB\n"
	"AnonHugePages:         0 kB\n"
	"7f77b5ba6000-7f77bea3e000 rw-s 00000000 00:01 1218                       /dev/zero (deleted)\n"
	"Size:             146016 kB\n"
	"KernelPageSize:        4 kB\n"
	"Rss:               10796 kB\n"
	"ShmemPmdMapped:     2048 kB\n"
	"Shared_Hugetlb:        0 kB\n"
	"Private_Hugetlb:       0 kB\n"
	"7f77c2645000-7f77c2646000 rw-s 00000000 00:01 32793                      /SYSV00a8a4e7 (deleted)\n"
	"Size:                  4 kB\n"
	"KernelPageSize:        4 kB\n"
	"Rss:                   4 kB\n";

/* huge_pages=on: the segment is hugetlb. A larger private mapping is not it. */
static const char smaps_hugetlb[] =
	"7f0000000000-7f0010000000 rw-p 00000000 00:00 0 \n"
	"Size:             262144 kB\n"
	"KernelPageSize:        4 kB\n"
	"7f7700000000-7f7708c00000 rw-s 00000000 00:0f 4096                       /anon_hugepage (deleted)\n"
	"Size:             143360 kB\n"
	"KernelPageSize:     2048 kB\n"
	"Rss:                   0 kB\n"
	"Shared_Hugetlb:    12288 kB\n"
	"Private_Hugetlb:    2048 kB\n";

static int feed(const struct smaps_vma *v, void *ctx)
{
	pg_shm_feed(ctx, v);
	return 0;
}

static void test_shm_largest_shared_segment(UNIT_STATE)
{
	struct pg_shm s = {0};
	assert_int_equal(smaps_parse(smaps_shmem, strlen(smaps_shmem), feed, &s, NULL), 0);
	assert_true(s.found);
	assert_string_equal(s.name, "/dev/zero (deleted)");
	assert_int_equal(s.size_kb, 146016);
	assert_int_equal(s.kps_kb, 4);
	assert_int_equal(s.rss_kb, 10796);
	assert_true(s.has_pmd);
	assert_int_equal(s.pmd_kb, 2048);
	assert_int_equal(s.htlb_kb, 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(smaps_parse(smaps_hugetlb, strlen(smaps_hugetlb), feed, &s, NULL), 0);
	assert_true(s.found);
	assert_string_equal(s.name, "/anon_hugepage (deleted)");
	assert_int_equal(s.kps_kb, 2048);
	assert_int_equal(s.htlb_kb, 14336);
	assert_false(s.has_pmd); /* not printed: unknown */
}

static void test_shm_none_in_private_mappings(UNIT_STATE)
{
	/* a private mapping of /dev/zero, and a shared file, are not the segment */
	static const char t[] =
		"7f77b5ba6000-7f77bea3e000 rw-p 00000000 00:01 1218                       /dev/zero (deleted)\n"
		"Size:             146016 kB\n"
		"KernelPageSize:        4 kB\n"
		"7f77c2645000-7f77c2646000 rw-s 00000000 08:01 777                        /var/lib/x\n"
		"Size:                  4 kB\n"
		"KernelPageSize:        4 kB\n";
	struct pg_shm s = {0};
	assert_int_equal(smaps_parse(t, strlen(t), feed, &s, NULL), 0);
	assert_false(s.found);
}

static void test_band_call_needs_the_whole_interval(UNIT_STATE)
{
	struct ratio_ci ci = {.ok = true, .est = 1.0, .lo = 0.99, .hi = 1.01};
	assert_int_equal(pg_band_call(&ci, 0.98, 1.02), CLAIM_CONFIRMED);
	ci.lo = 0.97; /* crosses the lower edge */
	assert_int_equal(pg_band_call(&ci, 0.98, 1.02), CLAIM_INCONCLUSIVE);
	ci.lo = 1.03, ci.hi = 1.10; /* wholly above */
	assert_int_equal(pg_band_call(&ci, 0.98, 1.02), CLAIM_CONTRADICTED);
	ci.lo = 0.90, ci.hi = 0.95; /* wholly below */
	assert_int_equal(pg_band_call(&ci, 0.98, 1.02), CLAIM_CONTRADICTED);
	/* an open band: at least 0.98 */
	assert_int_equal(pg_band_call(&ci, 0.98, INFINITY), CLAIM_CONTRADICTED);
	ci.lo = 0.98, ci.hi = 1.5;
	assert_int_equal(pg_band_call(&ci, 0.98, INFINITY), CLAIM_CONFIRMED);
	ci.lo = 0.97;
	assert_int_equal(pg_band_call(&ci, 0.98, INFINITY), CLAIM_INCONCLUSIVE);
	ci.ok = false, ci.lo = 0.99, ci.hi = 1.01; /* no interval: never decided */
	assert_int_equal(pg_band_call(&ci, 0.98, 1.02), CLAIM_INCONCLUSIVE);
}

/* The backing verdict: a wrong backing read decides, even beside a mode that gave nothing;
 * a missing mode or segment alone is unknown, never "backed". */
static void test_backing_call(UNIT_STATE)
{
	(void)state;
	const bool all[3] = {true, true, true}, two[3] = {true, false, true},
		   wrong1[3] = {true, false, true};
	assert_int_equal(pg_backing_call(all, all, all, 3), PG_BACKED);
	assert_int_equal(pg_backing_call(all, all, wrong1, 3), PG_BACKED_WRONG);
	/* mode 1 gave no figures: unknown, not backed */
	assert_int_equal(pg_backing_call(two, all, all, 3), PG_BACKING_UNKNOWN);
	/* its segment not found: the same */
	assert_int_equal(pg_backing_call(all, two, all, 3), PG_BACKING_UNKNOWN);
	/* mode 1 missing, mode 2 read on the wrong pages: wrong decides */
	const bool wrong2[3] = {true, true, false};
	assert_int_equal(pg_backing_call(two, all, wrong2, 3), PG_BACKED_WRONG);
	/* a mode without figures is not judged by its (meaningless) backing */
	assert_int_equal(pg_backing_call(two, all, wrong1, 3), PG_BACKING_UNKNOWN);
	/* no mode at all */
	const bool none[3] = {false, false, false};
	assert_int_equal(pg_backing_call(none, none, none, 3), PG_BACKING_UNKNOWN);
}

/* One round, or rounds whose own ratios disagree, cannot carry a call. */
static void test_rounds_gate_needs_agreeing_rounds(UNIT_STATE)
{
	static const double base[2] = {1000, 1000};
	/* CALL over two rounds of base and MODE, N of them counted: WANT, saying WHY */
	static const struct {
		const char *name;
		enum claim_call call;
		double mode[2];
		int n;
		enum claim_call want;
		const char *why;
	} c[] = {
		{"the 0.85x \"contradicted\" of a single quick round is not a finding",
		 CLAIM_CONTRADICTED,
		 {850, 860},
		 1,
		 CLAIM_INCONCLUSIVE,
		 "one round"},
		{"two rounds, both below the band: it stands",
		 CLAIM_CONTRADICTED,
		 {850, 860},
		 2,
		 CLAIM_CONTRADICTED,
		 NULL},
		{"one round inside, one below: inconclusive, and it says which",
		 CLAIM_CONTRADICTED,
		 {850, 1000},
		 2,
		 CLAIM_INCONCLUSIVE,
		 "1 inside the band, 1 below"},
		{"confirmed with every round inside",
		 CLAIM_CONFIRMED,
		 {1010, 1000},
		 2,
		 CLAIM_CONFIRMED,
		 NULL},
		{"confirmed needs every round inside",
		 CLAIM_CONFIRMED,
		 {1100, 1000},
		 2,
		 CLAIM_INCONCLUSIVE,
		 NULL},
		{"an inconclusive call stays so",
		 CLAIM_INCONCLUSIVE,
		 {1100, 1000},
		 2,
		 CLAIM_INCONCLUSIVE,
		 NULL},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		char why[200] = "";
		unit_row_int(c[i].name, "pg_rounds_gate",
			     pg_rounds_gate(c[i].call, base, c[i].mode, c[i].n, 0.98, 1.02, why,
					    sizeof(why)),
			     c[i].want);
		if (c[i].why)
			assert_row(c[i].name, strstr(why, c[i].why));
	}
}

/* ROOT/VER/bin with the executables NAMES (space-separated). */
static void make_bin(const char *root, const char *ver, const char *names)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, ver);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/%s/bin", root, ver);
	assert_int_equal(mkdir(p, 0700), 0);
	char *dup = strdup(names), *save = NULL;
	for (char *n = strtok_r(dup, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
		snprintf(p, sizeof(p), "%s/%s/bin/%s", root, ver, n);
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fclose(f);
		assert_int_equal(chmod(p, 0700), 0);
	}
	free(dup);
}

static void test_find_highest_complete_version(UNIT_STATE)
{
	char root[] = "/tmp/thpctl-pgfind.XXXXXX";
	assert_non_null(mkdtemp(root));
	struct pg_cluster c = {0};
	assert_int_equal(pg_find(root, &c), -ENOENT); /* empty */
	make_bin(root, "13", "postgres initdb pgbench");
	make_bin(root, "16", "postgres initdb");	 /* no pgbench: not a candidate */
	make_bin(root, "9x", "postgres initdb pgbench"); /* not a version */
	make_bin(root, "15", "postgres initdb pgbench");
	assert_int_equal(pg_find(root, &c), 0);
	assert_string_equal(c.ver, "15");
	char want[128];
	snprintf(want, sizeof(want), "%s/15/bin", root);
	assert_string_equal(c.bin, want);
	assert_int_equal(pg_find("/nonexistent-thpctl", &c), -ENOENT);
	unit_rmrf(root);
}

UNIT_TESTS(test_pgbench_15_summary_and_progress, test_backing_call,
	   test_pgbench_13_takes_the_tps_excluding_connections,
	   test_pgbench_without_summary_is_an_error, test_pgbench_progress_keeps_the_first_64,
	   test_shm_largest_shared_segment, test_shm_none_in_private_mappings,
	   test_band_call_needs_the_whole_interval, test_rounds_gate_needs_agreeing_rounds,
	   test_find_highest_complete_version)
