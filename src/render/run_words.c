// SPDX-License-Identifier: MIT
/*
 * The restart command of a process (model/remedy.h struct run_argv) for advise and why: the
 * command line, its words quoted for a shell (util/esc.h shell_quote_argv: exact bytes, safe
 * on a terminal), where it must run, why there is none, and its argv in JSON.
 */
#include "remedy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/esc.h"
#include "hint.h"
#include "json.h"
#include "wb.h"

const char *run_cwd_prefix(const struct run_cwd *c, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	char q[4 * sizeof(c->dir) + 8];
	if (c->needed && !c->err && c->dir[0] &&
	    shell_quote_argv(c->dir, strlen(c->dir), q, sizeof(q)) == 0)
		wb_put(&b, "cd %s && ", q);
	return out;
}

const char *run_cwd_note(const struct run_cwd *c, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	if (!c->needed || !c->err)
		return out;
	wb_put(&b, "%s%s is a path relative to its working directory",
	       c->arg[0] ? "its argument " : "an argument", c->arg);
	if (c->err == -ESTALE)
		wb_put(&b,
		       ", %s, which was removed since: run the command from a directory that "
		       "holds what its arguments name",
		       c->dir);
	else
		wb_put(&b, ", which could not be read (%s%s): run the command from there",
		       strerror(-c->err),
		       c->err == -EACCES || c->err == -EPERM ? ": " HINT_PROC_DENIED : "");
	return out;
}

int run_command(const struct run_argv *r, const char *mode, char *out, size_t n)
{
	char cd[4 * sizeof(r->cwd.dir) + 16];
	if (!n)
		return -ENOSPC;
	out[0] = '\0';
	if (r->state != RUN_ARGS_INTACT)
		return -ENOENT;
	int k = snprintf(out, n, "%sthpctl run --thp=%s -- ",
			 run_cwd_prefix(&r->cwd, cd, sizeof(cd)), mode);
	if (k < 0 || (size_t)k >= n || shell_quote_argv(r->argv, r->len, out + k, n - (size_t)k)) {
		out[0] = '\0';
		return -ENOSPC;
	}
	return 0;
}

const char *run_unread_words(const struct run_argv *r, char *out, size_t n)
{
	struct wb b = wb_begin(out, n);
	switch (r->state) {
	case RUN_ARGS_INTACT:
		break;
	case RUN_ARGS_REWRITTEN:
		wb_put(&b, "its arguments are unknown (a process title was written over its "
			   "command line)");
		break;
	case RUN_ARGS_TOO_LONG:
		wb_put(&b, "its command line, %zu bytes, is longer than the %d bytes thpctl keeps",
		       r->len, RUN_ARGV_MAX);
		break;
	default:
		wb_put(&b,
		       "its command line could not be read whole (its cmdline or its exe link)");
		break;
	}
	return out;
}

json_t *run_argv_json(const struct run_argv *r)
{
	if (r->state != RUN_ARGS_INTACT || !r->len)
		return json_null();
	json_t *a = json_array();
	size_t len = r->argv[r->len - 1] ? r->len : r->len - 1; /* the last word's NUL */
	for (const char *p = r->argv, *end = r->argv + len;;) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		json_array_append_new(a, json_str_n(p, (size_t)((z ? z : end) - p)));
		if (!z)
			return a;
		p = z + 1;
	}
}
