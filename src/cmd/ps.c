// SPDX-License-Identifier: MIT
/* `thpctl ps` and `thpctl maps PID`. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/parse.h"
#include "../kernel/procs.h"
#include "../kernel/thp_settings.h"
#include "../model/proc.h"
#include "../render/ps.h"
#include "common.h"

static void ps_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl ps [--all] [--rollup] [--sort KEY] [--pid PID[,PID...]]\n"
		"                 [--user NAME|UID] [--min-ahp SIZE] [--json]\n\n"
		"Processes that use, request (MADV_HUGEPAGE: hg) or refuse (MADV_NOHUGEPAGE: nh,\n"
		"prctl PR_SET_THP_DISABLE: THP_EN 0) huge pages. Kernel threads are left out.\n\n"
		"Reading full /proc/PID/smaps walks each target's page tables and briefly takes\n"
		"its mmap_lock (its mmap/munmap/page faults wait meanwhile). --rollup reads only\n"
		"smaps_rollup + status: cheaper and gentler, but no hg/nh/THPeligible.\n\n"
		"options:\n"
		"  --all             every process, not only those with something THP-related\n"
		"  --rollup          smaps_rollup + status only (no page flags)\n"
		"  --sort KEY        ahp (default), rss, share, hg, pid, comm\n"
		"  --pid LIST        only these PIDs (repeatable, comma-separated)\n"
		"  --user NAME|UID   only this user's processes\n"
		"  --min-ahp SIZE    only AnonHugePages >= SIZE (bytes; k, M, G suffixes)\n" GLOBAL_HELP
		"\nRun as a user other than root, processes of other users are counted as not\n"
		"readable and the result is marked partial.\n");
}

enum { OPT_ALL = OPT_CMD_BASE, OPT_ROLLUP, OPT_SORT, OPT_PID, OPT_USER, OPT_MIN_AHP };

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	unsigned shift = 0;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

struct ps_opts {
	bool all, rollup;
	const char *sort;
	pid_t *pids;
	size_t npids;
	long uid; /* -1 any */
	const char *user;
	uint64_t min_ahp_kb;
};

static int add_pids(struct ps_opts *o, const char *arg)
{
	char *dup = strdup(arg), *save = NULL;
	if (!dup)
		return -ENOMEM;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(t, &end, 10);
		if (*end || v <= 0 || v > 0x3fffffff) {
			free(dup);
			return -EINVAL;
		}
		pid_t *n = realloc(o->pids, (o->npids + 1) * sizeof(*n));
		if (!n) {
			free(dup);
			return -ENOMEM;
		}
		o->pids = n;
		o->pids[o->npids++] = (pid_t)v;
	}
	free(dup);
	return 0;
}

/* uid -> name cache over the sysroot's etc/passwd (no NSS: static-safe, replayable). */
struct users {
	struct buf passwd;
	bool loaded;
	long uid[64];
	char name[64][32];
	int n;
};

static const char *user_name(const struct sysroot *sr, struct users *u, long uid, char *tmp,
			     size_t n)
{
	if (uid < 0)
		return "-";
	for (int i = 0; i < u->n; i++)
		if (u->uid[i] == uid)
			return u->name[i];
	if (!u->loaded) {
		u->loaded = true;
		if (sysroot_read(sr, SR_PASSWD, &u->passwd))
			u->passwd.len = 0;
	}
	if (!u->passwd.len || passwd_lookup(u->passwd.p, u->passwd.len, uid, tmp, n))
		snprintf(tmp, n, "%ld", uid);
	if (u->n < 64) {
		u->uid[u->n] = uid;
		snprintf(u->name[u->n], sizeof(u->name[0]), "%s", tmp);
		return u->name[u->n++];
	}
	return tmp;
}

/* Whether NAME is in the sysroot's etc/passwd: 0, -ENOENT, or -errno if unreadable (then not checked). */
static int known_user(const struct sysroot *sr, const char *name)
{
	struct buf b = {0};
	int r = sysroot_read(sr, SR_PASSWD, &b);
	if (r) {
		buf_free(&b);
		return 0;
	}
	r = -ENOENT;
	size_t n = strlen(name);
	const char *pos = b.p, *end = b.p + b.len, *s, *e;
	while (r && next_line(&pos, end, &s, &e))
		if ((size_t)(e - s) > n && s[n] == ':' && memcmp(s, name, n) == 0)
			r = 0;
	buf_free(&b);
	return r;
}

