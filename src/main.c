// SPDX-License-Identifier: MIT
/* thpctl: see, measure and control Transparent Huge Pages. main only wires. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/args.h"
#include "cmd/cmd.h"
#include "cmd/common.h"
#include "lab/guard.h"
#include "util/esc.h"
#include "util/version.h"
#include "util/wrap.h"

typedef int (*cmd_fn)(struct globals *g, int argc, char **argv);

static const struct {
	const char *name;
	cmd_fn fn;
	const char *help;
} commands[] = {
	{"status", cmd_status, "audit the host: kernel, policy, usage, counters, findings"},
	{"ps", cmd_ps, "processes that use, request or refuse huge pages"},
	{"maps", cmd_maps, "one process's VMAs and their THP state"},
	{"lab", cmd_lab, "reproduce THP experiments on this kernel, each proven"},
	{"watch", cmd_watch, "THP and compaction rates per interval, live"},
	{"report", cmd_report, "a watch --record recording as an HTML page with charts"},
	{"exporter", cmd_exporter, "Prometheus metrics over HTTP or a textfile"},
	{"trace", cmd_trace, "trace stalls: who waited in compaction/reclaim, how long, why"},
	{"cgroups", cmd_cgroups, "THP per memory cgroup: anon/file/shmem THP, limits, opt-outs"},
	{"why", cmd_why, "why one process does or does not get huge pages"},
	{"advise", cmd_advise, "recommended settings and per-process levers, with reasons"},
	{"hugetlb", cmd_hugetlb, "hugetlb plan: pages, fit and how to reserve a pool"},
	{"run", cmd_run, "run a command with THP off, or only where it asks (prctl)"},
	{"ab", cmd_ab, "run a command under THP modes and compare them with an interval"},
	{"collapse", cmd_collapse, "collapse a process's memory into huge pages now"},
	{"set", cmd_set, "change THP settings: validated, journalled, all or nothing"},
	{"snapshot", cmd_snapshot, "save, restore or diff every THP setting as JSON"},
	{"persist", cmd_persist, "the settings as tmpfiles.d, a systemd unit, cmdline, sysctl"},
	{"capture", cmd_capture, "one tar.gz of every file thpctl reads, for a support case"},
};

/*
 * Whether stdout of `thpctl NAME ARGV...` is human text to wrap to the width
 * (util/wrap.h): an allow-list (trace stalls' report is text like status').
 * Left out: stdout that is a file format or another program's (persist,
 * report, exporter, snapshot save, run: the command's own stdout),
 * and watch (a live screen, its rows whole; its legend wraps itself).
 * --csv (lab, ab) is a format too; --json is checked as each line is written.
 */
static bool wrap_wanted(const char *name, int argc, char **argv)
{
	static const char *const human[] = {"status",  "ps",	  "why",  "maps", "advise",
					    "hugetlb", "cgroups", "lab",  "ab",	  "collapse",
					    "set",     "capture", "trace"};
	/* snapshot diff and restore print lines for people (restore --dry-run: commands to paste,
	 * broken by wrap_put_command); save writes the snapshot itself, which snapshot says once
	 * its verb is parsed (an option's argument could pass for it here) */
	bool ok = strcmp(name, "snapshot") == 0; /* save - sets raw_out: cmd/snapshot.c */
	for (size_t i = 0; i < sizeof(human) / sizeof(human[0]); i++)
		ok = ok || strcmp(name, human[i]) == 0;
	for (int i = 1; ok && i < argc && strcmp(argv[i], "--") != 0; i++) {
		size_t n = strcspn(argv[i], "=");
		if (n >= 4 && strncmp(argv[i], "--csv", n) == 0) /* getopt takes "--cs" too */
			ok = false;
	}
	return ok;
}

/* The filter's "write as it is" test: --json or --wide given after the command's name, or a
 * command that writes a file format (raw_out). */
static bool wrap_off(void *ctx)
{
	const struct globals *g = ctx;
	return g->json || g->wide || g->raw_out;
}

/* The stderr filter's "write as it is" test: --wide (or THPCTL_WIDE) given. */
static bool messages_whole(void *ctx)
{
	const struct globals *g = ctx;
	return g->wide;
}

static const char synopsis[] =
	"usage: thpctl [--sysroot DIR|FILE.tar.gz] [--json] [--color WHEN] [--wait]\n"
	"              [--wide] COMMAND [ARGS]\n";

static void usage(FILE *f)
{
	fprintf(f, "%s\ncommands:\n", synopsis);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\noptions:\n" GLOBAL_HELP "  -V, --version   print the version\n"
		   "\n'thpctl help COMMAND' (or 'thpctl COMMAND --help') for a command's options.\n"
		   "Exit status: 0 ok, 1 runtime failure, 2 usage error.\n");
}

/* The command called NAME, NULL for none. */
static cmd_fn find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].fn;
	return NULL;
}

/* `thpctl -h`, `thpctl help`: the usage on stdout, wrapped as other human output. */
static int print_usage(struct globals *g)
{
	if (!g->wide)
		wrap_stdout(wrap_width(false), wrap_off, g);
	wrap_stdout_help(true);
	usage(stdout);
	return wrap_end() ? EXIT_FAIL : EXIT_OK;
}

