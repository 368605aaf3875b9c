// SPDX-License-Identifier: MIT
/* `thpctl collapse`: the ranges, what happened to each, and why (model/collapse.h). */
#include "collapse.h"

#include <errno.h>
#include <string.h>

#include "../model/host.h"
#include "json.h"
#include "shmem.h"
#include "table.h"
#include "../util/names.h"

static const char *const errnames[] = {
	[EPERM] = "EPERM",   [EACCES] = "EACCES", [EINVAL] = "EINVAL", [ENOMEM] = "ENOMEM",
	[EAGAIN] = "EAGAIN", [EBUSY] = "EBUSY",	  [ESRCH] = "ESRCH",   [ENOSYS] = "ENOSYS",
	[EIO] = "EIO",	     [EROFS] = "EROFS"};

static const char *errname(int err)
{
	return ENUM_NAME(errnames, -err, "error");
}

static const char *const skip_texts[] = {
	[CR_GO] = "",
	[CR_SKIP_NH] =
		"marked nh (MADV_NOHUGEPAGE): MADV_COLLAPSE refuses it (EINVAL); --force tries anyway",
	[CR_SKIP_PRCTL] =
		"THP disabled for the process by prctl (THP_enabled: 0): MADV_COLLAPSE refuses it (EINVAL); --force tries anyway",
	[CR_SKIP_SMALL] = "holds no whole aligned huge page",
	[CR_SKIP_UNMAPPED] = "nothing mapped there",
	[CR_SKIP_INFLATE] =
		"collapsing would grow its RSS more than --max-inflate allows (pages present per pagemap vs whole huge pages): the new huge pages would be mostly zeroes; --force collapses anyway",
	[CR_SKIP_SHMEM] =
		"shmem whose shmem policy forbids huge pages: a kernel that applies it to MADV_COLLAPSE (6.18 does) refuses it (EINVAL); --force tries anyway",
	[CR_SKIP_HUGE] = "already huge: every huge-page range with a page present is PMD-mapped",
	[CR_SKIP_EMPTY] =
		"nothing in it: no page present or swapped (pagemap), and MADV_COLLAPSE refuses an empty huge-page range (EINVAL)",
	[CR_SKIP_HOLES] =
		"not fully mapped: each huge-page range in it has a hole (no VMA there), and MADV_COLLAPSE fails on unmapped memory (ENOMEM)"};

/* How the PMD-mapped huge pages of a range were counted: JSON's name, then the words */
static const char *const how_names[] = {[CH_UNKNOWN] = "",
					[CH_PAGEMAP_SCAN] = "pagemap_scan",
					[CH_SMAPS] = "smaps",
					[CH_SMAPS_AT_LEAST] = "smaps_at_least"};
static const char *const how_words[] = {
	[CH_UNKNOWN] = "",
	[CH_PAGEMAP_SCAN] = "PAGEMAP_SCAN",
	[CH_SMAPS] = "AnonHugePages, ShmemPmdMapped and FilePmdMapped of its VMA in smaps",
	[CH_SMAPS_AT_LEAST] =
		"AnonHugePages, ShmemPmdMapped and FilePmdMapped of its VMA in smaps: at least, the VMA reaches past the range"};

/* The huge-page ranges of C neither PMD-mapped nor with a hole: for a range skipped as
 * already huge, those with no page present (pagemap). */
static uint64_t huge_other(const struct crange *c)
{
	uint64_t done = c->huge_pmds + c->hole_pmds;
	return c->npmd > done ? c->npmd - done : 0;
}

/* Why C is skipped as already huge, with its numbers, into OUT (N bytes). */
static const char *huge_words(const struct crange *c, char *out, size_t n)
{
	char zero[80] = "", rest[80] = "", holes[48] = "";
	uint64_t other = huge_other(c);
	if (c->hole_pmds)
		snprintf(holes, sizeof(holes), ", %llu not fully mapped",
			 (unsigned long long)c->hole_pmds);
	if (c->huge_zero_pmds)
		snprintf(zero, sizeof(zero),
			 ", %llu of them the huge zero page (read, never written)",
			 (unsigned long long)c->huge_zero_pmds);
	if (other)
		snprintf(rest, sizeof(rest), ", the other %llu with no page present (pagemap)",
			 (unsigned long long)other);
	snprintf(out, n,
		 "already huge: %llu of %llu PMD ranges PMD-mapped (%s)%s%s%s: nothing to collapse",
		 (unsigned long long)c->huge_pmds, (unsigned long long)c->npmd,
		 ENUM_NAME(how_words, c->huge_how, "?"), zero, rest, holes);
	return out;
}

