// SPDX-License-Identifier: MIT
/* libarchive on first use: see archive_load.h. */
#include "archive_load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if !defined(THPCTL_ARCHIVE_LINKED) && !defined(THPCTL_NO_ARCHIVE)
#include <dlfcn.h>
#endif

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
int la_load(char *err, size_t len)
{
	(void)err, (void)len;
#define LA_SET(f) la.f = f;
	LA_FUNCS(LA_SET)
#undef LA_SET
	return 0;
}
#else
int la_load(char *err, size_t len)
{
	static int result = 1; /* 1: not tried yet */
	static char why[256];
	if (result <= 0)
		goto out;
	result = -ENOTSUP;
	const char *names[] = {THPCTL_ARCHIVE_SONAME, "libarchive.so"};
	void *h = NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!h && i == 0) {
			const char *e = dlerror();
			snprintf(why, sizeof(why), "%s",
				 e ? e : THPCTL_ARCHIVE_SONAME ": not found");
		}
	}
	if (!h)
		goto out;
		/* each pointer from its name: an object pointer converted through memcpy (ISO C) */
#define LA_SYM(f)                                                                                  \
	{                                                                                          \
		void *p = dlsym(h, #f);                                                            \
		if (!p) {                                                                          \
			snprintf(why, sizeof(why), "%s lacks %s (libarchive too old?)",            \
				 THPCTL_ARCHIVE_SONAME, #f);                                       \
			memset(&la, 0, sizeof(la));                                                \
			dlclose(h);                                                                \
			goto out;                                                                  \
		}                                                                                  \
		memcpy(&la.f, &p, sizeof(p));                                                      \
	}
	LA_FUNCS(LA_SYM)
#undef LA_SYM
	result = 0;
out:
	if (result && err && len)
		snprintf(err, len, "%s", why);
	return result;
}
#endif
