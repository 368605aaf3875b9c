// SPDX-License-Identifier: MIT
/* Unit tests: what to change for a flagged process (model/remedy.c) and its words (render/remedy.c). */
#include "unit.h"

#include "model/remedy.h"
#include "render/remedy.h"

static struct remedy_proc P;
static struct remedy R;
static char tb[4][1024];
static int tn;
#define TB (tb[tn++ % 4])

/* A process with a ledger: HUGE kB PMD-mapped, RSS kB, one cost set by the caller. */
static void proc(long pid, const char *comm, int64_t huge, int64_t rss)
{
	memset(&P, 0, sizeof(P));
	P.pid = pid;
	snprintf(P.comm, sizeof(P.comm), "%s", comm);
	P.thp_enabled = 1;
	struct ledger_raw raw = {0};
	ledger_build(huge, &raw, 0, 8, true, 511, 4, 9, &P.led);
	P.led.invented_kb = P.led.held_kb = P.led.creep_kb = 0;
	P.led.rss_kb = rss;
	P.led.lazyfree_kb = 0;
	P.led.referenced_kb = rss / 10;
	P.led.pte_full_kb = 0;
}

/* P's restart command line: ARGV's words separated by '|', exact. */
static void restart(const char *argv)
{
	P.restart.len = unit_split(P.restart.argv, sizeof(P.restart.argv), argv, '|') + 1;
	P.restart.state = RUN_ARGS_INTACT;
}

/* Fail if R offers the fix ID. */
static void no_fix(enum remedy_fix_id id)
{
	for (int i = 0; i < R.nfix; i++)
		if (R.fix[i].id == id)
			fail_msg("fix %d offered (at %d of %d)", (int)id, i, R.nfix);
}

static const char *fix_text(int i)
{
	return remedy_fix_words(&R, i, TB, sizeof(tb[0]));
}

static const char *fix_cmd(int i)
{
	return remedy_fix_command(&R, i, TB, sizeof(tb[0]));
}

/* 200 thread stacks from plain mmap under enabled=always: ~398 MiB invented (issue 22, 4). */
static void test_thread_stacks_under_always(UNIT_STATE)
{
	proc(4242, "stacky", 409600, 410000);
	P.led.invented_kb = 407552;
	P.led.method = LM_SAMPLED;
	P.led.thps = 200;
	P.led.samples = 1600;
	P.led.zero_samples = 1592;
	P.stacks_known = true;
	P.threads = 201;
	P.stack_threads = 200;
	P.stack_huge_kb = 409600;
	P.huge_not_hg_kb = 409600;
	restart("/usr/local/bin/stacky|--port|1");
	struct remedy_other others[3] = {{.pid = 4242, .huge_not_hg_kb = 409600},
					 {.pid = 77, .comm = "java", .huge_not_hg_kb = 65536},
					 {.pid = 78, .comm = "idle", .huge_not_hg_kb = 0}};
	struct remedy_host h = {.always = true,
				.max_ptes_none = 511,
				.systemd_thp = 0,
				.nothers = 3,
				.others = others,
				.fault_alloc = {900, true},
				.collapse_alloc = {0, true}};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_SPARSE_FAULT); /* no collapse since boot */
	assert_int_equal(R.part, RP_THREAD_STACKS);
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])),
			"thread stacks without MAP_STACK: 200 of its 201 threads");
	/* ranked: the program's own fix first (narrowest), then the service, the host last */
	assert_int_equal(R.fix[0].id, RF_MAP_STACK);
	assert_int_equal(R.fix[0].saves_kb, 407552);
	assert_int_equal(R.fix[1].id, RF_RUN_OFF);
	assert_string_equal(fix_cmd(1), "thpctl run --thp=off -- /usr/local/bin/stacky --port 1");
	assert_int_equal(R.fix[2].id, RF_PRCTL);
	assert_int_equal(R.fix[3].id, RF_HOST_MADVISE);
	assert_int_equal(R.fix[3].others, 1); /* java; not itself, not idle */
	assert_int_equal(R.fix[3].other_pid[0], 77);
	assert_contains(fix_text(3), "1 other process holds huge pages outside such regions and "
				     "would get no new ones there");
	/* enabled splits nothing: the saving comes when it restarts, and says so */
	assert_contains(fix_text(3), "host, from its next start: only MADV_HUGEPAGE regions get "
				     "huge pages at fault; the setting splits none, so the huge "
				     "pages it holds now stay until it restarts");
	assert_contains(remedy_fix_saves(&R, 0, TB, sizeof(tb[0])), "saves ~398.0 MiB");
	assert_contains(
		remedy_mech_words(&R, TB, sizeof(tb[0])),
		"sparse at fault: huge pages faulted in whole, ~398.0 MiB of their "
		"400.0 MiB never written (invented: 1592 of 1600 subpages read, 8 per "
		"huge page, were all-zero); the host counted no collapse since boot (vmstat "
		"thp_fault_alloc 900, thp_collapse_alloc 0; its memory cgroup's counters not "
		"read)");
	/* no systemd that knows MemoryTHP=: no such fix */
	no_fix(RF_SYSTEMD);
}

