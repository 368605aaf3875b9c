// SPDX-License-Identifier: MIT
#include "guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kernel/parse.h"
#include "../kernel/proc_status.h"
#include "../kernel/tracefs.h"

struct entry {
	char rel[200];
	char old[GUARD_VALUE_LEN];
};

/* Everything the signal handler needs, preformatted: it only open/write/closes. */
static struct {
	bool active;
	pid_t owner;
	int dirfd; /* the live sysroot */
	int n;
	struct entry e[GUARD_MAX_ENTRIES];
	char dir[PATH_MAX];
	char path[PATH_MAX];
	char purpose[64];
	bool file_written;
} g = {.dirfd = -1};

static void journal_paths(void)
{
	if (g.path[0])
		return;
	const char *d = getenv("THPCTL_JOURNAL_DIR");
	if (d && *d)
		snprintf(g.dir, sizeof(g.dir), "%s", d);
	else if (geteuid() == 0 || !getenv("XDG_RUNTIME_DIR"))
		snprintf(g.dir, sizeof(g.dir), "/run/thpctl");
	else
		snprintf(g.dir, sizeof(g.dir), "%s/thpctl", getenv("XDG_RUNTIME_DIR"));
	snprintf(g.path, sizeof(g.path), "%s/journal", g.dir);
}

const char *guard_journal_path(void)
{
	journal_paths();
	return g.path;
}

#define PF_EXITING_FLAG 0x00000004u /* in do_exit(): a SIGKILLed owner restores nothing */

/* Whether PID has a SIGKILL pending (SigPnd/ShdPnd of proc/PID/status): it is as good as gone. */
static bool sigkill_pending(int dirfd, long pid)
{
	char rel[64], buf[4096];
	snprintf(rel, sizeof(rel), "proc/%ld/status", pid);
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return false;
	buf[r] = '\0';
	static const char *const keys[] = {"\nSigPnd:", "\nShdPnd:"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = strstr(buf, keys[i]);
		if (k && (strtoull(k + strlen(keys[i]), NULL, 16) & (1ull << (SIGKILL - 1))))
			return true;
	}
	return false;
}

/*
 * Start time of PID in clock ticks (proc/PID/stat field 22), 0 if unknown or
 * if PID is dying (SIGKILL pending), exiting or a zombie: a killed owner can
 * stay a zombie for long when its parent does not reap it, and must not hold
 * the journal meanwhile.
 */
