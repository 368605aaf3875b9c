// SPDX-License-Identifier: MIT
#include "settings_plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../kernel/parse.h"
#include "../kernel/sysfs.h"
#include "../util/names.h"
#include "slot.h"
#include "../util/str.h"

/* 0/1 switches (kstrtoul + "> 1 is EINVAL" or a flag bit in the kernel) */
static const char *const bool_keys[] = {"use_zero_page", "shrink_underused", "khugepaged/defrag"};

static bool is_bool_key(const char *key)
{
	for (size_t i = 0; i < sizeof(bool_keys) / sizeof(bool_keys[0]); i++)
		if (strcmp(key, bool_keys[i]) == 0)
			return true;
	return false;
}

enum knob_kind knob_kind_of(const char *key, const char *raw)
{
	struct choice c;
	if (choice_parse(raw, strlen(raw), &c) == 0)
		return KNOB_CHOICE;
	return is_bool_key(key) ? KNOB_BOOL : KNOB_UINT;
}

int knob_value(const char *raw, char *out, size_t n)
{
	struct choice c;
	if (strchr(raw, '[')) {
		if (choice_parse(raw, strlen(raw), &c))
			return -EINVAL;
		return str_copy_rtrim(out, n, c.selected, strlen(c.selected), "\n ");
	}
	/* no [selection]: every writable THP knob is a choice file (which marks one) or an
	 * unsigned decimal, so anything but digits ("always madvise never", "garbage" in
	 * enabled) is damaged, never a value to save or restore */
	size_t l = strlen(raw);
	while (l && (raw[l - 1] == ' ' || raw[l - 1] == '\n'))
		l--;
	if (!l)
		return -EINVAL;
	for (size_t i = 0; i < l; i++)
		if (raw[i] < '0' || raw[i] > '9')
			return -EINVAL;
	return str_copy_rtrim(out, n, raw, l, "\n ");
}

/* An unsigned decimal: digits only, no sign, no blanks. */
static int parse_dec(const char *s, uint64_t *v)
{
	if (!*s)
		return -EINVAL;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	const char *p = s;
	return parse_u64(&p, s + strlen(s), v);
}

int knob_validate(const char *key, const char *raw, const char *value, uint64_t pmd_nr,
		  struct knob_invalid *why)
{
	memset(why, 0, sizeof(*why));
	str_copy(why->value, sizeof(why->value), value);
	if (!*value) {
		why->kind = KB_EMPTY;
		return -EINVAL;
	}
	if (strlen(value) >= PLAN_VALUE_LEN) {
		why->kind = KB_TOO_LONG;
		return -EINVAL;
	}
	struct choice c;
	if (choice_parse(raw, strlen(raw), &c) == 0) {
		if (choice_offers(&c, value))
			return 0;
		why->kind = KB_NOT_OFFERED;
		for (int i = 0; i < c.noptions; i++) {
			strcat(why->offered, i ? " " : "");
			strcat(why->offered, c.options[i]);
		}
		return -EINVAL;
	}
	uint64_t v, lo = 0, hi = UINT64_MAX;
	enum knob_bad kind = KB_NOT_UINT;
	if (is_bool_key(key)) {
		hi = 1;
		kind = KB_NOT_BOOL;
	} else if (strncmp(key, "khugepaged/max_ptes_", 20) == 0 && pmd_nr) {
		hi = pmd_nr - 1;
		kind = KB_PTES_RANGE;
	} else if (strcmp(key, "khugepaged/pages_to_scan") == 0) {
		lo = 1;
		hi = UINT32_MAX;
		kind = KB_PAGES_TO_SCAN;
	} else if (strcmp(key, "khugepaged/scan_sleep_millisecs") == 0 ||
		   strcmp(key, "khugepaged/alloc_sleep_millisecs") == 0) {
		hi = UINT32_MAX;
		kind = KB_MILLISECS;
	}
	if (parse_dec(value, &v) || v < lo || v > hi) {
		why->kind = kind;
		why->hi = hi;
		return -EINVAL;
	}
	return 0;
}

int knob_key_normalize(const char *key, char *out, size_t n)
{
	key = thp_knob_key(key);
	size_t l = strlen(key);
	if (!l || l >= n || key[0] == '/' || key[l - 1] == '/' || strstr(key, ".."))
		return -EINVAL;
	for (const char *p = key; *p; p++) {
		char ch = *p;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.' ||
		      ch == '+' || ch == '/'))
			return -EINVAL;
	}
	memcpy(out, key, l + 1);
	return 0;
}

static const char *const state_names[] = {
	[PS_PENDING] = "pending",	   [PS_UNCHANGED] = "unchanged",
	[PS_WRITTEN] = "written",	   [PS_FAILED] = "failed",
	[PS_ROLLED_BACK] = "rolled-back",  [PS_NOT_WRITTEN] = "not-written",
	[PS_NOT_PUT_BACK] = "not-put-back"};

const char *plan_state_name(enum plan_state s)
{
	return ENUM_NAME(state_names, s, "?");
}

void plan_init(struct settings_plan *p)
{
	memset(p, 0, sizeof(*p));
}

static struct plan_note *note(struct plan_note *arr, int *cnt, const char *key,
			      enum plan_problem why)
{
	struct plan_note *e = slot_take(arr, cnt, PLAN_MAX, sizeof(*arr));
	if (!e)
		return NULL;
	str_copy(e->key, sizeof(e->key), key);
	e->why = why;
	return e;
}