/* A restart command tied to its working directory: "cd DIR && " when DIR is known, a note when not. */
static void test_restart_from_its_working_directory(UNIT_STATE)
{
	test_thread_stacks_under_always(NULL);
	P.restart.cwd = (struct run_cwd){.needed = true, .dir = "/home/ana/my exp"};
	snprintf(P.restart.cwd.arg, sizeof(P.restart.cwd.arg), "out/run1");
	assert_true(
		remedy_build(&P, &(struct remedy_host){.always = true, .max_ptes_none = 511}, &R));
	int i = 0;
	while (i < R.nfix && R.fix[i].id != RF_RUN_OFF)
		i++;
	assert_true(i < R.nfix);
	assert_string_equal(fix_cmd(i), "cd '/home/ana/my exp' && thpctl run --thp=off -- "
					"/usr/local/bin/stacky --port 1");
	assert_null(strstr(fix_text(i), "working directory"));
	/* the directory could not be read: the command as it is, and the note */
	P.restart.cwd.dir[0] = '\0';
	P.restart.cwd.err = -EACCES;
	assert_string_equal(fix_cmd(i), "thpctl run --thp=off -- /usr/local/bin/stacky --port 1");
	assert_contains(
		fix_text(i),
		"; its argument out/run1 is a path relative to its working directory, which "
		"could not be read (Permission denied: run as root or as the process's owner): "
		"run the command from there");
	/* removed since it started: named, and no cd into it */
	snprintf(P.restart.cwd.dir, sizeof(P.restart.cwd.dir), "/tmp/gone");
	P.restart.cwd.err = -ESTALE;
	assert_string_equal(fix_cmd(i), "thpctl run --thp=off -- /usr/local/bin/stacky --port 1");
	assert_contains(fix_text(i), "its working directory, /tmp/gone, which was removed since");
	/* not needed (every relative argument made absolute): neither */
	P.restart.cwd = (struct run_cwd){.dir = "/srv"};
	assert_string_equal(fix_cmd(i), "thpctl run --thp=off -- /usr/local/bin/stacky --port 1");
	assert_null(strstr(fix_text(i), "working directory"));
}

/* The restart command is the process's argv exactly: a script with newlines, a quote, a tab
 * and an ESC comes back byte for byte from bash (each word quoted: util/esc.h), and JSON has
 * the argv itself; a command line not read whole gives no command but a sentence. */
static void test_restart_command_is_exact(UNIT_STATE)
{
	test_thread_stacks_under_always(NULL);
	restart("/usr/bin/python3|-c|import os\nprint('hi')\tx\x1b[2J|");
	assert_true(
		remedy_build(&P, &(struct remedy_host){.always = true, .max_ptes_none = 511}, &R));
	assert_int_equal(R.fix[1].id, RF_RUN_OFF);
	assert_string_equal(fix_cmd(1), "thpctl run --thp=off -- /usr/bin/python3 -c "
					"$'import os\\nprint(\\'hi\\')\\tx\\e[2J' ''");
	json_t *j = remedy_to_json(&R);
	json_t *a = json_object_get(json_array_get(json_object_get(j, "fixes"), 1), "run_argv");
	assert_int_equal(json_array_size(a), 4);
	assert_string_equal(json_string_value(json_array_get(a, 2)),
			    "import os\nprint('hi')\tx\x1b[2J");
	assert_string_equal(json_string_value(json_array_get(a, 3)), "");
	assert_true(json_is_null(
		json_object_get(json_array_get(json_object_get(j, "fixes"), 0), "run_argv")));
	json_decref(j);
	/* not read whole, or longer than thpctl keeps: no command, and the words say why */
	P.restart.state = RUN_ARGS_UNKNOWN;
	assert_string_equal(fix_cmd(1), "");
	assert_contains(fix_text(1), "; its command line could not be read whole (its cmdline or "
				     "its exe link), so no command is printed (one made up would "
				     "run something else): run it under thpctl run --thp=off "
				     "yourself");
	P.restart.state = RUN_ARGS_TOO_LONG;
	P.restart.len = 70000;
	assert_string_equal(fix_cmd(1), "");
	assert_contains(fix_text(1), "its command line, 70000 bytes, is longer than the 4096 "
				     "bytes thpctl keeps, so no command is printed");
	j = remedy_to_json(&R);
	assert_true(json_is_null(
		json_object_get(json_array_get(json_object_get(j, "fixes"), 1), "command")));
	json_decref(j);
}

