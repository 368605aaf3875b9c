// SPDX-License-Identifier: MIT
/*
 * `thpctl lab`, before the first host-wide change: what will change, for about
 * how long, and which running processes it reaches (those using THP now or
 * eligible for it, read through kernel/ readers); on a terminal a question,
 * without one --yes, else a refusal that changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/proc_thp.h"
#include "../kernel/procs.h"
#include "../render/table.h"
#include "../util/buf.h"
#include "lab_host.h"

#define NAMED_MAX 8 /* processes named one by one; the rest are counted */

/* The processes a host-wide change reaches. */
struct reach {
	int users;     /* using THP (AnonHugePages) or eligible now (a THPeligible mapping) */
	int anon_only; /* the other processes with anonymous memory and THP not off */
	int unread;    /* smaps not readable (gone, denied) */
	pid_t pid[NAMED_MAX];
	char name[NAMED_MAX][COMM_LEN];
	uint64_t ahp_kb[NAMED_MAX];
};

/* Every process but this one, through proc_thp_collect's smaps walk, into RE. */
static void reach_scan(const struct sysroot *sr, struct reach *re)
{
	memset(re, 0, sizeof(*re));
	pid_t *pids = NULL;
	int n = procs_list(sr, &pids);
	struct buf b = {0};
	static struct proc_thp p;
	for (int i = 0; i < n; i++) {
		if (pids[i] == getpid())
			continue;
		int err = 0;
		enum proc_thp_err e = proc_thp_collect(sr, pids[i], false, &b, &p, &err);
		if (e == PT_KTHREAD || e == PT_GONE)
			continue;
		if (e != PT_OK) {
			re->unread++;
			continue;
		}
		bool off = p.st.thp_enabled == 0; /* a full prctl disable: nothing reaches it */
		if (!off && (p.t.kb[SM_ANON_HUGE] > 0 || p.eligible_vmas > 0)) {
			if (re->users < NAMED_MAX) {
				re->pid[re->users] = p.pid;
				snprintf(re->name[re->users], sizeof(re->name[0]), "%s", p.st.name);
				re->ahp_kb[re->users] = p.t.kb[SM_ANON_HUGE];
			}
			re->users++;
		} else if (!off && p.t.kb[SM_ANONYMOUS] > 0) {
			re->anon_only++;
		}
	}
	buf_free(&b);
	free(pids);
}

/* TEXT on stderr after PREFIX, wrapped at 78 columns under an INDENT-space hanging indent. */
static void wrap(const char *prefix, int indent, const char *text)
{
	int col = fprintf(stderr, "%s", prefix);
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (col > indent && col + 1 + (int)w > 78) {
			col = fprintf(stderr, "\n%*s", indent, "") - 1;
		} else if (p != text) {
			fputc(' ', stderr);
			col++;
		}
		col += fprintf(stderr, "%.*s", (int)w, p);
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', stderr);
}

/* The notice on stderr: what, for about how long, whom. */
static void notice(const char *label, const struct lab_experiment *const *xs, int n, bool quick,
		   const struct reach *re)
{
	int total = 0;
	bool all = false;
	char line[320];
	for (int i = 0; i < n; i++) {
		total += quick ? xs[i]->host.quick_s : xs[i]->host.full_s;
		all |= xs[i]->host.all;
	}
	snprintf(line, sizeof(line),
		 "%s changes host-wide THP settings, for about %d s in all (estimated from "
		 "runs on a 2-CPU guest):",
		 label, total);
	wrap("thpctl ", 2, line);
	for (int i = 0; i < n; i++) {
		char head[64];
		snprintf(head, sizeof(head), "  %s (about %d s): ", xs[i]->name,
			 quick ? xs[i]->host.quick_s : xs[i]->host.full_s);
		wrap(head, 6, xs[i]->host.what);
	}
	wrap("", 0,
	     "Each is journalled in /run/thpctl first and put back when its experiment ends, on a "
	     "signal, or by the next thpctl after a SIGKILL. Meanwhile it applies to every "
	     "process:");
	fprintf(stderr, "  using THP or eligible for it now:%s\n", re->users ? "" : " none");
	for (int i = 0; i < re->users && i < NAMED_MAX; i++) {
		fprintf(stderr, "    %d ", (int)re->pid[i]);
		fputs_safe(re->name[i], stderr);
		fprintf(stderr, " (AnonHugePages %llu kB)\n", (unsigned long long)re->ahp_kb[i]);
	}
	if (re->users > NAMED_MAX)
		fprintf(stderr, "    and %d more\n", re->users - NAMED_MAX);
	if (all)
		fprintf(stderr,
			"  eligible too while enabled or a size is at always: %d other process%s\n"
			"    with anonymous memory\n",
			re->anon_only, re->anon_only == 1 ? "" : "es");
	if (re->unread)
		fprintf(stderr, "  (%d process%s not readable here)\n", re->unread,
			re->unread == 1 ? "" : "es");
}

/* A yes on stdin (a terminal) to the question on stderr. */
static bool ask(void)
{
	/* a constant: on the stream under the filter, which holds a line until its '\n' */
	fputs("Change them? [y/N] ", esc_raw_stderr());
	fflush(esc_raw_stderr());
	char line[16];
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

int lab_host_confirm(const struct sysroot *sr, const char *label,
		     const struct lab_experiment *const *xs, int n, const struct lab_opts *o,
		     bool yes)
{
	const struct lab_experiment *chg[64];
	int nc = 0;
	for (int i = 0; i < n && nc < 64; i++)
		if (lab_changes_host(xs[i], o))
			chg[nc++] = xs[i];
	if (!nc)
		return -1;
	bool tty = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
	if (!yes && !tty) {
		fprintf(stderr,
			"thpctl: %s would change host-wide THP settings (%s: %s%s): refused without "
			"a terminal to ask on; pass --yes to allow it. Nothing was changed.\n",
			label, chg[0]->name, chg[0]->host.what, nc > 1 ? "; and more" : "");
		return 2;
	}
	struct reach re;
	reach_scan(sr, &re);
	notice(label, chg, nc, o->quick, &re);
	if (yes)
		return -1;
	if (ask())
		return -1;
	fprintf(stderr, "thpctl: %s: not confirmed, nothing was changed\n", label);
	return 2;
}