const char *crange_skip_text(enum crange_skip s)
{
	return ENUM_NAME(skip_texts, s, "?");
}

const char *crange_skip_words(const struct collapse_report *r, const struct crange *c, char *out,
			      size_t n)
{
	const struct shmem_pmd *p = shmem_rule(r->shmem, c->shm, c->shm_hg ? VMF_HG : 0);
	char w[160];
	if (c->skip == CR_SKIP_HUGE && c->huge_how != CH_UNKNOWN)
		return huge_words(c, out, n);
	if (c->skip != CR_SKIP_SHMEM || !p)
		return crange_skip_text(c->skip);
	snprintf(out, n,
		 "shmem, which %s keeps from huge pages (shmem_enabled rules shmem, not enabled): "
		 "a kernel that applies it to MADV_COLLAPSE (6.18 does) refuses it (EINVAL); "
		 "--force tries anyway",
		 shmem_pmd_words(p, false, w, sizeof(w)));
	return out;
}

const char *collapse_explain(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "needs root: process_madvise() on another process needs CAP_SYS_NICE and "
		       "ptrace-read access to it (5.12+; 5.10 wanted ptrace attach rights)";
	case -EINVAL:
		return "refused: a kernel before 6.1 (no MADV_COLLAPSE), a VMA marked nh, a process "
		       "with THP disabled by prctl, shmem whose shmem policy forbids huge pages "
		       "(shmem_enabled=never or deny, advise without MADV_HUGEPAGE, a tmpfs mount's "
		       "huge=never), or memory MADV_COLLAPSE cannot take (file pages without "
		       "CONFIG_READ_ONLY_THP_FOR_FS, PROT_NONE, VM_PFNMAP...)";
	case -ENOMEM:
		return "no free huge page: the allocation failed even after reclaim and "
		       "compaction (free blocks of huge-page order below)";
	case -EAGAIN:
		return "a page was locked or off the LRU for a moment; retried with backoff and "
		       "gave up";
	case -EBUSY:
		return "the memory cgroup could not be charged for the huge page (its limit)";
	case -ESRCH:
		return "the process exited";
	case -ENOSYS:
		return "this kernel has no pidfd_open (5.3) or process_madvise (5.10)";
	default:
		return "unexpected error";
	}
}

static void result_text(char *out, size_t n, const struct crange *r)
{
	if (r->skip != CR_GO) {
		snprintf(out, n, "skipped");
		return;
	}
	if (!r->attempted) {
		snprintf(out, n, "not tried");
		return;
	}
	/* success without PAGEMAP_SCAN: also what a PMD-mapped huge page returns */
	const char *ok = r->nok_unchecked ? "success returned" : "ok";
	const struct {
		uint64_t n;
		const char *what;
	} part[] = {{r->nhuge, "already huge"},
		    {r->nempty, "empty"},
		    {r->hole_pmds, "not fully mapped"},
		    {r->nuntried, "not tried"}};
	int k;
	if (r->nfail)
		k = snprintf(out, n, "%s: %llu of %llu failed", errname(r->err),
			     (unsigned long long)r->nfail, (unsigned long long)r->npmd);
	else
		k = snprintf(out, n, "%s", ok);
	const char *sep = r->nfail ? ", " : " (";
	bool any = false;
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		if (!part[i].n || k < 0 || (size_t)k >= n)
			continue;
		k += snprintf(out + k, n - (size_t)k, "%s%llu %s", any ? ", " : sep,
			      (unsigned long long)part[i].n, part[i].what);
		any = true;
	}
	if (any && !r->nfail && k >= 0 && (size_t)k < n)
		snprintf(out + k, n - (size_t)k, ")");
}

