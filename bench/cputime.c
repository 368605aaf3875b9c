// SPDX-License-Identifier: MIT
/*
 * CPU time of commands, taken side by side: each of the N runs runs every
 * command once, in turn (so a burst of load from elsewhere falls on all of
 * them alike), and the user+system time of each child comes from wait4().
 * On a shared machine the wall clock of a command measures the run queue as
 * much as the command; its CPU time much less so. bench/ps.sh prints both.
 *
 *   cputime RUNS WARMUP CMD [CMD...]   each CMD one string, split at blanks
 *
 * Output, one line per command: "cpu MEDIAN_MS MIN_MS wall MEDIAN_MS CMD", then
 * one line per run and command, in the order they ran: "run R C WALL_MS CPU_MS MINFLT"
 * (R from 0, C the command's index from 0; MINFLT the child's minor page faults, wait4's
 * ru_minflt): the pairs a paired comparison needs.
 * stdout and stderr of the commands go to /dev/null. Exit 0, 1 when a
 * command cannot be run or fails, 2 on usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 8
#define MAX_ARGS 16
#define MAX_RUNS 1000

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Run ARGV once: its user+system time and wall time in ms, its minor faults. 0, or -1 when it
 * failed. */
static int run(char **argv, double *cpu, double *wall, long *minflt)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*wall = now_ms() - t0;
	*minflt = ru.ru_minflt;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 0, warm = argc > 2 ? atoi(argv[2]) : -1;
	int ncmd = argc - 3;
	if (runs < 1 || runs > MAX_RUNS || warm < 0 || ncmd < 1 || ncmd > MAX_CMDS) {
		fprintf(stderr,
			"usage: cputime RUNS WARMUP CMD [CMD...] (RUNS 1..%d, %d commands)\n",
			MAX_RUNS, MAX_CMDS);
		return 2;
	}
	static char *args[MAX_CMDS][MAX_ARGS + 1];
	static double cpu[MAX_CMDS][MAX_RUNS], wall[MAX_CMDS][MAX_RUNS];
	static long flt[MAX_CMDS][MAX_RUNS];
	for (int c = 0; c < ncmd; c++) {
		int k = 0;
		for (char *t = strtok(argv[3 + c], " "); t && k < MAX_ARGS; t = strtok(NULL, " "))
			args[c][k++] = t;
		args[c][k] = NULL;
	}
	for (int r = -warm; r < runs; r++)
		for (int c = 0; c < ncmd; c++) {
			double u, w;
			long m;
			if (run(args[c], &u, &w, &m)) {
				fprintf(stderr, "cputime: '%s' failed\n", args[c][0]);
				return 1;
			}
			if (r >= 0) {
				cpu[c][r] = u;
				wall[c][r] = w;
				flt[c][r] = m;
			}
		}
	/* the runs first: median() sorts the arrays */
	static char lines[MAX_CMDS * MAX_RUNS][80];
	int nl = 0;
	for (int r = 0; r < runs; r++)
		for (int c = 0; c < ncmd; c++)
			snprintf(lines[nl++], sizeof(lines[0]), "run %d %d %.3f %.3f %ld", r, c,
				 wall[c][r], cpu[c][r], flt[c][r]);
	for (int c = 0; c < ncmd; c++) {
		double mw = median(wall[c], runs), mc = median(cpu[c], runs);
		printf("cpu %.3f %.3f wall %.3f", mc, cpu[c][0], mw);
		for (char **a = args[c]; *a; a++)
			printf(" %s", *a);
		printf("\n");
	}
	for (int i = 0; i < nl; i++)
		puts(lines[i]);
	return 0;
}
