// SPDX-License-Identifier: MIT
#include "cgroup_stat.h"
#include "proc_read.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"
#include "cgroup.h"
#include "kv.h"

/* memory.stat keys per version, by enum memstat_field; NULL: not printed. */
static const char *const ms_keys[2][MS_NFIELDS] = {
	[0] = {[MS_ANON] = "total_rss", [MS_ANON_THP] = "total_rss_huge"},
	[1] = {[MS_ANON] = "anon",
	       [MS_ANON_THP] = "anon_thp",
	       [MS_FILE_THP] = "file_thp",
	       [MS_SHMEM_THP] = "shmem_thp",
	       [MS_THP_FAULT_ALLOC] = "thp_fault_alloc",
	       [MS_THP_COLLAPSE_ALLOC] = "thp_collapse_alloc"},
};

int memstat_parse(const char *text, size_t len, int version, struct memstat *out)
{
	memset(out, 0, sizeof(*out));
	if (version != 1 && version != 2)
		return -EINVAL;
	const char *const *keys = ms_keys[version - 1];
	const char *pos = text, *end = text + len, *s, *e;
	int good = 0;
	unsigned seen = 0;
	while (next_line(&pos, end, &s, &e)) {
		const char *sp = memchr(s, ' ', (size_t)(e - s));
		uint64_t v;
		const char *q = sp ? sp + 1 : e;
		if (!sp || sp == s || parse_u64(&q, e, &v) || q != e) {
			out->bad++;
			continue;
		}
		good++;
		size_t kl = (size_t)(sp - s);
		for (int f = 0; f < MS_NFIELDS; f++) {
			if (!keys[f] || strlen(keys[f]) != kl || memcmp(keys[f], s, kl))
				continue;
			/* a key seen twice is damage: unknown, and counted as bad */
			out->f[f].v = v;
			out->f[f].present = !(seen & (1u << f));
			out->bad += !out->f[f].present;
			seen |= 1u << f;
		}
	}
	return good ? 0 : -EINVAL;
}

/* Whether the cgroup.controllers file of the v2 hierarchy at REL lists "memory". */
static bool v2_has_memory(const struct sysroot *sr, const char *rel, struct buf *b)
{
	if (sysroot_readf(sr, b, "%s/cgroup.controllers", rel))
		return false;
	const char *p = b->p, *end = b->p + b->len, *w, *we;
	while (next_word(&p, end, &w, &we))
		if (we - w == 6 && !memcmp(w, "memory", 6))
			return true;
	return false;
}

/* The PIDs of REL/cgroup.procs into N. */
static int read_procs(const struct sysroot *sr, const char *rel, struct buf *b, struct cg_node *n)
{
	int r = sysroot_readf(sr, b, "%s/cgroup.procs", rel);
	if (r)
		return r;
	size_t cap = 0;
	const char *pos = b->p, *end = b->p + b->len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		uint64_t v;
		const char *q = s;
		if (s == e) /* an empty line: nothing */
			continue;
		if (parse_u64(&q, e, &v) || q != e || v == 0 || v > 0x3fffffff) {
			n->procs_bad++; /* a process not counted: said, never a smaller count */
			continue;
		}
		if (array_reserve(&n->pids, &cap, (size_t)n->npids + 1, sizeof(*n->pids), 16))
			return -ENOMEM;
		n->pids[n->npids++] = (pid_t)v;
	}
	return 0;
}

