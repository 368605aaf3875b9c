// SPDX-License-Identifier: MIT
/* `thpctl advise`: detect workloads, collect the host, decide (model/advice.c). */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/cgroup.h"
#include "../kernel/exe.h"
#include "../kernel/proc_read.h"
#include "../kernel/procs.h"
#include "../model/findings.h"
#include "../render/advice.h"
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
	struct buf dpkg;
	bool dpkg_read;
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

static void dpkg_version(const struct sysroot *sr, struct scan *s, struct adv_proc *p,
			 const char *const *pkgs)
{
	if (!s->dpkg_read) {
		s->dpkg_read = true;
		if (sysroot_read(sr, SR_DPKG_STATUS, &s->dpkg))
			s->dpkg.len = 0;
	}
	char v[96];
	for (int i = 0; pkgs[i] && s->dpkg.len; i++)
		if (dpkg_status_version(s->dpkg.p, s->dpkg.len, pkgs[i], v, sizeof(v)) == 0 &&
		    version_parse_mm(v, p->ver) == 0) {
			p->has_ver = true;
			snprintf(p->ver_src, sizeof(p->ver_src), "dpkg: %s %s", pkgs[i], v);
			return;
		}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* p->exe, p->args and p->cmdline (exe and arguments, when intact) or p->title. */
static void fill_args(struct adv_proc *p, const struct proc_info *pi, int exe_err)
{
	const struct buf *b = &pi->cmdline;
	if (!exe_err)
		snprintf(p->exe, sizeof(p->exe), "%s", pi->exe);
	if (!(pi->got & PROC_CMDLINE) || !b->len || exe_err)
		return; /* ADV_ARGS_UNKNOWN */
	if (!cmdline_intact(b->p, b->len, pi->exe)) {
		p->args = ADV_ARGS_REWRITTEN;
		size_t n = strnlen(b->p, b->len);
		if (shell_quote_argv(b->p, n, p->title, sizeof(p->title)))
			snprintf(p->title, sizeof(p->title), "'...'");
		return;
	}
	/* the exe's own path, then argv[1..] */
	size_t a0 = strlen(b->p) + 1;
	char *v = malloc(strlen(pi->exe) + 1 + b->len);
	if (!v)
		return;
	size_t el = strlen(pi->exe) + 1;
	memcpy(v, pi->exe, el);
	memcpy(v + el, b->p + a0, b->len - a0);
	if (shell_quote_argv(v, el + b->len - a0, p->cmdline, sizeof(p->cmdline)) == 0)
		p->args = ADV_ARGS_INTACT;
	free(v);
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

/* Its own THP: AnonHugePages and MADV_HUGEPAGE VMAs, from full smaps. */
static void fill_thp(const struct sysroot *sr, struct scan *s, struct adv_proc *p)
{
	struct proc_info *pi = &s->pi;
	pi->vma_cb = thp_vma;
	pi->vma_ctx = p;
	proc_read(sr, pi->pid, PROC_SMAPS, pi);
	pi->vma_cb = NULL;
	pi->vma_ctx = NULL;
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
	if (!exe_err && !p->has_ver && dpkg_owner(sr, p->exe, pkg, sizeof(pkg)) == 0) {
		if (!s->dpkg_read) {
			s->dpkg_read = true;
			if (sysroot_read(sr, SR_DPKG_STATUS, &s->dpkg))
				s->dpkg.len = 0;
		}
		if (s->dpkg.len &&
		    dpkg_status_version(s->dpkg.p, s->dpkg.len, pkg, v, sizeof(v)) == 0 &&
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
 * Everything about one process of workload p->wl, whose status, cgroup and
 * (when valid in .got) exe link are in s->pi.
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
	proc_read(sr, pi->pid, PROC_CMDLINE | (p->wl == WL_POSTGRES ? PROC_MAPS : 0), pi);
	const struct buf *b = &pi->cmdline;
	if ((pi->got & PROC_CMDLINE) && b->len) {
		for (size_t i = 0; i + 28 <= b->len; i++)
			if (memcmp(b->p + i, "-XX:+UseTransparentHugePages", 28) == 0)
				p->java_thp = true;
	}
	fill_args(p, pi, exe_err);
	fill_thp(sr, s, p);
	fill_version(sr, s, p, exe_err);
	if (p->wl == WL_MONGODB7 && !p->has_ver) {
		static const char *const pk[] = {"mongodb-org-server", "mongodb-enterprise-server",
						 "mongodb-server-core", NULL};
		dpkg_version(sr, s, p, pk);
	}
	if (p->wl == WL_REDIS && !p->has_ver) {
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

/* The workload of s->pi (status read): by name, exe path or Go build info (GOVER); -1 for none. */
static int detect(const struct sysroot *sr, struct scan *s, char *gover, size_t n)
{
	struct proc_info *pi = &s->pi;
	int wl = workload_from_comm(pi->st.name, NULL);
	bool big = pi->st.vmrss_kb.present && pi->st.vmrss_kb.v >= GO_MIN_RSS_KB;
	int exe_err = -ENOENT;
	if (wl >= 0 || big) {
		proc_read(sr, pi->pid, PROC_EXE, pi);
		exe_err = pi->got & PROC_EXE ? 0 : pi->exe_err;
		if (exe_err == -EACCES || exe_err == -EPERM)
			s->in->unreadable++;
	}
	if (wl < 0 && !exe_err)
		wl = workload_from_comm("", base_name(pi->exe));
	if (wl < 0 && !exe_err) {
		proc_read(sr, pi->pid, PROC_EXE_GO, pi);
		if (pi->exe_go == 1 && big)
			wl = WL_GO;
		else if (pi->exe_go == 1)
			s->in->small_go++;
		snprintf(gover, n, "%s", pi->exe_go == 1 ? pi->gover : "");
	}
	return wl;
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

/* One process of the scan: detect its workload and, if it has one, add it. */
static void scan_one(const struct sysroot *sr, struct scan *s, pid_t pid)
{
	struct adv_input *in = s->in;
	struct proc_info *pi = &s->pi;
	if (proc_read(sr, pid, PROC_STATUS | PROC_CGROUP, pi) || !(pi->got & PROC_STATUS))
		return;
	if (pi->st.kthread == 1 || proc_status_no_mm(&pi->st))
		return;
	in->scanned++;
	bool limited;
	uint64_t limit;
	count_limit(sr, s, &limited, &limit);
	char gover[32] = "";
	int wl = detect(sr, s, gover, sizeof(gover));
	/* a PostgreSQL instance is its postmaster: skip the backends here already */
	if (wl < 0 || (wl == WL_POSTGRES && parent_is_postgres(sr, s, pi->st.ppid)))
		return;
	if (in->nprocs == ADV_MAX_PROCS)
		return;
	struct adv_proc *p = &in->procs[in->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->wl = (enum workload)wl;
	p->limited = limited;
	p->limit_bytes = limit;
	if (gover[0] && version_parse_mm(gover + 2, p->ver) == 0) {
		p->has_ver = true;
		snprintf(p->ver_src, sizeof(p->ver_src), "Go build info %s", gover);
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
	static struct adv_input in;
	static struct scan s;
	memset(&in, 0, sizeof(in));
	memset(&s, 0, sizeof(s));
	s.in = &in;
	int c = args_getopt(g, argc, argv, "h", opts, advise_help, advise_opt, &s);
	if ((c = args_no_operand(c, "advise", argc, argv)) >= 0)
		return c;
	int ret = cmd_setup(g);
	if (ret)
		return ret;
	struct host_snapshot *h = calloc(1, sizeof(*h));
	struct host_derived d;
	struct findings fs;
	if (!h || host_snapshot_read(&g->sr, h)) {
		warnx("out of memory");
		if (h)
			host_snapshot_free(h);
		free(h);
		return EXIT_FAIL;
	}
	host_derive(h, &d);
	findings_evaluate(h, &d, &fs);
	in.h = h;
	in.d = &d;
	in.fs = &fs;
	in.requested = s.requested;
	in.recorded = !g->sr.live;
	kconfig_read(&g->sr, h->feat.release, &in.kconfig);
	int r = scan_procs(&g->sr, &s);
	if (r)
		warnx("advise: cannot list %s/proc: %s: no workload detection", g->sr.path,
		      strerror(-r));
	/* a mongod whose version told us, or a request, settles the assumption */
	if (in.mongodb_assumed && !(s.requested & (1u << WL_MONGODB7))) {
		bool any = false;
		for (int i = 0; i < in.nprocs; i++)
			any |= in.procs[i].wl == WL_MONGODB7 && !in.procs[i].has_ver;
		in.mongodb_assumed = any;
	}
	static struct advice a;
	advice_build(&in, &a);
	if (g->json)
		ret = cmd_emit_json(advice_to_json(&in, &a));
	else
		advice_render_text(stdout, &in, &a, g->color);
	if (!h->has_vmstat && !h->has_meminfo && !h->thp.present) {
		warnx("nothing readable under %s: not a Linux /proc and /sys tree?", g->sr.path);
		ret = EXIT_FAIL;
	}
	proc_info_free(&s.pi);
	proc_info_free(&s.parent);
	buf_free(&s.dpkg);
	host_snapshot_free(h);
	free(h);
	return ret;
}
