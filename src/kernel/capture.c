// SPDX-License-Identifier: MIT
/* The capture walk (capture.h): host files, trees, processes, cgroups, manifest. */
#include "capture.h"
#include "tuned.h"

#include "../util/fileio.h"
#include "proc_alloc.h"
#include "proc_status.h"
#include "shrinker_record.h"
#include "parse.h"
#include "procs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef int (*filter_fn)(const char *in, size_t len, struct buf *out);

struct cap {
	const struct sysroot *sr;
	const struct capture_sink *s;
	struct capture_stats *st;
	struct buf b, f, man;
	unsigned long *uids;
	size_t nuids, capuids;
	pid_t *cgpids; /* the PIDs of the recorded cgroup.procs files */
	size_t ncgpids, capcgpids;
};

static int man_add(struct cap *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int man_add(struct cap *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int e = buf_vaddf(&c->man, fmt, ap);
	va_end(ap);
	return e ? e : buf_add(&c->man, "\n", 1);
}

/* The permission bits of REL in the sysroot (0444 when fstatat fails). */
static unsigned mode_of(const struct cap *c, const char *rel)
{
	struct stat sb;
	if (sysroot_stat(c->sr, rel, &sb, false))
		return 0444;
	return sb.st_mode & 0777;
}

static int emit(struct cap *c, const char *rel, unsigned mode, const char *p, size_t n)
{
	int r = c->s->file(c->s->ctx, rel, mode, p ? p : "", n);
	if (!r) {
		c->st->files++;
		c->st->bytes += n;
	}
	return r;
}

/* REL is a regular file without read bits (demote, compact_memory, drop_caches); a
 * directory without them is unreadable, not write-only. */
static bool write_only(const struct cap *c, const char *rel)
{
	struct stat sb;
	return sysroot_stat(c->sr, rel, &sb, false) == 0 && S_ISREG(sb.st_mode) &&
	       (sb.st_mode & 0444) == 0;
}

/*
 * Note REL as not recorded: absent (expected), write-only (a regular file by its
 * mode, write_only()) or unreadable. Returns 2 for the first two, 1 for
 * unreadable, or -ENOMEM.
 */
static int not_recorded(struct cap *c, const char *rel, int err, bool quiet_absent)
{
	if (err == -ENOENT && quiet_absent)
		return man_add(c, "absent %s", rel) ?: 2;
	if (err == -EACCES && write_only(c, rel))
		return man_add(c, "writeonly %s", rel) ?: 2;
	c->st->skipped++;
	if (c->s->skipped)
		c->s->skipped(c->s->ctx, rel, err);
	return man_add(c, "unreadable %s %s", rel, read_err_str(err)) ?: 1;
}

/*
 * Record REL through FILTER (may be NULL). Returns 0 recorded, 1 unreadable,
 * 2 absent or write-only (not_recorded()), or -ENOMEM / the sink's error.
 */
static int rec(struct cap *c, const char *rel, filter_fn filter, bool quiet_absent)
{
	int r = sysroot_read(c->sr, rel, &c->b);
	if (r)
		return not_recorded(c, rel, r, quiet_absent);
	const struct buf *out = &c->b;
	if (filter) {
		if (filter(c->b.p, c->b.len, &c->f))
			return -ENOMEM;
		out = &c->f;
	}
	return emit(c, rel, mode_of(c, rel), out->p, out->len);
}

/*
 * Every readable file below DIR (DEPTH levels), then "complete DIR", "partial DIR" (a file
 * or a directory below it unreadable or partial) or "absent DIR". Returns 0 complete, 1
 * partial or unreadable, 2 absent, or -ENOMEM / the sink's error.
 */
static int rec_dir(struct cap *c, const char *dir, int depth)
{
	DIR *d = sysroot_opendir(c->sr, dir);
	if (!d) {
		if (errno == ENOENT)
			return man_add(c, "absent %s", dir) ?: 2;
		int e = not_recorded(c, dir, -errno, false);
		return e < 0 ? e : 1;
	}
	int r = 0;
	bool whole = true;
	struct dirent *de;
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char rel[PATH_MAX];
		if (snprintf(rel, sizeof(rel), "%s/%s", dir, de->d_name) >= (int)sizeof(rel))
			continue;
		unsigned char t = de->d_type;
		struct stat sb;
		if (t == DT_UNKNOWN && !sysroot_stat(c->sr, rel, &sb, true))
			t = S_ISDIR(sb.st_mode) ? DT_DIR : S_ISREG(sb.st_mode) ? DT_REG : DT_LNK;
		if (t == DT_DIR && depth > 0)
			r = rec_dir(c, rel, depth - 1);
		else if (t == DT_REG)
			r = rec(c, rel, NULL, false);
		else
			continue;
		if (r > 0) /* a directory below: absent (gone meanwhile) is whole, partial not */
			whole &= r == 2, r = 0;
	}
	closedir(d);
	if (r)
		return r;
	return man_add(c, "%s %s", whole ? "complete" : "partial", dir) ?: (whole ? 0 : 1);
}

