// SPDX-License-Identifier: MIT
/*
 * Unit tests: which allocator is blamed for a THP cost, and which of its knobs is offered
 * (model/remedy.c), by what each allocator's configuration makes it madvise; verified on a
 * host with jemalloc 5.3.0, mimalloc 2.0.9 and gperftools tcmalloc 2.10 (docs/diagnosis.md).
 */
#include "unit.h"

#include "model/remedy.h"
#include "render/remedy.h"

static struct remedy_proc P;
static struct remedy R;
static char buf[1024];

/* 64 MiB of huge pages almost all invented, in MADV_HUGEPAGE VMAs when HG, allocator K V. */
static void sparse(enum alloc_kind k, const char *version, bool hg)
{
	memset(&P, 0, sizeof(P));
	P.pid = 4100;
	snprintf(P.comm, sizeof(P.comm), "sparse");
	P.thp_enabled = 1;
	struct ledger_raw raw = {0};
	ledger_build(65536, &raw, 0, 8, true, 511, 4, 9, &P.led);
	P.led.held_kb = P.led.creep_kb = P.led.lazyfree_kb = P.led.pte_full_kb = 0;
	P.led.invented_kb = 65280;
	P.led.method = LM_SAMPLED;
	P.led.rss_kb = 66000;
	P.hg_huge_kb = hg ? 65536 : 0;
	P.huge_not_hg_kb = hg ? 0 : 65536;
	P.hg_vmas = hg;
	P.alloc_known = true;
	P.alloc.kind = k;
	P.alloc.evidence = AE_MAPPED_LIB;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "%s", version);
}

static void env(const char *text, size_t len)
{
	P.env_known = true;
	P.nenv = why_hints_parse(text, len, false, P.env, WHY_MAX_HINTS);
}

static bool has_fix(enum remedy_fix_id id)
{
	for (int i = 0; i < R.nfix; i++)
		if (R.fix[i].id == id)
			return true;
	return false;
}

static const char *part_text(void)
{
	return remedy_part_words(&R, buf, sizeof(buf));
}

/*
 * The trial: a program's own mmap + MADV_HUGEPAGE under a preloaded jemalloc, mimalloc or
 * tcmalloc whose environment opts it in to nothing: the program's, never MALLOC_CONF=thp:never
 * or MIMALLOC_ALLOW_THP=0 (restarted with them, the same hg VMAs stayed).
 */
static void test_hg_cost_without_opt_in_is_the_program(UNIT_STATE)
{
	struct remedy_host h = {.max_ptes_none = 511};
	static const struct {
		enum alloc_kind k;
		const char *v, *words;
	} a[] = {{AK_JEMALLOC, "5.3.0-0-g54eaed1d", "jemalloc 5.3's environment asks for no THP"},
		 {AK_MIMALLOC, "2.0", "mimalloc 2.0's environment asks for no large OS pages"},
		 {AK_TCMALLOC, "2.10", "has no setting that advises its heap"}};
	for (size_t i = 0; i < UNIT_LEN(a); i++) {
		sparse(a[i].k, a[i].v, true);
		env("MALLOC_CONF=thp:default\0MIMALLOC_VERBOSE=1\0", 42);
		assert_true(remedy_build(&P, &h, &R));
		assert_int_equal(R.part, RP_PROGRAM);
		assert_int_equal(R.evidence, RE_HG_VMAS);
		assert_int_equal(R.fix[0].id, RF_PROGRAM_ADVICE);
		assert_false(has_fix(RF_MALLOC_CONF_THP_NEVER));
		assert_false(has_fix(RF_MIMALLOC_THP_0));
		assert_false(has_fix(RF_MIMALLOC_LARGE_0));
		assert_contains(part_text(), a[i].words);
		if (a[i].k == AK_TCMALLOC)
			assert_null(strstr(part_text(), "compiled-in"));
		else
			assert_contains(part_text(),
					"the program itself, or a compiled-in allocator "
					"setting");
	}
}

