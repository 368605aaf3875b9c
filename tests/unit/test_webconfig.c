// SPDX-License-Identifier: MIT
/* Unit tests: src/cmd/webconfig.c (the exporter's --web.config.file: YAML, files, bcrypt). */
#include "unit.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef THPCTL_HTTP
#include "cmd/webconfig.h"
#include "util/buf.h"

/* bcrypt cost 4 (fast) of "s3cret" ($2y$, as htpasswd writes) and of "pässwörd" ($2b$) */
#define H_S3CRET "$2y$04$zLVMuovJXUXy/qMAr.KlqepYtY6cEF4P2GW3E5DPIcKHsHf/7wCS."
#define H_UTF8 "$2b$04$CrPoTSbEOMbSYLfYqgldVefdLEK.N7Fi3UtC1eobqfLcbxezMH8DC"

static char err[512];

static int parse(const char *text, struct web_config *c)
{
	return webconfig_parse(text, strlen(text), c, err, sizeof(err));
}

/* TEXT is refused with -EINVAL and the error holds WANT. */
static void refused(const char *text, const char *want)
{
	struct web_config c;
	assert_int_equal(parse(text, &c), -EINVAL);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(c.users);
	assert_null(c.cert_file);
}

static void test_full_config(UNIT_STATE)
{
	struct web_config c;
	assert_int_equal(parse("# comment\n"
			       "tls_server_config:\n"
			       "  cert_file: server.crt\n"
			       "  key_file: /etc/thpctl/server.key\n"
			       "basic_auth_users:\n"
			       "  prometheus: " H_S3CRET "\n"
			       "  'ops team': \"" H_UTF8 "\"\n",
			       &c),
			 0);
	assert_string_equal(c.cert_file, "server.crt");
	assert_string_equal(c.key_file, "/etc/thpctl/server.key");
	assert_null(c.cert_pem); /* parse reads no file */
	assert_int_equal(c.nusers, 2);
	assert_string_equal(c.users[0].name, "prometheus");
	assert_string_equal(c.users[0].hash, H_S3CRET);
	assert_string_equal(c.users[1].name, "ops team");
	assert_true(webconfig_has_auth(&c));
	webconfig_free(&c);
}

