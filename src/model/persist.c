// SPDX-License-Identifier: MIT
#include "persist.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "../kernel/features.h"
#include "../kernel/thp_settings.h"
#include "../util/units.h"
#include "../util/names.h"

static const char *const names[] = {
	[PERSIST_TMPFILES] = "tmpfiles", [PERSIST_SYSTEMD] = "systemd",
	[PERSIST_CMDLINE] = "cmdline",	 [PERSIST_SYSCTL] = "sysctl",
	[PERSIST_TUNED] = "tuned",
};

int persist_format_parse(const char *s, enum persist_format *f)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (enum persist_format)i;
			return 0;
		}
	return -EINVAL;
}

const char *persist_format_name(enum persist_format f)
{
	return ENUM_NAME(names, f, "?");
}

static const char *const install_rels[] = {[PERSIST_TMPFILES] = "tmpfiles.d/thpctl.conf",
					   [PERSIST_SYSTEMD] = "systemd/system/thpctl-thp.service",
					   [PERSIST_SYSCTL] = "sysctl.d/80-thpctl-hugetlb.conf",
					   [PERSIST_TUNED] =
						   "tuned/" PERSIST_TUNED_PROFILE "/tuned.conf"};

const char *persist_install_rel(enum persist_format f)
{
	return ENUM_NAME(install_rels, f, NULL);
}

static bool safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '+' || c == '.' || c == '-';
}

/* A value a shell line or unit file can carry unquoted: [A-Za-z0-9_+.-], not empty. */
static bool safe_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!safe_char(*s))
			return false;
	return true;
}

static bool safe_key(const char *s)
{
	char tmp[KNOB_KEY_LEN];
	return knob_key_normalize(s, tmp, sizeof(tmp)) == 0 && strcmp(tmp, s) == 0;
}

static void header(FILE *out, const struct persist_in *in, const char *what, enum persist_format f)
{
	fprintf(out, "# %s", what);
	if (in->release && *in->release)
		fprintf(out, " (from kernel %s)", in->release);
	fprintf(out, ", written by thpctl persist --format %s\n", persist_format_name(f));
}

static int render_tmpfiles(FILE *out, const struct persist_in *in)
{
	header(out, in, "THP settings", PERSIST_TMPFILES);
	fprintf(out,
		"# systemd-tmpfiles-setup.service writes them at boot; a file this kernel\n"
		"# lacks is skipped. Apply now: systemd-tmpfiles --create /etc/%s\n",
		persist_install_rel(PERSIST_TMPFILES));
	int w = 0;
	for (int i = 0; i < in->n; i++) {
		if (!safe_key(in->kv[i].key) || !safe_word(in->kv[i].value))
			return -EINVAL;
		fprintf(out, "w %s/%s - - - - %s\n", in->thp_dir, in->kv[i].key, in->kv[i].value);
		w++;
	}
	return w ? 0 : -ENODATA;
}

/* An absolute path a unit's ExecStart= can carry unquoted: "/" then [A-Za-z0-9_+./-]. */
static bool safe_path(const char *s)
{
	if (!s || s[0] != '/')
		return false;
	for (const char *p = s + 1; *p; p++)
		if (*p != '/' && !safe_char(*p))
			return false;
	return true;
}

static int render_systemd(FILE *out, const struct persist_in *in)
{
	header(out, in, "THP settings", PERSIST_SYSTEMD);
	if (!in->n) {
		fputs("# no setting to write: no unit\n", out);
		return -ENODATA;
	}
	if (!safe_path(in->thpctl_path))
		return -EINVAL;
	fprintf(out,
		"# Install as /etc/%s, then enable it:\n"
		"#   systemctl daemon-reload && systemctl enable thpctl-thp.service\n"
		"# One `thpctl set` writes them all or none (journalled, validated first):\n"
		"# a knob this kernel lacks or a value it refuses fails the unit, and\n"
		"# journalctl -u thpctl-thp.service says which.\n"
		"[Unit]\n"
		"Description=Transparent Huge Page settings (thpctl persist)\n"
		"DefaultDependencies=no\n"
		"After=sysinit.target local-fs.target\n"
		"Before=basic.target\n"
		"ConditionPathIsDirectory=%s\n"
		"\n"
		"[Service]\n"
		"Type=oneshot\n"
		"RemainAfterExit=yes\n"
		"ExecStart=%s set --wait",
		persist_install_rel(PERSIST_SYSTEMD), in->thp_dir, in->thpctl_path);
	for (int i = 0; i < in->n; i++) {
		if (!safe_key(in->kv[i].key) || !safe_word(in->kv[i].value))
			return -EINVAL;
		fprintf(out, " \\\n\t%s=%s", in->kv[i].key, in->kv[i].value);
	}
	fprintf(out, "\n\n[Install]\nWantedBy=basic.target\n");
	return 0;
}

