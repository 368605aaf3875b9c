#!/usr/bin/env bash
# The exporter as Prometheus users expect it: the landing page at /, TLS and basic auth
# through --web.config.file (the exporter-toolkit's YAML), `--textfile -` to stdout.
#
# curl against a self-signed certificate that openssl makes in $TMP: the right password
# gets 200, a wrong or missing one 401 with WWW-Authenticate, plain HTTP to the TLS port
# no HTTP answer at all; a bad configuration file is a clear error with exit status 2,
# and so are files that others may write or, for the key, read.
# Servers listen on 127.0.0.1 only, on ports the kernel picks. Read-only towards the host.
# Last line "exporter-web: N passed, M failed, K skipped".
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init exporter-web
# shellcheck disable=SC2016 # evaluated by summary
at_summary 'san_scan "$TMP"/*.err; expect_sanitizers_quiet "sanitizers quiet in every exporter run"'

need_built "$T"
if "$T" exporter --help | grep 'This build has no HTTP listener' >/dev/null; then
	skip "exporter web" "this build has no HTTP listener"
	summary
fi
for c in curl openssl; do
	command -v "$c" >/dev/null || { nok "preflight" "$c missing (scripts/install-deps --test)"; summary; }
done

# bcrypt cost 10 of "s3cret" ($2y$, as `htpasswd -nBC 10 prometheus` writes it)
HASH='$2y$10$isD9QNMPg8CLhP9cVZ1js.05x8/fStdXExACT7JYCESSeLnt//owi'

# get URL [CURL ARGS]: the status code on stdout (000: no HTTP answer), body $TMP/body, headers $TMP/hdr
get() {
	local url=$1
	shift
	: >"$TMP/body" >"$TMP/hdr"
	curl -s --max-time 10 -o "$TMP/body" -D "$TMP/hdr" -w '%{http_code}' "$@" "$url"
}

# tls PORT S_CLIENT-ARGS...: "PROTOCOL CIPHER" of the handshake openssl s_client makes with
# 127.0.0.1:PORT, "(NONE) (NONE)" when there was none. @SECLEVEL=0: OpenSSL 3 offers TLS 1.0
# and 1.1 only then, so a refusal is the exporter's, not the client's
tls() {
	local port=$1
	shift
	echo | timeout 10 openssl s_client -connect "127.0.0.1:$port" "$@" 2>&1 |
		sed -nE 's/^New, ([^,]+), Cipher is (.*)/\1 \2/p' | head -n 1
}

# ---- the landing page ---------------------------------------------------------------
if start_exporter P; then
	code=$(get "http://127.0.0.1:$P_PORT/")
	expect_eval "GET /: 200, text/html, a link to /metrics, the version" \
		"[ '$code' = 200 ] && grep -qi '^content-type: text/html' '$TMP/hdr' &&
		 grep -q '<a href=\"/metrics\">' '$TMP/body' && grep -qF '$("$T" --version | cut -d' ' -f2)' '$TMP/body'" \
		"HTTP $code: $(head -c 300 "$TMP/body")"
	code=$(get "http://127.0.0.1:$P_PORT/?x=1")
	expect_eval "GET /?x=1 (a query string): the landing page" "[ '$code' = 200 ]" "HTTP $code"
	code=$(get "http://127.0.0.1:$P_PORT/metrics")
	expect_eval "without --web.config.file: /metrics needs no password (200)" "[ '$code' = 200 ]" "HTTP $code"
	code=$(get "http://127.0.0.1:$P_PORT/nothing")
	expect_eval "GET /nothing: 404" "[ '$code' = 404 ]" "HTTP $code"
	stop_pid "$P_PID"
else
	nok "exporter starts" "$(tail -n 3 "$TMP/exporter.P.err" | tr '\n' ' ')"
fi

# ---- TLS and basic auth ----------------------------------------------------------------
W=$TMP/web
mkdir -p "$W"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	-addext subjectAltName=IP:127.0.0.1,DNS:localhost \
	-keyout "$W/server.key" -out "$W/server.crt" >"$TMP/openssl.err" 2>&1 ||
	{ nok "openssl makes a self-signed certificate" "$(tail -n 3 "$TMP/openssl.err" | tr '\n' ' ')"; summary; }
