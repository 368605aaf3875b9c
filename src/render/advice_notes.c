// SPDX-License-Identifier: MIT
/* `advise`: the sentences of its notes (conflicts, per-process levers, watch, partial reads), from
 * the model's ids (model/advice_notes.c decides them). */
#include <errno.h>
#include <string.h>

#include "../util/names.h"
#include "../util/units.h"
#include "finding_text.h"
#include "wb.h"
#include "advice.h"
#include "hint.h"

/* The per-process levers that exist for a want the host setting leaves out. */
static void conflict_levers(struct wb *b, const struct adv_note *n)
{
	bool enabled = !strcmp(n->key, "enabled");
	bool wants_always = enabled && (n->accept & 1u) && strcmp(n->value, "always");
	if (wants_always && !strcmp(n->value, "never"))
		wb_put(b, ": under enabled=never no per-process lever gives it THP at fault; only "
			  "MADV_COLLAPSE builds huge pages (thpctl collapse PID)");
	else if (wants_always)
		wb_put(b,
		       ": per process, its programs can still opt in with MADV_HUGEPAGE, which "
		       "enabled=%s honours: GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc 2.35+), "
		       "MALLOC_CONF=thp:always (jemalloc 5.1+), -XX:+UseTransparentHugePages (JVM); "
		       "thpctl ab --mode glibc --mode env:MALLOC_CONF=thp:always measures each",
		       n->value);
	else if (enabled)
		wb_put(b, ": per process, it can opt out: thpctl run --thp=off (prctl), or "
			  "--thp=advised (6.18+: THP only where it madvises)");
	else
		wb_put(b,
		       ": no per-process lever sets %s (separate hosts would); under defrag=madvise "
		       "only MADV_HUGEPAGE regions stall, so a process that madvises nothing never "
		       "does",
		       n->key);
}

static void note_conflict(struct wb *b, const struct adv_note *n)
{
	wb_put(b, "%s wants %s=", n->who, n->key);
	bool first = true;
	for (int i = 0; i < n->nvals; i++)
		if (n->accept & (1u << i)) {
			wb_put(b, "%s%s", first ? "" : " or ", n->vals[i]);
			first = false;
		}
	wb_put(b, ", but %s comes first and %s=%s stays", n->winner, n->key, n->value);
	conflict_levers(b, n);
}

static void note_per_process(struct wb *b, const struct adv_note *n)
{
	const char *t = workload_title((enum workload)n->wl);
	wb_put(b, "%s wants THP off its memory, but ", t);
	if (!n->nneeds)
		wb_put(b, "the other workloads");
	for (int i = 0; i < n->nneeds; i++)
		wb_put(b, "%s%s", i ? " and " : "", n->needs[i]);
	wb_put(b,
	       " need%s enabled=%s host-wide: the host gets %s, and %s opts out per process (see Per "
	       "process)",
	       n->nneeds == 1 ? "s" : "", n->value, n->value, t);
}

static void note_watch(struct wb *b, const struct adv_note *n)
{
	wb_put(b, "compact_stall=%llu since boot", (unsigned long long)n->compact_stall);
	if (n->uptime_s > 0)
		wb_put(b, ", %.1f per hour of uptime",
		       (double)n->compact_stall * 3600.0 / n->uptime_s);
	char path[32];
	wb_put(b,
	       " (%s; every direct compaction, not only THP faults): after a change, watch its "
	       "rate with thpctl watch; if it keeps rising, ",
	       evidence_path(KP_VMSTAT, 0, NULL, path, sizeof(path)));
	const char *d = n->defrag >= 0 ? adv_defrag_vals[n->defrag] : "?";
	switch (n->cause) {
	case COMPACT_CAUSE_ANY_FAULT:
		wb_put(b, "move defrag off always (every THP fault may compact under it)");
		break;
	case COMPACT_CAUSE_MADVISED:
		wb_put(b, "consider defrag=defer, %s", compact_madvised_condition());
		break;
	case COMPACT_CAUSE_NOT_THP:
		wb_put(b, "the stalls are other allocations (defrag=%s makes no THP fault compact)",
		       d);
		break;
	case COMPACT_CAUSE_NO_FAULTS:
		wb_put(b, "the stalls are other allocations (no THP page fault since boot)");
		break;
	default:
		wb_put(b, "thpctl trace stalls shows who stalls (defrag unknown)");
		break;
	}
}

