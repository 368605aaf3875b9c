// SPDX-License-Identifier: MIT
/* libarchive on first use: see archive_load.h. */
#include "archive_load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"

/* the soname: from src/dlopen.libs, the one table of dlopen()ed libraries (Makefile) */
#if !defined(THPCTL_ARCHIVE_LINKED) && !defined(THPCTL_NO_ARCHIVE) &&                              \
	!defined(THPCTL_ARCHIVE_SONAME)
#error "THPCTL_ARCHIVE_SONAME is set by the Makefile from src/dlopen.libs"
#endif

struct la_api la;

#if defined(THPCTL_NO_ARCHIVE)
int la_load(char *err, size_t len)
{
	if (err && len)
		snprintf(err, len, "this thpctl was built without libarchive");
	return -ENOTSUP;
}
#elif defined(THPCTL_ARCHIVE_LINKED)
#define DL_API la
DL_LINKED_LOADER(la_load, LA_FUNCS, DL_SET)
#else
#define DL_API la
DL_DLOPEN_LOADER(la_load, LA_FUNCS, DL_NAME, THPCTL_ARCHIVE_SONAME, "libarchive.so", "libarchive")
#endif
