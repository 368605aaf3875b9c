// SPDX-License-Identifier: MIT
/* `thpctl persist --install`: the file written, kept when it replaces another, and reported. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "../util/wrap.h"
#include "persist_int.h"

#define OLD_MAX (1u << 20) /* the old file is read for its lines up to 1 MiB */
#define DROPPED_SHOWN 20   /* its lines the new file lacks, shown in text (all in --json) */

/* mkdir -p for the directories of PATH (/etc exists; a THPCTL_ETC test root may not). */
static int mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* TEXT into D->path: written when there is no file, left when it holds TEXT, else the old
 * file kept as D->keep (refused with -EEXIST when that exists) and replaced. */
static int install(const char *text, struct persist_done *d)
{
	size_t n = strlen(text);
	struct stat st;
	if (lstat(d->path, &st)) {
		if (errno != ENOENT)
			return -errno;
		d->how = PERSIST_WROTE;
		d->keep[0] = '\0'; /* nothing replaced: the undo removes the file */
		int r = mkdirs(d->path);
		return r ? r : write_file_atomic(d->path, text, n, 0644);
	}
	if (lstat(d->keep, &st)) {
		if (errno != ENOENT) /* not known to be there: never told to move it away */
			return -errno;
		d->keep[0] = '\0'; /* no file kept by an earlier --install */
	}
	d->old_err = read_file_at(AT_FDCWD, d->path, &d->old, OLD_MAX);
	if (!d->old_err && d->old.len == n && memcmp(d->old.p ? d->old.p : "", text, n) == 0) {
		d->how = PERSIST_UNCHANGED;
		return 0;
	}
	if (d->keep[0])
		return -EEXIST;
	snprintf(d->keep, sizeof(d->keep), "%s%s", d->path, PERSIST_KEEP_SUFFIX);
	d->how = PERSIST_REPLACED;
	return replace_file_keep(d->path, d->keep, text, n, 0644);
}

int persist_install(enum persist_format fmt, const char *text, struct persist_done *d)
{
	const char *etc = NULL;
#ifdef THPCTL_TEST_HOOKS
	/* THPCTL_ETC: another root for /etc, test builds only (tests/live/control.sh) */
	etc = getenv("THPCTL_ETC");
#endif
	if (!etc || !*etc)
		etc = "/etc";
	int e = -ENAMETOOLONG;
	if (snprintf(d->path, sizeof(d->path), "%s/%s", etc, persist_install_rel(fmt)) <
		    (int)sizeof(d->path) &&
	    snprintf(d->keep, sizeof(d->keep), "%s%s", d->path, PERSIST_KEEP_SUFFIX) <
		    (int)sizeof(d->keep))
		e = install(text, d);
	if (!e)
		return EXIT_OK;
	if (e == -EEXIST)
		warnx("persist: %s holds other settings, and %s still holds the file an earlier "
		      "--install replaced: put that back (mv %s %s) or remove it (rm %s), then "
		      "run this again",
		      d->path, d->keep, d->keep, d->path, d->keep);
	else if (e == -EACCES || e == -EPERM || e == -EROFS)
		warnx("persist: --install needs root (writing %s: %s)", d->path, strerror(-e));
	else
		warnx("persist: cannot write %s: %s", d->path, path_err_str(e));
	d->how = PERSIST_NOT_INSTALLED;
	d->path[0] = d->keep[0] = '\0';
	return EXIT_FAIL;
}

void persist_done_free(struct persist_done *d)
{
	buf_free(&d->old);
}

/* How the file of format F at PATH takes effect: PROSE, and CMD, the command that applies it
 * now ("" when none: cmdline). */
static void apply_hint(char *prose, char *cmd, size_t n, enum persist_format f, const char *path)
{
	static const struct {
		const char *prose, *cmd;
		bool path; /* the command ends with the file */
	} h[] = {
		[PERSIST_TMPFILES] =
			{"applied at every boot by systemd-tmpfiles-setup.service; now",
			 "systemd-tmpfiles --create", true},
		[PERSIST_SYSTEMD] = {"not enabled",
				     "systemctl daemon-reload && systemctl enable --now "
				     "thpctl-thp.service",
				     false},
		[PERSIST_SYSCTL] = {"applied at every boot by systemd-sysctl.service; now",
				    "sysctl -p", true},
		[PERSIST_TUNED] = {"not active", "tuned-adm profile " PERSIST_TUNED_PROFILE, false},
		[PERSIST_CMDLINE] = {"", "", false},
	};
	snprintf(prose, n, "%s", h[f].prose);
	snprintf(cmd, n, "%s%s%s", h[f].cmd, h[f].path ? " " : "", h[f].path ? path : "");
}

/*
 * The shell command that undoes --install of format F at PATH (PARENT: the tuned profile it
 * includes): the file it replaced put back (KEEP, when not ""), else the file removed, and
 * what refers to it first. Nothing is undone on the running kernel: what the file set stays
 * until the next boot.
 */
