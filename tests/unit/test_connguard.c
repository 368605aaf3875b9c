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

/* admit FD from ADDR at NOW and take it over at once; the entry */
static struct cg_conn *add(struct connguard *g, int fd, const uint8_t *addr, double now, int *v,
			   size_t *nv)
{
	assert_int_equal(connguard_admit(g, fd, addr, now, fake_rx, NULL, v, nv), 0);
	struct cg_conn *c = connguard_started(g, fd, addr, now + 0.001);
	assert_non_null(c);
	return c;
}

static void test_per_address_eviction(void **state)
{
	(void)state;
	struct connguard g;
	connguard_init(&g, 10, 3, 3.0, 10.0);
	int v[2];
	size_t nv;
	struct cg_conn *c1 = add(&g, 11, A, 1.0, v, &nv);
	add(&g, 12, A, 1.1, v, &nv);
	add(&g, 13, A, 1.2, v, &nv);
	assert_int_equal(nv, 0);
	add(&g, 21, B, 1.3, v, &nv); /* another address: its own budget */
	assert_int_equal(nv, 0);
	assert_int_equal(connguard_count_addr(&g, A), 3);
	/* the 4th from A evicts A's oldest (fd 11), not B's */
	add(&g, 14, A, 2.0, v, &nv);
	assert_int_equal(nv, 1);
	assert_int_equal(v[0], 11);
	assert_true(c1->doomed);
	assert_int_equal(g.counts[CG_EVICT_ADDR], 1);
	assert_int_equal(connguard_count_addr(&g, A), 3);
	assert_int_equal(g.live, 4);
	assert_int_equal(g.doomed, 1);
	connguard_closed(&g, c1);
	assert_int_equal(g.doomed, 0);
	connguard_free(&g);
}

static void test_busy_never_evicted(void **state)
{
	(void)state;
	struct connguard g;
	connguard_init(&g, 10, 2, 3.0, 10.0);
	int v[2];
	size_t nv;
	struct cg_conn *c1 = add(&g, 11, A, 1.0, v, &nv);
	struct cg_conn *c2 = add(&g, 12, A, 1.1, v, &nv);
	connguard_headers(&g, c1, 1.2);
	/* c1 is answering: the newer but waiting c2 goes */
	add(&g, 13, A, 1.3, v, &nv);
	assert_int_equal(nv, 1);
	assert_int_equal(v[0], 12);
	assert_true(c2->doomed && !c1->doomed);
	/* all of A's busy: refused, nothing evicted */
	connguard_headers(&g, g.tail, 1.4);
	assert_int_equal(connguard_admit(&g, 14, A, 1.5, fake_rx, NULL, v, &nv), -EBUSY);
	assert_int_equal(nv, 0);
	assert_int_equal(g.counts[CG_REFUSED], 1);
	/* pending (not yet taken over) ones count but are never victims */
	assert_int_equal(connguard_admit(&g, 21, B, 1.6, fake_rx, NULL, v, &nv), 0);
	assert_int_equal(connguard_admit(&g, 22, B, 1.7, fake_rx, NULL, v, &nv), 0);
	assert_int_equal(connguard_admit(&g, 23, B, 1.8, fake_rx, NULL, v, &nv), -EBUSY);
	assert_int_equal(g.pending, 2);
	connguard_forget(&g, 22);
	assert_int_equal(g.pending, 1);
	assert_int_equal(connguard_count_addr(&g, B), 1);
	connguard_free(&g);
}

