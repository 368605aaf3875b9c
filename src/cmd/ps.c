// SPDX-License-Identifier: MIT
/* `thpctl ps`: THP use of every process (`maps PID` is in maps.c). */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/capture.h"
#include "../kernel/kv.h"
#include "../kernel/parse.h"
#include "../kernel/proc_read.h"
#include "../kernel/procs.h"
#include "../kernel/thp_settings.h"
#include "../kernel/users.h"
#include "../model/proc.h"
#include "../render/ledger.h"
#include "../render/ps.h"
#include "../util/buf.h"
#include "../util/num.h"
#include "alloc.h"
#include "args.h"
#include "common.h"
#include "ledger.h"
#include "ps_by.h"
#include "ps_int.h"

static void ps_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl ps [--all] [--rollup] [--sort KEY] [--pid PID[,PID...]]\n"
		"                 [--user NAME|UID] [--min-ahp SIZE] [--cgroup PATH]\n"
		"                 [--ledger | --folios [--cont SIZE] | --by cgroup] [--json]\n\n"
		"Processes that use, request (MADV_HUGEPAGE: hg) or refuse (MADV_NOHUGEPAGE: nh,\n"
		"prctl PR_SET_THP_DISABLE: THP_EN 0) huge pages. Kernel threads are left out.\n\n"
		"Reading full /proc/PID/smaps walks each target's page tables and briefly takes\n"
		"its mmap_lock (its mmap/munmap/page faults wait meanwhile). --rollup reads only\n"
		"smaps_rollup + status: cheaper and gentler, but no hg/nh/THPeligible.\n\n"
		"options:\n"
		"  --all             every process, not only those with something THP-related\n"
		"  --rollup          smaps_rollup + status only (no page flags)\n"
		"  --sort KEY        ahp (default), rss, share, hg, pid, comm\n"
		"  --pid LIST        only these PIDs (repeatable, comma-separated); when none\n"
		"                    has memory to show: exit 1, saying why for each\n"
		"  --user NAME|UID   only this user's processes\n"
		"  --min-ahp SIZE    only AnonHugePages >= SIZE (bytes; k, M, G suffixes)\n"
		"  --by cgroup       sum the selected processes per memory cgroup (the one\n"
		"                    whose cgroup.procs lists them; with --all: every process)\n"
		"  --cgroup PATH     only the processes of this cgroup and its descendants\n"
		"                    (cgroup.procs; /sys/fs/cgroup/..., relative to it, or\n"
		"                    as `thpctl cgroups` prints it: under v1's memory/)\n"
		"  --folios          memory by folio size (mTHP too), from pagemap and\n"
		"                    /proc/kpageflags (root; otherwise PMD-mapped only)\n"
		"  --cont SIZE       with --folios: also count aligned contiguous blocks\n"
		"                    of SIZE within one folio (e.g. 64K: arm64 contpte)\n"
		"  --ledger          what THP buys and costs each process: HUGE, INVENTED\n"
		"                    (never-written bytes inside PMD THPs, estimated from 8\n"
		"                    subpages per THP via /proc/PID/mem), HELD (partially\n"
		"                    mapped folios waiting for deferred split; root, or\n"
		"                    0 for anyone when the host's counters show none),\n"
		"                    CREEP (what khugepaged may still add) and LAZYFREE\n"
		"                    (freed with MADV_FREE, in RSS until reclaimed); FLAG\n"
		"                    names the largest cost over 16 MiB and 25%%\n" GLOBAL_HELP
		"\nRun as a user other than root, processes of other users are counted as not\n"
		"readable and the result is marked partial.\n");
}

enum {
	OPT_ALL = OPT_CMD_BASE,
	OPT_ROLLUP,
	OPT_SORT,
	OPT_PID,
	OPT_USER,
	OPT_MIN_AHP,
	OPT_CGROUP,
	OPT_FOLIOS,
	OPT_CONT,
	OPT_LEDGER,
	OPT_BY,
};

/* --sort's keys (enum ps_sort) */
static const char *const sort_names[] = {"ahp", "rss", "share", "hg", "pid", "comm"};
static int sort_key;

