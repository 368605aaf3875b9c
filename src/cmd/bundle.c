// SPDX-License-Identifier: MIT
/*
 * --sysroot FILE.tar.gz: a bundle of `thpctl capture` extracted with the
 * limits of util/tarball.h into a private directory (mkdtemp, 0700) under
 * $TMPDIR, opened as a plain sysroot, and removed at exit: normal exits,
 * error exits and SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGPIPE when those were not taken
 * (SIGPIPE: `thpctl --sysroot B.tar.gz status | head -3`).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/esc.h"
#include "../util/tarball.h"
#include "common.h"

static char bundle_dir[PATH_MAX]; /* "" when none is extracted */
static pid_t bundle_owner;	  /* a forked child that exits leaves it to its parent */

static void bundle_cleanup(void)
{
	if (bundle_dir[0] && getpid() == bundle_owner && tree_remove(bundle_dir) == 0)
		bundle_dir[0] = '\0';
}

static void bundle_signal(int sig)
{
	bundle_cleanup(); /* tree_remove uses only system calls */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			signal(sigs[i], bundle_signal);
	}
}

struct warn_ctx {
	const char *file;
	unsigned long n;
	struct sr_skips skips; /* for the sysroot: a replay that skipped a member is partial */
};

static void member_skipped(void *ctx, const char *name, const char *why)
{
	struct warn_ctx *w = ctx;
	char e[4 * 200 + 1];
	/* escaped as every name from a tree is: a TAB shows as \x09 */
	esc_text(e, sizeof(e), name, strnlen(name, 200), 0);
	if (w->skips.n < SKIPS_MAX)
		esc_text(w->skips.names[w->skips.n], sizeof(w->skips.names[0]), name,
			 strnlen(name, 200), 0);
	w->skips.n++;
	if (++w->n <= 10)
		warnx("--sysroot %s: member '%s' skipped: %s", w->file, e, why);
}

/* The limits; a test build reads THPCTL_TEST_TARX_LIMITS="MEMBER,TOTAL,MEMBERS" (bytes, count). */
static struct tarx_limits bundle_limits(void)
{
	struct tarx_limits l = tarx_default_limits;
#ifdef THPCTL_TEST_HOOKS
	const char *e = getenv("THPCTL_TEST_TARX_LIMITS");
	unsigned long long a, b, c;
	if (e && sscanf(e, "%llu,%llu,%llu", &a, &b, &c) == 3) {
		l.max_member = a;
		l.max_total = b;
		l.max_members = c;
	}
#endif
	return l;
}

int bundle_open(struct globals *g)
{
	const char *file = g->sysroot_dir;
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (snprintf(bundle_dir, sizeof(bundle_dir), "%s/thpctl-sysroot.XXXXXX", tmp) >=
		    (int)sizeof(bundle_dir) ||
	    !mkdtemp(bundle_dir)) {
		warn("--sysroot %s: cannot create a temporary directory in %s", file, tmp);
		bundle_dir[0] = '\0';
		return EXIT_FAIL;
	}
	bundle_owner = getpid();
	atexit(bundle_cleanup);
	catch_signals();
	int dfd = open(bundle_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct tarx_limits lim = bundle_limits();
	struct tarx_stats st;
	struct warn_ctx w = {.file = file};
	char err[512] = "";
	int r = dfd < 0 ? -errno
			: tarx_extract(file, dfd, &lim, member_skipped, &w, &st, err, sizeof(err));
	if (dfd >= 0)
		close(dfd);
	if (w.n > 10)
		warnx("--sysroot %s: %lu more members skipped", file, w.n - 10);
	if (r) {
		warnx("--sysroot %s: %s", file, err[0] ? err : strerror(-r));
		bundle_cleanup();
		return EXIT_FAIL;
	}
	r = sysroot_open(&g->sr, bundle_dir);
	if (r) {
		warnx("--sysroot %s: %s", file, strerror(-r));
		bundle_cleanup();
		return EXIT_FAIL;
	}
	snprintf(g->sr.path, sizeof(g->sr.path), "%s", file);
	g->sr.skips = w.skips;
	return EXIT_OK;
}