/* COLLAPSED: "-" not attempted or unknown, "4.0 MiB*" from AnonHugePages (said below). */
static void collapsed_cell(struct table *t, const struct crange *c)
{
	char b[32];
	fmt_bytes(b, sizeof(b), c->collapsed_bytes);
	if (c->done_how == CD_CALLS)
		table_cell(t, "%s", b);
	else if (c->done_how == CD_ANON_HUGE)
		table_cell(t, "%s*", b);
	else
		table_cell(t, "-");
}

/* How COLLAPSED was counted where PAGEMAP_SCAN could not check the successes. */
static void collapsed_how_lines(FILE *f, const struct collapse_report *r)
{
	uint64_t ok = 0, unknown = 0;
	for (int i = 0; i < r->nranges; i++) {
		const struct crange *c = &r->ranges[i];
		ok += c->done_how == CD_ANON_HUGE ? c->nok : 0;
		unknown += c->done_how == CD_UNKNOWN;
	}
	if (ok)
		fprintf(f,
			"* COLLAPSED from AnonHugePages of the range's VMAs, before -> after (at most "
			"the %llu call(s) that returned success): without PAGEMAP_SCAN (6.7+) a "
			"huge-page range PMD-mapped already cannot be told apart before the call, and "
			"MADV_COLLAPSE returns success for it too\n",
			(unsigned long long)ok);
	if (unknown)
		fprintf(f,
			"COLLAPSED unknown (-) for %llu range(s): MADV_COLLAPSE's successes were not "
			"checked by PAGEMAP_SCAN and AnonHugePages after could not be read\n",
			(unsigned long long)unknown);
}

/* Free huge pages per zone, after an ENOMEM (zone_free_blocks: the count status shows too). */
static void buddy_line(FILE *f, const struct collapse_report *r)
{
	if (!r->buddy || r->pmd_order <= 0)
		return;
	fprintf(f, "  free huge pages in blocks of order >= %d:", r->pmd_order);
	for (int i = 0; i < r->buddy->nzones; i++) {
		char nb[40]; /* exact: a zone's count may not fit a u64 */
		fmt_u128(nb, sizeof(nb), zone_free_blocks(&r->buddy->zones[i], r->pmd_order));
		fprintf(f, "%s node %d %s %s", i ? "," : "", r->buddy->zones[i].node,
			r->buddy->zones[i].zone, nb);
	}
	fputc('\n', f);
}

static void collapse_render_reasons(FILE *f, const struct collapse_report *r, const char *pmd,
				    bool color);

/*
 * The plan (dry run): huge pages to make, those PMD-mapped already ("-" not
 * counted, ">=N" at least), the pages present; then "x32.0" (RSS after / before
 * where huge pages are planned), "-" when undefined.
 */
static void estimate_cells(struct table *t, const struct crange *c, bool plan)
{
	if (plan) {
		if (c->skip == CR_GO)
			table_cell(t, "%llu", (unsigned long long)c->planned_pmds);
		else
			table_cell(t, "skipped");
		if (c->huge_how == CH_UNKNOWN)
			table_cell(t, "-");
		else
			table_cell(t, "%s%llu", c->huge_how == CH_SMAPS_AT_LEAST ? ">=" : "",
				   (unsigned long long)c->huge_pmds);
		if (c->have_estimate)
			table_cell(t, "%llu pages", (unsigned long long)c->present_pages);
		else
			table_cell(t, "-");
	}
	if (c->have_growth)
		table_cell(t, "x%.1f", c->est_inflate);
	else
		table_cell(t, "-");
}

/* RSS of the range's VMAs before -> after, and what the collapse invented (its growth). */
static void rss_cells(struct table *t, const struct crange *c)
{
	char a[32], b[32];
	fmt_kb(a, sizeof(a), c->rss_before_kb);
	if (!c->have_after) {
		table_cell(t, "%s", a);
		table_cell(t, "-");
		return;
	}
	fmt_kb(b, sizeof(b), c->rss_after_kb);
	table_cell(t, "%s -> %s", a, b);
	if (c->rss_after_kb >= c->rss_before_kb) {
		fmt_kb(a, sizeof(a), c->rss_after_kb - c->rss_before_kb);
		table_cell(t, "+%s", a);
	} else {
		fmt_kb(a, sizeof(a), c->rss_before_kb - c->rss_after_kb);
		table_cell(t, "-%s", a);
	}
}