/* Creep in a Go heap at max_ptes_none=511: Go's own setting first, the host knob with who else. */
static void test_go_creep(UNIT_STATE)
{
	proc(500, "server", 0, 65536);
	P.led.creep_kb = 245760;
	P.led.creep_ranges = 128;
	P.go = true;
	snprintf(P.gover, sizeof(P.gover), "go1.22.4");
	snprintf(P.unit, sizeof(P.unit), "server.service");
	struct remedy_other others[2] = {{.pid = 501, .comm = "other", .creep_kb = 1024},
					 {.pid = 502, .comm = "none", .creep_kb = -1}};
	struct remedy_host h = {
		.max_ptes_none = 511, .systemd_thp = 1, .nothers = 2, .others = others};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_CREEP);
	assert_int_equal(R.part, RP_GO);
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])), "go1.22.4");
	assert_int_equal(R.fix[0].id, RF_GODEBUG_DISABLETHP);
	assert_true(R.fix[0].upper_bound);
	assert_contains(remedy_fix_saves(&R, 0, TB, sizeof(tb[0])), "saves up to 240.0 MiB");
	bool systemd = false, host = false;
	for (int i = 0; i < R.nfix; i++) {
		systemd |= R.fix[i].id == RF_SYSTEMD;
		if (R.fix[i].id == RF_HOST_MPN) {
			host = true;
			assert_int_equal(R.fix[i].others, 1);
			assert_int_equal(R.fix[i].others_kb, 1024);
			assert_string_equal(fix_cmd(i), "thpctl set khugepaged/max_ptes_none=0");
		}
	}
	assert_true(systemd && host);
	/* why: the others not scanned -> said so, not "no other" */
	h.others = NULL;
	assert_true(remedy_build(&P, &h, &R));
	for (int i = 0; i < R.nfix; i++)
		if (R.fix[i].id == RF_HOST_MPN)
			assert_contains(fix_text(i), "not scanned here");
}

/* Lazy free is not a THP cost: jemalloc's purge setting and memory.reclaim, no THP opt-out. */
static void test_lazy_free(UNIT_STATE)
{
	proc(600, "cache", 0, 525312);
	P.led.lazyfree_kb = 523264;
	P.env_known = true;
	P.nenv = why_hints_parse("MALLOC_CONF=thp:default\0", 24, false, P.env, WHY_MAX_HINTS);
	P.cg_version = 2;
	snprintf(P.cg_path, sizeof(P.cg_path), "/system.slice/cache.service");
	struct remedy_host h = {.max_ptes_none = 511};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_LAZY_FREE);
	assert_int_equal(R.part, RP_JEMALLOC);
	assert_int_equal(R.nfix, 2);
	assert_int_equal(R.fix[0].id, RF_JE_MUZZY);
	assert_int_equal(R.fix[1].id, RF_CG_RECLAIM);
	assert_contains(fix_cmd(1), "/sys/fs/cgroup/system.slice/cache.service/memory.reclaim");
	no_fix(RF_RUN_OFF);
}

/* Held by deferred split, allocator unknown: "unknown", never a guess. */
static void test_held_unknown_part(UNIT_STATE)
{
	proc(700, "app", 16384, 16700);
	P.led.held_kb = 114464;
	P.led.partial_folios = 56;
	P.stacks_known = true;
	struct remedy_host h = {.max_ptes_none = 511};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_DEFERRED_SPLIT);
	assert_int_equal(R.part, RP_UNKNOWN);
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])), "unknown");
	assert_int_equal(R.fix[0].id, RF_RUN_OFF);
	assert_int_equal(R.fix[0].saves_kb, 114464);
	assert_contains(remedy_mech_words(&R, TB, sizeof(tb[0])), "56 large folios");
}

