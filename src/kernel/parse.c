// SPDX-License-Identifier: MIT
#include "parse.h"

#include <errno.h>
#include <string.h>

int parse_u64_text(const char *text, size_t len, uint64_t *out)
{
	while (len && (*text == ' ' || *text == '\t'))
		text++, len--;
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n'))
		len--;
	return str_to_u64(text, len, 0, UINT64_MAX, out);
}

int sysfs_u64_parse(const char *text, size_t len, uint64_t *out)
{
	if (!len || text[len - 1] != '\n')
		return -EINVAL; /* cut short: a smaller number is no reading */
	return parse_u64_text(text, len, out);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whether [W, W+N) is printable ASCII without blanks (0x21..0x7e). */
static bool printable_word(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)w[i] <= 0x20 || (unsigned char)w[i] >= 0x7f)
			return false;
	return true;
}

int choice_parse(const char *text, size_t len, struct choice *c)
{
	memset(c, 0, sizeof(*c));
	const char *p = text, *end = text + len;
	int nsel = 0;
	while (p < end) {
		while (p < end && is_blank(*p))
			p++;
		if (p >= end)
			break;
		bool br = *p == '[';
		if (br)
			p++;
		const char *w = p;
		while (p < end && !is_blank(*p) && *p != ']' && *p != '[')
			p++;
		size_t wl = (size_t)(p - w);
		if (br) {
			if (p >= end || *p != ']')
				return -EINVAL;
			p++;
		} else if (p < end && (*p == ']' || *p == '[')) {
			return -EINVAL;
		}
		/*
		 * The kernel's words are printable ASCII ("defer+madvise"): a NUL would cut
		 * one short ("[madvise\0x]" is not "madvise"), a control byte or another
		 * byte is not one of them
		 */
		if (wl == 0 || wl >= CHOICE_LEN || !printable_word(w, wl))
			return -EINVAL;
		if (c->noptions < CHOICE_MAX) {
			memcpy(c->options[c->noptions], w, wl);
			c->options[c->noptions][wl] = '\0';
			c->noptions++;
		}
		if (br) {
			if (nsel++)
				return -EINVAL;
			memcpy(c->selected, w, wl);
			c->selected[wl] = '\0';
		}
	}
	if (nsel != 1)
		return -EINVAL;
	c->present = true;
	return 0;
}

bool choice_offers(const struct choice *c, const char *word)
{
	for (int i = 0; i < c->noptions; i++)
		if (strcmp(c->options[i], word) == 0)
			return true;
	return false;
}

bool next_line(const char **pos, const char *end, const char **line, const char **line_end)
{
	const char *p = *pos;
	if (p >= end)
		return false;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*line = p;
	*line_end = nl ? nl : end;
	*pos = nl ? nl + 1 : end;
	return true;
}

bool next_word(const char **pos, const char *end, const char **w, const char **w_end)
{
	const char *p = *pos;
	while (p < end && (*p == ' ' || *p == '\n'))
		p++;
	if (p >= end)
		return false;
	*w = p;
	while (p < end && *p != ' ' && *p != '\n')
		p++;
	*w_end = p;
	*pos = p;
	return true;
}

uint64_t hugepages_dirname_kb(const char *name)
{
	size_t len = strlen(name);
	uint64_t kb;
	/* the kernel prints "%lukB": a leading zero is not one of its names */
	if (strncmp(name, "hugepages-", 10) != 0 || len < 12 || strcmp(name + len - 2, "kB") != 0 ||
	    name[10] == '0' || str_to_u64(name + 10, len - 12, 0, UINT64_MAX, &kb))
		return 0;
	return kb;
}