chmod 600 "$W/server.key"
cat >"$W/web.yml" <<EOF
# the exporter-toolkit's format; the files beside this one
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prometheus: '$HASH'
EOF
chmod 600 "$W/web.yml"
if EXPORTER_SCHEME=https start_exporter S --web.config.file "$W/web.yml"; then
	ok "--web.config.file with TLS: the exporter says https://"
	U=https://127.0.0.1:$S_PORT
	code=$(get "$U/metrics" --cacert "$W/server.crt" -u prometheus:s3cret)
	expect_eval "TLS (verified against the certificate), the right password: 200 and the metrics" \
		"[ '$code' = 200 ] && grep -q '^thp_fault_alloc_total' '$TMP/body'" "HTTP $code: $(head -c 200 "$TMP/body")"
	code=$(get "$U/metrics" --cacert "$W/server.crt" -u prometheus:s3cret)
	expect_eval "the same password again (remembered, no bcrypt): 200" "[ '$code' = 200 ]" "HTTP $code"
	code=$(get "$U/metrics" --cacert "$W/server.crt" -u prometheus:wrong)
	expect_eval "a wrong password: 401 with WWW-Authenticate: Basic, no metrics" \
		"[ '$code' = 401 ] && grep -qi '^www-authenticate: Basic realm=\"thpctl exporter\"' '$TMP/hdr' && ! grep -q '^thp_' '$TMP/body'" \
		"HTTP $code: $(tr '\r\n' '  ' <"$TMP/hdr")"
	code=$(get "$U/metrics" --cacert "$W/server.crt" -u grafana:s3cret)
	expect_eval "an unknown user: 401" "[ '$code' = 401 ]" "HTTP $code"
	code=$(get "$U/metrics" --cacert "$W/server.crt")
	expect_eval "no credentials: 401 with WWW-Authenticate" \
		"[ '$code' = 401 ] && grep -qi '^www-authenticate: Basic' '$TMP/hdr'" "HTTP $code"
	code=$(get "$U/" --cacert "$W/server.crt")
	expect_eval "the landing page needs the password too: 401" "[ '$code' = 401 ]" "HTTP $code"
	code=$(get "$U/" --cacert "$W/server.crt" -u prometheus:s3cret)
	expect_eval "the landing page with the password: 200" "[ '$code' = 200 ]" "HTTP $code"
	code=$(get "http://127.0.0.1:$S_PORT/metrics" -u prometheus:s3cret)
	expect_eval "plain HTTP to the TLS port: refused, no HTTP answer" "[ '$code' = 000 ] && [ ! -s '$TMP/hdr' ]" \
		"HTTP $code: $(head -c 200 "$TMP/hdr")"
	code=$(get "$U/metrics" -u prometheus:s3cret)
	expect_eval "TLS without trusting the self-signed certificate: curl refuses it" "[ '$code' = 000 ]" "HTTP $code"
	# TLS 1.2 and 1.3 only, forward-secret key exchange only (not GnuTLS's defaults)
	for v in tls1 tls1_1; do
		got=$(tls "$S_PORT" "-$v" -cipher 'DEFAULT@SECLEVEL=0')
		expect_eval "TLS: -$v refused (no handshake)" "[ '$got' = '(NONE) (NONE)' ]" "handshake: $got"
	done
	got=$(tls "$S_PORT" -tls1_2)
	expect_eval "TLS: TLS 1.2 with ECDHE (forward secret)" "[[ '$got' == 'TLSv1.2 ECDHE-'* ]]" "handshake: $got"
	got=$(tls "$S_PORT" -tls1_3)
	expect_eval "TLS: TLS 1.3" "[[ '$got' == 'TLSv1.3 TLS_'* ]]" "handshake: $got"
	got=$(tls "$S_PORT" -tls1_2 -cipher AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA)
	expect_eval "TLS: RSA key exchange (not forward secret) refused" "[ '$got' = '(NONE) (NONE)' ]" "handshake: $got"
	code=$(get "$U/metrics" --cacert "$W/server.crt" -u prometheus:s3cret)
	expect_eval "still serving after those (200)" "[ '$code' = 200 ]" "HTTP $code"
	stop_pid "$S_PID"
	expect_eval "SIGTERM: exit 0" "[ '$STOP_RC' = 0 ]" "exit $STOP_RC"
