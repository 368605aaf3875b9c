/* SPDX-License-Identifier: MIT */
/*
 * tuned (the TuneD daemon, RHEL/Fedora/SUSE): whether it is there, its active
 * profile, and the THP settings that profile writes when tuned applies it.
 * Pure file checks through the sysroot, nothing spawned:
 *
 *   etc/tuned/active_profile   the profile name(s) `tuned-adm profile` chose
 *                              (several, space-separated, are merged in order)
 *   NAME/tuned.conf            under etc/tuned/profiles/, etc/tuned/,
 *                              usr/lib/tuned/profiles/, usr/lib/tuned/ (the
 *                              first found, as tuned's locator prefers /etc);
 *                              [main] include=PARENT is loaded first and
 *                              overridden by the including profile
 *   run/tuned/tuned.pid        the daemon runs
 *   etc/systemd/system/multi-user.target.wants/tuned.service
 *                              the service is enabled (starts at boot)
 *
 * tuned.conf is an INI file (tuned reads it with Python's ConfigObj): "[unit]"
 * sections, "key=value" lines, '#' comments. The THP settings are tuned's vm
 * plugin, [vm] transparent_hugepages= (alias transparent_hugepage=) and
 * transparent_hugepage.defrag=, and its sysfs plugin, [sysfs] lines
 * "/sys/...=VALUE" (tuned/plugins/plugin_vm.py, plugin_sysfs.py); a section
 * named otherwise takes its plugin from type=, and enabled=false turns it off.
 */
#ifndef THPCTL_TUNED_H
#define THPCTL_TUNED_H

#include <stdbool.h>
#include <stddef.h>

#include "features.h"
#include "sysroot.h"

#define TUNED_NAME_LEN 64
#define TUNED_MAX_SET 32
#define TUNED_MAX_FILES 8 /* profiles read, includes too */
#define TUNED_MAX_DEPTH 4 /* include= levels followed below each active profile */

/* One THP setting a profile writes: KEY relative to transparent_hugepage/ ("enabled", "khugepaged/defrag"). */
struct tuned_setting {
	char key[64];
	char value[64];
	char profile[TUNED_NAME_LEN]; /* the profile whose tuned.conf sets it (after overrides) */
	bool vm; /* from [vm] (tuned skips enabled when the kernel command line sets it) */
};

/* What one tuned.conf says (tuned_conf_parse()). */
struct tuned_conf {
	bool has_include;
	char include[TUNED_NAME_LEN * 2]; /* [main] include=, as written */
	int nset;
	struct tuned_setting set[TUNED_MAX_SET]; /* profile left "" */
	int nother; /* sysfs lines outside transparent_hugepage/ (not THP) */
	int nbad;   /* lines neither a section, a key=value, a comment nor blank */
};

/*
 * Generic INI walk over TEXT: FN(CTX, section, key, value) for each key=value
 * line, key and value trimmed of blanks (a value in matching quotes unquoted),
 * SECTION "" before the first [section]. '#' and ';' start a comment line.
 * Returns the number of lines that are none of these (malformed).
 */
int ini_walk(const char *text, size_t len,
	     void (*fn)(void *ctx, const char *section, const char *key, const char *value),
	     void *ctx);

/* Parse one tuned.conf. Returns 0 (OUT->nbad counts malformed lines). */
int tuned_conf_parse(const char *text, size_t len, struct tuned_conf *out);

struct tuned_state {
	enum tri installed; /* etc/tuned/ or usr/lib/tuned/; a tree without them: unknown */
	bool has_active;    /* etc/tuned/active_profile names a profile */
	char active[128];   /* its names, space-separated */
	enum tri running;   /* run/tuned/tuned.pid; unknown on a tree without run/ */
	enum tri enabled;   /* tuned.service in multi-user.target.wants; unknown: no etc/systemd */
	int nfiles;	    /* profiles read, in load order (includes first) */
	char files[TUNED_MAX_FILES][TUNED_NAME_LEN];
	bool partial;	       /* a profile not found, an include= with a ${variable}, too deep */
	char partial_why[128]; /* the first reason, in words */
	int nset;	       /* THP settings of the merged profile */
	struct tuned_setting set[TUNED_MAX_SET];
};

/*
 * Read tuned's state on SR into OUT (zeroed first). Missing files only leave
 * fields false/unknown. Returns 0.
 */
int tuned_read(const struct sysroot *sr, struct tuned_state *out);

/*
 * The [main] include= of profile NAME's tuned.conf (found as tuned_read()
 * finds it) into OUT: 0, or -ENOENT (no such profile or no include=).
 */
int tuned_profile_include(const struct sysroot *sr, const char *name, char *out, size_t n);

/* Whether S is a profile name tuned accepts: [A-Za-z0-9_.-]+, not "." or ".." (its loader's safe_name). */
bool tuned_profile_name_ok(const char *s);

/* The active profile name(s) from etc/tuned/active_profile into OUT: 0, -ENOENT (absent, empty) or -errno. */
int tuned_active_profile(const struct sysroot *sr, char *out, size_t n);

#endif
