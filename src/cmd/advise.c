// SPDX-License-Identifier: MIT
/* `thpctl advise`: detect workloads, collect the host, decide (model/advice.c). */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/argv0.h"
#include "../kernel/cgroup.h"
#include "../kernel/exe.h"
#include "../kernel/proc_read.h"
#include "../kernel/procs.h"
#include "../model/findings.h"
#include "../render/advice.h"
#include "../util/esc.h"
#include "advise_int.h"
#include "args.h"
#include "common.h"

static void advise_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl advise [--workload NAME]... [--json]\n\n"
		"Recommended THP settings for this host and per-process levers, each with the\n"
		"fact it rests on: the settings diff against now, the `thpctl set` and\n"
		"`thpctl persist` commands that apply it, and what to do per process.\n"
		"Workloads are detected from running processes (redis-server, mongod,\n"
		"postgres, java, node, Go binaries of 64 MiB RSS or more, memory-limited\n"
		"cgroups) and can be named with --workload (repeatable, or comma-separated):\n"
		"  %s\n"
		"(mongodb without a version assumes 7.0 or earlier unless the running mongod\n"
		"tells). Changes nothing. As root it also reads versions from executables and\n"
		"dpkg, finds Go binaries and systemd units.\n\n"
		"options:\n"
		"  --workload NAME  add a workload profile\n" GLOBAL_HELP,
		workload_names());
}

enum { OPT_WORKLOAD = OPT_CMD_BASE };

#define GO_MIN_RSS_KB (64 * 1024)
#define MAX_CGROUPS 256

struct cg_cache {
	int n;
	struct {
		char path[CG_PATH_LEN];
		bool limited;
		uint64_t bytes;
		int procs;
	} e[MAX_CGROUPS];
};

struct scan {
	struct adv_input *in;
	struct cg_cache cgs;
	struct dpkg_status dpkg;
	struct proc_info pi, parent; /* the process being looked at, and its parent */
	unsigned requested;
};

/* The limit of the process's memory cgroup, through a cache keyed by path. */
static void proc_limit(const struct sysroot *sr, struct scan *s, const struct proc_cgroup *cg,
		       bool *limited, uint64_t *bytes)
{
	const char *key = cg->has_v1_memory ? cg->v1_memory : cg->has_v2 ? cg->v2 : NULL;
	*limited = false;
	if (!key)
		return;
	for (int i = 0; i < s->cgs.n; i++)
		if (strcmp(s->cgs.e[i].path, key) == 0) {
			s->cgs.e[i].procs++;
			*limited = s->cgs.e[i].limited;
			*bytes = s->cgs.e[i].bytes;
			return;
		}
	struct cg_limit l;
	struct buf b = {0};
	if (cgroup_memory_limit(sr, cg, &b, &l) == 0 && l.limited) {
		*limited = true;
		*bytes = l.limit_bytes;
	}
	buf_free(&b);
	if (s->cgs.n < MAX_CGROUPS) {
		int i = s->cgs.n++;
		snprintf(s->cgs.e[i].path, sizeof(s->cgs.e[i].path), "%s", key);
		s->cgs.e[i].limited = *limited;
		s->cgs.e[i].bytes = *bytes;
		s->cgs.e[i].procs = 1;
	}
}

/* The version of the first of PKGS installed here, taken as P's: only for a process whose
 * executable could not be read (said so); one that could was asked of dpkg by its path. */
