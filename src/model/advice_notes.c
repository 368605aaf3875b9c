// SPDX-License-Identifier: MIT
/* advise's notes: what the advice leaves to the operator, and why (model/advice.c calls it). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/units.h"
#include "advice_int.h"

static bool finding_addressed(const char *id)
{
	static const char *const ids[] = {"defrag-always", "always-max-ptes-none", "cow-copy",
					  "shrink-underused-noop", "settings-read-only"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (strcmp(id, ids[i]) == 0)
			return true;
	return false;
}

void advice_notes(struct adv_ctx *c)
{
	const struct adv_input *in = c->in;
	const struct host_snapshot *h = in->h;
	struct advice *a = c->out;
	/* the conflict on a mixed host, named, with the way out */
	char needs[160] = "";
	size_t nl = 0;
	for (int i = 0; i < c->nw; i++) {
		const struct want *w = &c->w[i];
		if (w->key != AK_ENABLED || w->per_process || c->enabled_res < 0 ||
		    !(w->accept & (1u << c->enabled_res)) || strstr(needs, w->who))
			continue;
		if (nl < sizeof(needs))
			nl += (size_t)snprintf(
				needs + nl, sizeof(needs) - nl, "%s%s", nl ? " and " : "",
				w->wl >= 0 ? workload_title((enum workload)w->wl) : w->who);
	}
	for (int w = 0; w < WL_N; w++)
		if (c->pp_off[w])
			adv_note(
				a, AN_CONFLICT,
				"%s wants THP off its memory, but %s need%s enabled=%s host-wide: the host gets %s, and %s opts out per process (see Per process)",
				workload_title((enum workload)w),
				needs[0] ? needs : "the other workloads",
				strstr(needs, " and ") || !needs[0] ? "" : "s",
				adv_enabled_vals[c->enabled_res], adv_enabled_vals[c->enabled_res],
				workload_title((enum workload)w));
	if (a->wl[WL_MONGODB7].active && in->mongodb_assumed)
		adv_note(
			a, AN_ASSUMPTION,
			"MongoDB version unknown (not in its path, no dpkg record): assumed 7.0 or earlier (THP off, the long-standing advice); for 8.0 or later run thpctl advise --workload mongodb8");
	for (int i = 0; i < in->nprocs; i++) {
		const struct adv_proc *p = &in->procs[i];
		if ((p->wl == WL_MONGODB7 || p->wl == WL_MONGODB8) && p->has_ver) {
			char v[24];
			if (p->ver[1] >= 0)
				snprintf(v, sizeof(v), "%d.%d", p->ver[0], p->ver[1]);
			else
				snprintf(v, sizeof(v), "%d", p->ver[0]);
			adv_note(a, AN_INFO, "mongod PID %ld is MongoDB %s (%s)", p->pid, v,
				 p->ver_src);
		}
	}
	if (h->thp.write_err && h->thp.write_err != -ENOENT && h->thp.write_err != -ENODATA)
		adv_note(
			a, AN_INFO,
			"the THP settings are not writable here (%s): apply the host-wide part as root on the host",
			strerror(-h->thp.write_err));
	/* findings of `thpctl status` that the settings above do not cover */
	for (int i = 0; in->fs && i < in->fs->n; i++) {
		const struct finding *f = &in->fs->f[i];
		if (f->sev < SEV_WARN || finding_addressed(f->id))
			continue;
		/* the watch note below covers it */
		if (strcmp(f->id, "compact-stall") == 0)
			continue;
		adv_note(a, AN_FINDING, "%s (finding %s); fix: %s", f->title, f->id, f->fix);
	}
	/* watch compact_stall */
	uint64_t cs;
	if (kv_get(&h->vmstat, "compact_stall", &cs)) {
		char rate[64] = "";
		if (h->uptime_s > 0)
			snprintf(rate, sizeof(rate), ", %.1f per hour of uptime",
				 (double)cs * 3600.0 / h->uptime_s);
		const char *d = c->defrag_res >= 0 ? adv_defrag_vals[c->defrag_res] : "?";
		adv_note(
			a, AN_WATCH,
			"compact_stall=%llu since boot%s (/proc/vmstat): after a change, watch its rate with thpctl watch; if it keeps rising, faults wait in compaction%s",
			(unsigned long long)cs, rate,
			c->defrag_res == 1 || c->defrag_res == 4
				? " for reasons other than THP (defrag no longer stalls THP faults)"
			: strcmp(d, "always") == 0
				? ": move defrag off always"
				: ": move defrag towards defer (only MADV_HUGEPAGE regions stall now)");
	}
	if (in->unreadable)
		adv_note(
			a, AN_INFO,
			"%d of %d processes not fully readable (exe, cmdline or cgroup): run as root to detect versions, Go binaries and systemd units",
			in->unreadable, in->scanned);
	if (in->small_go)
		adv_note(a, AN_INFO, "%d Go process%s under 64 MiB RSS not counted as a workload",
			 in->small_go, in->small_go == 1 ? "" : "es");
}
