// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/allocators_calls.c and churn.c's parser (the decisions of lab allocators). */
#include "unit.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lab/allocators_calls.h"
#include "lab/churn.h"

static void test_rounds_must_agree_and_be_two(UNIT_STATE)
{
	char why[200] = "";
	enum claim_call c[3] = {CLAIM_CONFIRMED, CLAIM_CONFIRMED, CLAIM_CONFIRMED};
	assert_int_equal(al_rounds_agree(c, 2, why, sizeof(why)), CLAIM_CONFIRMED);
	assert_string_equal(why, "");
	assert_int_equal(al_rounds_agree(c, 1, why, sizeof(why)), CLAIM_INCONCLUSIVE);
	assert_contains(why, "one round");
	c[1] = CLAIM_CONTRADICTED;
	assert_int_equal(al_rounds_agree(c, 3, why, sizeof(why)), CLAIM_INCONCLUSIVE);
	assert_string_equal(why,
			    "the 3 rounds disagree: 2 confirmed, 1 contradicted, 0 inconclusive");
	c[0] = c[2] = CLAIM_CONTRADICTED;
	assert_int_equal(al_rounds_agree(c, 3, why, sizeof(why)), CLAIM_CONTRADICTED);
}

static void test_creep_round(UNIT_STATE)
{
	assert_int_equal(al_creep_round(2.2, 1.0, true), CLAIM_CONFIRMED);
	assert_int_equal(al_creep_round(1.2, 1.05, true), CLAIM_CONFIRMED); /* the edges */
	assert_int_equal(al_creep_round(2.2, 1.06, true), CLAIM_INCONCLUSIVE);
	assert_int_equal(al_creep_round(2.2, 1.2, true), CLAIM_CONTRADICTED); /* 0 did not fix it */
	/* no creep at 511: nothing to prevent, nothing decided */
	assert_int_equal(al_creep_round(1.0, 1.0, true), CLAIM_INCONCLUSIVE);
	/* khugepaged did not go over everything twice: nothing concluded */
	assert_int_equal(al_creep_round(2.2, 1.0, false), CLAIM_INCONCLUSIVE);
	assert_int_equal(al_creep_round(-1, 1.0, true), CLAIM_INCONCLUSIVE);
}

static void test_bloat_round(UNIT_STATE)
{
	assert_int_equal(al_bloat_round(4.0, -1, 2.0, true), CLAIM_CONFIRMED);
	assert_int_equal(al_bloat_round(1.9, -1, 2.0, true), CLAIM_INCONCLUSIVE);
	assert_int_equal(al_bloat_round(1.05, -1, 2.0, true), CLAIM_CONTRADICTED);
	assert_int_equal(al_bloat_round(4.0, -1, 2.0, false), CLAIM_INCONCLUSIVE); /* not proven */
	assert_int_equal(al_bloat_round(1.69, 1.01, 1.3, true), CLAIM_CONFIRMED);
	assert_int_equal(al_bloat_round(1.69, 1.2, 1.3, true), CLAIM_INCONCLUSIVE); /* knob short */
	assert_int_equal(al_bloat_round(-1, 1.0, 1.3, true), CLAIM_INCONCLUSIVE);
}

static void test_range_text(UNIT_STATE)
{
	char s[64];
	double v[3] = {2.2, 2.4, -1};
	al_fmt_range(s, sizeof(s), v, 3, "x");
	assert_string_equal(s, "2.30x (rounds 2.20..2.40)");
	al_fmt_range(s, sizeof(s), v, 1, "x");
	assert_string_equal(s, "2.20x (1 round)");
	al_fmt_range(s, sizeof(s), v + 2, 1, "x");
	assert_string_equal(s, "-");
}

static void test_churn_ready_line(UNIT_STATE)
{
	struct churn c = {0};
	assert_int_equal(churn_parse_ready("ready 2185996 8015 21730750 malloc_trim(0)\n", &c), 0);
	assert_true(c.live_bytes == 2185996 && c.live_objects == 8015 && c.alloc_bytes == 21730750);
	assert_string_equal(c.release, "malloc_trim(0)");
	assert_int_equal(churn_parse_ready("ready 5 1 4 x\n", &c), -EINVAL); /* live > allocated */
	assert_int_equal(churn_parse_ready("ready 1 1 4\n", &c), -EINVAL);
	assert_int_equal(churn_parse_ready("ready 1 1 4 a b\n", &c), -EINVAL);
	assert_int_equal(churn_parse_ready("start\n", &c), -EINVAL);
}

/* A churn never started (zeroed: in = out = 0) is stopped without closing fd 0. */
static void test_churn_stop_never_started_keeps_fd0(UNIT_STATE)
{
	int saved = dup(0), p[2];
	assert_true(saved >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dup2(p[0], 0), 0);
	struct churn c = {0};
	churn_stop(&c);
	churn_stop(&c);
	int fd0 = fcntl(0, F_GETFD);
	assert_int_equal(write(p[1], "x", 1), 1);
	char b = 0;
	ssize_t got = fd0 >= 0 ? read(0, &b, 1) : -1;
	dup2(saved, 0);
	close(saved);
	close(p[0]);
	close(p[1]);
	assert_true(fd0 >= 0);
	assert_int_equal(got, 1);
	assert_int_equal(b, 'x');
	char why[200] = "";
	assert_int_equal(churn_go(&c, 100, why, sizeof(why)), -ESRCH); /* not written to fd 0 */
	assert_contains(why, "not started");
}

/* "go" to a child that has exited: -EPIPE, no SIGPIPE (it would end the test), none left pending. */
static void test_churn_go_to_exited_child_is_epipe(UNIT_STATE)
{
	int in[2], out[2];
	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	siginfo_t si;
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0); /* its ends closed */
	close(in[0]);  /* no reader: the write gets EPIPE */
	close(out[1]); /* no writer: EOF */
	struct churn c = {.pid = pid, .in = in[1], .out = out[0], .pipes = true};
	char why[200] = "";
	assert_int_equal(churn_go(&c, 1000, why, sizeof(why)), -EPIPE);
	assert_contains(why, "it exited");
	sigset_t pending;
	sigpending(&pending);
	assert_false(sigismember(&pending, SIGPIPE));
	churn_stop(&c);
	assert_int_equal(c.pid, 0);
	assert_int_equal(c.in, -1);
	assert_int_equal(c.out, -1);
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1); /* reaped by churn_stop */
}

UNIT_TESTS(test_rounds_must_agree_and_be_two, test_creep_round, test_bloat_round, test_range_text,
	   test_churn_ready_line, test_churn_stop_never_started_keeps_fd0,
	   test_churn_go_to_exited_child_is_epipe)