/* ANI_SHRINK_UNDECIDED: status's finding suggests a lower max_ptes_none; why advise does not. */
static void note_shrink_undecided(struct wb *b, const struct adv_note *n)
{
	const struct finding *f = n->finding;
	wb_put(b,
	       "status's finding %s suggests %s=%s; advise follows it only where the ledger flags "
	       "a process's invented or creep memory (over 16 MiB and 25%%; thpctl ps --ledger), "
	       "since khugepaged then also collapses less; ",
	       f->id, f->set_key, f->set_value);
	if (n->ledger_scan == 1 && n->n > 0 && n->flagged > 0) {
		/* flagged, yet no change: the settings made max_ptes_none moot, or unread */
		wb_put(b, "here %d of the %d process%s read %s flagged so, but %s", n->flagged,
		       n->n, n->n == 1 ? "" : "es", n->flagged == 1 ? "is" : "are",
		       n->thp_off
			       ? "the settings above turn THP off (enabled=never): no huge page "
				 "is made or collapsed, so max_ptes_none changes nothing"
			       : "max_ptes_none is not changed here (its value could not be read)");
		if (n->of)
			wb_put(b, " (%d not read: partial)", n->of);
	} else if (n->ledger_scan == 1 && n->n > 0) {
		wb_put(b, "here none of the %d process%s read is flagged so", n->n,
		       n->n == 1 ? "" : "es");
		if (n->of)
			wb_put(b, " (%d not read: partial)", n->of);
	} else if (n->ledger_scan == 1) {
		wb_put(b, "undecided here: no process's ledger could be read");
	} else if (n->ledger_scan == 0) {
		wb_put(b, "undecided here: the THP ledger needs the live system (pagemap, memory), "
			  "not a recorded tree");
	} else {
		wb_put(b, "undecided here: the THP ledger could not be scanned (%s)",
		       strerror(-n->ledger_scan));
	}
}

/*
 * The processes not fully readable, counted as the ledger's line counts them: "40 of 41
 * processes with memory not fully readable (smaps or exe link denied; 40 of them smaps, the
 * ledger's count above): ...".
 */
static void note_unreadable(struct wb *b, const struct adv_note *n)
{
	/* a replay: running thpctl here as root does not change what was recorded */
	if (n->recorded) {
		wb_put(b,
		       "%d of %d processes with memory not fully readable (smaps not recorded, or "
		       "exe link denied): the capture was taken without the right to read them; "
		       "capture again as root (thpctl capture) to detect versions, Go binaries and "
		       "systemd units",
		       n->n, n->of);
		return;
	}
	if (n->smaps >= 0)
		wb_put(b,
		       "%d of %d processes with memory not fully readable (smaps or exe link "
		       "denied; %d of them smaps, the ledger's count above): their THP ledger, "
		       "versions, Go binaries and systemd units are unknown (%s)",
		       n->n, n->of, n->smaps, hint_proc_denied(n->as_root));
	else
		wb_put(b,
		       "%d of %d processes with memory not fully readable (exe link denied): their "
		       "versions, Go binaries and systemd units are unknown (%s)",
		       n->n, n->of, hint_proc_denied(n->as_root));
}

const char *advice_note_text(const struct adv_note *n, char *out, size_t len)
{
	struct wb b = wb_begin(out, len);
	char path[64];
	switch (n->id) {
	case ANI_NO_THP:
		wb_put(&b,
		       "this kernel has no THP (no %s): nothing to set; hugetlb is the only huge page "
		       "source (thpctl hugetlb plan)",
		       evidence_path(KP_THP_DIR, 0, NULL, path, sizeof(path)));
		break;
	case ANI_CONFLICT:
		note_conflict(&b, n);
		break;
	case ANI_PER_PROCESS:
		note_per_process(&b, n);
		break;
	case ANI_MONGODB_ASSUMED:
		wb_put(&b,
		       "MongoDB version unknown (not in its path, no dpkg record): assumed 7.0 or "
		       "earlier (THP off, the long-standing advice); for 8.0 or later run thpctl "
		       "advise --workload mongodb8");
		break;
	case ANI_MONGODB_VERSION:
		if (n->ver[1] >= 0)
			wb_put(&b, "mongod PID %ld is MongoDB %d.%d (%s)", n->pid, n->ver[0],
			       n->ver[1], n->ver_src);
		else
			wb_put(&b, "mongod PID %ld is MongoDB %d (%s)", n->pid, n->ver[0],
			       n->ver_src);
		break;
	case ANI_NOT_WRITABLE:
		wb_put(&b,
		       "the THP settings are not writable here (%s): apply the host-wide part as root "
		       "on the host",
		       strerror(-n->err));
		break;
	case ANI_FINDING: {
		struct finding_text w;
		finding_text(n->finding, &w);
		wb_put(&b, "%s (finding %s); fix: %s", w.title, n->finding->id, w.fix);
		break;
	}
	case ANI_WATCH_STALL:
		note_watch(&b, n);
		break;
	case ANI_UNREADABLE:
		note_unreadable(&b, n);
		break;
	case ANI_SMALL_GO:
		wb_put(&b, "%d Go process%s under 64 MiB RSS not counted as a workload", n->n,
		       n->n == 1 ? "" : "es");
		break;
	case ANI_SHRINK_UNDECIDED:
		note_shrink_undecided(&b, n);
		break;
	default: /* ANI_NO_WORKLOAD */
		wb_put(&b,
		       "no known workload detected (redis, mongod, postgres, java, node, large Go "
		       "binaries) and none asked for (--workload): enabled=madvise and "
		       "defrag=madvise suit a general-purpose host (defrag=madvise is the kernel's "
		       "default since 4.6; the boot value of enabled is a build choice, see Host)");
		break;
	}
	return out;
}
