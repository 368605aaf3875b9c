// SPDX-License-Identifier: MIT
#include "esc.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fileio.h"
#include "wrap.h"

size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return c ? 1 : 0;
	if ((c & 0xe0) == 0xc0) {
		len = 2;
		cp = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		cp = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Bytes of text at S (N left) kept as they are: a valid sequence that is no control; 0: escape one. */
static size_t keep_len(const unsigned char *s, size_t n, unsigned flags)
{
	size_t l = utf8_seq(s, n);
	if (l == 1 && (s[0] < 0x20 || s[0] == 0x7f))
		return (s[0] == '\n' && (flags & ESC_KEEP_NL)) ||
				       (s[0] == '\t' && (flags & ESC_KEEP_TAB))
			       ? 1
			       : 0;
	if (l == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0; /* U+0080..U+009F: C1 controls, each byte escaped */
	return l;
}

size_t esc_text(char *out, size_t n, const char *s, size_t len, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t need = 0, o = 0;
	bool stop = false;
	for (size_t i = 0; i < len;) {
		size_t k = keep_len(u + i, len - i, flags);
		char e[4] = {'\\', 'x', hex[u[i] >> 4], hex[u[i] & 15]};
		size_t w = k ? k : 4;
		if (!stop && need + w < n) {
			memcpy(out + need, k ? s + i : e, w);
			o = need + w;
		} else {
			stop = true; /* cut at a whole sequence or escape */
		}
		need += w;
		i += k ? k : 1;
	}
	if (n)
		out[o] = '\0';
	return need;
}

const char *esc_buf(char *out, size_t n, const char *s)
{
	esc_text(out, n, s, strlen(s), 0);
	return out;
}

bool esc_needed(const char *s, size_t len, unsigned flags)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		if (u[i] >= 0x20 && u[i] < 0x7f) { /* printable ASCII, most of it: kept */
			i++;
			continue;
		}
		size_t k = keep_len(u + i, len - i, flags);
		if (!k)
			return true;
		i += k;
	}
	return false;
}

char *esc_dup(const char *s, unsigned flags)
{
	if (!s)
		return NULL;
	size_t len = strlen(s), need = esc_text(NULL, 0, s, len, flags);
	char *out = malloc(need + 1);
	if (out)
		esc_text(out, need + 1, s, len, flags);
	return out;
}

void esc_fputs(const char *s, FILE *f, unsigned flags)
{
	size_t len = strlen(s);
	if (!esc_needed(s, len, flags)) {
		fputs(s, f);
		return;
	}
	char *e = esc_dup(s, flags);
	if (e)
		fputs(e, f);
	free(e);
}

/* Output that counts what it needs and writes what fits (shell_quote). */
struct qout {
	char *p;
	size_t n, need;
};

static void qput(struct qout *q, const char *s, size_t l)
{
	if (q->need + l < q->n)
		memcpy(q->p + q->need, s, l);
	q->need += l;
}

static bool sh_bare(const char *s, size_t len)
{
	if (!len || s[0] == '=')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c && strchr("@%+=:,./-_", c))))
			return false;
	}
	return true;
}

/* $'...': the bytes esc_text() keeps as they are, ' and \ escaped, every other byte named. */
static void quote_ansi(struct qout *q, const unsigned char *u, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	qput(q, "$'", 2);
	for (size_t i = 0; i < len;) {
		size_t k = keep_len(u + i, len - i, 0);
		if (k == 1 && (u[i] == '\\' || u[i] == '\'')) {
			char e[2] = {'\\', (char)u[i]};
			qput(q, e, 2);
		} else if (k) {
			qput(q, (const char *)u + i, k);
		} else if (u[i] == '\n' || u[i] == '\t' || u[i] == 0x1b) {
			qput(q, u[i] == '\n' ? "\\n" : u[i] == '\t' ? "\\t" : "\\e", 2);
		} else {
			char e[4] = {'\\', 'x', hex[u[i] >> 4], hex[u[i] & 15]};
			qput(q, e, 4);
		}
		i += k ? k : 1;
	}
	qput(q, "'", 1);
}