/* TLS 1.2 and 1.3 without RSA key exchange; min_version TLS13 leaves 1.2 out */
static void test_tls_versions(UNIT_STATE)
{
	struct web_config c;
	const char *tls = "tls_server_config:\n  cert_file: a\n  key_file: b\n";
	assert_int_equal(parse(tls, &c), 0);
	assert_string_equal(webconfig_tls_priorities(&c),
			    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA");
	webconfig_free(&c);
	char text[256];
	snprintf(text, sizeof(text), "%s  min_version: TLS12\n", tls);
	assert_int_equal(parse(text, &c), 0);
	assert_int_equal(c.min_tls, 12);
	assert_string_equal(webconfig_tls_priorities(&c),
			    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA");
	webconfig_free(&c);
	snprintf(text, sizeof(text), "%s  min_version: TLS13\n", tls);
	assert_int_equal(parse(text, &c), 0);
	assert_string_equal(webconfig_tls_priorities(&c), "NORMAL:-VERS-ALL:+VERS-TLS1.3:-RSA");
	webconfig_free(&c);
	snprintf(text, sizeof(text), "%s  min_version: TLS11\n", tls);
	refused(text, "line 4: tls_server_config.min_version TLS11: thpctl serves TLS 1.2 and 1.3 "
		      "only (TLS12, the default, or TLS13)");
	snprintf(text, sizeof(text), "%s  min_version: TLS10\n", tls);
	refused(text, "min_version TLS10: thpctl serves TLS 1.2 and 1.3 only");
	snprintf(text, sizeof(text), "%s  min_version: tls13\n", tls);
	refused(text, "line 4: tls_server_config.min_version takes TLS12 or TLS13");
	snprintf(text, sizeof(text), "%s  min_version: [TLS13]\n", tls);
	refused(text, "min_version takes TLS12 or TLS13");
	snprintf(text, sizeof(text), "%s  max_version: TLS13\n", tls);
	refused(text, "tls_server_config.max_version is an exporter-toolkit setting that thpctl "
		      "does not implement (thpctl: tls_server_config: cert_file, key_file, "
		      "min_version; basic_auth_users)");
}

static void test_empty_is_nothing(UNIT_STATE)
{
	struct web_config c;
	assert_int_equal(parse("", &c), 0);
	assert_false(webconfig_has_auth(&c));
	assert_null(c.cert_file);
	assert_int_equal(parse("# only a comment\n", &c), 0);
	assert_false(webconfig_has_auth(&c));
	webconfig_free(&c);
}

static void test_strict(UNIT_STATE)
{
	refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
		"RequireAndVerifyClientCert\n",
		"line 4: tls_server_config.client_auth_type is an exporter-toolkit setting that "
		"thpctl does not implement");
	refused("http_server_config:\n  http2: false\n", "line 1: http_server_config is an");
	refused("basic_auth_user:\n  a: " H_S3CRET "\n", "line 1: unknown key basic_auth_user");
	refused("basic_auth_users:\n  a: " H_S3CRET "\n  a: " H_UTF8 "\n",
		"line 3: basic_auth_users: the key 'a' is given twice");
	refused("basic_auth_users: {}\nbasic_auth_users: {}\n",
		"the file: the key "
		"'basic_auth_users' is given twice");
	/* no users is no auth: an error, as the null value is, never auth silently off */
	refused("basic_auth_users: {}\n",
		"line 1: basic_auth_users has no users: give at least one");
	refused("basic_auth_users:\n", "basic_auth_users has no users");
	refused("basic_auth_users: ~\n", "basic_auth_users has no users");
	refused("basic_auth_users: ''\n", "line 1: basic_auth_users must be a mapping");
	refused("tls_server_config:\n  cert_file: a\n", "needs both cert_file and key_file");
	refused("tls_server_config:\n  cert_file: a\n  key_file:\n",
		"line 3: "
		"tls_server_config.key_file must "
		"be a file name");
	refused("tls_server_config: yes\n", "line 1: tls_server_config must be a mapping");
	refused("- a\n- b\n", "the file must be a mapping");
	refused("basic_auth_users:\n  a: secret\n",
		"line 2: basic_auth_users.a: not a bcrypt hash");
	/* the right length and prefix, a cost out of range */
	refused("basic_auth_users:\n  a: $2y$99$zLVMuovJXUXy/qMAr.KlqepYtY6cEF4P2GW3E5DPIcKHsHf/"
		"7wCS.\n",
		"not a bcrypt hash");
	/* a cost over 14: a check would take seconds (cost 14 is the most taken) */
	refused("basic_auth_users:\n  ops: $2y$15$zLVMuovJXUXy/qMAr.KlqepYtY6cEF4P2GW3E5DPIcKHsHf/"
		"7wCS.\n",
		"line 2: basic_auth_users.ops: bcrypt cost 15, over the 14 thpctl takes");
	refused("basic_auth_users:\n  a: " H_S3CRET
		"\n  b: $2b$31$zLVMuovJXUXy/qMAr.KlqepYtY6cEF4P2GW3E5DPIcKHsHf/7wCS.\n",
		"line 3: basic_auth_users.b: bcrypt cost 31, over the 14");
	struct web_config c14;
	assert_int_equal(
		parse("basic_auth_users:\n  a: $2b$14$zLVMuovJXUXy/qMAr.KlqepYtY6cEF4P2GW3E5DPIcKHsHf/7wCS.\n",
		      &c14),
		0);
	assert_string_equal(c14.users[0].hash,
			    "$2b$14$zLVMuovJXUXy/qMAr.KlqepYtY6cEF4P2GW3E5DPIcKHsHf/7wCS.");
	webconfig_free(&c14);
	refused("basic_auth_users:\n  'a:b': " H_S3CRET "\n", "without ':'");
	refused("basic_auth_users:\n  a: !!binary " H_S3CRET "\n", "not a bcrypt hash");
	refused("basic_auth_users:\n  a: " H_S3CRET "\n---\nbasic_auth_users: {}\n",
		"a second YAML document");
	refused("basic_auth_users:\n  a: [b\n", "not YAML");
	refused("basic_auth_users:\n\ta: b\n", "line 2: not YAML");
	struct web_config c;
	assert_int_equal(webconfig_parse("a: b\0c", 6, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "NUL byte"));
}

/* N users u0, u1, ... (each with H_S3CRET) as a file's text; free() it */
static char *users_text(size_t n)
{
	struct buf b = {0};
	assert_int_equal(buf_addf(&b, "basic_auth_users:\n"), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(buf_addf(&b, "  u%zu: " H_S3CRET "\n", i), 0);
	return b.p;
}

/* the keys are checked pairwise: their number is bounded (a 1 MiB file holds some 80 000) */
static void test_bounded_mappings(UNIT_STATE)
{
	struct web_config c;
	char *text = users_text(WEB_USERS_MAX);
	assert_int_equal(parse(text, &c), 0);
	assert_int_equal(c.nusers, 1000);
	assert_string_equal(c.users[999].name, "u999");
	webconfig_free(&c);
	free(text);
	text = users_text(WEB_USERS_MAX + 1);
	refused(text, "line 2: basic_auth_users has 1001 entries: at most 1000");
	free(text);
	text = users_text(81506);
	refused(text, "line 2: basic_auth_users has 81506 entries: at most 1000");
	free(text);
	struct buf b = {0};
	for (int i = 0; i < 17; i++)
		assert_int_equal(buf_addf(&b, "k%d: 1\n", i), 0);
	refused(b.p, "line 1: the file has 17 entries: at most 16");
	buf_free(&b);
}

static void test_check(UNIT_STATE)
{
	struct web_config c;
	assert_int_equal(
		parse("basic_auth_users:\n  prometheus: " H_S3CRET "\n  ops: " H_UTF8 "\n", &c), 0);
	assert_int_equal(webconfig_check(&c, "prometheus", "s3cre"), WEB_AUTH_DENIED);
	assert_null(c.users[0].cached);
	assert_int_equal(webconfig_check(&c, "prometheus", "s3cret!"), WEB_AUTH_DENIED);
	assert_int_equal(webconfig_check(&c, "nobody", "s3cret"), WEB_AUTH_DENIED);
	assert_int_equal(webconfig_check(&c, "prometheus", NULL), WEB_AUTH_DENIED);
	assert_int_equal(webconfig_check(&c, NULL, "s3cret"), WEB_AUTH_DENIED);
	assert_int_equal(webconfig_check(&c, "ops", "s3cret"),
			 WEB_AUTH_DENIED); /* another user's password */
	assert_int_equal(webconfig_check(&c, "prometheus", "s3cret"), WEB_AUTH_OK);
	assert_string_equal(c.users[0].cached, "s3cret");
	assert_int_equal(webconfig_check(&c, "prometheus", "s3cret"),
			 WEB_AUTH_OK); /* from the cache */
	assert_int_equal(webconfig_check(&c, "prometheus", "s3creT"), WEB_AUTH_DENIED);
	assert_string_equal(c.users[0].cached, "s3cret"); /* a miss keeps the cache */
	assert_int_equal(webconfig_check(&c, "ops", "pässwörd"), WEB_AUTH_OK);
	webconfig_free(&c);
	/* no users: nobody passes (the caller asks only with basic_auth_users) */
	assert_int_equal(parse("", &c), 0);
	assert_int_equal(webconfig_check(&c, "prometheus", "s3cret"), WEB_AUTH_DENIED);
}

/* one bcrypt at a time: while one runs (the lock held here), a password that is not the
 * remembered one is answered BUSY at once, unchecked; the remembered one still passes */
static void test_check_one_bcrypt_at_a_time(UNIT_STATE)
{
	struct web_config c;
	assert_int_equal(
		parse("basic_auth_users:\n  prometheus: " H_S3CRET "\n  ops: " H_UTF8 "\n", &c), 0);
	assert_int_equal(webconfig_check(&c, "prometheus", "s3cret"), WEB_AUTH_OK); /* remembered */
	assert_int_equal(pthread_mutex_lock(&c.hashing), 0); /* another request's bcrypt */
	assert_int_equal(webconfig_check(&c, "prometheus", "s3cret"), WEB_AUTH_OK);
	assert_int_equal(webconfig_check(&c, "prometheus", "wrong"), WEB_AUTH_BUSY);
	assert_int_equal(webconfig_check(&c, "nobody", "wrong"), WEB_AUTH_BUSY);
	/* the right password, not yet remembered: not checked either */
	assert_int_equal(webconfig_check(&c, "ops", "pässwörd"), WEB_AUTH_BUSY);
	assert_null(c.users[1].cached);
	/* no credentials: denied without a bcrypt, busy or not */
	assert_int_equal(webconfig_check(&c, "ops", NULL), WEB_AUTH_DENIED);
	assert_int_equal(pthread_mutex_unlock(&c.hashing), 0);
	assert_int_equal(webconfig_check(&c, "ops", "pässwörd"), WEB_AUTH_OK);
	assert_int_equal(webconfig_check(&c, "prometheus", "wrong"), WEB_AUTH_DENIED);
	/* the lock is free again after each check (a second trylock would fail if not) */
	assert_int_equal(pthread_mutex_trylock(&c.hashing), 0);
	assert_int_equal(pthread_mutex_unlock(&c.hashing), 0);
	webconfig_free(&c);
}

static char dir[] = "/tmp/thpctl-webconfig.XXXXXX";

static void put(const char *name, const char *text, mode_t mode)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

/* webconfig_load of DIR/web.yml: its result, the error in err */
static int load(struct web_config *c)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/web.yml", dir);
	return webconfig_load(p, c, err, sizeof(err));
}

static void test_load_files(UNIT_STATE)
{
	assert_non_null(mkdtemp(dir));
	const char *crt = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
	const char *key = "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";
	put("web.yml", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n", 0640);
	put("s.crt", crt, 0644);
	put("s.key", key, 0600);
	struct web_config c;
	assert_int_equal(load(&c), 0);
	assert_string_equal(c.cert_pem, crt); /* relative to the config file's directory */
	assert_string_equal(c.key_pem, key);
	webconfig_free(&c);

	put("s.key", key, 0644);
	assert_int_equal(load(&c), -EACCES);
	assert_non_null(strstr(err, "s.key: readable by every user (mode 0644): chmod o-r"));
	put("s.key", key, 0640);
	put("web.yml", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n", 0666);
	assert_int_equal(load(&c), -EACCES);
	assert_non_null(strstr(err, "web.yml: writable by every user (mode 0666)"));
	put("web.yml", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n", 0620);
	assert_int_equal(load(&c), -EACCES);
	assert_non_null(strstr(err, "writable by its group"));
	put("web.yml", "tls_server_config:\n  cert_file: none.crt\n  key_file: s.key\n", 0600);
	assert_int_equal(load(&c), -ENOENT);
	assert_non_null(strstr(err, "tls_server_config.cert_file"));
	assert_non_null(strstr(err, "none.crt: no such file or directory"));
	put("web.yml", "tls_server_config:\n  cert_file: s.key\n  key_file: s.key\n", 0600);
	assert_int_equal(load(&c), -EINVAL);
	assert_non_null(strstr(err, "no PEM certificate"));
	put("web.yml", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.crt\n", 0600);
	assert_int_equal(load(&c), -EACCES); /* the certificate is world-readable: refused as key */
	put("web.yml", "nonsense: 1\n", 0600);
	assert_int_equal(load(&c), -EINVAL);
	assert_non_null(strstr(err, "web.yml: line 1: unknown key nonsense"));
	char p[160];
	snprintf(p, sizeof(p), "%s/web.yml", dir);
	assert_int_equal(webconfig_load(dir, &c, err, sizeof(err)), -EISDIR);
	const char *names[] = {"web.yml", "s.crt", "s.key"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

UNIT_TESTS(test_full_config, test_tls_versions, test_empty_is_nothing, test_strict,
	   test_bounded_mappings, test_check, test_check_one_bcrypt_at_a_time, test_load_files)

#else
static void test_no_http(UNIT_STATE)
{
	skip();
}
UNIT_MAIN(cmocka_unit_test(test_no_http))
#endif
