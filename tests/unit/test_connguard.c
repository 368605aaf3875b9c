// SPDX-License-Identifier: MIT
/* Unit tests: src/cmd/connguard.c (the exporter's connection limits, eviction, deadlines). */
#include "unit.h"

#include <math.h>

#include "cmd/connguard.h"

static const uint8_t A[16] = {[10] = 0xff, [11] = 0xff, 127, 0, 0, 1};
static const uint8_t B[16] = {[10] = 0xff, [11] = 0xff, 10, 0, 0, 2};

/* bytes received, by fd (the tests use fds below 64) */
static uint64_t rxv[64];
static uint64_t fake_rx(int fd, void *arg)
{
	(void)arg;
	return rxv[fd];
}

/* A guard and the victims its last admit named. */
struct cg {
	struct connguard g;
	int v[2];
	size_t nv;
};

static void cg_init(struct cg *t, size_t max_total, size_t max_per_addr, double request_s,
		    double response_s)
{
	memset(t, 0, sizeof(*t));
	connguard_init(&t->g, max_total, max_per_addr, request_s, response_s);
}

/* connguard_admit FD from ADDR at NOW, victims into T. */
static int admit(struct cg *t, int fd, const uint8_t *addr, double now)
{
	return connguard_admit(&t->g, fd, addr, now, fake_rx, NULL, t->v, &t->nv);
}

/* admit FD from ADDR at NOW and take it over at once; the entry */
static struct cg_conn *add(struct cg *t, int fd, const uint8_t *addr, double now)
{
	assert_int_equal(admit(t, fd, addr, now), 0);
	struct cg_conn *c = connguard_started(&t->g, fd, addr, now + 0.001);
	assert_non_null(c);
	return c;
}

static void test_per_address_eviction(UNIT_STATE)
{
	struct cg t;
	cg_init(&t, 10, 3, 3.0, 10.0);
	struct cg_conn *c1 = add(&t, 11, A, 1.0);
	add(&t, 12, A, 1.1);
	add(&t, 13, A, 1.2);
	assert_int_equal(t.nv, 0);
	add(&t, 21, B, 1.3); /* another address: its own budget */
	assert_int_equal(t.nv, 0);
	assert_int_equal(connguard_count_addr(&t.g, A), 3);
	/* the 4th from A evicts A's oldest (fd 11), not B's */
	add(&t, 14, A, 2.0);
	assert_int_equal(t.nv, 1);
	assert_int_equal(t.v[0], 11);
	assert_true(c1->doomed);
	assert_int_equal(t.g.counts[CG_EVICT_ADDR], 1);
	assert_int_equal(connguard_count_addr(&t.g, A), 3);
	assert_int_equal(t.g.live, 4);
	assert_int_equal(t.g.doomed, 1);
	connguard_closed(&t.g, c1);
	assert_int_equal(t.g.doomed, 0);
	connguard_free(&t.g);
}

static void test_busy_never_evicted(UNIT_STATE)
{
	struct cg t;
	cg_init(&t, 10, 2, 3.0, 10.0);
	struct cg_conn *c1 = add(&t, 11, A, 1.0);
	struct cg_conn *c2 = add(&t, 12, A, 1.1);
	connguard_headers(&t.g, c1, 1.2);
	/* c1 is answering: the newer but waiting c2 goes */
	add(&t, 13, A, 1.3);
	assert_int_equal(t.nv, 1);
	assert_int_equal(t.v[0], 12);
	assert_true(c2->doomed && !c1->doomed);
	/* all of A's busy: refused, nothing evicted */
	connguard_headers(&t.g, t.g.tail, 1.4);
	assert_int_equal(admit(&t, 14, A, 1.5), -EBUSY);
	assert_int_equal(t.nv, 0);
	assert_int_equal(t.g.counts[CG_REFUSED], 1);
	/* pending (not yet taken over) ones count but are never victims */
	assert_int_equal(admit(&t, 21, B, 1.6), 0);
	assert_int_equal(admit(&t, 22, B, 1.7), 0);
	assert_int_equal(admit(&t, 23, B, 1.8), -EBUSY);
	assert_int_equal(t.g.pending, 2);
	connguard_forget(&t.g, 22);
	assert_int_equal(t.g.pending, 1);
	assert_int_equal(connguard_count_addr(&t.g, B), 1);
	connguard_free(&t.g);
}

