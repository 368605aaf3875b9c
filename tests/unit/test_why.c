// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/model/why.c (environment hints, VMA sums, the explanation
 * of one process) and src/kernel/cgroup.c's parsers, table-driven.
 */
#include "test_why.h"

#include "kernel/cgroup.h"
#include "kernel/features.h"
#include "kernel/kv.h"
#include "kernel/parse.h"
#include "model/host.h"

#include "test_ledger_split.h"
#include "test_stacks_capture.h"

/* ---- hints ---- */

struct hint_case {
	const char *name;
	const char *text; /* entries separated by '|', turned into NULs */
	bool cmdline;
	int n;
	const char *var, *value;
	enum why_effect effect;
};

static const struct hint_case hint_cases[] = {
	{"glibc hugetlb=1",
	 "PATH=/bin|GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", false, 1,
	 "GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", WE_HELPS},
	{"glibc hugetlb=2", "GLIBC_TUNABLES=glibc.malloc.hugetlb=2", false, 1, "GLIBC_TUNABLES",
	 "glibc.malloc.hugetlb=2", WE_NEUTRAL},
	{"glibc other tunables only", "GLIBC_TUNABLES=glibc.malloc.arena_max=2", false, 0, NULL,
	 NULL, WE_NEUTRAL},
	{"mimalloc off", "MIMALLOC_ALLOW_THP=0", false, 1, "MIMALLOC_ALLOW_THP", "0", WE_HINDERS},
	{"mimalloc on", "MIMALLOC_ALLOW_THP=1", false, 1, "MIMALLOC_ALLOW_THP", "1", WE_NEUTRAL},
	{"jemalloc thp:never", "MALLOC_CONF=background_thread:true,thp:never", false, 1,
	 "MALLOC_CONF", "thp:never", WE_HINDERS},
	{"jemalloc thp:always (Rust prefix)", "_RJEM_MALLOC_CONF=thp:always", false, 1,
	 "_RJEM_MALLOC_CONF", "thp:always", WE_HELPS},
	{"jemalloc metadata_thp", "MALLOC_CONF=metadata_thp:auto", false, 1, "MALLOC_CONF",
	 "metadata_thp:auto", WE_NEUTRAL},
	{"GODEBUG disablethp=1", "GODEBUG=gctrace=1,disablethp=1", false, 1, "GODEBUG",
	 "disablethp=1", WE_HINDERS},
	{"GODEBUG without it", "GODEBUG=gctrace=1", false, 0, NULL, NULL, WE_NEUTRAL},
	{"JAVA_TOOL_OPTIONS", "JAVA_TOOL_OPTIONS=-Xmx2g -XX:+UseTransparentHugePages", false, 1,
	 "JAVA_TOOL_OPTIONS", "-XX:+UseTransparentHugePages", WE_HELPS},
	{"_JAVA_OPTIONS minus", "_JAVA_OPTIONS=-XX:-UseTransparentHugePages", false, 1,
	 "_JAVA_OPTIONS", "-XX:-UseTransparentHugePages", WE_NEUTRAL},
	{"a prefix is not the flag", "JAVA_TOOL_OPTIONS=-XX:+UseTransparentHugePagesX", false, 0,
	 NULL, NULL, WE_NEUTRAL},
	{"java command line", "java|-XX:+UseTransparentHugePages|-jar|app.jar", true, 1, "cmdline",
	 "-XX:+UseTransparentHugePages", WE_HELPS},
	{"an env var is not a command line", "GLIBC_TUNABLES=glibc.malloc.hugetlb=1", true, 0, NULL,
	 NULL, WE_NEUTRAL},
	{"no '='", "GLIBC_TUNABLES", false, 0, NULL, NULL, WE_NEUTRAL},
	{"empty", "", false, 0, NULL, NULL, WE_NEUTRAL},
};

