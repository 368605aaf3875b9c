// SPDX-License-Identifier: MIT
#include "hugetlb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"

/* DIR/FILE as one whole number into O; a file there but unusable is noted in H. */
static void read_num(const struct sysroot *sr, struct buf *b, const char *dir, const char *file,
		     struct opt_u64 *o, struct hugetlb *h)
{
	o->present = false;
	int e = sysroot_readf(sr, b, "%s/%s", dir, file);
	if (e == 0 && parse_u64_text(b->p, b->len, &o->v) == 0) {
		o->present = true;
		return;
	}
	if (e == -ENOENT)
		return; /* this kernel has no such file: absent, not damaged */
	if (!h->nbad++)
		snprintf(h->bad, sizeof(h->bad), "%s/%s (%s)", dir, file,
			 e ? read_err_str(e) : "malformed");
}

static int cmp_pool(const void *a, const void *b)
{
	const struct hugetlb_pool *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->size_kb < y->size_kb ? -1 : x->size_kb > y->size_kb;
}

/* Pools of one hugepages/ directory (global when NODE is -1). */
static void read_pools(const struct sysroot *sr, struct buf *b, const char *base, int node,
		       struct hugetlb *h)
{
	struct sr_dirlist dl; /* the pool sizes are the kernel's, set at boot: kept by a cache */
	if (sysroot_listdir(sr, base, &dl))
		return;
	const char *name = dl.names;
	for (size_t i = 0; i < dl.n && h->npools < HUGETLB_MAX_POOLS;
	     i++, name += strlen(name) + 1) {
		uint64_t kb = hugepages_dirname_kb(name);
		if (!kb)
			continue;
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/%s", base, name);
		struct hugetlb_pool *p = &h->pools[h->npools++];
		memset(p, 0, sizeof(*p));
		p->size_kb = kb;
		p->node = node;
		read_num(sr, b, dir, "nr_hugepages", &p->nr, h);
		read_num(sr, b, dir, "free_hugepages", &p->free, h);
		read_num(sr, b, dir, "surplus_hugepages", &p->surplus, h);
		if (node < 0) {
			read_num(sr, b, dir, "resv_hugepages", &p->resv, h);
			read_num(sr, b, dir, "nr_overcommit_hugepages", &p->overcommit, h);
		}
	}
	sysroot_dirlist_free(&dl);
}

int hugetlb_read(const struct sysroot *sr, struct hugetlb *h)
{
	memset(h, 0, sizeof(*h));
	struct buf b = {0};
	read_pools(sr, &b, SR_HUGETLB, -1, h);
	DIR *d = sysroot_opendir(sr, SR_NODES);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			long n;
			if (strncmp(de->d_name, "node", 4) != 0 ||
			    str_long(de->d_name + 4, 0, 65535, &n))
				continue;
			char base[PATH_MAX];
			snprintf(base, sizeof(base), "%s/%s/hugepages", SR_NODES, de->d_name);
			read_pools(sr, &b, base, (int)n, h);
		}
		closedir(d);
	}
	buf_free(&b);
	qsort(h->pools, (size_t)h->npools, sizeof(h->pools[0]), cmp_pool);
	return 0;
}