/* An unknown command NAME (NULL: none given): said, the commands listed within 80 columns,
 * not the whole help (README: a usage error); EXIT_USAGE. */
static int unknown_command(const char *name)
{
	if (name)
		warnx("unknown command '%s'", name);
	else
		warnx("no command given");
	int col = fprintf(stderr, "commands:");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (col + 1 + (int)strlen(commands[i].name) > 79)
			col = fprintf(stderr, "\n ") - 1;
		col += fprintf(stderr, " %s", commands[i].name);
	}
	fprintf(stderr, "\n'thpctl --help' says what each does.\n");
	return EXIT_USAGE;
}

/*
 * Whether this run reads the live host: no --sysroot (before the command or among its
 * options, up to a "--"), or --sysroot /. Only such a run recovers a killed run's journal.
 */
static bool reads_live_host(const struct globals *g, int argc, char **argv)
{
	const char *dir = g->sysroot_dir;
	for (int i = optind + 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--sysroot") && i + 1 < argc)
			dir = argv[++i];
		else if (!strncmp(argv[i], "--sysroot=", 10))
			dir = argv[i] + 10;
	return !dir || !strcmp(dir, "/");
}

int main(int argc, char **argv)
{
	/* into a pipe or a file, an output of up to 64 KiB (a pipe's buffer) leaves in one
	 * write at exit: `thpctl status | head -1` then gets no SIGPIPE (README: Exit status);
	 * the default is one write per 4 KiB */
	static char outbuf[1 << 16];
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* no warning or error carries a raw control byte from a tree or a process (util/esc.h) */
	esc_stderr_filter();
	/* static: the stderr filter asks it (messages_whole) for messages written at exit too,
	 * after main has returned (a settings restore from an atexit handler) */
	static struct globals g;
	const char *wide = getenv("THPCTL_WIDE");
	g.wide = wide && *wide && strcmp(wide, "0") != 0;
	/* messages fit a terminal (or COLUMNS) as stdout does; --wide: whole lines */
	esc_stderr_wrap(wrap_stderr_width(), messages_whole, &g);
	static const struct option opts[] = {
		GLOBAL_LONGOPTS, {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
	int c;
	argv[0] = "thpctl";	  /* getopt's messages: "thpctl: ...", not the invoked path */
	cmd_line_set(argc, argv); /* for the context of report pages */
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		if (global_opt(&g, c, optarg))
			continue;
		switch (c) {
		case 'h':
			return print_usage(&g);
		case 'V':
			printf("thpctl %s\n", thpctl_version());
			return EXIT_OK;
		default: /* getopt said what: the synopsis and where the rest is, not the whole help */
			fprintf(stderr, "%s'thpctl --help' for the commands and all options.\n",
				synopsis);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return unknown_command(NULL);
	const char *name = argv[optind];
	cmd_fn fn = find_cmd(name);
	if (!fn && strcmp(name, "help") == 0) {
		/* `thpctl help [help]` is --help; `thpctl help CMD X...` is `thpctl CMD --help` */
		if (optind + 1 >= argc || strcmp(argv[optind + 1], "help") == 0)
			return print_usage(&g);
		name = argv[++optind];
		if ((fn = find_cmd(name))) {
			static char help_opt[] = "--help";
			static char *hv[4];
			hv[0] = argv[0], hv[1] = argv[optind], hv[2] = help_opt, hv[3] = NULL;
			argv = hv, argc = 3, optind = 1;
		}
	}
	if (!fn)
		return unknown_command(name);
	/* a run killed with SIGKILL left settings changed: put them back first (a command
	 * reading a recorded tree leaves the live host alone) */
	int recovered = reads_live_host(&g, argc, argv) ? guard_recover(stderr) : 0;
	/* the command parses its own argv (argv[0] = its name) */
	int cargc = argc - optind;
	char **cargv = argv + optind;
	char prog[64]; /* getopt's messages then read "thpctl: ps: unrecognized option" */
	snprintf(prog, sizeof(prog), "thpctl: %s", name);
	cargv[0] = prog;
	cmd_json_name(name);
	if (!g.json && !g.wide && wrap_wanted(name, cargc, cargv) &&
	    wrap_stdout(wrap_width(false), wrap_off, &g))
		warn("stdout filter"); /* then unwrapped: not a failure */
	optind =
		0; /* 0: glibc re-initializes getopt, dropping main's "+" (stop at operands) mode */
	int ret = fn(&g, cargc, cargv);
	/* every usage error ends with where the options are (an unknown option: with the
	 * synopsis too, args_usage) */
	if (ret == EXIT_USAGE && !args_usage_shown())
		args_usage_hint(name);
	if (g.sr.dirfd > 0)
		sysroot_close(&g.sr);
	int werr = wrap_end(); /* the real stdout again */
	if (werr || fflush(stdout) || ferror(stdout)) {
		warn("write error on standard output");
		return EXIT_FAIL;
	}
	/* a killed run's values that could not be put back: said above, and the exit says it too */
	return ret == EXIT_OK && recovered == -EIO ? EXIT_FAIL : ret;
}