static void test_total_eviction_oldest_idle(UNIT_STATE)
{
	struct cg t;
	cg_init(&t, 3, 3, 3.0, 10.0);
	struct cg_conn *c1 = add(&t, 11, A, 1.0);
	struct cg_conn *c2 = add(&t, 21, B, 1.1);
	struct cg_conn *c3 = add(&t, 22, B, 1.2);
	/* c1 served a request and went idle at 5.0: now c2 (waiting since 1.1) is oldest */
	connguard_headers(&t.g, c1, 1.5);
	connguard_completed(&t.g, c1, 5.0, 100);
	add(&t, 31, B, 5.1);
	assert_int_equal(t.nv, 1);
	assert_int_equal(t.v[0], 21);
	assert_true(c2->doomed && !c3->doomed && !c1->doomed);
	assert_int_equal(t.g.counts[CG_EVICT_TOTAL], 1);
	connguard_closed(&t.g, c2);
	connguard_free(&t.g);
	connguard_init(&t.g, 2, 1, 3.0, 10.0);
	add(&t, 11, A, 1.0);
	add(&t, 21, B, 1.1);
	add(&t, 22, B, 1.2);
	assert_int_equal(t.nv, 1); /* B's own oldest: the total then has room, one victim */
	assert_int_equal(t.v[0], 21);
	connguard_free(&t.g);
}

static void test_deadlines(UNIT_STATE)
{
	struct cg t;
	cg_init(&t, 10, 10, 3.0, 10.0);
	int out[8];
	/* accepted at 1.0 (taken over a little later): headers due by 4.0 */
	assert_int_equal(admit(&t, 11, A, 1.0), 0);
	struct cg_conn *c1 = connguard_started(&t.g, 11, A, 1.5);
	assert_true(fabs(c1->deadline - 4.0) < 1e-9);
	struct cg_conn *c2 = add(&t, 12, A, 1.0);
	connguard_headers(&t.g, c2, 2.0);
	assert_true(fabs(connguard_next(&t.g, 2.0, 0.25) - 2.0) < 1e-9);
	assert_int_equal(connguard_expire(&t.g, 3.9, fake_rx, NULL, out, 8), 0);
	assert_int_equal(connguard_expire(&t.g, 4.0, fake_rx, NULL, out, 8), 1);
	assert_int_equal(out[0], 11);
	assert_int_equal(t.g.counts[CG_DL_REQUEST], 1);
	/* the response deadline: 10 s after the headers */
	assert_int_equal(connguard_expire(&t.g, 11.9, fake_rx, NULL, out, 8), 0);
	connguard_completed(&t.g, c2, 11.0, 500);
	/* idle: no deadline until a byte of the next request arrives; then 3 s from then */
	rxv[12] = 500;
	assert_int_equal(connguard_expire(&t.g, 30.0, fake_rx, NULL, out, 8), 0);
	assert_true(fabs(connguard_next(&t.g, 30.0, 0.25) - 0.25) < 1e-9);
	rxv[12] = 501;
	assert_int_equal(connguard_expire(&t.g, 31.0, fake_rx, NULL, out, 8), 0);
	assert_true(fabs(c2->deadline - 34.0) < 1e-9);
	assert_int_equal(connguard_expire(&t.g, 34.0, fake_rx, NULL, out, 8), 1);
	assert_int_equal(out[0], 12);
	assert_int_equal(t.g.counts[CG_DL_REQUEST], 2);
	/* a busy one past its response deadline */
	connguard_closed(&t.g, c1);
	connguard_closed(&t.g, c2);
	struct cg_conn *c3 = add(&t, 13, A, 40.0);
	connguard_headers(&t.g, c3, 40.5);
	assert_int_equal(connguard_expire(&t.g, 50.5, fake_rx, NULL, out, 8), 1);
	assert_int_equal(t.g.counts[CG_DL_RESPONSE], 1);
	/* doomed ones are not handed out twice; nothing due: -1 */
	assert_int_equal(connguard_expire(&t.g, 60.0, fake_rx, NULL, out, 8), 0);
	assert_true(connguard_next(&t.g, 60.0, 0.25) < 0);
	/* a pending entry never taken over is forgotten (not shut down) after 30 s */
	assert_int_equal(admit(&t, 14, B, 70.0), 0);
	assert_int_equal(connguard_expire(&t.g, 100.0, fake_rx, NULL, out, 8), 0);
	assert_int_equal(t.g.pending, 0);
	assert_int_equal(connguard_count_addr(&t.g, B), 0);
	connguard_free(&t.g);
}

