// SPDX-License-Identifier: MIT
#include "proc_thp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void vma_display_name(const char *name, size_t len, char *out, size_t n)
{
	if (len == 0) {
		snprintf(out, n, "[anon]");
		return;
	}
	if (len >= n)
		len = n - 1;
	memcpy(out, name, len);
	out[len] = '\0';
}

static int vma_cb(const struct smaps_vma *v, void *ctx)
{
	struct proc_thp *p = ctx;
	uint64_t kb = v->t.kb[SM_SIZE];
	p->nvmas++;
	if (v->has_vmflags)
		p->has_vmflags = true;
	if (v->vmflags & VMF_HG) {
		p->hg_vmas++;
		p->hg_kb += kb;
		if (kb > p->largest_hg_kb) {
			p->largest_hg_kb = kb;
			vma_display_name(v->name, v->name_len, p->largest_hg_name,
					 sizeof(p->largest_hg_name));
		}
	}
	if (v->vmflags & VMF_NH) {
		p->nh_vmas++;
		p->nh_kb += kb;
	}
	if (v->thp_eligible >= 0)
		p->has_eligible = true;
	if (v->thp_eligible == 1)
		p->eligible_vmas++;
	return 0;
}

static int feed(void *ctx, const char *text, size_t len)
{
	return smaps_stream_feed(ctx, text, len);
}

static int gone(int r)
{
	return r == -ENOENT || r == -ESRCH;
}

enum proc_thp_err proc_thp_collect(const struct sysroot *sr, pid_t pid, bool rollup, struct buf *b,
				   struct proc_thp *p, int *err)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->rollup = rollup;
	*err = 0;
	int r = sysroot_readf(sr, b, SR_PROC "/%d/status", (int)pid);
	if (r) {
		*err = -r;
		return gone(r) ? PT_GONE : PT_ERROR;
	}
	if (b->len == 0)
		return PT_GONE;
	if (proc_status_parse(b->p, b->len, &p->st))
		return PT_ERROR;
	if (p->st.kthread == 1)
		return PT_KTHREAD;
	if (p->st.vmrss_kb < 0) /* no mm: a kernel thread (old kernel) or a zombie */
		return p->st.ppid == 2 || pid == 2 ? PT_KTHREAD : PT_GONE;
	if (rollup) {
		r = sysroot_readf(sr, b, SR_PROC "/%d/smaps_rollup", (int)pid);
	} else {
		/* streamed: a process with 20 000 VMAs prints ~28 MB of smaps */
		struct smaps_stream s;
		char rel[64];
		snprintf(rel, sizeof(rel), SR_PROC "/%d/smaps", (int)pid);
		smaps_stream_init(&s, vma_cb, p, &p->t);
		r = sysroot_read_chunks(sr, rel, b, feed, &s);
		if (r == 0)
			r = smaps_stream_finish(&s);
		if (r == -EINVAL || (r == 0 && s.truncated)) {
			*err = EINVAL;
			return PT_ERROR;
		}
	}
	if (r) {
		*err = -r;
		/* a recorded tree without smaps: it was unreadable at capture */
		if (r == -ENOENT && !sr->live)
			return PT_DENIED;
		if (gone(r))
			return PT_GONE;
		return r == -EACCES || r == -EPERM ? PT_DENIED : PT_ERROR;
	}
	if (rollup) {
		if (b->len == 0) /* the mm went away between the two reads */
			return PT_GONE;
		if (b->p[b->len - 1] != '\n' || smaps_rollup_parse(b->p, b->len, &p->t))
			return PT_ERROR;
	} else if (p->nvmas == 0) {
		return PT_GONE;
	}
	return PT_OK;
}
