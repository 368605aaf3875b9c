/* SPDX-License-Identifier: MIT */
/*
 * The settings journal's text and the rules a journal must pass before root
 * acts on it. Pure: no I/O (lab/guard.c reads and writes the file).
 *
 * Format (version 2; version 1 files, whose owner line also carried a start
 * time, are read too):
 *   thpctl-journal 2
 *   owner PID                   informational only: the lock decides liveness
 *   purpose TEXT                "set", "lab quick", ...
 *   entry REL<TAB>VALUE         one per file, REL relative to / ("sys/...")
 *
 * A journal is data written by a process that may have been killed, or by
 * someone else: nothing in it is trusted. An entry is restored only when REL
 * is on the allow-list below and VALUE is a plain knob word or number.
 */
#ifndef THPCTL_LAB_JOURNAL_H
#define THPCTL_LAB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_MAX_ENTRIES 64
#define JOURNAL_REL_LEN 200
#define JOURNAL_VALUE_LEN 64
#define JOURNAL_PURPOSE_LEN 64
/* A journal file larger than this is damaged (64 entries fit in 20 KiB). */
#define JOURNAL_MAX_BYTES 65536

struct journal_entry {
	char rel[JOURNAL_REL_LEN];
	char old[JOURNAL_VALUE_LEN];
};

struct journal {
	long owner; /* 0: not given */
	char purpose[JOURNAL_PURPOSE_LEN];
	bool unrestored; /* "unrestored": its owner tried to put the entries back and could not
			  * (it was not killed); said by whoever recovers them */
	int n;
	struct journal_entry e[JOURNAL_MAX_ENTRIES];
	int rejected;		  /* entries refused (path or value not allowed, malformed) */
	char first_rejected[120]; /* the first of them, for the message */
};

/*
 * Whether REL (relative to /, no leading slash) names a file that the
 * journal may write a value back to:
 *   sys/kernel/mm/transparent_hugepage/KNOB
 *   sys/kernel/mm/transparent_hugepage/khugepaged/KNOB
 *   sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/{enabled,shmem_enabled}
 *   sys/kernel/mm/hugepages/hugepages-<N>kB/{nr_hugepages,nr_overcommit_hugepages}
 *   sys/devices/system/node/node<N>/hugepages/hugepages-<N>kB/nr_hugepages
 *   proc/sys/vm/{compaction_proactiveness,nr_hugepages,nr_overcommit_hugepages}
 * KNOB is [a-z_]+. No "..", no empty component, nothing else (never
 * drop_caches). Async-signal-safe.
 */
bool journal_rel_allowed(const char *rel);

/* Whether REL may be poked (written without journalling): proc/sys/vm/{drop_caches,compact_memory}. */
bool journal_poke_allowed(const char *rel);

/* Whether VALUE is a knob word or number: 1..63 bytes of [A-Za-z0-9_+.-]. */
bool journal_value_ok(const char *value);

/*
 * Parse TEXT (LEN bytes, need not be NUL-terminated) into J. Entries that
 * fail journal_rel_allowed()/journal_value_ok() are counted in J->rejected and
 * left out. Returns 0, or -EINVAL when the header line is missing or wrong
 * (then J holds nothing).
 */
int journal_parse(const char *text, size_t len, struct journal *j);

/* J as journal text into OUT (N bytes). Returns the length, or -ENOSPC. */
int journal_format(const struct journal *j, long owner, char *out, size_t n);

/*
 * Whether a knob file reading TEXT (LEN bytes) holds WANT: the bracketed
 * word of a choice file ("always [madvise] never"), else the text without
 * trailing blanks and newlines. Async-signal-safe (no allocation, no stdio).
 */
bool journal_value_matches(const char *text, size_t len, const char *want);

#endif