/* Nothing flagged: no remedy; hot, fully written, PTE-mapped: a collapse --dry-run. */
static void test_nothing_or_a_gain(UNIT_STATE)
{
	proc(800, "quiet", 0, 4096);
	struct remedy_host h = {.max_ptes_none = 511};
	assert_false(remedy_build(&P, &h, &R));
	proc(801, "hot", 0, 300000);
	P.led.pte_full_kb = 262144;
	P.led.pte_full_ranges = 128;
	P.led.referenced_kb = 290000;
	P.referenced_hot = true;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_WOULD_GAIN);
	assert_string_equal(fix_cmd(0), "thpctl collapse 801 --dry-run");
	/* Referenced is what it is (set since the bits were last cleared), never called "hot" */
	assert_string_equal(
		remedy_mech_words(&R, TB, sizeof(tb[0])),
		"would gain: 256.0 MiB in 128 PMD ranges fully written but mapped with "
		"small pages, and referenced (smaps Referenced 283.2 MiB of RSS 293.0 "
		"MiB: touched since the accessed bits were last cleared, not proof that "
		"it is hot now)");
	/* Redis asks for no THP (advise's Settings and Per process say so): it would gain, but
	 * is never told to opt in (it was: "2. no memory saved: opt it in: MALLOC_CONF=thp:always") */
	P.thp_unwanted = true;
	assert_false(remedy_would_gain(&P));
	assert_false(remedy_build(&P, &h, &R));
	P.thp_unwanted = false;
	/* not hot: no advice to collapse */
	P.referenced_hot = false;
	assert_false(remedy_build(&P, &h, &R));
}

/* hg regions in a glibc process (no hugetlb=1): the program's own advice, not glibc's. */
static void test_program_advice_not_glibc(UNIT_STATE)
{
	proc(902, "app", 262144, 263000);
	P.led.invented_kb = 261000;
	P.led.method = LM_SAMPLED;
	P.hg_huge_kb = 262144;
	P.alloc_known = true;
	P.alloc.kind = AK_GLIBC;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "2.36");
	struct remedy_host h = {.max_ptes_none = 511};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_PROGRAM);
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])), "the program itself");
	assert_int_equal(R.fix[0].id, RF_PROGRAM_ADVICE);
	/* with glibc.malloc.hugetlb=1 in its environment, glibc madvises: its knob */
	P.env_known = true;
	P.nenv = why_hints_parse("GLIBC_TUNABLES=glibc.malloc.hugetlb=1\0", 38, false, P.env,
				 WHY_MAX_HINTS);
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_GLIBC);
	assert_int_equal(R.fix[0].id, RF_GLIBC_HUGETLB_0);
	/* under enabled=always, huge pages outside hg in malloc's heap: glibc's, no knob */
	P.nenv = 0;
	P.hg_huge_kb = 0;
	P.huge_not_hg_kb = 262144;
	P.anon_kb = P.malloc_kb = 262144;
	h.always = true;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_GLIBC);
	assert_int_equal(R.fix[0].id, RF_RUN_OFF);
	/* ... outside it (the program's own mmap, or malloc's of a large block): not glibc */
	P.malloc_kb = 132;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_NOT_HEAP);
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])),
			"unknown: most of its memory is outside glibc malloc's heap ([heap] and "
			"arenas hold 132 kB of its 256.0 MiB anonymous)");
	assert_int_equal(R.fix[0].id, RF_RUN_OFF);
	no_fix(RF_GLIBC_HUGETLB_0);
}

/* The JSON of the part: a name with its version, never a version without its name. */
static void part_json(const char *name, const char *version, const char *evidence)
{
	json_t *j = remedy_to_json(&R);
	json_t *part = json_object_get(j, "responsible");
	assert_string_equal(json_string_value(json_object_get(part, "name")), name);
	json_t *v = json_object_get(part, "version"), *e = json_object_get(part, "evidence");
	if (version)
		assert_string_equal(json_string_value(v), version);
	else
		assert_true(json_is_null(v));
	if (evidence)
		assert_string_equal(json_string_value(e), evidence);
	else
		assert_true(json_is_null(e));
	json_decref(j);
}

/*
 * glibc malloc is blamed only for memory that is malloc's ([heap], its arenas): a direct mmap
 * that would gain is the program's (or unknown), never glibc 2.36 with its hugetlb=1; a held
 * cost in MADV_HUGEPAGE regions whose huge pages the frees split is the program's own advice
 * (the trial's `plain` and `held` processes).
 */
