// SPDX-License-Identifier: MIT
/* `thpctl snapshot save|restore|diff FILE`: every writable THP knob as JSON. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/sysfs.h"
#include "../render/control.h"
#include "../render/snapshot.h"
#include "../util/buf.h"
#include "../util/esc.h"
#include "../util/fileio.h"
#include "args.h"
#include "common.h"
#include "control.h"

static void snapshot_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl snapshot save FILE [--json]\n"
		"       thpctl snapshot restore FILE [--dry-run] [--json]\n"
		"       thpctl snapshot diff FILE [--json]\n\n"
		"save     write every writable THP knob (top level, khugepaged settings, every\n"
		"         hugepages-<size>kB/ policy; not the counters) with the kernel release\n"
		"         and the date to FILE as JSON ('-': stdout). No root needed.\n"
		"restore  validate FILE's values against this kernel, then write them like\n"
		"         `thpctl set` (journalled; all or nothing). Knobs this kernel does not\n"
		"         have are skipped and listed. Needs root. Exit 1 when nothing in FILE\n"
		"         applies here or a value is not offered by this kernel.\n"
		"diff     knobs whose value in FILE differs from the running kernel's; like\n"
		"         diff(1), exit 1 when there are differences, 0 when there are none,\n"
		"         2 when FILE or the knobs cannot be read.\n\n"
		"options:\n"
		"  --dry-run       restore: print the shell lines, write nothing\n" GLOBAL_HELP);
}

static int current(struct globals *g, struct thp_knobs *k, struct snapshot *s, uint64_t *pmd_nr)
{
	int r = control_read_knobs(g, "snapshot", k, pmd_nr);
	if (r)
		return r;
	memset(s, 0, sizeof(*s));
	int nbad; /* s->bad names them: each verb says what that means for it */
	(void)snapshot_from_knobs(k, s, &nbad);
	if (k->nbad)
		warnx("snapshot: %d file(s) under %s could not be read", k->nbad,
		      thp_dir_host(&g->sr));
	control_kernel_string(g, "osrelease", s->kernel, sizeof(s->kernel));
	control_kernel_string(g, "hostname", s->host, sizeof(s->host));
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(s->date, sizeof(s->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return EXIT_OK;
}

/* Write TEXT to PATH through a temporary file and rename(): never half a snapshot. */
static int write_file(const char *path, const char *text)
{
	if (strcmp(path, "-") == 0)
		return fputs(text, stdout) == EOF ? -EIO : 0;
	int r = cmd_output_path_ok(path); /* not over a device, FIFO or symlink (/dev/full) */
	return r ? r : write_file_atomic(path, text, strlen(text), 0644);
}

static int do_save(struct globals *g, const char *file, const char *shown)
{
	static struct thp_knobs k;
	static struct snapshot s;
	uint64_t pmd_nr;
	int r = current(g, &k, &s, &pmd_nr);
	if (r)
		return r;
	json_t *root = snapshot_to_json(&s);
	char *text = root ? json_dump_text(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(root);
	if (!text) {
		warnx("snapshot: out of memory");
		return EXIT_FAIL;
	}
	size_t l = strlen(text);
	char *full = malloc(l + 2);
	if (!full) {
		free(text);
		warnx("snapshot: out of memory");
		return EXIT_FAIL;
	}
	memcpy(full, text, l);
	full[l] = '\n';
	full[l + 1] = '\0';
	free(text);
	r = write_file(file, full);
	free(full);
	if (r) {
		warnx("snapshot: cannot write %s: %s", shown, path_err_str(r));
		return EXIT_FAIL;
	}
	/* a knob that could not be read is not in the file: restoring it will not set that
	 * knob, so the save is partial (exit 1, the file written with the rest) */
	int done = s.nbad ? EXIT_FAIL : EXIT_OK;
	if (s.nbad)
		warnx("snapshot: partial: %d knob(s) not saved (unreadable), so restoring %s will "
		      "not set them",
		      s.nbad, shown);
	if (strcmp(file, "-") == 0)
		return done;
	if (g->json) {
		json_t *o = json_object(), *u = json_array();
		json_put(o, "file", json_str(file));
		json_put(o, "kernel", json_str(s.kernel));
		json_put(o, "date", json_str(s.date));
		json_put(o, "knobs", json_integer(s.n));
		for (int i = 0; i < s.nbad; i++)
			json_array_append_new(u, json_str(s.bad[i]));
		json_put(o, "unreadable", u);
		json_put(o, "partial", json_boolean(s.nbad > 0));
		int e = cmd_emit_json_as(o, "saved");
		return e ? e : done;
	}
	char kernel[4 * sizeof(s.kernel)];
	printf("saved %d THP knobs of kernel %s to %s\n", s.n,
	       s.kernel[0] ? esc_buf(kernel, sizeof(kernel), s.kernel) : "?", shown);
	return done;
}

/* A snapshot file is a few kB; more is not one */
#define SNAPSHOT_MAX_BYTES (1 << 20)

/* FILE ('-': stdin) into S; SHOWN is FILE escaped, for messages. Returns 0 or an exit code. */
static int load(const char *file, const char *shown, struct snapshot *s)
{
	bool in = strcmp(file, "-") == 0;
	int fd = in ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC);
	struct buf b = {0};
	int r = fd < 0 ? -errno : buf_read_fd(&b, fd, SNAPSHOT_MAX_BYTES, 0);
	if (fd >= 0 && !in)
		close(fd);
	if (r) {
		warnx("snapshot: cannot read %s: %s", shown,
		      r == -EFBIG ? "larger than 1 MiB: not a snapshot" : strerror(-r));
		buf_free(&b);
		return EXIT_FAIL;
	}
	char why[300], shown_why[4 * sizeof(why)];
	json_t *root = snapshot_parse(b.p ? b.p : "", b.len, why, sizeof(why));
	buf_free(&b);
	r = root ? snapshot_from_json(root, s, why, sizeof(why)) : -EINVAL;
	json_decref(root);
	if (r) {
		/* the reason may quote the file's bytes (a key, a value): escaped, '\n' too */
		warnx("snapshot: %s: %s", shown, esc_buf(shown_why, sizeof(shown_why), why));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* The snapshot in FILE into S, the knobs as they are now into K and NOW. Returns 0 or an exit code. */
static int load_with_current(struct globals *g, const char *file, const char *shown,
			     struct snapshot *s, struct thp_knobs *k, struct snapshot *now,
			     uint64_t *pmd_nr)
{
	int r = load(file, shown, s);
	return r ? r : current(g, k, now, pmd_nr);
}

static int do_restore(struct globals *g, const char *file, const char *shown, bool dry)
{
	static struct thp_knobs k;
	static struct snapshot s, now;
	static struct settings_plan p;
	uint64_t pmd_nr;
	int r = load_with_current(g, file, shown, &s, &k, &now, &pmd_nr);
	if (r)
		return r;
	plan_init(&p);
	for (int i = 0; i < s.n; i++)
		plan_add(&p, &k, pmd_nr, s.kv[i].key, s.kv[i].value, true);
	char k1[4 * sizeof(s.kernel)], k2[4 * sizeof(now.kernel)];
	if (!g->json && s.kernel[0] && now.kernel[0] && strcmp(s.kernel, now.kernel))
		fprintf(stderr, "thpctl: snapshot restore: saved on kernel %s, restoring on %s\n",
			esc_buf(k1, sizeof(k1), s.kernel), esc_buf(k2, sizeof(k2), now.kernel));
	if (p.nbad) {
		control_report_notes("snapshot restore", &p, false);
		bool unread = true;
		for (int i = 0; i < p.nbad; i++)
			unread &= p.bad[i].why == PN_UNREADABLE;
		if (unread)
			warnx("snapshot restore: a knob of %s cannot be read here, so its old value "
			      "cannot be journalled: nothing written",
			      shown);
		else
			warnx("snapshot restore: %s has values this kernel does not take: nothing "
			      "written",
			      shown);
		return EXIT_FAIL; /* refused before writing: no document (docs/json.md) */
	}
	if (!p.n) {
		control_report_notes("snapshot restore", &p, true);
		warnx("snapshot restore: nothing in %s applies to this kernel", shown);
		return EXIT_FAIL;
	}
	if (!g->json)
		control_report_notes("snapshot restore", &p, true);
	int done = control_execute(g, "snapshot restore", &p, dry, &r);
	if (done >= 0)
		return done;
	if (r == EXIT_OK || plan_any_failed(&p)) {
		/* only what changed, or the whole list when something failed */
		int same = 0;
		for (int i = 0; i < p.n; i++)
			same += p.e[i].state == PS_UNCHANGED;
		if (r == EXIT_OK && same) {
			static struct settings_plan changed;
			plan_init(&changed);
			for (int i = 0; i < p.n; i++)
				if (p.e[i].state != PS_UNCHANGED)
					changed.e[changed.n++] = p.e[i];
			plan_render_text(stdout, &changed, g->color);
			printf("restored %d knob(s) from %s; %d already as saved%s\n", changed.n,
			       shown, same, p.nskip ? "; some skipped (above)" : "");
		} else {
			plan_render_text(stdout, &p, g->color);
		}
	}
	return r;
}

static int do_diff(struct globals *g, const char *file, const char *shown)
{
	static struct thp_knobs k;
	static struct snapshot s, now;
	static struct snap_diff d[2 * PLAN_MAX];
	uint64_t pmd_nr;
	int r = load_with_current(g, file, shown, &s, &k, &now, &pmd_nr);
	if (r) {
		/* like diff(1): 1 is "they differ", so trouble (FILE unreadable, not a snapshot,
		 * the knobs unreadable here) is 2, said above: no --help hint */
		args_no_hint();
		return EXIT_USAGE;
	}
	int n = snapshot_diff(&s, &now, d, (int)(sizeof(d) / sizeof(d[0])));
	if (now.nbad) { /* in the table as "(unreadable here)" where FILE has them */
		char names[256];
		warnx("snapshot diff: partial: %d knob(s) could not be read here (%s): whether they "
		      "differ is unknown",
		      now.nbad, snapshot_bad_names(&now, names, sizeof(names)));
	}
	if (g->json) {
		r = cmd_emit_json_as(snap_diff_to_json(d, n, file, &s), "diff");
		return r ? r : n > 0 ? EXIT_FAIL : EXIT_OK;
	}
	if (s.kernel[0] && now.kernel[0] && strcmp(s.kernel, now.kernel)) {
		/* the file's kernel and date are the file's bytes: escaped, as its name */
		char k1[4 * sizeof(s.kernel)], k2[4 * sizeof(now.kernel)], dt[4 * sizeof(s.date)];
		printf("%s is of kernel %s (%s); this is %s\n", shown,
		       esc_buf(k1, sizeof(k1), s.kernel), esc_buf(dt, sizeof(dt), s.date),
		       esc_buf(k2, sizeof(k2), now.kernel));
	}
	snap_diff_render_text(stdout, d, n, shown, g->color);
	return n > 0 ? EXIT_FAIL : EXIT_OK; /* like diff(1) */
}

int cmd_snapshot(struct globals *g, int argc, char **argv)
{
	bool dry = false;
	int c = args_dry_run(g, argc, argv, snapshot_help, &dry);
	if (c >= 0)
		return c;
	if (argc - optind != 2) {
		warnx("snapshot: give save, restore or diff, and a FILE");
		args_usage(snapshot_help, "snapshot");
		return EXIT_USAGE;
	}
	const char *verb = argv[optind], *file = argv[optind + 1];
	bool save = strcmp(verb, "save") == 0, restore = strcmp(verb, "restore") == 0,
	     diff = strcmp(verb, "diff") == 0;
	if (!save && !restore && !diff) {
		warnx("snapshot: unknown action '%s' (save, restore or diff)", verb);
		return EXIT_USAGE;
	}
	if (dry && !restore) {
		warnx("snapshot: --dry-run goes with restore");
		return EXIT_USAGE;
	}
	g->raw_out = save; /* save - writes the snapshot to stdout: never wrapped */
	int r = cmd_setup(g);
	if (r)
		return r;
	/* FILE as messages and text show it: an argument may hold any byte (util/esc.h) */
	char *shown = esc_dup(file, 0);
	if (!shown) {
		warnx("snapshot: out of memory");
		return EXIT_FAIL;
	}
	r = save      ? do_save(g, file, shown)
	    : restore ? do_restore(g, file, shown, dry)
		      : do_diff(g, file, shown);
	free(shown);
	return r;
}
