// SPDX-License-Identifier: MIT
/* `thpctl persist`: the current (or given) settings as boot-time configuration. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kernel/boot_tools.h"
#include "../kernel/exe.h"
#include "../kernel/features.h"
#include "../kernel/hugetlb.h"
#include "../kernel/kv.h"
#include "../kernel/sysctl.h"
#include "../kernel/sysfs.h"
#include "../kernel/tuned.h"
#include "../render/persist.h"
#include "../render/snapshot.h"
#include "../model/snapshot.h"
#include "../util/fileio.h"
#include "args.h"
#include "common.h"
#include "control.h"
#include "persist_int.h"

static void persist_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl persist [--format tmpfiles|systemd|cmdline|sysctl|tuned]\n"
		"                      [KEY=VALUE...] [--tuned-parent PROFILE] [--install]\n"
		"                      [--json]\n\n"
		"Print the THP settings as configuration applied at every boot: by default the\n"
		"running kernel's writable knobs as they are now; with KEY=VALUE (the names of\n"
		"`thpctl set`, validated the same way) only those.\n\n"
		"formats:\n"
		"  tmpfiles  tmpfiles.d snippet, 'w' lines on the sysfs files (default)\n"
		"  systemd   a oneshot unit running this thpctl's `set --wait KEY=VALUE...`:\n"
		"            all or nothing, a refused knob fails the unit (installed, not\n"
		"            enabled)\n"
		"  cmdline   kernel parameters: transparent_hugepage=, and where supported\n"
		"            thp_anon= (6.12+), transparent_hugepage_shmem= and thp_shmem=\n"
		"            (6.13+); knobs without a parameter are listed; how to add them\n"
		"            with grubby or update-grub (whichever this host has, else both)\n"
		"  sysctl    sysctl.d lines for the hugetlb pool (vm.nr_hugepages,\n"
		"            vm.nr_overcommit_hugepages; KEY=VALUE takes those names)\n"
		"  tuned     a tuned profile 'thpctl': include=PARENT, [vm]\n"
		"            transparent_hugepages= and [sysfs] lines for the other knobs,\n"
		"            so that tuned applies them instead of overriding them\n\n"
		"options:\n"
		"  --tuned-parent PROFILE  the profile the tuned profile includes (default:\n"
		"              the active one from /etc/tuned/active_profile, else balanced)\n"
		"  --install   write it (root): /etc/tmpfiles.d/thpctl.conf,\n"
		"              /etc/systemd/system/thpctl-thp.service,\n"
		"              /etc/sysctl.d/80-thpctl-hugetlb.conf or\n"
		"              /etc/tuned/thpctl/tuned.conf, and say how to apply it and\n"
		"              the command that undoes it; a kernel command line goes in the\n"
		"              boot loader (not installed). A different file there is kept\n"
		"              as FILE.thpctl-old (never over an earlier one: refused) and\n"
		"              the lines the new one drops are listed. A unit is installed\n"
		"              only for a thpctl that root alone can change (it and every\n"
		"              directory above it root's, not group- or other-writable)\n\n"
		"To undo --install (root; the running settings are not put back): when it\n"
		"kept a file, mv FILE.thpctl-old FILE (the unit: then systemctl daemon-reload);\n"
		"else:\n"
		"  tmpfiles  rm /etc/tmpfiles.d/thpctl.conf\n"
		"  systemd   systemctl disable thpctl-thp.service;\n"
		"            rm /etc/systemd/system/thpctl-thp.service && systemctl daemon-reload\n"
		"  sysctl    rm /etc/sysctl.d/80-thpctl-hugetlb.conf\n"
		"  tuned     tuned-adm profile PARENT && rm /etc/tuned/thpctl/tuned.conf &&\n"
		"            rmdir /etc/tuned/thpctl\n" GLOBAL_HELP);
}

enum { OPT_FORMAT = OPT_CMD_BASE, OPT_INSTALL, OPT_TUNED_PARENT };

static const char *const sysctl_keys[] = {"vm.nr_hugepages", "vm.nr_overcommit_hugepages"};

/* "nr_hugepages" or "vm.nr_hugepages" -> the vm.* name, or NULL. */
static const char *sysctl_name(const char *key)
{
	for (size_t i = 0; i < sizeof(sysctl_keys) / sizeof(sysctl_keys[0]); i++)
		if (strcmp(key, sysctl_keys[i]) == 0 || strcmp(key, sysctl_keys[i] + 3) == 0)
			return sysctl_keys[i];
	return NULL;
}

