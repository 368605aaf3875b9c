/* SPDX-License-Identifier: MIT */
/* /proc/PID/status and /proc/PID/stat: identity, prctl THP state, CPU time. */
#ifndef THPCTL_PROC_STATUS_H
#define THPCTL_PROC_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "parse.h"

#define COMM_LEN 64

/* Fields of /proc/PID/status. Absent fields keep -1 / false. */
struct proc_status {
	char name
		[COMM_LEN]; /* Name:, its \n and \\ unescaped: the name's bytes (raw: escape to show) */
	bool has_name;
	long tgid;	 /* Tgid: (the process of this thread), -1 if absent */
	long ppid;	 /* PPid:, -1 if absent */
	long uid;	 /* real uid from Uid:, -1 if absent */
	int thp_enabled; /* THP_enabled: (5.0+), 0 only for a full prctl disable; -1 absent */
	int kthread;	 /* Kthread: (6.x+), -1 absent */
	struct opt_u64 vmrss_kb; /* VmRSS: kB, any u64; absent for kernel threads, zombies */
	unsigned bad;	/* PS_BAD_*: lines there whose value is not a whole number in range */
	bool truncated; /* the text does not end in a newline: fields after it are unknown */
};

/* Bits of proc_status.bad: the field is unknown (-1) although its line is there. */
enum {
	PS_BAD_NAME = 1u << 0, /* no Name: line (a damaged or cut file) */
	PS_BAD_TGID = 1u << 1,
	PS_BAD_PPID = 1u << 2,
	PS_BAD_UID = 1u << 3,
	PS_BAD_THP_ENABLED = 1u << 4,
	PS_BAD_KTHREAD = 1u << 5,
	PS_BAD_VMRSS = 1u << 6,
};

/*
 * Parse status TEXT. Values are whole tokens in range ("Uid: 0x1f" is not
 * uid 0): a damaged one is left unknown and flagged in .bad; a trailing '\r'
 * is dropped. A key printed twice is damage: unknown, flagged in .bad. A file without Name: keeps its other fields (.bad has
 * PS_BAD_NAME, name is "-"). Returns 0, or -EINVAL when no known line was
 * found at all.
 */
int proc_status_parse(const char *text, size_t len, struct proc_status *st);

/*
 * Whether ST says the process has no memory map (a kernel thread on an old
 * kernel, or a zombie): no VmRSS line, and not because the file is damaged.
 */
static inline bool proc_status_no_mm(const struct proc_status *st)
{
	return !st->vmrss_kb.present && !(st->bad & PS_BAD_VMRSS) && !st->truncated;
}

/* How many fields of ST are damaged or unknown for damage (bad bits, a cut file). */
int proc_status_nbad(const struct proc_status *st);

/* The status field name of the lowest PS_BAD_* bit in BAD ("Uid"), or NULL for none. */
const char *proc_status_bad_name(unsigned bad);

/* Fields of /proc/PID/stat (man 5 proc numbering). */
struct proc_stat {
	long pid;
	char comm[COMM_LEN]; /* between the first '(' and the LAST ')' */
	char state;
	long ppid;
	uint64_t flags;	       /* PF_* (field 9); PF_KTHREAD = 0x00200000 */
	uint64_t utime, stime; /* clock ticks (fields 14, 15) */
	uint64_t starttime;    /* clock ticks after boot (field 22) */
};

#define PF_KTHREAD_FLAG 0x00200000u

/*
 * Parse stat TEXT. comm may hold spaces and ')' characters; the last ')' ends
 * it. Returns 0 or -EINVAL on a malformed or truncated line.
 */
int proc_stat_parse(const char *text, size_t len, struct proc_stat *st);

/* Fields of /proc/PID/statm, in pages (man 5 proc). Kernel threads print all zeros. */
struct proc_statm {
	uint64_t size;	   /* total program size (VmSize) */
	uint64_t resident; /* RSS: anon + file + shmem */
	uint64_t shared;   /* file + shmem RSS; resident - shared = anonymous RSS (RssAnon) */
};

/*
 * Parse statm TEXT ("1234 567 89 1 0 300 0\n"). The first three fields are
 * required. Returns 0 or -EINVAL. /proc/PID/statm is world-readable and the
 * cheapest per-process file: no page-table walk, no mmap_lock.
 */
int proc_statm_parse(const char *text, size_t len, struct proc_statm *sm);

/*
 * Look UID up in passwd TEXT (etc/passwd format). Copies the name into OUT
 * (size N) and returns 0, or -ENOENT.
 */
int passwd_lookup(const char *text, size_t len, long uid, char *out, size_t n);

#endif
