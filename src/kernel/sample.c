// SPDX-License-Identifier: MIT
#include "sample.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc_thp.h"
#include "procs.h"
#include "../util/buf.h"
#include "../util/num.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The host snapshot's HS_* for sampler flags WHAT. */
static unsigned host_what(unsigned what)
{
	unsigned hs = 0;
	if (what & (SAMPLE_SETTINGS | SAMPLE_PROCS_TOP))
		hs |= HS_SETTINGS;
	if (what & SAMPLE_HUGETLB)
		hs |= HS_HUGETLB;
	if (what & SAMPLE_KHUGEPAGED)
		hs |= HS_KHUGEPAGED;
	return hs;
}

void sampler_init(struct sampler *s, const struct sysroot *sr, long page_size, unsigned what)
{
	memset(s, 0, sizeof(*s));
	s->sr = sr;
	s->page_size = page_size;
	s->what = what;
	host_reader_init(&s->host, sr, host_what(what), page_size);
	s->top = 20;
	s->min_ahp_kb = 1;
	/*
	 * statm and status read the mm's RSS counters, which are per-CPU
	 * counters since 6.2 (f1a7941243c1): the value read may lag by up to
	 * batch (max(32, 2 * ncpus)) pages per CPU. The statm prefilter allows
	 * for that so that it never drops a process smaps_rollup would keep.
	 */
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpu < 1)
		ncpu = 1;
	long batch = 2 * ncpu > 32 ? 2 * ncpu : 32;
	s->rss_slack_pages = (uint64_t)batch * (uint64_t)ncpu;
}

void sampler_free(struct sampler *s)
{
	buf_free(&s->b);
	host_reader_free(&s->host);
}

void sample_free(struct sample *out)
{
	host_snapshot_free(&out->host);
	free(out->procs);
	memset(out, 0, sizeof(*out));
}

static int procs_reserve(struct sample *out, size_t want)
{
	return array_reserve(&out->procs, &out->procs_cap, want, sizeof(*out->procs), 64);
}

static void fill(struct proc_sample *ps, const struct proc_thp *p, bool readable, bool flags)
{
	memset(ps, 0, sizeof(*ps));
	ps->invented_kb = ps->held_kb = ps->creep_kb = ps->lazyfree_kb = -1;
	ps->pid = p->pid;
	snprintf(ps->comm, sizeof(ps->comm), "%s", p->st.name);
	ps->uid = p->st.uid;
	ps->rss_known = p->st.vmrss_kb.present;
	ps->rss_kb = ps->rss_known ? p->st.vmrss_kb.v : 0;
	ps->thp_enabled = p->st.thp_enabled;
	ps->readable = readable;
	if (readable) {
		ps->anon_huge_kb = p->t.kb[SM_ANON_HUGE];
		ps->has_hg = flags && p->has_vmflags;
		ps->hg_kb = ps->has_hg ? p->hg_kb : 0;
	}
}

/* Top-N order: AnonHugePages descending, then pid ascending. */
static bool beats(const struct proc_sample *a, const struct proc_sample *b)
{
	if (a->anon_huge_kb != b->anon_huge_kb)
		return a->anon_huge_kb > b->anon_huge_kb;
	return a->pid < b->pid;
}

static void top_insert(struct sample *out, size_t top, const struct proc_sample *ps)
{
	size_t n = out->nprocs;
	if (n == top && !beats(ps, &out->procs[n - 1]))
		return;
	size_t i = n < top ? n : n - 1;
	while (i > 0 && beats(ps, &out->procs[i - 1])) {
		out->procs[i] = out->procs[i - 1];
		i--;
	}
	out->procs[i] = *ps;
	if (n < top)
		out->nprocs++;
}

/* Anonymous RSS of PID in kB from statm, or -1 when statm is not there (a recorded tree). */
static int64_t statm_anon_kb(struct sampler *s, pid_t pid, bool *gone)
{
	struct proc_statm sm;
	*gone = false;
	int r = sysroot_readf(s->sr, &s->b, SR_PROC "/%d/statm", (int)pid);
	if (r == -ESRCH || (r == -ENOENT && s->sr->live)) {
		*gone = true;
		return -1;
	}
	if (r || s->page_size <= 0 || proc_statm_parse(s->b.p, s->b.len, &sm))
		return -1;
	if (sm.size == 0) { /* kernel thread or zombie: no mm */
		*gone = true;
		return -1;
	}
	uint64_t pages = sm.resident > sm.shared ? sm.resident - sm.shared : 0;
	return (int64_t)(pages * (uint64_t)s->page_size / 1024);
}