/* "max_ptes_none" for "khugepaged/max_ptes_none": the knob of K whose last part is NK, or NULL. */
static const char *knob_meant(const struct thp_knobs *k, const char *nk)
{
	size_t l = strlen(nk);
	for (int i = 0; i < k->n; i++) {
		size_t kl = strlen(k->k[i].key);
		if (kl > l && k->k[i].key[kl - l - 1] == '/' &&
		    strcmp(k->k[i].key + kl - l, nk) == 0)
			return k->k[i].key;
	}
	return NULL;
}

/* Whether KEY is "hugepages-SIZE/stats/NAME" of a SIZE K has (its enabled or shmem_enabled). */
static bool stats_of_a_size(const struct thp_knobs *k, const char *key)
{
	const char *st = strstr(key, "/stats/");
	if (strncmp(key, "hugepages-", 10) != 0 || !st || strchr(st + 7, '/') || !st[7])
		return false;
	char dir[KNOB_KEY_LEN];
	snprintf(dir, sizeof(dir), "%.*s/", (int)(st - key), key);
	for (int i = 0; i < k->n; i++)
		if (strncmp(k->k[i].key, dir, strlen(dir)) == 0)
			return true;
	return false;
}

int plan_add(struct settings_plan *p, const struct thp_knobs *k, uint64_t pmd_nr, const char *key,
	     const char *value, bool missing_ok)
{
	char nk[KNOB_KEY_LEN];
	struct knob_invalid why;
	if (knob_key_normalize(key, nk, sizeof(nk))) {
		note(p->bad, &p->nbad, key, PN_NOT_A_KNOB);
		return -EINVAL;
	}
	const struct thp_knob *kn = thp_knobs_find(k, nk);
	if (!kn && thp_knobs_unreadable(k, nk)) { /* there, but its value is unknown */
		note(p->bad, &p->nbad, nk, PN_UNREADABLE);
		return -EIO;
	}
	if (!kn && !missing_ok && stats_of_a_size(k, nk)) {
		/* a per-size counter (hugepages-SIZE/stats/, 6.8+): not read as a knob, read-only */
		note(p->bad, &p->nbad, nk, PN_READ_ONLY);
		return -EACCES;
	}
	if (!kn) {
		if (missing_ok) {
			note(p->skip, &p->nskip, nk, PN_NOT_ON_KERNEL);
		} else if (!k->present) {
			note(p->bad, &p->nbad, nk, PN_NO_THP);
		} else {
			struct plan_note *e = note(p->bad, &p->nbad, nk, PN_NO_SUCH_KNOB);
			const char *meant = knob_meant(k, nk);
			if (e && meant)
				str_copy(e->meant, sizeof(e->meant), meant);
		}
		return -ENOENT;
	}
	char cur[PLAN_VALUE_LEN];
	if (knob_value(kn->raw, cur, sizeof(cur)) == -EINVAL) {
		/* damaged ("always madvise never", no [selection]): its old value is unknown, so it
		 * cannot be journalled, and its words are no value to validate against */
		note(p->bad, &p->nbad, nk, PN_UNREADABLE);
		return -EIO;
	}
	if (!kn->writable) {
		if (missing_ok)
			note(p->skip, &p->nskip, nk, PN_READ_ONLY_HERE);
		else
			note(p->bad, &p->nbad, nk, PN_READ_ONLY);
		return -EACCES;
	}
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->e[i].key, nk) == 0) {
			note(p->bad, &p->nbad, nk, PN_TWICE);
			return -EEXIST;
		}
	if (knob_validate(nk, kn->raw, value, pmd_nr, &why)) {
		struct plan_note *e = note(p->bad, &p->nbad, nk, PN_BAD_VALUE);
		if (e)
			e->bad = why;
		return -EINVAL;
	}
	if (p->n == PLAN_MAX) {
		note(p->bad, &p->nbad, nk, PN_TOO_MANY);
		return -ENOSPC;
	}
	struct plan_entry *e = &p->e[p->n];
	memset(e, 0, sizeof(*e));
	str_copy(e->key, sizeof(e->key), nk);
	if (knob_value(kn->raw, e->old, sizeof(e->old))) {
		note(p->bad, &p->nbad, nk, PN_UNREADABLE);
		return -EINVAL;
	}
	str_copy(e->new, sizeof(e->new), value);
	e->state = strcmp(e->old, e->new) == 0 ? PS_UNCHANGED : PS_PENDING;
	p->n++;
	return 0;
}

int plan_add_arg(struct settings_plan *p, const struct thp_knobs *k, uint64_t pmd_nr,
		 const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg) {
		note(p->bad, &p->nbad, arg, PN_NOT_KEY_VALUE);
		return -EINVAL;
	}
	char key[KNOB_KEY_LEN + 64];
	if ((size_t)(eq - arg) >= sizeof(key)) {
		note(p->bad, &p->nbad, "?", PN_KEY_TOO_LONG);
		return -EINVAL;
	}
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = '\0';
	return plan_add(p, k, pmd_nr, key, eq + 1, false);
}

int plan_changes(const struct settings_plan *p)
{
	int c = 0;
	for (int i = 0; i < p->n; i++)
		c += p->e[i].state == PS_PENDING;
	return c;
}
