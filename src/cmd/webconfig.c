// SPDX-License-Identifier: MIT
/* The exporter's --web.config.file: TLS files and basic-auth users (webconfig.h). */
#ifdef THPCTL_HTTP
#include "webconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/dl_libs.h"
#include "../util/fileio.h"

/* "line N: " + the formatted message into ERR; returns -EINVAL. */
__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errlen, size_t line,
						      const char *fmt, ...)
{
	size_t off = 0;
	if (line && errlen)
		off = (size_t)snprintf(err, errlen, "line %zu: ", line);
	if (off < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + off, errlen - off, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Node I's text when it is a string scalar without NUL bytes, else NULL. */
static const char *scalar(yaml_document_t *d, int i)
{
	yaml_node_t *n = yl.yaml_document_get_node(d, i);
	if (!n || n->type != YAML_SCALAR_NODE || !n->tag ||
	    strcmp((const char *)n->tag, YAML_STR_TAG) != 0 ||
	    strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* N is YAML's null: a plain "", "~", "null", "Null" or "NULL" (libyaml resolves no tags). */
static bool yaml_null(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!strcmp((const char *)n->data.scalar.value, nulls[i]))
			return true;
	return false;
}

static size_t line_of(yaml_document_t *d, int i)
{
	yaml_node_t *n = yl.yaml_document_get_node(d, i);
	return n ? n->start_mark.line + 1 : 0;
}

/*
 * Node I as a mapping of at most MAX pairs whose keys are distinct strings; else -EINVAL naming
 * WHAT. MAX bounds the pairwise check of the keys (a 1 MiB file holds some 80 000 of them).
 */
static int mapping(yaml_document_t *d, int i, const char *what, size_t max, char *err,
		   size_t errlen)
{
	yaml_node_t *n = yl.yaml_document_get_node(d, i);
	if (!n || n->type != YAML_MAPPING_NODE)
		return fail(err, errlen, line_of(d, i), "%s must be a mapping (key: value lines)",
			    what);
	size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (count > max)
		return fail(err, errlen, line_of(d, i), "%s has %zu entries: at most %zu", what,
			    count, max);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(d, p->key);
		if (!k)
			return fail(err, errlen, line_of(d, p->key), "a key of %s is not a string",
				    what);
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++)
			if (!strcmp(k, scalar(d, q->key)))
				return fail(err, errlen, line_of(d, p->key),
					    "%s: the key '%s' is given twice", what, k);
	}
	return 0;
}

/* bcrypt's form: $2a$, $2b$ or $2y$, a cost 04..31, '$', 53 characters of ./A-Za-z0-9. */
static bool bcrypt_form(const char *h)
{
	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' ||
	    h[6] != '$')
		return false;
	int cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || cost < 4 || cost > 31)
		return false;
	return strspn(h + 7, "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") ==
	       53;
}

/* The settings of the exporter-toolkit that thpctl does not implement (named in the error). */
static const char *const not_implemented[] = {
	"client_auth_type",
	"client_ca_file",
	"client_allowed_sans",
	"max_version",
	"cipher_suites",
	"curve_preferences",
	"prefer_server_cipher_suites",
	"cert",
	"key",
	"http_server_config",
	"rate_limit",
};

static int unsupported(char *err, size_t errlen, size_t line, const char *where, const char *k)
{
	for (size_t i = 0; i < sizeof(not_implemented) / sizeof(not_implemented[0]); i++)
		if (!strcmp(k, not_implemented[i]))
			return fail(err, errlen, line,
				    "%s%s is an exporter-toolkit setting that thpctl does not "
				    "implement (thpctl: tls_server_config: cert_file, key_file, "
				    "min_version; "
				    "basic_auth_users)",
				    where, k);
	return fail(err, errlen, line,
		    "unknown key %s%s (thpctl knows tls_server_config: cert_file, key_file, "
		    "min_version; "
		    "basic_auth_users)",
		    where, k);
}

/* tls_server_config.min_version V (the toolkit's names): TLS12 or TLS13 into C. */
static int parse_min_version(const char *v, size_t line, struct web_config *c, char *err,
			     size_t errlen)
{
	if (v && (!strcmp(v, "TLS12") || !strcmp(v, "TLS13"))) {
		c->min_tls = v[4] == '2' ? 12 : 13;
		return 0;
	}
	if (v && (!strcmp(v, "TLS10") || !strcmp(v, "TLS11")))
		return fail(err, errlen, line,
			    "tls_server_config.min_version %s: thpctl serves TLS 1.2 and 1.3 "
			    "only (TLS12, the default, or TLS13)",
			    v);
	return fail(err, errlen, line, "tls_server_config.min_version takes TLS12 or TLS13");
}

