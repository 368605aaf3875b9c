// SPDX-License-Identifier: MIT
/* `thpctl why PID`: collect one process's THP facts, explain them (model/why.c). */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/ancestry.h"
#include "../kernel/cgroup.h"
#include "../render/why.h"
#include "../util/num.h"
#include "common.h"

static void why_help(FILE *f)
{
	fprintf(f, "usage: thpctl why PID [--json]\n\n"
		   "Why process PID does or does not get huge pages, one fact per line with the\n"
		   "file it comes from: the PMD size and mTHP policies, defrag as it applies to\n"
		   "its regions, its prctl state (and the ancestor that set it), its hg/nh VMAs\n"
		   "and stack, allocator and runtime hints from its environment and command\n"
		   "line, and its memory cgroup limit.\n"
		   "Reads /proc/PID/smaps, which briefly takes the target's mmap_lock. The\n"
		   "environment of another user's process needs root.\n\n"
		   "options:\n" GLOBAL_HELP);
}

struct why_ctx {
	struct why_input *in;
	uint64_t pmd_kb;
};

static int vma_cb(const struct smaps_vma *v, void *ctx)
{
	struct why_ctx *c = ctx;
	why_vmas_add(&c->in->vmas, v, c->pmd_kb);
	return 0;
}

static int feed(void *ctx, const char *text, size_t len)
{
	return smaps_stream_feed(ctx, text, len);
}

static void collect_smaps(const struct sysroot *sr, struct buf *b, struct why_input *in)
{
	struct why_ctx c = {.in = in, .pmd_kb = in->h->feat.pmd_size / 1024};
	struct smaps_stream *s = malloc(sizeof(*s));
	if (!s) {
		in->smaps_err = -ENOMEM;
		return;
	}
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%ld/smaps", in->pid);
	smaps_stream_init(s, vma_cb, &c, NULL);
	int e = sysroot_read_chunks(sr, rel, b, feed, s);
	if (!e)
		e = smaps_stream_finish(s);
	in->smaps_truncated = s->truncated;
	free(s);
	if (!e && in->vmas.nvmas == 0)
		e = -ESRCH; /* the mm went away */
	in->smaps_err = e > 0 ? -EINVAL : e;
}

static void collect_hints(const struct sysroot *sr, struct buf *b, struct why_input *in)
{
	in->environ_err = sysroot_readf(sr, b, SR_PROC "/%ld/environ", in->pid);
	if (!in->environ_err)
		in->nenv = why_hints_parse(b->p, b->len, false, in->env, WHY_MAX_HINTS);
	in->cmdline_err = sysroot_readf(sr, b, SR_PROC "/%ld/cmdline", in->pid);
	if (!in->cmdline_err)
		in->ncmd = why_hints_parse(b->p, b->len, true, in->cmd, WHY_MAX_HINTS);
}

static void collect_cgroup(const struct sysroot *sr, struct buf *b, struct why_input *in)
{
	struct proc_cgroup cg;
	in->cgroup_err = sysroot_readf(sr, b, SR_PROC "/%ld/cgroup", in->pid);
	if (!in->cgroup_err && proc_cgroup_parse(b->p, b->len, &cg))
		in->cgroup_err = -EINVAL;
	if (!in->cgroup_err)
		in->limit_err = cgroup_memory_limit(sr, &cg, b, &in->lim);
}

int cmd_why(struct globals *g, int argc, char **argv)
{
	int c = cmd_global_opts_only(g, argc, argv, why_help);
	if (c >= 0)
		return c;
	if (optind != argc - 1) {
		warnx("why: expected one PID");
		why_help(stderr);
		return EXIT_USAGE;
	}
	pid_t pid;
	if (str_pid(argv[optind], &pid)) {
		warnx("why: bad PID '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	int ret = cmd_setup(g);
	if (ret)
		return ret;
	static struct why_input in;
	struct host_snapshot *h = calloc(1, sizeof(*h));
	memset(&in, 0, sizeof(in));
	in.pid = pid;
	in.recorded = !g->sr.live;
	struct buf b = {0};
	int e = sysroot_readf(&g->sr, &b, SR_PROC "/%d/status", pid);
	if (e || proc_status_parse(b.p, b.len, &in.st)) {
		warnx("why: no such process %d%s%s", pid, e && e != -ENOENT ? ": " : "",
		      e && e != -ENOENT ? strerror(-e) : "");
		ret = EXIT_FAIL;
		goto out;
	}
	if (in.st.vmrss_kb < 0 || in.st.kthread == 1) {
		warnx("why: process %d has no memory map (kernel thread or zombie)", pid);
		ret = EXIT_FAIL;
		goto out;
	}
	if (!h || host_snapshot_read(&g->sr, h)) {
		warnx("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	in.h = h;
	collect_smaps(&g->sr, &b, &in);
	if (in.smaps_err == -ESRCH || (in.smaps_err == -ENOENT && g->sr.live)) {
		warnx("why: process %d exited", pid);
		ret = EXIT_FAIL;
		goto out;
	}
	if (in.st.thp_enabled == 0) {
		thp_chain_walk(&g->sr, &b, in.st.ppid, &in.chain);
		in.chain_walked = true;
	}
	collect_hints(&g->sr, &b, &in);
	collect_cgroup(&g->sr, &b, &in);

	static struct why_report r;
	why_explain(&in, &r);
	if (g->json)
		ret = cmd_emit_json(why_to_json(&in, &r));
	else
		why_render_text(stdout, &in, &r, g->color);
out:
	if (h)
		host_snapshot_free(h);
	free(h);
	buf_free(&b);
	return ret;
}