/* One cgroup's files at REL into N. Returns 0 or -ENOMEM. */
static int read_node(const struct sysroot *sr, int version, const char *rel, struct buf *b,
		     struct cg_node *n)
{
	n->stat_err = sysroot_readf(sr, b, "%s/memory.stat", rel);
	if (!n->stat_err)
		n->stat_err = memstat_parse(b->p, b->len, version, &n->ms);
	n->current_err = sysroot_readf(sr, b, "%s/%s", rel,
				       version == 2 ? "memory.current" : "memory.usage_in_bytes");
	if (!n->current_err)
		n->current_err = parse_u64_text(b->p, b->len, &n->current.v);
	n->current.present = !n->current_err;
	n->limit_err = sysroot_readf(sr, b, "%s/%s", rel,
				     version == 2 ? "memory.max" : "memory.limit_in_bytes");
	if (!n->limit_err)
		n->limit_err = cgroup_limit_parse(b->p, b->len, &n->limited, &n->limit);
	if (n->limit_err == -ENOENT && version == 2 && n->depth == 0) {
		/* the v2 root has no memory.max: it cannot be limited */
		n->limit_err = 0;
		n->limited = false;
	}
	n->limit_known = !n->limit_err;
	n->procs_err = read_procs(sr, rel, b, n);
	return n->procs_err == -ENOMEM ? -ENOMEM : 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct walk {
	const struct sysroot *sr;
	struct cg_tree *t;
	struct buf b;
	size_t rootlen; /* length of t->root in a node's sysroot-relative path */
};

static int walk(struct walk *w, const char *rel, int depth)
{
	struct cg_tree *t = w->t;
	if (t->n >= CGS_MAX_NODES) {
		t->skipped++;
		return 0;
	}
	if (array_reserve(&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes), 32))
		return -ENOMEM;
	struct cg_node *n = &t->nodes[t->n++];
	memset(n, 0, sizeof(*n));
	n->depth = depth;
	snprintf(n->path, sizeof(n->path), "%s", depth ? rel + w->rootlen : "/");
	int r = read_node(w->sr, t->version, rel, &w->b, n);
	if (r || depth >= 64)
		return r;
	DIR *d = sysroot_opendir(w->sr, rel);
	if (!d)
		return 0;
	/* children in name order, so the output does not depend on readdir's */
	char **names = NULL;
	size_t nn = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		char *s = strdup(de->d_name);
		if (!s || array_reserve(&names, &cap, nn + 1, sizeof(*names), 16)) {
			free(s);
			r = -ENOMEM;
			break;
		}
		names[nn++] = s;
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_name);
	char path[PATH_MAX];
	for (size_t i = 0; i < nn; i++) {
		int l = snprintf(path, sizeof(path), "%s/%s", rel, names[i]);
		if (r || l < 0 || (size_t)l >= sizeof(path) ||
		    (size_t)l - w->rootlen >= CGS_PATH_LEN) {
			t->skipped += !r;
			continue;
		}
		/* a plain directory that is not a cgroup (DT_UNKNOWN on some filesystems) */
		char probe[PATH_MAX + 16];
		snprintf(probe, sizeof(probe), "%s/cgroup.procs", path);
		if (sysroot_exists(w->sr, probe))
			continue;
		r = walk(w, path, depth + 1);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return r;
}

int cg_tree_read(const struct sysroot *sr, struct cg_tree *t)
{
	struct walk w = {.sr = sr, .t = t};
	t->skips = sr->skips;
	static const char *const v2dirs[] = {SR_CGROUP, SR_CGROUP "/unified"};
	for (size_t i = 0; i < 2 && !t->version; i++)
		if (v2_has_memory(sr, v2dirs[i], &w.b)) {
			t->version = 2;
			snprintf(t->root, sizeof(t->root), "%s", v2dirs[i]);
		}
	if (!t->version && !sysroot_exists(sr, SR_CGROUP "/memory/memory.stat")) {
		t->version = 1;
		snprintf(t->root, sizeof(t->root), "%s", SR_CGROUP "/memory");
	}
	int r = 0;
	if (t->version) {
		w.rootlen = strlen(t->root);
		r = walk(&w, t->root, 0);
	}
	buf_free(&w.b);
	return r;
}

void cg_tree_free(struct cg_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->nodes[i].pids);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

int cg_fallback_charge(const struct sysroot *sr, struct opt_u64 *out)
{
	struct kvlist l = {0};
	memset(out, 0, sizeof(*out));
	int r = vmstat_read(sr, &l);
	if (!r)
		out->present = kv_get(&l, "thp_fault_fallback_charge", &out->v);
	kvlist_free(&l);
	return r;
}

int cgroup_v2_memstat(const struct sysroot *sr, const char *path, struct memstat *out)
{
	memset(out, 0, sizeof(*out));
	struct buf b = {0};
	int r = sysroot_readf(sr, &b, "%s%s/memory.stat", SR_CGROUP, strcmp(path, "/") ? path : "");
	if (!r)
		r = memstat_parse(b.p, b.len, 2, out);
	buf_free(&b);
	return r;
}

/* proc_info.more: stat, when status did not say whether PID is a kernel thread (no Kthread
 * line before 6.x, or status unreadable: a recorded tree keeps only a kernel thread's stat). */
static unsigned stat_unless_known(struct proc_info *pi, void *ctx)
{
	bool *asked = ctx;
	if (*asked)
		return 0;
	*asked = true;
	if ((pi->got & PROC_STATUS) && !pi->status_err && pi->st.kthread >= 0)
		return 0;
	return PROC_STAT;
}

