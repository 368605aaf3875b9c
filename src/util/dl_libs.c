// SPDX-License-Identifier: MIT
/* zlib, libyaml, libcrypt and libm on first use: see dl_libs.h. */
#include "dl_libs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* a static build links the libraries (THPCTL_LIBS_LINKED), the others dlopen() them */
#ifdef THPCTL_LIBS_LINKED
#define DL_LOADER(fn, FUNCS, soname, devname, what) DL_LINKED_LOADER(fn, FUNCS, DL_SET)
#else
#define DL_LOADER(fn, FUNCS, soname, devname, what)                                                \
	DL_DLOPEN_LOADER(fn, FUNCS, DL_NAME, soname, devname, what)
#endif

#if !defined(THPCTL_LIBS_LINKED) && !defined(THPCTL_LIBM_SONAME)
#error "THPCTL_LIBM_SONAME is set by the Makefile from src/dlopen.libs"
#endif
struct lm_api lm;
#define DL_API lm
DL_LOADER(lm_load, LM_FUNCS, THPCTL_LIBM_SONAME, "libm.so", "libm")
#undef DL_API

#ifdef THPCTL_ZLIB
#if !defined(THPCTL_LIBS_LINKED) && !defined(THPCTL_ZLIB_SONAME)
#error "THPCTL_ZLIB_SONAME is set by the Makefile from src/dlopen.libs"
#endif
struct zl_api zl;
#define DL_API zl
DL_LOADER(zl_load, ZL_FUNCS, THPCTL_ZLIB_SONAME, "libz.so", "zlib")
#undef DL_API
#endif

#ifdef THPCTL_HTTP
#if !defined(THPCTL_LIBS_LINKED) && (!defined(THPCTL_YAML_SONAME) || !defined(THPCTL_CRYPT_SONAME))
#error "THPCTL_YAML_SONAME and THPCTL_CRYPT_SONAME are set by the Makefile from src/dlopen.libs"
#endif
struct yl_api yl;
#define DL_API yl
DL_LOADER(yl_load, YL_FUNCS, THPCTL_YAML_SONAME, "libyaml.so", "libyaml")
#undef DL_API

struct cr_api cr;
#define DL_API cr
DL_LOADER(cr_load, CR_FUNCS, THPCTL_CRYPT_SONAME, "libcrypt.so", "libcrypt")
#undef DL_API
#endif
