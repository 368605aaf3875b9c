// SPDX-License-Identifier: MIT
#include "proc_read.h"
#include "proc_alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/buf.h"
#include "../util/num.h"
#include "exe.h"

bool proc_err_unreadable(const struct sysroot *sr, int err)
{
	return err == -EACCES || err == -EPERM || (err == -ENOENT && !sr->live);
}

bool proc_tree_smaps_unrecorded(const struct sysroot *sr, pid_t pid)
{
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/smaps", (int)pid);
	return !sr->live && sysroot_exists(sr, rel) == -ENOENT;
}

/* A read error that means the process went away (live: its proc/PID entries vanish). */
static bool gone_err(const struct sysroot *sr, int err)
{
	return err == -ESRCH || (err == -ENOENT && sr->live);
}

/* One reading pass: the sysroot, and proc/PID as a sysroot of its own (same reads, relative to it). */
struct pass {
	const struct sysroot *sr;
	struct sysroot dir; /* dirfd = proc/PID, no fd cache */
	struct proc_info *pi;
};

/* Record ERR for the file of FLAG; true when the process is gone. */
static bool note(struct pass *p, int *slot, unsigned flag, int err)
{
	*slot = err;
	if (!err)
		p->pi->got |= flag;
	if (err == -ESRCH || (err && gone_err(p->sr, err)))
		p->pi->gone = true;
	return p->pi->gone;
}

/* The error slot of file FLAG (one PROC_* bit with a file), or NULL. */
static int *err_slot(struct proc_info *pi, unsigned flag)
{
	switch (flag) {
	case PROC_STATUS:
		return &pi->status_err;
	case PROC_SMAPS:
		return &pi->smaps_err;
	case PROC_ROLLUP:
		return &pi->rollup_err;
	case PROC_CGROUP:
		return &pi->cgroup_err;
	case PROC_ENVIRON:
		return &pi->environ_err;
	case PROC_CMDLINE:
		return &pi->cmdline_err;
	case PROC_MAPS:
		return &pi->maps_err;
	case PROC_EXE:
		return &pi->exe_err;
	case PROC_TASKS:
		return &pi->tasks_err;
	case PROC_STAT:
		return &pi->stat_err;
	case PROC_STATM:
		return &pi->statm_err;
	case PROC_ALLOWED:
		return &pi->allowed_err;
	default:
		return NULL;
	}
}

/* Parse pi->b as the file of FLAG (PROC_STATUS, PROC_STAT, PROC_STATM or PROC_CGROUP). */
static int parse(struct proc_info *pi, unsigned flag)
{
	const char *s = pi->b.p;
	size_t l = pi->b.len;
	switch (flag) {
	case PROC_STATUS:
		return proc_status_parse(s, l, &pi->st);
	case PROC_STAT:
		return proc_stat_parse(s, l, &pi->stat);
	case PROC_STATM:
		return proc_statm_parse(s, l, &pi->statm);
	default:
		return proc_cgroup_parse(s, l, &pi->cg);
	}
}

/* The file NAME of FLAG read and parsed (parse()); its error noted. Returns note()'s answer. */
static int read_parsed(struct pass *p, const char *name, unsigned flag)
{
	struct proc_info *pi = p->pi;
	int e = sysroot_read(&p->dir, name, &pi->b);
	if (!e && pi->b.len == 0 && flag != PROC_CGROUP)
		e = -ESRCH; /* a task being reaped prints nothing */
	if (!e && parse(pi, flag))
		e = -EINVAL;
	if (e == -ENOENT && flag == PROC_STATUS) /* proc/PID without status: no process */
		pi->gone = true;
	return note(p, err_slot(pi, flag), flag, e);
}

static int read_raw(struct pass *p, const char *name, struct buf *out, int *slot, unsigned flag)
{
	return note(p, slot, flag, sysroot_read(&p->dir, name, out));
}

static int read_exe(struct pass *p)
{
	struct proc_info *pi = p->pi;
	/* not a sign of exit: kernel threads and recorded trees have no exe link */
	pi->exe_err = exe_path(p->sr, pi->pid, pi->exe, sizeof(pi->exe));
	if (!pi->exe_err)
		pi->got |= PROC_EXE;
	else
		pi->exe[0] = '\0';
	return 0;
}

