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

/* The libmicrohttpd functions the exporter calls (types from microhttpd.h). */
struct mhd_api {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_add_connection) *add_connection;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback)
		*create_response_from_buffer_with_free_callback;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_destroy_response) *destroy_response;
	/* --web.config.file (exporter_web.c) */
	__typeof__(MHD_basic_auth_get_username_password) *basic_auth_get_username_password;
	__typeof__(MHD_free) *free;
	__typeof__(MHD_is_feature_supported) *is_feature_supported;
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