bool persist_cmdline_supported(const struct persist_in *in, const char *param)
{
	if (strcmp(param, "transparent_hugepage") == 0)
		return true;		    /* 2.6.38 */
	if (strcmp(param, "thp_anon") == 0) /* 6.12, Ryan Roberts: per-size anon defaults */
		return in->per_size_anon && kver_at_least(in->kver, 6, 12);
	if (strcmp(param, "transparent_hugepage_shmem") == 0) /* 6.13, Maira Canal */
		return kver_at_least(in->kver, 6, 13);
	if (strcmp(param, "thp_shmem") == 0) /* 6.13, same series */
		return in->per_size_shmem && kver_at_least(in->kver, 6, 13);
	return false;
}

/* "hugepages-64kB/enabled" -> 64 and "enabled"; 0 if not a per-size key. */
static uint64_t size_key(const char *key, const char **file)
{
	const char *slash = strchr(key, '/');
	if (!slash || strchr(slash + 1, '/'))
		return 0;
	char dir[KNOB_KEY_LEN];
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - key), key);
	*file = slash + 1;
	return hugepages_dirname_kb(dir);
}

/* "SIZES:POLICY;..." for the per-size FILE ("enabled"/"shmem_enabled") into OUT. Returns the groups or -E2BIG. */
static int per_size_param(const struct persist_in *in, const char *file, char *out, size_t n);

/* Append to BUF (N bytes, *USED so far). Returns false once it no longer fits. */
static bool __attribute__((format(printf, 4, 5)))
app(char *buf, size_t n, size_t *used, const char *fmt, ...)
{
	if (*used >= n)
		return false;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf + *used, n - *used, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= n - *used) {
		*used = n;
		return false;
	}
	*used += (size_t)w;
	return true;
}

static bool in_list(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(v, *list) == 0)
			return true;
	return false;
}

static int per_size_param(const struct persist_in *in, const char *file, char *out, size_t n)
{
	size_t used = 0;
	int groups = 0;
	bool done[PLAN_MAX] = {false};
	out[0] = '\0';
	for (int i = 0; i < in->n && i < PLAN_MAX; i++) {
		const char *f;
		if (done[i] || !size_key(in->kv[i].key, &f) || strcmp(f, file))
			continue;
		/* every size with the same policy, in the order given (by size) */
		bool first = true, fits = app(out, n, &used, "%s", groups ? ";" : "");
		for (int j = i; j < in->n && j < PLAN_MAX; j++) {
			const char *g;
			uint64_t kb = size_key(in->kv[j].key, &g);
			if (done[j] || !kb || strcmp(g, file) ||
			    strcmp(in->kv[j].value, in->kv[i].value))
				continue;
			char sz[24];
			fmt_size_token(sz, sizeof(sz), kb);
			fits = fits && app(out, n, &used, "%s%s", first ? "" : ",", sz);
			first = false;
			done[j] = true;
		}
		if (!fits || !app(out, n, &used, ":%s", in->kv[i].value))
			return -E2BIG;
		groups++;
	}
	return groups;
}

