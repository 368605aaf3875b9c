// SPDX-License-Identifier: MIT
#include "kpath.h"

#include <stdbool.h>
#include <stdio.h>

#include "kconfig.h"
#include "sysroot.h"

/* A path: A, then ARG in decimal when NUM, then B, then NAME when NAME. */
struct kpath_parts {
	const char *a;
	bool num;
	const char *b;
	bool name;
};

static const struct kpath_parts parts[] = {
	[KP_THP_DIR] = {"/" SR_THP, false, "", false},
	[KP_THP_ENABLED] = {"/" SR_THP "/enabled", false, "", false},
	[KP_THP_DEFRAG] = {"/" SR_THP "/defrag", false, "", false},
	[KP_THP_MAX_PTES_NONE] = {"/" SR_THP "/khugepaged/max_ptes_none", false, "", false},
	[KP_THP_SIZE_ENABLED] = {"/" SR_THP "/hugepages-", true, "kB/enabled", false},
	[KP_THP_SIZES_ENABLED] = {"/" SR_THP "/hugepages-*kB/enabled", false, "", false},
	[KP_PROC_FILE] = {"/" SR_PROC "/", true, "/", true},
	[KP_BUDDYINFO] = {"/" SR_PROC "/buddyinfo", false, "", false},
	[KP_MEMINFO] = {"/" SR_PROC "/meminfo", false, "", false},
	[KP_VMSTAT] = {"/" SR_PROC "/vmstat", false, "", false},
	[KP_CGROUP_ROOT] = {"/" SR_CGROUP, false, "", false},
	[KP_CONFIG_GZ] = {"/" SR_PROC_CONFIG_GZ, false, "", false},
	[KP_BOOT_CONFIG] = {"/boot/config-", false, "", true},
	[KP_TREE] = {"/", false, "", true},
};

const char *kpath(enum kpath k, long long arg, const char *name, char *out, size_t n)
{
	const struct kpath_parts *p =
		(unsigned)k < sizeof(parts) / sizeof(parts[0]) ? &parts[k] : NULL;
	if (!p || !p->a) {
		snprintf(out, n, "%s", "");
		return out;
	}
	char num[24] = "";
	if (p->num)
		snprintf(num, sizeof(num), "%lld", arg);
	snprintf(out, n, "%s%s%s%s", p->a, num, p->b, p->name && name ? name : "");
	return out;
}
