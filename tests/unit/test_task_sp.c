// SPDX-License-Identifier: MIT
/* Unit tests: a thread's stack pointer from /proc/PID/task/TID/syscall (kernel/task_sp.c). */
#include "unit.h"

#include <errno.h>

#include "kernel/task_sp.h"

static void test_syscall_lines(UNIT_STATE)
{
	uint64_t sp = 0;
	/* blocked in read(2): NR, six arguments, SP, PC (as printed on 6.18) */
	assert_int_equal(task_syscall_sp(LIT("0 0x3 0x7ffd 0x1 0x0 0x0 0x0 0x7f1f08b9ce60 "
					     "0x7f1f08d14a5c\n"),
					 &sp),
			 0);
	assert_true(sp == 0x7f1f08b9ce60ull);
	/* blocked outside a system call: -1 SP PC */
	assert_int_equal(task_syscall_sp(LIT("-1 0x7ffc1000 0x401000\n"), &sp), 0);
	assert_true(sp == 0x7ffc1000ull);
	/* on a CPU: unknown */
	assert_int_equal(task_syscall_sp(LIT("running\n"), &sp), -EAGAIN);
	/* damaged: a cut line, words that are not hex, too many words, empty, huge */
	assert_int_equal(task_syscall_sp(LIT("0 0x3 0x7ffd 0x1"), &sp), -EINVAL);
	assert_int_equal(task_syscall_sp(LIT("-1 zz 0x401000\n"), &sp), -EINVAL);
	assert_int_equal(task_syscall_sp(LIT("1 2 3 4 5 6 7 8 9 10 11\n"), &sp), -EINVAL);
	assert_int_equal(task_syscall_sp("", 0, &sp), -EINVAL);
	assert_int_equal(task_syscall_sp(LIT("-1 0x1ffffffffffffffff 0x1\n"), &sp), -EINVAL);
}

static void test_pointers_in_a_range(UNIT_STATE)
{
	uint64_t v[] = {0x1000, 0x2000, 0x2fff, 0x3000};
	struct task_sps t = {.ntasks = 4, .nknown = 4, .sp = v};
	assert_int_equal(task_sps_in(&t, 0x2000, 0x3000), 2);
	assert_int_equal(task_sps_in(&t, 0, 0x1000), 0);
	assert_int_equal(task_sps_in(&t, 0, UINT64_MAX), 4);
}

UNIT_TESTS(test_syscall_lines, test_pointers_in_a_range)