static void dpkg_version(const struct sysroot *sr, struct scan *s, struct adv_proc *p,
			 const char *const *pkgs)
{
	char v[96];
	for (int i = 0; pkgs[i]; i++)
		if (dpkg_installed_version(sr, &s->dpkg, pkgs[i], v, sizeof(v)) == 0 &&
		    version_parse_mm(v, p->ver) == 0) {
			p->has_ver = true;
			snprintf(
				p->ver_src, sizeof(p->ver_src),
				"dpkg: %s %s installed, assumed (its executable could not be read)",
				pkgs[i], v);
			return;
		}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/*
 * p->prog: the path in its restart commands. argv[0] (ARGV0, or the first word
 * of a process title) when it leads to the running executable (Debian's
 * redis-server is a symlink to redis-check-rdb, which picks its role from
 * argv[0]: /proc/PID/exe names the wrong program), else its exe.
 */
static void fill_prog(const struct sysroot *sr, struct adv_proc *p, const struct proc_info *pi,
		      const char *argv0, size_t len)
{
	char a0[160];
	snprintf(a0, sizeof(a0), "%.*s", (int)(len < sizeof(a0) ? len : sizeof(a0) - 1), argv0);
	const char *path = (pi->got & PROC_ENVIRON) && !pi->environ_err
				   ? argv0_path_env(pi->environ.p, pi->environ.len)
				   : NULL;
	int r = argv0_resolve(sr, (pid_t)p->pid, a0, path, p->prog, sizeof(p->prog));
	p->prog_check = r == 1 ? 1 : r == 0 ? 0 : -1;
	if (r != 1)
		memcpy(p->prog, p->exe, sizeof(p->prog));
}

/*
 * ARGS (LEN bytes, NUL-separated: argv[1..]) into OUT, each NUL-terminated: an argument that
 * names a relative path (arg_relative_path) found under p->pid's working directory becomes
 * that absolute path (kernel/argv0.h proc_cwd, proc_cwd_has); one not found there, or with
 * the directory unknown, stays and sets p->run_cwd (the command must run from there).
 * Returns 0, or -ENOMEM.
 */
static int rel_args(const struct sysroot *sr, struct adv_proc *p, const char *args, size_t len,
		    struct buf *out)
{
	struct run_cwd *c = &p->run.cwd;
	bool looked = false;
	for (const char *a = args, *end = args + len; a < end;) {
		size_t l = strnlen(a, (size_t)(end - a));
		char abs[PATH_MAX];
		const char *w = a;
		if (l == (size_t)(end - a) || !arg_relative_path(a)) {
			/* an option, a value, or the last piece cut short: as it is */
		} else {
			if (!looked) {
				looked = true;
				c->err = proc_cwd(sr, (pid_t)p->pid, c->dir, sizeof(c->dir));
			}
			if (!c->err && proc_cwd_has(sr, (pid_t)p->pid, a) == 1 &&
			    path_join_rel(c->dir, a, abs, sizeof(abs)) == 0) {
				w = abs;
			} else if (!c->needed) {
				c->needed = true;
				if (l >= sizeof(c->arg) || snprintf(c->arg, sizeof(c->arg), "%s",
								    a) >= (int)sizeof(c->arg))
					c->arg[0] = '\0';
			}
		}
		if (buf_add(out, w, w == a ? l : strlen(w)) || buf_add(out, "", 1))
			return -ENOMEM;
		a += l + 1;
	}
	return 0;
}

/*
 * A program started by a relative path (./redis-server, bin/app: argv0_resolve leaves it
 * as given) becomes absolute against its working directory; with that unknown, the command
 * is tied to it (p->run.cwd, as for an argument).
 */
static void prog_abs(const struct sysroot *sr, struct adv_proc *p)
{
	struct run_cwd *c = &p->run.cwd;
	char abs[sizeof(p->prog)];
	if (p->prog[0] == '/' || !strchr(p->prog, '/'))
		return;
	c->err = proc_cwd(sr, (pid_t)p->pid, c->dir, sizeof(c->dir));
	if (!c->err && path_join_rel(c->dir, p->prog, abs, sizeof(abs)) == 0) {
		memcpy(p->prog, abs, sizeof(abs));
		return;
	}
	c->needed = true;
	if (snprintf(c->arg, sizeof(c->arg), "%s", p->prog) >= (int)sizeof(c->arg))
		c->arg[0] = '\0';
}

void advise_fill_args(const struct sysroot *sr, struct adv_proc *p, const struct proc_info *pi,
		      int exe_err)
{
	const struct buf *b = &pi->cmdline;
	if (!exe_err)
		snprintf(p->exe, sizeof(p->exe), "%s", pi->exe);
	if (!(pi->got & PROC_CMDLINE) || !b->len || exe_err)
		return; /* RUN_ARGS_UNKNOWN */
	bool padded = b->p[b->len - 1] != '\0' || b->p[0] == '\0' ||
		      (b->len >= 2 && b->p[b->len - 2] == '\0');
	/* argv[0], or a title's first word */
	size_t a0 = strnlen(b->p, b->len);
	const char *sp = memchr(b->p, ' ', a0);
	fill_prog(sr, p, pi, b->p, padded && sp ? (size_t)(sp - b->p) : a0);
	if (padded || (p->prog_check != 1 && !cmdline_intact(b->p, b->len, pi->exe))) {
		p->run.state = RUN_ARGS_REWRITTEN;
		if (shell_quote_argv(b->p, a0, p->title, sizeof(p->title)))
			snprintf(p->title, sizeof(p->title), "'...'");
		return;
	}
	prog_abs(sr, p);
	/* its program, then argv[1..], relative paths made absolute where they can be */
	size_t rest = b->len - (a0 + 1 <= b->len ? a0 + 1 : b->len);
	struct buf v = {0};
	if (buf_add(&v, p->prog, strlen(p->prog) + 1) == 0 &&
	    rel_args(sr, p, b->p + b->len - rest, rest, &v) == 0) {
		p->run.len = v.len;
		p->run.state = v.len <= sizeof(p->run.argv) ? RUN_ARGS_INTACT : RUN_ARGS_TOO_LONG;
		if (p->run.state == RUN_ARGS_INTACT)
			memcpy(p->run.argv, v.p, v.len);
	}
	buf_free(&v);
}

static int thp_vma(const struct smaps_vma *v, void *ctx)
{
	struct adv_proc *p = ctx;
	if (v->vmflags & VMF_HG) {
		p->hg_vmas++;
		p->hg_kb += v->t.kb[SM_SIZE];
	}
	return 0;
}

/* Its own THP: AnonHugePages and MADV_HUGEPAGE VMAs (thp_vma() counted them in the smaps walk). */
static void fill_thp(const struct proc_info *pi, struct adv_proc *p)
{
	if ((pi->got & PROC_SMAPS) && pi->smaps_err == 0) {
		p->has_smaps = true;
		p->anon_huge_kb = pi->t.kb[SM_ANON_HUGE];
	} else {
		p->hg_vmas = 0;
		p->hg_kb = 0;
	}
}

/*
 * Its version: dpkg's record of the package that owns its exe first (dpkg -S,
 * read from var/lib/dpkg), then what its path says (a major alone is only that).
 */
static void fill_version(const struct sysroot *sr, struct scan *s, struct adv_proc *p, int exe_err)
{
	char pkg[96], v[96];
	/* its path names the file it runs (not a container's own file of that name) */
	bool own_files = exe_is_path(sr, (pid_t)p->pid, p->exe) == 1; /* -errno: not shown */
	if (!exe_err && !p->has_ver && own_files && dpkg_owner(sr, p->exe, pkg, sizeof(pkg)) == 0) {
		if (dpkg_installed_version(sr, &s->dpkg, pkg, v, sizeof(v)) == 0 &&
		    version_parse_mm(v, p->ver) == 0) {
			p->has_ver = true;
			snprintf(p->ver_src, sizeof(p->ver_src), "dpkg: %s %s, owner of %s", pkg, v,
				 s->pi.exe);
			return;
		}
	}
	if (!exe_err && !p->has_ver && version_from_path(p->exe, p->ver) == 0) {
		p->has_ver = true;
		snprintf(p->ver_src, sizeof(p->ver_src), "its path %s", s->pi.exe);
	}
}

/*
 * Everything about one process of workload p->wl, whose status, cgroup,
 * cmdline, smaps (maps for PostgreSQL) and (when valid in .got) exe link are
 * in s->pi.
 */
static void fill(const struct sysroot *sr, struct scan *s, struct adv_proc *p)
{
	struct proc_info *pi = &s->pi;
	const struct proc_status *st = &pi->st;
	const struct proc_cgroup *cg = &pi->cg;
	bool has_cg = pi->got & PROC_CGROUP;
	int exe_err = pi->got & PROC_EXE ? 0 : -ENOENT;
	p->ppid = st->ppid;
	snprintf(p->comm, sizeof(p->comm), "%s", st->name);
	p->thp_enabled = st->thp_enabled;
	p->rss_kb =
		st->vmrss_kb.present && st->vmrss_kb.v <= INT64_MAX ? (int64_t)st->vmrss_kb.v : -1;
	if (has_cg) {
		if (cg->has_v2 && cgroup_unit(cg->v2, p->unit, sizeof(p->unit)) != 0)
			p->unit[0] = '\0';
		if (!p->unit[0] && cg->has_v1_systemd &&
		    cgroup_unit(cg->v1_systemd, p->unit, sizeof(p->unit)) != 0)
			p->unit[0] = '\0';
	}
	const struct buf *b = &pi->cmdline;
	if ((pi->got & PROC_CMDLINE) && b->len) {
		for (size_t i = 0; i + 28 <= b->len; i++)
			if (memcmp(b->p + i, "-XX:+UseTransparentHugePages", 28) == 0)
				p->java_thp = true;
	}
	advise_fill_args(sr, p, pi, exe_err);
	fill_thp(pi, p);
	fill_version(sr, s, p, exe_err);
	if (p->wl == WL_MONGODB7 && !p->has_ver && exe_err) {
		static const char *const pk[] = {"mongodb-org-server", "mongodb-enterprise-server",
						 "mongodb-server-core", NULL};
		dpkg_version(sr, s, p, pk);
	}
	if (p->wl == WL_REDIS && !p->has_ver && exe_err) {
		static const char *const pk[] = {"redis-server", "valkey-server", NULL};
		dpkg_version(sr, s, p, pk);
	}
	if (p->wl == WL_MONGODB7) {
		if (p->has_ver && p->ver[0] >= 8)
			p->wl = WL_MONGODB8;
		else if (!p->has_ver && (s->requested & (1u << WL_MONGODB8))) {
			p->wl = WL_MONGODB8; /* the user said so */
			snprintf(p->ver_src, sizeof(p->ver_src), "--workload mongodb8");
		} else if (!p->has_ver && !(s->requested & (1u << WL_MONGODB7))) {
			s->in->mongodb_assumed = true;
		}
	}
	if (p->wl == WL_POSTGRES && (pi->got & PROC_MAPS))
		maps_largest_shared(pi->maps.p, pi->maps.len, &p->shm_kb, &p->shm_hugetlb);
}

/* Whether PPID is a PostgreSQL process (its postmaster, when this one is a backend). */
static bool parent_is_postgres(const struct sysroot *sr, struct scan *s, long ppid)
{
	return ppid > 0 && proc_read(sr, (pid_t)ppid, PROC_STATUS, &s->parent) == 0 &&
	       (s->parent.got & PROC_STATUS) &&
	       workload_from_comm(s->parent.st.name, NULL) == WL_POSTGRES;
}

/* Count the memory cgroup limit of s->pi (cgroup read) into the input. */
static void count_limit(const struct sysroot *sr, struct scan *s, bool *limited, uint64_t *limit)
{
	struct adv_input *in = s->in;
	*limited = false;
	*limit = 0;
	if (s->pi.got & PROC_CGROUP)
		proc_limit(sr, s, &s->pi.cg, limited, limit);
	if (*limited) {
		in->limited_procs++;
		if (!in->smallest_limit || *limit < in->smallest_limit)
			in->smallest_limit = *limit;
	}
}

/*
 * The decisions of one process's scan, taken between the rounds of its one
 * proc_read() (proc_info.more): status and cgroup first; the exe link for a
 * process that may be a workload; the Go build info when only that can tell;
 * then, for a workload, cmdline, environ, smaps (maps for PostgreSQL) in one go.
 */
struct step {
	const struct sysroot *sr;
	struct scan *s;
	enum { ST_STATUS, ST_EXE, ST_GO, ST_FILES } stage;
	int wl;
	bool big, limited;
	bool unreadable; /* counted in in->unreadable already */
	uint64_t limit;
	char gover[32];
	struct adv_proc *p; /* the process added, NULL when it is not a workload */
};

/* The workload decided: add the process and ask for what fill() needs, or 0. */
static unsigned decided(struct step *t, struct proc_info *pi)
{
	struct adv_input *in = t->s->in;
	/* a PostgreSQL instance is its postmaster: skip the backends here already */
	if (t->wl < 0 || (t->wl == WL_POSTGRES && parent_is_postgres(t->sr, t->s, pi->st.ppid)) ||
	    in->nprocs == ADV_MAX_PROCS)
		return 0;
	struct adv_proc *p = t->p = &in->procs[in->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pi->pid;
	p->wl = (enum workload)t->wl;
	p->limited = t->limited;
	p->limit_bytes = t->limit;
	pi->vma_cb = thp_vma;
	pi->vma_ctx = p;
	t->stage = ST_FILES;
	return PROC_CMDLINE | PROC_ENVIRON | PROC_SMAPS | (t->wl == WL_POSTGRES ? PROC_MAPS : 0);
}

/* proc_info.more for advise: by name, exe path or Go build info, then the workload's files. */
static unsigned next_files(struct proc_info *pi, void *ctx)
{
	struct step *t = ctx;
	struct adv_input *in = t->s->in;
	int exe_err = pi->got & PROC_EXE ? 0 : pi->exe_err;
	switch (t->stage) {
	case ST_STATUS:
		if (!(pi->got & PROC_STATUS) || pi->st.kthread == 1 || proc_status_no_mm(&pi->st))
			return 0;
		in->scanned++;
		/* a replay: a process whose smaps the capture could not read (as ps counts it) */
		if (proc_tree_smaps_unrecorded(t->sr, pi->pid)) {
			in->unreadable++;
			t->unreadable = true;
		}
		count_limit(t->sr, t->s, &t->limited, &t->limit);
		t->wl = workload_from_comm(pi->st.name, NULL);
		t->big = pi->st.vmrss_kb.present && pi->st.vmrss_kb.v >= GO_MIN_RSS_KB;
		if (t->wl < 0 && !t->big)
			return 0;
		t->stage = ST_EXE;
		return PROC_EXE;
	case ST_EXE:
		if ((exe_err == -EACCES || exe_err == -EPERM) && !t->unreadable)
			advice_exe_denied(in, pi->pid); /* counted once, whatever else is denied */
		if (t->wl < 0 && !exe_err)
			t->wl = workload_from_comm("", base_name(pi->exe));
		if (t->wl < 0 && !exe_err) {
			t->stage = ST_GO;
			return PROC_EXE_GO;
		}
		return decided(t, pi);
	case ST_GO:
		if (pi->exe_go == 1 && t->big)
			t->wl = WL_GO;
		else if (pi->exe_go == 1)
			in->small_go++;
		snprintf(t->gover, sizeof(t->gover), "%s", pi->exe_go == 1 ? pi->gover : "");
		return decided(t, pi);
	default:
		return 0;
	}
}

/* One process of the scan, read in one proc_read(): detect its workload and, if it has one, add it. */
static void scan_one(const struct sysroot *sr, struct scan *s, pid_t pid)
{
	struct proc_info *pi = &s->pi;
	struct step t = {.sr = sr, .s = s, .stage = ST_STATUS, .wl = -1};
	pi->more = next_files;
	pi->more_ctx = &t;
	proc_read(sr, pid, PROC_STATUS | PROC_CGROUP, pi);
	pi->more = NULL;
	pi->more_ctx = NULL;
	pi->vma_cb = NULL;
	pi->vma_ctx = NULL;
	struct adv_proc *p = t.p;
	if (!p)
		return;
	if (t.gover[0] && version_parse_mm(t.gover + 2, p->ver) == 0) {
		p->has_ver = true;
		snprintf(p->ver_src, sizeof(p->ver_src), "Go build info %s", t.gover);
	}
	fill(sr, s, p);
}

static int scan_procs(const struct sysroot *sr, struct scan *s)
{
	struct adv_input *in = s->in;
	pid_t *pids;
	int n = procs_list(sr, &pids);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		scan_one(sr, s, pids[i]);
	free(pids);
	/* a PostgreSQL instance is its postmaster: drop its backends */
	int k = 0;
	for (int i = 0; i < in->nprocs; i++) {
		bool child = false;
		for (int j = 0; j < in->nprocs; j++)
			if (in->procs[i].wl == WL_POSTGRES && in->procs[j].wl == WL_POSTGRES &&
			    in->procs[j].pid == in->procs[i].ppid)
				child = true;
		if (!child)
			in->procs[k++] = in->procs[i];
	}
	in->nprocs = k;
	for (int i = 0; i < s->cgs.n; i++)
		if (s->cgs.e[i].limited)
			in->limited_cgroups++;
	return 0;
}

static int add_workloads(struct scan *s, const char *arg)
{
	char *dup = strdup(arg), *save = NULL;
	if (!dup)
		return -ENOMEM;
	int r = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum workload w;
		bool assumed;
		if (workload_parse(t, &w, &assumed)) {
			warnx("advise: unknown workload '%s' (%s)", t, workload_names());
			r = -EINVAL;
			break;
		}
		s->requested |= 1u << w;
		if (assumed)
			s->in->mongodb_assumed = true;
	}
	free(dup);
	return r;
}

/* --workload LIST into CTX (struct scan). */
static int advise_opt(int c, const char *arg, void *ctx)
{
	(void)c;
	return add_workloads(ctx, arg) ? EXIT_USAGE : -1;
}

int cmd_advise(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_ARG("workload", OPT_WORKLOAD),
					     OPTS_END};
	/* the input (539 kB), the scan and the advice, from calloc: their pages are touched only
	 * where written (a memset of static ones would put all 630 kB in advise's peak RSS) */
	struct {
		struct adv_input in;
		struct scan s;
		struct advice a;
	} *m = calloc(1, sizeof(*m));
	if (!m) {
		warnx("out of memory");
		return EXIT_FAIL;
	}
	m->s.in = &m->in;
	int c = args_getopt(g, argc, argv, "h", opts, advise_help, advise_opt, &m->s);
	if ((c = args_no_operand(c, "advise", argc, argv)) >= 0) {
		free(m);
		return c;
	}
	int ret = cmd_setup(g);
	if (ret) {
		free(m);
		return ret;
	}
	struct host_snapshot *h = cmd_host_snapshot(g);
	struct host_derived d;
	struct findings fs;
	if (!h) {
		free(m);
		return EXIT_FAIL;
	}
	host_derive(h, &d);
	findings_evaluate(h, &d, &fs);
	m->in.h = h;
	m->in.d = &d;
	m->in.fs = &fs;
	m->in.requested = m->s.requested;
	m->in.recorded = !g->sr.live;
	kconfig_read(&g->sr, h->feat.release, &m->in.kconfig);
	int r = scan_procs(&g->sr, &m->s);
	m->in.unreadable_of = m->in.scanned; /* the ledger's pass recounts both, live */
	if (r)
		warnx("advise: cannot list %s/proc: %s: no workload detection", g->sr.path,
		      strerror(-r));
	if (!r && (r = advise_ledger(&g->sr, &m->in)))
		warnx("advise: the ledger scan failed: %s", strerror(-r));
	/* a mongod whose version told us, or a request, settles the assumption */
	if (m->in.mongodb_assumed && !(m->s.requested & (1u << WL_MONGODB7))) {
		bool any = false;
		for (int i = 0; i < m->in.nprocs; i++)
			any |= m->in.procs[i].wl == WL_MONGODB7 && !m->in.procs[i].has_ver;
		m->in.mongodb_assumed = any;
	}
	advice_build(&m->in, &m->a);
	if (cmd_nothing_readable(g, "advise", h)) { /* before any output (docs/json.md) */
		ret = EXIT_FAIL;
	} else if (g->json) {
		ret = cmd_emit_json(advice_to_json(&m->in, &m->a));
	} else {
		advice_render_text(stdout, &m->in, &m->a, g->color);
	}
	proc_info_free(&m->s.pi);
	proc_info_free(&m->s.parent);
	dpkg_status_free(&m->s.dpkg);
	advice_input_free(&m->in);
	host_snapshot_free(h);
	free(h);
	free(m);
	return ret;
}
