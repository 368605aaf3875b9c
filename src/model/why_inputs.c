// SPDX-License-Identifier: MIT
/* What `why` reads besides the host: THP hints in environ and cmdline, and a summary of the VMAs. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "why.h"

/* ---- hints ---- */

static struct why_hint *hint_add(struct why_hint *out, int *n, int max, const char *var,
				 const char *val, size_t val_len, enum why_hint_id meaning,
				 enum why_effect e)
{
	if (*n >= max)
		return NULL;
	struct why_hint *h = &out[(*n)++];
	memset(h, 0, sizeof(*h));
	snprintf(h->var, sizeof(h->var), "%s", var);
	if (val_len >= sizeof(h->value))
		val_len = sizeof(h->value) - 1;
	memcpy(h->value, val, val_len);
	h->value[val_len] = '\0';
	h->meaning = meaning;
	h->effect = e;
	return h;
}

/* Find KEY in [s, e) split by SEP; sets [*vs, *ve) to its value. */
static bool find_kv(const char *s, const char *e, char sep, const char *key, const char **vs,
		    const char **ve)
{
	size_t kl = strlen(key);
	while (s < e) {
		const char *c = memchr(s, sep, (size_t)(e - s));
		const char *ie = c ? c : e;
		if ((size_t)(ie - s) > kl && memcmp(s, key, kl) == 0) {
			*vs = s + kl;
			*ve = ie;
			return true;
		}
		s = c ? c + 1 : e;
	}
	return false;
}

static bool val_is(const char *s, const char *e, const char *word)
{
	size_t l = strlen(word);
	return (size_t)(e - s) == l && memcmp(s, word, l) == 0;
}

/* A mimalloc option value that it reads as off (it compares without case). */
static bool mi_false(const char *s, const char *e)
{
	static const char *const w[] = {"0", "false", "off", "no"};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if ((size_t)(e - s) == strlen(w[i]) && !strncasecmp(s, w[i], strlen(w[i])))
			return true;
	return false;
}

/* What a flag or a value means for THP; a value table ends with {NULL, its unknown meaning}. */
struct hint_word {
	const char *word;
	enum why_hint_id meaning;
	enum why_effect effect;
};

static const struct hint_word glibc_hugetlb[] = {
	{"0", HI_GLIBC_0, WE_NEUTRAL},
	{"1", HI_GLIBC_1, WE_HELPS},
	{"2", HI_GLIBC_2, WE_NEUTRAL},
	{NULL, HI_GLIBC_UNKNOWN, WE_UNKNOWN},
};

static const struct hint_word je_thp[] = {
	{"always", HI_JE_ALWAYS, WE_HELPS},
	{"never", HI_JE_NEVER, WE_HINDERS},
	{"default", HI_JE_DEFAULT, WE_NEUTRAL},
	{NULL, HI_JE_UNKNOWN, WE_UNKNOWN},
};

/* The entry of value [S, E) in table T, or its closing entry (an unknown value). */
static const struct hint_word *value_hint(const struct hint_word *t, const char *s, const char *e)
{
	while (t->word && !val_is(s, e, t->word))
		t++;
	return t;
}

/* JVM flags inside [s, e) (an option string or one argument). */
static void java_flags(const char *var, const char *s, const char *e, struct why_hint *out, int *n,
		       int max)
{
	static const struct hint_word flags[] = {
		{"-XX:+UseTransparentHugePages", HI_JAVA_THP_ON, WE_HELPS},
		{"-XX:-UseTransparentHugePages", HI_JAVA_THP_OFF, WE_NEUTRAL},
		{"-XX:+UseLargePages", HI_JAVA_LARGE_PAGES, WE_NEUTRAL},
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		size_t fl = strlen(flags[i].word);
		for (const char *p = s; p + fl <= e; p++)
			if (memcmp(p, flags[i].word, fl) == 0 &&
			    (p + fl == e || p[fl] == ' ' || p[fl] == '\0')) {
				hint_add(out, n, max, var, flags[i].word, fl, flags[i].meaning,
					 flags[i].effect);
				break;
			}
	}
}

