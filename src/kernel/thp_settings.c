// SPDX-License-Identifier: MIT
#include "thp_settings.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "../util/names.h"
#include "../util/num.h"
#include "../util/wide.h"

static const char *const khp_names[KHP_NKNOBS] = {
	[KHP_DEFRAG] = "defrag",
	[KHP_PAGES_TO_SCAN] = "pages_to_scan",
	[KHP_SCAN_SLEEP_MS] = "scan_sleep_millisecs",
	[KHP_ALLOC_SLEEP_MS] = "alloc_sleep_millisecs",
	[KHP_MAX_PTES_NONE] = "max_ptes_none",
	[KHP_MAX_PTES_SWAP] = "max_ptes_swap",
	[KHP_MAX_PTES_SHARED] = "max_ptes_shared",
	[KHP_PAGES_COLLAPSED] = "pages_collapsed",
	[KHP_FULL_SCANS] = "full_scans",
};

const char *khp_knob_name(enum khp_knob k)
{
	return ENUM_NAME(khp_names, k, "?");
}

bool khp_knob_is_counter(enum khp_knob k)
{
	return k == KHP_PAGES_COLLAPSED || k == KHP_FULL_SCANS;
}

/* Top-level files this tool knows; any other regular file is kept as "extra". */
static const char *const known_top[] = {"enabled",	 "defrag",	   "shmem_enabled",
					"use_zero_page", "hpage_pmd_size", "shrink_underused"};

/*
 * sysroot_read() of a file under transparent_hugepage/: an error other than
 * "missing" (a knob this kernel lacks) is counted in S. Returns sysroot_read's value.
 */
static int read_knob(const struct sysroot *sr, struct buf *b, const char *rel,
		     struct thp_settings *s)
{
	int r = sysroot_read(sr, rel, b);
	if (r && r != -ENOENT && r != -ENOMEM && s) {
		if (!s->nunread++) {
			const char *mm = strstr(rel, "transparent_hugepage");
			snprintf(s->unread, sizeof(s->unread), "%s", mm ? mm : rel);
			s->unread_err = r;
		}
	}
	return r;
}

static void read_choice(const struct sysroot *sr, struct buf *b, const char *rel, struct choice *c,
			int *nbad, struct thp_settings *s)
{
	memset(c, 0, sizeof(*c));
	if (read_knob(sr, b, rel, s))
		return;
	/* cut (no final newline: the kernel always writes one) is damage, like a bad word */
	if (!b->len || b->p[b->len - 1] != '\n' || choice_parse(b->p, b->len, c)) {
		memset(c, 0, sizeof(*c));
		(*nbad)++;
	}
}

static void read_u64(const struct sysroot *sr, struct buf *b, const char *rel, struct opt_u64 *o,
		     struct thp_settings *s)
{
	o->present = false;
	if (read_knob(sr, b, rel, s))
		return;
	if (sysfs_u64_parse(b->p, b->len, &o->v) == 0)
		o->present = true;
	else
		s->nbad++;
}

/*
 * khugepaged/defrag: 0 or 1 since 2.6.38; RHEL 6's 2.6.32 prints a choice,
 * "[yes] no" (or the bare word): yes is 1, no is 0.
 */
static void read_yes_no(const struct sysroot *sr, struct buf *b, const char *rel, struct opt_u64 *o,
			struct thp_settings *s)
{
	o->present = false;
	if (read_knob(sr, b, rel, s))
		return;
	struct choice c;
	const char *w = NULL;
	if (sysfs_u64_parse(b->p, b->len, &o->v) == 0) {
		o->present = o->v <= 1;
	} else if (choice_parse(b->p, b->len, &c) == 0) {
		w = c.selected;
	} else {
		size_t n = b->len;
		while (n && (b->p[n - 1] == '\n' || b->p[n - 1] == ' '))
			n--;
		w = (n == 3 && !memcmp(b->p, "yes", 3))	 ? "yes"
		    : (n == 2 && !memcmp(b->p, "no", 2)) ? "no"
							 : NULL;
	}
	if (w && (!strcmp(w, "yes") || !strcmp(w, "no"))) {
		o->v = !strcmp(w, "yes");
		o->present = true;
	}
	if (!o->present)
		s->nbad++;
}

