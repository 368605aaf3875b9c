// SPDX-License-Identifier: MIT
#include "pmu.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/buf.h"
#include "sysroot.h"

static int ev_open(uint32_t type, uint64_t config, pid_t pid, bool inherit)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.inherit = inherit;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	long fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	return fd < 0 ? -errno : (int)fd;
}

static uint64_t dtlb(int result)
{
	return PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
	       ((uint64_t)result << 16);
}

int pmu_open(struct pmu_set *s, pid_t pid, bool inherit, bool intel)
{
	for (int i = 0; i < PMU_NEV; i++)
		s->fd[i] = -1;
	int fd = ev_open(PERF_TYPE_HW_CACHE, dtlb(PERF_COUNT_HW_CACHE_RESULT_MISS), pid, inherit);
	if (fd < 0)
		return s->err = fd;
	s->err = 0;
	s->fd[PMU_MISS] = fd;
	fd = ev_open(PERF_TYPE_HW_CACHE, dtlb(PERF_COUNT_HW_CACHE_RESULT_ACCESS), pid, inherit);
	s->fd[PMU_ACCESS] = fd < 0 ? -1 : fd;
	if (intel) {
		fd = ev_open(PERF_TYPE_RAW, 0x1008, pid, inherit); /* umask 0x10, event 0x08 */
		s->fd[PMU_WALK] = fd < 0 ? -1 : fd;
	}
	return 0;
}

void pmu_enable(struct pmu_set *s, bool on)
{
	for (int i = 0; i < PMU_NEV; i++)
		if (s->fd[i] >= 0)
			ioctl(s->fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

int pmu_read(const struct pmu_set *s, struct pmu_value *v)
{
	memset(v, 0, PMU_NEV * sizeof(*v));
	for (int i = 0; i < PMU_NEV; i++) {
		if (s->fd[i] < 0)
			continue;
		uint64_t buf[3];
		ssize_t n = read(s->fd[i], buf, sizeof(buf));
		if (n != (ssize_t)sizeof(buf))
			return n < 0 ? -errno : -EIO;
		v[i] = (struct pmu_value){true, buf[0], buf[1], buf[2]};
	}
	return 0;
}

void pmu_close(struct pmu_set *s)
{
	for (int i = 0; i < PMU_NEV; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}

int pmu_probe(void)
{
	int fd = ev_open(PERF_TYPE_HW_CACHE, dtlb(PERF_COUNT_HW_CACHE_RESULT_MISS), 0, false);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

bool pmu_cpu_intel(const char *text, size_t len)
{
	return text && memmem(text, len, "GenuineIntel", 12) != NULL;
}

bool pmu_host_intel(const struct sysroot *sr)
{
	struct buf b = {0};
	bool intel = !sysroot_read(sr, SR_PROC "/cpuinfo", &b) && pmu_cpu_intel(b.p, b.len);
	buf_free(&b);
	return intel;
}
