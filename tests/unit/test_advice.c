// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/model/advice.c, table-driven: (kernel, settings,
 * processes, --workload) -> the `thpctl set` line, levers and notes. The
 * pieces `advise` detects with are in test_advice_detect.c.
 */
#include "unit.h"

#include "kernel/features.h"
#include "kernel/kv.h"
#include "kernel/parse.h"
#include "model/advice.h"
#include "util/esc.h"
#include "render/advice.h"
#include "render/finding_text.h"
#include "model/findings.h"
#include "model/host.h"

static const char *const EN[] = {"always", "madvise", "never"};
static const char *const DF[] = {"always", "defer", "defer+madvise", "madvise", "never"};
static const char *const PMD[] = {"always", "inherit", "madvise", "never"};

struct proc_spec {
	const char *comm;
	enum workload wl;
	int thp_enabled; /* 0 means 1 here; use -2 for "0" */
	bool limited;
	int ver0, ver1; /* 0: unknown */
	const char *cmdline;
	bool rewritten;	     /* cmdline is a process title written over argv */
	uint64_t huge_kb;    /* AnonHugePages */
	int hg_vmas;	     /* MADV_HUGEPAGE VMAs (of 1 GiB each) */
	int64_t invented_kb; /* its ledger flags this much invented (0: nothing flagged) */
	const char *exe; /* /proc/PID/exe when argv[0] (/usr/bin/COMM) is a symlink to another */
};

/* A case's THP settings (unused where the case has no THP). */
struct host_spec {
	const char *enabled, *defrag;
	unsigned mpn;
	int shrink;		 /* -1: no shrink_underused file (< 6.12) */
	const char *pmd_enabled; /* hugepages-2048kB/enabled, NULL: no per-size dirs (< 6.8) */
};

/* A stock 6.12+ host: enabled and defrag madvise, max_ptes_none 511, the shrinker on, 2 MiB inherits. */
// clang-format off
#define STOCK {"madvise", "madvise", 511, 1, "inherit"}
// clang-format on

struct adv_case {
	const char *name;
	const char *release;
	struct host_spec host;
	bool no_thp;
	int limited_cgroups;
	struct proc_spec procs[3];
	const char *requested; /* comma-separated --workload names */
	/* expectations */
	const char *set;      /* the whole `thpctl set` line, "" for none */
	int mixed;	      /* 0 any, 1 yes, 2 no */
	const char *lever;    /* a substring of some lever's command, what or alternatives */
	int lever_needed;     /* -1 don't care */
	const char *note;     /* a substring of some note */
	const char *reason;   /* a substring of some setting's reason */
	bool no_command;      /* the first process's lever has no runnable command */
	const char *no_lever; /* a substring no lever may have */
	const char *no_note;  /* a substring no note may have */
};

static const struct adv_case cases[] = {
	{.name = "defaults, nothing detected: no change",
	 .host = STOCK,
	 .set = "",
	 .mixed = 2,
	 .lever_needed = -1,
	 .note = "no known workload detected"},
	{.name = "defrag=always is changed first",
	 .host = {"always", "always", 64, 1, "inherit"},
	 .set = "thpctl set defrag=madvise",
	 .lever_needed = -1,
	 .reason = "change it first"},
	{.name = "Redis on a madvise host: no host change, the per-process lever as a safeguard",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 0, 0, "/usr/bin/redis-server *:6379"}},
	 .set = "",
	 .mixed = 2,
	 .lever = "thpctl run --thp=off -- /usr/bin/redis-server '*:6379'",
	 .lever_needed = 0},
	{.name = "Redis alone on an always host: host-wide madvise",
	 .host = {"always", "madvise", 511, 1, "inherit"},
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 2, "redis-server"}},
	 .set = "thpctl set enabled=madvise",
	 .mixed = 2,
	 .lever = "disable-thp yes",
	 .lever_needed = 0,
	 .reason = "Redis forks"},
	{.name = "Redis 6.0 gets no disable-thp advice",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 6, 0, "redis-server"}},
	 .set = "",
	 .lever = "MemoryTHP=disable",
	 .lever_needed = 0},
	{.name = "Redis and MongoDB 8 on one host: always, Redis opts out per process",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 2, "redis-server /etc/redis.conf"},
		   {"mongod", WL_MONGODB8, 0, false, 8, 0, "mongod -f /etc/mongod.conf"}},
	 .set = "thpctl set defrag=defer+madvise enabled=always khugepaged/max_ptes_none=0",
	 .mixed = 1,
	 .lever = "thpctl run --thp=off -- redis-server /etc/redis.conf",
	 .lever_needed = 1,
	 .note = "Redis wants THP off its memory, but MongoDB >= 8.0 needs enabled=always"},
	{.name = "MongoDB 8 alone",
	 .host = {"madvise", "madvise", 511, 0, "inherit"},
	 .requested = "mongodb8",
	 .set = "thpctl set defrag=defer+madvise enabled=always khugepaged/max_ptes_none=0 shrink_underused=1",
	 .mixed = 2,
	 .lever = "no per-process lever",
	 .lever_needed = 0},
	{.name = "MongoDB 8 started under a prctl opt-out",
	 .host = {"always", "defer+madvise", 0, 1, "inherit"},
	 .procs = {{"mongod", WL_MONGODB8, -2, false, 8, 0, "mongod"}},
	 .set = "",
	 .lever = "restart it without the prctl opt-out",
	 .lever_needed = 1},
	{.name = "MongoDB 7 on an always host: never",
	 .host = {"always", "madvise", 511, 1, "inherit"},
	 .requested = "mongodb7",
	 .set = "thpctl set enabled=never",
	 .lever_needed = -1},
	{.name = "mongodb without a version: 7.0 assumed, and said",
	 .host = STOCK,
	 .requested = "mongodb",
	 .set = "",
	 .lever_needed = -1,
	 .note = "assumed 7.0 or earlier"},
	{.name = "Redis and PostgreSQL on an always host: nothing wants always, so madvise",
	 .host = {"always", "madvise", 511, 1, "inherit"},
	 .requested = "redis,postgres",
	 .set = "thpctl set enabled=madvise",
	 .mixed = 1,
	 .lever = "thpctl hugetlb plan --for SHARED_BUFFERS --overhead 25",
	 .lever_needed = 0},
	{.name = "Redis and a JVM on an always host: the host stays, Redis opts out",
	 .host = {"always", "madvise", 64, 1, "inherit"},
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 2, "redis-server"},
		   {"java", WL_JVM, 0, false, 0, 0, "java -jar app.jar"}},
	 .set = "",
	 .mixed = 1,
	 .lever = "thpctl run --thp=off -- redis-server",
	 .lever_needed = 1},
	{.name = "JVM without the flag: the flag is the lever",
	 .host = STOCK,
	 .procs = {{"java", WL_JVM, 0, false, 0, 0, "java -Xmx8g -jar app.jar"}},
	 .set = "",
	 .lever = "-XX:+UseTransparentHugePages",
	 .lever_needed = 1},
	{.name = "kernel < 5.8 with always: madvise and per-process opt-outs",
	 .release = "4.14.355-275.582.amzn2.x86_64",
	 .host = {"always", "madvise", 511, -1, NULL},
	 .requested = "redis",
	 .set = "thpctl set enabled=madvise",
	 .lever = "thpctl run --thp=off",
	 .lever_needed = 0,
	 .reason = "< 5.8: the first write after fork"},
	{.name = "kernel < 5.8: the rule wins over throughput-batch",
	 .release = "5.4.0-150-generic",
	 .host = {"madvise", "madvise", 511, -1, NULL},
	 .requested = "throughput-batch",
	 .set = "thpctl set defrag=defer+madvise",
	 .lever_needed = -1,
	 .note = "throughput-batch wants enabled=always, but rule: cow-before-5.8 comes first"},
	{.name = "memory limits: max_ptes_none to PMD/8 and the shrinker on",
	 .host = {"madvise", "madvise", 511, 0, "inherit"},
	 .limited_cgroups = 2,
	 .set = "thpctl set khugepaged/max_ptes_none=64 shrink_underused=1",
	 .lever_needed = -1,
	 .reason = "memory cgroup"},
	{.name = "Go under a memory limit: max_ptes_none 0",
	 .host = {"always", "madvise", 511, 1, "inherit"},
	 .limited_cgroups = 1,
	 .procs = {{"api-server", WL_GO, 0, true, 1, 22, "/srv/api-server"}},
	 .set = "thpctl set khugepaged/max_ptes_none=0",
	 .lever = "GODEBUG=disablethp=1",
	 .lever_needed = 0,
	 .reason = "Go GC guide"},
	{.name = "dense containers on an always host",
	 .host = {"always", "madvise", 511, 0, "inherit"},
	 .requested = "dense-containers",
	 .set = "thpctl set enabled=madvise khugepaged/max_ptes_none=64 shrink_underused=1",
	 .lever_needed = -1},
	{.name = "dense containers before 6.12: no shrink_underused",
	 .release = "6.8.0-45-generic",
	 .host = {"madvise", "madvise", 511, -1, "inherit"},
	 .requested = "dense-containers",
	 .set = "thpctl set khugepaged/max_ptes_none=64",
	 .lever_needed = -1},
	{.name = "latency-critical: defrag=defer",
	 .host = STOCK,
	 .requested = "latency-critical",
	 .set = "thpctl set defrag=defer",
	 .lever_needed = -1},
	{.name = "throughput-batch: always, defer+madvise, max_ptes_none lowered",
	 .host = STOCK,
	 .requested = "throughput-batch",
	 .set = "thpctl set defrag=defer+madvise enabled=always khugepaged/max_ptes_none=64",
	 .lever_needed = -1,
	 .reason = "always-max-ptes-none"},
	{.name = "the PMD size's own policy is put back to inherit",
	 .host = {"madvise", "madvise", 64, 1, "never"},
	 .requested = "throughput-batch",
	 .set = "thpctl set defrag=defer+madvise enabled=always hugepages-2048kB/enabled=inherit",
	 .lever_needed = -1,
	 .reason = "overrides enabled"},
	{.name = "latency and batch disagree: the conflict is named",
	 .host = STOCK,
	 .requested = "latency-critical,throughput-batch",
	 .set = "thpctl set defrag=defer",
	 .lever_needed = -1,
	 .note = "throughput-batch wants enabled=always, but latency-critical comes first and "
		 "enabled=madvise stays: per process, its programs can still opt in with "
		 "MADV_HUGEPAGE, which enabled=madvise honours: GLIBC_TUNABLES=glibc.malloc.hugetlb=1",
	 /* ab offers glibc and env:MALLOC_CONF=thp:always: there are per-process levers */
	 .no_note = "no per-process lever gives throughput-batch"},
	{.name = "a JVM whose own ledger flags invented memory: no +UseTransparentHugePages",
	 .host = STOCK,
	 .procs = {{.comm = "java",
		    .wl = WL_JVM,
		    .cmdline = "java -jar app.jar",
		    .huge_kb = 1048576,
		    .hg_vmas = 1,
		    .invented_kb = 986112}},
	 .requested = "jvm",
	 .set = "",
	 .lever = "do not add -XX:+UseTransparentHugePages",
	 .lever_needed = 0,
	 .no_lever = "add -XX:+UseTransparentHugePages to its options"},
	{.name = "Redis already opted out",
	 .host = {"always", "madvise", 64, 1, "inherit"},
	 .procs = {{"redis-server", WL_REDIS, -2, false, 7, 2, "redis-server"},
		   {"mongod", WL_MONGODB8, 0, false, 8, 0, "mongod"}},
	 .set = "thpctl set defrag=defer+madvise khugepaged/max_ptes_none=0",
	 .lever = "already opted out",
	 .lever_needed = 0},
	{.name = "Redis with a rewritten process title: no command built from it, its arguments are unknown",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server *:7777", true}},
	 .set = "",
	 .lever =
		 "/usr/bin/redis-server ARGS...: its arguments are unknown (its command line reads 'redis-server *:7777'",
	 .lever_needed = 0,
	 .no_command = true},
	{.name = "a Redis with THP_enabled 1 is not told to keep an opt-out it does not have",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server /etc/redis.conf"}},
	 .set = "",
	 .lever = "not opted out (THP_enabled 1): opt it out of THP as a safeguard",
	 .lever_needed = 0,
	 .no_lever = "keep it opted out"},
	{.name = "Debian's redis-server, a symlink to redis-check-rdb: the command names redis-server",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server *:6379", true,
		    .exe = "/usr/bin/redis-check-rdb"}},
	 .set = "",
	 .lever = "thpctl run --thp=off -- /usr/bin/redis-server ARGS...",
	 .lever_needed = 0,
	 .no_lever = "redis-check-rdb",
	 .no_command = true},
	{.name = "Redis holding THP under madvise (jemalloc thp:always): the opt-out is needed, not a safeguard",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server /etc/redis.conf", false,
		    632 * 1024, 1}},
	 .set = "",
	 .lever = "opt it out of THP (restart it so)",
	 .lever_needed = 1},
	{.name = "Redis with MADV_HUGEPAGE VMAs not yet huge under madvise: the opt-out is needed",
	 .host = STOCK,
	 .procs = {{"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server", false, 0, 2}},
	 .set = "",
	 .lever = "opt it out of THP (restart it so)",
	 .lever_needed = 1},
	{.name = "a kernel without THP",
	 .no_thp = true,
	 .requested = "redis",
	 .set = "",
	 .lever_needed = -1,
	 .note = "no THP"},
};

