// SPDX-License-Identifier: MIT
/*
 * The floor for `thpctl ps`: the least a C program can do to read the same
 * files. readdir(/proc), and for every numeric entry read PID/smaps (or
 * PID/smaps_rollup) and PID/status to the end into one reused buffer, through
 * openat() on the /proc directory fd. No parsing, no output: what thpctl costs
 * above this is its own work (bench/ps.sh prints the ratio).
 *
 *   proc_floor [smaps|rollup|none] [-v]   -v: files and bytes read, on stderr;
 *                                          none: start and exit (the start-up cost)
 *
 * Files that vanish or cannot be read (a process exiting, PID 1 in a
 * container) are skipped, as thpctl does. Exit 0, or 1 when /proc cannot be
 * opened, 2 on usage.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 18];

/* Read DIRFD/PATH to the end; bytes read, or -1. */
static long read_all(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long total = 0;
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	return n < 0 ? -1 : total;
}

int main(int argc, char **argv)
{
	const char *maps = "smaps";
	int verbose = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "smaps") == 0)
			maps = "smaps";
		else if (strcmp(argv[i], "rollup") == 0)
			maps = "smaps_rollup";
		else if (strcmp(argv[i], "none") == 0)
			return 0;
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else {
			fprintf(stderr, "usage: proc_floor [smaps|rollup|none] [-v]\n");
			return 2;
		}
	}
	DIR *d = opendir("/proc");
	if (!d) {
		perror("proc_floor: /proc");
		return 1;
	}
	int dfd = dirfd(d);
	long files = 0, bytes = 0, procs = 0;
	const struct dirent *de;
	char path[64];
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		procs++;
		const char *names[2] = {maps, "status"};
		for (int k = 0; k < 2; k++) {
			snprintf(path, sizeof(path), "%s/%s", de->d_name, names[k]);
			long n = read_all(dfd, path);
			if (n >= 0) {
				files++;
				bytes += n;
			}
		}
	}
	closedir(d);
	if (verbose)
		fprintf(stderr, "proc_floor: %ld processes, %ld files, %ld bytes\n", procs, files,
			bytes);
	return 0;
}