static int collect_procs(struct sampler *s, struct sample *out)
{
	bool all = s->what & SAMPLE_PROCS_ALL;
	bool flags = !all && (s->what & SAMPLE_PROC_FLAGS);
	size_t top = s->top < SAMPLE_MAX_TOP ? s->top : SAMPLE_MAX_TOP;
	if (!all && top == 0)
		return 0;
	pid_t *pids;
	int n = procs_list(s->sr, &pids);
	if (n < 0) {
		host_snapshot_missing(&out->host, "proc (cannot list processes)");
		return 0;
	}
	if (!all && procs_reserve(out, top)) {
		free(pids);
		return -ENOMEM;
	}
	/* AnonHugePages counts whole PMDs: a process with any has at least one */
	const struct thp_settings *thp = &out->host.thp;
	uint64_t pmd_kb = thp->hpage_pmd_size.present ? thp->hpage_pmd_size.v / 1024 : 0;
	uint64_t bound = s->min_ahp_kb;
	if (bound && pmd_kb > bound)
		bound = pmd_kb;
	uint64_t slack = s->page_size > 0 ? s->rss_slack_pages * (uint64_t)s->page_size / 1024 : 0;
	struct buf sb = {0};
	int ret = 0;
	for (int i = 0; i < n; i++) {
		if (s->budget_s > 0 && (i & 31) == 31 &&
		    clock_s(CLOCK_MONOTONIC) - out->host.mono_s > s->budget_s) {
			out->procs_truncated = true;
			break;
		}
		if (pids[i] == s->skip_pid)
			continue;
		if (!all) {
			bool gone;
			int64_t anon = statm_anon_kb(s, pids[i], &gone);
			if (gone)
				continue;
			out->procs_seen++;
			if (anon >= 0) {
				uint64_t most =
					(uint64_t)anon + slack; /* AnonHugePages <= RssAnon */
				if (most < bound)
					continue;
				if (out->nprocs == top && most <= out->procs[top - 1].anon_huge_kb)
					continue;
			}
		}
		struct proc_thp p;
		int err;
		enum proc_thp_err e = proc_thp_collect(s->sr, pids[i], !flags, &sb, &p, &err);
		if (e == PT_GONE || e == PT_KTHREAD)
			continue;
		if (all)
			out->procs_seen++;
		else
			out->procs_candidates++;
		if (e == PT_ERROR) {
			out->procs_errors++;
			continue;
		}
		if (e == PT_DENIED)
			out->procs_unreadable++;
		struct proc_sample ps;
		fill(&ps, &p, e == PT_OK, flags);
		if (all) {
			if ((ret = procs_reserve(out, out->nprocs + 1)))
				break;
			out->procs[out->nprocs++] = ps;
		} else if (e == PT_OK && ps.anon_huge_kb >= s->min_ahp_kb) {
			top_insert(out, top, &ps);
		}
	}
	buf_free(&sb);
	free(pids);
	return ret;
}

int sample_collect(struct sampler *s, struct sample *out)
{
	/* the host snapshot (~40 kB, reset by host_snapshot_next) and the process array are
	 * reused: only what follows the snapshot is cleared, not copied out and back each scrape */
	_Static_assert(offsetof(struct sample, host) == 0, "the host snapshot comes first");
	struct proc_sample *procs = out->procs;
	size_t cap = out->procs_cap, at = offsetof(struct sample, duration_s);
	memset((char *)out + at, 0, sizeof(*out) - at);
	out->procs = procs;
	out->procs_cap = cap;

	int r = host_snapshot_next(&s->host, &out->host);
	if (r)
		return r;
	if ((s->what & (SAMPLE_PROCS_TOP | SAMPLE_PROCS_ALL)) && collect_procs(s, out))
		return -ENOMEM;
	/* files of exited processes, and of files gone, are closed */
	if (s->sr->cache)
		fdcache_sweep(s->sr->cache);
	out->duration_s = clock_s(CLOCK_MONOTONIC) - out->host.mono_s;
	return 0;
}

/* "proc/123/NAME" */
static bool proc_pid_file(const char *rel, const char *name)
{
	if (strncmp(rel, "proc/", 5) != 0)
		return false;
	const char *p = rel + 5;
	if (*p < '1' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '/' && strcmp(p + 1, name) == 0;
}

enum fdc_mode sample_fdc_mode(const char *rel)
{
	if (strncmp(rel, SR_THP "/", sizeof(SR_THP)) == 0)
		return FDC_STATIC;
	if (strncmp(rel, "sys/", 4) == 0 || strcmp(rel, SR_PROC "/meminfo") == 0 ||
	    strcmp(rel, SR_PROC "/uptime") == 0 || proc_pid_file(rel, "statm") ||
	    proc_pid_file(rel, "stat"))
		return FDC_SINGLE;
	if (strcmp(rel, SR_PROC "/vmstat") == 0 || strcmp(rel, SR_PROC "/buddyinfo") == 0)
		return FDC_MULTI;
	return FDC_NO;
}
