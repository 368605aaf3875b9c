// SPDX-License-Identifier: MIT
/*
 * `thpctl exporter`: Prometheus metrics over HTTP (libmicrohttpd) and/or a
 * text file for node_exporter's textfile collector.
 *
 * Robustness: libmicrohttpd's own threads (a pool of 2 on epoll) serve
 * connections without blocking on any one client; each connection has a
 * timeout and a small memory pool, and their number is capped. A scrape
 * collects at most once per --cache-ms: concurrent and close scrapes share
 * one rendered body (a refcounted response object), so load on /metrics
 * does not turn into load on /proc.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#ifdef THPCTL_HTTP
#include <microhttpd.h>
#endif

#include "../kernel/fdcache.h"
#include "../kernel/features.h"
#include "../model/sample.h"
#include "../render/prom.h"
#include "common.h"

#ifndef THPCTL_VERSION
#define THPCTL_VERSION "0.1"
#endif

#define DEFAULT_LISTEN "127.0.0.1:9799"
#define TEXTFILE_NAME "thp.prom"

static void exporter_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl exporter [--listen ADDR:PORT] [--textfile DIR [-i SECONDS]]\n"
		"                       [--top-processes N] [--min-process-ahp SIZE]\n"
		"                       [--process-flags] [--cache-ms MS] [--scrape-budget MS]\n"
		"                       [--once]\n\n"
		"Prometheus metrics of THP: every thp_* and compact_* counter of /proc/vmstat,\n"
		"per-size (mTHP) stats, settings (as info metrics) and numeric knobs,\n"
		"khugepaged counters and CPU time, meminfo THP fields, hugetlb pools, free\n"
		"blocks by order and zone, and the top processes by AnonHugePages.\n\n"
		"options:\n"
		"  --listen ADDR:PORT    serve GET /metrics there (default " DEFAULT_LISTEN ";\n"
		"                        loopback unless told: ':9799' is every address,\n"
		"                        '[::1]:9799' IPv6; port 0 picks a free one)\n"
		"  --textfile DIR        write DIR/" TEXTFILE_NAME " atomically (temporary file +\n"
		"                        rename) every interval, for node_exporter's textfile\n"
		"                        collector (DIR is created if missing); no HTTP\n"
		"                        listener then unless --listen\n"
		"  -i, --interval SECONDS  text file rewrite interval (default 15)\n"
		"  --top-processes N     export at most N processes (default 20, up to 1000;\n"
		"                        0: no per-process metrics)\n"
		"  --min-process-ahp SIZE  only processes with AnonHugePages >= SIZE (default 1:\n"
		"                        any; k, M, G suffixes)\n"
		"  --process-flags       also walk full smaps for the hg (MADV_HUGEPAGE) bytes:\n"
		"                        takes each candidate's mmap_lock; by default only\n"
		"                        statm (a prefilter), status and smaps_rollup are read\n"
		"  --cache-ms MS         scrapes within MS of a collection share it (default\n"
		"                        1000)\n"
		"  --scrape-budget MS    stop the process scan after MS (default 2000); the\n"
		"                        scrape then says thpctl_process_scan_truncated 1\n"
		"  --once                collect once, write the text file (or stdout), exit;\n"
		"                        with --json, that scrape as JSON: [{name, type, help,\n"
		"                        samples:[{labels, value}]}]\n" GLOBAL_HELP
		"\nGET (and HEAD) /metrics only: other methods get 405, other paths 404.\n"
		"SIGTERM or SIGINT stops it with exit status 0. As a user other than root,\n"
		"processes of other users are left out and counted in\n"
		"thpctl_processes_unreadable.\n"
#ifndef THPCTL_HTTP
		"\nThis build has no HTTP listener (built without libmicrohttpd, e.g. the\n"
		"static build): use --textfile DIR or --once.\n"
#endif
	);
}

enum {
	OPT_LISTEN = OPT_CMD_BASE,
	OPT_TEXTFILE,
	OPT_TOP_PROCS,
	OPT_MIN_AHP,
	OPT_FLAGS,
	OPT_ONCE,
	OPT_CACHE_MS,
	OPT_BUDGET,
};

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
#ifdef THPCTL_HTTP
	struct MHD_Response *cached; /* the last body as a response; one reference ours */
	struct MHD_Response *not_found, *not_allowed, *failed;
