// SPDX-License-Identifier: MIT
/* prom_text_to_json (render/prom.h): a rendered scrape back as JSON, for `exporter --once --json`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "prom.h"

/*
 * Unescape \\, \" and \n from *P up to E, or (QUOTED) up to the closing
 * quote, which must be there. *P ends past what was read. NULL on ENOMEM or
 * a missing quote.
 */
static json_t *unescape(const char **p, const char *e, bool quoted)
{
	char *tmp = malloc((size_t)(e - *p) + 1);
	if (!tmp)
		return NULL;
	size_t n = 0;
	const char *q = *p;
	while (q < e && !(quoted && *q == '"')) {
		if (*q == '\\' && q + 1 < e) {
			q++;
			tmp[n++] = *q == 'n' ? '\n' : *q;
		} else {
			tmp[n++] = *q;
		}
		q++;
	}
	json_t *v = !quoted || q < e ? json_str_n(tmp, n) : NULL;
	free(tmp);
	*p = quoted ? q + 1 : q;
	return v;
}

/* "name{k="v",...} value" into FAM's samples. Returns 0 or -EINVAL. */
static int parse_sample(const char *s, const char *e, json_t *samples)
{
	const char *p = s;
	while (p < e && *p != '{' && *p != ' ')
		p++;
	json_t *labels = json_object(), *smp = json_object();
	if (!labels || !smp)
		goto bad;
	if (p < e && *p == '{') {
		p++;
		while (p < e && *p != '}') {
			const char *k = p;
			while (p < e && *p != '=')
				p++;
			if (p + 1 >= e || p[1] != '"')
				goto bad;
			char key[64];
			size_t kl = (size_t)(p - k);
			if (kl == 0 || kl >= sizeof(key))
				goto bad;
			memcpy(key, k, kl);
			key[kl] = '\0';
			p += 2;
			json_t *v = unescape(&p, e, true);
			if (!v)
				goto bad;
			json_object_set_new(labels, key, v);
			if (p < e && *p == ',')
				p++;
		}
		if (p >= e)
			goto bad;
		p++;
	}
	if (p >= e || *p != ' ')
		goto bad;
	char num[64];
	size_t nl = (size_t)(e - p - 1);
	if (nl == 0 || nl >= sizeof(num))
		goto bad;
	memcpy(num, p + 1, nl);
	num[nl] = '\0';
	char *end;
	errno = 0;
	unsigned long long u = strtoull(num, &end, 10);
	json_t *v;
	if (!*end && !errno && num[0] != '-')
		v = json_u64(u);
	else {
		double d = strtod(num, &end);
		if (*end)
			goto bad;
		v = json_real(d);
	}
	json_object_set_new(smp, "labels", labels);
	json_object_set_new(smp, "value", v);
	json_array_append_new(samples, smp);
	return 0;
bad:
	json_decref(labels);
	json_decref(smp);
	return -EINVAL;
}

json_t *prom_text_to_json(const char *text, size_t len)
{
	json_t *out = json_array(), *fam = NULL, *samples = NULL;
	if (!out)
		return NULL;
	const char *pos = text, *end = text + len;
	while (pos < end) {
		const char *s = pos, *nl = memchr(pos, '\n', (size_t)(end - pos));
		const char *e = nl ? nl : end;
		pos = nl ? nl + 1 : end;
		if (s == e)
			continue;
		size_t n = (size_t)(e - s);
		if (n > 7 && memcmp(s, "# HELP ", 7) == 0) {
			const char *name = s + 7, *sp = memchr(name, ' ', (size_t)(e - name));
			if (!sp)
				goto bad;
			fam = json_object();
			samples = json_array();
			if (!fam || !samples) {
				json_decref(fam);
				json_decref(samples);
				goto bad;
			}
			json_object_set_new(fam, "name", json_str_n(name, (size_t)(sp - name)));
			json_object_set_new(fam, "type", json_null());
			const char *h = sp + 1;
			json_t *help = unescape(&h, e, false);
			json_object_set_new(fam, "help", help ? help : json_null());
			json_object_set_new(fam, "samples", samples);
			json_array_append_new(out, fam);
		} else if (n > 7 && memcmp(s, "# TYPE ", 7) == 0) {
			const char *sp = memrchr(s, ' ', n);
			if (!fam || !sp)
				goto bad;
			json_object_set_new(fam, "type", json_str_n(sp + 1, (size_t)(e - sp - 1)));
		} else if (*s == '#' || !samples || parse_sample(s, e, samples)) {
			goto bad;
		}
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}