static struct host_snapshot H;
static struct host_derived D;
static struct findings FS;
static struct adv_input IN;
static struct advice A;

static void build(const struct adv_case *c)
{
	unit_host_reset(&H, c->release ? c->release : "6.18.44-fc-v857");
	H.feat.cow_split = kver_at_least(H.feat.kver, 5, 8) ? TRI_YES : TRI_NO;
	H.feat.except_advised = TRI_UNKNOWN;
	if (!c->no_thp) {
		H.feat.thp = H.thp.present = true;
		unit_set_choice(&H.thp.enabled, EN, 3, c->host.enabled);
		unit_set_choice(&H.thp.defrag, DF, 5, c->host.defrag);
		H.thp.khp[KHP_MAX_PTES_NONE] = (struct opt_u64){.v = c->host.mpn, .present = true};
		if (c->host.shrink >= 0) {
			H.thp.shrink_underused =
				(struct opt_u64){.v = (uint64_t)c->host.shrink, .present = true};
			H.feat.shrink_underused = true;
		}
		if (c->host.pmd_enabled) {
			struct thp_size *sz = &H.thp.sizes[H.thp.nsizes++];
			sz->size_kb = 2048;
			sz->order = 9;
			unit_set_choice(&sz->enabled, PMD, 4, c->host.pmd_enabled);
			sz->eff_enabled = strcmp(sz->enabled.selected, "inherit") == 0
						  ? H.thp.enabled.selected
						  : sz->enabled.selected;
		}
	}
	assert_int_equal(
		vmstat_parse(LIT("compact_stall 7\nthp_fault_fallback_charge 3\n"), &H.vmstat), 0);
	H.has_vmstat = true;
	H.uptime_s = 3600;
	host_derive(&H, &D);
	findings_evaluate(&H, &D, &FS);

	memset(&IN, 0, sizeof(IN));
	IN.systemd_thp = 1; /* a systemd that knows MemoryTHP= */
	IN.h = &H;
	IN.d = &D;
	IN.fs = &FS;
	IN.limited_cgroups = c->limited_cgroups;
	IN.limited_procs = c->limited_cgroups;
	IN.smallest_limit = 512ull << 20;
	for (int i = 0; i < 3 && c->procs[i].comm; i++) {
		const struct proc_spec *s = &c->procs[i];
		struct adv_proc *p = &IN.procs[IN.nprocs++];
		p->pid = 1000 + i;
		p->ppid = 1;
		snprintf(p->comm, sizeof(p->comm), "%s", s->comm);
		p->wl = s->wl;
		p->thp_enabled = s->thp_enabled == -2 ? 0 : 1;
		p->limited = s->limited;
		p->limit_bytes = 512ull << 20;
		if (s->ver0) {
			p->has_ver = true;
			p->ver[0] = s->ver0;
			p->ver[1] = s->ver1;
			snprintf(p->ver_src, sizeof(p->ver_src), "test");
		}
		/* the command line as /proc/PID/cmdline has it: NUL-separated */
		char argv[256];
		size_t n = unit_split(argv, sizeof(argv), s->cmdline, ' ');
		snprintf(p->exe, sizeof(p->exe), "/usr/bin/%s", s->comm);
		memcpy(p->prog, p->exe, sizeof(p->prog)); /* argv[0]: /usr/bin/COMM */
		p->prog_check = -1;
		if (s->exe) { /* argv[0] leads to the running exe through a symlink */
			snprintf(p->exe, sizeof(p->exe), "%s", s->exe);
			p->prog_check = 1;
		}
		if (s->rewritten) {
			p->run.state = RUN_ARGS_REWRITTEN;
			assert_int_equal(shell_quote_argv(s->cmdline, strlen(s->cmdline) + 1,
							  p->title, sizeof(p->title)),
					 0);
		} else {
			p->run.state = RUN_ARGS_INTACT;
			p->run.len = n + 1;
			memcpy(p->run.argv, argv, n + 1);
		}
		p->has_smaps = true;
		p->anon_huge_kb = s->huge_kb;
		p->hg_vmas = s->hg_vmas;
		p->hg_kb = (uint64_t)s->hg_vmas << 20;
		p->java_thp = strstr(s->cmdline, "-XX:+UseTransparentHugePages") != NULL;
		if (s->invented_kb) {
			p->flagged_cost = LC_INVENTED;
			p->flagged_kb = s->invented_kb;
		}
	}
	if (c->requested) {
		char buf[128];
		snprintf(buf, sizeof(buf), "%s", c->requested);
		char *save = NULL;
		for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			enum workload w;
			bool assumed;
			assert_int_equal(workload_parse(t, &w, &assumed), 0);
			IN.requested |= 1u << w;
			IN.mongodb_assumed |= assumed;
		}
	}
	advice_build(&IN, &A);
}