static void test_hints(UNIT_STATE)
{
	int bad = 0;
	for (size_t i = 0; i < UNIT_LEN(hint_cases); i++) {
		const struct hint_case *c = &hint_cases[i];
		char text[256];
		size_t n = unit_split(text, sizeof(text), c->text, '|');
		struct why_hint h[WHY_MAX_HINTS];
		int got = why_hints_parse(text, n ? n + 1 : 0, c->cmdline, h, WHY_MAX_HINTS);
		bool ok = got == c->n;
		if (ok && c->n)
			ok = !strcmp(h[0].var, c->var) && !strcmp(h[0].value, c->value) &&
			     h[0].effect == c->effect && strcmp(why_hint_words(h[0].meaning), "?");
		if (!ok) {
			print_error("hint case '%s': got %d (%s=%s, %s)\n", c->name, got,
				    got ? h[0].var : "", got ? h[0].value : "",
				    got ? why_effect_name(h[0].effect) : "");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	/* never more than asked for */
	static const char many[] =
		"GODEBUG=disablethp=1\0GODEBUG=disablethp=1\0GODEBUG=disablethp=1";
	struct why_hint h[2];
	assert_int_equal(why_hints_parse(many, sizeof(many), false, h, 2), 2);
}

/* ---- cgroups ---- */

static void test_cgroup_parse(UNIT_STATE)
{
	struct proc_cgroup cg;
	static const char v1[] = "12:pids:/user.slice\n"
				 "4:memory:/system.slice/redis-server.service\n"
				 "1:name=systemd:/system.slice/redis-server.service\n"
				 "0::/system.slice/redis-server.service\n";
	assert_int_equal(proc_cgroup_parse(LIT(v1), &cg), 0);
	assert_true(cg.has_v1_memory);
	assert_string_equal(cg.v1_memory, "/system.slice/redis-server.service");
	assert_true(cg.has_v1_systemd);
	assert_true(cg.has_v2);
	static const char co[] = "5:cpu,memory:/docker/abc\n";
	assert_int_equal(proc_cgroup_parse(LIT(co), &cg), 0);
	assert_true(cg.has_v1_memory);
	assert_string_equal(cg.v1_memory, "/docker/abc");
	assert_false(cg.has_v2);
	static const char v2[] = "0::/kubepods.slice/pod1:x/cri-containerd-1.scope";
	assert_int_equal(proc_cgroup_parse(LIT(v2), &cg), 0);
	assert_true(cg.has_v2);
	assert_string_equal(cg.v2, "/kubepods.slice/pod1:x/cri-containerd-1.scope");
	assert_false(cg.has_v1_memory);
	assert_int_equal(proc_cgroup_parse(LIT("garbage\n"), &cg), -EINVAL);
	/* a hierarchy listed twice: which path is right is unknown */
	assert_int_equal(proc_cgroup_parse(LIT("0::/a.slice\n0::/b.slice\n"), &cg), -EINVAL);
	assert_false(cg.has_v2);
	assert_int_equal(proc_cgroup_parse(LIT("4:memory:/a\n0::/x\n5:cpu,memory:/b\n"), &cg),
			 -EINVAL);
	assert_false(cg.has_v1_memory);
	assert_int_equal(proc_cgroup_parse("", 0, &cg), -EINVAL);

	bool lim;
	uint64_t b;
	assert_int_equal(cgroup_limit_parse(LIT("max\n"), &lim, &b), 0);
	assert_false(lim);
	assert_int_equal(cgroup_limit_parse(LIT("536870912\n"), &lim, &b), 0);
	assert_true(lim);
	assert_int_equal(b, 536870912);
	assert_int_equal(cgroup_limit_parse(LIT("9223372036854771712\n"), &lim, &b), 0);
	assert_false(lim);
	assert_int_equal(cgroup_limit_parse(LIT("12x\n"), &lim, &b), -EINVAL);
	assert_int_equal(cgroup_limit_parse(LIT(""), &lim, &b), -EINVAL);

	char u[64];
	assert_int_equal(cgroup_unit("/system.slice/redis-server.service", u, sizeof(u)), 0);
	assert_string_equal(u, "redis-server.service");
	assert_int_equal(cgroup_unit("/system.slice/postgresql@15-main.service/x", u, sizeof(u)),
			 0);
	assert_string_equal(u, "postgresql@15-main.service");
	assert_int_equal(cgroup_unit("/user.slice/user-0.slice/session-3.scope", u, sizeof(u)), 0);
	assert_string_equal(u, "session-3.scope");
	assert_int_equal(cgroup_unit("/", u, sizeof(u)), -ENOENT);
	assert_int_equal(cgroup_unit("/.service", u, sizeof(u)), -ENOENT);
}

/* ---- VMAs ---- */

static void vma(struct why_vmas *w, const char *name, uint64_t kb, uint64_t huge, unsigned flags,
		int eligible)
{
	struct smaps_vma v =
		unit_vma(0x7f0000000000ull + (uint64_t)w->nvmas * (64ull << 20), kb, name, flags);
	v.t.kb[SM_ANON_HUGE] = huge;
	v.t.kb[SM_ANONYMOUS] = kb;
	v.t.present |= (1u << SM_ANON_HUGE) | (1u << SM_ANONYMOUS);
	v.thp_eligible = eligible;
	why_vmas_add(w, &v);
}

static void test_vmas(UNIT_STATE)
{
	struct why_vmas w = {0};
	vma(&w, "", 65536, 65536, VMF_HG, 1);
	vma(&w, "", 8192, 4096, VMF_HG, 1);
	vma(&w, "", 4096, 0, VMF_NH, 0);
	vma(&w, "", 8, 0, VMF_NH, 0);	     /* small, but no guard below: an opt-out */
	vma(&w, "[heap]", 4096, 2048, 0, 0); /* collapsed */
	vma(&w, "[stack]", 132, 0, VMF_NH, 0);
	vma(&w, "/anon_hugepage (deleted)", 1048576, 0, VMF_HT, 0);
	assert_int_equal(w.nvmas, 7);
	assert_int_equal(w.hg, 2);
	assert_int_equal(w.hg_kb, 65536 + 8192);
	assert_int_equal(w.hg_huge_kb, 65536 + 4096);
	assert_true(w.largest_hg.present);
	assert_int_equal(w.largest_hg.size_kb, 65536);
	assert_int_equal(w.nh, 3);
	assert_int_equal(w.thread_stacks, 0);
	assert_int_equal(w.stack_nh, 0);
	assert_int_equal(w.largest_nh.size_kb, 4096);
	assert_int_equal(w.huge_not_hg, 1);
	assert_int_equal(w.huge_not_hg_kb, 2048);
	assert_true(w.stack_found);
	assert_true(w.stack_flags & VMF_NH);
	assert_int_equal(w.hugetlb_vmas, 1);
	assert_int_equal(w.eligible, 2);
	assert_true(w.has_eligible);
	assert_int_equal(w.t.kb[SM_ANON_HUGE], 65536 + 4096 + 2048);
}

/* ---- the explanation ---- */

static const char *const EN[] = {"always", "madvise", "never"};
static const char *const DF[] = {"always", "defer", "defer+madvise", "madvise", "never"};

struct why_case {
	const char *name;
	const char *enabled, *defrag;
	const char *mthp64; /* hugepages-64kB/enabled, NULL none */
	int thp_enabled;
	int chain; /* 0 none walked, 1: ancestor PID 100, 2: this process set it, 3: cut,
		    * 4: parent now PID 1 (reparented) */
	int smaps_err;
	int hg; /* hg VMAs of 64 MiB each */
	uint64_t huge_kb;
	bool stack_nh;
	int environ_err; /* 1: readable but overwritten (all NUL) */
	int limited;	 /* 1: limited, its own usage; 2: and a parent with less headroom */
	enum why_verdict verdict;
	const char *summary; /* substring */
	const char *topic;   /* a line with this topic ... */
	enum why_effect effect;
	const char *text; /* ... that has this substring */
	const char *source;
};

static const struct why_case why_cases[] = {
	{"opted in under madvise", "madvise", "madvise", NULL, 1, 0, 0, 1, 65536, false, 0, false,
	 WV_HUGE, "in its MADV_HUGEPAGE regions", "hg", WE_HELPS, "opted in with MADV_HUGEPAGE",
	 "/proc/42/smaps"},
	{"madvise, no hg", "madvise", "madvise", NULL, 1, 0, 0, 0, 0, false, 0, false, WV_NONE,
	 "no MADV_HUGEPAGE region", "policy", WE_HINDERS, "this process has none",
	 "/sys/kernel/mm/transparent_hugepage/enabled"},
	{"always, huge without hg", "always", "madvise", NULL, 1, 0, 0, 0, 4096, false, 0, false,
	 WV_HUGE, "under enabled=always", "defrag", WE_NEUTRAL, "without waking kcompactd",
	 "/sys/kernel/mm/transparent_hugepage/defrag"},
	{"never", "never", "madvise", NULL, 1, 0, 0, 1, 0, false, 0, false, WV_NONE,
	 "policy is never", "policy", WE_HINDERS, "only MADV_COLLAPSE", NULL},
	{"prctl inherited", "madvise", "madvise", NULL, 0, 1, 0, 1, 0, false, 0, false, WV_NONE,
	 "inherited from PID 100 (starter)", "prctl", WE_HINDERS,
	 "highest ancestor with THP_enabled 0 is PID 100 (starter)", "/proc/42/status"},
	{"prctl set in this process", "madvise", "madvise", NULL, 0, 2, 0, 1, 0, false, 0, false,
	 WV_NONE, "THP disabled by prctl", "prctl", WE_HINDERS,
	 "set in this process (by the program itself with prctl(PR_SET_THP_DISABLE), or by a launcher",
	 NULL},
	/* PR_SET_THP_DISABLE splits nothing: huge pages made before it are still held */
	{"prctl after huge pages were made: held, no new ones", "madvise", "madvise", NULL, 0, 2, 0,
	 1, 65536, false, 0, false, WV_HUGE,
	 "holds 64.0 MiB of huge pages (AnonHugePages) though THP is disabled by prctl: made "
	 "before the prctl, or shared with its parent since fork; it gets no new ones",
	 "prctl", WE_HINDERS, "set in this process", NULL},
	{"prctl inherited, with its parent's huge pages", "madvise", "madvise", NULL, 0, 1, 0, 1,
	 4096, false, 0, false, WV_HUGE,
	 "though THP is disabled by prctl, inherited from PID 100 (starter): made before", "prctl",
	 WE_HINDERS, "highest ancestor with THP_enabled 0 is PID 100 (starter)", NULL},
	{"prctl, chain cut", "always", "madvise", NULL, 0, 3, 0, 0, 0, false, 0, false, WV_NONE,
	 "THP disabled by prctl", "prctl", WE_HINDERS, "chain cut", NULL},
	{"prctl makes the rest neutral", "madvise", "madvise", NULL, 0, 2, 0, 1, 0, false, 0, false,
	 WV_NONE, "THP disabled", "hg", WE_NEUTRAL, "opted in", NULL},
	{"no THP_enabled line", "madvise", "madvise", NULL, -1, 0, 0, 1, 2048, false, 0, false,
	 WV_HUGE, "gets huge pages", "prctl", WE_UNKNOWN, "kernel < 5.0", NULL},
	{"smaps unreadable", "madvise", "madvise", NULL, 1, 0, -EACCES, 0, 0, false, 0, false,
	 WV_UNKNOWN, "unknown", "vmas", WE_UNKNOWN, "run as root or as the process's owner", NULL},
	/* VMAs unknown: khugepaged's help is unknown too, never "helps" */
	{"smaps unreadable: khugepaged unknown", "madvise", "madvise", NULL, 1, 0, -EACCES, 0, 0,
	 false, 0, false, WV_UNKNOWN, "unknown", "khugepaged", WE_UNKNOWN,
	 "whether khugepaged collapses anything of it is unknown: it only collapses its "
	 "MADV_HUGEPAGE regions, and its VMAs are unknown: smaps not readable (Permission "
	 "denied: run as root or as the process's owner); max_ptes_none=511",
	 "/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none"},
	{"smaps unreadable under always: khugepaged unknown", "always", "madvise", NULL, 1, 0,
	 -EACCES, 0, 0, false, 0, false, WV_UNKNOWN, "unknown", "khugepaged", WE_UNKNOWN,
	 "it only collapses its eligible regions, and its VMAs are unknown", NULL},
	{"defrag defer+madvise names its hg VMAs", "madvise", "defer+madvise", NULL, 1, 0, 0, 2,
	 131072, false, 0, false, WV_HUGE, "gets huge pages", "defrag", WE_NEUTRAL,
	 "its 2 MADV_HUGEPAGE VMAs may stall", NULL},
	{"mTHP listed", "madvise", "madvise", "always", 1, 0, 0, 0, 0, false, 0, false, WV_NONE,
	 "AnonHugePages 0", "mthp", WE_HELPS, "64kB=always", NULL},
	{"stack nh", "madvise", "madvise", NULL, 1, 0, 0, 0, 0, true, 0, false, WV_NONE,
	 "AnonHugePages 0", "stack", WE_NEUTRAL, "[stack] VMA (132 kB) is nh", NULL},
	{"environ unreadable", "madvise", "madvise", NULL, 1, 0, 0, 0, 0, false, -EACCES, false,
	 WV_NONE, "AnonHugePages 0", "environ", WE_UNKNOWN, "run as root or as the process's owner",
	 "/proc/42/environ"},
	{"prctl, daemon reparented to PID 1: set by it or an ancestor that is gone", "madvise",
	 "madvise", NULL, 0, 4, 0, 1, 0, false, 0, false, WV_NONE, "THP disabled by prctl", "prctl",
	 WE_HINDERS,
	 "set by this process or by an ancestor that is gone: its parent is now PID 1 (init",
	 "/proc/42/status"},
	{"environ blanked by the program: hints unknown, not 'no THP hints'", "madvise", "madvise",
	 NULL, 1, 0, 0, 0, 0, false, 1, false, WV_NONE, "AnonHugePages 0", "environ", WE_UNKNOWN,
	 "environment overwritten by the program", "/proc/42/environ"},
	{"memory limit and fallback charge", "always", "madvise", NULL, 1, 0, 0, 0, 0, false, 0,
	 true, WV_NONE, "AnonHugePages 0", "cgroup", WE_NEUTRAL,
	 "is limited to 512.0 MiB, uses 256.0 MiB (50.0% of that limit), 256.0 MiB of headroom; a huge page fault that cannot be charged falls back to small pages: host thp_fault_fallback_charge=5",
	 "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"},
	/* the least headroom is its parent's (1 GiB limit, 800 MiB used), not the smallest
	 * limit's cgroup: its usage against its own limit, never "uses 800 MiB" of 512 */
	{"memory limit, a parent with less headroom", "always", "madvise", NULL, 1, 0, 0, 0, 0,
	 false, 0, 2, WV_NONE, "AnonHugePages 0", "cgroup", WE_NEUTRAL,
	 "is limited to 512.0 MiB; the least headroom on its path is 224.0 MiB, in "
	 "/sys/fs/cgroup/memory/docker, which uses 800.0 MiB of its 1.00 GiB limit (78.1%); a "
	 "huge page fault",
	 "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"},
};

static const char *lsrc(const struct why_line *l)
{
	char *b = wbuf[wnext++ % 4];
	return why_source(l, b, sizeof(wbuf[0]));
}
static const char *sum_text(void);
static const char *sum_text(void)
{
	char *b = wbuf[wnext++ % 4];
	return why_summary_words(&R, b, sizeof(wbuf[0]));
}

static void build(const struct why_case *c)
{
	unit_host_reset(&H, "6.18.44");
	H.thp.present = true;
	unit_set_choice(&H.thp.enabled, EN, 3, c->enabled);
	unit_set_choice(&H.thp.defrag, DF, 5, c->defrag);
	H.thp.khp[KHP_MAX_PTES_NONE] = (struct opt_u64){.v = 511, .present = true};
	if (c->mthp64) {
		struct thp_size *sz = &H.thp.sizes[H.thp.nsizes++];
		sz->size_kb = 64;
		assert_int_equal(choice_parse(LIT("always inherit madvise [never]"), &sz->enabled),
				 0);
		snprintf(sz->enabled.selected, sizeof(sz->enabled.selected), "%s", c->mthp64);
		sz->eff_enabled = sz->enabled.selected;
	}
	assert_int_equal(
		vmstat_parse(LIT("compact_stall 3\nthp_fault_fallback_charge 5\n"), &H.vmstat), 0);

	memset(&IN, 0, sizeof(IN));
	IN.pid = 42;
	IN.h = &H;
	snprintf(IN.st.name, sizeof(IN.st.name), "app");
	IN.st.ppid = 41;
	IN.st.thp_enabled = c->thp_enabled;
	if (c->chain) {
		IN.chain_walked = true;
		IN.chain.stop_thp_enabled = -1;
		if (c->chain == 1) {
			IN.chain.n = 1;
			IN.chain.a[0].pid = 100;
			snprintf(IN.chain.a[0].comm, sizeof(IN.chain.a[0].comm), "starter");
			IN.chain.stop_thp_enabled = 1;
		} else if (c->chain == 2) {
			IN.chain.stop_thp_enabled = 1;
			IN.chain.stop_pid = 41;
			snprintf(IN.chain.stop_comm, sizeof(IN.chain.stop_comm), "bash");
		} else if (c->chain == 4) {
			IN.chain.stop_thp_enabled = 1;
			IN.chain.stop_pid = 1;
			snprintf(IN.chain.stop_comm, sizeof(IN.chain.stop_comm), "init");
		} else {
			IN.chain.n = 1;
			IN.chain.a[0].pid = 41;
			snprintf(IN.chain.a[0].comm, sizeof(IN.chain.a[0].comm), "parent");
			IN.chain.cut = true;
		}
	}
	IN.smaps_err = c->smaps_err;
	if (!c->smaps_err) {
		for (int i = 0; i < c->hg; i++)
			vma(&IN.vmas, "", 65536, c->huge_kb / (uint64_t)c->hg, VMF_HG, 1);
		if (!c->hg && c->huge_kb)
			vma(&IN.vmas, "[heap]", 8192, c->huge_kb, 0, 1);
		vma(&IN.vmas, "[stack]", 132, 0, c->stack_nh ? VMF_NH : 0, 0);
	}
	IN.environ_err = c->environ_err == 1 ? 0 : c->environ_err;
	IN.environ_overwritten = c->environ_err == 1;
	if (c->limited) {
		IN.lim.version = 1;
		snprintf(IN.lim.path, sizeof(IN.lim.path), "/docker/abc");
		IN.lim.limited = true;
		IN.lim.limit_bytes = 512ull << 20;
		snprintf(IN.lim.limit_file, sizeof(IN.lim.limit_file),
			 "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes");
		IN.lim.has_headroom = true;
		IN.lim.usage_bytes = IN.lim.headroom_bytes = 256ull << 20;
		IN.lim.usage_limit_bytes = 512ull << 20;
		snprintf(IN.lim.usage_file, sizeof(IN.lim.usage_file),
			 "sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes");
		if (c->limited == 2) {
			IN.lim.usage_bytes = 800ull << 20;
			IN.lim.usage_limit_bytes = 1024ull << 20;
			IN.lim.headroom_bytes = 224ull << 20;
			snprintf(IN.lim.usage_file, sizeof(IN.lim.usage_file),
				 "sys/fs/cgroup/memory/docker/memory.usage_in_bytes");
		}
	}
	why_explain(&IN, &R);
}

static void test_environ_intact(UNIT_STATE)
{
	/* Redis 7.0's /proc/PID/environ after its process title: 1602 NUL bytes */
	char blank[1602];
	memset(blank, 0, sizeof(blank));
	assert_false(why_environ_intact(blank, sizeof(blank)));
	assert_true(why_environ_intact(LIT("HOME=/root\0MALLOC_CONF=thp:always\0")));
	/* cut off mid-entry (no final NUL), empty, entries without '=' */
	assert_false(why_environ_intact(LIT("HOME=/root\0MALLOC_CO")));
	assert_false(why_environ_intact("", 0));
	assert_false(why_environ_intact(LIT("redis-server *:7777\0\0\0")));
	/* what the chain's top ancestor is decides whether the chain is broken */
	assert_true(why_chain_broken(1, "systemd"));
	assert_true(why_chain_broken(812, "systemd"));
	assert_false(why_chain_broken(812, "bash"));
}

static void test_why_case(UNIT_STATE)
{
	const struct why_case *c = *state;
	build(c);
	bool ok = R.verdict == c->verdict && strstr(sum_text(), c->summary);
	const struct why_line *hit = NULL;
	for (int i = 0; ok && i < R.n && !hit; i++)
		if (!strcmp(R.lines[i].topic, c->topic) && strstr(ltext(&R.lines[i]), c->text))
			hit = &R.lines[i];
	ok = ok && hit && hit->effect == c->effect && (!c->source || !strcmp(lsrc(hit), c->source));
	/* every line names its source */
	for (int i = 0; i < R.n; i++)
		ok = ok && lsrc(&R.lines[i])[0] && ltext(&R.lines[i])[0];
	if (!ok) {
		print_error("case '%s': verdict %d: %s\n", c->name, R.verdict, sum_text());
		for (int i = 0; i < R.n; i++)
			print_error("  %-10s %-8s %s [%s]\n", R.lines[i].topic,
				    why_effect_name(R.lines[i].effect), ltext(&R.lines[i]),
				    lsrc(&R.lines[i]));
	}
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	assert_true(ok);
}

/* The PMD size's own policy (6.8+) is the one that counts, and its file is the source. */
static void test_pmd_size_policy(UNIT_STATE)
{
	build(&why_cases[0]);
	struct thp_size *sz = &H.thp.sizes[H.thp.nsizes++];
	sz->size_kb = 2048;
	assert_int_equal(choice_parse(LIT("always [inherit] madvise never"), &sz->enabled), 0);
	sz->eff_enabled = H.thp.enabled.selected;
	why_explain(&IN, &R);
	assert_string_equal(R.lines[1].topic, "policy");
	assert_non_null(
		strstr(ltext(&R.lines[1]), "hugepages-2048kB/enabled inherit -> enabled=madvise"));
	assert_string_equal(lsrc(&R.lines[1]),
			    "/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled");
	/* and no THP at all */
	H.thp.present = false;
	why_explain(&IN, &R);
	assert_non_null(strstr(sum_text(), "gets huge pages")); /* what smaps says stands */
	bool seen = false;
	for (int i = 0; i < R.n; i++)
		seen |= !strcmp(R.lines[i].topic, "policy") && strstr(ltext(&R.lines[i]), "no THP");
	assert_true(seen);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

static int why_vma_cb(const struct smaps_vma *v, void *ctx)
{
	why_vmas_add(ctx, v);
	return 0;
}

static const struct why_line *line_of(const char *topic, const char *text)
{
	for (int i = 0; i < R.n; i++)
		if (!strcmp(R.lines[i].topic, topic) && strstr(ltext(&R.lines[i]), text))
			return &R.lines[i];
	return NULL;
}

/* Recorded smaps with two pthread stacks and one MADV_NOHUGEPAGE region (6.18). */
static void test_thread_stacks(UNIT_STATE)
{
	build(&why_cases[0]);
	memset(&IN.vmas, 0, sizeof(IN.vmas));
	size_t len;
	char *text = cap_stacks(&len);
	assert_int_equal(smaps_parse(text, len, why_vma_cb, &IN.vmas, NULL), 0);
	free(text);
	assert_int_equal(IN.vmas.nh, 5);
	assert_int_equal(IN.vmas.thread_stacks, 2);
	assert_int_equal(IN.vmas.stack_nh, 4);
	assert_int_equal(IN.vmas.stack_nh_kb, 8264);
	/* the largest opt-out is the madvised region, not the 8 MiB stack */
	assert_int_equal(IN.vmas.largest_nh.start, 0x7f1f0899d000ull);
	assert_int_equal(IN.vmas.largest_nh.size_kb, 4096);
	why_explain(&IN, &R);
	const struct why_line *nh =
		line_of("nh", "1 VMA opted out with MADV_NOHUGEPAGE (nh), 4096 kB");
	assert_non_null(nh);
	assert_int_equal(nh->effect, WE_HINDERS);
	const struct why_line *st = line_of("stack", "2 thread stacks");
	assert_non_null(st);
	assert_int_equal(st->effect, WE_NEUTRAL);
	assert_contains(ltext(st), "8264 kB in all): nh set by the kernel for MAP_STACK");

	/* without the madvised region (and its non-nh PROT_NONE page): no opt-out at all */
	text = cap_stacks_only(&len);
	memset(&IN.vmas, 0, sizeof(IN.vmas));
	assert_int_equal(smaps_parse(text, len, why_vma_cb, &IN.vmas, NULL), 0);
	free(text);
	assert_int_equal(IN.vmas.nh, 4);
	assert_int_equal(IN.vmas.stack_nh, 4);
	assert_false(IN.vmas.largest_nh.present);
	why_explain(&IN, &R);
	nh = line_of("nh",
		     "no VMA opted out with MADV_NOHUGEPAGE: its 4 nh VMAs are thread stacks");
	assert_non_null(nh);
	assert_int_equal(nh->effect, WE_NEUTRAL);
	for (int i = 0; i < R.n; i++)
		assert_int_not_equal(
			R.lines[i].effect == WE_HINDERS && !strcmp(R.lines[i].topic, "nh"), 1);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* One hg VMA of KB, RSS_KB resident, HUGE_KB of it PMD-mapped: the only VMA of IN. */
static void one_hg(uint64_t kb, uint64_t rss_kb, uint64_t huge_kb)
{
	memset(&IN.vmas, 0, sizeof(IN.vmas));
	struct smaps_vma v = unit_vma(0x7f0000000000ull, kb, "", VMF_HG);
	v.t.kb[SM_RSS] = rss_kb;
	v.t.kb[SM_ANON_HUGE] = huge_kb;
	v.t.kb[SM_ANONYMOUS] = rss_kb;
	v.t.present |= (1u << SM_RSS) | (1u << SM_ANON_HUGE) | (1u << SM_ANONYMOUS);
	v.thp_eligible = 1;
	why_vmas_add(&IN.vmas, &v);
}

/* The first line names the ledger's largest cost past its threshold (issue 22, section 3). */
static void test_headline_names_the_largest_cost(UNIT_STATE)
{
	build(&why_cases[0]);
	/* re-collapsed: 16 MiB huge beside 111.8 MiB held by deferred split */
	one_hg(131072, 16700, 16384);
	ledger_split_build(&IN.led);
	ledger_smaps(&IN.led, &IN.vmas.t);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_HUGE);
	assert_contains(sum_text(), "gets huge pages");
	assert_contains(sum_text(), "but 111.8 MiB is held by deferred split: 56 large folios");
	assert_contains(sum_text(), "charged to its memory cgroup");
	/* one page in 16 touched before MADV_HUGEPAGE: small pages, creep 240 MiB */
	one_hg(262144, 16384, 0);
	struct ledger_raw creep = {.creep_ranges = 128, .creep_pages = 128 * 480};
	ledger_build(0, &creep, 0, 8, true, 511, 4, 9, &IN.led);
	ledger_smaps(&IN.led, &IN.vmas.t);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_NONE);
	assert_contains(sum_text(), "its MADV_HUGEPAGE regions hold 16.0 MiB in small pages, "
				    "faulted as small pages before the advice");
	assert_contains(sum_text(), "khugepaged may add up to 240.0 MiB by collapsing 128 PMD");
	assert_null(strstr(sum_text(), "not touched yet"));
	/* MADV_FREE of all but one page per 2 MiB: lazily freed */
	one_hg(524288, 525312, 0);
	IN.vmas.t.kb[SM_LAZYFREE] = 256 * 2044;
	IN.vmas.t.present |= 1u << SM_LAZYFREE;
	struct ledger_raw none = {0};
	ledger_build(0, &none, 0, 8, true, 511, 4, 9, &IN.led);
	ledger_smaps(&IN.led, &IN.vmas.t);
	why_explain(&IN, &R);
	assert_contains(sum_text(), "511.0 MiB of its RSS is lazily freed (MADV_FREE): counted in "
				    "RSS and in its memory cgroup, reclaimed only under memory "
				    "pressure");
	/* under the thresholds: the verdict as before */
	IN.vmas.t.kb[SM_LAZYFREE] = 1024;
	ledger_smaps(&IN.led, &IN.vmas.t);
	why_explain(&IN, &R);
	assert_null(strstr(sum_text(), "lazily"));
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/*
 * Invented as the largest cost: "mostly never written" only above half of AnonHugePages
 * (it said "mostly" of 33.0 MiB in 116.0 MiB, 28%); under it "partly", with the share.
 */
static void test_bloated_headline_matches_the_share(UNIT_STATE)
{
	struct thp_ledger l = {.invented_kb = 33 * 1024, .method = LM_SAMPLED};
	memset(&R, 0, sizeof(R));
	R.sum.id = WS_HUGE_BLOATED;
	R.sum.huge_kb = 116 * 1024;
	R.sum.led = &l;
	assert_contains(sum_text(), "gets huge pages, partly never written: AnonHugePages 116.0 "
				    "MiB, of which ~33.0 MiB (~28%) invented");
	assert_null(strstr(sum_text(), "mostly"));
	l.invented_kb = 100 * 1024;
	l.method = LM_EXACT;
	assert_contains(sum_text(), "gets huge pages, mostly never written: AnonHugePages 116.0 "
				    "MiB, of which 100.0 MiB invented (all-zero subpages, exact)");
	l.invented_kb = 58 * 1024; /* exactly half: not "mostly" */
	assert_contains(sum_text(), "partly never written");
	assert_contains(sum_text(), "(50%)");
	memset(&R, 0, sizeof(R));
}

/*
 * "gets huge pages" with no cost: the same words whether none of it is invented or nobody could
 * tell (a replay). Unknown invented says so in the headline, with the reason; known 0 does not.
 */
static void test_huge_headline_says_invented_unknown(UNIT_STATE)
{
	struct thp_ledger l = {.invented_kb = -1, .invented_gap = LG_RECORDED};
	memset(&R, 0, sizeof(R));
	R.sum.id = WS_HUGE;
	R.sum.how = WH_HG;
	R.sum.huge_kb = 8192;
	R.sum.anon_kb = 8192;
	R.sum.led = &l;
	assert_contains(sum_text(),
			"in its MADV_HUGEPAGE regions; how much of it was never "
			"written (invented) is unknown (a recorded tree: needs the live");
	l.invented_gap = LG_DENIED;
	assert_contains(sum_text(), "is unknown (not readable: /proc/PID/mem and pagemap");
	l.invented_kb = 0;
	l.method = LM_EXACT;
	assert_null(strstr(sum_text(), "never written"));
	memset(&R, 0, sizeof(R));
}

/*
 * Most of its anonymous memory opted out with MADV_NOHUGEPAGE: the headline names the opt-out
 * (it said only "the policy is madvise and it has no MADV_HUGEPAGE region"); thread stacks
 * (nh by the kernel) are no opt-out and do not count.
 */
static void test_headline_names_the_nh_opt_out(UNIT_STATE)
{
	build(&why_cases[1]); /* madvise, no hg: the [stack] VMA alone */
	vma(&IN.vmas, "", 65536, 0, VMF_NH, 0);
	why_explain(&IN, &R);
	assert_int_equal(R.verdict, WV_NONE);
	assert_int_equal(R.sum.none, WN_NH_OPTED);
	assert_string_equal(sum_text(),
			    "has no PMD huge pages (AnonHugePages 0): it opted 64.0 MiB of its "
			    "64.1 MiB anonymous memory out with MADV_NOHUGEPAGE (nh: never huge "
			    "there, not even by MADV_COLLAPSE); the rest gets none either: the "
			    "policy is madvise and it has no MADV_HUGEPAGE region");
	/* under always the rest could: no second reason */
	unit_set_choice(&H.thp.enabled, EN, 3, "always");
	why_explain(&IN, &R);
	assert_int_equal(R.sum.none, WN_NH_OPTED);
	assert_null(strstr(sum_text(), "the rest"));
	/* the opt-out is a small part: the policy stays the reason */
	unit_set_choice(&H.thp.enabled, EN, 3, "madvise");
	vma(&IN.vmas, "[heap]", 131072, 0, 0, 0);
	why_explain(&IN, &R);
	assert_int_equal(R.sum.none, WN_MADVISE_NO_HG);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	/* thread stacks (guard + stack, nh since 6.7) are the kernel's, not an opt-out */
	build(&why_cases[1]);
	struct smaps_vma g = unit_vma(0x7e0000000000ull, 4, "", VMF_NH);
	struct smaps_vma st = unit_vma(0x7e0000001000ull, 8188, "", VMF_NH);
	snprintf(g.perms, sizeof(g.perms), "---p");
	snprintf(st.perms, sizeof(st.perms), "rw-p");
	st.t.kb[SM_ANONYMOUS] = 8188;
	st.t.present |= 1u << SM_ANONYMOUS;
	memset(&IN.vmas, 0, sizeof(IN.vmas));
	why_vmas_add(&IN.vmas, &g);
	why_vmas_add(&IN.vmas, &st);
	assert_int_equal(IN.vmas.thread_stacks, 1);
	why_explain(&IN, &R);
	assert_int_equal(R.sum.none, WN_MADVISE_NO_HG);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* khugepaged helps only a process that has something it would collapse (issue 22, 6). */
static void test_khugepaged_helps_only_with_hg(UNIT_STATE)
{
	build(&why_cases[1]); /* madvise, no hg */
	const struct why_line *k = line_of("khugepaged", "nothing of it to collapse");
	assert_non_null(k);
	assert_int_equal(k->effect, WE_NEUTRAL);
	assert_contains(ltext(k), "it has no MADV_HUGEPAGE region (enabled=madvise)");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	build(&why_cases[0]); /* madvise, one hg VMA */
	k = line_of("khugepaged", "may collapse its MADV_HUGEPAGE regions later");
	assert_non_null(k);
	assert_int_equal(k->effect, WE_HELPS);
	/* fully huge already (AnonHugePages = its hg regions' Rss): nothing left to collapse */
	one_hg(65536, 65536, 65536);
	why_explain(&IN, &R);
	k = line_of("khugepaged", "khugepaged");
	assert_non_null(k);
	assert_int_equal(k->effect, WE_NEUTRAL);
	assert_string_equal(ltext(k), "khugepaged has nothing left of it to collapse: its "
				      "MADV_HUGEPAGE regions are huge-backed already "
				      "(max_ptes_none=511)");
	/* 2 MiB of it in small pages: it may still collapse that */
	one_hg(65536, 65536, 63488);
	why_explain(&IN, &R);
	k = line_of("khugepaged", "may collapse its MADV_HUGEPAGE regions later");
	assert_non_null(k);
	assert_int_equal(k->effect, WE_HELPS);
	/* under always: all its anonymous memory huge */
	unit_set_choice(&H.thp.enabled, EN, 3, "always");
	one_hg(65536, 65536, 65536);
	why_explain(&IN, &R);
	k = line_of("khugepaged", "khugepaged");
	assert_int_equal(k->effect, WE_NEUTRAL);
	assert_contains(ltext(k), "its anonymous memory is huge-backed already");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* 6.18+: THP_enabled 1 cannot tell a process that set PR_THP_DISABLE_EXCEPT_ADVISED; the line
 * says what that would be (THP only where it madvised), in plain words. */
static void test_prctl_line_words_except_advised(UNIT_STATE)
{
	build(&why_cases[0]); /* THP_enabled 1 */
	const struct why_line *l = line_of("prctl", "THP_enabled 1");
	assert_non_null(l);
	assert_string_equal(ltext(l),
			    "THP_enabled 1: THP is not disabled by prctl(PR_SET_THP_DISABLE)");
	H.feat.except_advised = TRI_YES;
	why_explain(&IN, &R);
	l = line_of("prctl", "THP_enabled 1");
	assert_non_null(l);
	assert_int_equal(l->effect, WE_NEUTRAL);
	assert_string_equal(
		ltext(l), "THP_enabled 1: THP is not disabled by prctl(PR_SET_THP_DISABLE) for the "
			  "whole process; it may still have set PR_THP_DISABLE_EXCEPT_ADVISED "
			  "(6.18+), which reads 1 too: then it gets THP only in the regions it "
			  "madvised (MADV_HUGEPAGE)");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* The text: every fact carries a mark of the legend, a neutral one '=' (not a blank). */
static void test_every_fact_has_a_legend_mark(UNIT_STATE)
{
	build(&why_cases[2]); /* always, huge without hg: neutral lines among the others */
	struct unit_mem m;
	why_render_text(unit_mem_open(&m), &IN, &R, false);
	char *t = unit_mem_text(&m);
	assert_contains(t, "\n= defrag ");
	assert_contains(t, "\n(+ helps, - stands in the way, = neither, ? unknown)\n");
	for (int i = 0; i < R.n; i++) {
		char want[64];
		snprintf(want, sizeof(want), "\n%c %s ", "=+-?"[R.lines[i].effect],
			 R.lines[i].topic);
		assert_contains(t, want);
	}
	free(t);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

UNIT_MAIN_CASES("test_why", test_why_case, why_cases, cmocka_unit_test(test_hints),
		cmocka_unit_test(test_cgroup_parse), cmocka_unit_test(test_vmas),
		cmocka_unit_test(test_pmd_size_policy), cmocka_unit_test(test_environ_intact),
		cmocka_unit_test(test_thread_stacks),
		cmocka_unit_test(test_headline_names_the_largest_cost),
		cmocka_unit_test(test_bloated_headline_matches_the_share),
		cmocka_unit_test(test_huge_headline_says_invented_unknown),
		cmocka_unit_test(test_headline_names_the_nh_opt_out),
		cmocka_unit_test(test_khugepaged_helps_only_with_hg),
		cmocka_unit_test(test_prctl_line_words_except_advised),
		cmocka_unit_test(test_every_fact_has_a_legend_mark))
