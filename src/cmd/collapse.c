// SPDX-License-Identifier: MIT
/* `thpctl collapse PID`: process_madvise(MADV_COLLAPSE) over a process's memory. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/buddyinfo.h"
#include "../kernel/parse.h"
#include "../kernel/proc_read.h"
#include "../kernel/procmem.h"
#include "../kernel/sysfs.h"
#include "../kernel/thp_settings.h"
#include "../kernel/uapi_compat.h"
#include "../model/collapse.h"
#include "../render/collapse.h"
#include "../util/clock.h"
#include "../util/esc.h"
#include "../util/num.h"
#include "args.h"
#include "common.h"

#define MAX_RANGES 4096
#define MAX_REQ 64

/* VmRSS in kB as the report's long, -1 when unknown (or beyond a long: never on a live process) */
static long kb_long(const struct opt_u64 *o)
{
	return o->present && o->v <= LONG_MAX ? (long)o->v : -1;
}

static void collapse_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl collapse PID [--range START-END]... [--vma NAME]... [--dry-run]\n"
		"                       [--max-inflate X] [--force] [--json]\n\n"
		"Collapse PID's memory into huge pages now, with process_madvise(MADV_COLLAPSE)\n"
		"(Linux 6.1+): one call per PMD-aligned huge page, so each range reports the\n"
		"bytes collapsed, AnonHugePages and RSS of its VMAs before and after, the RSS\n"
		"the collapse invented (its growth: subpages never written, now resident\n"
		"zeroes) and the time taken. Before collapsing, each range's RSS growth is\n"
		"estimated from pagemap (pages present per huge-page range vs the whole huge\n"
		"pages a collapse makes resident); a range that would grow more than\n"
		"--max-inflate times is refused.\n"
		"MADV_COLLAPSE ignores enabled/defrag/max_ptes_* and may reclaim and compact\n"
		"to find a free huge page (it can stall the caller, not the target).\n\n"
		"Default: every private read-write anonymous VMA ([anon], [heap], [stack],\n"
		"[anon:NAME]) holding a whole aligned huge page, whatever its THPeligible\n"
		"(policy, which MADV_COLLAPSE ignores). Huge-page ranges with no page present\n"
		"(per /proc/PID/pagemap) are not tried, nor those PMD-mapped already (pagemap's\n"
		"PAGEMAP_SCAN, 6.7+; else AnonHugePages of the VMA in smaps): a range with\n"
		"nothing else is skipped, saying so, and --dry-run plans only the rest.\n\n"
		"options:\n"
		"  --range START-END  only this address range (hex, as in /proc/PID/maps;\n"
		"                     shrunk to whole aligned huge pages); repeatable\n"
		"  --vma NAME         only VMAs named NAME: [heap], [stack], [anon] (unnamed\n"
		"                     anonymous), [anon:x], a file path (whole, as in\n"
		"                     /proc/PID/maps); repeatable; a NAME no VMA has is an\n"
		"                     error (exit 1)\n"
		"  --dry-run          print the ranges and their estimate, collapse nothing\n"
		"  --max-inflate X    refuse ranges whose RSS would grow more than X times\n"
		"                     (default 2: at most half of each huge page invented)\n"
		"  --force            also try VMAs marked nh (MADV_NOHUGEPAGE), a process\n"
		"                     with THP disabled by prctl (THP_enabled: 0) and shmem\n"
		"                     whose shmem_enabled forbids huge pages (the kernel refuses\n"
		"                     them with EINVAL), and ranges over --max-inflate\n" GLOBAL_HELP
		"\nNeeds CAP_SYS_NICE and ptrace-read access to PID (root). Errors are explained:\n"
		"EPERM (privileges), EINVAL (kernel < 6.1, nh, prctl, shmem policy), ENOMEM (no\n"
		"free huge page: the free blocks of that order are shown), EAGAIN (retried with\n"
		"backoff), EBUSY (memory cgroup charge). Exit status: 0 all tried huge pages\n"
		"collapsed, 1 any failure, 2 usage error.\n");
}

enum { OPT_RANGE = OPT_CMD_BASE, OPT_VMA, OPT_DRY_RUN, OPT_FORCE, OPT_MAX_INFLATE };

struct vma_list {
	struct cvma *v;
	int n, cap;
};