static void test_glibc_only_for_its_heap(UNIT_STATE)
{
	struct remedy_host h = {.max_ptes_none = 511};
	/* plain: 64 MiB mmap fully written, hot, PTE-mapped under madvise; a 132 kB [heap] */
	proc(7306, "t", 0, 66970);
	P.led.pte_full_kb = 65536;
	P.led.pte_full_ranges = 32;
	P.referenced_hot = true;
	P.alloc_known = true;
	P.alloc.kind = AK_GLIBC;
	P.alloc.evidence = AE_MAPPED_LIB;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "2.36");
	P.anon_kb = 65668;
	P.malloc_kb = 132;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_WOULD_GAIN);
	assert_int_equal(R.part, RP_NOT_HEAP);
	assert_int_equal(R.nfix, 2);
	assert_int_equal(R.fix[1].id, RF_PROGRAM_OPT_IN);
	assert_contains(fix_text(1), "madvise(MADV_HUGEPAGE) on the hot regions it maps itself");
	part_json("unknown", NULL, "vmas");
	/* the same in malloc's heap: glibc's own opt-in */
	P.malloc_kb = 65600;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_GLIBC);
	assert_int_equal(R.fix[1].id, RF_OPT_IN);
	assert_contains(fix_text(1), "GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
	part_json("glibc-malloc", "2.36", "mapped-library");
	/* held: half of each THP of its MADV_HUGEPAGE region freed, the PMDs split (huge 0) */
	proc(7308, "held", 0, 33000);
	P.led.held_kb = 32768;
	P.led.partial_folios = 32;
	P.alloc_known = true;
	P.alloc.kind = AK_GLIBC;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "2.36");
	P.hg_vmas = 1;
	P.anon_kb = 33000;
	P.hg_anon_kb = 32768;
	P.malloc_kb = 132;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_DEFERRED_SPLIT);
	assert_int_equal(R.part, RP_PROGRAM);
	assert_int_equal(R.fix[0].id, RF_PROGRAM_ADVICE);
	part_json("program", NULL, "hg-vmas");
}

/* Where a process's anonymous memory sits, from its smaps walk: malloc's, hg, nh. */
static void test_vmas_say_whose_memory(UNIT_STATE)
{
	struct why_vmas w = {0};
	uint64_t base = 0x7f0000000000ull; /* a 64 MiB boundary */
	struct smaps_vma v[] = {
		unit_vma(0x55000000ull, 132, "[heap]", 0),
		unit_vma(base, 8192, "", 0),		   /* a thread arena's heap: 8 MiB used */
		unit_vma(base + (8 << 20), 57344, "", 0),  /* ... and the rest of its 64 MiB */
		unit_vma(base + (64 << 20), 67584, "", 0), /* a mmap of 66 MiB */
		unit_vma(base + (200 << 20), 4096, "[anon: glibc: malloc]", 0),
		unit_vma(base + (256 << 20), 2048, "", 0), /* aligned, but no ---p rest */
		unit_vma(base + (320 << 20), 65536, "", VMF_NH),
		unit_vma(base + (400 << 20), 2048, "", VMF_HG),
	};
	const char *perms[] = {"rw-p", "rw-p", "---p", "rw-p", "rw-p", "rw-p", "rw-p", "rw-p"};
	uint64_t anon[] = {132, 8192, 0, 67584, 4096, 2048, 65536, 2048};
	for (size_t i = 0; i < UNIT_LEN(v); i++) {
		snprintf(v[i].perms, sizeof(v[i].perms), "%s", perms[i]);
		v[i].t.kb[SM_ANONYMOUS] = anon[i];
		v[i].t.present |= 1u << SM_ANONYMOUS;
		why_vmas_add(&w, &v[i]);
	}
	memset(&P, 0, sizeof(P));
	remedy_proc_vmas(&P, &w);
	assert_int_equal(P.malloc_kb, 132 + 8192 + 4096);
	assert_int_equal(P.anon_kb, 132 + 8192 + 67584 + 4096 + 2048 + 2048); /* nh aside */
	assert_int_equal(P.hg_anon_kb, 2048);
	assert_int_equal(P.hg_vmas, 1);
}

/* The allocator detection names the part and its version; a lazy free in glibc is not glibc's. */
static void test_allocator_named(UNIT_STATE)
{
	proc(900, "redis-server", 262144, 300000);
	P.led.invented_kb = 204800;
	P.led.method = LM_SAMPLED;
	P.stacks_known = true;
	P.alloc_known = true;
	P.alloc.kind = AK_JEMALLOC;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "5.3.0");
	P.alloc.evidence = AE_MAPPED_LIB;
	snprintf(P.alloc.path, sizeof(P.alloc.path), "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2");
	struct remedy_host h = {.max_ptes_none = 511};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_JEMALLOC);
	assert_int_equal(R.evidence, RE_ALLOC);
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])), "jemalloc 5.3");
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])), "libjemalloc.so.2");
	assert_int_equal(R.fix[0].id, RF_MALLOC_CONF_THP_NEVER);
	assert_string_equal(fix_cmd(0), "MALLOC_CONF=thp:never");
	/* Go older than 1.21.6: no disablethp to offer */
	P.alloc.kind = AK_GO;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "go1.21.5");
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_GO);
	no_fix(RF_GODEBUG_DISABLETHP);
	snprintf(P.alloc.version, sizeof(P.alloc.version), "go1.22.4");
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.fix[0].id, RF_GODEBUG_DISABLETHP);
	/* glibc malloc does not free with MADV_FREE: a lazy free is not its doing */
	proc(901, "app", 0, 525312);
	P.led.lazyfree_kb = 523264;
	P.alloc_known = true;
	P.alloc.kind = AK_GLIBC;
	snprintf(P.alloc.version, sizeof(P.alloc.version), "2.36");
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.part, RP_UNKNOWN);
	assert_contains(remedy_part_words(&R, TB, sizeof(tb[0])), "does not free with MADV_FREE");
}