/* The advice's sentences (render/advice_words.c), in rotating buffers. */
static char tb[8][1024];
static int tn;
#define TB (tb[tn++ % 8])
static const char *set_cmd(void)
{
	return advice_command(&A, "set", TB, sizeof(tb[0]));
}
static const char *persist_cmd(void)
{
	return advice_command(&A, "persist", TB, sizeof(tb[0]));
}
static const char *l_what(const struct adv_lever *l)
{
	return advice_lever_what(l, TB, sizeof(tb[0]));
}
static const char *l_cmd(const struct adv_lever *l)
{
	return advice_lever_command(l, TB, sizeof(tb[0]));
}
static const char *l_alt(const struct adv_lever *l, int k)
{
	return advice_lever_alt(l, k, TB, sizeof(tb[0]));
}
static const char *n_text(const struct adv_note *n)
{
	return advice_note_text(n, TB, sizeof(tb[0]));
}
static const char *s_reason(const struct adv_setting *s)
{
	return advice_setting_reason(s, TB, sizeof(tb[0]));
}
static const char *s_by(const struct adv_setting *s)
{
	return advice_setting_by(s, TB, sizeof(tb[0]));
}

static void dump(const struct adv_case *c)
{
	print_error("case: %s\n  set: '%s'\n", c->name, set_cmd());
	for (int i = 0; i < A.nsettings; i++)
		print_error("  setting %s %s -> %s (%s)\n", A.s[i].key, A.s[i].now, A.s[i].want,
			    s_by(&A.s[i]));
	for (int i = 0; i < A.nlevers; i++)
		print_error("  lever pid %ld needed %d: %s | %s\n", A.l[i].pid, A.l[i].needed,
			    l_what(&A.l[i]), l_cmd(&A.l[i]));
	for (int i = 0; i < A.nnotes; i++)
		print_error("  note %s: %s\n", adv_note_kind_name(A.notes[i].kind),
			    n_text(&A.notes[i]));
}

static bool lever_has(const char *needle, int *needed)
{
	for (int i = 0; i < A.nlevers; i++) {
		const struct adv_lever *l = &A.l[i];
		bool hit = strstr(l_cmd(l), needle) || strstr(l_what(l), needle);
		for (int k = 0; k < l->nalt; k++)
			hit = hit || strstr(l_alt(l, k), needle);
		if (hit) {
			*needed = l->needed;
			return true;
		}
	}
	return false;
}

/* One case of the table (cmocka runs each as its own test, named after it). */
static void test_case(UNIT_STATE)
{
	const struct adv_case *c = *state;
	build(c);
	bool ok = strcmp(set_cmd(), c->set) == 0;
	if (ok && c->mixed)
		ok = A.mixed == (c->mixed == 1);
	int needed = -1;
	if (ok && c->lever)
		ok = lever_has(c->lever, &needed) &&
		     (c->lever_needed < 0 || needed == c->lever_needed);
	if (ok && c->note) {
		bool hit = false;
		for (int k = 0; k < A.nnotes; k++)
			hit = hit || strstr(n_text(&A.notes[k]), c->note);
		ok = hit;
	}
	if (ok && c->reason) {
		bool hit = false;
		for (int k = 0; k < A.nsettings; k++)
			hit = hit || strstr(s_reason(&A.s[k]), c->reason) ||
			      strstr(s_by(&A.s[k]), c->reason);
		ok = hit;
	}
	int dummy;
	if (ok && c->no_lever)
		ok = !lever_has(c->no_lever, &dummy);
	for (int k = 0; ok && c->no_note && k < A.nnotes; k++)
		ok = !strstr(n_text(&A.notes[k]), c->no_note);
	if (ok && c->no_command)
		for (int k = 0; k < A.nlevers; k++)
			if (A.l[k].pid == 1000)
				ok = ok && l_cmd(&A.l[k])[0] == '\0';
	/* persist always mirrors set, and installs what keeps it (status's persist lines) */
	if (ok && c->set[0])
		ok = strncmp(persist_cmd(), "thpctl persist --install ", 25) == 0 &&
		     strcmp(persist_cmd() + 25, set_cmd() + 11) == 0;
	if (!ok)
		dump(c);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	assert_true(ok);
}

/* The opt-out lever of the first Redis process in case C (built), its reason into *WHY. */
static const struct adv_lever *redis_lever(const struct adv_case *c, const char **why)
{
	build(c);
	for (int i = 0; i < A.nlevers; i++)
		if (A.l[i].wl == WL_REDIS && A.l[i].pid == 1000) {
			*why = advice_lever_reason(&A.l[i], TB, sizeof(tb[0]));
			return &A.l[i];
		}
	return NULL;
}

/*
 * Huge pages outside any MADV_HUGEPAGE VMA are not its allocator asking: they were made
 * under an enabled=always (or by MADV_COLLAPSE). Under madvise its opt-out was marked needed
 * with "its allocator asks for huge pages" beside "0 MADV_HUGEPAGE VMAs".
 */