static int vma_cb(const struct smaps_vma *v, void *ctx)
{
	struct vma_list *l = ctx;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 256;
		struct cvma *nv = realloc(l->v, (size_t)cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	struct cvma *o = &l->v[l->n++];
	memset(o, 0, sizeof(*o));
	o->start = v->start;
	o->end = v->end;
	memcpy(o->perms, v->perms, sizeof(o->perms));
	size_t nl = v->name_len < sizeof(o->name) - 1 ? v->name_len : sizeof(o->name) - 1;
	memcpy(o->name, v->name, nl);
	o->name[nl] = '\0';
	o->has_vmflags = v->has_vmflags;
	o->vmflags = v->vmflags;
	o->thp_eligible = v->thp_eligible;
	o->rss_kb = v->t.kb[SM_RSS];
	o->anon_kb = v->t.kb[SM_ANONYMOUS];
	o->ahp_kb = v->t.kb[SM_ANON_HUGE];
	/* ShmemPmdMapped and FilePmdMapped are 4.8/5.4+: absent, there are none to count */
	uint32_t ahp = 1u << SM_ANON_HUGE, pmd = ahp | 1u << SM_SHMEM_PMD | 1u << SM_FILE_PMD;
	o->pmd_known = (v->t.present & ahp) && !(v->t.damaged & pmd);
	o->pmd_mapped_kb = v->t.kb[SM_ANON_HUGE] + v->t.kb[SM_SHMEM_PMD] + v->t.kb[SM_FILE_PMD];
	return 0;
}

/* PID's VMAs from its smaps (through PI) into L (emptied first). Returns 0 or -errno. */
static int read_vmas(const struct sysroot *sr, struct proc_info *pi, pid_t pid, struct vma_list *l)
{
	l->n = 0;
	pi->vma_cb = vma_cb;
	pi->vma_ctx = l;
	int r = proc_read(sr, pid, PROC_SMAPS, pi);
	return r == -ENOMEM ? r : pi->smaps_err;
}

/*
 * The PMDs of [A, R's end) a stop before A leaves untried: those the loop below would have
 * called MADV_COLLAPSE on (wholly mapped per VL; with pagemap PM, not empty and not
 * PMD-mapped already), so that "N of M failed, K not tried" adds up to the plan's TO COLLAPSE.
 */
static uint64_t mapped_from(int pm, const struct vma_list *vl, const struct crange *r, uint64_t a,
			    uint64_t pmd, long page)
{
	uint64_t n = 0, pop;
	bool zero;
	for (; a < r->end; a += pmd)
		n += collapse_fully_mapped(vl->v, vl->n, a, a + pmd) &&
		     !(pm >= 0 && procmem_populated(pm, a, pmd / (uint64_t)page, page, &pop) == 0 &&
		       pop == 0) &&
		     !(pm >= 0 && procmem_pmd_mapped(pm, a, pmd, &zero) == 1);
	return n;
}

/*
 * Collapse R one huge page at a time, each wholly mapped per VL (a hole makes
 * MADV_COLLAPSE fail with ENOMEM: counted in R->hole_pmds by the plan). Returns 0,
 * or the -errno that must stop the whole run (EPERM, ESRCH, ENOSYS, ENOMEM).
 */
static int collapse_range(int pidfd, int pm, const struct vma_list *vl, struct crange *r,
			  uint64_t pmd, long page)
{
	double t0 = mono_ms();
	int fatal = 0;
	bool scan = pm >= 0, zero;
	r->attempted = true;
	for (uint64_t a = r->start; a < r->end; a += pmd) {
		uint64_t pop;
		if (!collapse_fully_mapped(vl->v, vl->n, a, a + pmd))
			continue;
		if (pm >= 0 && procmem_populated(pm, a, pmd / (uint64_t)page, page, &pop) == 0 &&
		    pop == 0) {
			r->nempty++; /* MADV_COLLAPSE refuses an empty PMD with EINVAL */
			continue;
		}
		int m = scan ? procmem_pmd_mapped(pm, a, pmd, &zero) : -1;
		scan = m >= 0; /* no PAGEMAP_SCAN: MADV_COLLAPSE says success for these */
		if (m == 1) {
			r->nhuge++; /* PMD-mapped already: nothing to collapse */
			continue;
		}
		long long got;
		int attempt = 0;
		for (;;) {
			got = procmem_madvise(pidfd, a, pmd, MADV_COLLAPSE);
			if (got != -EAGAIN)
				break;
			unsigned ms = collapse_backoff_ms(++attempt);
			if (!ms)
				break;
			r->retries++;
			struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000L};
			nanosleep(&ts, NULL);
		}
		if (got >= 0) {
			r->nok++;
			/* not checked: a PMD-mapped one returns success too (collapse_settle) */
			r->nok_unchecked += m != 0;
			continue;
		}
		r->nfail++;
		if (!r->err)
			r->err = (int)got;
		if (got == -EPERM || got == -ESRCH || got == -ENOSYS || got == -ENOMEM) {
			fatal = (int)got;
			r->nuntried = mapped_from(pm, vl, r, a + pmd, pmd, page);
			break;
		}
	}
	r->ms = mono_ms() - t0;
	return fatal;
}

