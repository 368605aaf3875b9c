// SPDX-License-Identifier: MIT
#include "control.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "table.h"
#include "../util/names.h"
#include "../util/wrap.h"

/* ---- set / snapshot restore ---------------------------------------------- */

void plan_render_text(FILE *f, const struct settings_plan *p, bool color)
{
	for (int i = 0; i < p->n; i++) {
		/* keys and values from a tree or a snapshot file: escaped copies */
		struct plan_entry esc = p->e[i];
		const struct plan_entry *e = &esc;
		esc_buf(esc.key, sizeof(esc.key), p->e[i].key);
		esc_buf(esc.old, sizeof(esc.old), p->e[i].old);
		esc_buf(esc.new, sizeof(esc.new), p->e[i].new);
		if (e->state == PS_UNCHANGED) {
			fprintf(f, "%s: %s %s(unchanged)%s\n", e->key, e->old, col_dim(color),
				col_reset(color));
			continue;
		}
		fprintf(f, "%s: %s -> %s", e->key, e->old, e->new);
		switch (e->state) {
		case PS_FAILED:
			fprintf(f, " %sFAILED: %s%s", col_red(color), strerror(-e->err),
				col_reset(color));
			break;
		case PS_ROLLED_BACK:
			fprintf(f, " %s(rolled back to %s)%s", col_yellow(color), e->old,
				col_reset(color));
			break;
		case PS_NOT_WRITTEN:
			fprintf(f, " (not written)");
			break;
		case PS_NOT_PUT_BACK:
			fprintf(f, " %sNOT PUT BACK: still changed (journalled)%s", col_red(color),
				col_reset(color));
			break;
		default:
			break;
		}
		fputc('\n', f);
	}
}

void plan_render_shell(FILE *f, const struct settings_plan *p, const char *thp_dir)
{
	/* lines to paste: wrap_put_command() escapes them for the terminal and breaks one
	 * only between its words (" \\" continuations; a comment stays whole), never at the
	 * space before the path as the stdout filter would */
	for (int i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->e[i];
		char line[PATH_MAX + 2 * PLAN_VALUE_LEN];
		if (e->state == PS_UNCHANGED)
			snprintf(line, sizeof(line), "# %s is already %s", e->key, e->new);
		else
			snprintf(line, sizeof(line), "echo %s > %s/%s", e->new, thp_dir, e->key);
		wrap_put_command(f, 0, line);
	}
}

void knob_invalid_text(const struct knob_invalid *w, char *out, size_t n)
{
	static const char *const what[] = {
		[KB_NOT_BOOL] = "0 or 1",
		[KB_PAGES_TO_SCAN] = "1..4294967295",
		[KB_MILLISECS] = "0..4294967295 (milliseconds)",
		[KB_NOT_UINT] = "an unsigned integer",
	};
	switch (w->kind) {
	case KB_EMPTY:
		snprintf(out, n, "empty value");
		break;
	case KB_TOO_LONG:
		snprintf(out, n, "value too long");
		break;
	case KB_NOT_OFFERED:
		snprintf(out, n, "'%s' is not offered (this kernel offers: %s)", w->value,
			 w->offered);
		break;
	case KB_PTES_RANGE:
		snprintf(out, n, "'%s' is not 0..%llu (HPAGE_PMD_NR-1)", w->value,
			 (unsigned long long)w->hi);
		break;
	default:
		snprintf(out, n, "'%s' is not %s", w->value, ENUM_NAME(what, w->kind, "valid"));
		break;
	}
}

void plan_note_text(const struct plan_note *e, char *out, size_t n)
{
	static const char *const words[] = {
		[PN_NOT_A_KNOB] =
			"not a knob name (e.g. enabled, khugepaged/max_ptes_none, hugepages-64kB/enabled)",
		[PN_NOT_ON_KERNEL] = "not on this kernel",
		[PN_NO_THP] = "this kernel has no transparent_hugepage/ (THP not built in)",
		[PN_READ_ONLY_HERE] = "read-only on this kernel",
		[PN_READ_ONLY] = "read-only (a counter or a fixed value)",
		[PN_TWICE] = "given twice",
		[PN_TOO_MANY] = "too many knobs",
		[PN_UNREADABLE] = "its current value is unreadable",
		[PN_NOT_KEY_VALUE] = "not KEY=VALUE",
		[PN_KEY_TOO_LONG] = "key too long",
	};
	if (e->why == PN_BAD_VALUE)
		knob_invalid_text(&e->bad, out, n);
	else if (e->why == PN_NO_SUCH_KNOB && e->meant[0])
		snprintf(out, n, "no such knob; did you mean %s?", e->meant);
	else if (e->why == PN_NO_SUCH_KNOB)
		snprintf(out, n, "no such knob on this kernel");
	else
		snprintf(out, n, "%s", ENUM_NAME(words, e->why, "?"));
}

