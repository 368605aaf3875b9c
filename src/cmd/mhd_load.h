/* SPDX-License-Identifier: MIT */
/*
 * libmicrohttpd, loaded only by `thpctl exporter`: every other command runs
 * without it and its TLS stack (gnutls, p11-kit, nettle, ...: about 3 MB of
 * resident memory). The exporter calls it through the table `mhd`, filled by
 * mhd_load(): dlopen() of the library in the dynamic build
 * (THPCTL_MHD_SONAME), the linked-in functions in a static build that has it
 * (THPCTL_HTTP_LINKED).
 */
#ifndef THPCTL_CMD_MHD_LOAD_H
#define THPCTL_CMD_MHD_LOAD_H

#ifdef THPCTL_HTTP
#include <stddef.h>
#include <sys/socket.h> /* microhttpd.h needs struct sockaddr, socklen_t */
#include <microhttpd.h>

/*
 * The libmicrohttpd functions the exporter calls, each a member named without its "MHD_"
 * (types from microhttpd.h); basic_auth_get_username_password, free and
 * is_feature_supported serve --web.config.file (exporter_web.c).
 */
// clang-format off
#define MHD_FUNCS(X) \
	X(start_daemon) \
	X(stop_daemon) \
	X(add_connection) \
	X(get_connection_info) \
	X(queue_response) \
	X(create_response_from_buffer) \
	X(create_response_from_buffer_with_free_callback) \
	X(add_response_header) \
	X(destroy_response) \
	X(basic_auth_get_username_password) \
	X(free) \
	X(is_feature_supported)
// clang-format on
struct mhd_api {
#define MHD_SLOT(f) __typeof__(&MHD_##f) f;
	MHD_FUNCS(MHD_SLOT)
#undef MHD_SLOT
};

/* Filled by mhd_load(); all NULL before. */
extern struct mhd_api mhd;

/*
 * Load libmicrohttpd (once; later calls return the first result). Returns 0,
 * or -ENOENT with why in ERR (LEN bytes: the library that is missing, or the
 * function it lacks).
 */
int mhd_load(char *err, size_t len);

/* Destroy the responses *RS[0..N-1] that were made (not NULL); each becomes NULL. */
void mhd_drop(struct MHD_Response **const *rs, size_t n);
#endif

#endif
