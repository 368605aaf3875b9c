// SPDX-License-Identifier: MIT
/* The exporter's connection guard: limits, eviction, deadlines (see connguard.h). */
#include "connguard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void connguard_init(struct connguard *g, size_t max_total, size_t max_per_addr, double request_s,
		    double response_s)
{
	memset(g, 0, sizeof(*g));
	g->max_total = max_total;
	g->max_per_addr = max_per_addr;
	/* shut down but not closed yet: bounded too (their fds are still open) */
	g->max_doomed = max_total;
	g->max_pending = max_total / 8 ? max_total / 8 : 1;
	g->request_s = request_s;
	g->response_s = response_s;
	g->pending_s = 30;
}

static void unlink_conn(struct connguard *g, struct cg_conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		g->tail = c->prev;
	if (c->doomed)
		g->doomed--;
	else
		g->live--;
	if (!c->doomed && c->state == CG_PENDING)
		g->pending--;
}

void connguard_free(struct connguard *g)
{
	struct cg_conn *c = g->head;
	while (c) {
		struct cg_conn *n = c->next;
		free(c);
		c = n;
	}
	g->head = g->tail = NULL;
	g->live = g->pending = g->doomed = 0;
}

static bool evictable(const struct cg_conn *c)
{
	return !c->doomed && (c->state == CG_NEW || c->state == CG_IDLE);
}

/* The evictable connection waiting longest (from ADDR if not NULL), except SKIP; with
 * UNSPOKEN, only among those not known to have sent a byte. */
static struct cg_conn *oldest(const struct connguard *g, const uint8_t *addr,
			      const struct cg_conn *skip, bool unspoken)
{
	struct cg_conn *best = NULL;
	for (struct cg_conn *c = g->head; c; c = c->next) {
		if (c == skip || !evictable(c) || (unspoken && c->spoke) ||
		    (addr && memcmp(c->addr, addr, 16) != 0))
			continue;
		if (!best || c->since < best->since)
			best = c;
	}
	return best;
}

/* The victim: the silent connection waiting longest, else the one waiting longest. */
static struct cg_conn *victim(const struct connguard *g, const uint8_t *addr,
			      const struct cg_conn *skip, uint64_t (*rx)(int fd, void *arg),
			      void *arg)
{
	struct cg_conn *c;
	/* each candidate's byte count is read at most once: one that spoke is marked */
	while (rx && (c = oldest(g, addr, skip, true))) {
		uint64_t mark = c->state == CG_IDLE ? c->rx_mark : 0;
		if (rx(c->fd, arg) <= mark)
			return c;
		c->spoke = true;
	}
	return oldest(g, addr, skip, false);
}

static void doom(struct connguard *g, struct cg_conn *c, enum cg_reason why)
{
	c->doomed = true;
	g->live--;
	g->doomed++;
	g->counts[why]++;
}

bool connguard_accepting(const struct connguard *g)
{
	return g->pending < g->max_pending && g->doomed < g->max_doomed;
}

size_t connguard_count_addr(const struct connguard *g, const uint8_t addr[16])
{
	size_t n = 0;
	for (const struct cg_conn *c = g->head; c; c = c->next)
		if (!c->doomed && memcmp(c->addr, addr, 16) == 0)
			n++;
	return n;
}

/* Append C (fd FD from ADDR, seen at NOW) to G's list of connections, oldest first. */
static void track(struct connguard *g, struct cg_conn *c, int fd, const uint8_t *addr, double now)
{
	c->fd = fd;
	memcpy(c->addr, addr, 16);
	c->since = now;
	c->prev = g->tail;
	if (g->tail)
		g->tail->next = c;
	else
		g->head = c;
	g->tail = c;
	g->live++;
}

