// SPDX-License-Identifier: MIT
#include "features.h"

#include "capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/esc.h"
#include "parse.h"
#include "procs.h"
#include "smaps.h"
#include "thp_settings.h"
#include "uapi_compat.h"

int kernel_version_parse(const char *release, int v[3])
{
	v[0] = v[1] = v[2] = 0;
	const char *p = release, *end = release + strlen(release);
	for (int i = 0; i < 3; i++) {
		uint64_t x;
		if (parse_u64(&p, end, &x) || x > 100000) {
			if (i < 2)
				goto bad;
			break;
		}
		v[i] = (int)x;
		if (i < 2) {
			if (p >= end || *p != '.') {
				if (i == 1)
					return 0;
				goto bad;
			}
			p++;
		}
	}
	return 0;
bad:
	/* no half-parsed result: callers treat {0,0,0} as unknown */
	v[0] = v[1] = v[2] = 0;
	return -EINVAL;
}

bool kver_at_least(const int v[3], int maj, int min)
{
	return v[0] > maj || (v[0] == maj && v[1] >= min);
}

int cmdline_thp_parse(const char *text, size_t len, char *out, size_t n)
{
	static const char key[] = "transparent_hugepage=";
	const size_t kl = sizeof(key) - 1;
	const char *p = text, *end = text + len, *w, *we;
	int found = -ENOENT;
	while (next_word(&p, end, &w, &we)) {
		/* "--" ends the kernel's parameters; the rest belongs to init */
		if (we - w == 2 && w[0] == '-' && w[1] == '-')
			break;
		if ((size_t)(we - w) > kl && memcmp(w, key, kl) == 0) {
			size_t vl = (size_t)(we - w) - kl;
			if (vl >= n)
				vl = n - 1;
			memcpy(out, w + kl, vl);
			out[vl] = '\0';
			found = 0; /* the last one wins, as in the kernel */
		}
	}
	return found;
}

/*
 * MADV_COLLAPSE without side effects: do_madvise() rejects advice it does not
 * know with EINVAL before it looks at the range, so advice on an unmapped
 * page answers ENOMEM exactly when the kernel knows MADV_COLLAPSE (6.1+).
 */
static enum tri probe_madv_collapse(int *err)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		*err = errno;
		return TRI_UNKNOWN;
	}
	munmap(p, (size_t)pg);
	if (madvise(p, (size_t)pg, MADV_COLLAPSE) == 0) {
		*err = 0;
		return TRI_YES; /* something was mapped there meanwhile; still known */
	}
	*err = errno;
	if (errno == ENOMEM)
		return TRI_YES;
	return errno == EINVAL ? TRI_NO : TRI_UNKNOWN;
}

/* PR_THP_DISABLE_EXCEPT_ADVISED (6.18): older kernels reject arg3 != 0 with EINVAL. */
static enum tri probe_except_advised(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return TRI_UNKNOWN;
	if (pid == 0) {
		int r = prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0);
		_exit(r == 0 ? 0 : errno == EINVAL ? 1 : 2);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return TRI_UNKNOWN;
	if (!WIFEXITED(st))
		return TRI_UNKNOWN;
	return WEXITSTATUS(st) == 0 ? TRI_YES : WEXITSTATUS(st) == 1 ? TRI_NO : TRI_UNKNOWN;
}

/* A process whose status/smaps show which fields this kernel prints. */
static void probe_proc_fields(const struct sysroot *sr, struct features *f)
{
	struct buf b = {0};
	pid_t *pids = NULL;
	int n = 0;
	char who[32] = "self";
	if (!sr->live) {
		n = procs_list(sr, &pids);
		if (n <= 0) {
			free(pids);
			return;
		}
	}
	int i = 0;
	do {
		if (!sr->live)
			snprintf(who, sizeof(who), "%d", (int)pids[i]);
		if (f->status_thp_enabled == TRI_UNKNOWN &&
		    sysroot_readf(sr, &b, SR_PROC "/%s/status", who) == 0 && b.len)
			f->status_thp_enabled = strstr(b.p, "\nTHP_enabled:") ? TRI_YES : TRI_NO;
		if (f->smaps_thpeligible == TRI_UNKNOWN &&
		    sysroot_readf(sr, &b, SR_PROC "/%s/smaps", who) == 0 && b.len) {
			f->smaps_thpeligible = strstr(b.p, "\nTHPeligible:") ? TRI_YES : TRI_NO;
			struct smaps_totals t;
			if (f->page_size == 0 && smaps_parse(b.p, b.len, NULL, NULL, &t) == 0 &&
			    smaps_has(&t, SM_KERNEL_PAGE) && t.kb[SM_KERNEL_PAGE] &&
			    t.kb[SM_KERNEL_PAGE] <= (1u << 20)) {
				f->page_size = (long)t.kb[SM_KERNEL_PAGE] * 1024;
				f->page_size_inferred = true;
			}
		}
	} while (!sr->live && ++i < n &&
		 (f->status_thp_enabled == TRI_UNKNOWN || f->smaps_thpeligible == TRI_UNKNOWN));
	free(pids);
	buf_free(&b);
}

