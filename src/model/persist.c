// SPDX-License-Identifier: MIT
#include "persist.h"

#include <errno.h>
#include <string.h>

#include "../kernel/features.h"
#include "../kernel/parse.h"
#include "../kernel/thp_settings.h"
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

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next line of [*POS, END) without its leading and trailing blanks: [*L, *L_END). */
static bool trimmed_line(const char **pos, const char *end, const char **l, const char **l_end)
{
	if (!next_line(pos, end, l, l_end))
		return false;
	while (*l < *l_end && blank(**l))
		(*l)++;
	while (*l_end > *l && blank((*l_end)[-1]))
		(*l_end)--;
	return true;
}

/* Whether TEXT has the line [L, L_END) (compared as persist_dropped() says). */
static bool has_line(const char *text, const char *l, const char *l_end)
{
	const char *pos = text, *end = text + strlen(text), *t, *t_end;
	while (trimmed_line(&pos, end, &t, &t_end))
		if (t_end - t == l_end - l && memcmp(t, l, (size_t)(l_end - l)) == 0)
			return true;
	return false;
}

size_t persist_dropped(const char *old, size_t olen, const char *text, struct persist_line *out,
		       size_t max)
{
	size_t total = 0;
	const char *pos = old, *l, *l_end;
	while (trimmed_line(&pos, old + olen, &l, &l_end)) {
		if (l == l_end || *l == '#' || *l == ';' || has_line(text, l, l_end))
			continue;
		if (total < max)
			out[total] = (struct persist_line){.off = (size_t)(l - old),
							   .len = (size_t)(l_end - l)};
		total++;
	}
	return total;
}

static bool safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '+' || c == '.' || c == '-';
}

/* A value a shell line or unit file can carry unquoted: [A-Za-z0-9_+.-], not empty. */
bool persist_safe_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!safe_char(*s))
			return false;
	return true;
}

bool persist_safe_key(const char *s)
{
	char tmp[KNOB_KEY_LEN];
	return knob_key_normalize(s, tmp, sizeof(tmp)) == 0 && strcmp(tmp, s) == 0;
}

/* An absolute path a unit's ExecStart= can carry unquoted: "/" then [A-Za-z0-9_+./-]. */
bool persist_safe_path(const char *s)
{
	if (!s || s[0] != '/')
		return false;
	for (const char *p = s + 1; *p; p++)
		if (*p != '/' && !safe_char(*p))
			return false;
	return true;
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
uint64_t persist_size_key(const char *key, const char **file)
{
	const char *slash = strchr(key, '/');
	if (!slash || strchr(slash + 1, '/'))
		return 0;
	char dir[KNOB_KEY_LEN];
	size_t l = (size_t)(slash - key);
	if (l >= sizeof(dir))
		return 0;
	memcpy(dir, key, l);
	dir[l] = '\0';
	*file = slash + 1;
	return hugepages_dirname_kb(dir);
}

static bool in_list(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(v, *list) == 0)
			return true;
	return false;
}

/* A tuned profile name: [A-Za-z0-9_.-]+, not "." or "..", not this profile itself. */
bool persist_tuned_name(const char *s)
{
	return s && persist_safe_word(s) && strchr(s, '+') == NULL && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0 && strcmp(s, PERSIST_TUNED_PROFILE) != 0;
}

int persist_cmdline_params(const struct persist_in *in, enum persist_param out[PLAN_MAX])
{
	static const char *const thp_vals[] = {"always", "madvise", "never", NULL};
	static const char *const shmem_vals[] = {"always", "within_size", "advise", "never",
						 "deny",   "force",	  NULL};
	static const char *const anon_vals[] = {"always", "inherit", "madvise", "never", NULL};
	static const char *const shsz_vals[] = {"always", "inherit", "within_size",
						"advise", "never",   NULL};
	for (int i = 0; i < in->n && i < PLAN_MAX; i++) {
		const char *k = in->kv[i].key, *v = in->kv[i].value, *f;
		out[i] = PP_NONE;
		if (!persist_safe_word(v))
			return -EINVAL;
		if (strcmp(k, "enabled") == 0 && in_list(v, thp_vals))
			out[i] = PP_THP;
		else if (strcmp(k, "shmem_enabled") == 0 && in_list(v, shmem_vals) &&
			 persist_cmdline_supported(in, "transparent_hugepage_shmem"))
			out[i] = PP_THP_SHMEM;
		else if (persist_size_key(k, &f) && strcmp(f, "enabled") == 0 &&
			 in_list(v, anon_vals) && persist_cmdline_supported(in, "thp_anon"))
			out[i] = PP_THP_ANON;
		else if (persist_size_key(k, &f) && strcmp(f, "shmem_enabled") == 0 &&
			 in_list(v, shsz_vals) && persist_cmdline_supported(in, "thp_shmem"))
			out[i] = PP_THP_SHMEM_SIZE;
	}
	return 0;
}

int persist_tuned_vm(const struct persist_in *in)
{
	static const char *const thp_vals[] = {"always", "madvise", "never", NULL};
	int vm = -1;
	for (int i = 0; i < in->n; i++)
		if (strcmp(in->kv[i].key, "enabled") == 0 && in_list(in->kv[i].value, thp_vals))
			vm = i;
	return vm;
}