static const char *sort_key;

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct ps_row *x = a, *y = b;
	int c = 0;
	if (!strcmp(sort_key, "pid"))
		return x->p.pid < y->p.pid ? -1 : x->p.pid > y->p.pid;
	if (!strcmp(sort_key, "comm"))
		c = strcmp(x->p.st.name, y->p.st.name);
	else if (!strcmp(sort_key, "rss"))
		c = cmp_u64_desc((uint64_t)x->p.st.vmrss_kb, (uint64_t)y->p.st.vmrss_kb);
	else if (!strcmp(sort_key, "hg"))
		c = cmp_u64_desc(x->p.hg_kb, y->p.hg_kb);
	else if (!strcmp(sort_key, "share")) {
		double sx = proc_thp_share(&x->p), sy = proc_thp_share(&y->p);
		c = sx < sy ? 1 : sx > sy ? -1 : 0;
	} else
		c = cmp_u64_desc(x->p.t.kb[SM_ANON_HUGE], y->p.t.kb[SM_ANON_HUGE]);
	if (!c)
		c = x->p.pid < y->p.pid ? -1 : x->p.pid > y->p.pid;
	return c;
}

static bool wanted_pid(const struct ps_opts *o, pid_t pid)
{
	if (!o->npids)
		return true;
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == pid)
			return true;
	return false;
}

static int ps_scan(struct globals *g, const struct ps_opts *o, struct ps_report *r)
{
	pid_t *pids;
	int n = procs_list(&g->sr, &pids);
	if (n < 0) {
		warnx("cannot list %s/proc: %s", g->sr.path, strerror(-n));
		return EXIT_FAIL;
	}
	struct buf b = {0};
	struct users users = {0};
	char tmp[32];
	size_t cap = 0;
	struct progress pr;
	progress_start(&pr, "reading smaps");
	for (int i = 0; i < n; i++) {
		if (!wanted_pid(o, pids[i]))
			continue;
		progress_update(&pr, (size_t)i, (size_t)n);
		struct ps_row row = {0};
		int err;
		enum proc_thp_err e =
			proc_thp_collect(&g->sr, pids[i], o->rollup, &b, &row.p, &err);
		if (e == PT_GONE || e == PT_KTHREAD)
			continue;
		if (e == PT_ERROR) {
			r->errors++;
			continue;
		}
		if (o->uid >= 0 && row.p.st.uid != o->uid)
			continue;
		if (o->user && o->uid < 0) {
			const char *nm = user_name(&g->sr, &users, row.p.st.uid, tmp, sizeof(tmp));
			if (strcmp(nm, o->user) != 0)
				continue;
		}
		row.denied = e == PT_DENIED;
		if (row.denied) {
			r->denied++;
			if (!o->all && !o->npids && row.p.st.thp_enabled != 0)
				continue;
		} else {
			if (row.p.t.kb[SM_ANON_HUGE] < o->min_ahp_kb)
				continue;
			if (!o->all && !o->npids && !proc_thp_relevant(&row.p))
				continue;
			row.reason = proc_thp_reason(&row.p, r->policy);
			if (!row.p.has_vmflags && !o->rollup)
				r->flags_absent = true;
		}
		if (row.denied && o->min_ahp_kb)
			continue;
		snprintf(row.user, sizeof(row.user), "%s",
			 user_name(&g->sr, &users, row.p.st.uid, tmp, sizeof(tmp)));
		if (r->n == cap) {
			cap = cap ? cap * 2 : 64;
			struct ps_row *nr = realloc(r->rows, cap * sizeof(*nr));
			if (!nr) {
				warnx("out of memory");
				free(pids);
				buf_free(&b);
				buf_free(&users.passwd);
				return EXIT_FAIL;
			}
			r->rows = nr;
		}
		r->rows[r->n++] = row;
	}
	progress_end(&pr);
	free(pids);
	buf_free(&b);
	buf_free(&users.passwd);
	return EXIT_OK;
}