/* The whole process's VmRSS before and after, when something was collapsed. */
static void vmrss_line(FILE *f, const struct collapse_report *r)
{
	char a[32], b[32], d[32];
	if (r->dry_run || r->vmrss_before_kb < 0 || r->vmrss_after_kb < 0)
		return;
	long delta = r->vmrss_after_kb - r->vmrss_before_kb;
	fmt_kb(a, sizeof(a), (uint64_t)r->vmrss_before_kb);
	fmt_kb(b, sizeof(b), (uint64_t)r->vmrss_after_kb);
	fmt_kb(d, sizeof(d), (uint64_t)(delta < 0 ? -delta : delta));
	fprintf(f, "VmRSS of PID %ld: %s -> %s (%s%s%s)\n", r->pid, a, b, delta < 0 ? "-" : "+", d,
		delta > 0 ? ": what the collapse invented, subpages never written and now resident "
			    "zeroes, plus whatever the process itself did meanwhile"
			  : "");
}

void collapse_render_text(FILE *f, const struct collapse_report *r, bool color)
{
	char pmd[32], total[32];
	uint64_t bytes = 0, go = 0;
	for (int i = 0; i < r->nranges; i++)
		if (r->ranges[i].skip == CR_GO) {
			bytes += r->ranges[i].planned_pmds * r->pmd_size;
			go++;
		}
	if (r->pmd_size && r->pmd_size % (1 << 20) == 0) /* "2 MiB", not "2048 kB" */
		snprintf(pmd, sizeof(pmd), "%llu MiB", (unsigned long long)(r->pmd_size >> 20));
	else
		fmt_bytes(pmd, sizeof(pmd), r->pmd_size);
	fmt_bytes(total, sizeof(total), bytes);
	fprintf(f, "%sPID %ld (", col_bold(color), r->pid);
	fputs_safe(r->comm, f);
	fprintf(f, ")%s: %llu range(s), %s in %s huge pages", col_reset(color),
		(unsigned long long)go, total, pmd);
	if ((uint64_t)r->nranges > go)
		fprintf(f, ", %llu skipped", (unsigned long long)((uint64_t)r->nranges - go));
	fprintf(f, "%s\n", r->dry_run ? " (dry run: nothing done)" : "");
	if (r->thp_enabled == 0)
		fprintf(f, "%sTHP_enabled: 0: THP disabled for this process by prctl%s%s\n",
			col_yellow(color), r->force ? " (--force: trying anyway)" : "",
			col_reset(color));
	if (r->nranges) {
		struct table *t;
		if (r->dry_run)
			t = table_new(7,
				      (const char *const[]){"RANGE", "VMA", "SIZE", "TO COLLAPSE",
							    "ALREADY HUGE", "PRESENT",
							    "RSS GROWTH (EST)"},
				      "lLrrrrr");
		else
			t = table_new(10,
				      (const char *const[]){"RANGE", "VMA", "SIZE", "EST",
							    "COLLAPSED", "AnonHugePages", "RSS",
							    "INVENTED", "TIME", "RESULT"},
				      "lLrrrrrrrl");
		for (int i = 0; i < r->nranges; i++) {
			const struct crange *c = &r->ranges[i];
			char sz[32], a[32], b[32], res[64];
			/* the range as asked where it holds no whole huge page */
			bool asked = c->skip == CR_SKIP_SMALL || c->skip == CR_SKIP_UNMAPPED;
			uint64_t s = asked ? c->req_start : c->start;
			uint64_t e = asked ? c->req_end : c->end; /* not by s: an aligned start */
			table_cell(t, "%012llx-%012llx", (unsigned long long)s,
				   (unsigned long long)e);
			table_cell(t, "%s", c->vma[0] ? c->vma : "-");
			fmt_bytes(sz, sizeof(sz), e - s);
			table_cell(t, "%s", sz);
			if (r->dry_run) {
				estimate_cells(t, c, true);
				continue;
			}
			estimate_cells(t, c, false);
			fmt_kb(a, sizeof(a), c->ahp_before_kb);
			fmt_kb(b, sizeof(b), c->ahp_after_kb);
			collapsed_cell(t, c);
			if (c->have_after)
				table_cell(t, "%s -> %s", a, b);
			else
				table_cell(t, "%s", a);
			rss_cells(t, c);
			if (c->attempted)
				table_cell(t, "%.1f ms", c->ms);
			else
				table_cell(t, "-");
			result_text(res, sizeof(res), c);
			table_cell(t, "%s", res);
		}
		table_flush(t, f, 0, color);
		vmrss_line(f, r);
	} else {
		fprintf(f, "nothing to collapse: no anonymous VMA holds a whole aligned %s\n", pmd);
	}
	collapse_render_reasons(f, r, pmd, color);
}

