// SPDX-License-Identifier: MIT
#include "control.h"

#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/sysctl.h"
#include "../kernel/sysfs.h"
#include "../lab/guard.h"
#include "../render/control.h"
#include "../util/esc.h"
#include "../util/num.h"
#include "common.h"

int control_read_knobs(struct globals *g, const char *who, struct thp_knobs *k, uint64_t *pmd_nr)
{
	if (thp_knobs_read(&g->sr, k)) {
		warnx("%s: out of memory", who);
		return EXIT_FAIL;
	}
	if (!k->present) {
		warnx("%s: %s%s does not exist: this kernel has no THP (CONFIG_TRANSPARENT_HUGEPAGE)",
		      who, g->sr.live ? "" : g->sr.path, thp_dir_host(&g->sr));
		return EXIT_FAIL;
	}
	*pmd_nr = thp_knobs_pmd_nr(k, g->sr.live ? sysconf(_SC_PAGESIZE) : 0);
	return EXIT_OK;
}

void control_kernel_string(struct globals *g, const char *name, char *out, size_t n)
{
	if (sysctl_read_line(&g->sr, "kernel", name, out, n))
		out[0] = '\0';
}

void control_report_notes(const char *who, const struct settings_plan *p, bool skips)
{
	/* keys and values from a snapshot file or an argument: escaped, '\n' too (the stderr
	 * filter keeps a newline: "madvise\nnever" would end the message) */
	char t[PLAN_NOTE_LEN], et[4 * PLAN_NOTE_LEN], ek[4 * KNOB_KEY_LEN];
	for (int i = 0; i < p->nbad; i++) {
		plan_note_text(&p->bad[i], t, sizeof(t));
		warnx("%s: %s: %s", who, esc_buf(ek, sizeof(ek), p->bad[i].key),
		      esc_buf(et, sizeof(et), t));
	}
	for (int i = 0; skips && i < p->nskip; i++) {
		plan_note_text(&p->skip[i], t, sizeof(t));
		warnx("%s: %s: skipped: %s", who, esc_buf(ek, sizeof(ek), p->skip[i].key),
		      esc_buf(et, sizeof(et), t));
	}
}

/* Read KEY back as a value word. */
static int read_back(const struct sysroot *sr, const char *key, char *out, size_t n)
{
	return thp_knob_value(sr, key, out, n);
}

/* Re-read each entry's current value under the lock: PENDING if it differs from the asked one. */
static void plan_refresh(struct globals *g, struct settings_plan *p)
{
	for (int i = 0; i < p->n; i++) {
		struct plan_entry *e = &p->e[i];
		char now[PLAN_VALUE_LEN];
		/* PS_WRITTEN: a held plan (ab's host: modes) applied for an earlier run and put
		 * back since; each run applies it anew */
		if ((e->state != PS_PENDING && e->state != PS_UNCHANGED &&
		     e->state != PS_WRITTEN) ||
		    read_back(&g->sr, e->key, now, sizeof(now)))
			continue;
		snprintf(e->old, sizeof(e->old), "%s", now);
		e->state = strcmp(now, e->new) ? PS_PENDING : PS_UNCHANGED;
	}
}

static void explain_write_error(const struct globals *g, const char *who,
				const struct plan_entry *e, const char *kept)
{
	switch (-e->err) {
	case EPERM:
	case EACCES:
		warnx("%s: %s: needs root (writing %s/%s: %s)", who, e->key, thp_dir_host(&g->sr),
		      e->key, strerror(-e->err));
		break;
	case EROFS:
		warnx("%s: %s: /sys is mounted read-only here (a container?): set it on the host",
		      who, e->key);
		break;
	case ENOLCK:
		warnx("%s: %s: cannot journal the old value in %s: nothing written to it", who,
		      e->key, guard_journal_path());
		break;
	default:
		if (kept[0])
			warnx("%s: %s: wrote %s but the kernel reads back %s", who, e->key, e->new,
			      kept);
		else
			warnx("%s: %s: the kernel refused %s: %s", who, e->key, e->new,
			      strerror(-e->err));
		break;
	}
}

/* Take the settings lock and start the journal (guard_begin), or say why not. 0 or -1. */
static int control_begin(struct globals *g, const char *who)
{
	int r = guard_begin(&g->sr, who, g->wait);
	if (r == -EPERM)
		warnx("%s: needs root (writes to %s)", who, thp_dir_host(&g->sr));
	else if (r == -EBUSY)
		warnx("%s: another thpctl, %s, is changing settings: nothing written (--wait waits for it)",
		      who, guard_holder());
	else if (r == -EIO)
		warnx("%s: a killed thpctl's settings could not all be put back (above): nothing written",
		      who);
	else if (r)
		warnx("%s: cannot start the settings journal %s: %s", who, guard_journal_path(),
		      strerror(-r));
	if (r)
		return -1;
	guard_announce(false);
	return 0;
}

int control_apply(struct globals *g, const char *who, struct settings_plan *p)
{
	return control_apply_held(g, who, p, true);
}

