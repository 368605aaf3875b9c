/* SPDX-License-Identifier: MIT */
/*
 * Key/value counter files: /proc/vmstat ("name value") and /proc/meminfo
 * ("Name:   value kB"). Table-free: every key the kernel prints is kept, so
 * counters newer than this tool are still shown and exported.
 */
#ifndef THPCTL_KV_H
#define THPCTL_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KV_NAME_LEN 64

struct kv {
	char name[KV_NAME_LEN];
	uint64_t value;
	bool dup; /* seen twice while parsing: dropped before the parse returns */
};

struct kvlist {
	struct kv *items;
	size_t n, cap;
	size_t bad;		    /* malformed lines skipped (no number, overflow, too long, or a
		     * last line without its newline: the file was cut) */
	size_t dup;		    /* keys printed more than once: every copy dropped (unknown) */
	char dup_name[KV_NAME_LEN]; /* the first such key, for the message */
};

void kvlist_free(struct kvlist *l);
void kvlist_clear(struct kvlist *l);

/* Append NAME=VALUE. Returns 0 or -ENOMEM. */
int kvlist_add(struct kvlist *l, const char *name, size_t name_len, uint64_t value);

/* Find NAME; returns true and sets *V when present. */
bool kv_get(const struct kvlist *l, const char *name, uint64_t *v);

/*
 * Parse /proc/vmstat text ("thp_fault_alloc 12\n"...) into L (cleared first).
 * Units are the kernel's: event counts, and pages or PMD THPs for nr_* gauges.
 * Malformed lines are skipped and counted in L->bad. A key printed twice is
 * damage (the kernel prints each once): every copy is dropped, so the key is
 * unknown, and counted in L->dup (L->dup_name the first). Returns 0 or -ENOMEM.
 */
int vmstat_parse(const char *text, size_t len, struct kvlist *l);

/*
 * Parse /proc/meminfo text ("AnonHugePages:   2048 kB\n") into L (cleared
 * first). Values are kB where the kernel prints "kB", else plain counts
 * (HugePages_Total). Malformed lines counted in L->bad, keys printed twice
 * dropped and counted in L->dup, as for vmstat. Returns 0 or -ENOMEM.
 */
int meminfo_parse(const char *text, size_t len, struct kvlist *l);

#endif