static void test_total_eviction_oldest_idle(void **state)
{
	(void)state;
	struct connguard g;
	connguard_init(&g, 3, 3, 3.0, 10.0);
	int v[2];
	size_t nv;
	struct cg_conn *c1 = add(&g, 11, A, 1.0, v, &nv);
	struct cg_conn *c2 = add(&g, 21, B, 1.1, v, &nv);
	struct cg_conn *c3 = add(&g, 22, B, 1.2, v, &nv);
	/* c1 served a request and went idle at 5.0: now c2 (waiting since 1.1) is oldest */
	connguard_headers(&g, c1, 1.5);
	connguard_completed(&g, c1, 5.0, 100);
	add(&g, 31, B, 5.1, v, &nv);
	assert_int_equal(nv, 1);
	assert_int_equal(v[0], 21);
	assert_true(c2->doomed && !c3->doomed && !c1->doomed);
	assert_int_equal(g.counts[CG_EVICT_TOTAL], 1);
	connguard_closed(&g, c2);
	connguard_free(&g);
	connguard_init(&g, 2, 1, 3.0, 10.0);
	add(&g, 11, A, 1.0, v, &nv);
	add(&g, 21, B, 1.1, v, &nv);
	add(&g, 22, B, 1.2, v, &nv);
	assert_int_equal(nv, 1); /* B's own oldest: the total then has room, one victim */
	assert_int_equal(v[0], 21);
	connguard_free(&g);
}

static void test_deadlines(void **state)
{
	(void)state;
	struct connguard g;
	connguard_init(&g, 10, 10, 3.0, 10.0);
	int v[2], out[8];
	size_t nv;
	/* accepted at 1.0 (taken over a little later): headers due by 4.0 */
	assert_int_equal(connguard_admit(&g, 11, A, 1.0, fake_rx, NULL, v, &nv), 0);
	struct cg_conn *c1 = connguard_started(&g, 11, A, 1.5);
	assert_true(fabs(c1->deadline - 4.0) < 1e-9);
	struct cg_conn *c2 = add(&g, 12, A, 1.0, v, &nv);
	connguard_headers(&g, c2, 2.0);
	assert_true(fabs(connguard_next(&g, 2.0, 0.25) - 2.0) < 1e-9);
	assert_int_equal(connguard_expire(&g, 3.9, fake_rx, NULL, out, 8), 0);
	assert_int_equal(connguard_expire(&g, 4.0, fake_rx, NULL, out, 8), 1);
	assert_int_equal(out[0], 11);
	assert_int_equal(g.counts[CG_DL_REQUEST], 1);
	/* the response deadline: 10 s after the headers */
	assert_int_equal(connguard_expire(&g, 11.9, fake_rx, NULL, out, 8), 0);
	connguard_completed(&g, c2, 11.0, 500);
	/* idle: no deadline until a byte of the next request arrives; then 3 s from then */
	rxv[12] = 500;
	assert_int_equal(connguard_expire(&g, 30.0, fake_rx, NULL, out, 8), 0);
	assert_true(fabs(connguard_next(&g, 30.0, 0.25) - 0.25) < 1e-9);
	rxv[12] = 501;
	assert_int_equal(connguard_expire(&g, 31.0, fake_rx, NULL, out, 8), 0);
	assert_true(fabs(c2->deadline - 34.0) < 1e-9);
	assert_int_equal(connguard_expire(&g, 34.0, fake_rx, NULL, out, 8), 1);
	assert_int_equal(out[0], 12);
	assert_int_equal(g.counts[CG_DL_REQUEST], 2);
	/* a busy one past its response deadline */
	connguard_closed(&g, c1);
	connguard_closed(&g, c2);
	struct cg_conn *c3 = add(&g, 13, A, 40.0, v, &nv);
	connguard_headers(&g, c3, 40.5);
	assert_int_equal(connguard_expire(&g, 50.5, fake_rx, NULL, out, 8), 1);
	assert_int_equal(g.counts[CG_DL_RESPONSE], 1);
	/* doomed ones are not handed out twice; nothing due: -1 */
	assert_int_equal(connguard_expire(&g, 60.0, fake_rx, NULL, out, 8), 0);
	assert_true(connguard_next(&g, 60.0, 0.25) < 0);
	/* a pending entry never taken over is forgotten (not shut down) after 30 s */
	assert_int_equal(connguard_admit(&g, 14, B, 70.0, fake_rx, NULL, v, &nv), 0);
	assert_int_equal(connguard_expire(&g, 100.0, fake_rx, NULL, out, 8), 0);
	assert_int_equal(g.pending, 0);
	assert_int_equal(connguard_count_addr(&g, B), 0);
	connguard_free(&g);
}