static bool is_uint(const char *s)
{
	if (!*s || strlen(s) > 19)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The sysctl items: KEY=VALUE args, or the current values. Returns EXIT_*. */
static int sysctl_items(struct globals *g, char **args, int nargs, struct knob_kv *kv, int *n,
			struct persist_pool *pools, int *npools)
{
	*n = *npools = 0;
	struct buf b = {0};
	for (int i = 0; i < nargs; i++) {
		const char *eq = strchr(args[i], '=');
		char key[64];
		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - args[i]) : 0, args[i]);
		const char *name = eq ? sysctl_name(key) : NULL;
		if (!name || !is_uint(eq + 1)) {
			warnx("persist: %s: --format sysctl takes vm.nr_hugepages=N and vm.nr_overcommit_hugepages=N",
			      args[i]);
			return EXIT_USAGE;
		}
		for (int j = 0; j < *n; j++)
			if (strcmp(kv[j].key, name) == 0) {
				warnx("persist: %s given twice", name);
				return EXIT_USAGE;
			}
		snprintf(kv[*n].key, sizeof(kv[0].key), "%s", name);
		snprintf(kv[*n].value, sizeof(kv[0].value), "%s", eq + 1);
		(*n)++;
	}
	if (!nargs)
		for (size_t i = 0; i < sizeof(sysctl_keys) / sizeof(sysctl_keys[0]); i++) {
			char v[sizeof(kv[0].value)];
			if (sysctl_read_line(&g->sr, "vm", sysctl_keys[i] + 3, v, sizeof(v)) ||
			    !is_uint(v))
				continue;
			snprintf(kv[*n].key, sizeof(kv[0].key), "%s", sysctl_keys[i]);
			snprintf(kv[*n].value, sizeof(kv[0].value), "%s", v);
			(*n)++;
		}
	/* pools of other sizes: only kernel parameters can make them at boot */
	uint64_t def_kb = 0;
	if (meminfo_get(&g->sr, "Hugepagesize", &def_kb))
		def_kb = 0;
	static struct hugetlb h;
	if (!nargs && hugetlb_read(&g->sr, &h) == 0)
		for (int i = 0; i < h.npools && *npools < 8; i++) {
			const struct hugetlb_pool *p = &h.pools[i];
			if (p->node != -1 || p->size_kb == def_kb || !p->nr.present || !p->nr.v)
				continue;
			pools[*npools].size_kb = p->size_kb;
			pools[*npools].nr = p->nr.v;
			(*npools)++;
		}
	buf_free(&b);
	return EXIT_OK;
}

/* The THP items: validated KEY=VALUE args, or every writable knob as it is. */
static int thp_items(struct globals *g, char **args, int nargs, struct knob_kv *kv, int *n,
		     struct thp_knobs *k)
{
	static struct settings_plan p;
	uint64_t pmd_nr;
	int r = control_read_knobs(g, "persist", k, &pmd_nr);
	if (r)
		return r;
	*n = 0;
	if (!nargs) {
		static struct snapshot s;
		int nbad = 0;
		snapshot_from_knobs(k, &s, &nbad);
		if (s.nbad) { /* nbad counts the same keys */
			/* a config of the rest would not set them at boot, silently: refused, as set
			 * and restore refuse an unreadable knob (exit 1, nothing written or printed) */
			char names[256];
			snapshot_bad_names(&s, names, sizeof(names));
			warnx("persist: %d knob(s) could not be read%s%s%s: a config of the others "
			      "would not set them at boot; run it as root, or name what to persist "
			      "(thpctl persist KEY=VALUE...)",
			      s.nbad, names[0] ? " (" : "", names, names[0] ? ")" : "");
			return EXIT_FAIL;
		}
		for (int i = 0; i < s.n; i++)
			kv[(*n)++] = s.kv[i];
		return EXIT_OK;
	}
	plan_init(&p);
	for (int i = 0; i < nargs; i++)
		plan_add_arg(&p, k, pmd_nr, args[i]);
	if (p.nbad) {
		control_report_notes("persist", &p, false);
		return EXIT_USAGE;
	}
	for (int i = 0; i < p.n; i++) {
		snprintf(kv[*n].key, sizeof(kv[0].key), "%s", p.e[i].key);
		snprintf(kv[*n].value, sizeof(kv[0].value), "%s", p.e[i].new);
		(*n)++;
	}
	return EXIT_OK;
}

