/* SPDX-License-Identifier: MIT */
/*
 * `thpctl exporter --web.config.file FILE`: TLS and HTTP basic auth in the
 * format of the Prometheus exporter-toolkit (node_exporter's), the subset that
 * thpctl implements, parsed strictly with libyaml:
 *
 *   tls_server_config:
 *     cert_file: server.crt    # PEM; relative paths: to FILE's directory
 *     key_file: server.key
 *     min_version: TLS12       # or TLS13; TLS10 and TLS11 are refused
 *   basic_auth_users:
 *     prometheus: $2y$10$...   # bcrypt (htpasswd -nBC 10 ""), checked by crypt(3)
 *
 * TLS is 1.2 or 1.3 only, with forward-secret key exchange (no plain RSA):
 * webconfig_tls_priorities(). Any other key (client_auth_type, max_version,
 * cipher_suites, http_server_config, ...) is
 * an error, not ignored: a setting that is silently dropped would weaken what
 * the operator asked for. A key seen twice is an error, and so is
 * basic_auth_users without users ({} or null: that would be no auth) or with
 * more than WEB_USERS_MAX, and a bcrypt cost over WEB_BCRYPT_COST_MAX. An empty file is an empty configuration (plain
 * HTTP, no auth), as in the toolkit.
 */
#ifndef THPCTL_CMD_WEBCONFIG_H
#define THPCTL_CMD_WEBCONFIG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct web_user {
	char *name;
	char *hash;   /* bcrypt: $2a$, $2b$ or $2y$ */
	char *cached; /* the last password that matched hash (saves a bcrypt), NULL none */
	size_t cached_len;
};

struct web_config {
	char *cert_file, *key_file; /* as written in the file; NULL: no TLS */
	char *cert_pem, *key_pem;   /* their contents (webconfig_load), NUL-terminated */
	int min_tls;		    /* min_version: 13 for TLS13, else TLS 1.2 (0: not given) */
	struct web_user *users;	    /* basic_auth_users, NULL/0: no auth */
	size_t nusers;
	pthread_mutex_t lock;	 /* the users' cached passwords */
	pthread_mutex_t hashing; /* held while a bcrypt runs: one at a time (webconfig_check) */
	bool lock_init;
};

/* What webconfig_check() says about a request's credentials. */
enum web_auth {
	WEB_AUTH_OK,	 /* the user and password match */
	WEB_AUTH_DENIED, /* they do not, or there are none: 401 */
	WEB_AUTH_BUSY,	 /* another bcrypt runs: not checked, 503 with Retry-After */
};

/* Largest web configuration, certificate and key file read, bytes. */
#define WEB_FILE_MAX (1u << 20)
/* Most basic_auth_users, and most keys of the file's other mappings (each an error beyond). */
#define WEB_USERS_MAX 1000
#define WEB_KEYS_MAX 16
/* Highest bcrypt cost taken: each step doubles a check's time (cost 10: ~75 ms, 14: ~1.2 s). */
#define WEB_BCRYPT_COST_MAX 14

/*
 * Parse the YAML TEXT (LEN bytes) into C (zeroed first): the keys and the
 * bcrypt hashes' form, no file read. Returns 0, -ENOMEM, or -EINVAL with
 * "line N: what" in ERR (ERRLEN bytes).
 */
int webconfig_parse(const char *text, size_t len, struct web_config *c, char *err, size_t errlen);

/*
 * Read and parse PATH, then read the certificate and key it names (relative
 * to PATH's directory). Each file must be a regular file owned by root or by
 * this user and not writable by group or others; the key not readable by
 * others either. Returns 0, -ENOMEM, or -EINVAL/-EACCES/-errno with why in
 * ERR (naming the file).
 */
int webconfig_load(const char *path, struct web_config *c, char *err, size_t errlen);

/*
 * The GnuTLS priority string of C's listener: TLS 1.2 and 1.3 (only 1.3 with
 * min_version TLS13), without RSA key exchange. A static string.
 */
const char *webconfig_tls_priorities(const struct web_config *c);

/* True when C has basic_auth_users. */
bool webconfig_has_auth(const struct web_config *c);

/*
 * Basic auth: WEB_AUTH_OK when USER is in C and PASSWORD matches its bcrypt
 * hash (crypt_rn(3); the comparison takes the same time wherever it
 * differs). A match is remembered per user: the next request with that
 * password costs a constant-time comparison, not a bcrypt, and is answered
 * first, whatever else runs. Any other password costs a bcrypt, an unknown
 * user's too (timing does not tell user names), and at most one runs at a
 * time: while one does, the answer is WEB_AUTH_BUSY at once, unchecked, so
 * wrong passwords cannot hold the listener's threads. Thread-safe.
 */
enum web_auth webconfig_check(struct web_config *c, const char *user, const char *password);

/* Free what C holds (the passwords cached are wiped first). */
void webconfig_free(struct web_config *c);

#endif