/* Whether a range before the I-th of R was skipped in the same words: the kind, and for an
 * already huge one its numbers (other numbers get their own line). */
static bool skip_said(const struct collapse_report *r, int i)
{
	const struct crange *c = &r->ranges[i];
	for (int j = 0; j < i; j++) {
		const struct crange *d = &r->ranges[j];
		if (d->skip == c->skip &&
		    (c->skip != CR_SKIP_HUGE ||
		     (d->huge_how == c->huge_how && d->huge_pmds == c->huge_pmds &&
		      d->npmd == c->npmd && d->huge_zero_pmds == c->huge_zero_pmds)))
			return true;
	}
	return false;
}

/* Huge-page ranges not fully mapped in ranges that went on, and those a stop left untried. */
static void holes_lines(FILE *f, const struct collapse_report *r, bool color)
{
	uint64_t holes = 0, untried = 0;
	for (int i = 0; i < r->nranges; i++) {
		holes += r->ranges[i].skip == CR_GO ? r->ranges[i].hole_pmds : 0;
		untried += r->ranges[i].nuntried;
	}
	if (holes)
		fprintf(f,
			"%s%llu huge-page range(s) not fully mapped (a hole: no VMA there) %s: "
			"MADV_COLLAPSE fails on unmapped memory (ENOMEM)%s\n",
			col_dim(color), (unsigned long long)holes,
			r->dry_run ? "left out" : "not tried", col_reset(color));
	if (untried && r->fatal)
		fprintf(f, "%s%llu huge-page range(s) not tried: %s stopped the run%s\n",
			col_yellow(color), (unsigned long long)untried, errname(r->fatal),
			col_reset(color));
}

/* Why: each skip reason and each error once, then what was left out. */
static void collapse_render_reasons(FILE *f, const struct collapse_report *r, const char *pmd,
				    bool color)
{
	int said_err[16], nsaid = 0;
	char why[400];
	for (int i = 0; i < r->nranges; i++) {
		const struct crange *c = &r->ranges[i];
		if (c->skip != CR_GO && !skip_said(r, i))
			fprintf(f, "skipped: %s\n", crange_skip_words(r, c, why, sizeof(why)));
		if (c->err) {
			bool seen = false;
			for (int j = 0; j < nsaid; j++)
				seen |= said_err[j] == c->err;
			if (!seen && nsaid < 16) {
				said_err[nsaid++] = c->err;
				fprintf(f, "%s%s%s: %s\n", col_red(color), errname(c->err),
					col_reset(color), collapse_explain(c->err));
				if (c->err == -ENOMEM)
					buddy_line(f, r);
			}
		}
	}
	if (r->fatal && r->fatal != -ENOMEM) {
		bool seen = false;
		for (int j = 0; j < nsaid; j++)
			seen |= said_err[j] == r->fatal;
		if (!seen)
			fprintf(f, "%s%s%s: %s\n", col_red(color), errname(r->fatal),
				col_reset(color), collapse_explain(r->fatal));
	}
	collapsed_how_lines(f, r);
	if (r->nsmall)
		fprintf(f, "%s%d smaller anonymous VMA(s) hold no whole aligned %s: left out%s\n",
			col_dim(color), r->nsmall, pmd, col_reset(color));
	uint64_t empty = 0, huge = 0;
	for (int i = 0; i < r->nranges; i++) {
		empty += r->ranges[i].nempty;
		huge += r->ranges[i].nhuge;
	}
	if (!r->dry_run && empty)
		fprintf(f,
			"%s%llu empty huge-page range(s) (no page present or swapped, per pagemap) not tried: MADV_COLLAPSE refuses them%s\n",
			col_dim(color), (unsigned long long)empty, col_reset(color));
	if (!r->dry_run && huge)
		fprintf(f,
			"%s%llu huge-page range(s) PMD-mapped already (PAGEMAP_SCAN) not tried: nothing to collapse there%s\n",
			col_dim(color), (unsigned long long)huge, col_reset(color));
	holes_lines(f, r, color);
	if (r->exited)
		fprintf(f,
			"%sPID %ld exited before its memory could be read after the collapse: "
			"AnonHugePages, RSS and VmRSS after unknown (-)%s\n",
			col_yellow(color), r->pid, col_reset(color));
}

