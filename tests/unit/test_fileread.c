// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/fileread.c (the page chain, the band rule, the undo's path check and action). */
#include "unit.h"

#include <math.h>

#include "kernel/features.h"
#include "lab/fileread.h"
#include "lab/fileread_int.h"
#include "lab/lab.h"

static void test_chain_is_one_cycle_through_every_page(UNIT_STATE)
{
	enum { N = 4096 };
	static uint32_t next[N];
	static bool seen[N];
	fr_chain(next, N);
	size_t p = 0, steps = 0;
	do {
		assert_true(next[p] < N);
		assert_false(seen[p]);
		seen[p] = true;
		p = next[p];
		steps++;
	} while (p != 0 && steps <= N);
	assert_int_equal(steps, N); /* back at 0 after exactly N pages: one cycle */
	/* seeded: the same chain twice, and not the identity or a plain stride */
	static uint32_t again[N];
	fr_chain(again, N);
	assert_memory_equal(next, again, sizeof(next));
	assert_true(next[0] != 1 || next[1] != 2);
	/* one page: its own successor */
	uint32_t one[1];
	fr_chain(one, 1);
	assert_int_equal(one[0], 0);
}

static void test_slot_is_an_aligned_word_inside_its_page(UNIT_STATE)
{
	size_t lines[64] = {0};
	for (size_t i = 0; i < 100000; i++) {
		size_t s = fr_slot(i, 4096);
		assert_true(s + 8 <= 4096);
		assert_int_equal(s % 8, 0);
		lines[s / 64]++;
	}
	/* spread over the cache lines of a page, not all in one set */
	for (int l = 0; l < 64; l++)
		assert_true(lines[l] > 100000 / 64 / 2);
}

static void test_band_call_inside_outside_across(UNIT_STATE)
{
	/* claim 1.19, +-0.10: band 1.09..1.29 */
	assert_int_equal(fr_band_call(1.12, 1.25, 1.19, 0.10), CLAIM_CONFIRMED);
	assert_int_equal(fr_band_call(1.09, 1.29, 1.19, 0.10), CLAIM_CONFIRMED);
	assert_int_equal(fr_band_call(1.31, 1.50, 1.19, 0.10), CLAIM_CONTRADICTED);
	assert_int_equal(fr_band_call(0.90, 1.05, 1.19, 0.10), CLAIM_CONTRADICTED);
	assert_int_equal(fr_band_call(1.26, 1.55, 1.19, 0.10), CLAIM_INCONCLUSIVE);
	assert_int_equal(fr_band_call(1.00, 1.20, 1.19, 0.10), CLAIM_INCONCLUSIVE);
	/* an interval wider than the band on both sides decides nothing */
	assert_int_equal(fr_band_call(0.50, 3.00, 1.19, 0.10), CLAIM_INCONCLUSIVE);
	/* no interval */
	assert_int_equal(fr_band_call(2.0, 1.0, 1.19, 0.10), CLAIM_INCONCLUSIVE);
	assert_int_equal(fr_band_call(NAN, 1.2, 1.19, 0.10), CLAIM_INCONCLUSIVE);
	/* percentage points: -99.8% against -63% +-10 */
	assert_int_equal(fr_band_call(99.8, 99.8, 63, 10), CLAIM_CONTRADICTED);
	assert_int_equal(fr_band_call(60, 70, 63, 10), CLAIM_CONFIRMED);
}

