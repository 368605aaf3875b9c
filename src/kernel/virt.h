/* SPDX-License-Identifier: MIT */
/*
 * Which machine this kernel runs on, as far as a guest can tell: the
 * `hypervisor` flag of proc/cpuinfo (set by the CPU under any hypervisor)
 * and the DMI vendor and product (sys/class/dmi/id), which name the cloud
 * or the virtual machine monitor where the guest has a DMI table at all
 * (Firecracker-like guests have none).
 */
#ifndef THPCTL_KERNEL_VIRT_H
#define THPCTL_KERNEL_VIRT_H

#include <stdbool.h>

#include "sysroot.h"

enum virt_env {
	VIRT_BARE,    /* no hypervisor flag */
	VIRT_GUEST,   /* a guest whose DMI names nothing known (or has no DMI) */
	VIRT_GCE,     /* DMI "Google" */
	VIRT_AWS,     /* DMI "Amazon EC2" */
	VIRT_AZURE,   /* DMI "Microsoft Corporation" with "Virtual Machine" */
	VIRT_KVM,     /* DMI "QEMU" or a KVM product: a KVM guest of one's own */
	VIRT_VMWARE,  /* DMI "VMware, Inc." */
	VIRT_UNKNOWN, /* cpuinfo unreadable */
};

struct virt_info {
	enum virt_env env;
	bool cpuinfo_read;
	bool guest;	  /* the hypervisor flag */
	char vendor[64];  /* DMI sys_vendor ("" when absent), printable ASCII */
	char product[64]; /* DMI product_name */
};

/* Read SR's cpuinfo flag and DMI ids into V. 0 (V->env says what is known) (reads files). */
int virt_read(const struct sysroot *sr, struct virt_info *v);

/* The env from the flag and the DMI strings (pure). */
enum virt_env virt_classify(bool cpuinfo_read, bool guest, const char *vendor, const char *product);

/* "bare metal", "guest", "GCE guest", ... (pure). */
const char *virt_env_name(enum virt_env e);

#endif