#endif
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Collect and render into e->body, unless the last collection is fresh. Caller holds lock. */
static int refresh(struct exporter *e, bool force)
{
	double now = mono_s();
	if (!force && e->last > 0 && now - e->last < e->cache_s)
		return 0;
	e->last = now;
	e->meta.collections++;
	pbuf_reset(&e->body);
	int r = sample_collect(&e->smp, &e->s);
	if (r == 0)
		r = prom_render(&e->s, &e->meta, &e->body);
	e->last_err = r;
	if (r && !e->failed_once) {
		warnx("exporter: collection failed: %s", strerror(-r));
		e->failed_once = true;
	}
	return 1;
}

/* Write BODY to DIR/thp.prom: a temporary file in DIR, then rename(2). */
static int write_textfile(const char *dir, const struct pbuf *body)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, TEXTFILE_NAME) >= (int)sizeof(tmp) ||
	    snprintf(dst, sizeof(dst), "%s/%s", dir, TEXTFILE_NAME) >= (int)sizeof(dst))
		return -ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = 0;
	/* node_exporter may run as another user: the file is world-readable */
	if (fchmod(fd, 0644))
		r = -errno;
	for (size_t off = 0; r == 0 && off < body->len;) {
		ssize_t n = write(fd, body->p + off, body->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else
			off += (size_t)n;
	}
	if (close(fd) && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, dst))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

#ifdef THPCTL_HTTP
static void free_body(void *cls)
{
	free(cls);
}

static struct MHD_Response *text_response(const char *text)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
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
		MHD_create_response_from_buffer_with_free_callback(body->len, copy, free_body);
	if (!r) {
		free(copy);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
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
	(void)req_cls;
	/* answer at the headers: a request body, if any, is never read */
	*upload_data_size = 0;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return MHD_queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, e->not_allowed);
	if (strcmp(url, "/metrics") != 0)
		return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, e->not_found);
	pthread_mutex_lock(&e->lock);
	if (refresh(e, false) && e->last_err == 0) {
		struct MHD_Response *r = body_response(&e->body);
		if (r) {
			if (e->cached)
				MHD_destroy_response(
					e->cached); /* freed when its last reply is sent */
			e->cached = r;
		} else {
			e->last_err = -ENOMEM;
		}
	}
	/* queued under the lock: the cached response cannot be replaced meanwhile */
	enum MHD_Result ret;
	if (e->last_err || !e->cached)
		ret = MHD_queue_response(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, e->failed);
	else
		ret = MHD_queue_response(conn, MHD_HTTP_OK, e->cached);
	pthread_mutex_unlock(&e->lock);
	return ret;
}

/* "127.0.0.1:9799", "[::1]:9799", ":9799" (every IPv4 address), "localhost:9799". */
static int parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6)
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

