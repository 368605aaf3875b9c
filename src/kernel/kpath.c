// SPDX-License-Identifier: MIT
#include "kpath.h"

#include <stdio.h>

#include "kconfig.h"
#include "sysroot.h"

const char *kpath(enum kpath k, long long arg, const char *name, char *out, size_t n)
{
	const char *nm = name ? name : "";
	switch (k) {
	case KP_THP_DIR:
		snprintf(out, n, "/" SR_THP);
		break;
	case KP_THP_ENABLED:
		snprintf(out, n, "/" SR_THP "/enabled");
		break;
	case KP_THP_DEFRAG:
		snprintf(out, n, "/" SR_THP "/defrag");
		break;
	case KP_THP_MAX_PTES_NONE:
		snprintf(out, n, "/" SR_THP "/khugepaged/max_ptes_none");
		break;
	case KP_THP_SIZE_ENABLED:
		snprintf(out, n, "/" SR_THP "/hugepages-%lldkB/enabled", arg);
		break;
	case KP_THP_SIZES_ENABLED:
		snprintf(out, n, "/" SR_THP "/hugepages-*kB/enabled");
		break;
	case KP_PROC_FILE:
		snprintf(out, n, "/" SR_PROC "/%lld/%s", arg, nm);
		break;
	case KP_BUDDYINFO:
		snprintf(out, n, "/" SR_PROC "/buddyinfo");
		break;
	case KP_MEMINFO:
		snprintf(out, n, "/" SR_PROC "/meminfo");
		break;
	case KP_VMSTAT:
		snprintf(out, n, "/" SR_PROC "/vmstat");
		break;
	case KP_CGROUP_ROOT:
		snprintf(out, n, "/" SR_CGROUP);
		break;
	case KP_CONFIG_GZ:
		snprintf(out, n, "/" SR_PROC_CONFIG_GZ);
		break;
	case KP_BOOT_CONFIG:
		snprintf(out, n, "/boot/config-%s", nm);
		break;
	case KP_TREE:
		snprintf(out, n, "/%s", nm);
		break;
	default:
		snprintf(out, n, "%s", "");
		break;
	}
	return out;
}
