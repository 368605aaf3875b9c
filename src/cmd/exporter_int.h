/* SPDX-License-Identifier: MIT */
/* Internal to cmd/exporter.c and cmd/exporter_http.c: the exporter's state. */
#ifndef THPCTL_CMD_EXPORTER_INT_H
#define THPCTL_CMD_EXPORTER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef THPCTL_HTTP
#include "connguard.h"
#include "mhd_load.h"
#include "webconfig.h"
#endif

#include "cgroups_collect.h"
#include "ledger.h"

#include "../kernel/sample.h"
#include "../render/prom.h"

#define DEFAULT_LISTEN "127.0.0.1:9799"
#define TEXTFILE_NAME "thp.prom"

/* What the HTTP listener guarantees (README "Robustness", thpctl(1)) */
#define HTTP_MAX_CONNECTIONS 128 /* held at once, all addresses */
#define HTTP_MAX_PER_ADDRESS 32	 /* held at once from one client address */
#define HTTP_REQUEST_S 3.0	 /* headers complete within this of accept / first byte */
#define HTTP_RESPONSE_S 10.0	 /* response sent within this of the headers */
#define HTTP_IDLE_S 10		 /* silence before an idle keep-alive connection is closed */
#define HTTP_REPORT_S 10.0	 /* at most one line about cut-off clients per this */
#define HTTP_RX_POLL_S 0.25	 /* how often idle keep-alive connections are looked at */
/* A cgroup's processes' THP_enabled: read when a pid is first seen and all again after this */
#define CG_RECHECK_S 60.0

struct exporter {
	struct sampler smp;
	struct sample s;
	struct prom_meta meta;
	struct pbuf body;
	pthread_mutex_t lock; /* smp, s, body, the cached response */
	double cache_s;
	double last;	  /* CLOCK_MONOTONIC seconds of the last collection, 0 none */
	int last_err;	  /* of the last collection: 0, -ENOMEM, -E2BIG */
	bool failed_once; /* a collection failure was reported */
	bool told_unread; /* the processes it could not read were said, once (unread_note) */
	bool serving;	  /* not --once: scrapes follow, the note is not repeated */
	bool ledger;	  /* --process-ledger */
	struct ledger_req q;
	size_t cg_top;		     /* --top-cgroups, 0: none */
	struct cg_collect cg;	     /* the cgroups of the last collection */
	struct cg_pid_cache cg_pids; /* their processes' THP opt-outs, by pid */
	double cg_pids_at;	     /* CLOCK_MONOTONIC seconds they were all read, 0 never */
	char policy[16];
#ifdef THPCTL_HTTP
	struct http_listener {
		struct MHD_Daemon *d;
		int fd;	     /* the listening socket, -1 none */
		int wake[2]; /* a pipe: stops the accept thread */
		bool thread_started;
		atomic_bool running; /* MHD started: its messages are dropped */
		pthread_t thread;
		pthread_mutex_t lock; /* guard */
		struct connguard guard;
		double reported; /* CLOCK_MONOTONIC seconds of the last report line */
		uint64_t reported_counts[CG_NREASONS];
	} http;
	struct MHD_Response *cached; /* the last body as a response; one reference ours */
	uint64_t cached_gen;	     /* the collection (meta.collections) it was made from */
	struct MHD_Response *not_found, *not_allowed, *failed;
	struct web_config *web; /* --web.config.file: TLS, basic auth; NULL without */
	struct MHD_Response *landing, *unauthorized; /* GET /, 401 (exporter_web.c) */
	struct MHD_Response *busy;		     /* 503, Retry-After: 1: a bcrypt runs */
#endif
};

/*
 * Collect and render into E->body unless the last collection is younger than
 * --cache-ms (FORCE: collect anyway). Caller holds E->lock. Returns 1 when it
 * collected (E->last_err says how it went), 0 when the cached body stands.
 */
int exporter_refresh(struct exporter *e, bool force);

#ifdef THPCTL_HTTP
/* Parse ADDR:PORT ("127.0.0.1:9799", ":9799", "[::1]:9799") into SS. Returns 0 or -EINVAL. */
int http_parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6);
/* Initialise E's listener state (no socket yet). */
void http_init(struct exporter *e);
/* Listen on LISTEN and serve GET /metrics from E. Returns 0, or -errno after a message. */
int http_start(struct exporter *e, const char *listen);
/* Stop serving and free the listener's state and responses. Idempotent. */
void http_stop(struct exporter *e);

/* exporter_web.c: the landing page, basic auth and TLS of --web.config.file. */
/* The daemon flags (MHD_USE_TLS with a certificate) and options (the PEMs; MHD_OPTION_ARRAY). */
unsigned web_daemon_flags(const struct exporter *e);
const struct MHD_OptionItem *web_daemon_options(struct exporter *e);
/* Whether libmicrohttpd (GnuTLS) takes W's key, certificate and priorities: a daemon started
 * and stopped, no socket. 0 (also without TLS, or when libmicrohttpd cannot do TLS: the listener
 * says so), or -EINVAL with GnuTLS's reason in ERR: a configuration error (exit 2). */
int web_tls_check(const struct web_config *w, char *err, size_t errlen);
/* "https" with TLS, else "http". */
const char *web_scheme(const struct exporter *e);
/* The responses of / and 401. 0, or -ENOMEM / -ENOTSUP (no TLS in libmicrohttpd) after a message. */
int web_start(struct exporter *e);
/* Before routing a request for URL: 401 without the right credentials, the landing page at /.
 * Returns the queued result (MHD_YES/MHD_NO), or -1 for the caller to go on. */
int web_request(struct exporter *e, struct MHD_Connection *conn, const char *url);
/* Free the responses of web_start(). Idempotent. */
void web_stop(struct exporter *e);
#endif

#endif