/* tls_server_config: cert_file and key_file, both non-empty; min_version. */
static int parse_tls(yaml_document_t *d, int i, struct web_config *c, char *err, size_t errlen)
{
	int r = mapping(d, i, "tls_server_config", WEB_KEYS_MAX, err, errlen);
	if (r)
		return r;
	yaml_node_t *n = yl.yaml_document_get_node(d, i);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(d, p->key), *v = scalar(d, p->value);
		if (!strcmp(k, "min_version")) {
			if ((r = parse_min_version(v, line_of(d, p->value), c, err, errlen)))
				return r;
			continue;
		}
		char **dst = !strcmp(k, "cert_file")  ? &c->cert_file
			     : !strcmp(k, "key_file") ? &c->key_file
						      : NULL;
		if (!dst)
			return unsupported(err, errlen, line_of(d, p->key), "tls_server_config.",
					   k);
		if (!v || !*v)
			return fail(err, errlen, line_of(d, p->value),
				    "tls_server_config.%s must be a file name", k);
		if (!(*dst = strdup(v)))
			return -ENOMEM;
	}
	if (!c->cert_file || !c->key_file)
		return fail(err, errlen, line_of(d, i),
			    "tls_server_config needs both cert_file and key_file");
	return 0;
}

/* basic_auth_users: NAME: BCRYPT-HASH lines. */
static int parse_users(yaml_document_t *d, int i, struct web_config *c, char *err, size_t errlen)
{
	yaml_node_t *n = yl.yaml_document_get_node(d, i);
	/* no users would be no auth: as for `basic_auth_users:` (null), an error, not auth off */
	if (n && ((n->type == YAML_MAPPING_NODE &&
		   n->data.mapping.pairs.top == n->data.mapping.pairs.start) ||
		  yaml_null(n)))
		return fail(err, errlen, line_of(d, i),
			    "basic_auth_users has no users: give at least one (NAME: bcrypt "
			    "hash), or leave the key out for no basic auth");
	int r = mapping(d, i, "basic_auth_users", WEB_USERS_MAX, err, errlen);
	if (r)
		return r;
	size_t cap = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (!(c->users = calloc(cap, sizeof(*c->users))))
		return -ENOMEM;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		const char *k = scalar(d, p->key), *v = scalar(d, p->value);
		bool name_ok = *k && !strchr(k, ':');
		for (const char *s = k; name_ok && *s; s++)
			name_ok = (unsigned char)*s >= 0x20 && *s != 0x7f;
		if (!name_ok)
			return fail(err, errlen, line_of(d, p->key),
				    "basic_auth_users: a user name must be non-empty, without ':' "
				    "or control characters");
		if (!v || !bcrypt_form(v))
			return fail(err, errlen, line_of(d, p->value),
				    "basic_auth_users.%s: not a bcrypt hash ($2y$10$ and 53 "
				    "characters, as htpasswd -nBC 10 makes)",
				    k);
		int cost = (v[4] - '0') * 10 + (v[5] - '0');
		if (cost > WEB_BCRYPT_COST_MAX)
			return fail(err, errlen, line_of(d, p->value),
				    "basic_auth_users.%s: bcrypt cost %d, over the %d thpctl takes "
				    "(each check doubles per step: cost 14 is about a second); "
				    "htpasswd -nBC 10 makes cost 10",
				    k, cost, WEB_BCRYPT_COST_MAX);
		struct web_user *u = &c->users[c->nusers++];
		if (!(u->name = strdup(k)) || !(u->hash = strdup(v)))
			return -ENOMEM;
	}
	return 0;
}

/* The top level: tls_server_config and basic_auth_users, each at most once. */
static int parse_root(yaml_document_t *d, struct web_config *c, char *err, size_t errlen)
{
	yaml_node_t *root = yl.yaml_document_get_root_node(d);
	if (!root)
		return 0; /* an empty file: no TLS, no auth */
	int ri = (int)(root - d->nodes.start) + 1,
	    r = mapping(d, ri, "the file", WEB_KEYS_MAX, err, errlen);
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     !r && p < root->data.mapping.pairs.top; p++) {
		const char *k = scalar(d, p->key);
		if (!strcmp(k, "tls_server_config"))
			r = parse_tls(d, p->value, c, err, errlen);
		else if (!strcmp(k, "basic_auth_users"))
			r = parse_users(d, p->value, c, err, errlen);
		else
			r = unsupported(err, errlen, line_of(d, p->key), "", k);
	}
	return r;
}

