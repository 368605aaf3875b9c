/* SPDX-License-Identifier: MIT */
/*
 * Acting on another process's memory: pidfd_open (5.3), process_madvise
 * (5.10; MADV_COLLAPSE on another process 6.1+) and which pages of a range
 * are populated, from /proc/PID/pagemap (present bit 63, swapped bit 62;
 * readable with ptrace-read access, PFNs hidden without CAP_SYS_ADMIN but
 * those bits stay).
 */
#ifndef THPCTL_PROCMEM_H
#define THPCTL_PROCMEM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

#define PM_PRESENT_BIT 63
#define PM_SWAP_BIT 62

/* pidfd_open(PID, 0). Returns the fd or -errno (-ESRCH, -ENOSYS before 5.3). */
int procmem_pidfd_open(pid_t pid);

/*
 * Whether the process of PIDFD still runs: pidfd_send_signal(PIDFD, 0) (5.1).
 * Returns 1 (it runs, or it exists but signals to it are not permitted: EPERM),
 * 0 (it exited: ESRCH), or -errno. Read by PID after the pidfd was opened, a
 * file came from that process when it still runs after the read.
 */
int procmem_pidfd_alive(int pidfd);

/*
 * process_madvise(PIDFD, one iovec [START, START+LEN), ADVICE, 0). Returns the
 * bytes advised (>= 0) or -errno. EINTR is retried.
 */
long long procmem_madvise(int pidfd, uint64_t start, uint64_t len, int advice);

/* Open SR's proc/PID/pagemap (PID 0: proc/self) for reading. Returns the fd or -errno. */
int procmem_pagemap_open(const struct sysroot *sr, pid_t pid);

/* Open SR's proc/kpageflags (root only) for reading. Returns the fd or -errno (-EACCES). */
int procmem_kpageflags_open(const struct sysroot *sr);

/*
 * Count the pages of [START, START + NPAGES * PAGE_SIZE) that are present or
 * swapped, reading the pagemap FD. Returns 0 or -errno.
 */
int procmem_populated(int fd, uint64_t start, uint64_t npages, long page_size, uint64_t *count);

/*
 * Whether the aligned block [START, START + PMD) of pagemap FD is mapped by one
 * PMD, per PAGEMAP_SCAN (6.7+) PAGE_IS_HUGE: a PMD-mapped THP (anonymous, shmem
 * or file), the huge zero page (*ZERO set: read, never written) or hugetlb;
 * never PTE-mapped pages, whatever their folio. Returns 1, 0, -ENOTTY or
 * -EINVAL when the kernel has no PAGEMAP_SCAN, or -errno.
 */
int procmem_pmd_mapped(int fd, uint64_t start, uint64_t pmd, bool *zero);

#endif