static json_t *notes_json(const struct plan_note *n, int cnt)
{
	json_t *a = json_array();
	for (int i = 0; a && i < cnt; i++) {
		json_t *o = json_object();
		char t[PLAN_NOTE_LEN];
		plan_note_text(&n[i], t, sizeof(t));
		json_put(o, "key", json_str(n[i].key));
		json_put(o, "reason", json_str(t));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *plan_to_json(const struct settings_plan *p, const char *thp_dir, bool dry_run, bool ok)
{
	json_t *root = json_object(), *ch = json_array(), *sh = dry_run ? json_array() : NULL;
	if (!json_made(&root, &ch, NULL)) {
		json_decref(sh);
		return NULL;
	}
	json_put(root, "dry_run", json_boolean(dry_run));
	json_put(root, "ok", json_boolean(ok));
	for (int i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->e[i];
		json_t *o = json_object();
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", thp_dir, e->key);
		json_put(o, "key", json_str(e->key));
		json_put(o, "path", json_str(path));
		json_put(o, "old", json_str(e->old));
		json_put(o, "new", json_str(e->new));
		json_put(o, "state", json_str(plan_state_name(e->state)));
		json_put(o, "error", e->err ? json_str(strerror(-e->err)) : NULL);
		json_array_append_new(ch, o);
		if (sh && e->state != PS_UNCHANGED) {
			char line[PATH_MAX + 96];
			snprintf(line, sizeof(line), "echo %s > %s", e->new, path);
			json_array_append_new(sh, json_str(line));
		}
	}
	json_put(root, "changes", ch);
	json_put(root, "invalid", notes_json(p->bad, p->nbad));
	json_put(root, "skipped", notes_json(p->skip, p->nskip));
	/* always present (docs/json.md: absent is null): the lines to paste on a dry run;
	 * null after a real write, which went through the journal, not these lines */
	json_put(root, "shell", sh);
	return root;
}

/* ---- snapshot diff --------------------------------------------------------- */

void snap_diff_render_text(FILE *f, const struct snap_diff *d, int n, const char *file, bool color)
{
	if (!n) {
		fprintf(f, "no differences between %s and the running kernel\n", file);
		return;
	}
	struct table *t = table_new(3, (const char *const[]){"KNOB", "FILE", "NOW"}, "lll");
	for (int i = 0; i < n; i++) {
		table_cell(t, "%s", d[i].key);
		table_cell(t, "%s", d[i].file[0] ? d[i].file : "(not in file)");
		table_cell(t, "%s",
			   d[i].cur[0]		 ? d[i].cur
			   : d[i].cur_unreadable ? "(unreadable here)"
						 : "(not on this kernel)");
	}
	table_flush(t, f, 0, color);
}

json_t *snap_diff_to_json(const struct snap_diff *d, int n, const char *file,
			  const struct snapshot *saved)
{
	json_t *root = json_object(), *a = json_array();
	if (!json_made(&root, &a, NULL))
		return NULL;
	json_put(root, "file", json_str(file));
	json_put(root, "file_kernel", json_str(saved->kernel));
	json_put(root, "file_date", json_str(saved->date));
	json_put(root, "differences", json_integer(n));
	for (int i = 0; i < n; i++) {
		json_t *o = json_object();
		json_put(o, "key", json_str(d[i].key));
		json_put(o, "file", d[i].file[0] ? json_str(d[i].file) : NULL);
		json_put(o, "current", d[i].cur[0] ? json_str(d[i].cur) : NULL);
		json_put(o, "current_unreadable", json_boolean(d[i].cur_unreadable));
		json_array_append_new(a, o);
	}
	json_put(root, "diff", a);
	return root;
}
