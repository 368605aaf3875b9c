/* SPDX-License-Identifier: MIT */
/*
 * dTLB counters through perf_event_open(2), where the PMU has them: the
 * generic PERF_TYPE_HW_CACHE dTLB read misses and read accesses, and on
 * Intel family 6 the raw DTLB_LOAD_MISSES.WALK_ACTIVE (event 0x08, umask
 * 0x10: cycles a load page walk is busy; WALK_DURATION before Skylake). A
 * guest without a virtual PMU fails the open with ENOENT or EOPNOTSUPP:
 * that is "no PMU", never a count of 0.
 */
#ifndef THPCTL_KERNEL_PMU_H
#define THPCTL_KERNEL_PMU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum { PMU_MISS, PMU_ACCESS, PMU_WALK, PMU_NEV };

/* One counter as read(2) gives it with TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING. */
struct pmu_value {
	bool open;	/* the event was opened */
	uint64_t value; /* raw count */
	uint64_t enabled,
		running; /* ns: the event was scheduled RUNNING of ENABLED (multiplexing) */
};

struct pmu_set {
	int fd[PMU_NEV]; /* -1 when not open */
	int err;	 /* -errno of the dTLB miss event's open, 0 when it opened */
};

/*
 * Open the counters for PID (0: this thread; a child before exec with
 * INHERIT to count its children too), user space only, disabled. The miss
 * event decides: when it fails, S->err says why and nothing is open.
 * The walk event is tried on Intel (cpuinfo vendor read by the caller:
 * INTEL) only. Returns S->err.
 */
int pmu_open(struct pmu_set *s, pid_t pid, bool inherit, bool intel);

/* Enable / disable all open counters (ioctl). */
void pmu_enable(struct pmu_set *s, bool on);

/* Read each open counter into V[PMU_NEV]. 0 or -errno. */
int pmu_read(const struct pmu_set *s, struct pmu_value *v);

void pmu_close(struct pmu_set *s);

/* Whether perf_event_open can count dTLB read misses of this thread: 0 or -errno (probe). */
int pmu_probe(void);

/* Whether cpuinfo TEXT names GenuineIntel (pure). */
bool pmu_cpu_intel(const char *text, size_t len);

struct sysroot;
/* Whether SR's proc/cpuinfo names GenuineIntel (false when unreadable). */
bool pmu_host_intel(const struct sysroot *sr);

#endif
