// SPDX-License-Identifier: MIT
#include "virt.h"

#include <string.h>

#include "../util/buf.h"

/* The first line of REL into OUT, printable ASCII only ("" when unreadable). */
static void dmi_line(const struct sysroot *sr, const char *rel, char *out, size_t n)
{
	struct buf b = {0};
	out[0] = '\0';
	if (!sysroot_read(sr, rel, &b) && b.p) {
		size_t k = 0;
		for (size_t i = 0; i < b.len && b.p[i] != '\n' && k + 1 < n; i++)
			out[k++] = b.p[i] >= 0x20 && b.p[i] < 0x7f ? b.p[i] : '?';
		out[k] = '\0';
	}
	buf_free(&b);
}

enum virt_env virt_classify(bool cpuinfo_read, bool guest, const char *vendor, const char *product)
{
	if (!strncmp(vendor, "Google", 6))
		return VIRT_GCE;
	if (strstr(vendor, "Amazon") || strstr(product, "EC2"))
		return VIRT_AWS;
	if (strstr(vendor, "Microsoft") && strstr(product, "Virtual Machine"))
		return VIRT_AZURE;
	if (strstr(vendor, "QEMU") || strstr(product, "KVM") || strstr(product, "Standard PC"))
		return VIRT_KVM;
	if (strstr(vendor, "VMware"))
		return VIRT_VMWARE;
	if (!cpuinfo_read)
		return VIRT_UNKNOWN;
	return guest ? VIRT_GUEST : VIRT_BARE;
}

int virt_read(const struct sysroot *sr, struct virt_info *v)
{
	memset(v, 0, sizeof(*v));
	struct buf b = {0};
	if (!sysroot_read(sr, SR_PROC "/cpuinfo", &b) && b.p) {
		v->cpuinfo_read = true;
		v->guest = memmem(b.p, b.len, " hypervisor", 11) != NULL;
	}
	buf_free(&b);
	dmi_line(sr, "sys/class/dmi/id/sys_vendor", v->vendor, sizeof(v->vendor));
	dmi_line(sr, "sys/class/dmi/id/product_name", v->product, sizeof(v->product));
	v->env = virt_classify(v->cpuinfo_read, v->guest, v->vendor, v->product);
	return 0;
}

const char *virt_env_name(enum virt_env e)
{
	switch (e) {
	case VIRT_BARE:
		return "bare metal";
	case VIRT_GUEST:
		return "guest";
	case VIRT_GCE:
		return "GCE guest";
	case VIRT_AWS:
		return "AWS guest";
	case VIRT_AZURE:
		return "Azure guest";
	case VIRT_KVM:
		return "KVM guest";
	case VIRT_VMWARE:
		return "VMware guest";
	case VIRT_UNKNOWN:
		break;
	}
	return "unknown";
}