int cmd_ps(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS,
		{"all", no_argument, NULL, OPT_ALL},
		{"rollup", no_argument, NULL, OPT_ROLLUP},
		{"sort", required_argument, NULL, OPT_SORT},
		{"pid", required_argument, NULL, OPT_PID},
		{"user", required_argument, NULL, OPT_USER},
		{"min-ahp", required_argument, NULL, OPT_MIN_AHP},
		{NULL, 0, NULL, 0},
	};
	struct ps_opts o = {.sort = "ahp", .uid = -1};
	int c, ret = EXIT_USAGE;
	uint64_t bytes;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (global_opt(g, c, optarg))
			continue;
		switch (c) {
		case 'h':
			ps_help(stdout);
			free(o.pids);
			return EXIT_OK;
		case OPT_ALL:
			o.all = true;
			break;
		case OPT_ROLLUP:
			o.rollup = true;
			break;
		case OPT_SORT:
			if (strcmp(optarg, "ahp") && strcmp(optarg, "rss") &&
			    strcmp(optarg, "share") && strcmp(optarg, "hg") &&
			    strcmp(optarg, "pid") && strcmp(optarg, "comm")) {
				warnx("ps: unknown sort key '%s' (ahp, rss, share, hg, pid, comm)",
				      optarg);
				goto out;
			}
			o.sort = optarg;
			break;
		case OPT_PID:
			if (add_pids(&o, optarg)) {
				warnx("ps: bad PID list '%s'", optarg);
				goto out;
			}
			break;
		case OPT_USER: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*optarg && !*end && v >= 0)
				o.uid = v;
			else
				o.user = optarg;
			break;
		}
		case OPT_MIN_AHP:
			if (parse_size(optarg, &bytes)) {
				warnx("ps: bad size '%s' (e.g. 64M)", optarg);
				goto out;
			}
			o.min_ahp_kb = (bytes + 1023) / 1024;
			break;
		default:
			ps_help(stderr);
			goto out;
		}
	}
	if (optind < argc) {
		warnx("ps: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if ((ret = cmd_setup(g)))
		goto out;
	if (o.user && known_user(&g->sr, o.user) != 0) {
		warnx("ps: no user '%s' in %s/etc/passwd", o.user,
		      strcmp(g->sr.path, "/") ? g->sr.path : "");
		ret = EXIT_USAGE;
		goto out;
	}
	struct ps_report r = {.rollup = o.rollup, .as_root = geteuid() == 0};
	r.recorded = !g->sr.live;
	char policy[CHOICE_LEN];
	if (thp_pmd_policy(&g->sr, policy, sizeof(policy)) == 0)
		r.policy = policy;
	if ((ret = ps_scan(g, &o, &r)) == EXIT_OK) {
		sort_key = o.sort;
		if (r.n)
			qsort(r.rows, r.n, sizeof(r.rows[0]), cmp_rows);
		if (g->json)
			ret = cmd_emit_json(ps_to_json(&r));
		else
			ps_render_text(stdout, &r, g->color);
	}
	free(r.rows);
out:
	free(o.pids);
	return ret;
}

/* ---- maps ---- */

static void maps_help(FILE *f)
{
	fprintf(f, "usage: thpctl maps PID [--json]\n\n"
		   "One process's VMAs: range, size, RSS, AnonHugePages, hg/nh flags,\n"
		   "THPeligible and name, and its prctl THP state. When THP_enabled is 0,\n"
		   "walks PPid up and names the highest ancestor that also has 0 (who set\n"
		   "PR_SET_THP_DISABLE; it is inherited across fork and exec).\n"
		   "Reads /proc/PID/smaps, which briefly takes the target's mmap_lock.\n\n"
		   "options:\n" GLOBAL_HELP);
}

struct maps_ctx {
	struct maps_report *r;
	size_t cap;
	int err;
};

static int maps_cb(const struct smaps_vma *v, void *ctx)
{
	struct maps_ctx *m = ctx;
	struct maps_report *r = m->r;
	if (r->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		struct maps_vma *nv = realloc(r->vmas, m->cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		r->vmas = nv;
	}
	struct maps_vma *o = &r->vmas[r->n++];
	o->start = v->start;
	o->end = v->end;
	memcpy(o->perms, v->perms, sizeof(o->perms));
	o->t = v->t;
	o->thp_eligible = v->thp_eligible;
	o->vmflags = v->vmflags;
	o->has_vmflags = v->has_vmflags;
	vma_display_name(v->name, v->name_len, o->name, sizeof(o->name));
	return 0;
}

static int maps_feed(void *ctx, const char *text, size_t len)
{
	return smaps_stream_feed(ctx, text, len);
}

/* Walk PPid up while THP_enabled stays 0. */
static void maps_chain(const struct sysroot *sr, struct buf *b, struct maps_report *r)
{
	long pid = r->st.ppid;
	r->stop_thp_enabled = -1;
	while (pid > 0 && r->nchain < (int)(sizeof(r->chain) / sizeof(r->chain[0]))) {
		struct proc_status st;
		if (sysroot_readf(sr, b, SR_PROC "/%ld/status", pid) ||
		    proc_status_parse(b->p, b->len, &st)) {
			r->chain_cut = true;
			return;
		}
		if (st.thp_enabled != 0) {
			r->stop_thp_enabled = st.thp_enabled;
			return;
		}
		r->chain[r->nchain].pid = pid;
		snprintf(r->chain[r->nchain].comm, sizeof(r->chain[0].comm), "%s", st.name);
		r->nchain++;
		pid = st.ppid;
	}
}

int cmd_maps(struct globals *g, int argc, char **argv)
{
	int c = cmd_global_opts_only(g, argc, argv, maps_help);
	if (c >= 0)
		return c;
	if (optind != argc - 1) {
		warnx("maps: expected one PID");
		maps_help(stderr);
		return EXIT_USAGE;
	}
	char *end;
	long pid = strtol(argv[optind], &end, 10);
	if (*end || pid <= 0 || pid > 0x3fffffff) {
		warnx("maps: bad PID '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	int ret = cmd_setup(g);
	if (ret)
		return ret;
	struct maps_report r = {.pid = pid};
	struct buf b = {0};
	int e = sysroot_readf(&g->sr, &b, SR_PROC "/%ld/status", pid);
	if (e || proc_status_parse(b.p, b.len, &r.st)) {
		warnx("maps: no such process %ld%s%s", pid, e && e != -ENOENT ? ": " : "",
		      e && e != -ENOENT ? strerror(-e) : "");
		buf_free(&b);
		return EXIT_FAIL;
	}
	if (r.st.vmrss_kb < 0) {
		warnx("maps: process %ld has no memory map (kernel thread or zombie)", pid);
		buf_free(&b);
		return EXIT_FAIL;
	}
	struct maps_ctx mc = {.r = &r};
	struct smaps_stream *s = malloc(sizeof(*s));
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%ld/smaps", pid);
	if (!s) {
		e = -ENOMEM;
	} else {
		smaps_stream_init(s, maps_cb, &mc, &r.totals);
		e = sysroot_read_chunks(&g->sr, rel, &b, maps_feed, s);
		if (!e)
			e = smaps_stream_finish(s);
		r.partial = s->truncated;
		free(s);
	}
	if (e) {
		if (e == -EACCES || e == -EPERM)
			warnx("maps: cannot read /proc/%ld/smaps: %s (run as root, or as the process's owner)",
			      pid, strerror(-e));
		else if (e == -ENOENT && !g->sr.live)
			warnx("maps: /proc/%ld/smaps is not in this recorded tree (unreadable at capture)",
			      pid);
		else if (e == -ENOENT || e == -ESRCH)
			warnx("maps: process %ld exited", pid);
		else
			warnx("maps: cannot read /proc/%ld/smaps: %s", pid, strerror(-e));
		ret = EXIT_FAIL;
	} else {
		if (r.st.thp_enabled == 0)
			maps_chain(&g->sr, &b, &r);
		if (r.partial)
			warnx("maps: /proc/%ld/smaps ends mid-line (truncated): partial", pid);
		if (g->json)
			ret = cmd_emit_json(maps_to_json(&r));
		else
			maps_render_text(stdout, &r, g->color);
	}
	free(r.vmas);
	buf_free(&b);
	return ret;
}