/* rec_dir() for a caller that needs only the errors: 0, or -ENOMEM / the sink's error. */
static int rec_tree(struct cap *c, const char *dir, int depth)
{
	int r = rec_dir(c, dir, depth);
	return r < 0 ? r : 0;
}

static void note_uids(struct cap *c, const char *status, size_t len)
{
	const char *u = memmem(status, len, "\nUid:", 5);
	if (!u)
		return;
	char *e;
	const char *p = u + 5;
	for (int i = 0; i < 4; i++) {
		unsigned long v = strtoul(p, &e, 10);
		if (e == p)
			return;
		p = e;
		bool seen = false;
		for (size_t k = 0; k < c->nuids && !seen; k++)
			seen = c->uids[k] == v;
		if (!seen &&
		    !array_reserve(&c->uids, &c->capuids, c->nuids + 1, sizeof(*c->uids), 16))
			c->uids[c->nuids++] = v;
	}
}

static const char *const proc_files[] = {"status",  "stat", "smaps",  "smaps_rollup",
					 "cmdline", "comm", "cgroup", "environ"};
#define NPROC_FILES (sizeof(proc_files) / sizeof(proc_files[0]))

/*
 * What `why` and `ps` need of a process's executable and libraries, which a
 * bundle does not carry: the facts the live reader found (proc_alloc.h),
 * as capture/alloc/PID. A process that exited meanwhile gets none.
 */
static int rec_alloc(struct cap *c, pid_t pid)
{
	static struct alloc_raw raw;
	if (proc_alloc_read(c->sr, pid, &raw))
		return 0;
	if (alloc_raw_format(&raw, &c->f))
		return -ENOMEM;
	char rel[64];
	snprintf(rel, sizeof(rel), SR_ALLOC_FACTS_FMT, (int)pid);
	return emit(c, rel, 0644, c->f.p, c->f.len);
}

/* One process: every file read first, then emitted only if it did not exit meanwhile. */
static int rec_proc(struct cap *c, pid_t pid, bool stat_only)
{
	struct buf got[NPROC_FILES] = {0};
	int err[NPROC_FILES];
	char rel[64];
	int r = 0;
	for (size_t i = 0; i < NPROC_FILES; i++) {
		err[i] = -ENOENT;
		if (stat_only && strcmp(proc_files[i], "stat") != 0)
			continue;
		snprintf(rel, sizeof(rel), SR_PROC "/%d/%s", (int)pid, proc_files[i]);
		err[i] = sysroot_read(c->sr, rel, &got[i]);
		if (!err[i] && strcmp(proc_files[i], "environ") == 0) {
			if ((r = capture_filter_environ(got[i].p, got[i].len, &c->f)))
				goto out;
			struct buf t = got[i];
			got[i] = c->f;
			c->f = t;
		}
	}
	snprintf(rel, sizeof(rel), SR_PROC "/%d", (int)pid);
	if (err[1] || sysroot_exists(c->sr, rel)) {
		c->st->procs_gone++;
		r = man_add(c, "gone %s", rel);
		if (!r && c->s->skipped)
			c->s->skipped(c->s->ctx, rel, -ESRCH);
		goto out;
	}
	c->st->procs++;
	for (size_t i = 0; i < NPROC_FILES && !r; i++) {
		snprintf(rel, sizeof(rel), SR_PROC "/%d/%s", (int)pid, proc_files[i]);
		if (!err[i])
			r = emit(c, rel, mode_of(c, rel), got[i].p, got[i].len);
		else if (!stat_only && err[i] == -ESRCH && i == 3)
			r = man_add(c, "nomm %s", rel); /* a kernel thread has no smaps_rollup */
		else if (!stat_only)
			r = not_recorded(c, rel, err[i], false) < 0 ? -ENOMEM : 0;
	}
	if (!err[0])
		note_uids(c, got[0].p, got[0].len);
	if (!r && !stat_only && !err[3]) /* a process with memory: its allocator's evidence */
		r = rec_alloc(c, pid);
out:
	for (size_t i = 0; i < NPROC_FILES; i++)
		buf_free(&got[i]);
	return r;
}