static void test_undo_path_shape(UNIT_STATE)
{
	assert_true(fr_dir_path_ok("/tmp/thpctl-fileread.AbC123"));
	assert_true(fr_dir_path_ok("/var/tmp/x_y/thpctl-fileread.z"));
	assert_false(fr_dir_path_ok("tmp/thpctl-fileread.AbC123"));	/* relative */
	assert_false(fr_dir_path_ok("/tmp/thpctl-fileread."));		/* no suffix */
	assert_false(fr_dir_path_ok("/tmp/thpctl-redis.AbC123"));	/* another lab's */
	assert_false(fr_dir_path_ok("/tmp/../etc/thpctl-fileread.x"));	/* .. */
	assert_false(fr_dir_path_ok("/tmp/./thpctl-fileread.x"));	/* . */
	assert_false(fr_dir_path_ok("/tmp//thpctl-fileread.x"));	/* empty component */
	assert_false(fr_dir_path_ok("/tmp/thpctl-fileread.x/"));	/* trailing slash */
	assert_false(fr_dir_path_ok("/tmp/thpctl-fileread.x y"));	/* space */
	assert_false(fr_dir_path_ok("/tmp/thpctl-fileread.x\nundo a")); /* newline */
	assert_false(fr_dir_path_ok("/"));
	char longp[200];
	memset(longp, 'a', sizeof(longp));
	memcpy(longp, "/thpctl-fileread.", 17);
	longp[sizeof(longp) - 1] = '\0';
	assert_false(fr_dir_path_ok(longp));
}

static void test_undo_removes_the_directory_and_nothing_else(UNIT_STATE)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char base[128], dir[160], p[200];
	snprintf(base, sizeof(base), "%s/fr-unit.XXXXXX", tmp);
	assert_non_null(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/thpctl-fileread.t1", base);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(p, sizeof(p), "%s/data", dir);
	int fd = open(p, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/mnt-never", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	/* a file it does not own: the directory stays, and so does the file */
	snprintf(p, sizeof(p), "%s/keep", dir);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fr_dir_undo(dir), -ENOTEMPTY);
	assert_int_equal(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/mnt-never", dir);
	assert_int_equal(access(p, F_OK), -1); /* the mount point went */
	snprintf(p, sizeof(p), "%s/keep", dir);
	unlink(p);
	assert_int_equal(fr_dir_undo(dir), 0);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(fr_dir_undo(dir), 0);	      /* gone already: done */
	assert_int_equal(fr_dir_undo(base), -EINVAL); /* not a fileread directory */
	assert_int_equal(access(base, F_OK), 0);
	rmdir(base);
}

/*
 * One round (--runs 1): 8 passes of each mode give a 95% interval, but passes that ran back
 * to back are not two rounds that agree. Before, "THP always 1.19x" was confirmed from them.
 */
static void test_speed_claim_needs_two_rounds(UNIT_STATE)
{
	static struct fr_run f;
	static struct lab_result r;
	static struct features feat;
	struct lab_ctx ctx = {.feat = &feat};
	f.size = 64ull << 20;
	f.passes = 8;
	for (int run = 0; run < 2; run++) {
		memset(&r, 0, sizeof(r));
		for (int m = M_ANON_4K; m <= M_ANON_ALWAYS; m++) {
			f.n[m] = run + 1;
			for (int i = 0; i < f.n[m]; i++)
				f.v[m][fr_modes[m].proof][i] = m == M_ANON_4K ? 0 : 65536;
			for (int i = 0; i < f.n[m] * f.passes; i++)
				f.ns[m][i] = (m == M_ANON_4K ? 119.0 : 100.0) + (i % 4) * 0.1;
		}
		fr_report(&ctx, &f, &r);
		const struct lab_claim *c = NULL;
		for (int i = 0; i < r.nclaims; i++)
			if (strstr(r.claims[i].claim, "THP always 1.19x"))
				c = &r.claims[i];
		assert_non_null(c);
		print_message("%d round(s): %s\n", run + 1, c->why);
		if (run == 0) {
			assert_int_equal(c->call, CLAIM_INCONCLUSIVE);
			assert_non_null(strstr(c->why, "one round"));
		} else {
			assert_int_equal(c->call, CLAIM_CONFIRMED);
		}
	}
}

UNIT_TESTS(test_speed_claim_needs_two_rounds, test_chain_is_one_cycle_through_every_page,
	   test_slot_is_an_aligned_word_inside_its_page, test_band_call_inside_outside_across,
	   test_undo_path_shape, test_undo_removes_the_directory_and_nothing_else)
