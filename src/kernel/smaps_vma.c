// SPDX-License-Identifier: MIT
/* Facts of a parsed smaps VMA (kernel/smaps.h): the fields' names, the VmFlags line, the
 * thread-stack test. */
#include <string.h>

#include "smaps.h"

/* Field table in the kernel's print order (fs/proc/task_mmu.c). */
static const struct {
	const char *name;
	unsigned char len;
} fields[SM_NFIELDS] = {
	[SM_SIZE] = {"Size", 4},
	[SM_KERNEL_PAGE] = {"KernelPageSize", 14},
	[SM_RSS] = {"Rss", 3},
	[SM_PSS] = {"Pss", 3},
	[SM_PRIVATE_DIRTY] = {"Private_Dirty", 13},
	[SM_ANONYMOUS] = {"Anonymous", 9},
	[SM_ANON_HUGE] = {"AnonHugePages", 13},
	[SM_SHMEM_PMD] = {"ShmemPmdMapped", 14},
	[SM_FILE_PMD] = {"FilePmdMapped", 13},
	[SM_SHARED_HUGETLB] = {"Shared_Hugetlb", 14},
	[SM_PRIVATE_HUGETLB] = {"Private_Hugetlb", 15},
	[SM_SWAP] = {"Swap", 4},
	[SM_LAZYFREE] = {"LazyFree", 8},
	[SM_REFERENCED] = {"Referenced", 10},
};

const char *smaps_field_name(enum smaps_field f)
{
	return (unsigned)f < SM_NFIELDS ? fields[f].name : "?";
}

/* Private anonymous: no name, or a name given with PR_SET_VMA_ANON_NAME ("[anon:...]"). */
static bool anon_private(const struct smaps_vma *v)
{
	return v->perms[3] == 'p' &&
	       (v->name_len == 0 || (v->name_len > 6 && memcmp(v->name, "[anon:", 6) == 0));
}

bool smaps_stack_guard(const struct smaps_vma *v)
{
	return v->has_vmflags && (v->vmflags & VMF_NH) && anon_private(v) &&
	       memcmp(v->perms, "---", 3) == 0 && v->t.kb[SM_SIZE] <= SMAPS_STACK_GUARD_MAX_KB;
}

bool smaps_stack_feed(struct smaps_stack_scan *s, const struct smaps_vma *v, uint64_t *kb)
{
	bool stack = s->guard && v->start == s->end && v->has_vmflags && (v->vmflags & VMF_NH) &&
		     anon_private(v) && v->perms[0] == 'r' && v->perms[1] == 'w';
	if (stack)
		*kb = s->kb + v->t.kb[SM_SIZE];
	s->guard = !stack && smaps_stack_guard(v);
	s->end = v->end;
	s->kb = v->t.kb[SM_SIZE];
	return stack;
}

/* One two-letter flag at P: its VMF_ bit, or 0. */
static inline unsigned vmflag(const char *p)
{
	if (p[0] == 'h' && p[1] == 'g')
		return VMF_HG;
	if (p[0] == 'n' && p[1] == 'h')
		return VMF_NH;
	if (p[0] == 'h' && p[1] == 't')
		return VMF_HT;
	if (p[0] == 's' && p[1] == 'h')
		return VMF_SH;
	return 0;
}

/*
 * The flags of "VmFlags: rd mr mw me ac sd" after the colon, [P, E) (smaps.h). The kernel prints each as
 * two letters and a blank ("%c%c "): read three bytes a step while that holds, then word by
 * word (a copied tree may have other blanks); a word of other than two letters is no flag.
 */
void smaps_vmflags_parse(const char *p, const char *e, struct smaps_vma *v)
{
	v->has_vmflags = true;
	while (p < e && *p == ' ')
		p++;
	while (e - p >= 3 && p[2] == ' ' && p[0] != ' ' && p[1] != ' ') {
		v->vmflags |= vmflag(p);
		p += 3;
	}
	while (p < e) {
		while (p < e && *p == ' ')
			p++;
		if (e - p >= 2 && (p + 2 == e || p[2] == ' '))
			v->vmflags |= vmflag(p);
		while (p < e && *p != ' ')
			p++;
	}
}

enum shmem_kind smaps_shmem_kind(const char *name, size_t len, unsigned flags)
{
	static const struct {
		const char *pre;
		enum shmem_kind kind;
	} kinds[] = {
		{"/dev/zero", SHK_ANON},   {"[anon_shmem:", SHK_ANON}, {"/SYSV", SHK_INTERNAL},
		{"/memfd:", SHK_INTERNAL}, {"/dev/shm/", SHK_TMPFS},
	};
	if (!(flags & VMF_SH) || (flags & VMF_HT))
		return SHK_NONE;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].pre);
		if (len >= n && !memcmp(name, kinds[i].pre, n))
			return kinds[i].kind;
	}
	return SHK_NONE;
}