int webconfig_parse(const char *text, size_t len, struct web_config *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (errlen)
		err[0] = '\0';
	if (memchr(text, '\0', len))
		return fail(err, errlen, 0, "a NUL byte: not a YAML text file");
	char why[256];
	if (yl_load(why, sizeof(why)))
		return fail(err, errlen, 0, "libyaml could not be loaded: %s", why);
	yaml_parser_t p;
	yaml_document_t d, d2;
	if (!yl.yaml_parser_initialize(&p))
		return -ENOMEM;
	yl.yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int r;
	if (!yl.yaml_parser_load(&p, &d)) {
		r = p.error == YAML_MEMORY_ERROR
			    ? -ENOMEM
			    : fail(err, errlen, p.problem_mark.line + 1, "not YAML: %s",
				   p.problem ? p.problem : "?");
		yl.yaml_parser_delete(&p);
		return r;
	}
	r = parse_root(&d, c, err, errlen);
	yl.yaml_document_delete(&d);
	/* a second document ("---") would be ignored: refuse it */
	if (!r) {
		if (!yl.yaml_parser_load(&p, &d2)) {
			r = fail(err, errlen, p.problem_mark.line + 1, "not YAML: %s",
				 p.problem ? p.problem : "?");
		} else {
			if (yl.yaml_document_get_root_node(&d2))
				r = fail(err, errlen, d2.start_mark.line + 1,
					 "a second YAML document: one is read");
			yl.yaml_document_delete(&d2);
		}
	}
	yl.yaml_parser_delete(&p);
	/* the passwords' hashes are checked by libcrypt: loaded now, before the listener's threads */
	if (!r && c->nusers && cr_load(why, sizeof(why)))
		r = fail(err, errlen, 0, "libcrypt could not be loaded: %s", why);
	if (!r && c->nusers) {
		pthread_mutex_init(&c->lock, NULL);
		pthread_mutex_init(&c->hashing, NULL);
		c->lock_init = true;
	}
	if (r)
		webconfig_free(c);
	return r;
}

/* WHAT's file PATH whole into OUT (NUL-terminated), after the ownership and mode checks; errors
 * read "WHAT PATH: why" ("PATH: why" when WHAT is ""). */
static int read_checked(const char *path, const char *what0, bool secret, char **out, char *err,
			size_t errlen)
{
	char what[64];
	snprintf(what, sizeof(what), "%s%s", what0, *what0 ? " " : "");
	int fd = open_regular_at(AT_FDCWD, path, 0);
	if (fd < 0) {
		snprintf(err, errlen, "%s%s: %s", what, path, path_err_str(fd));
		return fd;
	}
	struct stat st;
	int r = fstat(fd, &st) ? -errno : 0;
	if (!r && st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s%s: owned by uid %u, neither root nor this user (uid %u)",
			 what, path, (unsigned)st.st_uid, (unsigned)geteuid());
		r = -EACCES;
	} else if (!r && (st.st_mode & 022)) {
		snprintf(err, errlen, "%s%s: writable by %s (mode %04o): chmod go-w", what, path,
			 st.st_mode & 002 ? "every user" : "its group",
			 (unsigned)(st.st_mode & 07777));
		r = -EACCES;
	} else if (!r && secret && (st.st_mode & 004)) {
		snprintf(err, errlen, "%s%s: readable by every user (mode %04o): chmod o-r", what,
			 path, (unsigned)(st.st_mode & 07777));
		r = -EACCES;
	}
	struct buf b = {0};
	if (!r && (r = buf_read_fd(&b, fd, WEB_FILE_MAX, 0)))
		snprintf(err, errlen, "%s%s: %s", what, path, path_err_str(r));
	close(fd);
	if (!r && (!b.p || strlen(b.p) != b.len)) {
		snprintf(err, errlen, "%s%s: %s", what, path,
			 b.len ? "a NUL byte: not a text file" : "empty");
		r = -EINVAL;
	}
	if (r)
		buf_free(&b);
	else
		*out = b.p; /* the buffer's memory, NUL-terminated */
	return r;
}

/* NAME relative to the directory of CONFIG (unless absolute) into a new string. */
static char *beside(const char *config, const char *name)
{
	const char *slash = strrchr(config, '/');
	char *p = NULL;
	if (name[0] == '/' || !slash)
		return strdup(name);
	if (asprintf(&p, "%.*s/%s", (int)(slash - config), config, name) < 0)
		return NULL;
	return p;
}