static void test_silent_first(UNIT_STATE)
{
	memset(rxv, 0, sizeof(rxv));
	struct cg t;
	cg_init(&t, 10, 3, 3.0, 10.0);
	struct cg_conn *c1 = add(&t, 11, A, 1.0);
	add(&t, 12, A, 1.1);
	add(&t, 13, A, 1.2);
	/* the oldest two have sent part of a request: the younger, silent fd 13 goes */
	rxv[11] = 5;
	rxv[12] = 30;
	add(&t, 14, A, 1.3);
	assert_int_equal(t.nv, 1);
	assert_int_equal(t.v[0], 13);
	assert_true(c1->spoke);
	/* all that remain spoke (14 too): then the one waiting longest */
	rxv[14] = 1;
	add(&t, 15, A, 1.4);
	assert_int_equal(t.nv, 1);
	assert_int_equal(t.v[0], 11);
	/* idle keep-alive: silent means nothing since its response */
	struct cg_conn *c2 = t.g.head->next; /* fd 12 */
	assert_int_equal(c2->fd, 12);
	connguard_headers(&t.g, c2, 2.0);
	connguard_completed(&t.g, c2, 2.1, 30);
	assert_false(c2->spoke);
	rxv[15] = 3;
	add(&t, 16, A, 2.2);
	assert_int_equal(t.v[0], 12);
	connguard_free(&t.g);
	memset(rxv, 0, sizeof(rxv));
}

static void test_stale_pending(UNIT_STATE)
{
	struct cg t;
	cg_init(&t, 10, 10, 3.0, 10.0);
	/* fd 11 handed on at 1.0 and closed unseen; the number comes back at 5.0 */
	assert_int_equal(admit(&t, 11, A, 1.0), 0);
	assert_int_equal(admit(&t, 11, A, 5.0), 0);
	struct cg_conn *c = connguard_started(&t.g, 11, A, 5.1);
	assert_true(fabs(c->since - 5.0) < 1e-9); /* the newer one: due at 8.0, not 4.0 */
	assert_int_equal(t.g.pending, 1);
	int out[4];
	assert_int_equal(connguard_expire(&t.g, 7.0, fake_rx, NULL, out, 4), 0);
	/* the stale one is forgotten after 30 s, never shut down */
	assert_int_equal(connguard_expire(&t.g, 31.0, fake_rx, NULL, out, 4), 1);
	assert_int_equal(out[0], 11); /* that is the live one, past its deadline */
	assert_int_equal(t.g.pending, 0);
	assert_int_equal(t.g.live, 0);
	connguard_free(&t.g);
}

static void test_doomed_bound(UNIT_STATE)
{
	struct cg t;
	cg_init(&t, 2, 1, 3.0, 10.0); /* at most 2 doomed */
	for (int i = 0; i < 3; i++)
		add(&t, 10 + i, A, 1.0 + i);
	assert_int_equal(t.g.doomed, 2);
	assert_false(connguard_accepting(&t.g));
	/* the HTTP threads have closed none yet: the next one is refused */
	assert_int_equal(admit(&t, 20, A, 9.0), -EBUSY);
	assert_int_equal(t.nv, 0);
	connguard_free(&t.g);
}

UNIT_TESTS(test_per_address_eviction, test_busy_never_evicted, test_total_eviction_oldest_idle,
	   test_deadlines, test_silent_first, test_stale_pending, test_doomed_bound)
