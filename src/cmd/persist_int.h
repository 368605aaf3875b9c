/* SPDX-License-Identifier: MIT */
/* `thpctl persist` internals shared by persist.c (options, the text) and persist_install.c
 * (--install: the file written, replaced or unchanged, and the report of it). */
#ifndef THPCTL_CMD_PERSIST_INT_H
#define THPCTL_CMD_PERSIST_INT_H

#include <limits.h>
#include <stdbool.h>

#include "../model/persist.h"
#include "../util/buf.h"
#include "common.h"

/* What --install did with its file. */
enum persist_how {
	PERSIST_NOT_INSTALLED, /* no --install, or it failed */
	PERSIST_WROTE,	       /* there was no file: written */
	PERSIST_UNCHANGED,     /* the file held this text already */
	PERSIST_REPLACED,      /* another file was there: kept as KEEP, this one written */
};

struct persist_done {
	enum persist_how how;
	char path[PATH_MAX]; /* the file, "" when not installed */
	char keep[PATH_MAX]; /* PATH.thpctl-old when it exists (kept now or by an earlier
			      * --install), else "" */
	struct buf old;	     /* REPLACED: the old file's text, when old_err is 0 */
	int old_err;	     /* REPLACED: 0, or why the old file could not be read (-errno) */
};

/*
 * --install of format FMT: TEXT into its file under /etc (or $THPCTL_ETC in test builds),
 * which D then describes; a different file there is kept as PATH.thpctl-old first (never
 * over an existing one: refused). Returns the exit code, the reason on stderr.
 */
int persist_install(enum persist_format fmt, const char *text, struct persist_done *d);

/* Print (or --json) what persist did: TEXT, or the file D and how to apply and undo it;
 * R is the exit code so far, returned. PARENT: the tuned profile included, else NULL. */
int persist_report(struct globals *g, enum persist_format fmt, const char *text,
		   const struct persist_done *d, int nsettings, int r, const char *parent);

/* Free what D holds. */
void persist_done_free(struct persist_done *d);

#endif
