// SPDX-License-Identifier: MIT
#include "numa.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"
#include "../util/num.h"

#define SR_MEMORY_BLOCK_SIZE "sys/devices/system/memory/block_size_bytes"

/* A decimal number at *P (before END) into *V; false when none. */
static bool dec(const char **p, const char *end, unsigned long *v)
{
	if (*p >= end || **p < '0' || **p > '9')
		return false;
	unsigned long x = 0;
	while (*p < end && **p >= '0' && **p <= '9') {
		x = x * 10 + (unsigned long)(**p - '0');
		if (x >= NUMA_MAX_CPUS)
			return false;
		(*p)++;
	}
	*v = x;
	return true;
}

int cpulist_parse(const char *s, size_t len, struct cpuset *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = s, *end = s + len;
	while (end > p && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	while (p < end) {
		unsigned long a, b;
		if (!dec(&p, end, &a))
			return -EINVAL;
		b = a;
		if (p < end && *p == '-') {
			p++;
			if (!dec(&p, end, &b) || b < a)
				return -EINVAL;
		}
		for (unsigned long c = a; c <= b; c++)
			out->w[c / 64] |= 1ull << (c % 64);
		if (p < end && *p++ != ',')
			return -EINVAL;
	}
	return 0;
}

int numa_map_add(struct numa_nodes *m, uint64_t block, int node)
{
	if (m->n && m->r[m->n - 1].node == node && m->r[m->n - 1].last + 1 == block) {
		m->r[m->n - 1].last = block;
		return 0;
	}
	if (array_reserve(&m->r, &m->cap, m->n + 1, sizeof(*m->r), 64))
		return -ENOMEM;
	m->r[m->n++] = (struct numa_range){.first = block, .last = block, .node = node};
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct numa_range *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

void numa_map_finish(struct numa_nodes *m)
{
	if (!m->n)
		return;
	qsort(m->r, m->n, sizeof(*m->r), cmp_range);
	size_t k = 0;
	for (size_t i = 1; i < m->n; i++) {
		if (m->r[i].node == m->r[k].node && m->r[i].first <= m->r[k].last + 1) {
			if (m->r[i].last > m->r[k].last)
				m->r[k].last = m->r[i].last;
		} else {
			m->r[++k] = m->r[i];
		}
	}
	m->n = k + 1;
}

int numa_node_of_pfn(const struct numa_nodes *m, uint64_t pfn, uint64_t page_size)
{
	if (!m->block_bytes || !page_size || !m->n)
		return -1;
	uint64_t pages = m->block_bytes / page_size;
	if (!pages)
		return -1;
	uint64_t block = pfn / pages;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->r[mid].last < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->r[lo].first <= block ? m->r[lo].node : -1;
}

int numa_index(const struct numa_nodes *m, int node)
{
	for (int i = 0; i < m->nnodes; i++)
		if (m->id[i] == node)
			return i;
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* The memoryM entries of node NODE's directory REL. */
static int read_blocks(const struct sysroot *sr, const char *rel, int node, struct numa_nodes *m)
{
	DIR *d = sysroot_opendir(sr, rel);
	if (!d)
		return 0;
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d))) {
		uint64_t b;
		if (strncmp(de->d_name, "memory", 6) == 0 &&
		    str_u64(de->d_name + 6, 0, UINT64_MAX / 2, &b) == 0)
			r = numa_map_add(m, b, node);
	}
	closedir(d);
	return r;
}

int numa_nodes_read(const struct sysroot *sr, struct numa_nodes *m)
{
	struct buf b = {0};
	uint64_t bs;
	if (sysroot_read(sr, SR_MEMORY_BLOCK_SIZE, &b) == 0) {
		char tmp[32];
		size_t n = b.len < sizeof(tmp) - 1 ? b.len : sizeof(tmp) - 1;
		memcpy(tmp, b.p, n);
		tmp[n] = '\0';
		char *e;
		errno = 0;
		bs = strtoull(tmp, &e, 16);
		if (!errno && e != tmp && (*e == '\n' || !*e) && bs)
			m->block_bytes = bs;
	}
	DIR *d = sysroot_opendir(sr, SR_NODES);
	if (d) {
		struct dirent *de;
		long id;
		while ((de = readdir(d)) && m->nnodes < NUMA_MAX_NODES)
			if (strncmp(de->d_name, "node", 4) == 0 &&
			    str_long(de->d_name + 4, 0, 65535, &id) == 0)
				m->id[m->nnodes++] = (int)id;
		closedir(d);
	}
	qsort(m->id, (size_t)m->nnodes, sizeof(m->id[0]), cmp_int);
	int r = 0;
	for (int i = 0; i < m->nnodes && !r; i++) {
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), "%s/node%d", SR_NODES, m->id[i]);
		r = read_blocks(sr, rel, m->id[i], m);
		if (!r && sysroot_readf(sr, &b, "%s/node%d/cpulist", SR_NODES, m->id[i]) == 0)
			m->has_cpus[i] = cpulist_parse(b.p, b.len, &m->cpus[i]) == 0;
	}
	buf_free(&b);
	numa_map_finish(m);
	return r;
}

void numa_nodes_free(struct numa_nodes *m)
{
	free(m->r);
	memset(m, 0, sizeof(*m));
}

/* Cpus_allowed_list of the status file REL added to OUT. 0, -ENOENT (no such line) or -errno. */
static int add_allowed(const struct sysroot *sr, const char *rel, struct buf *b, struct cpuset *out)
{
	int r = sysroot_read(sr, rel, b);
	if (r)
		return r;
	static const char key[] = "Cpus_allowed_list:";
	const char *p = b->p, *end = b->p + b->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if ((size_t)(e - p) >= sizeof(key) - 1 && memcmp(p, key, sizeof(key) - 1) == 0) {
			const char *v = p + sizeof(key) - 1;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			struct cpuset s;
			if (cpulist_parse(v, (size_t)(e - v), &s))
				return -EINVAL;
			for (size_t i = 0; i < sizeof(s.w) / sizeof(s.w[0]); i++)
				out->w[i] |= s.w[i];
			return 0;
		}
		p = e + 1;
	}
	return -ENOENT;
}

int numa_proc_allowed(const struct sysroot *sr, pid_t pid, struct cpuset *out)
{
	memset(out, 0, sizeof(*out));
	char rel[PATH_MAX];
	struct buf b = {0};
	int r = -ENOENT, any = 0;
	char who[16];
	if (pid)
		snprintf(who, sizeof(who), "%d", (int)pid);
	else
		snprintf(who, sizeof(who), "self");
	snprintf(rel, sizeof(rel), SR_PROC "/%s/task", who);
	DIR *d = sysroot_opendir(sr, rel);
	if (d) {
		struct dirent *de;
		long tid;
		while ((de = readdir(d)))
			if (str_long(de->d_name, 1, INT_MAX, &tid) == 0) {
				snprintf(rel, sizeof(rel), SR_PROC "/%s/task/%ld/status", who, tid);
				if (add_allowed(sr, rel, &b, out) == 0)
					any++;
			}
		closedir(d);
	}
	if (!any) {
		snprintf(rel, sizeof(rel), SR_PROC "/%s/status", who);
		r = add_allowed(sr, rel, &b, out);
		if (r == -ENOENT && sysroot_exists(sr, rel) != 0)
			r = -ESRCH;
	} else {
		r = 0;
	}
	buf_free(&b);
	return r;
}

bool numa_node_present(const struct sysroot *sr, int node)
{
	char rel[96];
	snprintf(rel, sizeof(rel), SR_NODES "/node%d", node);
	return sysroot_exists(sr, rel) == 0;
}