/*
 * What a capture recorded of the live host (cmd/capture.c): the base page size in
 * capture/version (when no recorded smaps said it), and the PR_THP_DISABLE_EXCEPT_ADVISED
 * probe in capture/status.json (yes, no; null or absent stays unknown).
 */
static void probe_capture_record(const struct sysroot *sr, struct features *f, struct buf *b)
{
	if (f->page_size == 0 && sysroot_read(sr, CAPTURE_VERSION_FILE, b) == 0 && b->len) {
		const char *p = strstr(b->p, "\npage_size ");
		uint64_t v;
		if (p && (p += 11, parse_u64(&p, b->p + b->len, &v) == 0) &&
		    (*p == '\n' || *p == '\0') && v >= 1024 && v <= (1u << 30) && !(v & (v - 1)))
			f->page_size = (long)v;
	}
	if (f->except_advised == TRI_UNKNOWN && sysroot_read(sr, "capture/status.json", b) == 0 &&
	    b->len) {
		const char *p = strstr(b->p, "\"pr_thp_disable_except_advised\":");
		if (p) {
			p += strlen("\"pr_thp_disable_except_advised\":");
			p += strspn(p, " \t\n");
			if (!strncmp(p, "true", 4))
				f->except_advised = TRI_YES;
			else if (!strncmp(p, "false", 5))
				f->except_advised = TRI_NO;
		}
	}
}

int features_probe(const struct sysroot *sr, struct features *f)
{
	memset(f, 0, sizeof(*f));
	f->madv_collapse = f->except_advised = TRI_UNKNOWN;
	f->status_thp_enabled = f->smaps_thpeligible = f->cow_split = TRI_UNKNOWN;
	struct buf b = {0};

	if (sysroot_read(sr, SR_PROC "/sys/kernel/osrelease", &b) == 0) {
		size_t n = b.len;
		while (n && (b.p[n - 1] == '\n' || b.p[n - 1] == ' '))
			n--;
		/* a name shown in sentences and commands: kept escaped (util/esc.h), never raw */
		esc_text(f->release, sizeof(f->release), b.p, n, 0);
		if (kernel_version_parse(f->release, f->kver) == 0 && f->kver[0])
			f->cow_split = kver_at_least(f->kver, 5, 8) ? TRI_YES : TRI_NO;
	}
	if (sr->live)
		f->page_size = sysconf(_SC_PAGESIZE);

	f->thp = sysroot_exists(sr, SR_THP) == 0;
	f->thp_recorded = sr->live ? REC_LIVE : REC_TREE;
	if (!sr->live && sysroot_read(sr, SR_CAPTURE_MANIFEST, &b) == 0) {
		enum capture_state cs =
			capture_manifest_state(b.p, b.len, sr->rhel_thp ? SR_THP_RHEL6 : SR_THP);
		/* partial: a file or directory below it was not read, so what is absent there
		 * (an mTHP size, stats/) says nothing of the kernel */
		f->thp_recorded = cs == CAP_COMPLETE || cs == CAP_ABSENT ? REC_WHOLE : REC_MISSING;
	}
	if (sysroot_read(sr, SR_PROC "/cmdline", &b) == 0) {
		f->has_cmdline = true;
		if (cmdline_thp_parse(b.p, b.len, f->cmdline_thp, sizeof(f->cmdline_thp)))
			f->cmdline_thp[0] = '\0';
	}
	probe_proc_fields(sr, f);
	if (!sr->live)
		probe_capture_record(sr, f, &b);
	if (sr->live && f->thp) {
		f->madv_collapse = probe_madv_collapse(&f->madv_collapse_err);
		f->except_advised = probe_except_advised();
	}
	buf_free(&b);
	return 0;
}

bool features_absence_known(const struct features *f, int maj, int min)
{
	if (f->thp_recorded == REC_LIVE || f->thp_recorded == REC_WHOLE)
		return true;
	return f->thp_recorded == REC_TREE && f->kver[0] && !kver_at_least(f->kver, maj, min);
}

void features_from_settings(struct features *f, const struct thp_settings *s)
{
	f->pmd_size = s->hpage_pmd_size.present ? s->hpage_pmd_size.v : 0;
	f->shrink_underused = s->shrink_underused.present;
	f->mthp_sizes = 0;
	f->per_size_stats = false;
	for (int i = 0; i < s->nsizes; i++) {
		if (s->sizes[i].enabled.present)
			f->mthp_sizes++;
		if (s->sizes[i].has_stats)
			f->per_size_stats = true;
	}
}
