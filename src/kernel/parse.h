/* SPDX-License-Identifier: MIT */
/* Small pure helpers shared by the parsers of kernel text files. */
#ifndef THPCTL_PARSE_H
#define THPCTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/num.h"

/* An optional unsigned value: absent is not zero. */
struct opt_u64 {
	uint64_t v;
	bool present;
};

/* parse_u64() (a number inside a line) is util/num.h's scanner. */

/*
 * Parse TEXT (whole file, e.g. "1\n": blanks around it and a final newline
 * allowed) as one u64 with str_to_u64(). 0, -EINVAL or -ERANGE.
 */
int parse_u64_text(const char *text, size_t len, uint64_t *out);

/*
 * Parse TEXT, a whole sysfs one-value file ("65536\n"), as one u64: the
 * kernel ends the value with a newline, so a file without its final newline
 * was cut ("6553" of 65536) and is not a number. 0, -EINVAL (cut, or not one
 * whole number) or -ERANGE.
 */
int sysfs_u64_parse(const char *text, size_t len, uint64_t *out);

#define CHOICE_MAX 8
#define CHOICE_LEN 24

/*
 * A sysfs "choice" file such as transparent_hugepage/enabled:
 * "always [madvise] never". selected is the bracketed word.
 */
struct choice {
	bool present;
	char selected[CHOICE_LEN];
	int noptions;
	char options[CHOICE_MAX][CHOICE_LEN];
};

/*
 * Parse a bracketed sysfs value. Returns 0, or -EINVAL when there is no
 * bracketed word, more than one, an unterminated bracket, or a word longer
 * than CHOICE_LEN-1. Options beyond CHOICE_MAX are dropped.
 */
int choice_parse(const char *text, size_t len, struct choice *c);

/* Whether C offers the option WORD. */
bool choice_offers(const struct choice *c, const char *word);

/*
 * The size in kB of a "hugepages-2048kB" directory name, as both
 * transparent_hugepage/ (mTHP sizes) and hugepages/ (hugetlb pools) name
 * them; 0 for any other name.
 */
uint64_t hugepages_dirname_kb(const char *name);

/* Iterate lines: returns the next line [*line, *line_end) or false at end. */
bool next_line(const char **pos, const char *end, const char **line, const char **line_end);

/* The next word of [*POS, END) separated by spaces and newlines: [*W, *W_END); false at the end. */
bool next_word(const char **pos, const char *end, const char **w, const char **w_end);

#endif
