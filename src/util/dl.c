// SPDX-License-Identifier: MIT
/* dlopen() of a library and its functions: see dl.h. */
#include "dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dl_load(const char *soname, const char *devname, const char *what, const char *const *names,
	    void **out, size_t n, char *why, size_t len)
{
	memset(out, 0, n * sizeof(*out));
#ifdef THPCTL_TEST_HOOKS
	/* tests: THPCTL_TEST_DL_MISSING=WHAT[,WHAT...] makes those libraries missing */
	const char *miss = getenv("THPCTL_TEST_DL_MISSING");
	if (miss && strstr(miss, what))
		soname = "thpctl-test-missing.so", devname = NULL;
#endif
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		/* the soname's error is the one to show: the unversioned name is a fallback */
		const char *e = dlerror();
		snprintf(why, len, "%s", e ? e : soname);
		if (devname)
			h = dlopen(devname, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		out[i] = dlsym(h, names[i]);
		if (!out[i]) {
			snprintf(why, len, "%s lacks %s (%s too old?)", soname, names[i], what);
			memset(out, 0, n * sizeof(*out));
			dlclose(h);
			return -ENOENT;
		}
	}
	return 0;
}