static void env_entry(const char *s, const char *e, struct why_hint *out, int *n, int max)
{
	const char *eq = memchr(s, '=', (size_t)(e - s));
	if (!eq)
		return;
	const char *v = eq + 1, *vs, *ve;
	size_t kl = (size_t)(eq - s);
#define KEY(k) (kl == sizeof(k) - 1 && memcmp(s, k, kl) == 0)
	if (KEY("GLIBC_TUNABLES")) {
		if (!find_kv(v, e, ':', "glibc.malloc.hugetlb=", &vs, &ve))
			return;
		const struct hint_word *h = value_hint(glibc_hugetlb, vs, ve);
		hint_add(out, n, max, "GLIBC_TUNABLES", vs - 21, (size_t)(ve - vs) + 21, h->meaning,
			 h->effect);
	} else if (KEY("MIMALLOC_ALLOW_THP")) {
		bool off = mi_false(v, e);
		hint_add(out, n, max, "MIMALLOC_ALLOW_THP", v, (size_t)(e - v),
			 off ? HI_MIMALLOC_OFF : HI_MIMALLOC_ON, off ? WE_HINDERS : WE_NEUTRAL);
	} else if (KEY("MIMALLOC_LARGE_OS_PAGES") || KEY("MIMALLOC_ALLOW_LARGE_OS_PAGES")) {
		/* mimalloc madvises its segments MADV_HUGEPAGE with it (2.0.9 reads only the
		 * first name; 1.8.2 and 2.1 renamed it allow_large_os_pages, the old name kept) */
		bool on = !mi_false(v, e); /* an empty value reads as 1 */
		char var[32];
		snprintf(var, sizeof(var), "%.*s", (int)kl, s);
		hint_add(out, n, max, var, v, (size_t)(e - v),
			 on ? HI_MIMALLOC_LARGE_ON : HI_MIMALLOC_LARGE_OFF,
			 on ? WE_HELPS : WE_NEUTRAL);
	} else if (KEY("MALLOC_CONF") || KEY("_RJEM_MALLOC_CONF") || KEY("JE_MALLOC_CONF")) {
		char var[32];
		snprintf(var, sizeof(var), "%.*s", (int)kl, s);
		if (find_kv(v, e, ',', "thp:", &vs, &ve)) {
			const struct hint_word *h = value_hint(je_thp, vs, ve);
			hint_add(out, n, max, var, vs - 4, (size_t)(ve - vs) + 4, h->meaning,
				 h->effect);
		}
		if (find_kv(v, e, ',', "metadata_thp:", &vs, &ve))
			hint_add(out, n, max, var, vs - 13, (size_t)(ve - vs) + 13, HI_JE_METADATA,
				 WE_NEUTRAL);
		if (find_kv(v, e, ',', "muzzy_decay_ms:", &vs, &ve))
			hint_add(out, n, max, var, vs - 15, (size_t)(ve - vs) + 15, HI_JE_MUZZY,
				 WE_NEUTRAL);
	} else if (KEY("GODEBUG")) {
		if (!find_kv(v, e, ',', "disablethp=", &vs, &ve))
			return;
		bool on = val_is(vs, ve, "1");
		hint_add(out, n, max, "GODEBUG", vs - 11, (size_t)(ve - vs) + 11,
			 on ? HI_GO_DISABLETHP : HI_GO_THP_KERNEL, on ? WE_HINDERS : WE_NEUTRAL);
	} else if (KEY("JAVA_TOOL_OPTIONS") || KEY("JDK_JAVA_OPTIONS") || KEY("_JAVA_OPTIONS")) {
		char var[32];
		snprintf(var, sizeof(var), "%.*s", (int)kl, s);
		java_flags(var, v, e, out, n, max);
	}
#undef KEY
}

int why_hints_parse(const char *text, size_t len, bool cmdline, struct why_hint *out, int max)
{
	int n = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		const char *e = z ? z : end;
		if (cmdline)
			java_flags("cmdline", p, e, out, &n, max);
		else
			env_entry(p, e, out, &n, max);
		p = e + 1;
	}
	return n;
}

bool why_environ_intact(const char *text, size_t len)
{
	if (!len || text[len - 1] != '\0')
		return false;
	for (const char *p = text, *end = text + len; p < end; p += strlen(p) + 1)
		if (*p && strchr(p, '='))
			return true;
	return false;
}

bool why_chain_broken(long stop_pid, const char *stop_comm)
{
	return stop_pid == 1 || (stop_comm && strcmp(stop_comm, "systemd") == 0);
}

/* ---- VMAs ---- */

static void top_set(struct why_vma_top *t, const struct smaps_vma *v)
{
	t->present = true;
	vma_display_name(v->name, v->name_len, t->name, sizeof(t->name));
	t->start = v->start;
	t->size_kb = v->t.kb[SM_SIZE];
	t->anon_huge_kb = v->t.kb[SM_ANON_HUGE];
	t->vmflags = v->vmflags;
}

static void nh_top(struct why_vmas *w, const struct why_vma_top *t)
{
	if (!w->largest_nh.present || t->size_kb > w->largest_nh.size_kb)
		w->largest_nh = *t;
}