static unsigned long long starttime(int dirfd, long pid, char *comm, size_t n)
{
	char rel[64], buf[1024];
	snprintf(rel, sizeof(rel), "proc/%ld/stat", pid);
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	struct proc_stat st;
	if (proc_stat_parse(buf, (size_t)r, &st))
		return 0;
	if (st.state == 'Z' || st.state == 'X' || (st.flags & PF_EXITING_FLAG) ||
	    sigkill_pending(dirfd, pid))
		return 0;
	if (comm)
		snprintf(comm, n, "%s", st.comm);
	return (unsigned long long)st.starttime;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Rewrite the journal with all entries, durably (tmp + fsync + rename). */
static int journal_save(void)
{
	char tmp[PATH_MAX + 8];
	snprintf(tmp, sizeof(tmp), "%s.tmp", g.path);
	/* readable: a non-root user is told what a killed run left */
	if (mkdir(g.dir, 0755) && errno != EEXIST)
		return -errno;
	chmod(g.dir, 0755);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	char line[512];
	int n = snprintf(line, sizeof(line), "thpctl-journal 1\nowner %d %llu\npurpose %s\n",
			 (int)g.owner, starttime(g.dirfd, g.owner, NULL, 0), g.purpose);
	int r = write_all(fd, line, (size_t)n);
	for (int i = 0; !r && i < g.n; i++) {
		n = snprintf(line, sizeof(line), "entry %s\t%s\n", g.e[i].rel, g.e[i].old);
		r = write_all(fd, line, (size_t)n);
	}
	if (!r && fsync(fd))
		r = -errno;
	close(fd);
	if (!r && rename(tmp, g.path))
		r = -errno;
	if (r)
		unlink(tmp);
	else
		g.file_written = true;
	return r;
}

/* Async-signal-safe: open/write/close/unlink only. */
static void restore_entries(int dirfd, struct entry *e, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		int fd = openat(dirfd, e[i].rel, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t w = write(fd, e[i].old, strlen(e[i].old));
		(void)w;
		close(fd);
	}
}

static bool quiet; /* guard_announce(false) */

/* SAY: print each value put back (never from a signal handler: stdio is not async-signal-safe). */
static void restore_all(bool say)
{
	if (!g.active || getpid() != g.owner)
		return;
	restore_entries(g.dirfd, g.e, g.n);
	for (int i = g.n - 1; say && !quiet && i >= 0; i--)
		fprintf(stderr, "thpctl: /%s: restored %s\n", g.e[i].rel, g.e[i].old);
	if (g.file_written)
		unlink(g.path);
	g.n = 0;
	g.file_written = false;
}

void guard_commit(void)
{
	if (!g.active || getpid() != g.owner)
		return;
	if (g.file_written)
		unlink(g.path);
	g.n = 0;
	g.file_written = false;
}

void guard_restore(void)
{
	restore_all(true);
}

static void on_signal(int sig)
{
	restore_all(false);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit(void)
{
	guard_restore();
}

/* The value to write back: the bracketed word of a choice file, else the trimmed text. */
static int current_value(const struct sysroot *sr, const char *rel, char *out, size_t n)
{
	struct buf b = {0};
	int r = sysroot_read(sr, rel, &b);
	if (r) {
		buf_free(&b);
		return r;
	}
	struct choice c;
	if (choice_parse(b.p, b.len, &c) == 0) {
		snprintf(out, n, "%s", c.selected);
	} else {
		size_t l = b.len;
		while (l && (b.p[l - 1] == '\n' || b.p[l - 1] == ' '))
			l--;
		if (l >= n) {
			buf_free(&b);
			return -E2BIG;
		}
		memcpy(out, b.p, l);
		out[l] = '\0';
	}
	buf_free(&b);
	return 0;
}

static struct sysroot live_sr;
void guard_announce(bool on)
{
	quiet = !on;
}

int guard_begin(const struct sysroot *sr, const char *purpose)
{
	if (geteuid() != 0)
		return -EPERM;
	if (!sr->live)
		return -EROFS;
	journal_paths();
	/* a dead run's journal is restored now; a live one's is checked at our first write */
	guard_recover(sr, stderr);
	if (g.active)
		return 0;
	live_sr = *sr;
	g.dirfd = sr->dirfd;
	g.owner = getpid();
	g.n = 0;
	snprintf(g.purpose, sizeof(g.purpose), "%s", purpose);
	g.active = true;
	static bool installed;
	if (!installed) {
		installed = true;
		atexit(at_exit);
		struct sigaction sa = {.sa_handler = on_signal};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	return 0;
}

static int do_write(const char *rel, const char *value)
{
	int fd = sysroot_openat(&live_sr, rel, O_WRONLY);
	if (fd < 0)
		return fd;
	int r = write_all(fd, value, strlen(value));
	close(fd);
	return r;
}

int guard_write(const char *rel, const char *value)
{
	if (!g.active)
		return -EPERM;
	while (*rel == '/')
		rel++;
	char old[GUARD_VALUE_LEN];
	int r = current_value(&live_sr, rel, old, sizeof(old));
	if (r)
		return r;
	bool known = false;
	for (int i = 0; i < g.n; i++)
		if (strcmp(g.e[i].rel, rel) == 0)
			known = true;
	if (!known) {
		if (g.n == GUARD_MAX_ENTRIES || strlen(rel) >= sizeof(g.e[0].rel))
			return -ENOSPC;
		/* another live thpctl's journal: its values would be lost under ours */
		if (!g.file_written && guard_recover(&live_sr, stderr) == -EBUSY)
			return -EBUSY;
		snprintf(g.e[g.n].rel, sizeof(g.e[0].rel), "%s", rel);
		snprintf(g.e[g.n].old, sizeof(g.e[0].old), "%s", old);
		/* block signals while the entry and the journal disagree */
		sigset_t all, prev;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, &prev);
		g.n++;
		r = journal_save();
		if (r)
			g.n--;
		sigprocmask(SIG_SETMASK, &prev, NULL);
		if (r)
			return r;
	}
	if (strcmp(old, value) == 0)
		return 0;
	if (!quiet)
		fprintf(stderr, "thpctl: /%s: %s -> %s\n", rel, old, value);
	return do_write(rel, value);
}

int guard_poke(const char *rel, const char *value)
{
	if (!g.active)
		return -EPERM;
	while (*rel == '/')
		rel++;
	if (!quiet)
		fprintf(stderr, "thpctl: /%s <- %s\n", rel, value);
	return do_write(rel, value);
}

static int recover_settings(const struct sysroot *sr, FILE *out)
{
	(void)sr;
	journal_paths();
	int fd = open(g.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	static char text[GUARD_MAX_ENTRIES * 300 + 512];
	ssize_t len = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	text[len] = '\0';
	long pid = 0;
	unsigned long long st = 0;
	static struct entry e[GUARD_MAX_ENTRIES];
	int n = 0;
	char purpose[64] = "?";
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "owner %ld %llu", &pid, &st) == 2)
			continue;
		if (strncmp(l, "purpose ", 8) == 0) {
			snprintf(purpose, sizeof(purpose), "%s", l + 8);
			continue;
		}
		char *tab = strchr(l, '\t');
		if (strncmp(l, "entry ", 6) || !tab || n == GUARD_MAX_ENTRIES)
			continue;
		*tab = '\0';
		snprintf(e[n].rel, sizeof(e[n].rel), "%s", l + 6);
		snprintf(e[n].old, sizeof(e[n].old), "%s", tab + 1);
		n++;
	}
	struct sysroot root;
	if (sysroot_open(&root, "/"))
		return 0;
	char comm[COMM_LEN] = "";
	if (pid > 0 && pid != getpid() && st &&
	    starttime(root.dirfd, pid, comm, sizeof(comm)) == st) {
		sysroot_close(&root);
		return -EBUSY; /* its owner still runs and will restore */
	}
	if (geteuid() != 0) {
		fprintf(out,
			"thpctl: %s holds %d setting(s) changed by a killed thpctl (%s): run any thpctl command as root to restore them\n",
			g.path, n, purpose);
		sysroot_close(&root);
		return -EPERM;
	}
	for (int i = n - 1; i >= 0; i--) {
		struct entry one = e[i];
		restore_entries(root.dirfd, &one, 1);
		fprintf(out, "thpctl: restored /%s to %s (left changed by a killed thpctl: %s)\n",
			e[i].rel, e[i].old, purpose);
	}
	unlink(g.path);
	sysroot_close(&root);
	return n;
}