/* jemalloc madvises with thp:always or metadata_thp (auto, always): then it is jemalloc's. */
static void test_jemalloc_opt_in(UNIT_STATE)
{
	struct remedy_host h = {.max_ptes_none = 511};
	sparse(AK_JEMALLOC, "5.3.0", true);
	env("MALLOC_CONF=thp:always\0", 23);
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_JEMALLOC);
	assert_int_equal(R.fix[0].id, RF_MALLOC_CONF_THP_NEVER);
	assert_string_equal(R.hint->value, "thp:always");
	env("MALLOC_CONF=metadata_thp:auto\0", 30);
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_JEMALLOC);
	env("MALLOC_CONF=metadata_thp:disabled\0", 34);
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_PROGRAM);
	/* THP outside hg under enabled=always: thp:never marks its arenas nh, unless set */
	sparse(AK_JEMALLOC, "5.3.0", false);
	h.always = true;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_JEMALLOC);
	assert_int_equal(R.fix[0].id, RF_MALLOC_CONF_THP_NEVER);
	env("MALLOC_CONF=thp:never\0", 22);
	assert_true(remedy_build(&P, &h, &R));
	assert_false(has_fix(RF_MALLOC_CONF_THP_NEVER));
}

/*
 * mimalloc madvises with large OS pages: MIMALLOC_LARGE_OS_PAGES=1 in every version,
 * MIMALLOC_ALLOW_LARGE_OS_PAGES=1 only from 1.8.2 and 2.1.2 (2.0.9 ignores it).
 */
static void test_mimalloc_large_os_pages(UNIT_STATE)
{
	struct remedy_host h = {.max_ptes_none = 511};
	sparse(AK_MIMALLOC, "2.0", true);
	env("MIMALLOC_LARGE_OS_PAGES=1\0", 26);
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_MIMALLOC);
	assert_int_equal(R.fix[0].id, RF_MIMALLOC_LARGE_0);
	assert_string_equal(remedy_fix_command(&R, 0, buf, sizeof(buf)),
			    "MIMALLOC_LARGE_OS_PAGES=0");
	assert_false(has_fix(RF_MIMALLOC_THP_0));
	env("MIMALLOC_ALLOW_LARGE_OS_PAGES=1\0", 32);
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_PROGRAM);
	snprintf(P.alloc.version, sizeof(P.alloc.version), "2.1.7");
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_MIMALLOC);
	assert_string_equal(remedy_fix_command(&R, 0, buf, sizeof(buf)),
			    "MIMALLOC_ALLOW_LARGE_OS_PAGES=0");
	/* 2.2.6+ with allow_thp=0: it gives no advice, large pages or not */
	snprintf(P.alloc.version, sizeof(P.alloc.version), "2.2.6");
	env("MIMALLOC_ALLOW_LARGE_OS_PAGES=1\0MIMALLOC_ALLOW_THP=0\0", 53);
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_PROGRAM);
}

/* MIMALLOC_ALLOW_THP=0 turns the process's THP off only in 1.9.9, 2.3.1, 3.3.1 and later. */
static void test_mimalloc_allow_thp_by_version(UNIT_STATE)
{
	struct remedy_host h = {.always = true, .max_ptes_none = 511};
	static const struct {
		const char *v;
		bool offered;
	} a[] = {{"2.0", false},   {"", false},	     {"2.2.6", false}, {"2.3", false},
		 {"2.3.0", false}, {"2.3.1", true},  {"2.4", true},    {"1.9.8", false},
		 {"1.9.9", true},  {"3.3.0", false}, {"3.3.1", true},  {"4.0", true}};
	for (size_t i = 0; i < UNIT_LEN(a); i++) {
		sparse(AK_MIMALLOC, a[i].v, false);
		assert_true(remedy_build(&P, &h, &R));
		assert_int_equal(R.part, RP_MIMALLOC);
		assert_row(a[i].v, has_fix(RF_MIMALLOC_THP_0) == a[i].offered);
	}
}