int control_undo(void)
{
	int r = guard_restore();
	guard_end();
	return r;
}

int control_apply_held(struct globals *g, const char *who, struct settings_plan *p, bool keep)
{
	if (!g->sr.live) {
		warnx("%s: writes to the running kernel only, not to a --sysroot tree (--dry-run shows the commands)",
		      who);
		return EXIT_USAGE;
	}
	/* the lock even when every value is already the asked one: the plan was read before
	 * it, another changer may be halfway through; only a re-read under it may say
	 * "unchanged" (with --wait, after that changer is done) */
	if (control_begin(g, who))
		return EXIT_FAIL;
	plan_refresh(g, p);
	if (keep && !plan_changes(p)) {
		guard_end();
		return EXIT_OK;
	}
	/* test-only hooks (test builds only): see control.h */
	const char *fail_key = NULL;
	uint64_t pause_s = 0;
#ifdef THPCTL_TEST_HOOKS
	const char *ps = getenv("THPCTL_TEST_SET_PAUSE");
	fail_key = getenv("THPCTL_TEST_SET_FAIL");
	if (ps && str_u64(ps, 0, 3600, &pause_s))
		pause_s = 0;
#endif

	int failed = -1, nwritten = 0, r;
	char kept[PLAN_VALUE_LEN] = "";
	for (int i = 0; i < p->n; i++) {
		struct plan_entry *e = &p->e[i];
		if (e->state != PS_PENDING)
			continue;
		if (nwritten && pause_s)
			sleep((unsigned)pause_s);
		char rel[PATH_MAX];
		if (thp_knob_rel(rel, sizeof(rel), e->key))
			r = -ENAMETOOLONG;
		else if (fail_key && strcmp(fail_key, e->key) == 0)
			r = -EIO;
		else
			r = guard_write(rel, e->new);
		if (!r) {
			/* the kernel may take a value and keep another (4.11-rc: defer+madvise
			 * selected defer); what it reads back is what counts */
			r = read_back(&g->sr, e->key, kept, sizeof(kept));
			if (!r && strcmp(kept, e->new) != 0)
				r = -EIO;
			else
				kept[0] = '\0';
		}
		if (r) {
			e->state = PS_FAILED;
			e->err = r;
			failed = i;
			break;
		}
		e->state = PS_WRITTEN;
		nwritten++;
	}
	if (failed < 0 && !keep)
		return EXIT_OK; /* held: the journal stays open until control_undo() */
	if (failed < 0) {
		guard_commit(); /* complete: the change stays */
		guard_end();
		return EXIT_OK;
	}
	explain_write_error(g, who, &p->e[failed], kept);
	guard_restore();
	guard_end();
	int back = 0, still = 0;
	for (int i = 0; i < p->n; i++) {
		struct plan_entry *e = &p->e[i];
		if (e->state == PS_WRITTEN) {
			char now[PLAN_VALUE_LEN];
			if (read_back(&g->sr, e->key, now, sizeof(now)) == 0 &&
			    strcmp(now, e->old) == 0) {
				e->state = PS_ROLLED_BACK;
				back++;
			} else {
				e->state = PS_NOT_PUT_BACK;
				still++;
			}
		} else if (e->state == PS_PENDING) {
			e->state = PS_NOT_WRITTEN;
		}
	}
	if (still)
		warnx("%s: rolled back %d of the %d value(s) already written; %d still changed "
		      "(journalled: the next thpctl run as root puts %s back)",
		      who, back, nwritten, still, still == 1 ? "it" : "them");
	else if (nwritten)
		warnx("%s: rolled back the %d value(s) already written", who, nwritten);
	return EXIT_FAIL;
}

/* The document variant of a plan for WHO: "snapshot restore" -> "restore", "set" -> none. */
static const char *plan_variant(const char *who)
{
	const char *sp = strchr(who, ' ');
	return sp ? sp + 1 : NULL;
}

int control_execute(struct globals *g, const char *who, struct settings_plan *p, bool dry, int *rc)
{
	if (dry) {
		if (g->json)
			return cmd_emit_json_as(plan_to_json(p, thp_dir_host(&g->sr), true, true),
						plan_variant(who));
		plan_render_shell(stdout, p, thp_dir_host(&g->sr));
		return EXIT_OK;
	}
	int r = control_apply(g, who, p);
	if (r == EXIT_USAGE)
		return r;
	/* refused before a write (another changer, the journal): no document, as in text */
	if (g->json && r && !plan_any_failed(p))
		return r;
	if (g->json) {
		int j = cmd_emit_json_as(plan_to_json(p, thp_dir_host(&g->sr), false, r == EXIT_OK),
					 plan_variant(who));
		return r ? r : j;
	}
	*rc = r;
	return -1;
}

bool plan_any_failed(const struct settings_plan *p)
{
	for (int i = 0; i < p->n; i++)
		if (p->e[i].state == PS_FAILED)
			return true;
	return false;
}