/*
 * --install of a unit that runs SELF as root at every boot: refused unless only root can
 * change SELF (util/fileio.h path_root_only(): it and every directory above it owned by
 * root, not writable by group or others). Returns 0 or EXIT_FAIL, the reason on stderr.
 */
static int exe_root_only(const char *self)
{
	char bad[PATH_MAX], why[128];
	struct stat st;
	int e = path_root_only(self, bad, sizeof(bad), &st);
	if (!e)
		return 0;
	if (e != -EPERM)
		snprintf(why, sizeof(why), "cannot be checked (%s)", strerror(-e));
	else if (S_ISLNK(st.st_mode))
		snprintf(why, sizeof(why), "is a symbolic link");
	else if (st.st_uid != 0)
		snprintf(why, sizeof(why), "is owned by uid %u, not root", (unsigned)st.st_uid);
	else
		snprintf(why, sizeof(why), "is writable by %s (mode %04o)",
			 st.st_mode & 002 ? "every user" : "its group",
			 (unsigned)(st.st_mode & 07777));
	warnx("persist: --install of a systemd unit: refused, its ExecStart= would run %s as "
	      "root at every boot, but %s %s, so another user could change what runs; install "
	      "thpctl where only root can change it (make install: /usr/local/bin/thpctl, or "
	      "the distribution's package: /usr/bin/thpctl) and run --install with that one",
	      self, bad, why);
	return EXIT_FAIL;
}

struct popts {
	enum persist_format fmt;
	bool inst;
	const char *parent;
};

/* --format, --install into CTX (struct popts). */
static int persist_opt(int c, const char *arg, void *ctx)
{
	struct popts *o = ctx;
	const struct args_store st[] = {ARGS_FLAG(OPT_INSTALL, &o->inst),
					ARGS_ARG(OPT_TUNED_PARENT, &o->parent)};
	if (c != OPT_FORMAT)
		return args_store(c, arg, st, ARGS_N(st));
	if (persist_format_parse(arg, &o->fmt)) {
		warnx("persist: --format takes tmpfiles, systemd, cmdline, sysctl or tuned");
		return EXIT_USAGE;
	}
	return -1;
}

