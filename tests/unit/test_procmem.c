// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/procmem.c (a pidfd tells whether its process still runs). */
#include "unit.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/procmem.h"

/* A child's pidfd: alive while it runs, exited once it is reaped, whatever its PID becomes. */
static void test_pidfd_alive_until_the_process_exits(UNIT_STATE)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	int fd = procmem_pidfd_open(pid);
	if (fd == -ENOSYS) { /* before 5.3: nothing to check */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		skip();
	}
	assert_true(fd >= 0);
	assert_int_equal(procmem_pidfd_alive(fd), 1);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(procmem_pidfd_alive(fd), 0);
	close(fd);
	assert_true(procmem_pidfd_alive(fd) < 0); /* not a pidfd: an error, not "exited" */
}

UNIT_TESTS(test_pidfd_alive_until_the_process_exits)
