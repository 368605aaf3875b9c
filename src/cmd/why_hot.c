// SPDX-License-Identifier: MIT
/*
 * why PID --hot SECONDS (root, opt-in): clear the process's referenced bits
 * (proc/PID/clear_refs), wait, then smaps Referenced per VMA is the hot set;
 * compared with the TLB reach `lab tlb` recorded (issue 26).
 */
#include "why_hot.h"

#include <err.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../kernel/clear_refs.h"
#include "../kernel/proc_read.h"
#include "../kernel/tlb_record.h"
#include "../kernel/virt.h"
#include "../model/hot.h"
#include "../render/hot.h"

int why_hot_take(char **argv, int *argc, int *seconds)
{
	*seconds = 0;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i], *val = NULL;
		int used = 0;
		if (!strcmp(a, "--hot") && i + 1 < *argc) {
			val = argv[i + 1];
			used = 2;
		} else if (!strncmp(a, "--hot=", 6)) {
			val = a + 6;
			used = 1;
		} else if (!strcmp(a, "--hot")) {
			warnx("why: --hot takes SECONDS (1..3600)");
			return -1;
		} else if (!strcmp(a, "--")) {
			break;
		}
		if (!val)
			continue;
		char *end;
		long s = strtol(val, &end, 10);
		if (*end || s < 1 || s > 3600) {
			warnx("why: --hot takes SECONDS (1..3600), not '%s'", val);
			return -1;
		}
		*seconds = (int)s;
		memmove(&argv[i], &argv[i + used], (size_t)(*argc - i - used + 1) * sizeof(*argv));
		*argc -= used;
		i--;
	}
	return 0;
}

static int hot_cb(const struct smaps_vma *v, void *ctx)
{
	hot_add(ctx, &v->t);
	return 0;
}

int why_hot_run(const struct sysroot *sr, pid_t pid, int seconds, uint64_t pmd_kb, json_t *doc)
{
	int e = proc_clear_refs(sr, pid); /* root: cmd_why checked */
	if (e) {
		warnx("why: --hot: cannot clear the referenced bits of %d: %s", (int)pid,
		      strerror(-e));
		return EXIT_FAIL;
	}
	/*
	 * The accessed-bit probe of the same window: 4 MiB of thpctl's own, cleared and
	 * touched every 100 ms until the deadline, read back with the target's smaps. A
	 * host that loses accessed bits for its own pages shows it here (not every loss:
	 * docs/diagnosis.md).
	 */
	struct abit_probe probe;
	struct hot_probe hp = {0};
	hp.taken = abit_probe_start(sr, &probe, 4096) == 0;
	if (!doc)
		fprintf(stderr, "thpctl: why: cleared the referenced bits of %d; waiting %d s\n",
			(int)pid, seconds);
	/*
	 * The whole interval, whatever signal arrives meanwhile: an absolute deadline on
	 * the monotonic clock, slept to in steps of at most 100 ms (a probe pass each).
	 */
	uint64_t until = mono_ns() + (uint64_t)seconds * 1000000000u;
	for (uint64_t now; (now = mono_ns()) < until;) {
		uint64_t step = until - now < 100000000u ? until - now : 100000000u;
		struct timespec ts = {(time_t)(step / 1000000000u), (long)(step % 1000000000u)};
		nanosleep(&ts, NULL); /* a signal ends it early: the loop sleeps the rest */
		if (hp.taken)
			abit_probe_touch(&probe);
	}
	static struct proc_info pi;
	memset(&pi, 0, sizeof(pi));
	struct hot_sum s = {0};
	pi.vma_cb = hot_cb;
	pi.vma_ctx = &s;
	e = proc_read(sr, pid, PROC_SMAPS, &pi);
	int serr = pi.smaps_err;
	proc_info_free(&pi);
	if (e || serr) {
		abit_probe_end(&probe);
		warnx("why: --hot: smaps of %d unreadable after the interval (exited?)", (int)pid);
		return EXIT_FAIL;
	}
	if (hp.taken) {
		hp.touched_kb = probe.touched_kb;
		hp.touches = probe.touches;
		hp.taken = abit_probe_read(sr, &probe, &hp.ref_kb) == 0;
	}
	abit_probe_end(&probe);
	struct tlb_record rec;
	int rerr = tlb_record_read(sr, &rec);
	struct hot_verdict v;
	struct virt_info vi;
	virt_read(sr, &vi);
	bool guest_unsure = vi.env == VIRT_GUEST;
	hot_judge(&s, rerr ? NULL : &rec, pmd_kb, &hp, guest_unsure, &v);
	struct hot_report h = {(int)pid, seconds, &s, &v, rerr ? NULL : &rec, rerr, &hp};
	if (doc)
		json_object_set_new(doc, "hot", hot_to_json(&h));
	else
		hot_render_text(stdout, &h);
	return 0;
}
