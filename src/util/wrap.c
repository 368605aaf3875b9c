// SPDX-License-Identifier: MIT
/* The stdout line-wrapping filter (see wrap.h). */
#include "wrap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>

#include "esc.h"
#include "num.h"

/* Bytes of the CSI sequence at S[0..N) (ESC [ params final), 0 when S does not start one. */
static size_t csi_len(const char *s, size_t n)
{
	if (n < 2 || s[0] != '\033' || s[1] != '[')
		return 0;
	size_t i = 2;
	while (i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
		i++;
	return i < n ? i + 1 : n;
}

size_t wrap_display_width(const char *s, size_t n)
{
	size_t w = 0, i = 0;
	/* eight plain bytes (no ESC, no byte of a UTF-8 sequence) at a time: a column each */
	for (uint64_t x; n - i >= 8; i += 8, w += 8) {
		memcpy(&x, s + i, 8);
		uint64_t esc = x ^ 0x1b1b1b1b1b1b1b1bull;
		if (((x | ((esc - 0x0101010101010101ull) & ~esc)) & 0x8080808080808080ull) != 0)
			break; /* a byte >= 0x80 or an ESC among them: byte by byte from here */
	}
	while (i < n) {
		size_t c = csi_len(s + i, n - i);
		if (c) {
			i += c;
			continue;
		}
		if (((unsigned char)s[i] & 0xc0) != 0x80) /* not a UTF-8 continuation byte */
			w++;
		i++;
	}
	return w;
}

static int put_spaces(struct buf *b, size_t n)
{
	static const char sp[] = "                                ";
	for (size_t m; n; n -= m) {
		m = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;
		if (buf_add(b, sp, m))
			return -ENOMEM;
	}
	return 0;
}

/* Whether the word at S[0..N) is a unit ("kB", "MiB", "ms", "µs", "%"), alone or followed by
 * punctuation ("kB)", "ms,"): then it stays on the line of the number before it. */
static bool is_unit(const char *s, size_t n)
{
	static const char *const units[] = {"B",  "kB",	 "KB", "KiB", "MB", "MiB", "GB", "GiB",
					    "TB", "TiB", "ns", "us",  "µs", "ms",  "s",	 "%"};
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t l = strlen(units[u]);
		if (n >= l && memcmp(s, units[u], l) == 0 &&
		    (n == l || !((s[l] >= 'a' && s[l] <= 'z') || (s[l] >= 'A' && s[l] <= 'Z') ||
				 (s[l] >= '0' && s[l] <= '9') || s[l] == '_')))
			return true;
	}
	return false;
}

/* The end of the word at LINE[I..LEN) (no space in it); a number and the unit after it
 * ("512 kB") are one word. */
static size_t word_end(const char *line, size_t i, size_t len)
{
	while (i < len && line[i] != ' ')
		i++;
	if (i + 1 < len && line[i - 1] >= '0' && line[i - 1] <= '9' && line[i + 1] != ' ') {
		size_t u = i + 1, e = u;
		while (e < len && line[e] != ' ')
			e++;
		if (is_unit(line + u, e - u))
			return e;
	}
	return i;
}

/*
 * Bytes of the first piece of S[0..N) to put on a line with COLS columns of room: the
 * longest prefix that fits, ended after its last '/' when one is past its first byte (a
 * path breaks between its components); never inside a UTF-8 character or an escape,
 * and at least one character.
 */
static size_t piece_len(const char *s, size_t n, size_t cols)
{
	size_t i = 0, w = 0, slash = 0;
	while (i < n) {
		size_t c = csi_len(s + i, n - i), step = c;
		if (!c) {
			step = 1;
			while (i + step < n && ((unsigned char)s[i + step] & 0xc0) == 0x80)
				step++;
			if (w + 1 > cols && w > 0)
				break;
			w++;
		}
		i += step;
		if (!c && s[i - 1] == '/' && i < n)
			slash = i;
	}
	return slash > 1 && i < n ? slash : i;
}

/* OUT back to its first KEEP bytes after a failed append: -ENOMEM. */
static int undo(struct buf *out, size_t keep)
{
	out->len = keep;
	if (out->p)
		out->p[keep] = '\0';
	return -ENOMEM;
}