/*
 * Invented memory where shrink_underused=1 splits nothing (max_ptes_none at its maximum):
 * max_ptes_none=64 lets the underused shrinker split those THPs under memory pressure, a
 * bound ranked after the savings the ledger measured; not offered below the maximum, with
 * the shrinker off, or against creep (which has its own host knob).
 */
static void test_invented_underused_shrinker(UNIT_STATE)
{
	proc(902, "app", 262144, 263000);
	P.led.invented_kb = 261000;
	P.led.method = LM_SAMPLED;
	P.hg_huge_kb = 262144;
	struct remedy_other others[3] = {{.pid = 902, .invented_kb = 261000},
					 {.pid = 903, .comm = "sparse", .invented_kb = 65024},
					 {.pid = 904, .comm = "dense", .invented_kb = 0}};
	struct remedy_host h = {.max_ptes_none = 511,
				.max_ptes_none_max = 511,
				.shrink_underused = true,
				.nothers = 3,
				.others = others};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_SPARSE_UNKNOWN); /* no counter, no policy: not a guess */
	/* measured savings first (the program, the service), the bound last */
	assert_int_equal(R.nfix, 3);
	assert_int_equal(R.fix[0].id, RF_RUN_OFF);
	assert_int_equal(R.fix[1].id, RF_PRCTL);
	assert_int_equal(R.fix[2].id, RF_HOST_SHRINK);
	assert_true(R.fix[2].upper_bound);
	assert_false(R.fix[0].upper_bound);
	assert_int_equal(R.fix[2].saves_kb, 261000);
	assert_int_equal(R.fix[2].scope, RS_HOST);
	assert_string_equal(fix_cmd(2), "thpctl set khugepaged/max_ptes_none=64");
	assert_string_equal(remedy_fix_saves(&R, 2, TB, sizeof(tb[0])), "saves up to 254.9 MiB");
	assert_string_equal(
		fix_text(2),
		"host, only under memory pressure (a bound, not measured): the underused shrinker "
		"(shrink_underused=1) then splits THPs with more than 64 zero-filled pages and "
		"frees those pages, where at the maximum it splits none; khugepaged then collapses "
		"only ranges with at most 64 empty pages; 1 other process holds invented memory "
		"(63.5 MiB in all): PID 903 (sparse)");
	json_t *j = remedy_to_json(&R);
	json_t *f = json_array_get(json_object_get(j, "fixes"), 2);
	assert_string_equal(json_string_value(json_object_get(f, "fix")),
			    "host-max-ptes-none-shrinker");
	assert_true(json_is_true(json_object_get(f, "saves_upper_bound")));
	assert_int_equal(json_integer_value(json_object_get(f, "other_kb")), 65024);
	json_decref(j);
	/* a 64 KiB base page (arm64): PMD/8 is 1024 */
	h.max_ptes_none = h.max_ptes_none_max = 8191;
	assert_true(remedy_build(&P, &h, &R));
	assert_string_equal(fix_cmd(R.nfix - 1), "thpctl set khugepaged/max_ptes_none=1024");
	/* below the maximum the shrinker already works; off, it splits nothing at any value */
	h.max_ptes_none = 64;
	h.max_ptes_none_max = 511;
	assert_true(remedy_build(&P, &h, &R));
	no_fix(RF_HOST_SHRINK);
	h.max_ptes_none = 511;
	h.shrink_underused = false;
	assert_true(remedy_build(&P, &h, &R));
	no_fix(RF_HOST_SHRINK);
	/* the maximum unknown: not offered */
	h.shrink_underused = true;
	h.max_ptes_none_max = 0;
	assert_true(remedy_build(&P, &h, &R));
	no_fix(RF_HOST_SHRINK);
	/* creep: its own host knob, max_ptes_none=0 */
	h.max_ptes_none_max = 511;
	proc(500, "server", 0, 65536);
	P.led.creep_kb = 245760;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_CREEP);
	no_fix(RF_HOST_SHRINK);
}

