// SPDX-License-Identifier: MIT
/* The words for a bundle's skipped members (render/skips.h). */
#include "skips.h"

#include <stdarg.h>
#include <string.h>

#include "json.h"
#include "table.h"

/* Append FMT to OUT (N > 0 bytes) at *USED, cut to fit. */
static void add(char *out, size_t n, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *out, size_t n, size_t *used, const char *fmt, ...)
{
	if (*used >= n - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(out + *used, n - *used, fmt, ap);
	va_end(ap);
	if (w > 0)
		*used += (size_t)w < n - *used ? (size_t)w : n - *used - 1;
}

size_t skips_words(char *out, size_t n, const struct bundle_skips *s)
{
	if (!n)
		return 0;
	size_t used = 0;
	out[0] = '\0';
	add(out, n, &used, "%lu bundle member%s skipped (not extracted):", s->total,
	    s->total == 1 ? "" : "s");
	for (size_t i = 0; i < s->n; i++)
		add(out, n, &used, "%s %s", i ? "," : "", s->names[i]);
	if (s->total > s->n)
		add(out, n, &used, " and %lu more", s->total - (unsigned long)s->n);
	return used;
}

void skips_note(FILE *f, const char *indent, const char *why, const struct bundle_skips *s)
{
	if (!bundle_skips_any(s))
		return;
	char w[SKIPS_WORDS_MAX];
	skips_words(w, sizeof(w), s);
	fprintf(f, "%spartial: ", indent);
	if (why)
		fprintf(f, "%s: ", why);
	fputs_safe(w, f);
	fputc('\n', f);
}

void skips_json_missing(json_t *arr, const struct bundle_skips *s)
{
	char w[192];
	for (size_t i = 0; i < s->n; i++) {
		snprintf(w, sizeof(w), "bundle member %s (skipped)", s->names[i]);
		json_array_append_new(arr, json_str(w));
	}
	if (s->total > s->n) {
		snprintf(w, sizeof(w), "%lu more bundle members (skipped)",
			 s->total - (unsigned long)s->n);
		json_array_append_new(arr, json_str(w));
	}
}