/* Append the word S[0..N) at column *COL: broken into pieces when it is wider than
 * WIDTH - *COL, each further piece on a line of its own that starts HANG columns in. */
static int put_word(struct buf *out, const char *s, size_t n, size_t *col, size_t width,
		    size_t hang)
{
	for (;;) {
		size_t room = width > *col ? width - *col : 1;
		size_t p = wrap_display_width(s, n) <= room ? n : piece_len(s, n, room);
		if (buf_add(out, s, p))
			return -ENOMEM;
		*col += wrap_display_width(s, p);
		s += p;
		n -= p;
		if (!n)
			return 0;
		if (buf_add(out, "\n", 1) || put_spaces(out, hang))
			return -ENOMEM;
		*col = hang;
	}
}

/* LINE wrapped with its continuation lines HANG columns in (SIZE_MAX: its indent + 4, at most
 * WIDTH / 2). */
static int wrap_hang(struct buf *out, const char *line, size_t len, size_t width, size_t hang)
{
	size_t keep = out->len;
	if (width == 0 || wrap_display_width(line, len) <= width) {
		if (buf_add(out, line, len))
			goto nomem;
		return 0;
	}
	size_t lead = 0;
	while (lead < len && line[lead] == ' ')
		lead++;
	if (hang == SIZE_MAX)
		hang = lead + 4 > width / 2 ? width / 2 : lead + 4;
	if (buf_add(out, line, lead))
		goto nomem;
	size_t col = lead;
	bool first = true;
	for (size_t i = lead; i < len;) {
		size_t gap = i;
		while (i < len && line[i] == ' ')
			i++;
		size_t w0 = i;
		if (w0 == len) /* trailing spaces: dropped */
			break;
		i = word_end(line, i, len);
		size_t ww = wrap_display_width(line + w0, i - w0), gw = w0 - gap;
		int r;
		if (first || col + gw + ww <= width) {
			r = buf_add(out, line + gap, gw);
			col += gw;
		} else {
			r = buf_add(out, "\n", 1) || put_spaces(out, hang);
			col = hang;
		}
		if (r || put_word(out, line + w0, i - w0, &col, width, hang))
			goto nomem;
		first = false;
	}
	return 0;
nomem:
	return undo(out, keep);
}

int wrap_line(struct buf *out, const char *line, size_t len, size_t width)
{
	return wrap_hang(out, line, len, width, SIZE_MAX);
}

int wrap_help_line(struct buf *out, const char *line, size_t len, size_t width)
{
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	/* no second column: its words go on under its indent (a paragraph, or a description
	 * continued on a line of its own) */
	size_t col = i <= width / 2 ? i : SIZE_MAX;
	/* the first column: from the indent to the first run of two blanks (ASCII in help) */
	for (size_t j = i; i && j + 2 < len && j < width / 2; j++)
		if (line[j] == ' ' && line[j + 1] == ' ') {
			while (j < len && line[j] == ' ')
				j++;
			if (j <= width / 2 && j < len)
				col = j;
			break;
		}
	return wrap_hang(out, line, len, width, col);
}

/*
 * The end of the shell word at S[I..LEN): the first space outside quotes ('...', "...",
 * $'...') and not escaped by a backslash; from an unquoted '#' at its start, the end of the
 * line (a comment is one word).
 */
static size_t sh_word_end(const char *s, size_t i, size_t len)
{
	if (s[i] == '#')
		return len;
	char q = 0; /* 0 outside quotes, '\'', '"', or '$' in $'...' */
	while (i < len) {
		char c = s[i];
		if (q == '\'') {
			q = c == '\'' ? 0 : q;
		} else if (c == '\\') {
			i++; /* the next byte is escaped, outside quotes as inside "..." or $'...' */
		} else if (q) {
			q = c == (q == '$' ? '\'' : '"') ? 0 : q;
		} else if (c == ' ') {
			break;
		} else if (c == '$' && i + 1 < len && s[i + 1] == '\'') {
			q = '$';
			i++;
		} else if (c == '\'' || c == '"') {
			q = c;
		}
		i++;
	}
	return i < len ? i : len;
}