/*
 * One value for max_ptes_none in one report: where advise's settings recommend one (here 0, a
 * MongoDB 8 profile; or 64), every host fix on that knob sets it and says so; its saving at
 * 64 is the creep less what khugepaged may still add there (unknown: the whole creep, a bound).
 */
static void test_host_fixes_take_the_reports_value(UNIT_STATE)
{
	proc(902, "app", 262144, 263000);
	P.led.invented_kb = 261000;
	P.led.method = LM_SAMPLED;
	P.hg_huge_kb = 262144;
	struct remedy_host h = {.max_ptes_none = 511,
				.max_ptes_none_max = 511,
				.shrink_underused = true,
				.mpn_planned = true,
				.mpn_plan = 0};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.fix[R.nfix - 1].id, RF_HOST_SHRINK);
	assert_int_equal(R.fix[R.nfix - 1].max_ptes_none, 0);
	assert_string_equal(fix_cmd(R.nfix - 1), "thpctl set khugepaged/max_ptes_none=0");
	assert_contains(fix_text(R.nfix - 1), "splits THPs with more than 0 zero-filled pages");
	assert_contains(fix_text(R.nfix - 1), "the value Settings recommends below");
	/* creep: 64 from the settings; 40 MiB of it in ranges khugepaged still fills at 64 */
	proc(500, "server", 0, 65536);
	P.led.creep_kb = 245760;
	P.led.creep_eighth_kb = 40960;
	h.mpn_plan = 64;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_CREEP);
	int i = R.nfix - 1;
	assert_int_equal(R.fix[i].id, RF_HOST_MPN);
	assert_int_equal(R.fix[i].max_ptes_none, 64);
	assert_int_equal(R.fix[i].saves_kb, 204800);
	assert_true(R.fix[i].upper_bound);
	assert_string_equal(fix_cmd(i), "thpctl set khugepaged/max_ptes_none=64");
	assert_string_equal(remedy_fix_saves(&R, i, TB, sizeof(tb[0])), "saves up to 200.0 MiB");
	P.led.creep_eighth_kb = -1; /* unknown: at most the whole creep */
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.fix[R.nfix - 1].saves_kb, 245760);
	/* no value from settings (why): 0, all of the creep, not said to be the settings' */
	h.mpn_planned = false;
	assert_true(remedy_build(&P, &h, &R));
	i = R.nfix - 1;
	assert_string_equal(fix_cmd(i), "thpctl set khugepaged/max_ptes_none=0");
	assert_false(R.fix[i].planned);
	assert_null(strstr(fix_text(i), "Settings"));
}

/*
 * Invented memory at fault or collapsed: decided by the evidence, else said to be unknown. A
 * trial's process whose AnonHugePages stayed 0 for 90 s and then grew (khugepaged collapsed its
 * MADV_HUGEPAGE ranges, made after it wrote them) was called "sparse at fault".
 */