size_t shell_quote(char *out, size_t n, const char *arg, size_t len)
{
	struct qout q = {out, n, 0};
	if (sh_bare(arg, len)) {
		qput(&q, arg, len);
	} else if (esc_needed(arg, len, 0)) {
		quote_ansi(&q, (const unsigned char *)arg, len);
	} else {
		qput(&q, "'", 1);
		for (const char *c = arg, *e = arg + len; c < e;) {
			const char *sq = memchr(c, '\'', (size_t)(e - c));
			qput(&q, c, (size_t)((sq ? sq : e) - c));
			if (sq)
				qput(&q, "'\\''", 4);
			c = sq ? sq + 1 : e;
		}
		qput(&q, "'", 1);
	}
	if (n)
		out[q.need < n ? q.need : 0] = '\0';
	return q.need;
}

int shell_quote_argv(const char *text, size_t len, char *out, size_t n)
{
	if (!n)
		return -ENOSPC;
	out[0] = '\0';
	if (len && text[len - 1] == '\0')
		len--; /* the last word's end */
	else if (!len)
		return 0;
	size_t o = 0;
	for (const char *p = text, *end = text + len;;) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		const char *e = z ? z : end;
		if (o) {
			if (o + 1 >= n)
				goto nospc;
			out[o++] = ' ';
		}
		size_t w = shell_quote(out + o, n - o, p, (size_t)(e - p));
		if (o + w >= n)
			goto nospc;
		o += w;
		if (!z)
			return 0;
		p = z + 1;
	}
nospc:
	out[0] = '\0';
	return -ENOSPC;
}

/* The stderr filter: bytes written are escaped onto fd 2; an incomplete UTF-8 tail waits. */
struct esc_sink {
	int fd;
	unsigned char tail[4];
	size_t ntail;
};

/* Escape and write [P, P+N), the start of a sequence cut at the end kept for the next call. */
static void sink_out(struct esc_sink *k, const char *p, size_t n, bool last)
{
	char buf[4096 * 4 + 1];
	size_t keep = 0;
	if (!last) {
		/* a valid lead byte whose sequence is cut by the end of this write */
		for (size_t b = 1; b <= 3 && b <= n; b++) {
			unsigned char c = (unsigned char)p[n - b];
			size_t want = (c & 0xe0) == 0xc0   ? 2
				      : (c & 0xf0) == 0xe0 ? 3
				      : (c & 0xf8) == 0xf0 ? 4
							   : 0;
			if (want > b) {
				keep = b;
				break;
			}
			if ((c & 0xc0) != 0x80)
				break;
		}
	}
	for (size_t off = 0; off < n - keep;) {
		size_t chunk = n - keep - off < 4096 ? n - keep - off : 4096;
		/* never cut inside a valid sequence: the chunk ends before a continuation */
		while (off + chunk < n - keep && chunk > 1 &&
		       ((unsigned char)p[off + chunk] & 0xc0) == 0x80)
			chunk--;
		size_t w = esc_text(buf, sizeof(buf), p + off, chunk, ESC_KEEP_NL | ESC_KEEP_TAB);
		write_all(k->fd, buf, w);
		off += chunk;
	}
	memcpy(k->tail, p + n - keep, keep);
	k->ntail = keep;
}

/* The filter's line wrapping (esc_stderr_wrap): the line so far, raw, until its '\n'. */
static struct {
	size_t width; /* 0: lines pass as they come */
	bool (*whole)(void *ctx);
	void *ctx;
	struct buf line, esc, out;
	pid_t owner; /* a forked child's exit leaves the parent's partial line to it */
} wr;

/* A line this long without its '\n' is written as it is so far (wrapped), not held further. */
#define WRAP_HOLD_MAX 65536

static bool wrapping(void)
{
	return wr.width && !(wr.whole && wr.whole(wr.ctx));
}