int wrap_command(struct buf *out, const char *cmd, size_t len, size_t indent, size_t width)
{
	size_t keep = out->len;
	if (put_spaces(out, indent))
		goto nomem;
	if (!width || indent + wrap_display_width(cmd, len) <= width) {
		if (buf_add(out, cmd, len))
			goto nomem;
		return 0;
	}
	size_t hang = indent + 4 > width / 2 ? width / 2 : indent + 4, col = indent;
	for (size_t i = 0; i < len;) {
		size_t gap = i;
		while (i < len && cmd[i] == ' ')
			i++;
		if (i == len) /* trailing spaces: dropped */
			break;
		size_t w0 = i;
		i = sh_word_end(cmd, i, len);
		size_t ww = wrap_display_width(cmd + w0, i - w0), gw = w0 - gap;
		/* a word that is not the last leaves room for the " \" a break after it takes */
		int r;
		if (!gap || col + gw + ww + (i < len ? 2 : 0) <= width) {
			r = buf_add(out, cmd + gap, gw);
			col += gw;
		} else {
			/* a word too wide for the hanging indent starts further left when that makes
			 * it fit (the indent of a continuation line is nothing to the shell) */
			size_t need = ww + (i < len ? 2 : 0),
			       h = hang + need > width && need <= width ? width - need : hang;
			r = buf_add(out, " \\\n", 3) || put_spaces(out, h);
			col = h;
		}
		if (r || buf_add(out, cmd + w0, i - w0))
			goto nomem;
		col += ww;
	}
	return 0;
nomem:
	return undo(out, keep);
}

/* COLUMNS when it is a number in [LO, HI], else FD's terminal width, else 0. */
static size_t fd_columns(int fd, uint64_t lo, uint64_t hi)
{
	const char *c = getenv("COLUMNS");
	uint64_t v;
	if (c && str_to_u64(c, strlen(c), lo, hi, &v) == 0)
		return (size_t)v;
	struct winsize ws;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

size_t wrap_term_columns(uint64_t lo, uint64_t hi)
{
	return fd_columns(STDOUT_FILENO, lo, hi);
}

size_t wrap_stderr_width(void)
{
	size_t w = fd_columns(STDERR_FILENO, 40, 1000000);
	if (w)
		return w < 40 ? 40 : w;
	return isatty(STDERR_FILENO) ? 80 : 0; /* a terminal that does not say its size: 80 */
}

size_t wrap_width(bool wide)
{
	if (wide)
		return 0;
	/* COLUMNS is at least 40 here; a terminal narrower than that is taken as 40 */
	size_t w = wrap_term_columns(40, 1000000);
	return !w ? 80 : w < 40 ? 40 : w;
}

struct wrap_sink {
	FILE *real;
	size_t width;
	bool (*raw)(void *ctx);
	void *ctx;
	struct buf line; /* the line so far (no newline yet) */
	struct buf out;	 /* wrap_line's result */
	bool err;
	bool verbatim; /* lines to paste (wrap_put_command): written as they are */
	bool help;     /* a help text: wrap_help_line */
};

static struct wrap_sink sink;
static FILE *filter;
static pid_t owner; /* a forked child's exit leaves the parent's partial line to it */

/* Write S[0..N) (one line, or its last part) to the real stdout, wrapped unless raw; NL: a newline. */
static int emit(struct wrap_sink *k, const char *s, size_t n, bool nl)
{
	/* a line of no more bytes than columns fits as it is (a character is a byte or more) */
	if (k->width && n > k->width && !k->verbatim && (!k->raw || !k->raw(k->ctx))) {
		k->out.len = 0;
		if ((k->help ? wrap_help_line : wrap_line)(&k->out, s, n, k->width) == 0) {
			s = k->out.p;
			n = k->out.len;
		}
	}
	if ((n && fwrite(s, 1, n, k->real) != n) || (nl && putc('\n', k->real) == EOF))
		return -1;
	return 0;
}

static ssize_t sink_write(void *cookie, const char *p, size_t n)
{
	struct wrap_sink *k = cookie;
	for (size_t off = 0; off < n;) {
		const char *nl = memchr(p + off, '\n', n - off);
		size_t m = nl ? (size_t)(nl - p) - off : n - off;
		int r = 0;
		if (nl && !k->line.len) {
			r = emit(k, p + off, m, true);
		} else if (buf_add(&k->line, p + off, m) == 0) {
			if (nl)
				r = emit(k, k->line.p, k->line.len, true);
			if (nl)
				k->line.len = 0;
		} else { /* no memory for the line: what came so far, as it is */
			r = (k->line.len &&
			     fwrite(k->line.p, 1, k->line.len, k->real) != k->line.len) ||
			    fwrite(p + off, 1, m + (nl != NULL), k->real) != m + (nl != NULL);
			k->line.len = 0;
		}
		if (r) {
			k->err = true;
			return -1;
		}
		off += m + (nl != NULL);
	}
	if (fflush(k->real)) {
		k->err = true;
		return -1;
	}
	return (ssize_t)n;
}

static int sink_close(void *cookie)
{
	struct wrap_sink *k = cookie;
	if (k->line.len && emit(k, k->line.p, k->line.len, false))
		k->err = true;
	k->line.len = 0;
	if (fflush(k->real))
		k->err = true;
	buf_free(&k->line);
	buf_free(&k->out);
	return k->err ? -1 : 0;
}

int wrap_end(void)
{
	if (!filter)
		return 0;
	FILE *f = filter;
	filter = NULL;
	bool bad = fflush(f) != 0 || ferror(f);
	stdout = sink.real;
	if (fclose(f))
		bad = true;
	return bad || sink.err || ferror(stdout) ? -1 : 0;
}

static void wrap_atexit(void)
{
	if (getpid() == owner)
		(void)wrap_end();
}

void wrap_stdout_help(bool on)
{
	if (!filter)
		return;
	fflush(filter);
	sink.help = on;
}

size_t wrap_stdout_width(void)
{
	return filter && !(sink.raw && sink.raw(sink.ctx)) ? sink.width : 0;
}

int wrap_stdout(size_t width, bool (*raw)(void *ctx), void *ctx)
{
	static bool registered;
	if (filter)
		return 0;
	sink = (struct wrap_sink){.real = stdout, .width = width, .raw = raw, .ctx = ctx};
	cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
	FILE *f = fopencookie(&sink, "w", io);
	if (!f)
		return -1;
	/* a tty: line by line; else as the real stdout's buffer (main.c), so that an output of up
	 * to 64 KiB reaches it in one piece and leaves in one write */
	static char fbuf[1 << 16];
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, BUFSIZ);
	else
		setvbuf(f, fbuf, _IOFBF, sizeof(fbuf));
	if (!registered && atexit(wrap_atexit) == 0)
		registered = true;
	owner = getpid();
	filter = f;
	stdout = f;
	return 0;
}

