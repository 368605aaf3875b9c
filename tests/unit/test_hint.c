// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/render/hint.h, the one wording of a process's denied files, as the
 * renderers that print it say it (ps, the ledger, the allocator line; why and advise in
 * their own tests). The words are written out here, not taken from the header: a renderer
 * that words it its own way, or a header that changes them, fails.
 */
#include "unit.h"

#include "render/alloc.h"
#include "render/hint.h"
#include "render/ledger.h"
#include "render/ps.h"

#define OWNER "run as root or as the process's owner"
#define ROOT "denied even to root: another namespace or a security module"

static void test_hint_words(UNIT_STATE)
{
	assert_string_equal(hint_proc_denied(false), OWNER);
	assert_string_equal(hint_proc_denied(true), ROOT);
	assert_string_equal(HINT_PROC_DENIED_CAP,
			    "run as root, as the process's owner or with CAP_SYS_PTRACE");
}

static void test_ps_counts_the_denied_in_the_one_wording(UNIT_STATE)
{
	struct ps_report r = {.denied = 3};
	struct unit_mem m;
	ps_partial_text(unit_mem_open(&m), &r, false);
	char *t = unit_mem_text(&m);
	assert_string_equal(t, "3 not readable: " OWNER " (partial)\n");
	free(t);
	r.as_root = true;
	ps_partial_text(unit_mem_open(&m), &r, false);
	t = unit_mem_text(&m);
	assert_string_equal(t, "3 not readable: " ROOT " (partial)\n");
	free(t);
}

static void test_ledger_denied_mem_in_the_one_wording(UNIT_STATE)
{
	struct ledger_raw raw = {.thps = 10, .mem_err = -EACCES, .held_err = -EPERM};
	struct thp_ledger l;
	ledger_build(20480, &raw, 0, 8, true, 511, 4, 9, &l);
	struct unit_mem m;
	ledger_render_lines(unit_mem_open(&m), &l, false);
	char *t = unit_mem_text(&m);
	assert_contains(t, "invented     -  (not readable: /proc/PID/mem and pagemap (" OWNER "))");
	free(t);
}

static void test_alloc_unreadable_maps_in_the_one_wording(UNIT_STATE)
{
	struct alloc_fact a;
	memset(&a, 0, sizeof(a));
	a.kind = AK_UNKNOWN;
	a.at_secure = -1;
	a.why_unknown = AU_MAPS_UNREADABLE;
	struct unit_mem m;
	alloc_render_why(unit_mem_open(&m), &a, 42);
	char *t = unit_mem_text(&m);
	assert_contains(t, "unknown: its maps cannot be read (" OWNER ")");
	free(t);
	/* root on the live host (cmd_setup): never told to run as root */
	hint_set_as_root(true);
	assert_string_equal(hint_denied(), ROOT);
	alloc_render_why(unit_mem_open(&m), &a, 42);
	t = unit_mem_text(&m);
	assert_contains(t, "unknown: its maps cannot be read (" ROOT ")");
	free(t);
	hint_set_as_root(false);
	assert_string_equal(hint_denied(), OWNER);
}

UNIT_TESTS(test_hint_words, test_ps_counts_the_denied_in_the_one_wording,
	   test_ledger_denied_mem_in_the_one_wording, test_alloc_unreadable_maps_in_the_one_wording)