/* Write the raw text P[0..N) escaped and wrapped to wr.width, then a '\n' when NL. */
static void line_out(struct esc_sink *k, const char *p, size_t n, bool nl)
{
	const unsigned flags = ESC_KEEP_NL | ESC_KEEP_TAB;
	size_t need = esc_text(NULL, 0, p, n, flags);
	wr.out.len = 0;
	if (buf_reserve(&wr.esc, need + 1) == 0) {
		esc_text(wr.esc.p, need + 1, p, n, flags);
		if (wrap_line(&wr.out, wr.esc.p, need, wr.width) == 0)
			write_all(k->fd, wr.out.p, wr.out.len);
		else /* no memory to wrap: escaped, whole */
			write_all(k->fd, wr.esc.p, need);
	} else {
		sink_out(k, p, n, true);
	}
	if (nl)
		write_all(k->fd, "\n", 1);
}

/* Write the partial line held so far (wrapped) and forget it. */
static void line_flush(struct esc_sink *k)
{
	if (wr.line.len)
		line_out(k, wr.line.p, wr.line.len, false);
	wr.line.len = 0;
}

/* The wrapping filter's write: whole lines out, the last partial one held. */
static void sink_write_lines(struct esc_sink *k, const char *p, size_t n)
{
	for (size_t off = 0; off < n;) {
		const char *nl = memchr(p + off, '\n', n - off);
		size_t m = nl ? (size_t)(nl - p) - off : n - off;
		if (nl && !wr.line.len) {
			line_out(k, p + off, m, true);
		} else if (buf_add(&wr.line, p + off, m) == 0) {
			if (nl) {
				line_out(k, wr.line.p, wr.line.len, true);
				wr.line.len = 0;
			} else if (wr.line.len > WRAP_HOLD_MAX) {
				line_flush(k);
			}
		} else { /* no memory to hold it: what came so far, then this */
			line_flush(k);
			line_out(k, p + off, m, nl != NULL);
		}
		off += m + (nl != NULL);
	}
}

static ssize_t sink_write(void *cookie, const char *p, size_t n)
{
	struct esc_sink *k = cookie;
	if (wrapping()) {
		sink_write_lines(k, p, n);
		return (ssize_t)n;
	}
	line_flush(k); /* held while wrapping, before --wide was seen */
	for (size_t off = 0; off < n;) {
		char tmp[4096 + 4];
		size_t t = k->ntail, m = n - off < 4096 ? n - off : 4096;
		memcpy(tmp, k->tail, t);
		memcpy(tmp + t, p + off, m);
		k->ntail = 0;
		sink_out(k, tmp, t + m, false);
		off += m;
	}
	return (ssize_t)n;
}

static struct esc_sink the_sink = {.fd = 2};

static int sink_close(void *cookie)
{
	struct esc_sink *k = cookie;
	line_flush(k);
	if (k->ntail)
		sink_out(k, (const char *)k->tail, k->ntail, true);
	k->ntail = 0;
	return 0;
}

static void wrap_atexit(void)
{
	if (getpid() == wr.owner)
		line_flush(&the_sink);
}

void esc_stderr_wrap(size_t width, bool (*whole)(void *ctx), void *ctx)
{
	static bool registered;
	if (!registered && atexit(wrap_atexit) == 0)
		registered = true;
	if (!registered)
		width = 0; /* a held line would be lost at exit */
	line_flush(&the_sink);
	wr.width = width;
	wr.whole = whole;
	wr.ctx = ctx;
	wr.owner = getpid();
}

static FILE *raw;

FILE *esc_raw_stderr(void)
{
	return raw ? raw : stderr;
}

FILE *esc_stderr_filter(void)
{
	if (raw)
		return raw;
	cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
	FILE *f = fopencookie(&the_sink, "w", io);
	if (!f)
		return NULL;
	setvbuf(f, NULL, _IONBF, 0);
	raw = stderr;
	stderr = f;
	return raw;
}
