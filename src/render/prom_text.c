// SPDX-License-Identifier: MIT
/* The Prometheus text format's building blocks: the output buffer and escaping. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"
#include "table.h"
void pbuf_free(struct pbuf *b)
{
	buf_free(&b->b);
	b->overflow = false;
}

void pbuf_reset(struct pbuf *b)
{
	b->len = 0;
	b->overflow = false;
	if (b->p)
		b->p[0] = '\0';
}

/*
 * After an append that began at length WAS (E its result): past the cap or
 * out of memory, take the append back and drop everything from now on.
 */
static void pbuf_check(struct pbuf *b, size_t was, int e)
{
	size_t max = b->max ? b->max : PBUF_DEFAULT_MAX;
	if (!e && b->len <= max)
		return;
	b->overflow = true;
	b->len = was;
	if (b->p)
		b->p[was] = '\0';
}

static void pbuf_add(struct pbuf *b, const char *s, size_t n)
{
	if (b->overflow)
		return;
	size_t was = b->len;
	pbuf_check(b, was, buf_add(&b->b, s, n));
}

void pbuf_puts(struct pbuf *b, const char *s)
{
	pbuf_add(b, s, strlen(s));
}

void pbuf_printf(struct pbuf *b, const char *fmt, ...)
{
	if (b->overflow)
		return;
	size_t was = b->len;
	va_list ap;
	va_start(ap, fmt);
	int e = buf_vaddf(&b->b, fmt, ap);
	va_end(ap);
	pbuf_check(b, was, e);
}

bool prom_valid_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == ':'))
			return false;
	return true;
}

/* U+FFFD: the mark before the hex of a byte the text format cannot carry (prom_escape_label) */
#define PROM_MARK "\xef\xbf\xbd"

void prom_escape_label(struct pbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	while (*p) {
		const unsigned char *run = p;
		size_t k;
		/* copy runs of plain valid text at once: no control character (C0, DEL, C1) and
		 * no U+FFFD (the mark itself) */
		while (*p && *p != '\\' && *p != '"' && *p != '\n' &&
		       (k = utf8_seq(p, (size_t)(end - p))) > 0 &&
		       !(k == 1 && ((*p < 0x20 && *p != '\t') || *p == 0x7f)) &&
		       !(k == 2 && p[0] == 0xc2 && p[1] < 0xa0) &&
		       !(k == 3 && memcmp(p, PROM_MARK, 3) == 0))
			p += k;
		if (p > run)
			pbuf_add(b, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '\\')
			pbuf_add(b, "\\\\", 2);
		else if (*p == '"')
			pbuf_add(b, "\\\"", 2);
		else if (*p == '\n')
			pbuf_add(b, "\\n", 2);
		else if ((size_t)(end - p) >= 3 && memcmp(p, PROM_MARK, 3) == 0) {
			pbuf_add(b, PROM_MARK PROM_MARK, 6); /* a U+FFFD of the text: doubled */
			p += 3;
			continue;
		} else /* the text format has no \x: the mark and the byte's hex, one to one, so
			* two names differing in such a byte never become one series */
			pbuf_printf(b, PROM_MARK "%02X", *p);
		p++;
	}
}

void prom_escape_help(struct pbuf *b, const char *s)
{
	/* runs without '\\' or a newline at once: a scrape escapes some 300 HELP texts */
	for (const char *p = s; *p;) {
		size_t run = strcspn(p, "\\\n");
		if (run)
			pbuf_add(b, p, run);
		p += run;
		if (*p == '\\')
			pbuf_add(b, "\\\\", 2);
		else if (*p == '\n')
			pbuf_add(b, "\\n", 2);
		else
			break;
		p++;
	}
}
