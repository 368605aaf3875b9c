/* SPDX-License-Identifier: MIT */
/* A program file, read as data (never run): whether it is linked against shared libraries. */
#ifndef THPCTL_EXE_FILE_H
#define THPCTL_EXE_FILE_H

#include <stdbool.h>

/*
 * Whether the ELF file PATH (a program about to be run; source: the file itself
 * through kernel/elf_scan.c) has PT_INTERP or PT_DYNAMIC, into *DYNAMIC: false
 * means statically linked, so an LD_PRELOAD library never loads into it.
 * Returns 0, -ENOEXEC (not an ELF file, or its program headers unreadable),
 * -ENOMEM, or the -errno of open/read.
 */
int exe_file_dynamic(const char *path, bool *dynamic);

#endif