/* Write TEXT (LEN bytes: lines, no final newline) and a newline to F; through the stdout
 * filter as they are. */
static void put_lines(FILE *f, const char *text, size_t len)
{
	bool ours = filter && f == filter;
	if (ours) {
		fflush(f); /* what came before, by the usual rule */
		sink.verbatim = true;
	}
	fwrite(text, 1, len, f);
	fputc('\n', f);
	if (ours) {
		fflush(f);
		sink.verbatim = false;
	}
}

/* INDENT spaces and S escaped for a terminal, broken to the filter's width when COMMAND. */
static void put_paste(FILE *f, size_t indent, const char *s, bool command)
{
	bool ours = filter && f == filter;
	size_t width = command && ours && !(sink.raw && sink.raw(sink.ctx)) ? sink.width : 0;
	bool esc = esc_needed(s, strlen(s), 0);
	char *e = esc ? esc_dup(s, 0) : NULL;
	if (esc && !e)
		return; /* no memory to escape it: never raw */
	const char *t = e ? e : s;
	struct buf b = {0};
	if (wrap_command(&b, t, strlen(t), indent, width) == 0) {
		put_lines(f, b.p, b.len);
	} else { /* no memory to break it: one line */
		fprintf(f, "%*s", (int)indent, "");
		put_lines(f, t, strlen(t));
	}
	buf_free(&b);
	free(e);
}

void wrap_put_command(FILE *f, size_t indent, const char *cmd)
{
	put_paste(f, indent, cmd, true);
}

void wrap_put_verbatim(FILE *f, size_t indent, const char *line)
{
	put_paste(f, indent, line, false);
}
