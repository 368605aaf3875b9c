// SPDX-License-Identifier: MIT
#include "host_snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "../util/num.h"
#include "proc_status.h"
#include "procs.h"

void host_reader_init(struct host_reader *r, const struct sysroot *sr, unsigned what,
		      long page_size)
{
	memset(r, 0, sizeof(*r));
	r->sr = sr;
	r->what = what;
	r->page_size = page_size;
	r->clk_tck = sysconf(_SC_CLK_TCK);
}

void host_reader_free(struct host_reader *r)
{
	buf_free(&r->b);
}

bool host_missing_hugetlb_input(const char *what)
{
	static const char *const mine[] = {SR_PROC "/meminfo", SR_PROC "/buddyinfo", SR_HUGETLB,
					   SR_NODES};
	for (size_t k = 0; k < sizeof(mine) / sizeof(mine[0]); k++)
		if (!strncmp(what, mine[k], strlen(mine[k])))
			return true;
	return false;
}

void host_snapshot_missing(struct host_snapshot *out, const char *what)
{
	if (out->nmissing < HOST_MAX_MISSING)
		snprintf(out->missing[out->nmissing++], sizeof(out->missing[0]), "%s", what);
}

void host_snapshot_free(struct host_snapshot *out)
{
	kvlist_free(&out->vmstat);
	kvlist_free(&out->meminfo);
	thp_settings_free(&out->thp);
	memset(out, 0, sizeof(*out));
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether PID is the [khugepaged] kernel thread; sets *CPU_S (utime + stime) and *START_S
 * (its start, after boot) from its proc/PID/stat, in seconds. */
static bool khugepaged_stat(struct host_reader *r, pid_t pid, double *cpu_s, double *start_s)
{
	struct proc_stat st;
	if (sysroot_readf(r->sr, &r->b, SR_PROC "/%d/stat", (int)pid) ||
	    proc_stat_parse(r->b.p, r->b.len, &st))
		return false;
	if (strcmp(st.comm, "khugepaged") != 0 || !(st.flags & PF_KTHREAD_FLAG))
		return false;
	*cpu_s = (double)(st.utime + st.stime) / (double)r->clk_tck;
	*start_s = (double)st.starttime / (double)r->clk_tck;
	return true;
}

/*
 * The one khugepaged finder. The thread is found by a scan of proc/ (a low
 * pid: found early) and then re-read by pid. It stops while THP is off
 * (enabled=never for every size) and gets a new pid when it starts again:
 * re-scan then, at most once a minute.
 */
static void read_khugepaged(struct host_reader *r, struct host_snapshot *out)
{
	if (sysroot_read(r->sr, SR_PROC "/uptime", &r->b) == 0) {
		/* its first field, a finite number of seconds ("1e9999" or "inf" is damage) */
		char first[64];
		size_t n = strcspn(r->b.p, " \n");
		double up = 0;
		if (n && n < sizeof(first)) {
			memcpy(first, r->b.p, n);
			first[n] = '\0';
		} else {
			first[0] = '\0';
		}
		if (first[0] && str_double(first, 0, 1e12, &up) == 0 && up > 0) {
			out->uptime_s = up;
		} else {
			out->uptime_s = 0;
			host_snapshot_missing(out, SR_PROC "/uptime (malformed)");
		}
	}
	double cpu, start;
	if (r->clk_tck <= 0)
		return;
	if (r->khugepaged > 0 && khugepaged_stat(r, r->khugepaged, &cpu, &start))
		goto found;
	if (r->khugepaged != 0 && out->mono_s - r->khugepaged_scan < 60)
		return;
	r->khugepaged_scan = out->mono_s;
	r->khugepaged = -1;
	pid_t *pids;
	int n = procs_list(r->sr, &pids);
	for (int i = 0; i < n; i++)
		if (khugepaged_stat(r, pids[i], &cpu, &start)) {
			r->khugepaged = pids[i];
			break;
		}
	if (n > 0)
		free(pids);
	if (r->khugepaged < 0)
		return;
found:
	out->has_khugepaged_cpu = true;
	out->khugepaged_cpu_s = cpu;
	out->khugepaged_start_s = start;
	out->khugepaged_pid = r->khugepaged;
}

/* Clear OUT for a new snapshot, keeping its allocations. */
static void reset(struct host_snapshot *out)
{
	thp_settings_free(&out->thp);
	struct kvlist vm = out->vmstat, mi = out->meminfo;
	memset(out, 0, sizeof(*out));
	out->vmstat = vm;
	out->meminfo = mi;
	out->pmd_order = -1;
	out->mono_s = clock_s(CLOCK_MONOTONIC);
	out->wall_s = clock_s(CLOCK_REALTIME);
}

void host_snapshot_missing_err(struct host_snapshot *out, const char *what, int err)
{
	char s[sizeof(out->missing[0])];
	if (err == -ENOENT || err == -EINVAL || !err)
		snprintf(s, sizeof(s), "%s", what);
	else
		snprintf(s, sizeof(s), "%s (%s)", what, read_err_str(err));
	host_snapshot_missing(out, s);
}

/* WHAT (proc/vmstat or proc/meminfo) into L through RD: *HAS, or why not. 0 or -ENOMEM. */
static int read_kv(struct host_reader *r, struct host_snapshot *out, const char *what,
		   int (*rd)(const struct sysroot *sr, struct buf *b, struct kvlist *l),
		   struct kvlist *l, bool *has)
{
	int e = rd(r->sr, &r->b, l);
	if (e == -ENOMEM)
		return e;
	if (e == 0)
		*has = true;
	else
		host_snapshot_missing_err(out, what, e);
	return 0;
}

/* proc/vmstat, proc/meminfo, proc/buddyinfo: read first, before any probe. */
static int read_counters(struct host_reader *r, struct host_snapshot *out)
{
	const struct sysroot *sr = r->sr;
	if (read_kv(r, out, "proc/vmstat", vmstat_read_buf, &out->vmstat, &out->has_vmstat) ||
	    read_kv(r, out, "proc/meminfo", meminfo_read_buf, &out->meminfo, &out->has_meminfo))
		return -ENOMEM;
	int e = sysroot_read(sr, SR_PROC "/buddyinfo", &r->b);
	if (e == 0 && buddyinfo_parse(r->b.p, r->b.len, &out->buddy) == 0)
		out->has_buddy = true;
	else
		host_snapshot_missing_err(out, "proc/buddyinfo", e);
	/* a malformed or cut line loses a counter or a zone: say so */
	if (out->vmstat.bad)
		host_snapshot_missing(out, "proc/vmstat (malformed or truncated lines)");
	if (out->meminfo.bad)
		host_snapshot_missing(out, "proc/meminfo (malformed or truncated lines)");
	if (out->buddy.bad)
		host_snapshot_missing(out, "proc/buddyinfo (malformed lines)");
	/* a key printed twice: which copy is right is unknown, so neither is used */
	char s[sizeof(out->missing[0])];
	if (out->vmstat.dup) {
		snprintf(s, sizeof(s), "proc/vmstat (%s seen twice)", out->vmstat.dup_name);
		host_snapshot_missing(out, s);
	}
	if (out->meminfo.dup) {
		snprintf(s, sizeof(s), "proc/meminfo (%s seen twice)", out->meminfo.dup_name);
		host_snapshot_missing(out, s);
	}
	if (out->buddy.dup)
		host_snapshot_missing(out, "proc/buddyinfo (a zone listed twice)");
	return 0;
}

int host_snapshot_next(struct host_reader *r, struct host_snapshot *out)
{
	reset(out);
	out->skips = r->sr->skips; /* a bundle extracted in part: render/skips.c words it */
	/* counters first: the probes below must not be in what we report */
	if (read_counters(r, out))
		return -ENOMEM;
	long page_size = r->page_size;
	if (r->what & HS_FEATURES) {
		features_probe(r->sr, &out->feat);
		page_size = out->feat.page_size;
		if (page_size <= 0) /* no smaps and no capture/version line: PMD order unknown */
			host_snapshot_missing(out, "the base page size (no readable smaps "
						   "recorded)");
	}
	if (r->what & HS_SETTINGS) {
		if (thp_settings_read_opts(r->sr, page_size, &out->thp,
					   r->what & HS_FINDINGS ? 0 : THP_NO_WRITE_PROBE))
			return -ENOMEM;
		out->has_settings = true;
		if (r->what & HS_FEATURES)
			features_from_settings(&out->feat, &out->thp);
		if (out->thp.nunread)
			host_snapshot_missing_err(out, out->thp.unread, out->thp.unread_err);
		if (out->thp.nbad)
			host_snapshot_missing(out, "transparent_hugepage (malformed files)");
		if (out->thp.hpage_pmd_size.present && page_size > 0)
			out->pmd_order =
				log2_floor(out->thp.hpage_pmd_size.v / (uint64_t)page_size);
	}
	/* a capture that could not record the THP tree whole: what it lacks there is unknown */
	if ((r->what & HS_FEATURES) && out->feat.thp_recorded == REC_MISSING)
		host_snapshot_missing(out, r->sr->rhel_thp ? SR_THP_RHEL6 " (not recorded whole)"
							   : SR_THP " (not recorded whole)");
	if (r->what & HS_HUGETLB) {
		if (hugetlb_read(r->sr, &out->hugetlb) == 0)
			out->has_hugetlb = true;
		else
			host_snapshot_missing(out, SR_HUGETLB);
		if (out->hugetlb.nbad)
			host_snapshot_missing(out, out->hugetlb.bad);
	}
	if (r->what & HS_KHUGEPAGED)
		read_khugepaged(r, out);
	if (r->what & HS_TUNED)
		out->has_tuned = tuned_read(r->sr, &out->tuned) == 0;
	if ((r->what & (HS_SETTINGS | HS_FINDINGS)) == (HS_SETTINGS | HS_FINDINGS))
		out->has_shrinker = shrinker_record_read(r->sr, &out->shrinker) == 0;
	return 0;
}

int host_snapshot_read(const struct sysroot *sr, struct host_snapshot *out)
{
	struct host_reader r;
	host_reader_init(&r, sr, HS_ALL, 0);
	memset(out, 0, sizeof(*out));
	int ret = host_snapshot_next(&r, out);
	host_reader_free(&r);
	return ret;
}