static int read_stats(const struct sysroot *sr, struct buf *b, const char *dir, struct thp_size *sz,
		      struct thp_settings *s)
{
	int *nbad = &s->nbad;
	struct sr_dirlist dl;
	int ret = sysroot_listdir(sr, dir, &dl);
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	sz->has_stats = true;
	/* DIR/ once, each name after it (no printf: a scrape reads some 170 stats files) */
	char rel[PATH_MAX];
	size_t dl_len = strlen(dir);
	if (dl_len + 2 > sizeof(rel)) {
		sysroot_dirlist_free(&dl);
		return 0;
	}
	memcpy(rel, dir, dl_len);
	rel[dl_len++] = '/';
	const char *name = dl.names;
	for (size_t i = 0; i < dl.n; i++, name += strlen(name) + 1) {
		if (name[0] == '.')
			continue;
		size_t nl = strlen(name);
		if (dl_len + nl >= sizeof(rel)) {
			(*nbad)++;
			continue;
		}
		memcpy(rel + dl_len, name, nl + 1);
		uint64_t v;
		/* a counter's name is a JSON key and a word in sentences: the kernel's are [a-z_] */
		bool named = true;
		for (const char *c = name; *c; c++)
			named &= *c > 0x20 && *c < 0x7f;
		if (!named) {
			(*nbad)++;
			continue;
		}
		if (read_knob(sr, b, rel, s))
			continue;
		if (sysfs_u64_parse(b->p, b->len, &v)) {
			(*nbad)++;
			continue;
		}
		if (kvlist_add(&sz->stats, name, strlen(name), v) == -ENOMEM) {
			ret = -ENOMEM;
			break;
		}
	}
	sysroot_dirlist_free(&dl);
	return ret;
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->name, ((const struct kv *)b)->name);
}

static int cmp_size(const void *a, const void *b)
{
	const struct thp_size *x = a, *y = b;
	return x->size_kb < y->size_kb ? -1 : x->size_kb > y->size_kb;
}

static const char *resolve(const struct choice *c, const struct choice *top)
{
	if (!c->present)
		return NULL;
	if (strcmp(c->selected, "inherit") == 0)
		return top->present ? top->selected : NULL;
	return c->selected;
}

static bool is_known_top(const char *name)
{
	for (size_t i = 0; i < sizeof(known_top) / sizeof(known_top[0]); i++)
		if (strcmp(name, known_top[i]) == 0)
			return true;
	return false;
}

int thp_settings_read(const struct sysroot *sr, long page_size, struct thp_settings *s)
{
	return thp_settings_read_opts(sr, page_size, s, 0);
}

int thp_settings_read_opts(const struct sysroot *sr, long page_size, struct thp_settings *s,
			   unsigned opts)
{
	memset(s, 0, sizeof(*s));
	s->dir = sr->rhel_thp ? "/" SR_THP_RHEL6 : PATH_THP;
	struct sr_dirlist dl;
	int lr = sysroot_listdir(sr, SR_THP, &dl);
	if (lr)
		return lr == -ENOMEM ? lr : 0;
	s->present = true;
	struct buf b = {0};
	int ret = 0;

	read_choice(sr, &b, SR_THP "/enabled", &s->enabled, &s->nbad, s);
	read_choice(sr, &b, SR_THP "/defrag", &s->defrag, &s->nbad, s);
	read_choice(sr, &b, SR_THP "/shmem_enabled", &s->shmem_enabled, &s->nbad, s);
	read_u64(sr, &b, SR_THP "/use_zero_page", &s->use_zero_page, s);
	read_u64(sr, &b, SR_THP "/hpage_pmd_size", &s->hpage_pmd_size, s);
	/* a PMD is a power of two above the base page: "209715" is a cut "2097152" */
	uint64_t pmd = s->hpage_pmd_size.v;
	if (s->hpage_pmd_size.present &&
	    (log2_exact(pmd) < 0 || pmd <= (uint64_t)(page_size > 0 ? page_size : 4096))) {
		s->hpage_pmd_size.present = false;
		s->nbad++;
	}
	read_u64(sr, &b, SR_THP "/shrink_underused", &s->shrink_underused, s);
	for (int k = 0; k < KHP_NKNOBS; k++) {
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), SR_THP "/khugepaged/%s", khp_names[k]);
		if (k == KHP_DEFRAG)
			read_yes_no(sr, &b, rel, &s->khp[k], s);
		else
			read_u64(sr, &b, rel, &s->khp[k], s);
	}
	s->write_err =
		opts & THP_NO_WRITE_PROBE ? -ENODATA : sysroot_writable(sr, SR_THP "/enabled");

	const char *name = dl.names;
	for (size_t i = 0; i < dl.n; i++, name += strlen(name) + 1) {
		if (name[0] == '.')
			continue;
		uint64_t kb = hugepages_dirname_kb(name);
		char dir[PATH_MAX], rel[PATH_MAX];
		snprintf(dir, sizeof(dir), SR_THP "/%s", name);
		if (kb) {
			if (s->nsizes == THP_MAX_SIZES) {
				s->nbad++; /* more sizes than we keep: say partial */
				continue;
			}
			struct thp_size *sz = &s->sizes[s->nsizes++];
			sz->size_kb = kb;
			uint64_t bytes; /* a directory name's size: any u64 of kB */
			sz->order = page_size > 0 && mul_u64(kb, 1024, &bytes)
					    ? log2_exact(bytes / (uint64_t)page_size)
					    : -1;
			snprintf(rel, sizeof(rel), "%s/enabled", dir);
			read_choice(sr, &b, rel, &sz->enabled, &s->nbad, s);
			snprintf(rel, sizeof(rel), "%s/shmem_enabled", dir);
			read_choice(sr, &b, rel, &sz->shmem_enabled, &s->nbad, s);
			snprintf(rel, sizeof(rel), "%s/stats", dir);
			if (read_stats(sr, &b, rel, sz, s)) {
				ret = -ENOMEM;
				break;
			}
			if (sz->stats.n)
				qsort(sz->stats.items, sz->stats.n, sizeof(struct kv), cmp_kv);
			continue;
		}
		if (is_known_top(name) || strcmp(name, "khugepaged") == 0)
			continue;
		struct stat st;
		if (dl.types[i] != DT_REG &&
		    (dl.types[i] != DT_UNKNOWN || sysroot_stat(sr, dir, &st, true) ||
		     !S_ISREG(st.st_mode)))
			continue;
		if (s->nextra == THP_MAX_EXTRA || read_knob(sr, &b, dir, s))
			continue;
		struct thp_extra *x = &s->extra[s->nextra++];
		snprintf(x->name, sizeof(x->name), "%s", name);
		size_t n = b.len;
		while (n && (b.p[n - 1] == '\n' || b.p[n - 1] == ' '))
			n--;
		if (n >= sizeof(x->value))
			n = sizeof(x->value) - 1;
		memcpy(x->value, b.p, n);
		x->value[n] = '\0';
	}
	sysroot_dirlist_free(&dl);
	buf_free(&b);
	qsort(s->sizes, (size_t)s->nsizes, sizeof(s->sizes[0]), cmp_size);
	for (int i = 0; i < s->nsizes; i++) {
		s->sizes[i].eff_enabled = resolve(&s->sizes[i].enabled, &s->enabled);
		s->sizes[i].eff_shmem = resolve(&s->sizes[i].shmem_enabled, &s->shmem_enabled);
	}
	/* extras in name order so output is stable */
	for (int i = 1; i < s->nextra; i++)
		for (int j = i; j > 0 && strcmp(s->extra[j - 1].name, s->extra[j].name) > 0; j--) {
			struct thp_extra t = s->extra[j];
			s->extra[j] = s->extra[j - 1];
			s->extra[j - 1] = t;
		}
	return ret;
}