/* ---- undo actions (guard_undo_add) ----------------------------------------- */

#define UNDO_MAX 8

static const struct {
	const char *kind;
	const char *what; /* for messages */
	int (*run)(const char *arg);
} undo_kinds[] = {
	{GUARD_UNDO_TRACEFS_INSTANCE, "tracefs instance", tracefs_remove_instance_named},
};

static struct {
	int n;
	char kind[UNDO_MAX][32];
	char arg[UNDO_MAX][96];
	char purpose[64];
} u;

static int undo_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(undo_kinds) / sizeof(undo_kinds[0]); i++)
		if (strcmp(undo_kinds[i].kind, kind) == 0)
			return (int)i;
	return -1;
}

static void undo_path(char *out, size_t n, long pid)
{
	journal_paths();
	snprintf(out, n, "%s/undo.%ld", g.dir, pid);
}

/* Rewrite this process's undo file (tmp + fsync + rename), or delete it when empty. */
static int undo_save(void)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	undo_path(path, sizeof(path), (long)getpid());
	if (!u.n)
		return unlink(path) && errno != ENOENT ? -errno : 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* readable: a non-root user is told what a killed run left */
	if (mkdir(g.dir, 0755) && errno != EEXIST)
		return -errno;
	chmod(g.dir, 0755);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	unsigned long long st = 0;
	struct sysroot root;
	if (sysroot_open(&root, NULL) == 0) {
		st = starttime(root.dirfd, (long)getpid(), NULL, 0);
		sysroot_close(&root);
	}
	char line[256];
	int k = snprintf(line, sizeof(line), "thpctl-undo 1\nowner %d %llu\npurpose %s\n",
			 (int)getpid(), st, u.purpose);
	int r = write_all(fd, line, (size_t)k);
	for (int i = 0; !r && i < u.n; i++) {
		k = snprintf(line, sizeof(line), "undo %s\t%s\n", u.kind[i], u.arg[i]);
		r = write_all(fd, line, (size_t)k);
	}
	if (!r && fsync(fd))
		r = -errno;
	close(fd);
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