static int render_cmdline(FILE *out, const struct persist_in *in)
{
	static const char *const thp_vals[] = {"always", "madvise", "never", NULL};
	static const char *const shmem_vals[] = {"always", "within_size", "advise", "never",
						 "deny",   "force",	  NULL};
	static const char *const anon_vals[] = {"always", "inherit", "madvise", "never", NULL};
	static const char *const shsz_vals[] = {"always", "inherit", "within_size",
						"advise", "never",   NULL};
	char params[2048] = "", rest[2048] = "", anon[1024], shmem[1024];
	size_t pu = 0, ru = 0;
	bool used[PLAN_MAX] = {false};

	for (int i = 0; i < in->n && i < PLAN_MAX; i++) {
		const char *k = in->kv[i].key, *v = in->kv[i].value, *f;
		if (!safe_word(v))
			return -EINVAL;
		if (strcmp(k, "enabled") == 0 && in_list(v, thp_vals)) {
			app(params, sizeof(params), &pu, "%stransparent_hugepage=%s", pu ? " " : "",
			    v);
			used[i] = true;
		} else if (strcmp(k, "shmem_enabled") == 0 && in_list(v, shmem_vals) &&
			   persist_cmdline_supported(in, "transparent_hugepage_shmem")) {
			app(params, sizeof(params), &pu, "%stransparent_hugepage_shmem=%s",
			    pu ? " " : "", v);
			used[i] = true;
		} else if (size_key(k, &f) && strcmp(f, "enabled") == 0 && in_list(v, anon_vals) &&
			   persist_cmdline_supported(in, "thp_anon")) {
			used[i] = true;
		} else if (size_key(k, &f) && strcmp(f, "shmem_enabled") == 0 &&
			   in_list(v, shsz_vals) && persist_cmdline_supported(in, "thp_shmem")) {
			used[i] = true;
		}
	}
	int na = 0, ns = 0;
	if (persist_cmdline_supported(in, "thp_anon") &&
	    (na = per_size_param(in, "enabled", anon, sizeof(anon))) > 0)
		app(params, sizeof(params), &pu, "%sthp_anon=%s", pu ? " " : "", anon);
	if (persist_cmdline_supported(in, "thp_shmem") &&
	    (ns = per_size_param(in, "shmem_enabled", shmem, sizeof(shmem))) > 0)
		app(params, sizeof(params), &pu, "%sthp_shmem=%s", pu ? " " : "", shmem);
	if (na < 0 || ns < 0 || pu >= sizeof(params))
		return -E2BIG;
	for (int i = 0; i < in->n && i < PLAN_MAX; i++) {
		if (used[i])
			continue;
		if (!app(rest, sizeof(rest), &ru, "%s%s=%s", ru ? " " : "", in->kv[i].key,
			 in->kv[i].value))
			return -E2BIG;
	}

	header(out, in, "Kernel command line for these THP settings", PERSIST_CMDLINE);
	persist_cmdline_howto(out, in->boot, pu ? params : "PARAMETERS");
	fprintf(out, "# Parameters by kernel: transparent_hugepage= always; thp_anon= 6.12+;\n"
		     "# transparent_hugepage_shmem= and thp_shmem= 6.13+ (by release: boot\n"
		     "# parameters cannot be probed).\n");
	if (na > 1 || ns > 1)
		fprintf(out, "# thp_anon=/thp_shmem= hold ';': quote the parameter in grub.cfg.\n");
	if (pu)
		fprintf(out, "%s\n", params);
	if (ru)
		fprintf(out,
			"# no kernel parameter for these on this kernel (use --format tmpfiles or systemd):\n"
			"#   %s\n",
			rest);
	return pu ? 0 : -ENODATA;
}

static int render_sysctl(FILE *out, const struct persist_in *in)
{
	header(out, in, "hugetlb pool of the default huge page size", PERSIST_SYSCTL);
	fprintf(out, "# systemd-sysctl.service applies it at boot. Apply now: sysctl -p /etc/%s\n",
		persist_install_rel(PERSIST_SYSCTL));
	for (int i = 0; i < in->n; i++) {
		if (!safe_word(in->kv[i].value) || !safe_key(in->kv[i].key))
			return -EINVAL;
		fprintf(out, "%s = %s\n", in->kv[i].key, in->kv[i].value);
	}
	for (int i = 0; i < in->npools; i++) {
		char sz[24];
		fmt_size_token(sz, sizeof(sz), in->pools[i].size_kb);
		fprintf(out,
			"# %s pool (%llu pages): no sysctl; kernel command line: hugepagesz=%s hugepages=%llu\n",
			sz, (unsigned long long)in->pools[i].nr, sz,
			(unsigned long long)in->pools[i].nr);
	}
	return in->n ? 0 : -ENODATA;
}