struct copts {
	struct collapse_sel *sel;
	struct collapse_report *rep;
	struct crange_req *req;
	const char **vmas;
};

/* One option of collapse into CTX (struct copts). */
static int collapse_opt(int c, const char *arg, void *ctx)
{
	struct copts *o = ctx;
	struct collapse_sel *sel = o->sel;
	switch (c) {
	case OPT_RANGE:
		if (sel->nranges == MAX_REQ ||
		    collapse_parse_range(arg, &o->req[sel->nranges].start,
					 &o->req[sel->nranges].end)) {
			warnx("collapse: bad --range '%s' (START-END in hex, e.g. 7f0000000000-7f0004000000)",
			      arg);
			return EXIT_USAGE;
		}
		sel->nranges++;
		return -1;
	case OPT_VMA:
		if (sel->nvmas == MAX_REQ || !*arg) {
			warnx("collapse: bad --vma '%s'", arg);
			return EXIT_USAGE;
		}
		o->vmas[sel->nvmas++] = arg;
		return -1;
	case OPT_DRY_RUN:
		o->rep->dry_run = true;
		return -1;
	case OPT_FORCE:
		sel->force = o->rep->force = true;
		return -1;
	case OPT_MAX_INFLATE: {
		char *end;
		errno = 0;
		double x = strtod(arg, &end);
		if (errno || end == arg || *end || !(x >= 1.0 && x <= 512.0)) {
			warnx("collapse: bad --max-inflate '%s' (a ratio from 1 to 512, e.g. 2 or 1.5)",
			      arg);
			return EXIT_USAGE;
		}
		o->rep->max_inflate = x;
		return -1;
	}
	default:
		return -2;
	}
}

/* Options (into static arrays SEL points to) and the PID operand into SEL and REP. Returns -1 to go on, else the exit code. */
static int collapse_opts(struct globals *g, int argc, char **argv, struct collapse_sel *sel,
			 struct collapse_report *rep, pid_t *pid)
{
	static struct crange_req req[MAX_REQ];
	static const char *vmas[MAX_REQ];
	sel->ranges = req;
	sel->vmas = vmas;
	static const struct option opts[] = {GLOBAL_LONGOPTS,
					     OPT_ARG("range", OPT_RANGE),
					     OPT_ARG("vma", OPT_VMA),
					     OPT_FLAG("dry-run", OPT_DRY_RUN),
					     OPT_FLAG("force", OPT_FORCE),
					     OPT_ARG("max-inflate", OPT_MAX_INFLATE),
					     OPTS_END};
	struct copts o = {sel, rep, req, vmas};
	int c = args_getopt(g, argc, argv, "h", opts, collapse_help, collapse_opt, &o);
	if (c >= 0)
		return c;
	if (optind != argc - 1 || str_pid(argv[optind], pid)) {
		warnx("collapse: expected one PID");
		return EXIT_USAGE;
	}
	if (sel->nranges && sel->nvmas) {
		warnx("collapse: --range and --vma do not go together");
		return EXIT_USAGE;
	}
	return -1;
}

