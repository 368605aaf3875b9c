// SPDX-License-Identifier: MIT
/* `thpctl persist`: the boot-time files, written from the plan model/persist.c checks. */
#include "persist.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/units.h"

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
		if (!persist_safe_key(in->kv[i].key) || !persist_safe_word(in->kv[i].value))
			return -EINVAL;
		fprintf(out, "w %s/%s - - - - %s\n", in->thp_dir, in->kv[i].key, in->kv[i].value);
		w++;
	}
	return w ? 0 : -ENODATA;
}

static int render_systemd(FILE *out, const struct persist_in *in)
{
	header(out, in, "THP settings", PERSIST_SYSTEMD);
	if (!in->n) {
		fputs("# no setting to write: no unit\n", out);
		return -ENODATA;
	}
	if (!persist_safe_path(in->thpctl_path))
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
		if (!persist_safe_key(in->kv[i].key) || !persist_safe_word(in->kv[i].value))
			return -EINVAL;
		fprintf(out, " \\\n\t%s=%s", in->kv[i].key, in->kv[i].value);
	}
	fprintf(out, "\n\n[Install]\nWantedBy=basic.target\n");
	return 0;
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

static int per_size_param(const struct persist_in *in, const char *file, char *out, size_t n)
{
	size_t used = 0;
	int groups = 0;
	bool done[PLAN_MAX] = {false};
	out[0] = '\0';
	for (int i = 0; i < in->n && i < PLAN_MAX; i++) {
		const char *f;
		if (done[i] || !persist_size_key(in->kv[i].key, &f) || strcmp(f, file))
			continue;
		/* every size with the same policy, in the order given (by size) */
		bool first = true, fits = app(out, n, &used, "%s", groups ? ";" : "");
		for (int j = i; j < in->n && j < PLAN_MAX; j++) {
			const char *g;
			uint64_t kb = persist_size_key(in->kv[j].key, &g);
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
	char params[2048] = "", rest[2048] = "", anon[1024], shmem[1024];
	size_t pu = 0, ru = 0;
	enum persist_param pp[PLAN_MAX];
	if (persist_cmdline_params(in, pp))
		return -EINVAL;
	for (int i = 0; i < in->n && i < PLAN_MAX; i++) {
		const char *v = in->kv[i].value;
		if (pp[i] == PP_THP)
			app(params, sizeof(params), &pu, "%stransparent_hugepage=%s", pu ? " " : "",
			    v);
		else if (pp[i] == PP_THP_SHMEM)
			app(params, sizeof(params), &pu, "%stransparent_hugepage_shmem=%s",
			    pu ? " " : "", v);
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
		if (pp[i] != PP_NONE)
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
		if (!persist_safe_word(in->kv[i].value) || !persist_safe_key(in->kv[i].key))
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

/*
 * tuned's syntax (tuned/plugins/plugin_vm.py, plugin_sysfs.py): "[vm]
 * transparent_hugepages=always|madvise|never" writes transparent_hugepage/
 * enabled (skipped when transparent_hugepage= is on the kernel command line);
 * "[sysfs] PATH=VALUE" writes any file under /sys. "[main] include=PARENT"
 * loads PARENT first, this profile's units override it.
 */
static int render_tuned(FILE *out, const struct persist_in *in)
{
	if (!persist_tuned_name(in->tuned_parent))
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
	int w = 0;
	bool sysfs = false;
	for (int i = 0; i < in->n; i++)
		if (!persist_safe_key(in->kv[i].key) || !persist_safe_word(in->kv[i].value))
			return -EINVAL;
	int vm = persist_tuned_vm(in);
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