static void undo_cmd(char *out, size_t n, enum persist_format f, const char *path, const char *keep,
		     const char *parent)
{
	if (keep[0]) {
		snprintf(out, n, "mv %s %s%s", keep, path,
			 f == PERSIST_SYSTEMD ? " && systemctl daemon-reload" : "");
		return;
	}
	switch (f) {
	case PERSIST_TMPFILES:
	case PERSIST_SYSCTL:
		snprintf(out, n, "rm %s", path);
		break;
	case PERSIST_SYSTEMD:
		snprintf(out, n,
			 "systemctl disable thpctl-thp.service; rm %s && systemctl daemon-reload",
			 path);
		break;
	case PERSIST_TUNED: {
		const char *slash = strrchr(path, '/');
		snprintf(out, n, "tuned-adm profile %s && rm %s && rmdir %.*s", parent, path,
			 slash ? (int)(slash - path) : 0, path);
		break;
	}
	case PERSIST_CMDLINE:
		out[0] = '\0';
		break;
	}
}

/* The lines of the old file that TEXT drops (REPLACED, the old file read): how many, and
 * the first MAX of them in *OUT (malloc'd; NULL when none or on ENOMEM). */
static size_t dropped(const struct persist_done *d, const char *text, struct persist_line **out,
		      size_t max)
{
	*out = NULL;
	if (d->how != PERSIST_REPLACED || d->old_err)
		return 0;
	const char *old = d->old.p ? d->old.p : "";
	size_t total = persist_dropped(old, d->old.len, text, NULL, 0);
	size_t k = total < max ? total : max;
	if (k && (*out = calloc(k, sizeof(**out))))
		persist_dropped(old, d->old.len, text, *out, k);
	return total;
}

/* --json: the document of what persist did. */
static int report_json(enum persist_format fmt, const char *text, const struct persist_done *d,
		       const char *hint, const char *undo)
{
	bool inst = d->path[0];
	json_t *o = json_object(), *drop = NULL;
	json_put(o, "format", json_str(persist_format_name(fmt)));
	json_put(o, "text", json_str(text));
	json_put(o, "installed", inst ? json_str(d->path) : NULL);
	json_put(o, "unchanged", inst ? json_boolean(d->how == PERSIST_UNCHANGED) : NULL);
	json_put(o, "replaced", inst ? json_boolean(d->how == PERSIST_REPLACED) : NULL);
	json_put(o, "kept", d->keep[0] ? json_str(d->keep) : NULL);
	if (d->how == PERSIST_REPLACED && !d->old_err) {
		struct persist_line *l;
		size_t n = dropped(d, text, &l, SIZE_MAX);
		drop = json_array();
		for (size_t i = 0; l && i < n; i++)
			json_array_append_new(drop, json_str_n(d->old.p + l[i].off, l[i].len));
		free(l);
	}
	json_put(o, "dropped", drop);
	json_put(o, "apply", inst ? json_str(hint) : NULL);
	json_put(o, "undo", inst ? json_str(undo) : NULL);
	return cmd_emit_json(o);
}

/* Text: the old file kept, and its lines the new one drops. */
static void report_replaced(const struct persist_done *d, const char *text)
{
	if (d->how == PERSIST_UNCHANGED && d->keep[0])
		printf("the file an earlier --install replaced is kept as %s\n", d->keep);
	if (d->how != PERSIST_REPLACED)
		return;
	printf("the file it replaced is kept as %s\n", d->keep);
	if (d->old_err) {
		printf("(the old file could not be read for its lines: %s)\n",
		       path_err_str(d->old_err));
		return;
	}
	struct persist_line *l;
	size_t n = dropped(d, text, &l, DROPPED_SHOWN);
	if (!n)
		printf("the new file has every line of the old one (comments aside)\n");
	else
		printf("lines of the old file that the new one does not have (%zu):\n", n);
	for (size_t i = 0; l && i < n && i < DROPPED_SHOWN; i++) {
		char *line = strndup(d->old.p + l[i].off, l[i].len);
		if (line)
			wrap_put_verbatim(stdout, 2, line);
		free(line);
	}
	if (n > DROPPED_SHOWN)
		printf("  and %zu more, in %s\n", n - DROPPED_SHOWN, d->keep);
	free(l);
}

int persist_report(struct globals *g, enum persist_format fmt, const char *text,
		   const struct persist_done *d, int nsettings, int r, const char *parent)
{
	char prose[PATH_MAX + 128] = "", cmd[PATH_MAX + 128] = "", hint[2 * PATH_MAX + 260] = "";
	char undo[2 * PATH_MAX + 256] = "";
	const char *path = d->path;
	if (path[0]) {
		apply_hint(prose, cmd, sizeof(prose), fmt, path);
		snprintf(hint, sizeof(hint), "%s%s%s", prose, cmd[0] ? ": " : "", cmd);
		undo_cmd(undo, sizeof(undo), fmt, path, d->keep, parent);
	}
	if (g->json) /* failed: no document, the reason is on stderr (docs/json.md) */
		return r ? r : report_json(fmt, text, d, hint, undo);
	if (!path[0]) {
		if (!r)
			fputs(text, stdout);
		return r;
	}
	static const char *const verb[] = {[PERSIST_WROTE] = "wrote",
					   [PERSIST_UNCHANGED] = "unchanged:",
					   [PERSIST_REPLACED] = "replaced"};
	printf("%s %s (%d setting(s))\n", verb[d->how], path, nsettings);
	report_replaced(d, text);
	/* the commands on lines of their own: the stdout filter would break them in prose */
	printf("%s%s\n", prose, cmd[0] ? ":" : "");
	if (cmd[0])
		wrap_put_command(stdout, 2, cmd);
	printf("to undo it, as root (%s):\n",
	       d->keep[0] ? "puts back the file it replaced" : "removes what --install wrote");
	wrap_put_command(stdout, 2, undo);
	return r;
}