void persist_cmdline_howto(FILE *out, enum boot_tool t, const char *params)
{
	if (t != BOOT_UPDATE_GRUB)
		fprintf(out, "# %s: grubby --update-kernel=ALL --args=\"%s\", then reboot.\n",
			t == BOOT_GRUBBY ? "With grubby (found here)" : "RHEL/Fedora (grubby)",
			params);
	if (t != BOOT_GRUBBY)
		fprintf(out,
			"# %s: add them to GRUB_CMDLINE_LINUX in /etc/default/grub, run update-grub, reboot.\n",
			t == BOOT_UPDATE_GRUB ? "With GRUB (found here)"
					      : "Debian/Ubuntu (update-grub)");
}

int persist_cmdline_routes(enum boot_tool t, const char *params, char out[2][320])
{
	int n = 0;
	if (t != BOOT_UPDATE_GRUB)
		snprintf(out[n++], sizeof(out[0]), "grubby --update-kernel=ALL --args=\"%s\"",
			 params);
	if (t != BOOT_GRUBBY)
		snprintf(out[n++], sizeof(out[0]),
			 "%s in GRUB_CMDLINE_LINUX (/etc/default/grub), then update-grub", params);
	return n;
}

/* A tuned profile name: [A-Za-z0-9_.-]+, not "." or "..", not this profile itself. */
static bool tuned_name(const char *s)
{
	return s && safe_word(s) && strchr(s, '+') == NULL && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0 && strcmp(s, PERSIST_TUNED_PROFILE) != 0;
}

/*
 * tuned's syntax (tuned/plugins/plugin_vm.py, plugin_sysfs.py): "[vm]
 * transparent_hugepages=always|madvise|never" writes transparent_hugepage/
 * enabled (skipped when transparent_hugepage= is on the kernel command line);
 * "[sysfs] PATH=VALUE" writes any file under /sys. "[main] include=PARENT"
 * loads PARENT first, this profile's units override it.
 */
static int render_tuned(FILE *out, const struct persist_in *in)
{
	static const char *const thp_vals[] = {"always", "madvise", "never", NULL};
	if (!tuned_name(in->tuned_parent))
		return -EINVAL;
	header(out, in, "THP settings", PERSIST_TUNED);
	fprintf(out,
		"# A tuned profile: tuned writes these itself at every start and profile\n"
		"# switch, instead of overriding another boot-time setting. Install as\n"
		"# /etc/%s, then: tuned-adm profile %s\n"
		"# It includes %s, whose other tuning stays. tuned skips [vm]\n"
		"# transparent_hugepages when transparent_hugepage= is on the kernel command line.\n",
		persist_install_rel(PERSIST_TUNED), PERSIST_TUNED_PROFILE, in->tuned_parent);
	if (in->tuned_note)
		fprintf(out, "# %s\n", in->tuned_note);
	fprintf(out, "\n[main]\nsummary=THP settings from thpctl persist, over %s\ninclude=%s\n",
		in->tuned_parent, in->tuned_parent);
	int vm = -1, w = 0;
	bool sysfs = false;
	for (int i = 0; i < in->n; i++) {
		if (!safe_key(in->kv[i].key) || !safe_word(in->kv[i].value))
			return -EINVAL;
		if (strcmp(in->kv[i].key, "enabled") == 0 && in_list(in->kv[i].value, thp_vals))
			vm = i;
	}
	if (vm >= 0) {
		fprintf(out, "\n[vm]\ntransparent_hugepages=%s\n", in->kv[vm].value);
		w++;
	}
	for (int i = 0; i < in->n; i++) {
		if (i == vm)
			continue;
		if (!sysfs)
			fputs("\n[sysfs]\n", out);
		sysfs = true;
		fprintf(out, "%s/%s=%s\n", in->thp_dir, in->kv[i].key, in->kv[i].value);
		w++;
	}
	return w ? 0 : -ENODATA;
}

int persist_render(FILE *out, enum persist_format f, const struct persist_in *in)
{
	switch (f) {
	case PERSIST_TMPFILES:
		return render_tmpfiles(out, in);
	case PERSIST_SYSTEMD:
		return render_systemd(out, in);
	case PERSIST_CMDLINE:
		return render_cmdline(out, in);
	case PERSIST_SYSCTL:
		return render_sysctl(out, in);
	case PERSIST_TUNED:
		return render_tuned(out, in);
	}
	return -EINVAL;
}