static void test_invented_origin_from_the_evidence(UNIT_STATE)
{
	proc(903, "late", 65536, 66000);
	P.led.invented_kb = 65400;
	P.led.method = LM_SAMPLED;
	P.led.thps = P.led.thps_sampled = 32;
	P.led.samples = 256;
	P.led.zero_samples = 255;
	P.hg_huge_kb = 65536; /* its huge pages sit in its MADV_HUGEPAGE VMA */
	struct remedy_host h = {.max_ptes_none = 511,
				.policy = "madvise",
				.fault_alloc = {27785, true},
				.collapse_alloc = {1736, true}};
	/* the trial's host: both counted since boot, a v1 memory cgroup: cannot tell */
	P.cg_v1 = true;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_SPARSE_UNKNOWN);
	assert_int_equal(R.origin_ev, ROE_HOST);
	const char *m = remedy_mech_words(&R, TB, sizeof(tb[0]));
	assert_null(strstr(m, "sparse at fault"));
	assert_string_equal(
		m, "sparse huge pages, faulted in whole or collapsed with their empty pages filled "
		   "(khugepaged at max_ptes_none=511 now, or MADV_COLLAPSE): ~63.9 MiB of their "
		   "64.0 MiB never written (invented: 255 of 256 subpages read, 8 per huge page, "
		   "were all-zero); which, the evidence cannot tell: the host counted both since "
		   "boot (vmstat thp_fault_alloc 27785, thp_collapse_alloc 1736; its memory cgroup "
		   "is v1, which counts no THP events)");
	assert_string_equal(remedy_mech_name(R.mech), "fault-or-collapse");
	/* its v2 memory cgroup counted collapses and no fault: collapsed, not faulted */
	P.cg_v1 = false;
	P.cg_fault_alloc = (struct opt_u64){0, true};
	P.cg_collapse_alloc = (struct opt_u64){32, true};
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_COLLAPSED);
	assert_int_equal(R.origin_ev, ROE_CGROUP);
	m = remedy_mech_words(&R, TB, sizeof(tb[0]));
	assert_contains(m, "collapsed, not faulted: huge pages built from ranges whose empty pages "
			   "were filled with zeroes (khugepaged at max_ptes_none=511 now, or "
			   "MADV_COLLAPSE), ~63.9 MiB");
	assert_contains(m, "its memory cgroup counted no THP fault (memory.stat thp_fault_alloc 0, "
			   "thp_collapse_alloc 32)");
	assert_string_equal(remedy_mech_name(R.mech), "collapsed");
	json_t *j = remedy_to_json(&R);
	json_t *o = json_object_get(j, "origin");
	assert_string_equal(json_string_value(json_object_get(o, "evidence")),
			    "memory-cgroup-counters");
	assert_string_equal(json_string_value(json_object_get(o, "counters")), "memory-cgroup");
	assert_int_equal(json_integer_value(json_object_get(o, "thp_fault_alloc")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "thp_collapse_alloc")), 32);
	json_decref(j);
	/* faults and no collapse there: at fault */
	P.cg_fault_alloc.v = 40;
	P.cg_collapse_alloc.v = 0;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_SPARSE_FAULT);
	assert_contains(remedy_mech_words(&R, TB, sizeof(tb[0])),
			"its memory cgroup counted no collapse (memory.stat thp_fault_alloc 40, "
			"thp_collapse_alloc 0)");
	/* its cgroup counted neither (its THPs charged elsewhere): the host's, which cannot tell */
	P.cg_fault_alloc.v = 0;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_SPARSE_UNKNOWN);
	assert_contains(
		remedy_mech_words(&R, TB, sizeof(tb[0])),
		"its memory cgroup counted neither: its huge pages were charged to another");
	/* no collapse since boot on the host: at fault */
	h.collapse_alloc.v = 0;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_SPARSE_FAULT);
	assert_int_equal(R.origin_ev, ROE_HOST);
	/* both counted, but under madvise none of its huge pages is in a MADV_HUGEPAGE VMA: no
	 * fault made them (MADV_COLLAPSE did, or an older policy) */
	h.collapse_alloc.v = 1736;
	P.hg_huge_kb = 0;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_COLLAPSED);
	assert_int_equal(R.origin_ev, ROE_POLICY);
	m = remedy_mech_words(&R, TB, sizeof(tb[0]));
	assert_contains(m, "(MADV_COLLAPSE), ~63.9 MiB");
	assert_contains(m,
			"under enabled=madvise a fault gets a huge page only in a MADV_HUGEPAGE "
			"region, and none of its huge pages is in one (unless the policy changed "
			"after they were faulted)");
	/* under always a fault could have made them anywhere: unknown again */
	h.policy = "always";
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.mech, RM_SPARSE_UNKNOWN);
	/* nothing read at all */
	h.fault_alloc.present = h.collapse_alloc.present = false;
	P.cg_fault_alloc.present = P.cg_collapse_alloc.present = false;
	assert_true(remedy_build(&P, &h, &R));
	assert_int_equal(R.origin_ev, ROE_NONE);
	assert_contains(remedy_mech_words(&R, TB, sizeof(tb[0])),
			"which, the evidence cannot tell: no THP event counter was read");
	j = remedy_to_json(&R);
	o = json_object_get(j, "origin");
	assert_string_equal(json_string_value(json_object_get(o, "evidence")), "none");
	assert_true(json_is_null(json_object_get(o, "thp_fault_alloc")));
	json_decref(j);
	/* creep is no invented memory: no origin */
	proc(500, "server", 0, 65536);
	P.led.creep_kb = 245760;
	assert_true(remedy_build(&P, &h, &R));
	j = remedy_to_json(&R);
	assert_true(json_is_null(json_object_get(j, "origin")));
	json_decref(j);
}

UNIT_TESTS(test_thread_stacks_under_always, test_invented_origin_from_the_evidence,
	   test_restart_from_its_working_directory, test_restart_command_is_exact, test_go_creep,
	   test_lazy_free, test_held_unknown_part, test_nothing_or_a_gain, test_allocator_named,
	   test_program_advice_not_glibc, test_glibc_only_for_its_heap, test_vmas_say_whose_memory,
	   test_invented_underused_shrinker, test_host_fixes_take_the_reports_value)