/* etc/passwd: only the lines of the recorded uids. */
static int rec_passwd(struct cap *c)
{
	if (!c->nuids || sysroot_read(c->sr, SR_PASSWD, &c->b))
		return 0;
	c->f.len = 0;
	for (const char *p = c->b.p, *end = c->b.p + c->b.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl + 1 : end;
		const char *f = p;
		for (int k = 0; k < 2 && f; k++) {
			f = memchr(f, ':', (size_t)(e - f));
			f = f ? f + 1 : NULL;
		}
		unsigned long v;
		char *x;
		bool keep = false;
		if (f && (v = strtoul(f, &x, 10), x > f && *x == ':'))
			for (size_t k = 0; k < c->nuids && !keep; k++)
				keep = c->uids[k] == v;
		if (keep) {
			if (buf_reserve(&c->f, c->f.len + (size_t)(e - p) + 1))
				return -ENOMEM;
			memcpy(c->f.p + c->f.len, p, (size_t)(e - p));
			c->f.len += (size_t)(e - p);
		}
		p = e;
	}
	return c->f.len ? emit(c, SR_PASSWD, mode_of(c, SR_PASSWD), c->f.p, c->f.len) : 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* The N PIDS sorted (cmp_pid), each once, into *OUT (freed by the caller): a PID given twice
 * (--pid P,P) is recorded once. Returns how many, or -ENOMEM. */
static long dedup_pids(const pid_t *pids, size_t n, pid_t **out)
{
	if (!(*out = malloc(n * sizeof(**out))))
		return -ENOMEM;
	memcpy(*out, pids, n * sizeof(**out));
	qsort(*out, n, sizeof(**out), cmp_pid);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || (*out)[k - 1] != (*out)[i])
			(*out)[k++] = (*out)[i];
	return (long)k;
}

/* Keep the PIDs of the cgroup.procs just recorded (in C->b): their kernel threads' stat. */
static int note_cgpids(struct cap *c)
{
	const char *pos = c->b.p, *end = c->b.p + c->b.len, *l, *e;
	while (next_line(&pos, end, &l, &e)) {
		uint64_t v;
		const char *q = l;
		if (parse_u64(&q, e, &v) || v == 0 || v > 0x3fffffff)
			continue;
		if (array_reserve(&c->cgpids, &c->capcgpids, c->ncgpids + 1, sizeof(*c->cgpids),
				  256))
			return -ENOMEM;
		c->cgpids[c->ncgpids++] = (pid_t)v;
	}
	return 0;
}

/*
 * The stat of each kernel thread of the recorded cgroup.procs that is not recorded already
 * (RECORDED, N: the processes recorded whole, and khugepaged's stat): on the live host thpctl
 * cgroups leaves kernel threads out of PROCS, and a replay tells them apart by their stat
 * (PF_KTHREAD), as it does khugepaged. A user process's files are not recorded here: its
 * THP_enabled is unknown in the replay, which says so. RECORDED is sorted (cmp_pid).
 */
static int rec_cg_kthreads(struct cap *c, const pid_t *recorded, size_t n, pid_t khugepaged)
{
	for (size_t i = 0; i < c->ncgpids; i++) {
		pid_t pid = c->cgpids[i];
		bool seen = pid == khugepaged || (i && c->cgpids[i - 1] == pid) ||
			    (n && bsearch(&pid, recorded, n, sizeof(*recorded), cmp_pid));
		if (seen)
			continue;
		char rel[64];
		snprintf(rel, sizeof(rel), SR_PROC "/%d/stat", (int)pid);
		struct proc_stat ps;
		if (sysroot_read(c->sr, rel, &c->b) || proc_stat_parse(c->b.p, c->b.len, &ps) ||
		    !(ps.flags & PF_KTHREAD_FLAG))
			continue; /* exited meanwhile, or a user process */
		int r = emit(c, rel, mode_of(c, rel), c->b.p, c->b.len);
		if (r)
			return r;
		c->st->kthreads++;
	}
	return 0;
}

