// SPDX-License-Identifier: MIT
/*
 * The exporter's HTTP listener: libmicrohttpd behind our own accept loop and
 * the connection guard (cmd/connguard.h). cmd/exporter.c's header comment
 * has the design and the libmicrohttpd facts it relies on.
 */
#ifdef THPCTL_HTTP
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/tcp.h> /* struct tcp_info with tcpi_bytes_received (glibc's lacks it) */
#include <netinet/in.h>

#include "../util/clock.h"
#include "exporter_int.h"

static void free_body(void *cls)
{
	free(cls);
}

static struct MHD_Response *text_response(const char *text)
{
	struct MHD_Response *r =
		mhd.create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (r)
		mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
	return r;
}

/* A response for the current body (which it copies). NULL on ENOMEM. */
static struct MHD_Response *body_response(const struct pbuf *body)
{
	char *copy = malloc(body->len ? body->len : 1);
	if (!copy)
		return NULL;
	memcpy(copy, body->p ? body->p : "", body->len);
	struct MHD_Response *r =
		mhd.create_response_from_buffer_with_free_callback(body->len, copy, free_body);
	if (!r) {
		free(copy);
		return NULL;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	struct exporter *e = cls;
	(void)version;
	(void)upload_data;
	static int headers_seen; /* *req_cls: this request's first call is over */
	if (!*req_cls) {
		/* the request headers are complete: the guard's response deadline starts */
		const union MHD_ConnectionInfo *ci =
			mhd.get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
		if (ci && ci->socket_context) {
			pthread_mutex_lock(&e->http.lock);
			connguard_headers(&e->http.guard, ci->socket_context, mono_s());
			pthread_mutex_unlock(&e->http.lock);
		}
		*req_cls = &headers_seen;
		/* other methods: 405 at once; the body, if any, is never read (MHD closes) */
		if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
			return mhd.queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
						  e->not_allowed);
		/* GET and HEAD are answered from the next call: a response queued in the
		 * first one makes libmicrohttpd close the connection (no keep-alive) */
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* a body on GET: read and dropped */
		return MHD_YES;
	}
	int w = web_request(e, conn, url); /* basic auth, the landing page (exporter_web.c) */
	if (w >= 0)
		return (enum MHD_Result)w;
	if (strcmp(url, "/metrics") != 0)
		return mhd.queue_response(conn, MHD_HTTP_NOT_FOUND, e->not_found);
	pthread_mutex_lock(&e->lock);
	exporter_refresh(e, false);
	/* a response from the newest body: --textfile's loop collects too, and its body
	 * (within --cache-ms) is what a scrape gets, never an older one nor a 500 */
	if (e->last_err == 0 && (!e->cached || e->cached_gen != e->meta.collections)) {
		struct MHD_Response *r = body_response(&e->body);
		if (r) {
			if (e->cached)
				mhd.destroy_response(
					e->cached); /* freed when its last reply is sent */
			e->cached = r;
			e->cached_gen = e->meta.collections;
		} else {
			e->last_err = -ENOMEM;
		}
	}
	/* queued under the lock: the cached response cannot be replaced meanwhile */
	enum MHD_Result ret;
	if (e->last_err || !e->cached)
		ret = mhd.queue_response(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, e->failed);
	else
		ret = mhd.queue_response(conn, MHD_HTTP_OK, e->cached);
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/* "127.0.0.1:9799", "[::1]:9799", ":9799" (every IPv4 address), "localhost:9799". */
int http_parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6)
{
	char host[128];
	const char *colon, *hs = s;
	size_t hl;
	memset(ss, 0, sizeof(*ss));
	if (*s == '[') {
		const char *rb = strchr(s, ']');
		if (!rb || rb[1] != ':')
			return -EINVAL;
		hs = s + 1;
		hl = (size_t)(rb - hs);
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		hl = (size_t)(colon - s);
	}
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, hs, hl);
	host[hl] = '\0';
	char *end;
	errno = 0;
	long port = strtol(colon + 1, &end, 10);
	if (errno || !colon[1] || *end || port < 0 || port > 65535)
		return -EINVAL;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	*v6 = false;
	if (!*host || strcmp(host, "0.0.0.0") == 0) {
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
	} else if (strcmp(host, "localhost") == 0) {
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		*v6 = true;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return 0;
	} else {
		return -EINVAL;
	}
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	return 0;
}