/* PID's status and the PMD size into REP and SEL. EXIT_OK, or EXIT_FAIL after a message. */
static int collapse_target(struct globals *g, struct proc_info *pi, pid_t pid,
			   struct collapse_sel *sel, struct collapse_report *rep, long *page)
{
	if (cmd_pid_mm(g, "collapse", pid, pi))
		return EXIT_FAIL;
	snprintf(rep->comm, sizeof(rep->comm), "%s", pi->st.name);
	rep->thp_enabled = sel->thp_enabled = pi->st.thp_enabled;
	uint64_t pmd = 0;
	if (thp_knob_u64(&g->sr, "hpage_pmd_size", &pmd))
		pmd = 0;
	*page = sysconf(_SC_PAGESIZE);
	if (!pmd || *page <= 0) {
		warnx("collapse: no %s/hpage_pmd_size: this kernel has no THP", PATH_THP);
		return EXIT_FAIL;
	}
	rep->pmd_size = pmd;
	for (uint64_t p = (uint64_t)*page; p < pmd; p <<= 1)
		rep->pmd_order++;
	/* shmem follows shmem_enabled: what it forbids MADV_COLLAPSE refuses (EINVAL) */
	static struct choice top, size;
	static struct shmem_rules rules;
	uint64_t kb;
	if (thp_pmd_shmem_policy(&g->sr, &top, &size, &kb) == 0) {
		shmem_rules_make(&top, &size, kb, &rules);
		sel->shmem = rep->shmem = &rules;
	}
	return EXIT_OK;
}

/*
 * Whether the process of PIDFD (opened before any read by PID) has exited: a
 * file read by PID before this says no came from it, not from a process that
 * took its PID since. Without a pidfd nothing can be told: false.
 */
static bool exited(int pidfd)
{
	return pidfd >= 0 && procmem_pidfd_alive(pidfd) == 0;
}

/*
 * Collapse the selected ranges of PID through PIDFD (-errno: why none), then read
 * AnonHugePages after, kept only if it still runs then. Returns the ranges that failed.
 */
static int collapse_run(struct globals *g, struct proc_info *pi, pid_t pid, int pidfd,
			struct collapse_report *rep, struct vma_list *vl, long page)
{
	static struct buddyinfo bi;
	struct crange *ranges = rep->ranges;
	int n = rep->nranges, failed = 0;
	if (pidfd < 0) {
		rep->fatal = pidfd;
	} else {
		int pm = procmem_pagemap_open(&g->sr, pid);
		if (pm >= 0 && exited(pidfd)) { /* the PID may be another process's now */
			close(pm);
			pm = -1;
		}
		rep->pagemap = pm >= 0;
		for (int i = 0; i < n && !rep->fatal; i++)
			if (ranges[i].skip == CR_GO)
				rep->fatal = collapse_range(pidfd, pm, vl, &ranges[i],
							    rep->pmd_size, page);
		if (pm >= 0)
			close(pm);
	}
	for (int i = 0; i < n; i++) /* after a stop: the ranges never begun */
		if (ranges[i].skip == CR_GO && !ranges[i].attempted)
			ranges[i].nuntried = ranges[i].have_estimate /* its plan: TO COLLAPSE */
						     ? ranges[i].planned_pmds
						     : ranges[i].npmd - ranges[i].hole_pmds;
	if (rep->fatal == -ENOMEM && buddyinfo_read(&g->sr, &bi) == 0)
		rep->buddy = &bi;
	/* AnonHugePages and RSS after: one more smaps read for all ranges */
	if (read_vmas(&g->sr, pi, pid, vl) == 0)
		for (int i = 0; i < n; i++) {
			if (!ranges[i].attempted)
				continue;
			ranges[i].ahp_after_kb =
				collapse_ahp_kb(vl->v, vl->n, ranges[i].start, ranges[i].end);
			ranges[i].rss_after_kb =
				collapse_rss_kb(vl->v, vl->n, ranges[i].start, ranges[i].end);
			ranges[i].have_after = true;
		}
	if (proc_read(&g->sr, pid, PROC_STATUS, pi) == 0 && !pi->status_err)
		rep->vmrss_after_kb = kb_long(&pi->st.vmrss_kb);
	if (exited(pidfd)) { /* what was read after may be another process's: unknown */
		rep->exited = true;
		rep->vmrss_after_kb = -1;
		for (int i = 0; i < n; i++)
			ranges[i].have_after = false;
	}
	for (int i = 0; i < n; i++)
		collapse_settle(&ranges[i], rep->pmd_size);
	for (int i = 0; i < n; i++)
		failed += ranges[i].nfail > 0;
	return failed;
}