/* What one process adds to its cgroup's count: CGP_* (CGP_GONE: nothing, not kept). */
enum { CGP_GONE, CGP_KTHREAD, CGP_ON, CGP_OFF, CGP_UNKNOWN, CGP_UNRECORDED, CGP_NOMEM };

/* PI->more_ctx: ASKED, reset here for each process. */
static int pid_fact(const struct sysroot *sr, pid_t pid, struct proc_info *pi, bool *asked)
{
	*asked = false;
	int r = proc_read(sr, pid, PROC_STATUS, pi);
	if (r == -ENOMEM)
		return CGP_NOMEM;
	bool st_ok = (pi->got & PROC_STATUS) && !pi->status_err;
	if (!st_ok && !(pi->got & PROC_STAT) && !(r == -ESRCH && sr->live)) {
		/* status missing (a recorded kernel thread): its stat may say */
		*asked = true; /* no further round */
		if (proc_read(sr, pid, PROC_STAT, pi) == -ENOMEM)
			return CGP_NOMEM;
	}
	if ((st_ok && pi->st.kthread == 1) ||
	    ((pi->got & PROC_STAT) && !pi->stat_err && (pi->stat.flags & PF_KTHREAD_FLAG)))
		return CGP_KTHREAD;
	if (r == -ESRCH && sr->live)
		return CGP_GONE; /* exited since cgroup.procs was read */
	if (!sr->live && pi->gone)
		return CGP_UNRECORDED; /* no proc/PID in the tree: a capture that did not record it */
	if (!st_ok || pi->st.thp_enabled < 0)
		return CGP_UNKNOWN;
	return pi->st.thp_enabled == 0 ? CGP_OFF : CGP_ON;
}

static int cmp_fact(const void *a, const void *b)
{
	pid_t x = ((const struct cg_pid_fact *)a)->pid, y = ((const struct cg_pid_fact *)b)->pid;
	return (x > y) - (x < y);
}

/* PID's fact kept by CACHE's last count, or -1. */
static int cached_fact(const struct cg_pid_cache *cache, pid_t pid)
{
	struct cg_pid_fact key = {.pid = pid};
	const struct cg_pid_fact *f =
		cache->n ? bsearch(&key, cache->v, cache->n, sizeof(key), cmp_fact) : NULL;
	return f ? f->fact : -1;
}

int cg_tree_count_procs(const struct sysroot *sr, const struct cg_tree *t,
			struct cg_proc_count *out, struct cg_pid_cache *cache, bool refresh)
{
	bool asked = false;
	struct proc_info pi = {.more = stat_unless_known, .more_ctx = &asked};
	struct cg_pid_fact *next = NULL;
	size_t nnext = 0, cap = 0;
	int r = 0;
	for (size_t i = 0; i < t->n && !r; i++) {
		const struct cg_node *n = &t->nodes[i];
		for (int k = 0; k < n->npids; k++) {
			int f = cache && !refresh ? cached_fact(cache, n->pids[k]) : -1;
			if (f < 0)
				f = pid_fact(sr, n->pids[k], &pi, &asked);
			if (f == CGP_NOMEM ||
			    (cache && f != CGP_GONE &&
			     array_reserve(&next, &cap, nnext + 1, sizeof(*next), 256))) {
				r = -ENOMEM;
				break;
			}
			if (cache && f != CGP_GONE)
				next[nnext++] = (struct cg_pid_fact){n->pids[k], (signed char)f};
			out[i].n += f >= CGP_ON;
			out[i].thp_off += f == CGP_OFF;
			out[i].unknown += f == CGP_UNKNOWN || f == CGP_UNRECORDED;
			out[i].unrecorded += f == CGP_UNRECORDED;
		}
	}
	proc_info_free(&pi);
	if (cache && !r) {
		if (nnext)
			qsort(next, nnext, sizeof(*next), cmp_fact);
		free(cache->v);
		cache->v = next;
		cache->n = nnext;
		next = NULL;
	}
	free(next);
	return r;
}

void cg_pid_cache_free(struct cg_pid_cache *cache)
{
	free(cache->v);
	memset(cache, 0, sizeof(*cache));
}

static bool file_bad(int e)
{
	return e && e != -ENOENT;
}

bool cg_node_damaged(const struct cg_node *n)
{
	return file_bad(n->stat_err) || file_bad(n->current_err) || file_bad(n->limit_err) ||
	       file_bad(n->procs_err) || n->ms.bad > 0 || n->procs_bad > 0;
}