/* SA as 16 bytes (IPv4 as ::ffff:a.b.c.d; zeros if neither family). */
static void addr16(const struct sockaddr *sa, uint8_t out[16])
{
	memset(out, 0, 16);
	if (!sa)
		return;
	if (sa->sa_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, (const char *)sa + offsetof(struct sockaddr_in, sin_addr), 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(out, (const char *)sa + offsetof(struct sockaddr_in6, sin6_addr), 16);
	}
}

/* Bytes received on TCP socket FD so far (TCP_INFO; 0 if unknown). */
static uint64_t rx_bytes(int fd, void *arg)
{
	(void)arg;
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) ||
	    len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		return 0;
	return ti.tcpi_bytes_received;
}

/* NOTIFY_CONNECTION: STARTED before MHD serves the socket, CLOSED before it closes it. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_listener *l = cls;
	pthread_mutex_lock(&l->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fi =
			mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		const union MHD_ConnectionInfo *ai =
			mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		uint8_t a[16];
		addr16(ai ? ai->client_addr : NULL, a);
		*socket_context =
			fi ? connguard_started(&l->guard, fi->connect_fd, a, mono_s()) : NULL;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
		connguard_closed(&l->guard, *socket_context);
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&l->lock);
}

/* NOTIFY_COMPLETED: a response is sent (or the request failed); idle until the next one. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_listener *l = cls;
	(void)req_cls;
	(void)toe;
	const union MHD_ConnectionInfo *ci =
		mhd.get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	const union MHD_ConnectionInfo *fi =
		mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci || !ci->socket_context || !fi)
		return;
	uint64_t rx = rx_bytes(fi->connect_fd, NULL);
	pthread_mutex_lock(&l->lock);
	connguard_completed(&l->guard, ci->socket_context, mono_s(), rx);
	pthread_mutex_unlock(&l->lock);
}

/* libmicrohttpd's messages: printed while it starts (why it could not), dropped once it runs:
 * they would be one line per client that hangs up or is cut off (the report counts those). */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	const struct http_listener *l = cls;
	if (atomic_load(&l->running))
		return;
	fprintf(stderr, "%s: exporter: libmicrohttpd: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
}

/* Shut down what the guard doomed. Caller holds l->lock: the fds are still MHD's, open. */
static void cut_off(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		shutdown(fds[i], SHUT_RDWR);
}

/* Accept what is waiting (up to 64), admit each through the guard, hand it to MHD. False when
 * the guard says to wait (connections not yet taken over by MHD, or not yet closed). */
static bool accept_some(struct http_listener *l)
{
	for (int k = 0; k < 64; k++) {
		pthread_mutex_lock(&l->lock);
		bool go = connguard_accepting(&l->guard);
		pthread_mutex_unlock(&l->lock);
		if (!go)
			return false;
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int fd = accept4(l->fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				/* out of fds or memory: the backlog waits, no busy loop */
				struct pollfd p = {.fd = l->wake[0], .events = POLLIN};
				poll(&p, 1, 100);
			}
			return true;
		}
		uint8_t a[16];
		int victims[2];
		size_t nv = 0;
		addr16((struct sockaddr *)&ss, a);
		pthread_mutex_lock(&l->lock);
		int r = connguard_admit(&l->guard, fd, a, mono_s(), rx_bytes, NULL, victims, &nv);
		cut_off(victims, nv);
		pthread_mutex_unlock(&l->lock);
		if (r) {
			close(fd); /* ours still: refused */
			continue;
		}
		/* MHD owns fd from here, and closes it itself on failure */
		if (mhd.add_connection(l->d, fd, (struct sockaddr *)&ss, sl) != MHD_YES) {
			pthread_mutex_lock(&l->lock);
			connguard_forget(&l->guard, fd);
			pthread_mutex_unlock(&l->lock);
		}
	}
	return true;
}