/* The ranges to try, with AnonHugePages before, into REP (from VL). EXIT_OK or EXIT_FAIL. */
static int collapse_plan(const struct collapse_sel *sel, struct collapse_report *rep,
			 const struct vma_list *vl)
{
	struct crange *ranges = calloc(MAX_RANGES, sizeof(*ranges));
	if (!ranges) {
		warnx("collapse: out of memory");
		return EXIT_FAIL;
	}
	int n = collapse_select(vl->v, vl->n, sel, rep->pmd_size, ranges, MAX_RANGES, &rep->nsmall);
	if (n < 0) {
		warnx("collapse: more than %d ranges: narrow it with --vma or --range", MAX_RANGES);
		n = MAX_RANGES;
	}
	rep->ranges = ranges;
	rep->nranges = n;
	for (int i = 0; i < n; i++) {
		struct crange *r = &ranges[i];
		bool whole = r->end > r->start; /* else: the range as asked */
		r->ahp_before_kb = collapse_ahp_kb(vl->v, vl->n, whole ? r->start : r->req_start,
						   whole ? r->end : r->req_end);
		r->rss_before_kb = collapse_rss_kb(vl->v, vl->n, whole ? r->start : r->req_start,
						   whole ? r->end : r->req_end);
		r->hole_pmds = collapse_hole_pmds(vl->v, vl->n, r->start, r->end, rep->pmd_size);
	}
	return EXIT_OK;
}

/*
 * Count R's pages present and PMD-mapped huge pages through pagemap PM, one
 * huge page of NP pages at a time, those wholly mapped per VL. Returns whether
 * PAGEMAP_SCAN counted them.
 */
static bool range_pages(int pm, const struct vma_list *vl, struct crange *r, uint64_t pmd,
			uint64_t np, long page)
{
	bool ok = true, scan = true, asked = false, zero;
	uint64_t huge = 0, hzero = 0;
	for (uint64_t a = r->start; a < r->end && ok; a += pmd) {
		uint64_t pop;
		if (!collapse_fully_mapped(vl->v, vl->n, a, a + pmd))
			continue; /* never tried: hole_pmds */
		ok = procmem_populated(pm, a, np, page, &pop) == 0;
		r->present_pages += ok ? pop : 0;
		r->nonempty_pmds += ok && pop;
		int m = scan && ok && pop ? procmem_pmd_mapped(pm, a, pmd, &zero) : 0;
		scan &= m >= 0;
		asked |= ok && pop;
		huge += m == 1;
		hzero += m == 1 && zero;
	}
	r->have_estimate = ok;
	if (!ok || !scan || !asked) /* nothing present: smaps tells 0 as well */
		return false;
	r->huge_pmds = huge;
	r->huge_zero_pmds = hzero;
	r->huge_how = CH_PAGEMAP_SCAN;
	return true;
}

/*
 * Before collapsing: each range's pages present and huge pages PMD-mapped
 * already (pagemap, PAGEMAP_SCAN; else smaps of VL), then its plan
 * (collapse_plan_range): what is already huge or empty is skipped, ranges over
 * rep->max_inflate unless --force. Without pagemap there is no estimate and
 * nothing is refused for it.
 */
static void collapse_estimate(struct globals *g, pid_t pid, struct collapse_report *rep,
			      const struct vma_list *vl, long page)
{
	int pm = procmem_pagemap_open(&g->sr, pid);
	uint64_t np = rep->pmd_size / (uint64_t)page;
	for (int i = 0; i < rep->nranges; i++) {
		struct crange *r = &rep->ranges[i];
		if (r->skip != CR_GO)
			continue;
		if (pm < 0 || !range_pages(pm, vl, r, rep->pmd_size, np, page))
			collapse_huge_smaps(r, vl->v, vl->n, rep->pmd_size);
		collapse_plan_range(r, np, rep->max_inflate, rep->force);
	}
	if (pm >= 0)
		close(pm);
}

/* Say why smaps of PID could not be read (ERR, -errno). */
static void smaps_fail(pid_t pid, int e)
{
	if (e == -EACCES || e == -EPERM)
		warnx("collapse: needs root (cannot read /proc/%d/smaps: %s)", pid, strerror(-e));
	else if (e == -ENOENT || e == -ESRCH)
		warnx("collapse: process %d exited", pid);
	else
		warnx("collapse: cannot read /proc/%d/smaps: %s", pid, strerror(-e));
}