else
	nok "--web.config.file with TLS: the exporter starts" "$(tail -n 3 "$TMP/exporter.S.err" | tr '\n' ' ')"
fi

# min_version: TLS13 leaves TLS 1.2 out
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS13\n' >"$W/tls13.yml"
chmod 600 "$W/tls13.yml"
if EXPORTER_SCHEME=https start_exporter V --web.config.file "$W/tls13.yml"; then
	got12=$(tls "$V_PORT" -tls1_2) got13=$(tls "$V_PORT" -tls1_3)
	expect_eval "min_version: TLS13: TLS 1.2 refused, TLS 1.3 served" \
		"[ '$got12' = '(NONE) (NONE)' ] && [[ '$got13' == 'TLSv1.3 '* ]]" "1.2: $got12; 1.3: $got13"
	stop_pid "$V_PID"
else
	nok "min_version: TLS13: the exporter starts" "$(tail -n 3 "$TMP/exporter.V.err" | tr '\n' ' ')"
fi

# basic auth without TLS (a file with basic_auth_users only)
printf 'basic_auth_users:\n  prometheus: %s\n' "$HASH" >"$W/auth.yml"
if start_exporter A --web.config.file "$W/auth.yml"; then
	code=$(get "http://127.0.0.1:$A_PORT/metrics" -u prometheus:s3cret)
	c2=$(get "http://127.0.0.1:$A_PORT/metrics" -u prometheus:S3cret)
	expect_eval "basic auth over plain HTTP: right 200, wrong 401" "[ '$code' = 200 ] && [ '$c2' = 401 ]" "HTTP $code, $c2"
	# a wrong-password flood: one bcrypt at a time, the others 503 with Retry-After: 1 at once,
	# and the remembered right password is answered throughout (30 keep-alive clients, 4 s)
	python3 tests/live/exporter_flood.py "$A_PORT" prometheus s3cret wrong 30 4 >"$TMP/flood.json" 2>"$TMP/flood.err"
	expect_json "a wrong-password flood: some 401 (one bcrypt at a time), the rest 503 with Retry-After: 1, nothing else" \
		"$TMP/flood.json" 'd["flood"].get("401", 0) >= 1 and d["flood"].get("503", 0) >= 1 and set(d["flood"]) <= {"401", "503"} and d["retry_after"] == ["1"] and d["flood_errors"] == 0'
	expect_json "during the flood every right-password scrape (remembered) is 200" "$TMP/flood.json" \
		'd["first"] == 200 and len(d["good"]) >= 5 and all(g[0] == 200 for g in d["good"])' \
		'"scrapes (status, s): " + str(d["good"]) + "; flood " + str(d["flood"])'
	echo "# flood: $(cat "$TMP/flood.json")"
	stop_pid "$A_PID"
else
	nok "--web.config.file, auth only: the exporter starts" "$(tail -n 3 "$TMP/exporter.A.err" | tr '\n' ' ')"
fi

