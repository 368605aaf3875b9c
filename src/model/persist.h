/* SPDX-License-Identifier: MIT */
/*
 * `thpctl persist`: the same settings as boot-time configuration. What each
 * format can carry and which values it may hold are decided here; the files
 * themselves are written by render/persist.c. The command decides the values.
 *
 *  tmpfiles  a tmpfiles.d(5) snippet: one "w PATH - - - - VALUE" line per knob
 *            (systemd-tmpfiles-setup.service writes them early at boot; a
 *            file this kernel lacks is skipped by `w`);
 *  systemd   a oneshot unit running `THPCTL set --wait KEY=VALUE...` once:
 *            all or nothing, so a refused knob fails the unit (and is logged);
 *  cmdline   kernel parameters: transparent_hugepage= (always), thp_anon=
 *            (6.12+, per-size anon policy), transparent_hugepage_shmem= and
 *            thp_shmem= (6.13+); a boot parameter cannot be probed by
 *            presence, so these go by the release (and the per-size files);
 *            knobs with no parameter are listed in a comment;
 *  tuned     a tuned profile (/etc/tuned/thpctl/tuned.conf) that includes the
 *            parent profile and adds [vm] transparent_hugepages= and [sysfs]
 *            lines for the other knobs (tuned/plugins/plugin_vm.py and
 *            plugin_sysfs.py: "[vm] transparent_hugepages=never",
 *            "[sysfs] /sys/...=VALUE"), so that tuned writes them itself
 *            instead of overriding them at its next apply;
 *  sysctl    a sysctl.d(5) snippet for the hugetlb pool of the default size
 *            (vm.nr_hugepages, vm.nr_overcommit_hugepages); pools of other
 *            sizes only have kernel parameters, given in a comment.
 */
#ifndef THPCTL_PERSIST_H
#define THPCTL_PERSIST_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/boot_tools.h"
#include "settings_plan.h"

enum persist_format {
	PERSIST_TMPFILES,
	PERSIST_SYSTEMD,
	PERSIST_CMDLINE,
	PERSIST_SYSCTL,
	PERSIST_TUNED,
};

/* "tmpfiles", "systemd", "cmdline", "sysctl", "tuned". Returns 0 or -EINVAL. */
int persist_format_parse(const char *s, enum persist_format *f);
const char *persist_format_name(enum persist_format f);

/* Where --install puts each format, under /etc (NULL: cmdline, nothing to install). */
const char *persist_install_rel(enum persist_format f);

/* The name --install keeps a file it replaces under: PATH then this ("...thpctl.conf.thpctl-old";
 * tmpfiles.d, sysctl.d, systemd and tuned read none of those names). */
#define PERSIST_KEEP_SUFFIX ".thpctl-old"

/* A line of a file: OFF and LEN (without its '\n') in the file's text. */
struct persist_line {
	size_t off, len;
};

/*
 * The lines of OLD[0..OLEN) (a file --install replaces; any bytes) that the new file TEXT
 * does not have: each compared without its leading and trailing blanks, blank lines and
 * comments ('#' or ';' first) left out, in the order of OLD; the first MAX of them into OUT
 * (OUT may be NULL when MAX is 0). Returns how many there are in all.
 */
size_t persist_dropped(const char *old, size_t olen, const char *text, struct persist_line *out,
		       size_t max);

struct persist_pool {
	uint64_t size_kb;
	uint64_t nr;
};

struct persist_in {
	const struct knob_kv *kv; /* THP knobs, or for sysctl the vm.* keys ("vm.nr_hugepages") */
	int n;
	const char *thp_dir;		  /* absolute path of transparent_hugepage/ on the target */
	const char *release;		  /* kernel release for the header, "" unknown */
	int kver[3];			  /* parsed release, {0,0,0} unknown */
	bool per_size_anon;		  /* hugepages-<size>kB/enabled files exist (6.8+) */
	bool per_size_shmem;		  /* hugepages-<size>kB/shmem_enabled files exist (6.11+) */
	const struct persist_pool *pools; /* sysctl: hugetlb pools not of the default size */
	int npools;
	const char *thpctl_path;  /* systemd: the absolute path of thpctl for ExecStart= */
	const char *tuned_parent; /* tuned: the profile to include ([A-Za-z0-9_.-]+) */
	const char *tuned_note;	  /* tuned: a comment line about the parent's choice, or NULL */
	enum boot_tool boot;	  /* cmdline: grubby or update-grub first, or both */
};

/* The tuned profile --format tuned writes (its directory under /etc/tuned). */
#define PERSIST_TUNED_PROFILE "thpctl"

/* Whether this release takes boot parameter NAME ("thp_anon"...), per the table above. */
bool persist_cmdline_supported(const struct persist_in *in, const char *param);

/* A value a shell line or unit file can carry unquoted: [A-Za-z0-9_+.-], not empty. */
bool persist_safe_word(const char *s);
/* A knob key as knob_key_normalize() leaves it. */
bool persist_safe_key(const char *s);
/* An absolute path a unit's ExecStart= can carry unquoted: "/" then [A-Za-z0-9_+./-]. */
bool persist_safe_path(const char *s);
/* A tuned profile name: [A-Za-z0-9_.-]+, not "." or "..", not this profile itself. */
bool persist_tuned_name(const char *s);

/* "hugepages-64kB/enabled" -> 64 and *FILE "enabled"; 0 if KEY is not a per-size key. */
uint64_t persist_size_key(const char *key, const char **file);

/* The boot parameter that carries a setting (render/persist.c writes it). */
enum persist_param {
	PP_NONE,	   /* none on this release: listed in a comment */
	PP_THP,		   /* transparent_hugepage= (enabled) */
	PP_THP_SHMEM,	   /* transparent_hugepage_shmem= (shmem_enabled, 6.13+) */
	PP_THP_ANON,	   /* thp_anon= (hugepages-<size>kB/enabled, 6.12+) */
	PP_THP_SHMEM_SIZE, /* thp_shmem= (hugepages-<size>kB/shmem_enabled, 6.13+) */
};

/*
 * For each of IN's settings, the boot parameter that carries it on IN's
 * release and with its value (OUT[i]). Returns 0, or -EINVAL when a value is
 * not a plain word.
 */
int persist_cmdline_params(const struct persist_in *in, enum persist_param out[PLAN_MAX]);

/* The setting tuned's [vm] transparent_hugepages= carries (enabled=always|madvise|never), -1 none. */
int persist_tuned_vm(const struct persist_in *in);

#endif