/* Memory cgroups below DIR that have cgroup.procs: the files thpctl cgroups reads. */
static int rec_cgroups(struct cap *c, const char *dir, const char *const *files, int depth)
{
	char rel[PATH_MAX];
	int r = 0;
	snprintf(rel, sizeof(rel), "%s/cgroup.procs", dir);
	if (sysroot_exists(c->sr, rel) == 0) {
		r = rec(c, rel, NULL, true);
		if (r == 0 && note_cgpids(c) < 0)
			return -ENOMEM;
		for (int i = 0; files[i] && r >= 0; i++) {
			snprintf(rel, sizeof(rel), "%s/%s", dir, files[i]);
			r = rec(c, rel, NULL, true);
		}
		if (r < 0)
			return r;
	}
	DIR *d = depth > 0 ? sysroot_opendir(c->sr, dir) : NULL;
	if (!d)
		return 0;
	struct dirent *de;
	r = 0;
	while (!r && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.' &&
		    snprintf(rel, sizeof(rel), "%s/%s", dir, de->d_name) < (int)sizeof(rel))
			r = rec_cgroups(c, rel, files, depth - 1);
	closedir(d);
	return r;
}

static int rec_memcg(struct cap *c)
{
	static const char *const v2[] = {"memory.stat", "memory.current", "memory.max", NULL};
	static const char *const v1[] = {"memory.stat", "memory.usage_in_bytes",
					 "memory.limit_in_bytes", NULL};
	static const char *const roots[] = {SR_CGROUP, SR_CGROUP "/unified"};
	char rel[PATH_MAX];
	for (size_t i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "%s/cgroup.controllers", roots[i]);
		if (sysroot_read(c->sr, rel, &c->b) || !strstr(c->b.p, "memory"))
			continue;
		int r = rec(c, rel, NULL, true);
		return r < 0 ? r : rec_cgroups(c, roots[i], v2, 32);
	}
	if (sysroot_exists(c->sr, SR_CGROUP "/memory/memory.stat") == 0)
		return rec_cgroups(c, SR_CGROUP "/memory", v1, 32);
	return man_add(c, "absent %s (no memory cgroup hierarchy)", SR_CGROUP);
}

/* The kernel's config: boot/config-RELEASE, else proc/config.gz. */
static int rec_config(struct cap *c)
{
	char rel[PATH_MAX];
	if (sysroot_read(c->sr, SR_PROC "/sys/kernel/osrelease", &c->b) == 0 && c->b.len) {
		c->b.p[strcspn(c->b.p, "\n")] = '\0';
		snprintf(rel, sizeof(rel), "boot/config-%s", c->b.p);
		if (sysroot_exists(c->sr, rel) == 0)
			return rec(c, rel, NULL, true) < 0 ? -ENOMEM : 0;
		int r = man_add(c, "absent %s", rel);
		if (r)
			return r;
	}
	return rec(c, SR_PROC "/config.gz", NULL, true) < 0 ? -ENOMEM : 0;
}

/* tuned's active profile, its include= chain's tuned.conf files and run state (status: tuned line). */
static int rec_tuned(struct cap *c)
{
	static const char *const dirs[] = {"etc/tuned/profiles", "etc/tuned",
					   "usr/lib/tuned/profiles",
					   "usr/lib/tuned"}; /* tuned's own search order */
	static const char *const files[] = {
		"etc/tuned/active_profile", "run/tuned/tuned.pid",
		"etc/systemd/system/multi-user.target.wants/tuned.service"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (rec(c, files[i], NULL, true) == -ENOMEM)
			return -ENOMEM;
	/* no tuned here: say so, or a replay could not tell "not installed" from "not recorded" */
	for (size_t d = 1; d < sizeof(dirs) / sizeof(dirs[0]); d += 2)
		if (sysroot_exists(c->sr, dirs[d]) == -ENOENT && man_add(c, "absent %s", dirs[d]))
			return -ENOMEM;
	static struct tuned_state t;
	tuned_read(c->sr, &t);
	char rel[PATH_MAX];
	for (int i = 0; i < t.nfiles; i++)
		for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
			snprintf(rel, sizeof(rel), "%s/%s/tuned.conf", dirs[d], t.files[i]);
			if (sysroot_exists(c->sr, rel) == 0) {
				if (rec(c, rel, NULL, true) == -ENOMEM)
					return -ENOMEM;
				break;
			}
		}
	return 0;
}