static void test_silent_first(void **state)
{
	(void)state;
	memset(rxv, 0, sizeof(rxv));
	struct connguard g;
	connguard_init(&g, 10, 3, 3.0, 10.0);
	int v[2];
	size_t nv;
	struct cg_conn *c1 = add(&g, 11, A, 1.0, v, &nv);
	add(&g, 12, A, 1.1, v, &nv);
	add(&g, 13, A, 1.2, v, &nv);
	/* the oldest two have sent part of a request: the younger, silent fd 13 goes */
	rxv[11] = 5;
	rxv[12] = 30;
	add(&g, 14, A, 1.3, v, &nv);
	assert_int_equal(nv, 1);
	assert_int_equal(v[0], 13);
	assert_true(c1->spoke);
	/* all that remain spoke (14 too): then the one waiting longest */
	rxv[14] = 1;
	add(&g, 15, A, 1.4, v, &nv);
	assert_int_equal(nv, 1);
	assert_int_equal(v[0], 11);
	/* idle keep-alive: silent means nothing since its response */
	struct cg_conn *c2 = g.head->next; /* fd 12 */
	assert_int_equal(c2->fd, 12);
	connguard_headers(&g, c2, 2.0);
	connguard_completed(&g, c2, 2.1, 30);
	assert_false(c2->spoke);
	rxv[15] = 3;
	add(&g, 16, A, 2.2, v, &nv);
	assert_int_equal(v[0], 12);
	connguard_free(&g);
	memset(rxv, 0, sizeof(rxv));
}

static void test_stale_pending(void **state)
{
	(void)state;
	struct connguard g;
	connguard_init(&g, 10, 10, 3.0, 10.0);
	int v[2];
	size_t nv;
	/* fd 11 handed on at 1.0 and closed unseen; the number comes back at 5.0 */
	assert_int_equal(connguard_admit(&g, 11, A, 1.0, fake_rx, NULL, v, &nv), 0);
	assert_int_equal(connguard_admit(&g, 11, A, 5.0, fake_rx, NULL, v, &nv), 0);
	struct cg_conn *c = connguard_started(&g, 11, A, 5.1);
	assert_true(fabs(c->since - 5.0) < 1e-9); /* the newer one: due at 8.0, not 4.0 */
	assert_int_equal(g.pending, 1);
	int out[4];
	assert_int_equal(connguard_expire(&g, 7.0, fake_rx, NULL, out, 4), 0);
	/* the stale one is forgotten after 30 s, never shut down */
	assert_int_equal(connguard_expire(&g, 31.0, fake_rx, NULL, out, 4), 1);
	assert_int_equal(out[0], 11); /* that is the live one, past its deadline */
	assert_int_equal(g.pending, 0);
	assert_int_equal(g.live, 0);
	connguard_free(&g);
}

static void test_doomed_bound(void **state)
{
	(void)state;
	struct connguard g;
	connguard_init(&g, 2, 1, 3.0, 10.0); /* at most 2 doomed */
	int v[2];
	size_t nv;
	for (int i = 0; i < 3; i++)
		add(&g, 10 + i, A, 1.0 + i, v, &nv);
	assert_int_equal(g.doomed, 2);
	assert_false(connguard_accepting(&g));
	/* the HTTP threads have closed none yet: the next one is refused */
	assert_int_equal(connguard_admit(&g, 20, A, 9.0, fake_rx, NULL, v, &nv), -EBUSY);
	assert_int_equal(nv, 0);
	connguard_free(&g);
}

UNIT_MAIN(cmocka_unit_test(test_per_address_eviction), cmocka_unit_test(test_busy_never_evicted),
	  cmocka_unit_test(test_total_eviction_oldest_idle), cmocka_unit_test(test_deadlines),
	  cmocka_unit_test(test_silent_first), cmocka_unit_test(test_stale_pending),
	  cmocka_unit_test(test_doomed_bound))
