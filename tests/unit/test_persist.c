// SPDX-License-Identifier: MIT
/* Unit tests: `thpctl persist`: what each format carries (src/model/persist.c) and its text (src/render/persist.c). */
#include "unit.h"

#include "kernel/tuned.h"
#include "model/persist.h"
#include "render/persist.h"

#define DIR "/sys/kernel/mm/transparent_hugepage"

static struct knob_kv kv[16];
static int nkv;

static void put(const char *k, const char *v)
{
	snprintf(kv[nkv].key, sizeof(kv[0].key), "%s", k);
	snprintf(kv[nkv].value, sizeof(kv[0].value), "%s", v);
	nkv++;
}

/* The 6.18 guest's defaults, a few sizes. */
static struct persist_in in_618(void)
{
	nkv = 0;
	put("defrag", "madvise");
	put("enabled", "madvise");
	put("shmem_enabled", "never");
	put("use_zero_page", "1");
	put("khugepaged/max_ptes_none", "511");
	put("hugepages-16kB/enabled", "never");
	put("hugepages-64kB/enabled", "always");
	put("hugepages-64kB/shmem_enabled", "never");
	put("hugepages-1024kB/enabled", "never");
	put("hugepages-2048kB/enabled", "inherit");
	struct persist_in in = {.kv = kv,
				.n = nkv,
				.thp_dir = DIR,
				.release = "6.18.44",
				.kver = {6, 18, 44},
				.per_size_anon = true,
				.per_size_shmem = true,
				.thpctl_path = "/usr/bin/thpctl"};
	return in;
}

/* Render F into a malloc'd string; *RC gets persist_render's value. */
static char *render(enum persist_format f, const struct persist_in *in, int *rc)
{
	struct unit_mem m;
	*rc = persist_render(unit_mem_open(&m), f, in);
	return unit_mem_text(&m);
}

/* render that must succeed. */
static char *render_ok(enum persist_format f, const struct persist_in *in)
{
	int rc;
	char *text = render(f, in, &rc);
	assert_int_equal(rc, 0);
	return text;
}

/* What render returns for F, its text dropped. */
static int render_rc(enum persist_format f, const struct persist_in *in)
{
	int rc;
	free(render(f, in, &rc));
	return rc;
}

