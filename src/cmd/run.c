// SPDX-License-Identifier: MIT
/* `thpctl run [--thp=off|advised] -- CMD [ARGS]`: a per-process THP lever for anything. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../kernel/uapi_compat.h"
#include "args.h"
#include "common.h"

static void run_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl run [--thp=off|advised] [--] CMD [ARGS...]\n\n"
		"Run CMD with THP disabled for it and everything it starts, like systemd's\n"
		"MemoryTHP= but for any command. No root needed.\n\n"
		"  --thp=off       prctl(PR_SET_THP_DISABLE, 1): no THP at all, not even for\n"
		"                  MADV_HUGEPAGE regions or MADV_COLLAPSE (default)\n"
		"  --thp=advised   prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED):\n"
		"                  THP only where the program asks (MADV_HUGEPAGE,\n"
		"                  MADV_COLLAPSE); needs Linux 6.18\n" GLOBAL_HELP
		"\n--json and --sysroot are usage errors here: run acts on this host and\n"
		"replaces itself with CMD, so it has no result of its own to print.\n"
		"\nThe setting is inherited across fork() and kept across execve(): thpctl\n"
		"replaces itself with CMD, so CMD's exit status is run's. In /proc/PID/status,\n"
		"off shows as THP_enabled: 0; advised leaves it 1 (PR_GET_THP_DISABLE reads 3).\n\n"
		"Exit status: CMD's; 1 when the prctl fails (advised on a kernel before 6.18);\n"
		"2 on a usage error; 127 when CMD is not found and 126 when it cannot be\n"
		"executed, as in the shell.\n");
}

enum { OPT_THP = OPT_CMD_BASE };

/* --thp off|advised into *(bool *)CTX (advised). */
static int run_opt(int c, const char *arg, void *ctx)
{
	(void)c;
	if (strcmp(arg, "off") && strcmp(arg, "advised")) {
		warnx("run: --thp takes off or advised");
		return EXIT_USAGE;
	}
	*(bool *)ctx = strcmp(arg, "advised") == 0;
	return -1;
}

int cmd_run(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_ARG("thp", OPT_THP), OPTS_END};
	bool advised = false;
	/* "+": stop at CMD, its options are its own */
	int c = args_getopt(g, argc, argv, "+h", opts, run_help, run_opt, &advised);
	if (c >= 0)
		return c;
	if (g->json) {
		warnx("run: no --json: thpctl replaces itself with CMD, whose output is its own");
		args_usage(run_help, "run");
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		warnx("run: no command given (thpctl run --thp=off -- CMD ARGS)");
		return EXIT_USAGE;
	}
	if (g->sysroot_dir) {
		warnx("run: acts on this host only, not on a --sysroot tree");
		return EXIT_USAGE;
	}
	/*
	 * PR_THP_DISABLE_EXCEPT_ADVISED (6.18, abeccf210014) goes in arg3; kernels
	 * before it reject any non-zero arg3 with EINVAL. A full disable (3.15) is a
	 * per-mm flag since 4.13, inherited by fork() and kept across execve().
	 */
	unsigned long flags = advised ? PR_THP_DISABLE_EXCEPT_ADVISED : 0;
	if (prctl(PR_SET_THP_DISABLE, 1UL, flags, 0UL, 0UL)) {
		int e = errno;
		if (advised && e == EINVAL)
			warnx("run: --thp=advised needs Linux 6.18 (PR_THP_DISABLE_EXCEPT_ADVISED); "
			      "--thp=off disables THP entirely on any kernel since 3.15");
		else
			warnx("run: prctl(PR_SET_THP_DISABLE): %s", strerror(e));
		return EXIT_FAIL;
	}
	fflush(stdout);
	execvp(argv[optind], argv + optind);
	int e = errno;
	warnx("run: %s: %s", argv[optind], strerror(e));
	/* the shell's convention: 127 not found, 126 found but not executable */
	return e == ENOENT || e == ENOTDIR ? 127 : 126;
}