bool why_glibc_heap_name(const struct smaps_vma *v)
{
	static const char *const names[] = {"[heap]", "[anon: glibc: malloc]",
					    "[anon: glibc: malloc arena]"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (v->name_len == strlen(names[i]) && !memcmp(v->name, names[i], v->name_len))
			return true;
	return false;
}

/*
 * glibc malloc's memory: by name, or a thread arena's heap by layout: an unnamed rw-p VMA at
 * a WHY_ARENA_HEAP_BYTES boundary, either that size or followed at once by the ---p rest of
 * its reservation (held in w->arena until the next VMA shows it).
 */
static void malloc_add(struct why_vmas *w, const struct smaps_vma *v)
{
	uint64_t anon = (v->vmflags & VMF_NH) ? 0 : v->t.kb[SM_ANONYMOUS];
	if (w->arena.pending && v->start == w->arena.end && v->name_len == 0 &&
	    !memcmp(v->perms, "---p", 4) && v->end == w->arena.start + WHY_ARENA_HEAP_BYTES)
		w->malloc_anon_kb += w->arena.anon_kb;
	w->arena.pending = false;
	uint64_t len = v->end - v->start;
	if (why_glibc_heap_name(v)) {
		w->malloc_anon_kb += anon;
	} else if (v->name_len == 0 && !memcmp(v->perms, "rw-p", 4) &&
		   !(v->start % WHY_ARENA_HEAP_BYTES) && len <= WHY_ARENA_HEAP_BYTES) {
		if (len == WHY_ARENA_HEAP_BYTES) {
			w->malloc_anon_kb += anon; /* grown to its whole reservation */
		} else {
			w->arena.pending = true;
			w->arena.start = v->start;
			w->arena.end = v->end;
			w->arena.anon_kb = anon;
		}
	}
}

void why_vmas_add(struct why_vmas *w, const struct smaps_vma *v)
{
	uint64_t kb = v->t.kb[SM_SIZE], huge = v->t.kb[SM_ANON_HUGE];
	w->nvmas++;
	for (int f = 0; f < SM_NFIELDS; f++)
		if (smaps_has(&v->t, (enum smaps_field)f)) {
			w->t.kb[f] += v->t.kb[f];
			w->t.present |= 1u << f;
		}
	if (v->has_vmflags)
		w->has_vmflags = true;
	if (v->thp_eligible >= 0)
		w->has_eligible = true;
	if (v->thp_eligible == 1)
		w->eligible++;
	malloc_add(w, v);
	if (v->vmflags & VMF_HG) {
		w->hg++;
		w->hg_kb += kb;
		w->hg_anon_kb += v->t.kb[SM_ANONYMOUS];
		w->hg_huge_kb += huge;
		/* huge-backed: PMD-mapped shmem and file pages as well as anonymous ones */
		uint64_t pmd_mapped = huge + v->t.kb[SM_SHMEM_PMD] + v->t.kb[SM_FILE_PMD];
		w->hg_pmd_mapped_kb += pmd_mapped;
		uint64_t pmd = w->pmd_bytes ? w->pmd_bytes : 2u << 20;
		uint64_t first = (v->start + pmd - 1) & ~(pmd - 1);
		bool holds_pmd = first + pmd <= v->end;
		if (holds_pmd) {
			w->hg_rss_kb += v->t.kb[SM_RSS];
			w->hg_pmd_huge_kb += pmd_mapped;
		}
		enum shmem_kind k = smaps_shmem_kind(v->name, v->name_len, v->vmflags);
		if (k != SHK_NONE) {
			struct why_shm_hg *s = &w->hg_shm[k];
			s->vmas++;
			s->kb += kb;
			s->pmd_rss_kb += holds_pmd ? v->t.kb[SM_RSS] : 0;
			s->pmd_mapped_kb += holds_pmd ? v->t.kb[SM_SHMEM_PMD] : 0;
		}
		if (!w->largest_hg.present || kb > w->largest_hg.size_kb)
			top_set(&w->largest_hg, v);
	} else if (huge) {
		w->huge_not_hg++;
		w->huge_not_hg_kb += huge;
	}
	uint64_t pair_kb;
	bool stack = smaps_stack_feed(&w->stack_scan, v, &pair_kb);
	if (stack) {
		w->thread_stacks++;
		w->stack_nh += 2;
		w->stack_nh_kb += pair_kb;
		w->stack_nh_anon_kb += v->t.kb[SM_ANONYMOUS]; /* its guard has none */
	} else if (w->guard_nh.present) { /* no stack on it: an opt-out after all */
		nh_top(w, &w->guard_nh);
	}
	w->guard_nh.present = false;
	if (v->vmflags & VMF_NH) {
		w->nh++;
		w->nh_kb += kb;
		w->nh_anon_kb += v->t.kb[SM_ANONYMOUS];
		if (smaps_stack_guard(v)) {
			top_set(&w->guard_nh, v);
		} else if (!stack) {
			struct why_vma_top top;
			top_set(&top, v);
			nh_top(w, &top);
		}
	}
	if (v->vmflags & VMF_HT) {
		w->hugetlb_vmas++;
		w->hugetlb_kb += kb;
	} else if ((v->vmflags & VMF_SH) && why_shmem_name(v->name, v->name_len)) {
		w->shmem_vmas++;
		w->shmem_kb += kb;
		w->shmem_rss_kb += v->t.kb[SM_RSS];
		w->shmem_pmd_kb += v->t.kb[SM_SHMEM_PMD];
		if (!w->largest_shmem.present || kb > w->largest_shmem.size_kb)
			top_set(&w->largest_shmem, v);
	}
	if (v->name_len == 7 && memcmp(v->name, "[stack]", 7) == 0) {
		w->stack_found = true;
		w->stack_flags = v->vmflags;
		w->stack_kb = kb;
	}
}