int guard_undo_add(const char *purpose, const char *kind, const char *arg)
{
	if (geteuid() != 0)
		return -EPERM;
	if (undo_kind(kind) < 0 || strlen(arg) >= sizeof(u.arg[0]) || strpbrk(arg, "\t\n"))
		return -EINVAL;
	if (u.n == UNDO_MAX)
		return -ENOSPC;
	snprintf(u.purpose, sizeof(u.purpose), "%s", purpose);
	snprintf(u.kind[u.n], sizeof(u.kind[0]), "%s", kind);
	snprintf(u.arg[u.n], sizeof(u.arg[0]), "%s", arg);
	u.n++;
	int r = undo_save();
	if (r)
		u.n--;
	return r;
}

void guard_undo_done(const char *kind, const char *arg)
{
	for (int i = 0; i < u.n; i++) {
		if (strcmp(u.kind[i], kind) || strcmp(u.arg[i], arg))
			continue;
		memmove(u.kind[i], u.kind[i + 1], (size_t)(u.n - i - 1) * sizeof(u.kind[0]));
		memmove(u.arg[i], u.arg[i + 1], (size_t)(u.n - i - 1) * sizeof(u.arg[0]));
		u.n--;
		undo_save();
		return;
	}
}

/* Run the undo files of dead owners. Returns the number of files handled. */
static int recover_undo(FILE *out)
{
	journal_paths();
	DIR *d = opendir(g.dir);
	if (!d)
		return 0;
	struct sysroot root;
	bool have_root = sysroot_open(&root, NULL) == 0;
	int done = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		long pid;
		char extra;
		if (sscanf(de->d_name, "undo.%ld%c", &pid, &extra) != 1 || pid <= 0 ||
		    pid == (long)getpid())
			continue;
		char path[PATH_MAX + 300], text[2048];
		snprintf(path, sizeof(path), "%s/%s", g.dir, de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (len < 0)
			continue;
		text[len] = '\0';
		long owner = 0;
		unsigned long long st = 0;
		char purpose[64] = "?";
		char *lines[UNDO_MAX + 4];
		int nl = 0;
		for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save)) {
			if (sscanf(l, "owner %ld %llu", &owner, &st) == 2)
				continue;
			if (strncmp(l, "purpose ", 8) == 0)
				snprintf(purpose, sizeof(purpose), "%s", l + 8);
			else if (strncmp(l, "undo ", 5) == 0 && nl < UNDO_MAX + 4)
				lines[nl++] = l + 5;
		}
		/* its owner still runs and will undo them itself */
		if (have_root && owner > 0 && st && starttime(root.dirfd, owner, NULL, 0) == st)
			continue;
		if (geteuid() != 0) {
			fprintf(out,
				"thpctl: %s holds %d change(s) left by a killed thpctl (%s): run any thpctl command as root to undo them\n",
				path, nl, purpose);
			continue;
		}
		bool all = true;
		for (int i = 0; i < nl; i++) {
			char *tab = strchr(lines[i], '\t');
			int k = tab ? (*tab = '\0', undo_kind(lines[i])) : -1;
			if (k < 0)
				continue;
			int r = undo_kinds[k].run(tab + 1);
			if (r) {
				all = false;
				fprintf(out,
					"thpctl: could not remove %s %s left by a killed thpctl (%s): %s\n",
					undo_kinds[k].what, tab + 1, purpose, strerror(-r));
			} else {
				fprintf(out,
					"thpctl: removed %s %s (left by a killed thpctl: %s)\n",
					undo_kinds[k].what, tab + 1, purpose);
			}
		}
		if (all)
			unlink(path);
		done++;
	}
	closedir(d);
	if (have_root)
		sysroot_close(&root);
	return done;
}

int guard_recover(const struct sysroot *sr, FILE *out)
{
	int r = recover_settings(sr, out);
	recover_undo(out);
	return r;
}
