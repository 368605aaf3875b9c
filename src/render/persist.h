/* SPDX-License-Identifier: MIT */
/* `thpctl persist`: the text of each boot-time format (model/persist.h decides what it holds). */
#ifndef THPCTL_RENDER_PERSIST_H
#define THPCTL_RENDER_PERSIST_H

#include <stdio.h>

#include "../model/persist.h"

/*
 * How to put PARAMS on the kernel command line with tool T, as '#' comment
 * lines to OUT: grubby --update-kernel=ALL --args="PARAMS", or
 * GRUB_CMDLINE_LINUX plus update-grub; both when T is BOOT_UNKNOWN.
 */
void persist_cmdline_howto(FILE *out, enum boot_tool t, const char *params);

/*
 * The same as commands, for other reports (hugetlb plan): "grubby
 * --update-kernel=ALL --args=\"PARAMS\"" and/or "PARAMS in GRUB_CMDLINE_LINUX
 * (/etc/default/grub), then update-grub", the tool found first, both when T is
 * BOOT_UNKNOWN. Writes up to 2 lines of N bytes into OUT; returns how many.
 */
int persist_cmdline_routes(enum boot_tool t, const char *params, char out[2][320]);

/*
 * Write IN as format F to OUT. Returns 0, -ENODATA when nothing in IN can be
 * expressed in F (the text then only holds comments saying why), or -EINVAL
 * for a key, value or (systemd) thpctl_path, (tuned) parent that cannot be
 * written unquoted.
 */
int persist_render(FILE *out, enum persist_format f, const struct persist_in *in);

#endif