/* The certificate and key C names, read, checked to be PEM. */
static int load_tls(const char *path, struct web_config *c, char *err, size_t errlen)
{
	char *cert = beside(path, c->cert_file), *key = beside(path, c->key_file);
	int r = !cert || !key ? -ENOMEM : 0;
	if (!r)
		r = read_checked(cert, "tls_server_config.cert_file", false, &c->cert_pem, err,
				 errlen);
	if (!r)
		r = read_checked(key, "tls_server_config.key_file", true, &c->key_pem, err, errlen);
	if (!r && !strstr(c->cert_pem, "-----BEGIN CERTIFICATE-----")) {
		snprintf(err, errlen, "tls_server_config.cert_file %s: no PEM certificate in it",
			 cert);
		r = -EINVAL;
	} else if (!r && !strstr(c->key_pem, "PRIVATE KEY-----")) {
		snprintf(err, errlen, "tls_server_config.key_file %s: no PEM private key in it",
			 key);
		r = -EINVAL;
	}
	free(cert);
	free(key);
	return r;
}

int webconfig_load(const char *path, struct web_config *c, char *err, size_t errlen)
{
	char *text = NULL, why[256];
	memset(c, 0, sizeof(*c));
	int r = read_checked(path, "", false, &text, err, errlen);
	if (r)
		return r;
	r = webconfig_parse(text, strlen(text), c, why, sizeof(why));
	free(text);
	if (r == -EINVAL)
		snprintf(err, errlen, "%s: %s", path, why);
	if (!r && c->cert_file)
		r = load_tls(path, c, err, errlen);
	if (r)
		webconfig_free(c);
	return r;
}

const char *webconfig_tls_priorities(const struct web_config *c)
{
	/* -VERS-ALL then the versions allowed; -RSA: no RSA key exchange (not forward secret) */
	return c->min_tls == 13 ? "NORMAL:-VERS-ALL:+VERS-TLS1.3:-RSA"
				: "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA";
}

bool webconfig_has_auth(const struct web_config *c)
{
	return c && c->nusers > 0;
}

/* A == B over their whole length: the time does not depend on where they differ. */
static bool same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	volatile unsigned char diff = alen != blen;
	size_t n = alen < blen ? alen : blen;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

enum web_auth webconfig_check(struct web_config *c, const char *user, const char *password)
{
	if (!webconfig_has_auth(c) || !user || !password)
		return WEB_AUTH_DENIED;
	struct web_user *u = NULL;
	for (size_t i = 0; i < c->nusers && !u; i++)
		if (!strcmp(c->users[i].name, user))
			u = &c->users[i];
	size_t plen = strlen(password);
	if (u) {
		pthread_mutex_lock(&c->lock);
		bool hit = u->cached && same_bytes(u->cached, u->cached_len, password, plen);
		pthread_mutex_unlock(&c->lock);
		if (hit)
			return WEB_AUTH_OK;
	}
	if (!cr.crypt_rn) /* loaded by webconfig_parse() when there are users */
		return WEB_AUTH_DENIED;
	/* one bcrypt at a time: the others are told to come back, not queued on a thread */
	if (pthread_mutex_trylock(&c->hashing))
		return WEB_AUTH_BUSY;
	/* an unknown user is hashed against the first user's hash: the same cost */
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	bool ok = false;
	if (cd) {
		const char *setting = u ? u->hash : c->users[0].hash;
		const char *h = cr.crypt_rn(password, setting, cd, (int)sizeof(*cd));
		ok = u && h && same_bytes(h, strlen(h), u->hash, strlen(u->hash));
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
	}
	pthread_mutex_unlock(&c->hashing);
	if (ok) {
		char *copy = strdup(password);
		pthread_mutex_lock(&c->lock);
		if (u->cached)
			explicit_bzero(u->cached, u->cached_len);
		free(u->cached);
		u->cached = copy;
		u->cached_len = copy ? plen : 0;
		pthread_mutex_unlock(&c->lock);
	}
	return ok ? WEB_AUTH_OK : WEB_AUTH_DENIED;
}

void webconfig_free(struct web_config *c)
{
	for (size_t i = 0; i < c->nusers; i++) {
		if (c->users[i].cached)
			explicit_bzero(c->users[i].cached, c->users[i].cached_len);
		free(c->users[i].cached);
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	if (c->key_pem)
		explicit_bzero(c->key_pem, strlen(c->key_pem));
	free(c->key_pem);
	free(c->cert_pem);
	free(c->cert_file);
	free(c->key_file);
	if (c->lock_init) {
		pthread_mutex_destroy(&c->lock);
		pthread_mutex_destroy(&c->hashing);
	}
	memset(c, 0, sizeof(*c));
}
#else
/* ISO C wants a translation unit to hold something */
typedef int webconfig_unused;
#endif