/*
 * Each --vma name of SEL that no VMA of VL has, said (escaped) with how --vma
 * matches: a typo is not "nothing to collapse". Returns whether any was unmatched.
 */
static bool vma_unmatched(pid_t pid, const struct collapse_sel *sel, const struct vma_list *vl)
{
	struct collapse_sel one = *sel;
	bool any = false;
	for (int j = 0; j < sel->nvmas; j++) {
		one.vmas = &sel->vmas[j];
		one.nvmas = 1;
		if (collapse_vma_unmatched(vl->v, vl->n, &one) < 0)
			continue;
		char e[1024];
		warnx("collapse: --vma '%s' names no VMA of process %d",
		      esc_buf(e, sizeof(e), sel->vmas[j]), pid);
		any = true;
	}
	if (any)
		warnx("collapse: --vma matches a VMA's whole name as /proc/%d/maps shows it ([heap], "
		      "[stack], [anon:NAME], a file path), or [anon] for unnamed anonymous memory; "
		      "'thpctl maps %d' lists them",
		      pid, pid);
	return any;
}

int cmd_collapse(struct globals *g, int argc, char **argv)
{
	struct collapse_sel sel = {0};
	struct collapse_report rep = {.max_inflate = COLLAPSE_MAX_INFLATE_DEFAULT};
	pid_t pid;
	int ret = collapse_opts(g, argc, argv, &sel, &rep, &pid);
	if (ret >= 0)
		return ret;
	if ((ret = cmd_setup_live(g,
				  "collapse: acts on running processes, not on a --sysroot tree")))
		return ret;
	rep.pid = pid;
	struct proc_info pi = {0};
	struct vma_list vl = {0};
	long page;
	int e;
	/* first: every read by PID after it is checked to be of this process (exited()) */
	int pidfd = procmem_pidfd_open(pid);
	if ((ret = collapse_target(g, &pi, pid, &sel, &rep, &page)))
		goto out;
	if ((e = read_vmas(&g->sr, &pi, pid, &vl))) {
		smaps_fail(pid, e);
		ret = EXIT_FAIL;
		goto out;
	}
	if (vma_unmatched(pid, &sel, &vl)) {
		ret = EXIT_FAIL;
		goto out;
	}
	if ((ret = collapse_plan(&sel, &rep, &vl)))
		goto out;
	rep.vmrss_before_kb = kb_long(&pi.st.vmrss_kb);
	rep.vmrss_after_kb = -1;
	collapse_estimate(g, pid, &rep, &vl, page);
	if (exited(pidfd)) { /* status, smaps and pagemap may be another process's */
		warnx("collapse: process %d exited", pid);
		ret = EXIT_FAIL;
		goto out;
	}
	int go = 0, refused = 0, failed = 0, n = rep.nranges;
	for (int i = 0; i < n; i++) {
		go += rep.ranges[i].skip == CR_GO;
		/* already huge or empty: nothing to do there, not a refusal (a hole is) */
		refused += rep.ranges[i].skip != CR_GO && rep.ranges[i].skip != CR_SKIP_HUGE &&
			   rep.ranges[i].skip != CR_SKIP_EMPTY;
	}
	if (!rep.dry_run && go)
		failed = collapse_run(g, &pi, pid, pidfd, &rep, &vl, page);
	if (g->json)
		ret = cmd_emit_json(collapse_to_json(&rep));
	else
		collapse_render_text(stdout, &rep, g->color);
	if (rep.fatal == -EPERM || rep.fatal == -EACCES)
		warnx("collapse: needs root (CAP_SYS_NICE and ptrace-read access to %d)", pid);
	if (!ret && (rep.fatal || failed))
		ret = EXIT_FAIL;
	/* everything asked for was skipped, and not for being done; a dry run says so too: its
	 * exit status is the run's, decided before any call */
	if (!ret && refused && !go)
		ret = EXIT_FAIL;
out:
	if (pidfd >= 0)
		close(pidfd);
	free(rep.ranges);
	free(vl.v);
	proc_info_free(&pi);
	return ret;
}