static struct MHD_Daemon *start_http(struct exporter *e, const char *listen)
{
	struct sockaddr_storage ss;
	bool v6;
	if (parse_listen(listen, &ss, &v6))
		return NULL; /* checked while parsing the options */
	e->not_found = text_response("404 not found: thpctl serves GET /metrics\n");
	e->not_allowed = text_response("405 method not allowed: GET /metrics only\n");
	e->failed = text_response("500 collection failed (see the exporter's stderr)\n");
	if (!e->not_found || !e->not_allowed || !e->failed) {
		warnx("out of memory");
		return NULL;
	}
	MHD_add_response_header(e->not_allowed, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
			 (v6 ? MHD_USE_IPv6 : 0);
	struct MHD_Daemon *d = MHD_start_daemon(
		flags, 0, NULL, NULL, on_request, e, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		/* two threads: a slow collection in one still leaves the other serving */
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2,
		/* bounded memory: connections, their pools, idle time */
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)16384, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
	if (!d) {
		warnx("exporter: cannot listen on %s (in use, or not an address of this host?)",
		      listen);
		return NULL;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char addr[INET6_ADDRSTRLEN] = "?";
	if (v6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	fprintf(stderr, "thpctl exporter: listening on http://%s%s%s:%u/metrics\n", v6 ? "[" : "",
		addr, v6 ? "]" : "", di ? (unsigned)di->port : 0u);
	return d;
}
#endif

static int parse_ms(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int cmd_exporter(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS,
		{"listen", required_argument, NULL, OPT_LISTEN},
		{"textfile", required_argument, NULL, OPT_TEXTFILE},
		{"interval", required_argument, NULL, 'i'},
		{"top-processes", required_argument, NULL, OPT_TOP_PROCS},
		{"min-process-ahp", required_argument, NULL, OPT_MIN_AHP},
		{"process-flags", no_argument, NULL, OPT_FLAGS},
		{"once", no_argument, NULL, OPT_ONCE},
		{"cache-ms", required_argument, NULL, OPT_CACHE_MS},
		{"scrape-budget", required_argument, NULL, OPT_BUDGET},
		{NULL, 0, NULL, 0},
	};
	const char *listen = NULL, *textfile = NULL;
	long top = 20, cache_ms = 1000, budget_ms = 2000;
	double interval = 15;
	uint64_t min_ahp = 1;
	bool flags = false, once = false;
	int c;
	while ((c = getopt_long(argc, argv, "hi:", opts, NULL)) != -1) {
		if (global_opt(g, c, optarg))
			continue;
		char *end;
		switch (c) {
		case 'h':
			exporter_help(stdout);
			return EXIT_OK;
		case OPT_LISTEN:
			listen = optarg;
			break;
		case OPT_TEXTFILE:
			textfile = optarg;
			break;
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(interval >= 1 && interval <= 86400)) {
				warnx("exporter: bad interval '%s' (seconds, 1 to 86400)", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_TOP_PROCS:
			if (parse_ms(optarg, 0, SAMPLE_MAX_TOP, &top)) {
				warnx("exporter: bad --top-processes '%s' (0 to %d)", optarg,
				      SAMPLE_MAX_TOP);
				return EXIT_USAGE;
			}
			break;
		case OPT_MIN_AHP:
			if (parse_size(optarg, &min_ahp)) {
				warnx("exporter: bad size '%s' (e.g. 64M)", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_FLAGS:
			flags = true;
			break;
		case OPT_ONCE:
			once = true;
			break;
		case OPT_CACHE_MS:
			if (parse_ms(optarg, 0, 3600000, &cache_ms)) {
				warnx("exporter: bad --cache-ms '%s' (0 to 3600000)", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_BUDGET:
			if (parse_ms(optarg, 1, 3600000, &budget_ms)) {
				warnx("exporter: bad --scrape-budget '%s' (1 to 3600000)", optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			exporter_help(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		warnx("exporter: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (g->json && (!once || textfile)) {
		warnx("exporter: --json goes with --once (to stdout): it prints one scrape as JSON");
		return EXIT_USAGE;
	}
	bool http = !once && (listen || !textfile);
#ifndef THPCTL_HTTP
	if (http) {
		warnx("exporter: this build has no HTTP listener (no libmicrohttpd): use "
		      "--textfile DIR or --once");
		return EXIT_USAGE;
	}
#endif
	if (!listen)
		listen = DEFAULT_LISTEN;
#ifdef THPCTL_HTTP
	struct sockaddr_storage ss;
	bool v6;
	if (parse_listen(listen, &ss, &v6)) {
		warnx("exporter: bad --listen '%s' (ADDR:PORT, e.g. 127.0.0.1:9799 or [::1]:9799)",
		      listen);
		return EXIT_USAGE;
	}
#endif
	if (textfile) {
		/* a missing directory (its parent must exist) is created */
		struct stat st;
		if (stat(textfile, &st) && errno == ENOENT && mkdir(textfile, 0755) &&
		    errno != EEXIST) {
			warn("exporter: --textfile: cannot create %s", textfile);
			return EXIT_USAGE;
		}
		if (stat(textfile, &st) || !S_ISDIR(st.st_mode)) {
			warnx("exporter: --textfile %s: not a directory", textfile);
			return EXIT_USAGE;
		}
	}
	int ret = cmd_setup(g);
	if (ret)
		return ret;

	static struct exporter e;
	struct features feat;
	/* detect once: the page size (from smaps on a recorded tree) */
	features_probe(&g->sr, &feat);
	static struct fdcache fc;
	if (!once)
		cmd_fdcache(g, &fc);
	unsigned what = SAMPLE_SETTINGS | SAMPLE_HUGETLB | SAMPLE_KHUGEPAGED;
	if (top > 0)
		what |= SAMPLE_PROCS_TOP | (flags ? SAMPLE_PROC_FLAGS : 0);
	sampler_init(&e.smp, &g->sr, feat.page_size, what);
	e.smp.top = (size_t)top;
	e.smp.min_ahp_kb = (min_ahp + 1023) / 1024;
	e.smp.budget_s = (double)budget_ms / 1000.0;
	e.cache_s = (double)cache_ms / 1000.0;
	e.meta.version = THPCTL_VERSION;
	e.meta.process_metrics = top > 0;
	e.meta.process_flags = flags;
	e.meta.top = (size_t)top;
	e.meta.min_ahp_bytes = min_ahp;
	pthread_mutex_init(&e.lock, NULL);
	ret = EXIT_OK;

	if (once) {
		refresh(&e, true);
		if (e.last_err) {
			ret = EXIT_FAIL;
		} else if (textfile) {
			int r = write_textfile(textfile, &e.body);
			if (r) {
				warnx("exporter: cannot write %s/%s: %s", textfile, TEXTFILE_NAME,
				      strerror(-r));
				ret = EXIT_FAIL;
			}
		} else if (g->json) {
			ret = cmd_emit_json(prom_text_to_json(e.body.p, e.body.len));
		} else if (fwrite(e.body.p, 1, e.body.len, stdout) != e.body.len) {
			ret = EXIT_FAIL;
		}
		if (ret == EXIT_OK && !e.s.has_vmstat && !e.s.has_meminfo) {
			warnx("nothing readable under %s: not a Linux /proc and /sys tree?",
			      g->sr.path);
			ret = EXIT_FAIL;
		}
		goto out;
	}

	/* signals are taken synchronously below; the HTTP threads inherit the mask */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
#ifdef THPCTL_HTTP
	struct MHD_Daemon *d = NULL;
	if (http && !(d = start_http(&e, listen))) {
		ret = EXIT_FAIL;
		goto out;
	}
#endif
	bool warned = false;
	for (;;) {
		if (textfile) {
			pthread_mutex_lock(&e.lock);
			refresh(&e, true);
			int r = e.last_err ? e.last_err : write_textfile(textfile, &e.body);
			pthread_mutex_unlock(&e.lock);
			if (r && !warned)
				warnx("exporter: cannot write %s/%s: %s", textfile, TEXTFILE_NAME,
				      strerror(-r));
			warned = r != 0;
		}
		struct timespec ts = {.tv_sec = (time_t)interval,
				      .tv_nsec = (long)((interval - floor(interval)) * 1e9)};
		int sig = textfile ? sigtimedwait(&set, NULL, &ts) : sigwaitinfo(&set, NULL);
		if (sig == SIGINT || sig == SIGTERM)
			break;
	}
#ifdef THPCTL_HTTP
	if (d)
		MHD_stop_daemon(d);
#endif
out:
#ifdef THPCTL_HTTP
	if (e.cached)
		MHD_destroy_response(e.cached);
	if (e.not_found)
		MHD_destroy_response(e.not_found);
	if (e.not_allowed)
		MHD_destroy_response(e.not_allowed);
	if (e.failed)
		MHD_destroy_response(e.failed);
#endif
	pthread_mutex_destroy(&e.lock);
	g->sr.cache = NULL;
	fdcache_free(&fc);
	sample_free(&e.s);
	sampler_free(&e.smp);
	pbuf_free(&e.body);
	return ret;
}
