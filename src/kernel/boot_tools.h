/* SPDX-License-Identifier: MIT */
/*
 * Which tool puts a kernel parameter on this host's boot command line:
 * grubby (RHEL, Fedora: `grubby --update-kernel=ALL --args=...`) or
 * update-grub (Debian, Ubuntu: GRUB_CMDLINE_LINUX in /etc/default/grub, then
 * update-grub). By presence of the program in the usual bin directories
 * (and, live, in $PATH) under the sysroot, and of etc/default/grub.
 */
#ifndef THPCTL_BOOT_TOOLS_H
#define THPCTL_BOOT_TOOLS_H

#include "sysroot.h"

enum boot_tool {
	BOOT_UNKNOWN,	  /* neither found: show both ways */
	BOOT_GRUBBY,	  /* grubby found */
	BOOT_UPDATE_GRUB, /* update-grub found (or etc/default/grub without grubby) */
};

/* The tool to name first on SR. Never fails: BOOT_UNKNOWN when nothing is found. */
enum boot_tool boot_tool_detect(const struct sysroot *sr);

#endif
