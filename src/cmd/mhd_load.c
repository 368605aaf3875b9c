// SPDX-License-Identifier: MIT
/* libmicrohttpd for the exporter only: see mhd_load.h. */
#ifdef THPCTL_HTTP
#include "mhd_load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/dl.h"

/* the soname: from src/dlopen.libs, the one table of dlopen()ed libraries (Makefile) */
#if !defined(THPCTL_HTTP_LINKED) && !defined(THPCTL_MHD_SONAME)
#error "THPCTL_MHD_SONAME is set by the Makefile from src/dlopen.libs"
#endif

struct mhd_api mhd;

/* the library's names and functions: "MHD_" and the member's name */
#define MHD_NAME(f) "MHD_" #f,
#define MHD_SET(f) mhd.f = MHD_##f;
#define DL_API mhd
#ifdef THPCTL_HTTP_LINKED
DL_LINKED_LOADER(mhd_load, MHD_FUNCS, MHD_SET)
#else
DL_DLOPEN_LOADER(mhd_load, MHD_FUNCS, MHD_NAME, THPCTL_MHD_SONAME, "libmicrohttpd.so",
		 "libmicrohttpd")
#endif

void mhd_drop(struct MHD_Response **const *rs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (*rs[i])
			mhd.destroy_response(*rs[i]);
		*rs[i] = NULL;
	}
}
#else
/* ISO C wants a translation unit to hold something */
typedef int mhd_load_unused;
#endif