/* Option checks that need all options, then cmd_setup(). Returns 0 or the exit code. */
static int persist_setup(struct globals *g, const struct popts *o)
{
	if (o->parent && o->fmt != PERSIST_TUNED) {
		warnx("persist: --tuned-parent goes with --format tuned");
		return EXIT_USAGE;
	}
	if (o->parent &&
	    (!tuned_profile_name_ok(o->parent) || strcmp(o->parent, PERSIST_TUNED_PROFILE) == 0)) {
		warnx("persist: --tuned-parent: '%s' is not a tuned profile name ([A-Za-z0-9_.-], not %s itself)",
		      o->parent, PERSIST_TUNED_PROFILE);
		return EXIT_USAGE;
	}
	if (o->inst && g->sysroot_dir) {
		warnx("persist: --install writes this host's /etc: not with --sysroot");
		return EXIT_USAGE;
	}
	int r = cmd_setup(g);
	if (r)
		return r;
	if (o->inst && o->fmt == PERSIST_CMDLINE) {
		warnx("persist: a kernel command line is set in the boot loader, not installed:");
		persist_cmdline_howto(stderr, boot_tool_detect(&g->sr), "PARAMETERS");
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * The profile --format tuned includes: --tuned-parent, else the active one
 * (etc/tuned/active_profile; when that is thpctl's own profile, what it
 * includes), else "balanced". NOTE says how it was chosen when not given.
 */
static void tuned_parent(struct globals *g, const char *given, char *out, size_t n, char *note,
			 size_t nn)
{
	note[0] = '\0';
	if (given) {
		snprintf(out, n, "%s", given);
		return;
	}
	char active[128], first[128] = "";
	if (tuned_active_profile(&g->sr, active, sizeof(active)) == 0) {
		/* several profiles are merged in order: the first that is not this one */
		char tmp[sizeof(active)], names[sizeof(active)] = "";
		int bad = 0;
		snprintf(tmp, sizeof(tmp), "%s", active);
		/* the file's bytes reach the terminal and tuned.conf's comment: only the words
		 * that are profile names are quoted, the others counted */
		for (char *save = NULL, *w = strtok_r(tmp, " \t", &save); w;
		     w = strtok_r(NULL, " \t", &save)) {
			if (!tuned_profile_name_ok(w)) {
				bad++;
				continue;
			}
			size_t l = strlen(names);
			snprintf(names + l, sizeof(names) - l, "%s%s", l ? " " : "", w);
			if (!first[0] && strcmp(w, PERSIST_TUNED_PROFILE) != 0)
				snprintf(first, sizeof(first), "%s", w);
		}
		if (first[0]) {
			snprintf(out, n, "%s", first);
			snprintf(note, nn,
				 "the parent is %s, from /etc/tuned/active_profile (%s%s)", first,
				 names, bad ? "; words that are no profile name left out" : "");
			return;
		}
		if (tuned_profile_include(&g->sr, PERSIST_TUNED_PROFILE, out, n) == 0 &&
		    tuned_profile_name_ok(out) && strcmp(out, PERSIST_TUNED_PROFILE) != 0) {
			snprintf(note, nn, "the parent is the one the active %s profile includes",
				 PERSIST_TUNED_PROFILE);
			return;
		}
	}
	snprintf(out, n, "balanced");
	snprintf(
		note, nn,
		"no active tuned profile found: the parent is balanced (--tuned-parent to choose)");
}

int cmd_persist(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS,
		{"format", required_argument, NULL, OPT_FORMAT},
		{"install", no_argument, NULL, OPT_INSTALL},
		{"tuned-parent", required_argument, NULL, OPT_TUNED_PARENT},
		{NULL, 0, NULL, 0},
	};
	struct popts o = {.fmt = PERSIST_TMPFILES};
	int c = args_getopt(g, argc, argv, "h", opts, persist_help, persist_opt, &o);
	if (c >= 0)
		return c;
	enum persist_format fmt = o.fmt;
	bool inst = o.inst;
	int r = persist_setup(g, &o);
	if (r)
		return r;
	static struct knob_kv kv[PLAN_MAX];
	static struct thp_knobs k;
	struct persist_pool pools[8];
	struct persist_in in = {.kv = kv, .thp_dir = thp_dir_host(&g->sr), .pools = pools};
	char release[96], self[PATH_MAX];
	if (fmt == PERSIST_SYSTEMD) {
		int e = exe_self_path(self, sizeof(self));
		if (e) {
			warnx("persist: cannot find this thpctl's path for ExecStart=: %s",
			      strerror(-e));
			return EXIT_FAIL;
		}
		in.thpctl_path = self;
		if (inst && (r = exe_root_only(self)))
			return r;
	}
	if (fmt == PERSIST_SYSCTL)
		r = sysctl_items(g, argv + optind, argc - optind, kv, &in.n, pools, &in.npools);
	else
		r = thp_items(g, argv + optind, argc - optind, kv, &in.n, &k);
	if (r)
		return r;
	char parent[128], note[192];
	if (fmt == PERSIST_TUNED) {
		tuned_parent(g, o.parent, parent, sizeof(parent), note, sizeof(note));
		in.tuned_parent = parent;
		in.tuned_note = note[0] ? note : NULL;
	}
	in.boot = boot_tool_detect(&g->sr);
	control_kernel_string(g, "osrelease", release, sizeof(release));
	in.release = release;
	if (kernel_version_parse(release, in.kver))
		memset(in.kver, 0, sizeof(in.kver));
	for (int i = 0; i < k.n; i++) {
		const char *slash = strchr(k.k[i].key, '/');
		if (slash && strncmp(k.k[i].key, "hugepages-", 10) == 0) {
			in.per_size_anon |= strcmp(slash + 1, "enabled") == 0;
			in.per_size_shmem |= strcmp(slash + 1, "shmem_enabled") == 0;
		}
	}

	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		warnx("persist: out of memory");
		return EXIT_FAIL;
	}
	int pr = persist_render(m, fmt, &in);
	if (fclose(m) || !text) {
		free(text);
		warnx("persist: out of memory");
		return EXIT_FAIL;
	}
	if (pr == -EINVAL || pr == -E2BIG) {
		warnx("persist: cannot express these values as %s: %s", persist_format_name(fmt),
		      strerror(-pr));
		free(text);
		return EXIT_FAIL;
	}
	static struct persist_done done;
	if (pr == -ENODATA) {
		if (!g->json)
			fputs(text, stdout);
		warnx("persist: nothing to persist as %s", persist_format_name(fmt));
		inst = false;
		r = EXIT_FAIL;
	} else if (inst) {
		r = persist_install(fmt, text, &done);
	}
	r = persist_report(g, fmt, text, &done, in.n, r, fmt == PERSIST_TUNED ? parent : NULL);
	persist_done_free(&done);
	free(text);
	return r;
}