static void test_opt_out_huge_outside_hg_is_not_the_allocator(UNIT_STATE)
{
	const char *why = NULL;
	static const struct adv_case before = {.name = "Redis 7.0 holding THP in no hg VMA",
					       .host = STOCK,
					       .procs = {{.comm = "redis-server",
							  .wl = WL_REDIS,
							  .ver0 = 7,
							  .cmdline = "redis-server",
							  .huge_kb = 6144}},
					       .set = ""};
	const struct adv_lever *l = redis_lever(&before, &why);
	assert_non_null(l);
	assert_false(l->needed);
	assert_string_equal(
		why, "it holds 6144 kB of THP now (AnonHugePages) but no MADV_HUGEPAGE VMA (its "
		     "/proc/1000/smaps): made under an enabled=always, now or before, or by "
		     "MADV_COLLAPSE; enabled=madvise makes it no new ones, and these stay until it "
		     "restarts (neither the setting nor an opt-out splits them); opting out per "
		     "process keeps it so if the host is ever set to always");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	/* the same with one hg VMA: its allocator does ask, and madvise honours it */
	static const struct adv_case asks = {.name = "Redis 7.0 with a MADV_HUGEPAGE VMA",
					     .host = STOCK,
					     .procs = {{.comm = "redis-server",
							.wl = WL_REDIS,
							.ver0 = 7,
							.cmdline = "redis-server",
							.huge_kb = 6144,
							.hg_vmas = 1}},
					     .set = ""};
	l = redis_lever(&asks, &why);
	assert_non_null(l);
	assert_true(l->needed);
	assert_contains(why, "it holds 6144 kB of THP now (AnonHugePages) and 1 MADV_HUGEPAGE VMA "
			     "of 1.00 GiB");
	assert_contains(why, "its allocator asks for huge pages");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* MemoryTHP= is offered only where the installed systemd knows it (probed, never assumed). */
static void test_systemd_only_where_it_knows(UNIT_STATE)
{
	int dummy;
	for (size_t i = 0; i < UNIT_LEN(cases); i++) {
		build(&cases[i]);
		if (!lever_has("MemoryTHP=disable", &dummy))
			continue;
		IN.systemd_thp = 0;
		advice_build(&IN, &A);
		assert_false(lever_has("MemoryTHP", &dummy));
		IN.systemd_thp = -1;
		advice_build(&IN, &A);
		assert_false(lever_has("MemoryTHP", &dummy));
		host_snapshot_free(&H);
		memset(&H, 0, sizeof(H));
		return;
	}
	fail_msg("no case offers MemoryTHP=");
}

/* Each recommended setting says why, and who asked. */
static void test_every_setting_has_a_reason(UNIT_STATE)
{
	for (size_t i = 0; i < UNIT_LEN(cases); i++) {
		build(&cases[i]);
		for (int k = 0; k < A.nsettings; k++) {
			if (!s_reason(&A.s[k])[0] || !s_by(&A.s[k])[0])
				dump(&cases[i]);
			assert_true(s_reason(&A.s[k])[0]);
			assert_true(s_by(&A.s[k])[0]);
		}
		for (int k = 0; k < A.nlevers; k++)
			assert_true(l_what(&A.l[k])[0]);
	}
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* The text of advise for IN and A (advice_render_text), into a static buffer. */
static const char *advise_text(void)
{
	static char out[16384];
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	assert_non_null(f);
	advice_render_text(f, &IN, &A, false);
	fclose(f);
	snprintf(out, sizeof(out), "%s", text);
	free(text);
	return out;
}

/*
 * The ledger's pass says how many processes it could not read and that the result is
 * partial (text and JSON), and its counts add up to the processes it found, so that
 * "processes N scanned" and "K of M flagged" reconcile.
 */
static void test_ledger_unreadable_is_partial(UNIT_STATE)
{
	build(&cases[0]);
	IN.scanned = 12;
	IN.ledger_scan = 1;
	IN.ledger_procs = 12;
	IN.ledger_scanned = 1;
	IN.ledger_unreadable = 10;
	IN.ledger_self = 1;
	advice_build(&IN, &A);
	assert_true(advice_ledger_partial(&IN));
	assert_true(advice_partial(&IN));
	const char *t = advise_text();
	assert_contains(
		t, "no process flagged by its THP ledger (of 1 processes whose ledger was read:");
	assert_contains(
		t, "  the ledger read 1 of 12 processes with memory (partial): 10 smaps not "
		   "readable (run as root or as the process's owner), thpctl itself skipped\n");
	json_t *j = advice_to_json(&IN, &A);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "partial")));
	assert_int_equal(json_integer_value(json_object_get(j, "ledger_processes")), 12);
	assert_int_equal(json_integer_value(json_object_get(j, "ledger_scanned")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "ledger_unreadable")), 10);
	assert_int_equal(json_integer_value(json_object_get(j, "ledger_self_skipped")), 1);
	json_decref(j);
	/* none read (nobody on a host of root's processes): never "no process flagged" */
	IN.ledger_scanned = 0;
	IN.ledger_unreadable = 11;
	advice_build(&IN, &A);
	t = advise_text();
	assert_contains(t, "no process could be checked: the THP ledger read none\n");
	assert_null(strstr(t, "no process flagged"));
	/* as root, PID 1 of another namespace: denied even to root */
	IN.as_root = true;
	IN.ledger_scanned = 10;
	IN.ledger_unreadable = 1;
	assert_contains(
		advise_text(),
		"the ledger read 10 of 12 processes with memory (partial): 1 "
		"smaps not readable (denied even to root: another namespace or a security module)");
	/* only thpctl itself left out: not partial, still reconciled */
	IN.ledger_scanned = 11;
	IN.ledger_unreadable = 0;
	assert_false(advice_partial(&IN));
	assert_contains(advise_text(), "the ledger read 11 of 12 processes with memory: thpctl "
				       "itself skipped\n");
	j = advice_to_json(&IN, &A);
	assert_true(json_is_false(json_object_get(j, "partial")));
	json_decref(j);
	/* a process started between the workload pass and the ledger's: said, not hidden */
	IN.scanned = 13;
	assert_contains(advise_text(), "thpctl itself skipped (the Host line's 13 are from the "
				       "workload pass a moment earlier)\n");
	IN.scanned = 12;
	/* everything read, the two passes found as many: no line */
	IN.scanned = 11;
	IN.ledger_procs = 11;
	IN.ledger_self = 0;
	assert_null(strstr(advise_text(), "the ledger read"));
	/* a recorded tree: the ledger is not scanned, its counts null */
	IN.ledger_scan = 0;
	j = advice_to_json(&IN, &A);
	assert_true(json_is_null(json_object_get(j, "ledger_processes")));
	assert_true(json_is_null(json_object_get(j, "ledger_unreadable")));
	json_decref(j);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/*
 * The processes not fully readable are one count, among the ledger pass's processes: those whose
 * smaps was denied (the ledger line's count) or whose exe link the workload pass was denied,
 * each once; the note and the JSON say the same numbers and what they count (a trial as nobody
 * read "ledger read 0 of 29: 28 smaps not readable" beside "4 of 29 not fully readable").
 */
