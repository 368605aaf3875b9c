// SPDX-License-Identifier: MIT
#include "proc_thp.h"

#include "proc_read.h"

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

void proc_thp_add_vma(struct proc_thp *p, const struct smaps_vma *v)
{
	/* Size is end - start: a damaged Size line does not lose the VMA's size */
	uint64_t kb = smaps_has(&v->t, SM_SIZE) ? v->t.kb[SM_SIZE] : (v->end - v->start) / 1024;
	p->nvmas++;
	if (v->has_vmflags)
		p->has_vmflags = true;
	if (v->vmflags & VMF_HG) {
		p->hg_vmas++;
		p->hg_kb += kb;
		enum shmem_kind k = smaps_shmem_kind(v->name, v->name_len, v->vmflags);
		if (k != SHK_NONE) {
			p->hg_shm_vmas[k]++;
			p->hg_shm_kb[k] += kb;
			p->hg_shm_eligible[k] += v->thp_eligible == 1;
		}
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
	uint64_t pair_kb;
	if (smaps_stack_feed(&p->stack_scan, v, &pair_kb)) {
		p->stack_nh_vmas += 2;
		p->stack_nh_kb += pair_kb;
	}
	if (v->thp_eligible >= 0)
		p->has_eligible = true;
	if (v->thp_eligible == 1)
		p->eligible_vmas++;
}

static int vma_cb(const struct smaps_vma *v, void *ctx)
{
	proc_thp_add_vma(ctx, v);
	return 0;
}

/* What a failed read of smaps or smaps_rollup (ERR) means for the process. */
static enum proc_thp_err smaps_outcome(const struct sysroot *sr, int err)
{
	if (err == -EINVAL)
		return PT_ERROR;
	/* a recorded tree without smaps: it was unreadable at capture */
	if (proc_err_unreadable(sr, err))
		return PT_DENIED;
	return err == -ENOENT || err == -ESRCH ? PT_GONE : PT_ERROR;
}

/* proc_info.more of proc_thp_collect(): after status, smaps or smaps_rollup unless there is no mm. */
struct thp_next {
	unsigned want; /* PROC_SMAPS (| PROC_LEDGER) or PROC_ROLLUP */
	bool asked;
};

/* Whether status says the process has no mm of its own (a kernel thread or a zombie). */
static bool no_mm(const struct proc_status *st)
{
	return st->kthread == 1 || proc_status_no_mm(st);
}

static unsigned after_status(struct proc_info *pi, void *ctx)
{
	struct thp_next *n = ctx;
	if (n->asked || !(pi->got & PROC_STATUS) || pi->status_err || no_mm(&pi->st))
		return 0;
	n->asked = true;
	return n->want;
}

enum proc_thp_err proc_thp_collect(const struct sysroot *sr, pid_t pid, bool rollup, struct buf *b,
				   struct proc_thp *p, int *err)
{
	return proc_thp_collect_lv(sr, pid, rollup, b, p, err, NULL, NULL, NULL);
}

enum proc_thp_err proc_thp_collect_lv(const struct sysroot *sr, pid_t pid, bool rollup,
				      struct buf *b, struct proc_thp *p, int *err,
				      struct ledger_vmas *lv, const char *policy,
				      struct alloc_raw *alloc)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->rollup = rollup;
	*err = 0;
	struct thp_next next = {.want = rollup ? PROC_ROLLUP : PROC_SMAPS | (lv ? PROC_LEDGER : 0)};
	/* one pass on one proc/PID handle: status, then (when it has an mm) smaps */
	struct proc_info pi = {.vma_cb = vma_cb,
			       .vma_ctx = p,
			       .b = *b,
			       .more = after_status,
			       .more_ctx = &next,
			       .ledger_policy = policy,
			       .alloc_walk = rollup ? NULL : alloc};
	if (lv) {
		pi.lv = *lv; /* its buffer is reused, and given back below */
		pi.lv.n = 0;
	}
	int r = proc_read(sr, pid, PROC_STATUS, &pi);
	enum proc_thp_err ret = PT_OK;
	if (r == -ENOMEM && !(pi.got & PROC_STATUS)) {
		*err = ENOMEM;
		ret = PT_ERROR;
		goto out;
	}
	if (pi.status_err || !(pi.got & PROC_STATUS)) {
		int e = pi.status_err ? pi.status_err : -ESRCH;
		/* an empty status (-ESRCH here) and a malformed one report no errno */
		*err = e == -ESRCH || e == -EINVAL ? 0 : -e;
		ret = e == -ENOENT || e == -ESRCH ? PT_GONE : PT_ERROR;
		goto out;
	}
	p->st = pi.st;
	p->status_read = true;
	p->damaged = proc_status_nbad(&pi.st);
	if (p->st.kthread == 1) {
		ret = PT_KTHREAD;
	} else if (no_mm(&p->st)) {
		/* no mm: a kernel thread (old kernel) or a zombie */
		ret = p->st.ppid == 2 || pid == 2 ? PT_KTHREAD : PT_GONE;
	} else {
		int e = rollup ? pi.rollup_err : pi.smaps_err;
		if (r == -ENOMEM) {
			*err = ENOMEM;
			ret = PT_ERROR;
		} else if (e) {
			/* an empty file (-ESRCH with no VMA) and a malformed one report no errno,
			 * a truncated smaps reports EINVAL */
			bool empty = e == -ESRCH && (rollup ? true : pi.nvmas == 0);
			*err = empty || (e == -EINVAL && rollup) ? 0 : -e;
			ret = smaps_outcome(sr, e);
		} else if (!rollup && pi.smaps_truncated) {
			*err = EINVAL;
			ret = PT_ERROR;
		}
		p->t = pi.t;
		p->damaged += pi.smaps_damaged;
	}
out:
	*b = pi.b; /* the scratch buffer goes back to the caller */
	pi.b = (struct buf){0};
	if (lv) {
		*lv = pi.lv;
		pi.lv = (struct ledger_vmas){0};
	}
	proc_info_free(&pi);
	return ret;
}