# ---- bad configurations: exit 2 and a message naming what is wrong ----------------------
# bad NAME WANT-ERE: the exporter with $W/bad.yml exits 2 at once, saying WANT-ERE
bad() {
	timeout 10 "$T" exporter --listen 127.0.0.1:0 --web.config.file "$W/bad.yml" >"$TMP/bad.out" 2>"$TMP/bad.err"
	local rc=$?
	san_note "$1" "$TMP/bad.err"
	# the file is at fault, not the options: no "--help" hint
	if [ $rc -eq 2 ] && grep -qE -- "$2" "$TMP/bad.err" && ! grep -q -- "--help' for all" "$TMP/bad.err"; then
		ok "$1: exit 2, '$2'"
	else
		nok "$1: exit 2, '$2'" "exit $rc: $(head -c 300 "$TMP/bad.err")"
	fi
}
put() { printf '%b' "$1" >"$W/bad.yml" && chmod "${2:-600}" "$W/bad.yml"; }
put 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n'
bad "a toolkit setting thpctl does not implement" 'bad.yml: line 4: tls_server_config.client_auth_type is an exporter-toolkit setting that thpctl does not implement'
put 'basic_auth_users:\n  prometheus: s3cret\n'
bad "a password that is not a bcrypt hash" 'line 2: basic_auth_users.prometheus: not a bcrypt hash'
put 'basic_auth_users:\n  a: x\n  a: y\n'
bad "a key twice" "line 3: basic_auth_users: the key 'a' is given twice"
put "basic_auth_users:\n  prometheus: '${HASH/\$10\$/\$15\$}'\n"
bad "a bcrypt cost of 15 (a check would take seconds)" 'line 2: basic_auth_users.prometheus: bcrypt cost 15, over the 14 thpctl takes'
put 'basic_auth_users: {}\n'
bad "no users (auth would be off)" 'line 1: basic_auth_users has no users: give at least one'
# 1 MiB of short user lines: refused by their number, before the keys are compared pairwise
{ echo 'basic_auth_users:'; seq -f '  u%.0f: x' 0 81505; } >"$W/bad.yml" && chmod 600 "$W/bad.yml"
bad "81506 users in 1 MiB" 'line 2: basic_auth_users has 81506 entries: at most 1000'
put 'tls_server_config:\n  cert_file: server.crt\n'
bad "a certificate without its key" 'needs both cert_file and key_file'
put 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS10\n'
bad "min_version: TLS10" 'line 4: tls_server_config.min_version TLS10: thpctl serves TLS 1.2 and 1.3 only'
put 'tls_server_config: [\n'
bad "not YAML" 'bad.yml: line [0-9]+: not YAML'
put 'tls_server_config:\n  cert_file: server.crt\n  key_file: missing.key\n'
bad "a missing key file" 'key_file .*/missing.key: no such file or directory'
put "basic_auth_users:\n  prometheus: '$HASH'\n" 666
bad "a configuration every user may write" 'web.config.file: /.*/bad.yml: writable by every user \(mode 0666\): chmod go-w'
cp "$W/server.key" "$W/open.key" && chmod 644 "$W/open.key"
put 'tls_server_config:\n  cert_file: server.crt\n  key_file: open.key\n'
bad "a key every user may read" 'open.key: readable by every user \(mode 0644\): chmod o-r'
put 'tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n'
bad "a key file as the certificate" 'no PEM certificate'
# PEM in form, but not a key and certificate GnuTLS can use: the file's fault too (exit 2)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other -keyout "$W/other.key" \
	-out "$W/other.crt" >>"$TMP/openssl.err" 2>&1
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -aes256 -pass pass:secret \
	-out "$W/enc.key" >>"$TMP/openssl.err" 2>&1
printf -- '-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n' >"$W/junk.key"
printf -- '-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n' >"$W/junk.crt"
chmod 600 "$W/other.key" "$W/enc.key" "$W/junk.key"
refused='tls_server_config: the certificate server.crt and key'
put 'tls_server_config:\n  cert_file: server.crt\n  key_file: other.key\n'
bad "another certificate's key" "$refused other.key were refused by libmicrohttpd \(GnuTLS\): .*do not match"
put 'tls_server_config:\n  cert_file: server.crt\n  key_file: enc.key\n'
bad "a key under a passphrase" "$refused enc.key were refused by libmicrohttpd \(GnuTLS\): .*Decryption has failed"
put 'tls_server_config:\n  cert_file: server.crt\n  key_file: junk.key\n'
bad "a key that is not base64" "$refused junk.key were refused by libmicrohttpd \(GnuTLS\): .*Base64"
# (GnuTLS 3.7 leaks what it parsed of a certificate it refuses; thpctl exits at once)
put 'tls_server_config:\n  cert_file: junk.crt\n  key_file: server.key\n'
ASAN_OPTIONS=detect_leaks=0 bad "a certificate that is not DER" \
	'the certificate junk.crt and key server.key were refused by libmicrohttpd \(GnuTLS\): .*ASN1'