static int add_tid(struct proc_info *pi, size_t *cap, pid_t tid)
{
	if ((size_t)pi->ntids == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		pid_t *v = realloc(pi->tids, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		pi->tids = v;
		*cap = n;
	}
	pi->tids[pi->ntids++] = tid;
	return 0;
}

static int read_tasks(struct pass *p)
{
	struct proc_info *pi = p->pi;
	pi->ntids = 0;
	int fd = sysroot_openat(&p->dir, "task", O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	int e = d ? 0 : fd < 0 ? fd : -errno;
	if (!d && fd >= 0)
		close(fd);
	struct dirent *de;
	size_t cap = 0;
	while (!e && (de = readdir(d))) {
		pid_t tid;
		if (str_pid(de->d_name, &tid) == 0)
			e = add_tid(pi, &cap, tid);
	}
	if (d)
		closedir(d);
	if (!e && pi->ntids == 0)
		e = -ESRCH; /* every live process has at least one thread */
	return note(p, &pi->tasks_err, PROC_TASKS, e);
}

static int read_rollup(struct pass *p)
{
	struct proc_info *pi = p->pi;
	memset(&pi->t, 0, sizeof(pi->t));
	int e = sysroot_read(&p->dir, "smaps_rollup", &pi->b);
	if (!e && pi->b.len == 0)
		e = -ESRCH; /* the mm went away after status */
	if (!e &&
	    (pi->b.p[pi->b.len - 1] != '\n' || smaps_rollup_parse(pi->b.p, pi->b.len, &pi->t)))
		e = -EINVAL;
	return note(p, &pi->rollup_err, PROC_ROLLUP, e);
}

static int count_vma(const struct smaps_vma *v, void *ctx)
{
	struct proc_info *pi = ctx;
	pi->nvmas++;
	if (pi->alloc_walk)
		alloc_maps_vma(pi->alloc_walk, v->name, v->name_len, v->start, v->end);
	if (pi->lv_walk) { /* PROC_LEDGER with this walk */
		ledger_vmas_add(&pi->lv, v, pi->ledger_policy);
		if (pi->lv.err)
			return pi->lv.err;
	}
	return pi->vma_cb ? pi->vma_cb(v, pi->vma_ctx) : 0;
}

static int feed(void *ctx, const char *text, size_t len)
{
	return smaps_stream_feed(ctx, text, len);
}

static int read_smaps(struct pass *p, bool ledger)
{
	struct proc_info *pi = p->pi;
	memset(&pi->t, 0, sizeof(pi->t));
	pi->lv.n = 0;
	pi->lv.err = 0;
	pi->lv_walk = ledger;
	pi->nvmas = 0;
	pi->smaps_truncated = false;
	pi->smaps_damaged = 0;
	/* streamed: a process with 20 000 VMAs prints ~28 MB of smaps */
	struct smaps_stream *s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	smaps_stream_init(s, count_vma, pi, &pi->t);
	int e = sysroot_read_chunks(&p->dir, "smaps", &pi->b, feed, s);
	if (!e)
		e = smaps_stream_finish(s);
	pi->smaps_truncated = s->truncated;
	pi->smaps_damaged = (int)s->nbad;
	pi->lv_walk = false;
	free(s);
	if (e == -ENOMEM || pi->lv.err == -ENOMEM)
		return -ENOMEM;
	if (ledger && !e)
		pi->got |= PROC_LEDGER;
	if (!e && pi->nvmas == 0)
		e = -ESRCH; /* the mm went away after status */
	return note(p, &pi->smaps_err, PROC_SMAPS, e);
}

/* Forget the files of FLAGS (they are read again). */
static void forget(struct proc_info *pi, unsigned flags)
{
	pi->got &= ~flags;
	for (unsigned f = 1; f <= PROC_LAST; f <<= 1) {
		int *slot = err_slot(pi, f);
		if ((flags & f) && slot)
			*slot = 0;
	}
	if (flags & PROC_CHAIN)
		pi->chain_walked = false;
}

/* A new pid forgets everything; the same pid forgets only the files of FLAGS. */
static void reset(struct proc_info *pi, pid_t pid, unsigned flags)
{
	if (pi->pid != pid) {
		pi->got = 0;
		memset(&pi->st, 0, sizeof(pi->st));
		pi->status_err = pi->smaps_err = pi->rollup_err = pi->cgroup_err = pi->environ_err =
			pi->cmdline_err = pi->maps_err = pi->exe_err = pi->tasks_err =
				pi->stat_err = pi->statm_err = pi->allowed_err = 0;
		pi->exe[0] = '\0';
		pi->exe_go = -ENOENT;
		pi->chain_walked = false;
		pi->ntids = 0;
	}
	pi->pid = pid;
	pi->gone = false;
	forget(pi, flags);
}

/* Mark the files of FLAGS not read yet with ERR. */
static void mark_rest(struct proc_info *pi, unsigned flags, int err)
{
	for (unsigned f = 1; f <= PROC_LAST; f <<= 1) {
		int *slot = err_slot(pi, f);
		if ((flags & f) && slot && !(pi->got & f) && !*slot)
			*slot = err;
	}
}

static int read_all(struct pass *p, unsigned flags)
{
	struct proc_info *pi = p->pi;
	if ((flags & PROC_STATUS) && read_parsed(p, "status", PROC_STATUS))
		return 0;
	if ((flags & PROC_CHAIN) && pi->st.has_name && pi->st.thp_enabled == 0) {
		thp_chain_walk(p->sr, &pi->b, pi->st.ppid, &pi->chain);
		pi->chain_walked = true;
	}
	if ((flags & PROC_STAT) && read_parsed(p, "stat", PROC_STAT))
		return 0;
	if ((flags & PROC_STATM) && read_parsed(p, "statm", PROC_STATM))
		return 0;
	if ((flags & PROC_CGROUP) && read_parsed(p, "cgroup", PROC_CGROUP))
		return 0;
	if ((flags & PROC_CMDLINE) &&
	    read_raw(p, "cmdline", &pi->cmdline, &pi->cmdline_err, PROC_CMDLINE))
		return 0;
	if ((flags & PROC_ENVIRON) &&
	    read_raw(p, "environ", &pi->environ, &pi->environ_err, PROC_ENVIRON))
		return 0;
	if (flags & PROC_EXE)
		read_exe(p);
	if (flags & PROC_EXE_GO) {
		pi->gover[0] = '\0';
		pi->exe_go = exe_go_version(p->sr, pi->pid, pi->gover, sizeof(pi->gover));
		if (pi->exe_go >= 0)
			pi->got |= PROC_EXE_GO;
	}
	if ((flags & PROC_MAPS) && read_raw(p, "maps", &pi->maps, &pi->maps_err, PROC_MAPS))
		return 0;
	if ((flags & PROC_TASKS) && read_tasks(p))
		return 0;
	if ((flags & PROC_ROLLUP) && read_rollup(p))
		return 0;
	if (flags & PROC_SMAPS) {
		int e = read_smaps(p, flags & PROC_LEDGER);
		if (e < 0)
			return e;
	}
	if (flags & PROC_ALLOWED) {
		/* task/TID/status of every thread: not through the handle (numa.c) */
		pi->allowed_err = numa_proc_allowed(p->sr, pi->pid, &pi->allowed);
		if (!pi->allowed_err)
			pi->got |= PROC_ALLOWED;
		else if (pi->allowed_err == -ESRCH) /* -ENOENT: no Cpus_allowed_list line */
			pi->gone = true;
	}
	return 0;
}

int proc_read(const struct sysroot *sr, pid_t pid, unsigned flags, struct proc_info *pi)
{
	reset(pi, pid, flags);
	struct pass p = {.sr = sr, .pi = pi};
	char rel[32];
	if (pid)
		snprintf(rel, sizeof(rel), SR_PROC "/%d", (int)pid);
	else
		snprintf(rel, sizeof(rel), SR_PROC "/self");
	int fd = sysroot_openat(sr, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		bool gone = fd == -ENOENT || fd == -ESRCH;
		pi->gone = gone;
		mark_rest(pi, flags, fd);
		return gone ? -ESRCH : fd;
	}
	p.dir.dirfd = fd;
	p.dir.live = sr->live;
	p.dir.procfs = p.dir.proc_pid = sr->procfs;
	unsigned all = flags;
	int e = read_all(&p, flags);
	/* the caller's further rounds, on the same handle */
	for (int round = 1; !e && !pi->gone && pi->more && round < PROC_MAX_ROUNDS; round++) {
		unsigned more = pi->more(pi, pi->more_ctx);
		if (!more)
			break;
		forget(pi, more);
		all |= more;
		e = read_all(&p, more);
	}
	close(fd);
	if (e)
		return e;
	if (pi->gone) {
		mark_rest(pi, all, -ESRCH);
		return -ESRCH;
	}
	return 0;
}

void proc_info_free(struct proc_info *pi)
{
	buf_free(&pi->environ);
	buf_free(&pi->cmdline);
	buf_free(&pi->maps);
	buf_free(&pi->b);
	free(pi->tids);
	ledger_vmas_free(&pi->lv);
	memset(pi, 0, sizeof(*pi));
}

int proc_mm_read(const struct sysroot *sr, pid_t pid, struct proc_info *pi)
{
	int r = proc_read(sr, pid, PROC_STATUS | PROC_STAT, pi);
	if (r == -ESRCH && !sr->live) { /* a recorded kernel thread: its stat, no status */
		r = proc_read(sr, pid, PROC_STAT, pi);
		if (!r && !(pi->got & PROC_STAT))
			r = -ESRCH;
	}
	if (r == -ENOMEM)
		return r;
	if (r == -ESRCH)
		return PROC_MM_ABSENT;
	bool st = pi->got & PROC_STATUS, sp = pi->got & PROC_STAT;
	if (st && pi->st.kthread != 1 && !proc_status_no_mm(&pi->st))
		return PROC_MM_YES;
	if ((st && pi->st.kthread == 1) || (sp && (pi->stat.flags & PF_KTHREAD_FLAG)))
		return PROC_MM_KTHREAD;
	if (sp && (pi->stat.state == 'Z' || pi->stat.state == 'X'))
		return PROC_MM_ZOMBIE;
	return st ? PROC_MM_NONE : PROC_MM_UNREADABLE;
}
