// SPDX-License-Identifier: MIT
/*
 * The exporter's web front, beside the request path of exporter_http.c: the
 * landing page at /, HTTP basic auth and TLS from --web.config.file
 * (webconfig.h), as Prometheus exporters built on the exporter-toolkit do.
 * TLS is libmicrohttpd's (GnuTLS; certificate and key handed over in memory),
 * so a connection that the accept thread passes with MHD_add_connection gets
 * its handshake there; plain HTTP to that port fails the handshake.
 */
#ifdef THPCTL_HTTP
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <err.h>

#include "../util/version.h"
#include "exporter_int.h"

#define REALM "thpctl exporter"

static struct MHD_Response *page(const char *text, const char *type)
{
	struct MHD_Response *r =
		mhd.create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	if (r)
		mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return r;
}

unsigned web_daemon_flags(const struct exporter *e)
{
	return e->web && e->web->cert_pem ? MHD_USE_TLS : 0;
}

/* W's TLS options into ITEMS (none without a certificate), ended by MHD_OPTION_END. */
static void tls_items(const struct web_config *w, struct MHD_OptionItem items[4])
{
	size_t n = 0;
	if (w && w->cert_pem) {
		items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, w->key_pem};
		items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, w->cert_pem};
		/* not GnuTLS's defaults (TLS 1.0 and RSA key exchange): 1.2+, forward secret */
		items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
						     (void *)webconfig_tls_priorities(w)};
	}
	items[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

const struct MHD_OptionItem *web_daemon_options(struct exporter *e)
{
	static struct MHD_OptionItem items[4];
	tls_items(e->web, items);
	return items;
}

/* libmicrohttpd's first message of the trial start into CLS (a char[256]), newline dropped. */
static void first_message(void *cls, const char *fmt, va_list ap)
{
	char *out = cls;
	if (out[0])
		return;
	vsnprintf(out, 256, fmt, ap);
	out[strcspn(out, "\n")] = '\0';
}

static enum MHD_Result no_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	(void)cls, (void)conn, (void)url, (void)method, (void)version, (void)upload_data;
	(void)upload_data_size, (void)req_cls;
	return MHD_NO;
}

int web_tls_check(const struct web_config *w, char *err, size_t errlen)
{
	char why[256];
	if (!w->cert_pem || mhd_load(why, sizeof(why)) ||
	    mhd.is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
		return 0; /* http_start() and web_start() say why */
	struct MHD_OptionItem items[4];
	tls_items(w, items);
	char msg[256] = "";
	/* no socket, no thread: GnuTLS takes (or refuses) the key, certificate and priorities */
	struct MHD_Daemon *d =
		mhd.start_daemon(MHD_USE_TLS | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0,
				 NULL, NULL, no_request, NULL, MHD_OPTION_EXTERNAL_LOGGER,
				 first_message, msg, MHD_OPTION_ARRAY, items, MHD_OPTION_END);
	if (d) {
		mhd.stop_daemon(d);
		return 0;
	}
	snprintf(err, errlen,
		 "tls_server_config: the certificate %s and key %s were refused by libmicrohttpd "
		 "(GnuTLS): %s",
		 w->cert_file, w->key_file, msg[0] ? msg : "no reason given");
	return -EINVAL;
}

const char *web_scheme(const struct exporter *e)
{
	return web_daemon_flags(e) ? "https" : "http";
}

int web_start(struct exporter *e)
{
	if (web_daemon_flags(e) && mhd.is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		warnx("exporter: --web.config.file asks for TLS, but this libmicrohttpd was built "
		      "without it");
		return -ENOTSUP;
	}
	char html[1024];
	snprintf(html, sizeof(html),
		 "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		 "<title>thpctl exporter</title></head>\n<body>\n<h1>thpctl exporter</h1>\n"
		 "<p>Prometheus metrics of Transparent Huge Pages on this host.</p>\n"
		 "<ul><li><a href=\"/metrics\">/metrics</a></li></ul>\n"
		 "<p>thpctl %s &middot; <code>man thpctl</code>, section exporter</p>\n"
		 "</body></html>\n",
		 thpctl_version());
	e->landing = page(html, "text/html; charset=utf-8");
	e->unauthorized = page("401 unauthorized: basic auth (--web.config.file)\n",
			       "text/plain; charset=utf-8");
	/* another password's bcrypt runs (webconfig_check): unchecked, come back */
	e->busy = page("503 busy: another password is being checked; retry in a second\n",
		       "text/plain; charset=utf-8");
	if (!e->landing || !e->unauthorized || !e->busy) {
		warnx("out of memory");
		return -ENOMEM;
	}
	/* added once here: MHD_queue_basic_auth_fail_response would add it per request */
	char realm[64];
	snprintf(realm, sizeof(realm), "Basic realm=\"%s\", charset=\"UTF-8\"", REALM);
	mhd.add_response_header(e->unauthorized, MHD_HTTP_HEADER_WWW_AUTHENTICATE, realm);
	mhd.add_response_header(e->busy, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	return 0;
}

int web_request(struct exporter *e, struct MHD_Connection *conn, const char *url)
{
	if (webconfig_has_auth(e->web)) {
		char *pass = NULL;
		char *user = mhd.basic_auth_get_username_password(conn, &pass);
		enum web_auth a = webconfig_check(e->web, user, pass);
		if (pass) {
			explicit_bzero(pass, strlen(pass));
			mhd.free(pass);
		}
		if (user)
			mhd.free(user);
		if (a == WEB_AUTH_BUSY)
			return mhd.queue_response(conn, MHD_HTTP_SERVICE_UNAVAILABLE, e->busy);
		if (a != WEB_AUTH_OK)
			return mhd.queue_response(conn, MHD_HTTP_UNAUTHORIZED, e->unauthorized);
	}
	if (!strcmp(url, "/"))
		return mhd.queue_response(conn, MHD_HTTP_OK, e->landing);
	return -1;
}

void web_stop(struct exporter *e)
{
	struct MHD_Response **rs[] = {&e->landing, &e->unauthorized, &e->busy};
	mhd_drop(rs, sizeof(rs) / sizeof(rs[0]));
}
#else
/* ISO C wants a translation unit to hold something */
typedef int exporter_web_unused;
#endif
