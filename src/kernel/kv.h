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

#include "sysroot.h"

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

/*
 * Parse sys/devices/system/node/nodeN/meminfo text ("Node 0 MemTotal:  24 kB")
 * into L (cleared first) like meminfo_parse(), the "Node N " prefix dropped.
 * Returns 0 or -ENOMEM.
 */
int node_meminfo_parse(const char *text, size_t len, struct kvlist *l);

/*
 * The readers: proc/vmstat, proc/meminfo and node NODE's meminfo through SR
 * into L (cleared first), the one place each file is parsed. Return 0,
 * -ENOMEM, or the read's -errno (-ENOENT: no such file, or no such node);
 * a file that reads but parses to nothing leaves L empty with L->bad set.
 */
int vmstat_read(const struct sysroot *sr, struct kvlist *l);
int meminfo_read(const struct sysroot *sr, struct kvlist *l);
int node_meminfo_read(const struct sysroot *sr, int node, struct kvlist *l);
/* The same with B as the read buffer, kept by the caller across reads (watch, exporter). */
int vmstat_read_buf(const struct sysroot *sr, struct buf *b, struct kvlist *l);
int meminfo_read_buf(const struct sysroot *sr, struct buf *b, struct kvlist *l);

/*
 * One proc/meminfo value (kB where the kernel prints kB) into *V. Returns 0,
 * -ENOENT when the file lacks KEY, or as meminfo_read().
 */
int meminfo_get(const struct sysroot *sr, const char *key, uint64_t *v);

/* One proc/vmstat counter into *V. Returns 0, -ENOENT when absent, or as vmstat_read(). */
int vmstat_get(const struct sysroot *sr, const char *key, uint64_t *v);

#endif