static int cmp_rows(const void *a, const void *b)
{
	const struct ps_row *x = a, *y = b;
	int c = 0;
	if (sort_key == SORT_PID)
		return x->p.pid < y->p.pid ? -1 : x->p.pid > y->p.pid;
	if (sort_key == SORT_COMM)
		c = strcmp(x->p.st.name, y->p.st.name);
	else if (sort_key == SORT_RSS)
		c = cmp_u64_desc(x->p.st.vmrss_kb.v, y->p.st.vmrss_kb.v);
	else if (sort_key == SORT_HG)
		c = cmp_u64_desc(x->p.hg_kb, y->p.hg_kb);
	else if (sort_key == SORT_SHARE) {
		double sx = proc_thp_share(&x->p), sy = proc_thp_share(&y->p);
		c = sx < sy ? 1 : sx > sy ? -1 : 0;
	} else
		c = cmp_u64_desc(x->p.t.kb[SM_ANON_HUGE], y->p.t.kb[SM_ANON_HUGE]);
	if (!c)
		c = x->p.pid < y->p.pid ? -1 : x->p.pid > y->p.pid;
	return c;
}

static int cmp_pid_t(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

bool ps_wanted_pid(const struct ps_opts *o, pid_t pid)
{
	if (o->cgroup && !bsearch(&pid, o->cg_pids, o->ncg, sizeof(pid), cmp_pid_t))
		return false;
	if (!o->npids)
		return true;
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return true;
	return false;
}

/* ROW's ledger (--ledger; its VMAs in LV from the walk) and allocator (--ledger, --json; its
 * libraries in WALK when the walk gave them, else maps is read). -ENOMEM or 0. */
static int row_extras(struct globals *g, const struct ps_opts *o, struct ps_row *row,
		      struct ledger_vmas *lv, struct alloc_raw *walk)
{
	if (o->ledger) {
		if (!(row->led = malloc(sizeof(*row->led))))
			return -ENOMEM;
		if (row->denied)
			ledger_unknown(-1, row->led);
		else if (ledger_for_proc(&g->sr, &o->q, &row->p, lv, row->led) == -ENOMEM)
			return -ENOMEM;
	}
	if ((o->ledger || g->json) && !o->by_cgroup) {
		if (!(row->alloc = malloc(sizeof(*row->alloc))))
			return -ENOMEM;
		if ((walk ? alloc_collect_walked(&g->sr, row->p.pid, walk, row->alloc)
			  : alloc_collect(&g->sr, row->p.pid, row->alloc))) {
			free(row->alloc);
			row->alloc = NULL;
		}
	}
	return 0;
}

/* Whether ROW, its smaps read, is shown under O; its reason set when it is. */
static bool row_readable(struct globals *g, const struct ps_opts *o, struct ps_report *r,
			 struct ps_row *row)
{
	if (row->p.t.kb[SM_ANON_HUGE] < o->min_ahp_kb ||
	    (!o->all && !o->npids && !proc_thp_relevant(&row->p)))
		return false;
	/* hg shmem follows shmem_enabled: read when a row has some (ps_shmem_rules) */
	if (!r->shmem && proc_thp_hg_shmem(&row->p))
		r->shmem = ps_shmem_rules(g);
	row->reason = proc_thp_reason(&row->p, r->policy, r->shmem);
	row->shm_off = proc_thp_shmem_off(&row->p, r->shmem, NULL);
	if (!row->p.has_vmflags && !o->rollup)
		r->flags_absent = true;
	return true;
}

static int ps_scan(struct globals *g, const struct ps_opts *o, struct ps_report *r)
{
	pid_t *pids;
	int n = procs_list(&g->sr, &pids);
	if (n < 0) {
		warnx("ps: cannot list %s/proc: %s", g->sr.path, strerror(-n));
		return EXIT_FAIL;
	}
	struct buf b = {0};
	struct ledger_vmas lv = {0};
	/* the allocator's libraries from the smaps walk (NULL: maps read for them, as --rollup must) */
	struct alloc_raw *walk = (o->ledger || g->json) && !o->by_cgroup && !o->rollup
					 ? malloc(sizeof(*walk))
					 : NULL;
	struct users users = {0};
	size_t cap = 0;
	int ret = EXIT_OK;
	/* room for every row at once (untouched room costs nothing): grown by doubling, each
	 * realloc copied the rows into fresh pages (~10 us a first touch on some hypervisors) */
	(void)array_reserve(&r->rows, &cap, (size_t)n, sizeof(*r->rows), 64);
	struct progress pr;
	progress_start(&pr, "reading smaps");
	for (int i = 0; i < n; i++) {
		if (!ps_wanted_pid(o, pids[i]))
			continue;
		progress_update(&pr, (size_t)i, (size_t)n);
		struct ps_row row = {0};
		int err;
		/* --ledger's VMAs and the allocator's libraries come from the same smaps walk */
		if (walk)
			memset(walk, 0, sizeof(*walk));
		enum proc_thp_err e =
			proc_thp_collect_lv(&g->sr, pids[i], o->rollup, &b, &row.p, &err,
					    o->ledger ? &lv : NULL, o->q.policy, walk);
		if (e == PT_GONE || e == PT_KTHREAD)
			continue;
		if (e == PT_ERROR) {
			r->errors++;
			/* smaps failed after status: keep the row, its smaps columns unknown */
			if (!row.p.status_read || err == ENOMEM)
				continue;
			/* nothing of a walk that failed half-way is shown or summed */
			struct proc_thp keep = {.pid = row.p.pid,
						.st = row.p.st,
						.status_read = true,
						/* the status's damage: smaps's is not shown */
						.damaged = proc_status_nbad(&row.p.st),
						.rollup = row.p.rollup};
			row.p = keep;
		}
		if (o->uid >= 0 && row.p.st.uid != o->uid)
			continue;
		if (o->user && o->uid < 0) {
			const char *nm = users_name(&g->sr, &users, row.p.st.uid);
			if (strcmp(nm, o->user) != 0)
				continue;
		}
		row.denied = e == PT_DENIED || e == PT_ERROR;
		if (row.p.damaged)
			r->damaged++;
		if (row.denied) {
			r->denied += e == PT_DENIED;
			/* --by cgroup keeps it: counted in its group's UNREADABLE */
			if (!o->all && !o->npids && !o->by_cgroup && row.p.st.thp_enabled != 0)
				continue;
		} else if (!row_readable(g, o, r, &row)) {
			continue;
		}
		if (row.denied && o->min_ahp_kb)
			continue;
		if (row_extras(g, o, &row, &lv, e == PT_OK ? walk : NULL)) {
			r->errors++;
			free(row.led);
			free(row.alloc);
			continue;
		}
		snprintf(row.user, sizeof(row.user), "%s",
			 users_name(&g->sr, &users, row.p.st.uid));
		if (array_reserve(&r->rows, &cap, r->n + 1, sizeof(*r->rows), 64)) {
			warnx("out of memory");
			free(row.led);
			free(row.alloc);
			ret = EXIT_FAIL;
			break;
		}
		r->rows[r->n++] = row;
	}
	progress_end(&pr);
	free(pids);
	free(walk);
	buf_free(&b);
	ledger_vmas_free(&lv);
	users_free(&users);
	return ret;
}

/* One option of ps into CTX (struct ps_opts). */
static int ps_opt(int c, const char *arg, void *ctx)
{
	struct ps_opts *o = ctx;
	const struct args_store st[] = {
		ARGS_FLAG(OPT_ALL, &o->all), ARGS_FLAG(OPT_ROLLUP, &o->rollup),
		ARGS_ARG(OPT_CGROUP, &o->cgroup), ARGS_FLAG(OPT_FOLIOS, &o->folios),
		ARGS_FLAG(OPT_LEDGER, &o->ledger)};
	if (args_store(c, arg, st, ARGS_N(st)) == -1)
		return -1;
	uint64_t bytes;
	switch (c) {
	case OPT_SORT:
		for (o->sort = 0; o->sort < SORT_N && strcmp(arg, sort_names[o->sort]); o->sort++)
			;
		if (o->sort == SORT_N) {
			warnx("ps: --sort takes ahp, rss, share, hg, pid or comm, not '%s'", arg);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_PID:
		if (args_pid_list(arg, &o->pids, &o->npids, &o->pids_cap)) {
			warnx("ps: bad PID list '%s'", arg);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_USER: {
		long v;
		if (str_long(arg, 0, LONG_MAX, &v) == 0)
			o->uid = v;
		else
			o->user = arg;
		return -1;
	}
	case OPT_MIN_AHP:
		if (args_size(arg, 0, &bytes, "ps: bad size '%s' (e.g. 64M)", arg))
			return EXIT_USAGE;
		o->min_ahp_kb = bytes / 1024 + (bytes % 1024 != 0); /* no wrap at 2^64 - 1 */
		return -1;
	case OPT_CONT:
		return args_cont("ps", arg, &o->cont_kb);
	case OPT_BY:
		if (strcmp(arg, "cgroup")) {
			warnx("ps: --by takes cgroup (sums per memory cgroup), not '%s'", arg);
			return EXIT_USAGE;
		}
		o->by_cgroup = true;
		return -1;
	default:
		return -2;
	}
}

/* Options of `ps` into O. Returns -1 to go on, else the exit code. */
static int ps_opts(struct globals *g, int argc, char **argv, struct ps_opts *o)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS,
					     OPT_FLAG("all", OPT_ALL),
					     OPT_FLAG("rollup", OPT_ROLLUP),
					     OPT_ARG("sort", OPT_SORT),
					     OPT_ARG("pid", OPT_PID),
					     OPT_ARG("user", OPT_USER),
					     OPT_ARG("min-ahp", OPT_MIN_AHP),
					     OPT_ARG("cgroup", OPT_CGROUP),
					     OPT_FLAG("folios", OPT_FOLIOS),
					     OPT_ARG("cont", OPT_CONT),
					     OPT_FLAG("ledger", OPT_LEDGER),
					     OPT_ARG("by", OPT_BY),
					     OPTS_END};
	int c = args_getopt(g, argc, argv, "h", opts, ps_help, ps_opt, o);
	if (c >= 0)
		return c;
	if (o->cont_kb && !o->folios) {
		warnx("ps: --cont needs --folios");
		return EXIT_USAGE;
	}
	if (o->by_cgroup && (o->folios || o->ledger)) {
		warnx("ps: --by cgroup does not combine with --folios or --ledger");
		return EXIT_USAGE;
	}
	if (o->ledger && (o->folios || o->rollup)) {
		warnx("ps: --ledger needs full smaps (not with --rollup or --folios)");
		return EXIT_USAGE;
	}
	if (o->folios && (o->rollup || o->min_ahp_kb)) {
		warnx("ps: --folios does not combine with --rollup or --min-ahp");
		return EXIT_USAGE;
	}
	if (optind < argc) {
		warnx("ps: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_ps(struct globals *g, int argc, char **argv)
{
	struct ps_opts o = {.sort = SORT_AHP, .uid = -1};
	int ret = ps_opts(g, argc, argv, &o);
	if (ret >= 0)
		goto out;
	if ((ret = cmd_setup(g)))
		goto out;
	if (o.user) {
		/* live: NSS (LDAP/SSSD users too); a tree: its etc/passwd */
		long uid;
		int e = users_uid(&g->sr, o.user, &uid);
		if (e == -ENOENT) {
			if (g->sr.live)
				warnx("ps: no user '%s' (getpwnam)", o.user);
			else
				warnx("ps: no user '%s' in %s/etc/passwd", o.user, g->sr.path);
			ret = EXIT_USAGE;
			goto out;
		}
		if (!e)
			o.uid = uid; /* else unreadable: rows are matched by name */
	}
	if (o.cgroup && (ret = ps_cgroup_pids(g, o.cgroup, &o.cg_pids, &o.ncg)))
		goto out;
	if (o.folios) {
		ret = ps_folios(g, &o);
		goto out;
	}
	struct ps_report r = {.rollup = o.rollup, .as_root = geteuid() == 0};
	r.recorded = !g->sr.live;
	r.capture = capture_tree(&g->sr); /* it records few processes: said under the table */
	bundle_skips_of(&g->sr.skips, &r.skips); /* a bundle extracted in part: partial */
	r.relevant_only = !(o.all || o.npids || o.user || o.uid >= 0 || o.cgroup || o.min_ahp_kb);
	char policy[CHOICE_LEN];
	if (thp_pmd_policy(&g->sr, policy, sizeof(policy)) == 0)
		r.policy = policy;
	char lpolicy[CHOICE_LEN];
	if (o.ledger) {
		o.q = (struct ledger_req){.k = LEDGER_K, .held = true, .budget_ms = 300};
		ledger_req_host(&g->sr, &o.q, lpolicy, sizeof(lpolicy));
		r.ledger = true;
		r.ledger_k = LEDGER_K;
		r.host_partial_thps = ledger_host_partial(&g->sr);
	}
	ret = ps_scan(g, &o, &r);
	r.has_host_ahp = host_ahp_kb(g, &r.host_ahp_kb);
	/* --pid: why each PID not shown is not (none there, a kernel thread ...); none: exit 1 */
	if (ret == EXIT_OK && o.npids &&
	    cmd_pids_no_mm(g, "ps", o.pids, o.npids, ps_row_shown, &r) == o.npids && !r.n &&
	    !r.denied && !r.errors)
		ret = EXIT_FAIL;
	if (ret == EXIT_OK) {
		sort_key = o.sort;
		if (r.n)
			qsort(r.rows, r.n, sizeof(r.rows[0]), cmp_rows);
		if (o.by_cgroup)
			ret = ps_by_cgroup(g, &r);
		else if (g->json)
			ret = cmd_emit_json(ps_to_json(&r));
		else if (r.ledger)
			ps_ledger_render_text(stdout, &r, g->color);
		else
			ps_render_text(stdout, &r, g->color);
	}
	for (size_t i = 0; i < r.n; i++) {
		free(r.rows[i].alloc);
		free(r.rows[i].led);
	}
	free(r.rows);
out:
	free(o.pids);
	free(o.cg_pids);
	return ret;
}
