// SPDX-License-Identifier: MIT
#include "lab_record.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "parse.h"

bool lab_record_copy(const char *s, size_t l, char *out, size_t n)
{
	if (l >= n)
		return false;
	memcpy(out, s, l);
	out[l] = '\0';
	return true;
}

bool lab_record_word(const char *s, size_t l, char *out, size_t n)
{
	if (!l)
		return false;
	for (size_t i = 0; i < l; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			return false;
	return lab_record_copy(s, l, out, n);
}

int lab_record_parse(const char *text, size_t len, const char *magic,
		     const struct lab_record_head *head, lab_record_line_fn fn, void *ctx)
{
	const char *pos = text, *end = text + len, *s, *e;
	bool first = true, kernel = false, time = false;
	while (next_line(&pos, end, &s, &e)) {
		size_t l = (size_t)(e - s);
		if (first) {
			if (l != strlen(magic) || memcmp(s, magic, l))
				return -EINVAL;
			first = false;
		} else if (l > 7 && !memcmp(s, "kernel ", 7)) {
			if (kernel ||
			    !lab_record_word(s + 7, l - 7, head->kernel, head->kernel_len))
				return -EINVAL;
			kernel = true;
		} else if (l > 5 && !memcmp(s, "time ", 5)) {
			if (time || !lab_record_word(s + 5, l - 5, head->time, head->time_len))
				return -EINVAL;
			time = true;
		} else if (l && fn(s, l, ctx)) {
			return -EINVAL;
		}
	}
	return kernel && time ? 0 : -EINVAL;
}

int lab_record_read(const struct sysroot *sr, const char *rel,
		    int (*parse)(const char *text, size_t len, void *rec), void *rec)
{
	int fd = sysroot_open_file(sr, rel);
	if (fd < 0)
		return fd;
	struct buf b = {0};
	int e = buf_read_fd(&b, fd, 4096, 0);
	close(fd);
	if (e == -EFBIG)
		e = -EINVAL;
	if (!e)
		e = parse(b.p, b.len, rec);
	buf_free(&b);
	return e;
}

int lab_record_text(const char *text, int k, size_t cap, struct buf *b)
{
	if (k < 0 || (size_t)k >= cap || buf_reserve(b, (size_t)k + 1))
		return -ENOMEM;
	memcpy(b->p, text, (size_t)k + 1);
	b->len = (size_t)k;
	return 0;
}