/* One line about cut-off clients, at most every HTTP_REPORT_S; DIFF is the counts since the last. */
static void report(const uint64_t *diff, double span)
{
	fprintf(stderr,
		"%s: exporter: clients cut off in the last %.1f s: %" PRIu64
		" evicted for newer connections (%" PRIu64
		" at the per-address limit of %d), %" PRIu64
		" over the request deadline (%.0f s), %" PRIu64
		" over the response deadline (%.0f s), %" PRIu64 " refused (every slot busy)\n",
		program_invocation_short_name, span, diff[CG_EVICT_ADDR] + diff[CG_EVICT_TOTAL],
		diff[CG_EVICT_ADDR], HTTP_MAX_PER_ADDRESS, diff[CG_DL_REQUEST], HTTP_REQUEST_S,
		diff[CG_DL_RESPONSE], HTTP_RESPONSE_S, diff[CG_REFUSED]);
}

/* The accept thread: admissions, deadlines, the report line. */
static void *accept_main(void *arg)
{
	struct http_listener *l = arg;
	bool paused = false; /* the guard said to wait: look at the listening socket in 1 ms */
	for (;;) {
		int fds[64];
		size_t n;
		uint64_t diff[CG_NREASONS];
		bool due = false, any = false;
		double span = 0;
		pthread_mutex_lock(&l->lock);
		double now = mono_s();
		do {
			n = connguard_expire(&l->guard, now, rx_bytes, NULL, fds, 64);
			cut_off(fds, n);
		} while (n == 64);
		double t = connguard_next(&l->guard, now, HTTP_RX_POLL_S);
		if (l->guard.head && (t < 0 || t > HTTP_RX_POLL_S))
			t = HTTP_RX_POLL_S;
		for (int i = 0; i < CG_NREASONS; i++) {
			diff[i] = l->guard.counts[i] - l->reported_counts[i];
			any |= diff[i] != 0;
		}
		if (any) {
			double wait = l->reported + HTTP_REPORT_S - now;
			if (wait <= 0) {
				due = true;
				span = now - l->reported < HTTP_REPORT_S ? now - l->reported
									 : HTTP_REPORT_S;
				l->reported = now;
				memcpy(l->reported_counts, l->guard.counts,
				       sizeof(l->reported_counts));
			} else if (t < 0 || wait < t) {
				t = wait;
			}
		}
		pthread_mutex_unlock(&l->lock);
		if (due)
			report(diff, span);
		struct pollfd p[2] = {{.fd = l->wake[0], .events = POLLIN},
				      {.fd = l->fd, .events = POLLIN}};
		int ms = t < 0 ? -1 : (int)(t * 1000) + 1;
		if (due)
			ms = 0;
		else if (paused)
			ms = 1;
		if (poll(p, paused ? 1 : 2, ms) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (paused || (p[1].revents & POLLIN))
			paused = !accept_some(l);
	}
	return NULL;
}

/* A listening TCP socket on SS (non-blocking); -errno. */
static int open_listener(const struct sockaddr_storage *ss, bool v6)
{
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (v6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	socklen_t len = v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	if (bind(fd, (const struct sockaddr *)ss, len) || listen(fd, SOMAXCONN)) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static void stop_http(struct http_listener *l)
{
	if (l->thread_started) {
		char c = 1;
		if (write(l->wake[1], &c, 1) != 1)
			warn("exporter: cannot stop the accept thread");
		pthread_join(l->thread, NULL);
		l->thread_started = false;
	}
	if (l->d)
		mhd.stop_daemon(l->d); /* closes every connection: CLOSED for each */
	l->d = NULL;
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	for (int i = 0; i < 2; i++)
		if (l->wake[i] >= 0)
			close(l->wake[i]);
	l->wake[0] = l->wake[1] = -1;
	connguard_free(&l->guard); /* pending ones MHD dropped unseen */
}

int http_start(struct exporter *e, const char *listen)
{
	struct http_listener *l = &e->http;
	struct sockaddr_storage ss;
	bool v6;
	if (http_parse_listen(listen, &ss, &v6))
		return -EINVAL; /* checked while parsing the options */
	char why[256];
	int r = mhd_load(why, sizeof(why));
	if (r) {
		warnx("exporter: cannot load libmicrohttpd for the HTTP listener: %s; install it "
		      "(Debian/Ubuntu: libmicrohttpd12, Fedora/RHEL: libmicrohttpd), or use "
		      "--textfile DIR or --once",
		      why);
		return r;
	}
	e->not_found = text_response("404 not found: thpctl serves GET /metrics\n");
	e->not_allowed = text_response("405 method not allowed: GET /metrics only\n");
	e->failed = text_response("500 collection failed (see the exporter's stderr)\n");
	if (!e->not_found || !e->not_allowed || !e->failed) {
		warnx("out of memory");
		return -ENOMEM;
	}
	mhd.add_response_header(e->not_allowed, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if ((r = web_start(e)))
		return r;
	l->fd = open_listener(&ss, v6);
	if (l->fd < 0) {
		int err = -l->fd;
		warnx("exporter: cannot listen on %s: %s%s", listen, strerror(err),
		      err == EACCES ? " (a port below 1024 needs root or CAP_NET_BIND_SERVICE)"
		      : err == EADDRINUSE    ? " (another program listens there)"
		      : err == EADDRNOTAVAIL ? " (not an address of this host)"
					     : "");
		return l->fd;
	}
	if (pipe2(l->wake, O_CLOEXEC)) {
		warn("exporter: pipe");
		return -errno;
	}
	/* MHD parses and answers; connections come from our accept thread (MHD_USE_ITC wakes
	 * its threads for them). Its own limit sits above the guard's, which is tighter. */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
			 MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | web_daemon_flags(e);
	l->d = mhd.start_daemon(
		flags, 0, NULL, NULL, on_request, e,
		/* two threads: a slow collection in one still leaves the other serving */
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, l, /* first: it applies from here */
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)(8 * HTTP_MAX_CONNECTIONS), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)16384, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_S,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, l, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, l, MHD_OPTION_ARRAY, web_daemon_options(e), MHD_OPTION_END);
	if (!l->d) {
		warnx("exporter: cannot start the HTTP server (libmicrohttpd)");
		return -ENOMEM;
	}
	atomic_store(&l->running, true);
	r = pthread_create(&l->thread, NULL, accept_main, l);
	if (r) {
		warnx("exporter: cannot start the accept thread: %s", strerror(r));
		return -r;
	}
	l->thread_started = true;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	unsigned port = 0;
	if (getsockname(l->fd, (struct sockaddr *)&bound, &blen) == 0)
		port = ntohs(v6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
				: ((struct sockaddr_in *)&bound)->sin_port);
	char addr[INET6_ADDRSTRLEN] = "?";
	if (v6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	fprintf(stderr, "%s: exporter: listening on %s://%s%s%s:%u/metrics\n",
		program_invocation_short_name, web_scheme(e), v6 ? "[" : "", addr, v6 ? "]" : "",
		port);
	return 0;
}

void http_init(struct exporter *e)
{
	e->http.fd = e->http.wake[0] = e->http.wake[1] = -1;
	pthread_mutex_init(&e->http.lock, NULL);
	connguard_init(&e->http.guard, HTTP_MAX_CONNECTIONS, HTTP_MAX_PER_ADDRESS, HTTP_REQUEST_S,
		       HTTP_RESPONSE_S);
	e->http.reported = -HTTP_REPORT_S;
}

void http_stop(struct exporter *e)
{
	stop_http(&e->http); /* MHD first: the responses below may still be queued */
	pthread_mutex_destroy(&e->http.lock);
	web_stop(e);
	struct MHD_Response **rs[] = {&e->cached, &e->not_found, &e->not_allowed, &e->failed};
	mhd_drop(rs, sizeof(rs) / sizeof(rs[0]));
}
#else
/* ISO C wants a translation unit to hold something */
typedef int exporter_http_unused;
#endif
