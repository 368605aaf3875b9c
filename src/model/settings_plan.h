/* SPDX-License-Identifier: MIT */
/*
 * A settings change as a list of (key, old, new), built from KEY=VALUE
 * arguments (`set`, `persist`) or from a snapshot (`snapshot restore`), every
 * value validated against what this kernel offers before anything is
 * written. No I/O: the knobs come from kernel/thp_knobs.h.
 *
 * Validation:
 *  - choice files ("always [madvise] never"): one of the words listed;
 *  - khugepaged/max_ptes_{none,swap,shared}: 0 .. HPAGE_PMD_NR-1 (the
 *    kernel's bound; HPAGE_PMD_NR = 512 with 4 KiB pages);
 *  - use_zero_page, shrink_underused, khugepaged/defrag: 0 or 1;
 *  - khugepaged/pages_to_scan: 1 .. 2^32-1 (the kernel rejects 0);
 *  - khugepaged/{scan,alloc}_sleep_millisecs: 0 .. 2^32-1 (kstrtouint);
 *  - any other number file: an unsigned decimal integer.
 * Read-only files (counters, hpage_pmd_size) and unknown keys are refused.
 */
#ifndef THPCTL_SETTINGS_PLAN_H
#define THPCTL_SETTINGS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/parse.h"
#include "../kernel/thp_knobs.h"

#define PLAN_MAX KNOB_MAX
#define PLAN_VALUE_LEN 64
#define PLAN_NOTE_LEN 200 /* a note in words (render/control.c) */

/* A knob and a value, as given or saved. */
struct knob_kv {
	char key[KNOB_KEY_LEN];
	char value[PLAN_VALUE_LEN];
};

enum knob_kind { KNOB_CHOICE, KNOB_BOOL, KNOB_UINT };

/* Kind of knob KEY whose file reads RAW. */
enum knob_kind knob_kind_of(const char *key, const char *raw);

/*
 * The value RAW (a knob file's text) stands for, as one would write it back: the bracketed
 * word of a choice file, else the unsigned decimal itself. Returns 0, -EINVAL (a choice file
 * without one [selection], or one word that is no decimal: damaged) or -E2BIG (longer than
 * N-1).
 */
int knob_value(const char *raw, char *out, size_t n);

/* Why a value may not be written (render/control.c words it). */
enum knob_bad {
	KB_EMPTY,	  /* "" */
	KB_TOO_LONG,	  /* PLAN_VALUE_LEN bytes or more */
	KB_NOT_OFFERED,	  /* a choice file that does not list it */
	KB_NOT_BOOL,	  /* not 0 or 1 */
	KB_PTES_RANGE,	  /* max_ptes_*: not 0..HPAGE_PMD_NR-1 */
	KB_PAGES_TO_SCAN, /* not 1..2^32-1 */
	KB_MILLISECS,	  /* *_sleep_millisecs: not 0..2^32-1 */
	KB_NOT_UINT,	  /* not an unsigned decimal integer */
};

struct knob_invalid {
	enum knob_bad kind;
	char value[PLAN_VALUE_LEN];	       /* the value given (cut when too long) */
	uint64_t hi;			       /* KB_PTES_RANGE: HPAGE_PMD_NR-1 */
	char offered[CHOICE_MAX * CHOICE_LEN]; /* KB_NOT_OFFERED: the words the file lists */
};

/*
 * Whether VALUE may be written to knob KEY whose file reads RAW. PMD_NR is
 * HPAGE_PMD_NR (0: unknown, then max_ptes_* is only checked as a number).
 * Returns 0, or -EINVAL with the reason in *WHY.
 */
int knob_validate(const char *key, const char *raw, const char *value, uint64_t pmd_nr,
		  struct knob_invalid *why);

/*
 * KEY as given, reduced to a knob key: a leading /sys/kernel/mm/transparent_hugepage/
 * or transparent_hugepage/ is dropped. Returns 0, or -EINVAL for an empty
 * key, "..", a character outside [A-Za-z0-9_.+-/], or one too long.
 */
int knob_key_normalize(const char *key, char *out, size_t n);

enum plan_state {
	PS_PENDING,	 /* to be written */
	PS_UNCHANGED,	 /* already the asked value: not written */
	PS_WRITTEN,	 /* written and read back */
	PS_FAILED,	 /* the write failed (err) */
	PS_ROLLED_BACK,	 /* written, then put back after a later failure */
	PS_NOT_WRITTEN,	 /* left alone because an earlier write failed */
	PS_NOT_PUT_BACK, /* written, and the rollback could not put it back: still changed,
			  * in the journal for the next run to restore */
};

const char *plan_state_name(enum plan_state s);

struct plan_entry {
	char key[KNOB_KEY_LEN];
	char old[PLAN_VALUE_LEN];
	char new[PLAN_VALUE_LEN];
	enum plan_state state;
	int err; /* -errno of a failed write or read-back */
};

/* Why a KEY=VALUE is refused or skipped (render/control.c words it). */
enum plan_problem {
	PN_NOT_A_KNOB,	   /* not a knob name at all */
	PN_NOT_ON_KERNEL,  /* skipped: this kernel lacks it */
	PN_NO_THP,	   /* no transparent_hugepage/ at all */
	PN_NO_SUCH_KNOB,   /* unknown here (meant: the knob it probably means) */
	PN_READ_ONLY_HERE, /* skipped: read-only on this kernel */
	PN_READ_ONLY,	   /* a counter or a fixed value */
	PN_TWICE,	   /* the key given twice */
	PN_BAD_VALUE,	   /* bad: why */
	PN_TOO_MANY,	   /* more than PLAN_MAX knobs */
	PN_UNREADABLE,	   /* its current value is unreadable */
	PN_NOT_KEY_VALUE,  /* an argument without '=' */
	PN_KEY_TOO_LONG,   /* a key longer than a knob key can be */
};

struct plan_note {
	char key[KNOB_KEY_LEN];
	enum plan_problem why;
	char meant
		[KNOB_KEY_LEN]; /* PN_NO_SUCH_KNOB: "khugepaged/max_ptes_none" for "max_ptes_none", "" */
	struct knob_invalid bad; /* PN_BAD_VALUE */
};

struct settings_plan {
	int n;
	struct plan_entry e[PLAN_MAX];
	int nbad; /* invalid: nothing at all may be written */
	struct plan_note bad[PLAN_MAX];
	int nskip; /* knobs this kernel does not have (snapshot restore) */
	struct plan_note skip[PLAN_MAX];
};

void plan_init(struct settings_plan *p);

/*
 * Add KEY=VALUE, validated against K (PMD_NR as for knob_validate). A problem
 * is noted in p->bad (or, for a knob this kernel lacks and MISSING_OK, in
 * p->skip) and returned: 0, -ENOENT (no such knob), -EACCES (read-only file),
 * -EINVAL (bad key or value), -EEXIST (the key given twice), -ENOSPC.
 */
int plan_add(struct settings_plan *p, const struct thp_knobs *k, uint64_t pmd_nr, const char *key,
	     const char *value, bool missing_ok);

/* Add one "KEY=VALUE" argument; a missing '=' is noted in p->bad too. */
int plan_add_arg(struct settings_plan *p, const struct thp_knobs *k, uint64_t pmd_nr,
		 const char *arg);

/* Number of entries that change something (state PS_PENDING). */
int plan_changes(const struct settings_plan *p);

#endif
