// SPDX-License-Identifier: MIT
#include "buddyinfo.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "parse.h"
#include "sysroot.h"

/* "Node 0, zone   Normal   1174    490 ..." */
static int parse_zone(const char *s, const char *e, struct buddy_zone *z)
{
	memset(z, 0, sizeof(*z));
	const char *p = s;
	if (e - p < 5 || memcmp(p, "Node ", 5) != 0)
		return -EINVAL;
	p += 5;
	uint64_t v;
	if (parse_u64(&p, e, &v) || v > 65535)
		return -EINVAL;
	z->node = (int)v;
	if (p >= e || *p != ',')
		return -EINVAL;
	p++;
	while (p < e && *p == ' ')
		p++;
	if (e - p < 5 || memcmp(p, "zone ", 5) != 0)
		return -EINVAL;
	p += 5;
	while (p < e && *p == ' ')
		p++;
	const char *w = p;
	while (p < e && *p != ' ')
		p++;
	size_t wl = (size_t)(p - w);
	if (!wl || wl >= sizeof(z->zone))
		return -EINVAL;
	/* the kernel's zone names: DMA, DMA32, Normal, HighMem, Movable, Device */
	for (size_t i = 0; i < wl; i++)
		if (!((w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= 'a' && w[i] <= 'z') ||
		      (w[i] >= '0' && w[i] <= '9') || w[i] == '_'))
			return -EINVAL;
	memcpy(z->zone, w, wl);
	while (z->norders < BUDDY_MAX_ORDERS) {
		int r = parse_u64(&p, e, &v);
		if (r == -ERANGE)
			return r;
		if (r)
			break;
		z->free[z->norders++] = v;
	}
	while (p < e && (*p == ' ' || *p == '\r'))
		p++;
	return z->norders && p == e ? 0 : -EINVAL;
}

int buddyinfo_parse(const char *text, size_t len, struct buddyinfo *bi)
{
	memset(bi, 0, sizeof(*bi));
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		if (s == e)
			continue;
		/* procfs ends every line with '\n': a last line without one was cut */
		if (e == end || bi->nzones == BUDDY_MAX_ZONES ||
		    parse_zone(s, e, &bi->zones[bi->nzones])) {
			bi->bad++;
			continue;
		}
		bi->nzones++;
	}
	/*
	 * Every zone prints the same orders (0..MAX_PAGE_ORDER): a row with fewer
	 * was cut short, and its missing orders are unknown, not 0 free blocks.
	 */
	int most = 0;
	bool twice[BUDDY_MAX_ZONES] = {false};
	for (int i = 0; i < bi->nzones; i++) {
		if (bi->zones[i].norders > most)
			most = bi->zones[i].norders;
		/* a zone listed twice: which row is right is unknown */
		for (int j = 0; j < i; j++)
			if (bi->zones[j].node == bi->zones[i].node &&
			    !strcmp(bi->zones[j].zone, bi->zones[i].zone)) {
				bi->dup += !twice[i];
				twice[i] = twice[j] = true;
			}
	}
	int k = 0;
	for (int i = 0; i < bi->nzones; i++) {
		if (twice[i])
			continue;
		if (bi->zones[i].norders < most) {
			bi->bad++;
			continue;
		}
		bi->zones[k++] = bi->zones[i];
	}
	bi->nzones = k;
	return bi->nzones ? 0 : -EINVAL;
}

u128 buddy_blocks_at_least(const struct buddy_zone *z, int min_order)
{
	u128 n = 0;
	for (int o = min_order < 0 ? 0 : min_order; o < z->norders; o++)
		n += z->free[o];
	return n;
}

u128 buddy_pages_at_least(const struct buddy_zone *z, int min_order)
{
	u128 n = 0;
	for (int o = min_order < 0 ? 0 : min_order; o < z->norders; o++)
		n += (u128)z->free[o] << o; /* o < BUDDY_MAX_ORDERS (16) */
	return n;
}

int buddyinfo_read(const struct sysroot *sr, struct buddyinfo *bi)
{
	struct buf b = {0};
	memset(bi, 0, sizeof(*bi));
	int r = sysroot_read(sr, SR_PROC "/buddyinfo", &b);
	if (!r)
		r = buddyinfo_parse(b.p ? b.p : "", b.len, bi);
	buf_free(&b);
	return r;
}
