/* SPDX-License-Identifier: MIT */
/*
 * Shared by the live-test helpers (folio_helper.c, thp_helper.c): stop on
 * SIGTERM, SIGINT or SIGHUP, and wait for that stop without a race.
 */
#ifndef THPCTL_TEST_HELPER_SIGNALS_H
#define THPCTL_TEST_HELPER_SIGNALS_H

#include <signal.h>
#include <stddef.h>
#include <string.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Set `stop` on SIGTERM, SIGINT and SIGHUP. */
static void install_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Wait for a stop signal without a race between checking `stop` and pausing. */
static void wait_for_stop(void)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

#endif