/*
 * The PMDs of C not tried as empty or as PMD-mapped already, into O: counted before each call
 * in a run; for a range skipped whole as already huge or as empty, the plan's counts (what its
 * skip words say); null for one skipped before its PMDs were looked at.
 */
static void untried_fields(json_t *o, const struct crange *c)
{
	json_t *empty = NULL, *huge = NULL;
	if (c->attempted) {
		empty = json_u64(c->nempty), huge = json_u64(c->nhuge);
	} else if (c->skip == CR_SKIP_HUGE && c->huge_how != CH_UNKNOWN) {
		empty = json_u64(huge_other(c)), huge = json_u64(c->huge_pmds);
	} else if (c->skip == CR_SKIP_EMPTY) {
		empty = json_u64(c->npmd > c->hole_pmds ? c->npmd - c->hole_pmds : 0);
		huge = json_u64(0);
	}
	json_put(o, "empty_pmds", empty);
	json_put(o, "already_huge_pmds", huge);
}

/* What the run did to range C of R, into its JSON object O. */
static void run_fields(json_t *o, const struct collapse_report *r, const struct crange *c)
{
	untried_fields(o, c);
	bool known = c->done_how != CD_UNKNOWN; /* not attempted: 0 */
	json_put(o, "success_pmds", json_u64(c->nok));
	json_put(o, "collapsed_pmds", known ? json_u64(c->collapsed_bytes / r->pmd_size) : NULL);
	json_put(o, "failed_pmds", json_u64(c->nfail));
	json_put(o, "untried_pmds", json_u64(c->nuntried));
	json_put(o, "collapsed_bytes", known ? json_u64(c->collapsed_bytes) : NULL);
	json_put(o, "collapsed_method",
		 c->done_how == CD_CALLS       ? json_str("pagemap_scan")
		 : c->done_how == CD_ANON_HUGE ? json_str("anon_huge_pages_delta")
					       : NULL);
	json_put(o, "anon_huge_before_kb", json_u64(c->ahp_before_kb));
	json_put(o, "anon_huge_after_kb", c->have_after ? json_u64(c->ahp_after_kb) : NULL);
	json_put(o, "rss_after_kb", c->have_after ? json_u64(c->rss_after_kb) : NULL);
	json_put(o, "invented_kb",
		 c->have_after && c->rss_after_kb >= c->rss_before_kb
			 ? json_u64(c->rss_after_kb - c->rss_before_kb)
		 : c->have_after ? json_u64(0)
				 : NULL);
	json_put(o, "ms", json_real(c->ms));
	json_put(o, "eagain_retries", json_integer(c->retries));
	json_put(o, "error", c->err ? json_str(errname(c->err)) : NULL);
	json_put(o, "explain", c->err ? json_str(collapse_explain(c->err)) : NULL);
}

