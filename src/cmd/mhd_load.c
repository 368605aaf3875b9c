// SPDX-License-Identifier: MIT
/* libmicrohttpd for the exporter only: see mhd_load.h. */
#ifdef THPCTL_HTTP
#include "mhd_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/dl.h"

/* the soname: from src/dlopen.libs, the one table of dlopen()ed libraries (Makefile) */
#if !defined(THPCTL_HTTP_LINKED) && !defined(THPCTL_MHD_SONAME)
#error "THPCTL_MHD_SONAME is set by the Makefile from src/dlopen.libs"
#endif

struct mhd_api mhd;

#ifdef THPCTL_HTTP_LINKED
int mhd_load(char *err, size_t len)
{
	(void)err;
	(void)len;
	mhd = (struct mhd_api){
		.start_daemon = MHD_start_daemon,
		.stop_daemon = MHD_stop_daemon,
		.add_connection = MHD_add_connection,
		.get_connection_info = MHD_get_connection_info,
		.queue_response = MHD_queue_response,
		.create_response_from_buffer = MHD_create_response_from_buffer,
		.create_response_from_buffer_with_free_callback =
			MHD_create_response_from_buffer_with_free_callback,
		.add_response_header = MHD_add_response_header,
		.destroy_response = MHD_destroy_response,
		.basic_auth_get_username_password = MHD_basic_auth_get_username_password,
		.free = MHD_free,
		.is_feature_supported = MHD_is_feature_supported,
	};
	return 0;
}
#else
/* Where each function's pointer goes, by its name in the library. */
#define SYM(f)                                                                                     \
	{                                                                                          \
		"MHD_" #f, (void **)&mhd.f                                                         \
	}
static const struct {
	const char *name;
	void **slot;
} syms[] = {
	SYM(start_daemon),
	SYM(stop_daemon),
	SYM(add_connection),
	SYM(get_connection_info),
	SYM(queue_response),
	SYM(create_response_from_buffer),
	SYM(create_response_from_buffer_with_free_callback),
	SYM(add_response_header),
	SYM(destroy_response),
	SYM(basic_auth_get_username_password),
	SYM(free),
	SYM(is_feature_supported),
};

int mhd_load(char *err, size_t len)
{
	static int result = 1; /* 1: not tried yet */
	static char why[256];
	if (result > 0) {
		/* THPCTL_MHD_SONAME: the library the build was compiled against (Makefile) */
		const char *soname = THPCTL_MHD_SONAME, *devname = "libmicrohttpd.so";
#ifdef THPCTL_TEST_HOOKS
		/* tests: a library name that is not there proves the message */
		const char *test_name = getenv("THPCTL_TEST_MHD_SONAME");
		if (test_name)
			soname = devname = test_name;
#endif
		enum { N = sizeof(syms) / sizeof(syms[0]) };
		const char *names[N];
		void *out[N];
		for (size_t i = 0; i < N; i++)
			names[i] = syms[i].name;
		result = dl_load(soname, devname, "libmicrohttpd", names, out, N, why, sizeof(why));
		for (size_t i = 0; !result && i < N; i++)
			memcpy(syms[i].slot, &out[i], sizeof(out[i]));
	}
	if (result && err && len)
		snprintf(err, len, "%s", why);
	return result;
}
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
