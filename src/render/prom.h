/* SPDX-License-Identifier: MIT */
/*
 * Prometheus text exposition format (version 0.0.4) of a sample: pure, it
 * writes into a memory buffer and opens nothing. Naming: `thp_` for what the
 * kernel reports, `thpctl_` for the exporter's own state; base units (bytes,
 * seconds), `_total` on counters, HELP and TYPE before each family.
 */
#ifndef THPCTL_PROM_H
#define THPCTL_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../util/buf.h"
#include "../model/rates.h"
#include "../model/cgroups.h"

/*
 * A growable text buffer with a hard cap: a util/buf.h buffer (B) whose
 * fields are also readable by name (p, len, cap).
 */
struct pbuf {
	union {
		struct buf b;
		struct {
			char *p;
			size_t len, cap;
		};
	};
	size_t max;    /* cap on len in bytes; 0 = PBUF_DEFAULT_MAX */
	bool overflow; /* something was dropped: over max, or out of memory */
};

#define PBUF_DEFAULT_MAX (4u << 20)

void pbuf_free(struct pbuf *b);
void pbuf_reset(struct pbuf *b);
void pbuf_puts(struct pbuf *b, const char *s);
void pbuf_printf(struct pbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether S is a valid metric name: [a-zA-Z_:][a-zA-Z0-9_:]* */
bool prom_valid_name(const char *s);

/*
 * Append label value S escaped for the text format: backslash, double quote
 * and newline become \\, \" and \n; each invalid UTF-8 byte and each byte of a
 * control character (C0 but tab, DEL, C1) becomes U+FFFD and its two hex digits, and a
 * U+FFFD of S becomes two (label values must be UTF-8, the format has no \x escape, a
 * scrape read on a terminal must not drive it, and two cgroup paths or names that
 * differ in such a byte must stay two series: the escape is one to one).
 */
void prom_escape_label(struct pbuf *b, const char *s);

/* Append HELP text S escaped (backslash and newline). */
void prom_escape_help(struct pbuf *b, const char *s);

/* What the exporter knows besides the sample. */
struct prom_meta {
	const char *version;		 /* thpctl version, for thpctl_build_info */
	uint64_t collections;		 /* collections since start, this one included */
	bool process_metrics;		 /* per-process families (top N > 0) */
	bool process_flags;		 /* the smaps walk ran: hg bytes exported */
	bool process_ledger;		 /* --process-ledger: invented, held, creep exported */
	size_t top;			 /* --top-processes */
	uint64_t min_ahp_bytes;		 /* --min-process-ahp */
	const struct cg_report *cgroups; /* --top-cgroups: its first `shown` rows; NULL none */
	size_t cgroups_top;		 /* --top-cgroups */
};

/* HELP and TYPE lines of family NAME (TYPE "gauge", "counter"). */
void prom_family(struct pbuf *b, const char *name, const char *type, const char *help);
/* One sample line NAME{K1="V1",...} V; LABELS: NULL-terminated pairs, or NULL. */
void prom_line_u64(struct pbuf *b, const char *name, const char *const *labels, uint64_t v);
/* A family of one unlabelled gauge sample. */
void prom_gauge_u64(struct pbuf *b, const char *name, const char *help, uint64_t v);

/*
 * The thp_cgroup_* families of R's shown rows (label cgroup = the path in the
 * hierarchy) and thpctl_cgroups_*: sizes in bytes, memory.stat events as
 * counters. A value the kernel does not give (v1: file_thp, events; memory.max
 * of an unlimited cgroup) has no sample. Source: render/prom_cgroups.c.
 */
void prom_render_cgroups(struct pbuf *b, const struct cg_report *r, size_t top);

/*
 * Render S as the body of one scrape into OUT (appended). Counters are
 * exported as the kernel prints them; sizes in bytes. Returns 0, or -E2BIG
 * when OUT overflowed its cap (the body is then incomplete: do not serve it).
 */
int prom_render(const struct sample *s, const struct prom_meta *m, struct pbuf *out);

/*
 * The same scrape as JSON (for `exporter --once --json`): TEXT, as written by
 * prom_render, becomes [{name, type, help, samples:[{labels:{...}, value}]}].
 * Label values are unescaped. NULL on ENOMEM or a line prom_render never writes.
 */
json_t *prom_text_to_json(const char *text, size_t len);

#endif