# libyaml and libcrypt are dlopen()ed when a configuration is read (the test hook makes one
# missing): the configuration is refused, naming the library, never half-read
put "basic_auth_users:\n  prometheus: '$HASH'\n"
export THPCTL_TEST_DL_MISSING=libyaml
bad "libyaml missing" 'bad.yml: libyaml could not be loaded: .*thpctl-test-missing\.so'
THPCTL_TEST_DL_MISSING=libcrypt
bad "libcrypt missing, with users" 'bad.yml: libcrypt could not be loaded: .*thpctl-test-missing\.so'
unset THPCTL_TEST_DL_MISSING
rm -f "$W/bad.yml"
bad "no such file" 'web.config.file: /.*/bad.yml: no such file or directory'
"$T" exporter --once --web.config.file "$W/auth.yml" >/dev/null 2>"$TMP/once.err"
rc=$?
expect_eval "--web.config.file with --once: exit 2 (it configures the listener)" \
	"[ $rc -eq 2 ] && grep -q 'configures the HTTP listener' '$TMP/once.err'" "exit $rc: $(head -c 200 "$TMP/once.err")"
if [ "$ROOT" -eq 1 ]; then
	# owned by another user (nobody) than this one (root): refused
	cp "$W/auth.yml" "$W/other.yml" && chmod 600 "$W/other.yml" && chown 65534 "$W/other.yml"
	timeout 10 "$T" exporter --listen 127.0.0.1:0 --web.config.file "$W/other.yml" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	expect_eval "a configuration owned by another user: exit 2" \
		"[ $rc -eq 2 ] && grep -q 'owned by uid 65534, neither root nor this user' '$TMP/bad.err'" \
		"exit $rc: $(head -c 200 "$TMP/bad.err")"
else
	skip "a configuration owned by another user" "needs root"
fi

# ---- --textfile - ---------------------------------------------------------------------
TA=$(realpath "$T")
cd "$TMP" || exit 1
"$TA" exporter --once --textfile - >"$TMP/tf.out" 2>"$TMP/tf.err"
rc=$?
expect_eval "--once --textfile -: exit 0, the metrics on stdout, no file or directory named -" \
	"[ $rc -eq 0 ] && grep -q '^thp_fault_alloc_total' '$TMP/tf.out' && [ ! -e '$TMP/-' ]" \
	"exit $rc: $(head -c 200 "$TMP/tf.err")"
# (a collection takes a while under ASan on a busy host: at least 2 in 4.5 s, at most 1 a second)
timeout --preserve-status -s TERM 4.5 "$TA" exporter --textfile - -i 1 >"$TMP/tf2.out" 2>"$TMP/tf2.err"
rc=$?
n=$(grep -c '^# HELP thp_fault_alloc_total ' "$TMP/tf2.out")
expect_eval "--textfile - -i 1 for 4.5 s: an exposition per interval on stdout ($n), exit 0 on SIGTERM, no listener" \
	"[ $rc -eq 0 ] && [ $n -ge 2 ] && [ $n -le 5 ] && ! grep -q listening '$TMP/tf2.err' && [ ! -e '$TMP/-' ]" \
	"exit $rc, $n expositions: $(head -c 200 "$TMP/tf2.err")"
"$TA" exporter --once --textfile - 2>"$TMP/tf3.err" | head -c 1 >/dev/null
expect_eval "--once --textfile - into a closed pipe: a message, no crash" "! grep -qE 'AddressSanitizer|runtime error' '$TMP/tf3.err'"
cd "$OLDPWD" || exit 1
summary