static void test_unreadable_counted_once_as_the_ledger_counts(UNIT_STATE)
{
	build(&cases[0]);
	IN.scanned = 29;
	for (long pid = 100; pid < 104; pid++) /* big processes: exe link denied */
		assert_int_equal(advice_exe_denied(&IN, pid), 0);
	assert_int_equal(IN.unreadable, 4); /* the workload pass's own count */
	IN.ledger_scan = 1;
	IN.unreadable = IN.unreadable_of = 0; /* advise_ledger() counts again */
	for (long pid = 100; pid < 128; pid++) {
		IN.ledger_procs++;
		advice_count_unreadable(&IN, pid, true); /* 28 smaps denied, 100-103 among them */
	}
	IN.ledger_procs++;
	IN.ledger_self = 1;
	IN.unreadable_of = IN.ledger_procs;
	assert_int_equal(IN.ledger_unreadable, 28);
	assert_int_equal(IN.unreadable, 28); /* not 28 + 4 */
	/* a process whose smaps was read but whose exe link was denied counts once too */
	IN.ledger_procs++;
	IN.ledger_scanned++;
	advice_count_unreadable(&IN, 103, false);
	advice_count_unreadable(&IN, 200, false); /* read whole: not counted */
	IN.ledger_scanned++;
	IN.ledger_procs++;
	IN.unreadable_of = IN.ledger_procs;
	assert_int_equal(IN.ledger_unreadable, 28);
	assert_int_equal(IN.unreadable, 29);
	advice_build(&IN, &A);
	const char *t = advise_text();
	assert_contains(t,
			"the ledger read 2 of 31 processes with memory (partial): 28 smaps not "
			"readable (run as root or as the process's owner), thpctl itself skipped");
	assert_contains(t, "29 of 31 processes with memory not fully readable (smaps or exe link "
			   "denied; 28 of them smaps, the ledger's count above): their THP ledger, "
			   "versions, Go binaries and systemd units are unknown (run as root or as "
			   "the process's owner)");
	json_t *j = advice_to_json(&IN, &A);
	assert_int_equal(json_integer_value(json_object_get(j, "unreadable")), 29);
	assert_int_equal(json_integer_value(json_object_get(j, "unreadable_of")), 31);
	assert_int_equal(json_integer_value(json_object_get(j, "ledger_unreadable")), 28);
	assert_int_equal(json_integer_value(json_object_get(j, "ledger_processes")), 31);
	json_decref(j);
	/* no ledger (a recorded tree): the workload pass's count, of its processes */
	IN.ledger_scan = 0;
	IN.recorded = true;
	IN.unreadable = 1;
	IN.unreadable_of = 4;
	advice_build(&IN, &A);
	assert_contains(advise_text(), "1 of 4 processes with memory not fully readable (smaps not "
				       "recorded, or exe link denied): the capture was taken");
	advice_input_free(&IN);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* A process's ledger as the ledger's pass leaves it: HUGE kB PMD-mapped, INVENTED and CREEP kB. */
static struct thp_ledger ledger_of(int64_t huge, int64_t invented, int64_t creep, int64_t rss)
{
	struct thp_ledger l;
	ledger_unknown(huge, &l);
	l.invented_kb = invented;
	l.method = LM_SAMPLED;
	l.invented_gap = LG_OK;
	l.held_kb = 0;
	l.held_gap = LG_OK;
	l.creep_kb = creep;
	l.creep_gap = LG_OK;
	l.max_ptes_none = 511;
	l.rss_kb = rss;
	l.lazyfree_kb = 0;
	l.referenced_kb = rss / 10;
	l.pte_full_kb = 0;
	return l;
}

/* Add a scanned process PID with ledger L to IN (counted, listed when flagged, one of others). */
static void ledger_proc(long pid, const char *comm, struct thp_ledger l)
{
	IN.ledger_scan = 1;
	IN.ledger_procs++;
	IN.ledger_scanned++;
	advice_ledger_count(&IN, &l);
	struct remedy_other *o = &IN.others[IN.nothers++];
	*o = (struct remedy_other){
		.pid = pid, .creep_kb = l.creep_kb, .invented_kb = l.invented_kb};
	snprintf(o->comm, sizeof(o->comm), "%s", comm);
	if (ledger_top_cost(&l) == LC_NONE)
		return;
	struct remedy_proc *p = &IN.flagged[IN.nflagged++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->thp_enabled = 1;
	p->led = l;
}

/* The setting KEY of A, NULL when advise has none. */
static const struct adv_setting *setting_of(const char *key)
{
	for (int i = 0; i < A.nsettings; i++)
		if (!strcmp(A.s[i].key, key))
			return &A.s[i];
	return NULL;
}

/* The note ID of A, NULL when there is none. */
static const struct adv_note *note_of(enum adv_note_id id)
{
	for (int i = 0; i < A.nnotes; i++)
		if (A.notes[i].id == id)
			return &A.notes[i];
	return NULL;
}

/*
 * The user's host (madvise, max_ptes_none 511, shrink_underused 1): status's finding
 * shrink-underused-noop, and two processes whose ledger flags ~64 MiB invented each. advise
 * now lowers max_ptes_none to 64 and says on what evidence, keeps shrink_underused at 1,
 * and offers the same host change, as a bound, in each process's remedy.
 */
static void test_shrink_noop_with_ledger_evidence(UNIT_STATE)
{
	build(&cases[0]); /* STOCK */
	bool finding = false;
	for (int i = 0; i < FS.n; i++)
		finding |= FS.f[i].kind == FK_SHRINK_UNDERUSED_NOOP;
	assert_true(finding);
	ledger_proc(4242, "sparse_a", ledger_of(65536, 65408, 0, 65600));
	ledger_proc(4243, "sparse_b", ledger_of(65536, 65024, 0, 65600));
	ledger_proc(1, "init", ledger_of(0, 0, 0, 12000)); /* nothing flagged */
	assert_int_equal(IN.sparse_procs, 2);
	assert_int_equal(IN.invented_procs, 2);
	assert_int_equal(IN.invented_kb, 130432);
	assert_int_equal(IN.creep_procs, 0);
	assert_int_equal(IN.nflagged, 2);
	advice_build(&IN, &A);
	assert_string_equal(set_cmd(), "thpctl set khugepaged/max_ptes_none=64");
	/* the command that keeps it, as status's persist line says it (it printed a snippet) */
	assert_string_equal(persist_cmd(), "thpctl persist --install khugepaged/max_ptes_none=64");
	assert_contains(advise_text(), "Keep across reboots (root; without --install it prints "
				       "what it writes):\n  thpctl persist --install "
				       "khugepaged/max_ptes_none=64\n");
	/* where tuned applies THP settings, as a tuned profile (status: --format tuned) */
	FS.f[FS.n].kind = FK_TUNED_SETS_THP;
	FS.n++;
	advice_build(&IN, &A);
	assert_string_equal(persist_cmd(),
			    "thpctl persist --format tuned --install khugepaged/max_ptes_none=64");
	FS.n--;
	advice_build(&IN, &A);
	const struct adv_setting *s = setting_of("khugepaged/max_ptes_none");
	assert_non_null(s);
	assert_string_equal(s->now, "511");
	assert_string_equal(s->want, "64");
	assert_int_equal(s->nwhy, 1);
	assert_int_equal(s->why[0].id, AW_RULE_SHRINK_NOOP_LEDGER);
	assert_string_equal(s->why[0].who, "rule: shrink-underused-noop");
	assert_int_equal(s->why[0].sparse_procs, 2);
	assert_int_equal(s->why[0].invented_kb, 130432);
	assert_string_equal(
		s_reason(s),
		"2 processes hold ~127.4 MiB invented (never-written pages inside huge "
		"pages: thpctl ps --ledger): at max_ptes_none=511 the underused shrinker "
		"(shrink_underused=1) splits none of their THPs; at 64 or below it can "
		"split, under memory pressure, THPs with more than max_ptes_none "
		"zero-filled pages and free those pages, and khugepaged collapses only "
		"ranges with at most max_ptes_none empty pages (it collapses less); what "
		"that frees is at most the amount above: an upper bound, not a measured "
		"saving (finding shrink-underused-noop)");
	/* shrink_underused stays 1: it is what splits them */
	s = setting_of("shrink_underused");
	assert_non_null(s);
	assert_false(s->change);
	assert_string_equal(s->want, "1");
	/* the settings cover status's finding: no note on it */
	assert_null(note_of(ANI_SHRINK_UNDECIDED));
	/* each remedy offers the host change last, as a bound, with the other process named */
	assert_int_equal(A.nrem, 2);
	const struct remedy *r = &A.rem[0];
	const struct remedy_fix *f = &r->fix[r->nfix - 1];
	assert_int_equal(f->id, RF_HOST_SHRINK);
	assert_true(f->upper_bound);
	assert_int_equal(f->saves_kb, 65408);
	assert_int_equal(f->max_ptes_none, 64);
	assert_int_equal(f->others, 1);
	assert_int_equal(f->other_pid[0], 4243);
	assert_int_equal(f->others_kb, 65024);
	/* JSON: the rule's id and its facts */
	json_t *j = advice_to_json(&IN, &A);
	json_t *why = json_array_get(
		json_object_get(json_array_get(json_object_get(j, "settings"), 0), "reasons"), 0);
	assert_string_equal(json_string_value(json_object_get(why, "id")), "shrink-underused-noop");
	assert_string_equal(json_string_value(json_object_get(why, "by")),
			    "rule: shrink-underused-noop");
	json_t *l = json_object_get(why, "ledger");
	assert_int_equal(json_integer_value(json_object_get(l, "processes")), 2);
	assert_int_equal(json_integer_value(json_object_get(l, "invented_processes")), 2);
	assert_int_equal(json_integer_value(json_object_get(l, "invented_kb")), 130432);
	assert_true(json_is_true(json_object_get(l, "invented_estimate")));
	assert_int_equal(json_integer_value(json_object_get(l, "creep_kb")), 0);
	/* shrink_underused's own reason has no ledger facts */
	why = json_array_get(
		json_object_get(json_array_get(json_object_get(j, "settings"), 1), "reasons"), 0);
	assert_string_equal(json_string_value(json_object_get(why, "id")), "shrink-underused");
	assert_true(json_is_null(json_object_get(why, "ledger")));
	json_decref(j);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* Creep alone is evidence too: khugepaged fills fewer pages at 64; the words say creep. */
static void test_shrink_noop_with_creep(UNIT_STATE)
{
	build(&cases[0]);
	struct thp_ledger l = ledger_of(0, 0, 245760, 65536);
	l.creep_eighth_kb = 40960; /* ranges with at most 64 empty pages: khugepaged still fills */
	ledger_proc(500, "server", l);
	ledger_proc(501, "other", ledger_of(0, 0, 8192, 1 << 20)); /* creeps, not flagged */
	assert_int_equal(IN.sparse_procs, 1);
	assert_int_equal(IN.creep_procs, 1);
	assert_int_equal(IN.creep_kb, 245760);
	advice_build(&IN, &A);
	assert_string_equal(set_cmd(), "thpctl set khugepaged/max_ptes_none=64");
	const struct adv_setting *s = setting_of("khugepaged/max_ptes_none");
	assert_non_null(s);
	const char *t = s_reason(s);
	assert_contains(t, "1 process may grow by up to 240.0 MiB through khugepaged (creep: "
			   "thpctl ps --ledger): at max_ptes_none=511");
	assert_contains(t, "what that stops is at most the amount above: an upper bound");
	assert_null(strstr(t, "invented"));
	/* the creep remedy has its own host fix, not the shrinker's, at the value the settings
	 * recommend: one report, one value for the knob (a trial read max_ptes_none=0 there and
	 * 64 under Settings); it saves the creep less what khugepaged still adds at 64 */
	const struct remedy *r = &A.rem[0];
	const struct remedy_fix *mpn = NULL;
	for (int i = 0; i < r->nfix; i++) {
		assert_int_not_equal(r->fix[i].id, RF_HOST_SHRINK);
		if (r->fix[i].id == RF_HOST_MPN)
			mpn = &r->fix[i];
	}
	assert_non_null(mpn);
	assert_int_equal(mpn->max_ptes_none, 64);
	assert_true(mpn->planned);
	assert_int_equal(mpn->saves_kb, 245760 - 40960);
	assert_true(mpn->upper_bound);
	t = advise_text();
	assert_null(strstr(t, "max_ptes_none=0"));
	assert_contains(t,
			"host: khugepaged then collapses only ranges with at most 64 empty "
			"pages: the ranges with more stop creeping, the others stay; the value "
			"Settings recommends below, for the whole host; 1 other process has creep "
			"that it would lessen (8192 kB in all): PID 501 (other)");
	assert_contains(t, "thpctl set khugepaged/max_ptes_none=64\n");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/*
 * Without the evidence no change, and a note says why status's finding is not followed:
 * nothing flagged (N read), the ledger not scanned (recorded tree), or it failed; nor when
 * the shrinker is off or max_ptes_none is below its maximum.
 */
static void test_shrink_noop_without_evidence(UNIT_STATE)
{
	build(&cases[0]);
	/* 8 MiB invented of 64 MiB: under the flag (16 MiB), so no evidence */
	ledger_proc(4242, "small", ledger_of(65536, 8192, 0, 65600));
	for (long pid = 2; pid < 15; pid++)
		ledger_proc(pid, "other", ledger_of(0, 0, 0, 4096));
	IN.ledger_procs += 2;
	IN.ledger_unreadable = 2;
	assert_int_equal(IN.sparse_procs, 0);
	advice_build(&IN, &A);
	assert_string_equal(set_cmd(), "");
	assert_null(setting_of("khugepaged/max_ptes_none"));
	const struct adv_note *n = note_of(ANI_SHRINK_UNDECIDED);
	assert_non_null(n);
	assert_int_equal(n->kind, AN_INFO);
	assert_string_equal(
		n_text(n),
		"status's finding shrink-underused-noop suggests "
		"khugepaged/max_ptes_none=64; advise follows it only where the ledger "
		"flags a process's invented or creep memory (over 16 MiB and 25%; thpctl "
		"ps --ledger), since khugepaged then also collapses less; here none of "
		"the 14 processes read is flagged so (2 not read: partial)");
	for (int i = 0; i < A.nrem; i++)
		for (int k = 0; k < A.rem[i].nfix; k++)
			assert_int_not_equal(A.rem[i].fix[k].id, RF_HOST_SHRINK);
	/* a recorded tree: no ledger, undecided */
	IN.ledger_scan = 0;
	advice_build(&IN, &A);
	assert_contains(n_text(note_of(ANI_SHRINK_UNDECIDED)),
			"collapses less; undecided here: the THP ledger needs the live system "
			"(pagemap, memory), not a recorded tree");
	IN.ledger_scan = -EACCES;
	advice_build(&IN, &A);
	assert_contains(n_text(note_of(ANI_SHRINK_UNDECIDED)),
			"collapses less; undecided here: the THP ledger could not be scanned "
			"(Permission denied)");
	IN.ledger_scan = 1;
	IN.ledger_scanned = 0;
	advice_build(&IN, &A);
	assert_contains(n_text(note_of(ANI_SHRINK_UNDECIDED)),
			"collapses less; undecided here: no process's ledger could be read");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	/* flagged, yet no change: MongoDB 7.0 turns THP off, which makes max_ptes_none moot;
	 * the note said "none of the N processes read is flagged so" */
	static const struct adv_case mongo = {
		.name = "MongoDB 7.0 under always, a sparse process",
		.host = {"always", "madvise", 511, 1, "inherit"},
		.procs = {{"mongod", WL_MONGODB7, 0, false, 7, 0, "mongod"}}};
	build(&mongo);
	ledger_proc(4242, "sparse", ledger_of(65536, 65408, 0, 65600));
	ledger_proc(4243, "other", ledger_of(0, 0, 0, 4096));
	assert_int_equal(IN.sparse_procs, 1);
	advice_build(&IN, &A);
	assert_contains(set_cmd(), "enabled=never");
	assert_null(setting_of("khugepaged/max_ptes_none"));
	assert_contains(n_text(note_of(ANI_SHRINK_UNDECIDED)),
			"collapses less; here 1 of the 2 processes read is flagged so, but the "
			"settings above turn THP off (enabled=never): no huge page is made or "
			"collapsed, so max_ptes_none changes nothing");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	/* the evidence, but the shrinker off, or max_ptes_none already below its maximum:
	 * no finding, no rule, no note */
	static const struct adv_case off = {.name = "shrinker off",
					    .host = {"madvise", "madvise", 511, 0, "inherit"}};
	static const struct adv_case low = {.name = "max_ptes_none 64",
					    .host = {"madvise", "madvise", 64, 1, "inherit"}};
	const struct adv_case *no_rule[] = {&off, &low};
	for (int i = 0; i < 2; i++) {
		build(no_rule[i]);
		ledger_proc(4242, "sparse", ledger_of(65536, 65408, 0, 65600));
		assert_int_equal(IN.sparse_procs, 1);
		advice_build(&IN, &A);
		assert_string_equal(set_cmd(), "");
		assert_null(note_of(ANI_SHRINK_UNDECIDED));
		assert_int_equal(A.nrem, 1);
		for (int k = 0; k < A.rem[0].nfix; k++)
			assert_int_not_equal(A.rem[0].fix[k].id, RF_HOST_SHRINK);
		host_snapshot_free(&H);
		memset(&H, 0, sizeof(H));
	}
}

/*
 * compact_stall counts every direct compaction, not only THP faults (the user's host: 106
 * stalls under defrag=madvise). status's finding compact-stall and advise's watch note decide
 * from the same compact_stall_cause(): a setting is offered only where every THP fault may
 * compact (always), both say "consider ... only if" under madvise, and neither blames THP
 * where defrag stalls no THP fault or no THP fault happened.
 */
static void test_compact_stall_status_and_advise_agree(UNIT_STATE)
{
	static const struct {
		const char *defrag, *vmstat;
		const char *set_value; /* status's setting, "" none */
		const char *fix;       /* status's fix starts so */
		const char *note;      /* advise's watch note has it */
		const char *advise_set;
	} k[] = {
		{"madvise", "compact_stall 106\nthp_fault_alloc 531416\nthp_fault_fallback 310\n",
		 "", "consider thpctl set defrag=defer, only if thpctl trace stalls",
		 "consider defrag=defer, only if thpctl trace stalls", ""},
		{"defer+madvise", "compact_stall 106\nthp_fault_alloc 5\nthp_fault_fallback 3\n",
		 "", "consider thpctl set defrag=defer, only if", "consider defrag=defer, only if",
		 ""},
		{"always", "compact_stall 106\nthp_fault_alloc 5\nthp_fault_fallback 3\n",
		 "madvise", "thpctl set defrag=madvise  #",
		 /* advise moves defrag off always: the note is of madvise after it */
		 "if it keeps rising, consider defrag=defer", "thpctl set defrag=madvise"},
		{"defer", "compact_stall 106\nthp_fault_alloc 5\nthp_fault_fallback 3\n", "",
		 "none for THP (defrag=defer makes no THP fault compact)",
		 "the stalls are other allocations (defrag=defer makes no THP fault compact)", ""},
		{"madvise", "compact_stall 106\nthp_fault_alloc 0\nthp_fault_fallback 0\n", "",
		 "none for THP (no THP page fault since boot)",
		 "the stalls are other allocations (no THP page fault since boot)", ""},
	};
	for (size_t i = 0; i < UNIT_LEN(k); i++) {
		struct adv_case c = {.name = "compact", .host = STOCK};
		c.host.defrag = k[i].defrag;
		build(&c);
		kvlist_clear(&H.vmstat);
		assert_int_equal(vmstat_parse(k[i].vmstat, strlen(k[i].vmstat), &H.vmstat), 0);
		host_derive(&H, &D);
		findings_evaluate(&H, &D, &FS);
		advice_build(&IN, &A);
		const struct finding *f = NULL;
		for (int j = 0; j < FS.n; j++)
			if (FS.f[j].kind == FK_COMPACT_STALL)
				f = &FS.f[j];
		assert_non_null(f);
		struct finding_text w;
		finding_text(f, &w);
		assert_string_equal(w.title,
				    "direct compaction stalled allocations 106 times since "
				    "boot (compact_stall, all allocations, not only THP)");
		assert_string_equal(f->set_value, k[i].set_value);
		assert_true(strncmp(w.fix, k[i].fix, strlen(k[i].fix)) == 0);
		const struct adv_note *n = note_of(ANI_WATCH_STALL);
		assert_non_null(n);
		assert_contains(n_text(n), k[i].note);
		assert_contains(n_text(n), "every direct compaction, not only THP faults");
		assert_string_equal(set_cmd(), k[i].advise_set);
		host_snapshot_free(&H);
		memset(&H, 0, sizeof(H));
	}
}

/*
 * What to change counts what ps --ledger flags apart from the processes that would gain (it
 * said "3 of 13 processes flagged by their THP ledger" where ps --ledger said 1); a gain's
 * bytes are no cost: JSON cost_kb null, gain_kb its bytes.
 */
static void test_remedies_count_flagged_apart_from_gains(UNIT_STATE)
{
	build(&cases[0]);
	ledger_proc(7300, "sparse", ledger_of(65536, 65408, 0, 65600));
	for (long pid = 7306; pid <= 7307; pid++) { /* two that would gain */
		struct thp_ledger l = ledger_of(0, 0, 0, 66970);
		l.pte_full_kb = 65536;
		l.pte_full_ranges = 32;
		l.referenced_kb = 66970;
		ledger_proc(pid, "plain", l);
		struct remedy_proc *p = &IN.flagged[IN.nflagged++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->thp_enabled = 1;
		p->led = l;
		p->referenced_hot = true;
	}
	for (long pid = 1; pid <= 10; pid++)
		ledger_proc(pid, "other", ledger_of(0, 0, 0, 4096));
	advice_build(&IN, &A);
	assert_int_equal(A.nrem, 3);
	assert_int_equal(A.nrem_cost, 1);
	assert_int_equal(A.nrem_gain, 2);
	assert_contains(
		advise_text(),
		"What to change (of 13 processes whose THP ledger was read: 1 flagged by its "
		"THP ledger, 2 "
		"that would gain from huge pages; listed by what acting saves, fixes ranked by what "
		"each saves)\n");
	json_t *j = advice_to_json(&IN, &A);
	assert_int_equal(json_integer_value(json_object_get(j, "flagged_cost")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "flagged_gain")), 2);
	json_t *fl = json_object_get(j, "flagged");
	json_t *cost = json_array_get(fl, 0), *gain = json_array_get(fl, 1);
	assert_string_equal(json_string_value(json_object_get(cost, "cost")), "invented");
	assert_int_equal(json_integer_value(json_object_get(cost, "cost_kb")), 65408);
	assert_true(json_is_null(json_object_get(cost, "gain_kb")));
	assert_true(json_is_null(json_object_get(gain, "cost")));
	assert_true(json_is_null(json_object_get(gain, "cost_kb")));
	assert_int_equal(json_integer_value(json_object_get(gain, "gain_kb")), 65536);
	json_decref(j);
	/* only gains: none flagged, said so */
	memmove(&IN.flagged[0], &IN.flagged[1], 2 * sizeof(IN.flagged[0]));
	IN.nflagged = 2;
	advice_build(&IN, &A);
	assert_contains(
		advise_text(),
		"What to change (of 13 processes whose THP ledger was read: none flagged by "
		"its THP ledger, 2 that would gain from huge pages;");
	/* two passes over proc/: the Host line's count (processes with memory, the workload
	 * pass) and the ledger's differ, each said for what it counts, the difference explained
	 * even when the ledger read all of its own pass */
	IN.scanned = 15;
	const char *t = advise_text();
	assert_contains(t, "  processes  15 with memory scanned");
	assert_contains(t, "of 13 processes whose THP ledger was read");
	assert_contains(t, "the ledger read all 13 processes with memory then (the Host line's 15 "
			   "are from the workload pass a moment earlier)");
	assert_null(strstr(t, "processes scanned"));
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/*
 * A user's host: 10 processes flagged (~64 MiB never written each) and 8 that would gain; advise
 * listed 16 in PID order, the gains first, and cut 2 flagged ones ("8 flagged by their THP
 * ledger, 8 that would gain ..., more not shown") while ps --ledger said 10. The list is
 * ordered by what acting saves (costs first, largest first; gains after), all are counted,
 * and the text says how many of each kind are not shown and where to see them.
 */
static void test_remedies_listed_by_saving(UNIT_STATE)
{
	build(&cases[0]);
	for (long pid = 100; pid < 106; pid++) { /* gains, low PIDs first */
		struct thp_ledger l = ledger_of(0, 0, 0, 300000);
		l.pte_full_kb = 65536 + (pid - 100) * 4096;
		l.referenced_kb = 300000;
		struct remedy_proc *p = &IN.flagged[IN.nflagged++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->thp_enabled = 1;
		p->led = l;
		p->referenced_hot = true;
		IN.ledger_scan = 1;
		IN.ledger_procs++;
		IN.ledger_scanned++;
	}
	ledger_proc(200, "small", ledger_of(65536, 40000, 0, 65600));
	ledger_proc(300, "large", ledger_of(131072, 120000, 0, 131100));
	/* advise_ledger kept the 16 that save most; 2 costs and 2 gains left out */
	IN.flagged_dropped = 4;
	IN.flagged_dropped_cost = 2;
	advice_build(&IN, &A);
	assert_int_equal(A.nrem, 8);
	assert_int_equal(A.rem[0].p->pid, 300); /* the largest cost first */
	assert_int_equal(A.rem[1].p->pid, 200);
	assert_int_equal(A.rem[2].p->pid, 105); /* then the gain with the most bytes */
	assert_int_equal(A.rem[7].p->pid, 100);
	assert_true(advice_flagged_cmp(&IN.flagged[6], &IN.flagged[0]) < 0); /* a cost first */
	assert_true(advice_flagged_cmp(&IN.flagged[0], &IN.flagged[1]) > 0); /* fewer bytes */
	const char *t = advise_text();
	assert_contains(t,
			"4 flagged by their THP ledger (2 not shown, the least costly: ps "
			"--ledger lists them), 8 that would gain from huge pages (2 not shown, "
			"those with the fewest fully written bytes); listed by what acting saves");
	assert_null(strstr(t, "more not shown"));
	json_t *j = advice_to_json(&IN, &A);
	assert_int_equal(json_integer_value(json_object_get(j, "flagged_cost")), 4);
	assert_int_equal(json_integer_value(json_object_get(j, "flagged_gain")), 8);
	assert_int_equal(json_integer_value(json_object_get(j, "flagged_not_listed")), 4);
	assert_int_equal(json_integer_value(json_object_get(j, "flagged_cost_not_listed")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "flagged")), 8);
	json_decref(j);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/*
 * A JVM that runs with -XX:+UseTransparentHugePages and whose ledger flags 129.8 MiB never
 * written: Per process said "already runs with ...: its heap is madvised: under
 * enabled=madvise it gets THP" as if fine, while What to change flags it. Its line now names
 * the flag. JAVA_TOOL_OPTIONS's command is the command alone: its prose went through
 * wrap_put_command, which broke it with a shell continuation backslash.
 */
static void test_jvm_lever_names_its_flagged_cost(UNIT_STATE)
{
	static const struct adv_case c = {
		.name = "JVM with the flag, its ledger flags invented",
		.host = STOCK,
		.procs = {{.comm = "java",
			   .wl = WL_JVM,
			   .cmdline = "java -XX:+UseTransparentHugePages -jar app.jar",
			   .huge_kb = 262144,
			   .hg_vmas = 1,
			   .invented_kb = 132915}},
		.requested = "jvm",
		.set = ""};
	build(&c);
	const struct adv_lever *l = NULL;
	for (int i = 0; i < A.nlevers; i++)
		if (A.l[i].wl == WL_JVM)
			l = &A.l[i];
	assert_non_null(l);
	assert_contains(l_what(l), "already runs with -XX:+UseTransparentHugePages");
	assert_string_equal(advice_lever_reason(l, TB, sizeof(tb[0])),
			    "but its ledger flags 129.8 MiB invented (huge pages never written): "
			    "see What to change above");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	static const struct adv_case add = {
		.name = "JVM without the flag",
		.host = STOCK,
		.procs = {{"java", WL_JVM, 0, false, 0, 0, "java -jar a.jar"}},
		.set = ""};
	build(&add);
	for (int i = 0; i < A.nlevers; i++)
		if (A.l[i].wl == WL_JVM)
			l = &A.l[i];
	assert_string_equal(l_cmd(l), "JAVA_TOOL_OPTIONS=-XX:+UseTransparentHugePages");
	assert_string_equal(advice_lever_command_note(l, TB, sizeof(tb[0])),
			    "in its environment, then restart it");
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/*
 * Two redis-server processes, one of them a copy whose version is unknown: the Workloads line
 * said "version 7.0" for both PIDs (the first version found). A version is the workload's only
 * when every process of it agrees; else each process says its own (text and JSON).
 */
static void test_workload_version_only_when_all_agree(UNIT_STATE)
{
	static const struct adv_case same = {
		.name = "two redis 7.0",
		.host = STOCK,
		.procs = {{"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server"},
			  {"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server"}},
		.set = ""};
	build(&same);
	assert_string_equal(A.wl[WL_REDIS].version, "7.0");
	assert_false(A.wl[WL_REDIS].versions_differ);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
	static const struct adv_case differ = {
		.name = "redis 7.0 and a copy of unknown version",
		.host = STOCK,
		.procs = {{"redis-server", WL_REDIS, 0, false, 7, 0, "redis-server"},
			  {"redis-server", WL_REDIS, 0, false, 0, 0, "redis-server"}},
		.set = ""};
	build(&differ);
	assert_string_equal(A.wl[WL_REDIS].version, "");
	assert_true(A.wl[WL_REDIS].versions_differ);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	advice_render_text(f, &IN, &A, false);
	fclose(f);
	assert_contains(text, "versions differ: PID 1000 7.0 (test), PID 1001 unknown");
	assert_null(strstr(text, ", version 7.0"));
	free(text);
	json_t *j = advice_to_json(&IN, &A);
	json_t *w = json_array_get(json_object_get(j, "workloads"), 0);
	assert_true(json_is_null(json_object_get(w, "version")));
	assert_true(json_is_true(json_object_get(w, "versions_differ")));
	json_t *v = json_object_get(w, "versions");
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 0), "version")),
			    "7.0");
	assert_true(json_is_null(json_object_get(json_array_get(v, 1), "version")));
	json_decref(j);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/*
 * Run as nobody, advise read 1 ledger of 14: its settings said "no recommendation: nothing here
 * asks for a change" while its note said "undecided here". The setting whose evidence is the
 * ledger is undecided, and the settings say so and why (text and JSON); as root, a process
 * even root cannot read leaves the decision made, partial.
 */
static void test_settings_undecided_without_the_ledger(UNIT_STATE)
{
	build(&cases[0]); /* STOCK: status's finding shrink-underused-noop */
	ledger_proc(4242, "mine", ledger_of(0, 0, 0, 4096));
	IN.ledger_procs += 13;
	IN.ledger_unreadable = 13;
	advice_build(&IN, &A);
	assert_null(setting_of("khugepaged/max_ptes_none"));
	const char *t = advise_text();
	assert_null(strstr(t, "nothing here asks for a change"));
	assert_contains(t,
			"Settings (now -> recommended)\n  undecided: khugepaged/max_ptes_none=64 "
			"(status's finding shrink-underused-noop) rests on the THP ledger of "
			"each process, and the ledger read only 1 of 14 processes (13 not "
			"read: run as root or as the process's owner)\n");
	json_t *j = advice_to_json(&IN, &A);
	json_t *u = json_object_get(j, "undecided");
	assert_string_equal(json_string_value(json_object_get(u, "key")),
			    "khugepaged/max_ptes_none");
	assert_string_equal(json_string_value(json_object_get(u, "ledger")), "not-read");
	json_decref(j);
	/* none read at all */
	IN.ledger_scanned = 0;
	advice_build(&IN, &A);
	assert_contains(advise_text(), "and no process's ledger could be read (13 not read: run "
				       "as root or as the process's owner)\n");
	/* a recorded tree: the ledger needs the live system */
	IN.ledger_scan = 0;
	advice_build(&IN, &A);
	assert_contains(advise_text(), "and the ledger needs the live system (pagemap, memory), "
				       "not a recorded tree\n");
	/* as root, 13 read and 1 denied even to root: decided (partial, said by the note) */
	IN.ledger_scan = 1;
	IN.as_root = true;
	IN.ledger_scanned = 13;
	IN.ledger_unreadable = 1;
	advice_build(&IN, &A);
	assert_null(A.undecided);
	assert_contains(advise_text(), "no recommendation: nothing here asks for a change");
	j = advice_to_json(&IN, &A);
	assert_true(json_is_null(json_object_get(j, "undecided")));
	json_decref(j);
	host_snapshot_free(&H);
	memset(&H, 0, sizeof(H));
}

/* Every reason has an id for advise --json (docs/json/advise.json lists them), none twice. */
static void test_every_reason_has_an_id(UNIT_STATE)
{
	for (int i = 0; i < AW_N; i++) {
		const char *n = adv_why_name((enum adv_why_id)i);
		assert_string_not_equal(n, "?");
		for (int k = 0; k < i; k++)
			assert_string_not_equal(n, adv_why_name((enum adv_why_id)k));
	}
	assert_string_equal(adv_why_name(AW_RULE_SHRINK_NOOP_LEDGER), "shrink-underused-noop");
	assert_string_equal(adv_why_name(AW_N), "?");
}

UNIT_MAIN_CASES("test_advice", test_case, cases, cmocka_unit_test(test_every_setting_has_a_reason),
		cmocka_unit_test(test_systemd_only_where_it_knows),
		cmocka_unit_test(test_ledger_unreadable_is_partial),
		cmocka_unit_test(test_unreadable_counted_once_as_the_ledger_counts),
		cmocka_unit_test(test_shrink_noop_with_ledger_evidence),
		cmocka_unit_test(test_shrink_noop_with_creep),
		cmocka_unit_test(test_shrink_noop_without_evidence),
		cmocka_unit_test(test_compact_stall_status_and_advise_agree),
		cmocka_unit_test(test_remedies_count_flagged_apart_from_gains),
		cmocka_unit_test(test_remedies_listed_by_saving),
		cmocka_unit_test(test_jvm_lever_names_its_flagged_cost),
		cmocka_unit_test(test_opt_out_huge_outside_hg_is_not_the_allocator),
		cmocka_unit_test(test_settings_undecided_without_the_ledger),
		cmocka_unit_test(test_every_reason_has_an_id),
		cmocka_unit_test(test_workload_version_only_when_all_agree))