/* The environment names mimalloc's large OS pages and jemalloc's muzzy delay as hints. */
static void test_hints(UNIT_STATE)
{
	struct why_hint hs[WHY_MAX_HINTS];
	static const char e[] = "MIMALLOC_ALLOW_LARGE_OS_PAGES=1\0MIMALLOC_LARGE_OS_PAGES=OFF\0"
				"MIMALLOC_ALLOW_THP=FALSE\0MALLOC_CONF=muzzy_decay_ms:5000\0";
	assert_int_equal(why_hints_parse(e, sizeof(e) - 1, false, hs, WHY_MAX_HINTS), 4);
	assert_int_equal(hs[0].meaning, HI_MIMALLOC_LARGE_ON);
	assert_int_equal(hs[0].effect, WE_HELPS);
	assert_string_equal(hs[0].var, "MIMALLOC_ALLOW_LARGE_OS_PAGES");
	assert_int_equal(hs[1].meaning, HI_MIMALLOC_LARGE_OFF);
	assert_int_equal(hs[2].meaning, HI_MIMALLOC_OFF);
	assert_int_equal(hs[3].meaning, HI_JE_MUZZY);
	assert_string_equal(hs[3].value, "muzzy_decay_ms:5000");
}

/* A gain: mimalloc's opt-in is MIMALLOC_LARGE_OS_PAGES=1; tcmalloc has none (the program). */
static void test_gain_opt_in(UNIT_STATE)
{
	struct remedy_host h = {.max_ptes_none = 511};
	sparse(AK_MIMALLOC, "2.0", false);
	P.led.invented_kb = 0;
	P.huge_not_hg_kb = 0;
	P.led.pte_full_kb = 131072;
	P.referenced_hot = true;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_WOULD_GAIN);
	assert_int_equal(R.fix[1].id, RF_OPT_IN);
	assert_contains(remedy_fix_words(&R, 1, buf, sizeof(buf)), "MIMALLOC_LARGE_OS_PAGES=1");
	P.alloc.kind = AK_TCMALLOC;
	assert_true(remedy_build(&P, &h, &R));
	assert_false(has_fix(RF_OPT_IN));
	assert_int_equal(R.fix[1].id, RF_PROGRAM_OPT_IN);
	assert_contains(remedy_fix_words(&R, 1, buf, sizeof(buf)),
			"tcmalloc has no setting that advises its heap");
}

/* jemalloc 5.2+ gives no MADV_FREE by default: muzzy_decay_ms:0 only where it is set. */
static void test_jemalloc_muzzy(UNIT_STATE)
{
	struct remedy_host h = {.max_ptes_none = 511};
	sparse(AK_JEMALLOC, "5.3.0-0-g54eaed1d", false);
	P.led.invented_kb = 0;
	P.huge_not_hg_kb = 0;
	P.led.lazyfree_kb = 262144;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_LAZY_FREE);
	assert_int_equal(R.part, RP_JEMALLOC);
	assert_false(has_fix(RF_JE_MUZZY));
	env("MALLOC_CONF=dirty_decay_ms:1000,muzzy_decay_ms:60000\0", 53);
	assert_true(remedy_build(&P, &h, &R));
	assert_true(has_fix(RF_JE_MUZZY));
	env("MALLOC_CONF=muzzy_decay_ms:0\0", 29);
	assert_true(remedy_build(&P, &h, &R));
	assert_false(has_fix(RF_JE_MUZZY));
	P.nenv = 0;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "5.1.0");
	assert_true(remedy_build(&P, &h, &R));
	assert_true(has_fix(RF_JE_MUZZY));
}

UNIT_TESTS(test_hg_cost_without_opt_in_is_the_program, test_jemalloc_opt_in,
	   test_mimalloc_large_os_pages, test_mimalloc_allow_thp_by_version, test_hints,
	   test_gain_opt_in, test_jemalloc_muzzy)