int connguard_admit(struct connguard *g, int fd, const uint8_t addr[16], double now,
		    uint64_t (*rx)(int fd, void *arg), void *arg, int victims[2], size_t *nvictims)
{
	*nvictims = 0;
	struct cg_conn *v1 = NULL, *v2 = NULL;
	if (g->doomed >= g->max_doomed)
		goto refuse;
	if (connguard_count_addr(g, addr) >= g->max_per_addr) {
		v1 = victim(g, addr, NULL, rx, arg);
		if (!v1)
			goto refuse;
	}
	if (g->live - (v1 ? 1 : 0) >= g->max_total) {
		v2 = victim(g, NULL, v1, rx, arg);
		if (!v2)
			goto refuse;
	}
	struct cg_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (v1) {
		doom(g, v1, CG_EVICT_ADDR);
		victims[(*nvictims)++] = v1->fd;
	}
	if (v2) {
		doom(g, v2, CG_EVICT_TOTAL);
		victims[(*nvictims)++] = v2->fd;
	}
	track(g, c, fd, addr, now);
	c->state = CG_PENDING;
	c->deadline = now + g->pending_s;
	g->pending++;
	return 0;
refuse:
	g->counts[CG_REFUSED]++;
	return -EBUSY;
}

/* The newest pending entry for FD (from ADDR if it has one): an older one for the same fd number
 * can only be a stale entry whose socket the HTTP library closed unseen. */
static struct cg_conn *find_pending(const struct connguard *g, int fd, const uint8_t *addr)
{
	struct cg_conn *any = NULL;
	for (struct cg_conn *c = g->tail; c; c = c->prev) {
		if (c->state != CG_PENDING || c->fd != fd || c->doomed)
			continue;
		if (!addr || memcmp(c->addr, addr, 16) == 0)
			return c;
		if (!any)
			any = c;
	}
	return any;
}

struct cg_conn *connguard_started(struct connguard *g, int fd, const uint8_t addr[16], double now)
{
	struct cg_conn *c = find_pending(g, fd, addr);
	if (c) {
		g->pending--;
	} else {
		/* forgotten while pending (very late), or never admitted: track it from now */
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		track(g, c, fd, addr, now);
	}
	c->state = CG_NEW;
	c->deadline = c->since + g->request_s;
	return c;
}

void connguard_forget(struct connguard *g, int fd)
{
	struct cg_conn *c = find_pending(g, fd, NULL);
	if (c) {
		unlink_conn(g, c);
		free(c);
	}
}

void connguard_closed(struct connguard *g, struct cg_conn *c)
{
	unlink_conn(g, c);
	free(c);
}

void connguard_headers(struct connguard *g, struct cg_conn *c, double now)
{
	c->state = CG_BUSY;
	c->since = now;
	c->deadline = now + g->response_s;
}

void connguard_completed(struct connguard *g, struct cg_conn *c, double now, uint64_t rx)
{
	(void)g;
	c->state = CG_IDLE;
	c->spoke = false;
	c->since = now;
	c->deadline = 0;
	c->rx_mark = rx;
}

size_t connguard_expire(struct connguard *g, double now, uint64_t (*rx)(int fd, void *arg),
			void *arg, int *out, size_t max)
{
	size_t n = 0;
	struct cg_conn *c = g->head;
	while (c && n < max) {
		struct cg_conn *next = c->next;
		if (c->doomed) {
			c = next;
			continue;
		}
		if (c->state == CG_IDLE && c->deadline == 0 && rx && rx(c->fd, arg) > c->rx_mark) {
			c->deadline = now + g->request_s; /* the first byte of the next request */
			c->spoke = true;
		}
		if (c->deadline > 0 && now >= c->deadline) {
			if (c->state == CG_PENDING) {
				/* never taken over: the HTTP library dropped it unseen */
				unlink_conn(g, c);
				free(c);
			} else {
				doom(g, c, c->state == CG_BUSY ? CG_DL_RESPONSE : CG_DL_REQUEST);
				out[n++] = c->fd;
			}
		}
		c = next;
	}
	return n;
}

double connguard_next(const struct connguard *g, double now, double poll_s)
{
	double best = -1;
	for (const struct cg_conn *c = g->head; c; c = c->next) {
		if (c->doomed)
			continue;
		double t;
		if (c->deadline > 0)
			t = c->deadline - now;
		else if (c->state == CG_IDLE)
			t = poll_s;
		else
			continue;
		if (t < 0)
			t = 0;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}