static int rec_host(struct cap *c)
{
	/* counters first and together, so that they agree with each other and with sysfs */
	static const char *const first[] = {"vmstat", "meminfo", "buddyinfo"};
	int r = 0;
	for (size_t i = 0; i < 3 && r >= 0; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), SR_PROC "/%s", first[i]);
		r = rec(c, rel, NULL, false);
	}
	const char *thp = c->sr->rhel_thp ? SR_THP_RHEL6 : SR_THP;
	if (r < 0 || (r = rec_tree(c, thp, 4)) || (r = rec_tree(c, SR_HUGETLB, 2)))
		return r;
	DIR *d = sysroot_opendir(c->sr, SR_NODES);
	struct dirent *de;
	while (d && !r && (de = readdir(d))) {
		char rel[PATH_MAX];
		if (strncmp(de->d_name, "node", 4) != 0 || de->d_name[4] < '0' ||
		    de->d_name[4] > '9')
			continue;
		/* the node's size (hugetlb plan), then its pools */
		if (snprintf(rel, sizeof(rel), "%s/%s/meminfo", SR_NODES, de->d_name) <
			    (int)sizeof(rel) &&
		    (r = rec(c, rel, NULL, false)) < 0)
			break;
		r = 0;
		if (snprintf(rel, sizeof(rel), "%s/%s/hugepages", SR_NODES, de->d_name) <
		    (int)sizeof(rel))
			r = rec_tree(c, rel, 2);
	}
	if (d)
		closedir(d);
	static const char *const more[] = {"pagetypeinfo", "zoneinfo", "uptime",
					   "sys/kernel/osrelease"};
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]) && r >= 0; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), SR_PROC "/%s", more[i]);
		r = rec(c, rel, NULL, false);
	}
	if (r < 0 || (r = rec_tree(c, SR_PROC "/sys/vm", 1)))
		return r;
	if ((r = rec(c, SR_PROC "/cmdline", capture_filter_cmdline, false)) < 0 ||
	    (r = rec(c, SR_PROC "/mounts", capture_filter_mounts, false)) < 0 ||
	    (r = rec(c, SR_SHRINKER_RECORD, NULL, true)) < 0) /* lab shrinker's, when it ran */
		return r;
	return rec_config(c) ? -ENOMEM : rec_memcg(c);
}

int capture_host(const struct sysroot *sr, const struct capture_opts *o,
		 const struct capture_sink *sink, struct capture_stats *st)
{
	memset(st, 0, sizeof(*st));
	struct cap c = {.sr = sr, .s = sink, .st = st};
	int r = man_add(&c, "# thpctl capture manifest 1: complete|partial|absent|writeonly|"
			    "unreadable|nomm|gone PATH [why]");
	if (!r)
		r = rec_host(&c);
	pid_t *pids = NULL;
	int n = 0;
	if (!r && o->all) {
		n = procs_list(sr, &pids);
		if (n < 0)
			n = 0;
	} else if (!r && o->npids) {
		n = (int)dedup_pids(o->pids, o->npids, &pids);
		r = n < 0 ? -ENOMEM : 0;
	}
	bool khp_done = false;
	for (int i = 0; i < n && !r; i++) {
		r = rec_proc(&c, pids[i], false);
		khp_done |= pids[i] == o->khugepaged;
	}
	if (!r && o->khugepaged > 0 && !khp_done)
		r = rec_proc(&c, o->khugepaged, true);
	if (!r && !o->all) {
		if (c.ncgpids)
			qsort(c.cgpids, c.ncgpids, sizeof(*c.cgpids), cmp_pid);
		r = rec_cg_kthreads(&c, pids, (size_t)(n > 0 ? n : 0), o->khugepaged);
	}
	if (!r)
		r = rec_passwd(&c);
	if (!r)
		r = rec_tuned(&c);
	if (!r)
		r = c.s->file(c.s->ctx, SR_CAPTURE_MANIFEST, 0644, c.man.p, c.man.len);
	free(pids);
	free(c.uids);
	free(c.cgpids);
	buf_free(&c.b);
	buf_free(&c.f);
	buf_free(&c.man);
	return r;
}

bool capture_tree(const struct sysroot *sr)
{
	struct stat st;
	return !sr->live && sysroot_stat(sr, CAPTURE_VERSION_FILE, &st, true) == 0 &&
	       S_ISREG(st.st_mode);
}
