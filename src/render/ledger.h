/* SPDX-License-Identifier: MIT */
/* The per-process THP ledger in words, tables and JSON (model/ledger.h). */
#ifndef THPCTL_RENDER_LEDGER_H
#define THPCTL_RENDER_LEDGER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/ledger.h"
#include "ps.h"

/* The ledger block of `why` and `maps`: one line per part, each with its method. */
void ledger_render_lines(FILE *f, const struct thp_ledger *l, bool color);

/* {"huge_backed_kb", "invented_kb", "invented_method", ...}; unknown parts null. */
json_t *ledger_to_json(const struct thp_ledger *l);

/* `ps --ledger`: one row per process with HUGE, INVENTED, HELD, CREEP. */
void ps_ledger_render_text(FILE *f, const struct ps_report *r, bool color);

/*
 * A ledger cost in words ("held by deferred split", "?" for none), or with FLAG as ps --ledger's
 * FLAG cell says it ("held>25%", "" for none). Constant strings; no errors.
 */
const char *ledger_cost_words(enum ledger_cost c, bool flag);
/* One cell's text for a part: "1.0 GiB", "~12.0 MiB" (estimate), or "-" (unknown). */
void ledger_cell(char *out, size_t n, int64_t kb, bool estimate);
/* Why a part of the ledger is unknown, in words (HELD: the held part's reasons). */
const char *ledger_gap_words(enum ledger_gap g, bool held);

#endif