/* The lines of TEXT that are not comments or blank. */
static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	for (const char *p = text; p && *p;) {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

static void test_format_names(UNIT_STATE)
{
	enum persist_format f;
	assert_int_equal(persist_format_parse("tmpfiles", &f), 0);
	assert_int_equal(f, PERSIST_TMPFILES);
	assert_int_equal(persist_format_parse("systemd", &f), 0);
	assert_int_equal(persist_format_parse("cmdline", &f), 0);
	assert_int_equal(persist_format_parse("sysctl", &f), 0);
	assert_int_equal(f, PERSIST_SYSCTL);
	assert_int_equal(persist_format_parse("grub", &f), -EINVAL);
	assert_string_equal(persist_install_rel(PERSIST_TMPFILES), "tmpfiles.d/thpctl.conf");
	assert_string_equal(persist_install_rel(PERSIST_SYSTEMD),
			    "systemd/system/thpctl-thp.service");
	assert_null(persist_install_rel(PERSIST_CMDLINE));
	assert_int_equal(persist_format_parse("tuned", &f), 0);
	assert_int_equal(f, PERSIST_TUNED);
	assert_string_equal(persist_format_name(PERSIST_TUNED), "tuned");
	assert_string_equal(persist_install_rel(PERSIST_TUNED), "tuned/thpctl/tuned.conf");
}

static void test_tmpfiles(UNIT_STATE)
{
	struct persist_in in = in_618();
	char *t = render_ok(PERSIST_TMPFILES, &in);
	assert_int_equal(count_lines(t, "w "), in.n);
	assert_non_null(strstr(t, "w " DIR "/enabled - - - - madvise\n"));
	assert_non_null(strstr(t, "w " DIR "/khugepaged/max_ptes_none - - - - 511\n"));
	assert_non_null(strstr(t, "w " DIR "/hugepages-64kB/enabled - - - - always\n"));
	assert_non_null(strstr(t, "6.18.44"));
	free(t);
}

/* One ExecStart= running `thpctl set` with every knob: no '-' prefix, so a refusal fails the unit. */
static void test_systemd_unit(UNIT_STATE)
{
	struct persist_in in = in_618();
	char *t = render_ok(PERSIST_SYSTEMD, &in);
	assert_non_null(strstr(t, "[Unit]\n"));
	assert_non_null(strstr(t, "\n[Service]\nType=oneshot\n"));
	assert_non_null(strstr(t, "\n[Install]\nWantedBy=basic.target\n"));
	assert_int_equal(count_lines(t, "ExecStart="), 1);
	assert_int_equal(count_lines(t, "ExecStart=-"), 0);
	assert_non_null(strstr(t, "\nExecStart=/usr/bin/thpctl set --wait \\\n\tdefrag=madvise \\\n"
				  "\tenabled=madvise \\\n"));
	assert_int_equal(count_lines(t, "\t"), in.n);
	assert_non_null(strstr(t, "\thugepages-2048kB/enabled=inherit\n\n[Install]"));
	assert_null(strstr(t, "/bin/sh"));
	assert_null(strstr(t, "%")); /* no unit specifier by accident */
	free(t);
}

/* The path of thpctl must be absolute and need no quoting in ExecStart=. */
static void test_systemd_unit_path(UNIT_STATE)
{
	struct persist_in in = in_618();
	in.thpctl_path = NULL;
	assert_int_equal(render_rc(PERSIST_SYSTEMD, &in), -EINVAL);
	in.thpctl_path = "thpctl";
	assert_int_equal(render_rc(PERSIST_SYSTEMD, &in), -EINVAL);
	in.thpctl_path = "/opt/my tools/thpctl";
	assert_int_equal(render_rc(PERSIST_SYSTEMD, &in), -EINVAL);
	in.thpctl_path = "/opt/100%/thpctl";
	assert_int_equal(render_rc(PERSIST_SYSTEMD, &in), -EINVAL);
	in.thpctl_path = "/usr/local/bin/thpctl";
	char *t = render_ok(PERSIST_SYSTEMD, &in);
	assert_non_null(strstr(t, "\nExecStart=/usr/local/bin/thpctl set --wait \\\n"));
	free(t);
}

static void test_unsafe_values_refused(UNIT_STATE)
{
	struct persist_in in = in_618();
	snprintf(kv[1].value, sizeof(kv[1].value), "x; rm -rf /");
	assert_int_equal(render_rc(PERSIST_SYSTEMD, &in), -EINVAL);
	assert_int_equal(render_rc(PERSIST_TMPFILES, &in), -EINVAL);
	assert_int_equal(render_rc(PERSIST_CMDLINE, &in), -EINVAL);
	in = in_618();
	snprintf(kv[0].key, sizeof(kv[0].key), "../../../etc/x");
	assert_int_equal(render_rc(PERSIST_TMPFILES, &in), -EINVAL);
}

/* The facts under the cmdline text: which parameter carries each setting, by release. */
static void test_cmdline_params(UNIT_STATE)
{
	struct persist_in in = in_618();
	enum persist_param pp[PLAN_MAX];
	static const enum persist_param want618[] = {
		PP_NONE,     PP_THP,	  PP_THP_SHMEM,	     PP_NONE,	  PP_NONE,
		PP_THP_ANON, PP_THP_ANON, PP_THP_SHMEM_SIZE, PP_THP_ANON, PP_THP_ANON};
	assert_int_equal(persist_cmdline_params(&in, pp), 0);
	for (int i = 0; i < in.n; i++)
		assert_int_equal(pp[i], want618[i]);
	/* 6.12: thp_anon= but no shmem parameters yet */
	in.kver[1] = 12;
	assert_int_equal(persist_cmdline_params(&in, pp), 0);
	assert_int_equal(pp[2], PP_NONE);
	assert_int_equal(pp[5], PP_THP_ANON);
	assert_int_equal(pp[7], PP_NONE);
	assert_int_equal(persist_tuned_vm(&in), 1);
	const char *file;
	assert_int_equal(persist_size_key("hugepages-64kB/shmem_enabled", &file), 64);
	assert_string_equal(file, "shmem_enabled");
	assert_int_equal(persist_size_key("khugepaged/defrag", &file), 0);
	/* a value no boot parameter may carry */
	put("enabled", "al ways");
	in.n = nkv;
	assert_int_equal(persist_cmdline_params(&in, pp), -EINVAL);
}

static void test_cmdline_618(UNIT_STATE)
{
	struct persist_in in = in_618();
	char *t = render_ok(PERSIST_CMDLINE, &in);
	/* one parameter line: everything that has a boot parameter on 6.18 */
	assert_non_null(
		strstr(t, "\ntransparent_hugepage=madvise transparent_hugepage_shmem=never "
			  "thp_anon=16K,1M:never;64K:always;2M:inherit thp_shmem=64K:never\n"));
	/* the rest has none */
	assert_non_null(
		strstr(t, "#   defrag=madvise use_zero_page=1 khugepaged/max_ptes_none=511\n"));
	assert_non_null(strstr(t, "quote"));
	free(t);
}

static void test_cmdline_old_kernels(UNIT_STATE)
{
	struct persist_in in = in_618();
	int rc;
	/* 6.12: thp_anon= yes, the shmem parameters not yet */
	in.kver[1] = 12;
	assert_true(persist_cmdline_supported(&in, "thp_anon"));
	assert_false(persist_cmdline_supported(&in, "thp_shmem"));
	char *t = render_ok(PERSIST_CMDLINE, &in);
	assert_non_null(strstr(t, "\ntransparent_hugepage=madvise thp_anon="));
	assert_null(strstr(t, "\ntransparent_hugepage_shmem"));
	assert_null(strstr(t, "thp_shmem=64K"));
	assert_non_null(strstr(t, "shmem_enabled=never"));
	free(t);
	/* 5.15: only transparent_hugepage= */
	in.kver[0] = 5;
	in.kver[1] = 15;
	in.per_size_anon = in.per_size_shmem = false;
	t = render_ok(PERSIST_CMDLINE, &in);
	assert_non_null(strstr(t, "\ntransparent_hugepage=madvise\n"));
	assert_null(strstr(t, "\nthp_anon"));
	free(t);
	/* an enabled value the boot parameter does not take, nothing else: no data */
	nkv = 0;
	put("defrag", "never");
	in.n = nkv;
	t = render(PERSIST_CMDLINE, &in, &rc);
	assert_int_equal(rc, -ENODATA);
	assert_non_null(strstr(t, "defrag=never"));
	free(t);
	/* unknown release: the per-size parameters are not offered */
	in = in_618();
	memset(in.kver, 0, sizeof(in.kver));
	assert_false(persist_cmdline_supported(&in, "thp_anon"));
	assert_true(persist_cmdline_supported(&in, "transparent_hugepage"));
}

static void test_sysctl(UNIT_STATE)
{
	nkv = 0;
	put("vm.nr_hugepages", "512");
	put("vm.nr_overcommit_hugepages", "0");
	struct persist_pool pools[] = {{1048576, 2}};
	struct persist_in in = {.kv = kv,
				.n = nkv,
				.thp_dir = DIR,
				.release = "6.18.44",
				.pools = pools,
				.npools = 1};
	char *t = render_ok(PERSIST_SYSCTL, &in);
	assert_non_null(strstr(t, "\nvm.nr_hugepages = 512\n"));
	assert_non_null(strstr(t, "\nvm.nr_overcommit_hugepages = 0\n"));
	assert_non_null(strstr(t, "hugepagesz=1G hugepages=2"));
	free(t);
	in.n = 0;
	in.npools = 0;
	assert_int_equal(render_rc(PERSIST_SYSCTL, &in), -ENODATA);
}

static void test_empty(UNIT_STATE)
{
	struct persist_in in = {.kv = kv, .n = 0, .thp_dir = DIR, .release = ""};
	assert_int_equal(render_rc(PERSIST_TMPFILES, &in), -ENODATA);
	assert_int_equal(render_rc(PERSIST_SYSTEMD, &in), -ENODATA);
}

/* The cmdline's how-to: the boot tool found first, both when none was found. */
static void test_cmdline_boot_tools(UNIT_STATE)
{
	struct persist_in in = in_618();
	in.boot = BOOT_GRUBBY;
	char *t = render_ok(PERSIST_CMDLINE, &in);
	assert_non_null(strstr(
		t, "# With grubby (found here): grubby --update-kernel=ALL "
		   "--args=\"transparent_hugepage=madvise transparent_hugepage_shmem=never "));
	assert_null(strstr(t, "update-grub"));
	free(t);
	in.boot = BOOT_UPDATE_GRUB;
	t = render_ok(PERSIST_CMDLINE, &in);
	assert_null(strstr(t, "grubby"));
	assert_non_null(strstr(t, "# With GRUB (found here): add them to GRUB_CMDLINE_LINUX in "
				  "/etc/default/grub, run update-grub, reboot.\n"));
	free(t);
	in.boot = BOOT_UNKNOWN;
	t = render_ok(PERSIST_CMDLINE, &in);
	assert_int_equal(
		count_lines(
			t,
			"# RHEL/Fedora (grubby): grubby --update-kernel=ALL --args=\"transparent_hugepage=madvise "),
		1);
	assert_int_equal(
		count_lines(t, "# Debian/Ubuntu (update-grub): add them to GRUB_CMDLINE_LINUX"), 1);
	free(t);
}

static void test_cmdline_routes(UNIT_STATE)
{
	char r[2][320];
	assert_int_equal(persist_cmdline_routes(BOOT_GRUBBY, "hugepages=8", r), 1);
	assert_string_equal(r[0], "grubby --update-kernel=ALL --args=\"hugepages=8\"");
	assert_int_equal(persist_cmdline_routes(BOOT_UPDATE_GRUB, "hugepages=8", r), 1);
	assert_string_equal(
		r[0], "hugepages=8 in GRUB_CMDLINE_LINUX (/etc/default/grub), then update-grub");
	assert_int_equal(persist_cmdline_routes(BOOT_UNKNOWN, "a=1 b=2", r), 2);
	assert_string_equal(r[0], "grubby --update-kernel=ALL --args=\"a=1 b=2\"");
	assert_string_equal(r[1],
			    "a=1 b=2 in GRUB_CMDLINE_LINUX (/etc/default/grub), then update-grub");
}

/* A tuned profile: include=, [vm] for enabled, [sysfs] for the rest; tuned's parser reads back every value. */
static void test_tuned(UNIT_STATE)
{
	struct persist_in in = in_618();
	in.tuned_parent = "throughput-performance";
	char *t = render_ok(PERSIST_TUNED, &in);
	assert_non_null(strstr(t, "\n[main]\nsummary=THP settings from thpctl persist, over "
				  "throughput-performance\ninclude=throughput-performance\n"));
	assert_non_null(strstr(t, "\n[vm]\ntransparent_hugepages=madvise\n"));
	assert_non_null(
		strstr(t, "\n[sysfs]\n" DIR "/defrag=madvise\n" DIR "/shmem_enabled=never\n"));
	assert_non_null(strstr(t, "\n" DIR "/khugepaged/max_ptes_none=511\n"));
	assert_int_equal(count_lines(t, "[sysfs]"), 1);
	assert_int_equal(count_lines(t, DIR "/"), in.n - 1);
	assert_int_equal(count_lines(t, DIR "/enabled"), 0);
	assert_non_null(strstr(t, "tuned-adm profile thpctl"));
	/* what tuned_read() would see in it: the same settings, include the parent */
	static struct tuned_conf c;
	assert_int_equal(tuned_conf_parse(t, strlen(t), &c), 0);
	assert_int_equal(c.nbad, 0);
	assert_true(c.has_include);
	assert_string_equal(c.include, "throughput-performance");
	assert_int_equal(c.nset, in.n);
	for (int i = 0; i < in.n; i++) {
		int j = 0;
		while (j < c.nset && strcmp(c.set[j].key, kv[i].key) != 0)
			j++;
		assert_true(j < c.nset);
		assert_string_equal(c.set[j].value, kv[i].value);
		assert_int_equal(c.set[j].vm, strcmp(kv[i].key, "enabled") == 0);
	}
	free(t);
}

static void test_tuned_refusals(UNIT_STATE)
{
	struct persist_in in = in_618();
	const char *bad[] = {NULL, "", "a b", "thpctl", "..", "x;y", "p$x"};
	for (size_t i = 0; i < UNIT_LEN(bad); i++) {
		in.tuned_parent = bad[i];
		assert_int_equal(render_rc(PERSIST_TUNED, &in), -EINVAL);
	}
	in.tuned_parent = "balanced";
	snprintf(kv[2].value, sizeof(kv[2].value), "never#x");
	assert_int_equal(render_rc(PERSIST_TUNED, &in), -EINVAL);
	/* no enabled: no [vm] section */
	nkv = 0;
	put("defrag", "defer");
	in.n = nkv;
	char *t = render_ok(PERSIST_TUNED, &in);
	assert_null(strstr(t, "\n[vm]\n"));
	assert_non_null(strstr(t, "\n[sysfs]\n" DIR "/defrag=defer\n"));
	free(t);
	in.n = 0;
	assert_int_equal(render_rc(PERSIST_TUNED, &in), -ENODATA);
}

/* the file --install replaces: the setting lines the new one lacks, comments and blanks aside */
static void test_dropped_lines(UNIT_STATE)
{
	static const char old[] = "# old header\n"
				  "w " DIR "/defrag - - - - defer\n"
				  "\n"
				  "  ; a comment\n"
				  "w " DIR "/khugepaged/defrag - - - - 0\r\n"
				  "w " DIR "/enabled - - - - never   \n"
				  "junk\0bytes";
	static const char text[] = "# new header\nw " DIR "/enabled - - - - never\n";
	struct persist_line l[4];
	size_t olen = sizeof(old) - 1;
	assert_int_equal(persist_dropped(old, olen, text, l, 4), 3);
	assert_int_equal(l[0].len, strlen("w " DIR "/defrag - - - - defer"));
	assert_memory_equal(old + l[0].off, "w " DIR "/defrag - - - - defer", l[0].len);
	/* the "\r" of a CRLF line is not part of it */
	assert_int_equal(l[1].len, strlen("w " DIR "/khugepaged/defrag - - - - 0"));
	assert_memory_equal(old + l[1].off, "w " DIR "/khugepaged/defrag - - - - 0", l[1].len);
	/* the last line, without a '\n' and with a NUL byte in it, whole */
	assert_int_equal(l[2].off, olen - 10);
	assert_int_equal(l[2].len, 10);
	/* counted past MAX, only MAX written; none at all when the new file has them all */
	l[1].len = 99;
	assert_int_equal(persist_dropped(old, olen, text, l, 1), 3);
	assert_int_equal(l[1].len, 99);
	assert_int_equal(persist_dropped(old, olen, text, NULL, 0), 3);
	assert_int_equal(persist_dropped(old, 13, text, NULL, 0), 0); /* the header alone */
	assert_int_equal(persist_dropped(text, strlen(text), text, NULL, 0), 0);
	assert_int_equal(persist_dropped("", 0, text, NULL, 0), 0);
	/* an old file of one line the new file lacks; the new file empty */
	assert_int_equal(persist_dropped("a=1", 3, "", l, 4), 1);
	assert_int_equal(l[0].off, 0);
	assert_int_equal(l[0].len, 3);
}

UNIT_TESTS(test_format_names, test_tmpfiles, test_systemd_unit, test_systemd_unit_path,
	   test_unsafe_values_refused, test_cmdline_618, test_cmdline_params,
	   test_cmdline_old_kernels, test_sysctl, test_empty, test_cmdline_boot_tools, test_tuned,
	   test_tuned_refusals, test_cmdline_routes, test_dropped_lines)