void thp_settings_free(struct thp_settings *s)
{
	for (int i = 0; i < s->nsizes; i++)
		kvlist_free(&s->sizes[i].stats);
}

const struct thp_size *thp_size_find(const struct thp_settings *s, uint64_t size_kb)
{
	for (int i = 0; i < s->nsizes; i++)
		if (s->sizes[i].size_kb == size_kb)
			return &s->sizes[i];
	return NULL;
}

int thp_pmd_policy(const struct sysroot *sr, char *out, size_t n)
{
	struct buf b = {0};
	struct choice top, sz;
	uint64_t pmd = 0;
	int nbad = 0, ret = 0;
	read_choice(sr, &b, SR_THP "/enabled", &top, &nbad, NULL);
	if (sysroot_read(sr, SR_THP "/hpage_pmd_size", &b) == 0)
		sysfs_u64_parse(b.p, b.len, &pmd);
	sz.present = false;
	if (pmd) {
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), SR_THP "/hugepages-%llukB/enabled",
			 (unsigned long long)(pmd / 1024));
		read_choice(sr, &b, rel, &sz, &nbad, NULL);
	}
	const char *v = sz.present ? resolve(&sz, &top) : top.present ? top.selected : NULL;
	if (v)
		snprintf(out, n, "%s", v);
	else
		ret = nbad ? -EINVAL : -ENOENT;
	buf_free(&b);
	return ret;
}

uint64_t thp_pmd_kb(const struct sysroot *sr)
{
	struct buf b = {0};
	uint64_t pmd = 0;
	if (sysroot_read(sr, SR_THP "/hpage_pmd_size", &b) || sysfs_u64_parse(b.p, b.len, &pmd))
		pmd = 0;
	buf_free(&b);
	return pmd / 1024;
}

int thp_pmd_shmem_policy(const struct sysroot *sr, struct choice *top, struct choice *size,
			 uint64_t *size_kb)
{
	struct buf b = {0};
	uint64_t pmd = 0;
	int nbad = 0, ret = 0;
	read_choice(sr, &b, SR_THP "/shmem_enabled", top, &nbad, NULL);
	if (sysroot_read(sr, SR_THP "/hpage_pmd_size", &b) == 0)
		sysfs_u64_parse(b.p, b.len, &pmd);
	*size_kb = pmd / 1024;
	memset(size, 0, sizeof(*size));
	if (*size_kb) {
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), SR_THP "/hugepages-%llukB/shmem_enabled",
			 (unsigned long long)*size_kb);
		read_choice(sr, &b, rel, size, &nbad, NULL);
	}
	if (!top->present)
		ret = nbad ? -EINVAL : -ENOENT;
	buf_free(&b);
	return ret;
}
