/* SPDX-License-Identifier: MIT */
/*
 * Libraries loaded on first use (dlopen), so that a command that does not need
 * one never maps it: linked, libyaml, libcrypt and zlib cost each start of
 * thpctl ~0.14 ms (an empty program with and without them, paired), though
 * only the exporter's --web.config.file and the reading of /proc/config.gz
 * call them; libmicrohttpd and libarchive pull in megabytes more. The sonames
 * come from src/dlopen.libs (the Makefile compiles them in as
 * THPCTL_<VAR>_SONAME). A static build links the libraries instead: the same
 * tables then hold the linked functions (DL_LINKED_LOADER).
 */
#ifndef THPCTL_UTIL_DL_H
#define THPCTL_UTIL_DL_H

#include <stddef.h>

/*
 * dlopen() SONAME, else DEVNAME (the unversioned name, when not NULL), and look up
 * the N functions NAMES[] into OUT[] (object pointers: the caller copies each
 * into its function pointer). WHAT names the library in messages. Returns 0, or
 * -ENOENT with why in WHY (LEN bytes): the library is missing, or lacks a
 * function (then OUT is all NULL). A handle that loaded is kept for the process.
 */
int dl_load(const char *soname, const char *devname, const char *what, const char *const *names,
	    void **out, size_t n, char *why, size_t len);

/* X-macro helpers: a table member of the type of function F, its name, its copy from OUT. */
#define DL_SLOT(f) __typeof__(&f) f;
#define DL_NAME(f) #f,
#define DL_COPY(f) memcpy(&DL_API.f, &dl_out[dl_i++], sizeof(void *));
#define DL_SET(f) DL_API.f = f;

/*
 * `int FN(char *err, size_t len)`: fill the table DL_API (a macro naming it, defined where
 * this is used) with the functions of the X-macro FUNCS, looked up by the names NAME makes
 * (DL_NAME: the member's own name), from SONAME (else DEVNAME) once; later calls return the
 * first result. 0, or -ENOENT with why in ERR (LEN bytes). The caller includes <stdio.h> and
 * <string.h>.
 */
#define DL_DLOPEN_LOADER(fn, FUNCS, NAME, soname, devname, what)                                   \
	int fn(char *err, size_t len)                                                              \
	{                                                                                          \
		static int result = 1; /* 1: not tried yet */                                      \
		static char why[256];                                                              \
		if (result > 0) {                                                                  \
			static const char *const names[] = {FUNCS(NAME)};                          \
			void *dl_out[sizeof(names) / sizeof(names[0])];                            \
			size_t dl_i = 0;                                                           \
			result = dl_load(soname, devname, what, names, dl_out,                     \
					 sizeof(names) / sizeof(names[0]), why, sizeof(why));      \
			if (!result) {                                                             \
				FUNCS(DL_COPY)                                                     \
			}                                                                          \
		}                                                                                  \
		if (result && err && len)                                                          \
			snprintf(err, len, "%s", why);                                             \
		return result;                                                                     \
	}

/* The same FN for a build that links the library: SET (DL_SET) fills the table from it. */
#define DL_LINKED_LOADER(fn, FUNCS, SET)                                                           \
	int fn(char *err, size_t len)                                                              \
	{                                                                                          \
		(void)err, (void)len;                                                              \
		FUNCS(SET)                                                                         \
		return 0;                                                                          \
	}

#endif