json_t *collapse_to_json(const struct collapse_report *r)
{
	json_t *root = json_object(), *a = json_array();
	if (!json_made(&root, &a, NULL))
		return NULL;
	json_put(root, "pid", json_integer(r->pid));
	json_put(root, "comm", json_str(r->comm));
	json_put(root, "thp_enabled", r->thp_enabled >= 0 ? json_integer(r->thp_enabled) : NULL);
	json_put(root, "pmd_size_bytes", json_u64(r->pmd_size));
	json_put(root, "dry_run", json_boolean(r->dry_run));
	json_put(root, "force", json_boolean(r->force));
	json_put(root, "max_inflate", json_real(r->max_inflate));
	json_put(root, "vmrss_before_kb",
		 r->vmrss_before_kb >= 0 ? json_integer(r->vmrss_before_kb) : NULL);
	json_put(root, "vmrss_after_kb",
		 !r->dry_run && r->vmrss_after_kb >= 0 ? json_integer(r->vmrss_after_kb) : NULL);
	uint64_t total = 0;
	bool total_known = true;
	uint64_t untried = 0;
	for (int i = 0; i < r->nranges; i++) {
		const struct crange *c = &r->ranges[i];
		json_t *o = json_object();
		char buf[40];
		json_put_hex_range(o, c->start, c->end);
		json_put(o, "bytes", json_u64(c->end - c->start));
		snprintf(buf, sizeof(buf), "%llx-%llx", (unsigned long long)c->req_start,
			 (unsigned long long)c->req_end);
		json_put(o, "requested", json_str(buf));
		json_put(o, "vma", json_str(c->vma));
		json_put(o, "pmds", json_u64(c->npmd));
		char why[400];
		json_put(o, "skipped",
			 c->skip != CR_GO ? json_str(crange_skip_words(r, c, why, sizeof(why)))
					  : NULL);
		json_put(o, "attempted", json_boolean(c->attempted));
		json_put(o, "not_fully_mapped_pmds", json_u64(c->hole_pmds));
		json_put(o, "present_pages", c->have_estimate ? json_u64(c->present_pages) : NULL);
		bool hk = c->huge_how != CH_UNKNOWN;
		json_put(o, "huge_pmds", hk ? json_u64(c->huge_pmds) : NULL);
		json_put(o, "huge_pmds_method",
			 hk ? json_str(ENUM_NAME(how_names, c->huge_how, "?")) : NULL);
		json_put(o, "huge_zero_pmds",
			 c->huge_how == CH_PAGEMAP_SCAN ? json_u64(c->huge_zero_pmds) : NULL);
		/* planned: the range got to collapse_plan_range (others were skipped before) */
		bool planned = c->skip == CR_GO || c->skip == CR_SKIP_HUGE ||
			       c->skip == CR_SKIP_EMPTY || c->skip == CR_SKIP_INFLATE ||
			       c->skip == CR_SKIP_HOLES;
		json_put(o, "planned_pmds", planned ? json_u64(c->planned_pmds) : NULL);
		json_put(o, "rss_growth_estimate",
			 c->have_growth ? json_real(c->est_inflate) : NULL);
		json_put(o, "rss_before_kb", json_u64(c->rss_before_kb));
		if (!r->dry_run)
			run_fields(o, r, c);
		total += c->collapsed_bytes;
		untried += c->nuntried;
		total_known &= c->done_how != CD_UNKNOWN;
		json_array_append_new(a, o);
	}
	json_put(root, "ranges", a);
	json_put(root, "collapsed_bytes", total_known ? json_u64(total) : NULL);
	json_put(root, "small_vmas_left_out", json_integer(r->nsmall));
	json_put(root, "untried_pmds", r->dry_run ? NULL : json_u64(untried));
	json_put(root, "exited", json_boolean(r->exited));
	json_put(root, "error", r->fatal ? json_str(errname(r->fatal)) : NULL);
	json_put(root, "explain", r->fatal ? json_str(collapse_explain(r->fatal)) : NULL);
	if (r->buddy && r->pmd_order > 0) {
		json_t *b = json_array();
		for (int i = 0; i < r->buddy->nzones; i++) {
			json_t *z = json_object();
			json_put(z, "node", json_integer(r->buddy->zones[i].node));
			json_put(z, "zone", json_str(r->buddy->zones[i].zone));
			json_put(z, "free_blocks_pmd_order",
				 json_u128(zone_free_blocks(&r->buddy->zones[i], r->pmd_order)));
			json_array_append_new(b, z);
		}
		json_put(root, "buddy", b);
	}
	return root;
}
