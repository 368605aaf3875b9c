// SPDX-License-Identifier: MIT
#include "ps.h"

#include <string.h>

#include "../model/proc.h"
#include "json.h"
#include "skips.h"
#include "alloc.h"
#include "ledger.h"
#include "table.h"
#include "../util/names.h"
#include "hint.h"
#include "shmem.h"

const char *thp_reason_text(enum thp_reason r)
{
	static const char *const words[] = {
		[TR_PRCTL_OFF] = "THP disabled by prctl",
		[TR_MADVISE_IN] = "opted in by madvise",
		[TR_MADVISE_OUT] = "opted out by madvise",
		[TR_ALWAYS] = "global always",
		[TR_ROLLUP_HUGE] = "huge pages (flags not read)",
		[TR_COLLAPSED] = "collapsed (no hg VMA)",
		[TR_SHMEM_FILE] = "shmem/file huge pages",
		[TR_SHMEM_OFF] = "hg shmem kept from THP by its shmem policy",
		[TR_NONE_STACKS] = "none (thread stacks: nh set by the kernel for MAP_STACK)",
		[TR_NONE] = "none",
	};
	return ENUM_NAME(words, r, "-");
}

const char *ps_row_reason(const struct ps_report *r, const struct ps_row *row, char *out, size_t n)
{
	const struct shmem_pmd *p = shmem_rule(r->shmem, row->shm_off, VMF_HG);
	char w[160];
	if (row->reason != TR_SHMEM_OFF || !p)
		return thp_reason_text(row->reason);
	snprintf(out, n, "hg shmem kept from THP by %s", shmem_pmd_words(p, true, w, sizeof(w)));
	return out;
}

/* KB as a cell ("64 kB"), "-" when not KNOWN. */
static void known_kb_cell(struct table *t, bool known, uint64_t kb)
{
	char v[32];
	if (!known) {
		table_cell(t, "-");
		return;
	}
	fmt_kb(v, sizeof(v), kb);
	table_cell(t, "%s", v);
}

static void kb_cell(struct table *t, const struct smaps_totals *s, enum smaps_field f)
{
	known_kb_cell(t, smaps_known(s, f), s->kb[f]);
}

static void count_size_cell(struct table *t, bool known, int n, u128 kb)
{
	char v[64];
	if (!known) {
		table_cell(t, "-");
		return;
	}
	if (!n) {
		table_cell(t, "0");
		return;
	}
	fmt_kb_wide(v, sizeof(v), kb);
	table_cell(t, "%d (%s)", n, v);
}

static const char *thp_en_str(int v)
{
	return v < 0 ? "-" : v ? "1" : "0";
}

/* Whether the total row's sums are known: some row was readable, or none was left out. */
static bool ps_totals_known(const struct ps_report *r, size_t nread)
{
	return nread || (!r->n && !r->denied && !r->errors);
}

/*
 * What the total row is: a per-process sum, in which a huge page shared after
 * fork counts once per process mapping it; beside it, meminfo's host-wide
 * count (every process, each page once). SUM: the AnonHuge total, NULL unknown; NREAD:
 * the rows it sums (fewer than the rows: a sum of those alone, said).
 */
static void ps_totals_note(FILE *f, const struct ps_report *r, const char *sum, size_t nread)
{
	char h[32];
	if (!r->n && r->has_host_ahp) { /* no row: the host-wide count alone */
		fmt_kb(h, sizeof(h), r->host_ahp_kb);
		fprintf(f, "host-wide AnonHugePages (meminfo, every process): %s\n", h);
		return;
	}
	if (!sum || !r->n)
		return;
	fprintf(f, "total AnonHuge %s is a per-process sum", sum);
	if (nread < r->n) /* a lower bound: the others' are unknown */
		fprintf(f, " of the %zu of %zu processes whose smaps could be read", nread, r->n);
	fprintf(f, ": a huge page shared after fork counts in each process that maps it");
	if (r->has_host_ahp) {
		fmt_kb(h, sizeof(h), r->host_ahp_kb);
		fprintf(f, "; host-wide AnonHugePages (meminfo, every process, each page once): %s",
			h);
	}
	fputc('\n', f);
}

/* The THP%anon cell of P: AnonHugePages of Anonymous, never 100% with small pages left nor
 * 0% with a huge one (fmt_pct); '-' unknown. */
static void share_cell(struct table *t, const struct proc_thp *p)
{
	if (proc_thp_share(p) < 0 || !smaps_known(&p->t, SM_ANON_HUGE)) {
		table_cell(t, "-");
		return;
	}
	uint64_t h = p->t.kb[SM_ANON_HUGE], a = p->t.kb[SM_ANONYMOUS];
	char pc[16];
	fmt_pct(pc, sizeof(pc), h < a ? h : a, a, 0);
	table_cell(t, "%s", pc);
}

/* The REASON cell of ROW, a row of R. */
static void reason_cell(struct table *t, const struct ps_report *r, const struct ps_row *row)
{
	char why[200];
	table_cell(t, "%s",
		   row->denied ? "smaps not readable" : ps_row_reason(r, row, why, sizeof(why)));
}

void ps_render_text(FILE *f, const struct ps_report *r, bool color)
{
	static const char *const hdr[] = {"PID", "USER", "COMM", "RSS",	   "AnonHuge",	 "THP%anon",
					  "HG",	 "NH",	 "ELIG", "THP_EN", "LARGEST HG", "REASON"};
	struct table *t = table_new(12, hdr, "rllrrrrrrrll");
	u128 rss = 0, ahp = 0, hg_kb = 0, nh_kb = 0; /* sums of u64s: exact */
	size_t nok = 0;				     /* rows whose smaps was read */
	int hg = 0, nh = 0, stack_nh = 0;
	bool flags = !r->rollup && !r->flags_absent;
	for (size_t i = 0; i < r->n; i++) {
		const struct ps_row *row = &r->rows[i];
		const struct proc_thp *p = &row->p;
		char v[32];
		table_cell(t, "%d", (int)p->pid);
		table_cell(t, "%s", row->user);
		table_cell(t, "%s", p->st.name);
		if (p->st.vmrss_kb.present)
			fmt_kb(v, sizeof(v), p->st.vmrss_kb.v);
		table_cell(t, "%s", p->st.vmrss_kb.present ? v : "-");
		if (row->denied) {
			for (int c = 0; c < 5; c++)
				table_cell(t, "-");
		} else {
			kb_cell(t, &p->t, SM_ANON_HUGE);
			share_cell(t, p);
			count_size_cell(t, flags, p->hg_vmas, p->hg_kb);
			count_size_cell(t, flags, p->nh_vmas, p->nh_kb);
			if (!r->rollup && p->has_eligible)
				table_cell(t, "%d", p->eligible_vmas);
			else
				table_cell(t, "-");
		}
		table_cell(t, "%s", thp_en_str(p->st.thp_enabled));
		if (p->hg_vmas) {
			fmt_kb(v, sizeof(v), p->largest_hg_kb);
			table_cell(t, "%s %s", v, p->largest_hg_name);
		} else {
			table_cell(t, "-");
		}
		reason_cell(t, r, row);
		/* sums of kernel numbers, exact (a u64 each, so a u128 cannot wrap) */
		rss += p->st.vmrss_kb.present ? p->st.vmrss_kb.v : 0;
		if (!row->denied) {
			ahp += p->t.kb[SM_ANON_HUGE];
			nok++;
		}
		hg += p->hg_vmas;
		nh += p->nh_vmas;
		stack_nh += row->denied ? 0 : p->stack_nh_vmas;
		hg_kb += p->hg_kb;
		nh_kb += p->nh_kb;
	}
	char a[64], b[64];
	fmt_kb_wide(a, sizeof(a), rss);
	/* rows none of which was readable, or no row while some process could not be read:
	 * the sums are unknown, not 0; no row of a host where all was read: 0 */
	bool known = ps_totals_known(r, nok);
	fmt_kb_wide(b, sizeof(b), ahp);
	table_cell(t, "total");
	table_cell(t, "%zu proc%s", r->n, r->n == 1 ? "" : "s");
	table_cell(t, "%s", "");
	table_cell(t, "%s", r->n || known ? a : "-");
	table_cell(t, "%s", known ? b : "-");
	table_cell(t, "%s", "");
	count_size_cell(t, flags && known, hg, hg_kb);
	count_size_cell(t, flags && known, nh, nh_kb);
	for (int c = 0; c < 4; c++)
		table_cell(t, "%s", "");
	table_flush(t, f, 0, color);
	if (!r->n && r->relevant_only)
		fprintf(f,
			"no %sprocess uses, requests (hg) or refuses (nh, THP_EN 0) huge pages; "
			"--all lists every process\n",
			r->denied || r->errors ? "readable " : "");
	else if (!r->n)
		fprintf(f,
			"no %sprocess passed the filters given (--pid, --user, --min-ahp, "
			"--cgroup: all must hold)\n",
			r->denied || r->errors ? "readable " : "");
	ps_totals_note(f, r, known ? b : NULL, nok);
	if (r->n)
		fprintf(f,
			"THP%%anon: AnonHugePages of Anonymous; %sTHP_EN 0: THP disabled by prctl\n",
			flags ? "HG, NH: VMAs (their size) with MADV_HUGEPAGE, MADV_NOHUGEPAGE; ELIG: "
				"VMAs with THPeligible 1; "
			      : "");
	if (flags && stack_nh)
		fprintf(f,
			"(NH includes %d thread stack and guard VMAs: nh set by the kernel for MAP_STACK, not an opt-out)\n",
			stack_nh);
	if (r->rollup)
		fprintf(f,
			"(--rollup: smaps_rollup + status only; hg/nh and THPeligible not read)\n");
	if (r->capture)
		fprintf(f, "(a thpctl capture: only the processes it recorded; it records thpctl "
			   "itself unless given --pid PID or --all-processes)\n");
	ps_partial_text(f, r, color);
}

void ps_partial_text(FILE *f, const struct ps_report *r, bool color)
{
	if (r->denied)
		fprintf(f, "%s%d not readable: %s (partial)%s\n", col_yellow(color), r->denied,
			r->recorded ? "smaps not recorded (unreadable at capture)"
				    : hint_proc_denied(r->as_root),
			col_reset(color));
	if (r->errors)
		fprintf(f, "%d process%s could not be parsed (partial)\n", r->errors,
			r->errors == 1 ? "" : "es");
	if (r->damaged)
		fprintf(f, "%d process%s with damaged fields, shown as - (partial)\n", r->damaged,
			r->damaged == 1 ? "" : "es");
	skips_note(f, "", NULL, &r->skips);
}

static json_t *kb_json(const struct smaps_totals *s, enum smaps_field f)
{
	return smaps_known(s, f) ? json_u64(s->kb[f]) : json_null();
}

json_t *ps_to_json(const struct ps_report *r)
{
	json_t *root = json_object(), *arr = json_array();
	bool flags = !r->rollup && !r->flags_absent;
	u128 rss = 0, ahp = 0, hg_kb = 0, nh_kb = 0; /* sums of u64s: exact */
	int nok = 0;				     /* rows whose smaps was read */
	int hg = 0, nh = 0;
	json_put(root, "mode", json_str(r->rollup ? "rollup" : "smaps"));
	/* a capture records only the processes it was given: its list is not the host's */
	json_put(root, "source",
		 json_str(r->capture	? "capture"
			  : r->recorded ? "recorded"
					: "live"));
	/* a ledger part unknown (a recorded tree, no permission, the budget) is partial too */
	bool ledger_gaps = false;
	for (size_t i = 0; r->ledger && i < r->n && !ledger_gaps; i++)
		ledger_gaps = !r->rows[i].denied && r->rows[i].led && !ledger_whole(r->rows[i].led);
	json_put(root, "partial",
		 json_boolean(r->denied > 0 || r->errors > 0 || r->damaged > 0 || ledger_gaps ||
			      bundle_skips_any(&r->skips)));
	json_put(root, "unreadable", json_integer(r->denied));
	json_put(root, "errors", json_integer(r->errors));
	json_put(root, "damaged", json_integer(r->damaged));
	json_put(root, "pmd_policy", r->policy ? json_str(r->policy) : NULL);
	for (size_t i = 0; i < r->n; i++) {
		const struct ps_row *row = &r->rows[i];
		char why[200];
		const struct proc_thp *p = &row->p;
		json_t *o = json_object();
		bool ok = !row->denied;
		json_put(o, "pid", json_integer(p->pid));
		json_put(o, "ppid", p->st.ppid >= 0 ? json_integer(p->st.ppid) : NULL);
		json_put(o, "uid", p->st.uid >= 0 ? json_integer(p->st.uid) : NULL);
		json_put(o, "user", json_str(row->user));
		json_put(o, "comm", json_str(p->st.name));
		json_put(o, "readable", json_boolean(ok));
		json_put(o, "rss_kb", json_opt_u64(&p->st.vmrss_kb));
		json_put(o, "anon_kb", ok ? kb_json(&p->t, SM_ANONYMOUS) : NULL);
		json_put(o, "anon_huge_kb", ok ? kb_json(&p->t, SM_ANON_HUGE) : NULL);
		json_put(o, "shmem_pmd_kb", ok ? kb_json(&p->t, SM_SHMEM_PMD) : NULL);
		json_put(o, "file_pmd_kb", ok ? kb_json(&p->t, SM_FILE_PMD) : NULL);
		double s = proc_thp_share(p);
		json_put(o, "thp_share", ok && s >= 0 ? json_real(s) : NULL);
		bool fl = ok && flags;
		json_put(o, "hg_vmas", fl ? json_integer(p->hg_vmas) : NULL);
		json_put(o, "hg_kb", fl ? json_u64(p->hg_kb) : NULL);
		json_put(o, "nh_vmas", fl ? json_integer(p->nh_vmas) : NULL);
		json_put(o, "nh_kb", fl ? json_u64(p->nh_kb) : NULL);
		/* of them: thread stacks and guards, nh by the kernel for MAP_STACK */
		json_put(o, "nh_thread_stack_vmas", fl ? json_integer(p->stack_nh_vmas) : NULL);
		json_put(o, "nh_thread_stack_kb", fl ? json_u64(p->stack_nh_kb) : NULL);
		json_put(o, "thpeligible_vmas",
			 ok && !r->rollup && p->has_eligible ? json_integer(p->eligible_vmas)
							     : NULL);
		json_put(o, "thp_enabled",
			 p->st.thp_enabled >= 0 ? json_boolean(p->st.thp_enabled) : NULL);
		json_t *lh = NULL;
		if (p->hg_vmas) {
			lh = json_object();
			json_put(lh, "name", json_str(p->largest_hg_name));
			json_put(lh, "size_kb", json_u64(p->largest_hg_kb));
		}
		json_put(o, "largest_hg", lh);
		json_put(o, "reason",
			 ok ? json_str(ps_row_reason(r, row, why, sizeof(why))) : NULL);
		if (r->ledger)
			json_put(o, "ledger", row->led ? ledger_to_json(row->led) : NULL);
		json_put(o, "allocator", row->alloc ? alloc_to_json(row->alloc) : NULL);
		json_array_append_new(arr, o);
		rss += p->st.vmrss_kb.present ? p->st.vmrss_kb.v : 0;
		if (ok) {
			ahp += p->t.kb[SM_ANON_HUGE];
			nok++;
		}
		hg += p->hg_vmas;
		nh += p->nh_vmas;
		hg_kb += p->hg_kb;
		nh_kb += p->nh_kb;
	}
	json_put(root, "processes", arr);
	json_t *t = json_object();
	json_put(t, "processes", json_integer((json_int_t)r->n));
	/* as in the text: a sum over no readable process is unknown, not 0 */
	bool known = ps_totals_known(r, nok);
	json_put(t, "rss_kb", r->n || known ? json_u128(rss) : NULL);
	json_put(t, "readable", json_integer(nok));
	json_put(t, "anon_huge_kb", known ? json_u128(ahp) : NULL);
	/* a sum over processes: a THP shared after fork counts once per process */
	json_put(t, "anon_huge_kb_is_per_process_sum", json_true());
	json_put(t, "host_anon_huge_pages_kb", r->has_host_ahp ? json_u64(r->host_ahp_kb) : NULL);
	json_put(t, "hg_vmas", flags && known ? json_integer(hg) : NULL);
	json_put(t, "hg_kb", flags && known ? json_u128(hg_kb) : NULL);
	json_put(t, "nh_vmas", flags && known ? json_integer(nh) : NULL);
	json_put(t, "nh_kb", flags && known ? json_u128(nh_kb) : NULL);
	json_put(root, "totals", t);
	return root;
}

static void vma_kb_cell(struct table *t, const struct maps_vma *v, enum maps_field f)
{
	known_kb_cell(t, v->known & (1u << f), v->kb[f]);
}

static json_t *vma_kb_json(const struct maps_vma *v, enum maps_field f)
{
	return v->known & (1u << f) ? json_u64(v->kb[f]) : json_null();
}

static const char *flags_str(const struct maps_vma *v)
{
	if (!v->has_vmflags)
		return "-";
	if ((v->vmflags & (VMF_HG | VMF_NH)) == (VMF_HG | VMF_NH))
		return "hg,nh";
	if (v->vmflags & VMF_HG)
		return "hg";
	if (v->vmflags & VMF_NH)
		return "nh";
	if (v->vmflags & VMF_HT)
		return "ht";
	return "";
}

/* V in hex, at least 12 digits (zeros in front), at OUT; returns the end. */
static char *hex12(char *out, uint64_t v)
{
	char d[16];
	int n = 0;
	do {
		d[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (int i = n; i < 12; i++)
		*out++ = '0';
	while (n)
		*out++ = d[--n];
	return out;
}

/* "%012llx-%012llx" of a VMA's range, without a format pass (10 000 VMAs) */
static void range_cell(struct table *t, uint64_t start, uint64_t end)
{
	char v[40], *p = hex12(v, start);
	*p++ = '-';
	*hex12(p, end) = '\0';
	table_cell(t, "%s", v);
}

/* Row I of the VMA table of R (CTX): VMA I, or the totals after the last. */
static void maps_row(size_t i, struct table *t, void *ctx)
{
	const struct maps_report *r = ctx;
	if (i == r->n) {
		table_cell(t, "total");
		table_cell(t, "%zu VMAs", r->n);
		kb_cell(t, &r->totals, SM_SIZE);
		kb_cell(t, &r->totals, SM_RSS);
		kb_cell(t, &r->totals, SM_ANON_HUGE);
		for (int c = 0; c < 3; c++)
			table_cell(t, "%s", "");
		return;
	}
	const struct maps_vma *v = maps_vma_at(r, i);
	range_cell(t, v->start, v->end);
	table_cell(t, "%s", v->perms);
	vma_kb_cell(t, v, MF_SIZE);
	vma_kb_cell(t, v, MF_RSS);
	vma_kb_cell(t, v, MF_ANON_HUGE);
	table_cell(t, "%s", flags_str(v));
	if (v->thp_eligible >= 0)
		table_cell(t, "%d", v->thp_eligible);
	else
		table_cell(t, "-");
	table_cell(t, "%s", maps_vma_name(r, v));
}

void maps_render_text(FILE *f, const struct maps_report *r, bool color)
{
	fprintf(f, "%sPID %ld%s (", col_bold(color), r->pid, col_reset(color));
	fputs_safe(r->st.name, f);
	fprintf(f, ")  THP_enabled: %s\n", thp_en_str(r->st.thp_enabled));
	if (r->st.thp_enabled == 0) {
		if (r->nchain) {
			const struct maps_ancestor *top = &r->chain[r->nchain - 1];
			fprintf(f,
				"THP disabled by prctl(PR_SET_THP_DISABLE), inherited: highest ancestor with THP_enabled 0 is PID %ld (",
				top->pid);
			fputs_safe(top->comm, f);
			fprintf(f, ")%s\n",
				r->chain_cut ? " (chain cut: an ancestor was not readable)" : "");
		} else if (r->stop_thp_enabled == 1) {
			fprintf(f,
				"THP disabled by prctl(PR_SET_THP_DISABLE), set in this process (by the program itself, or by a launcher that exec'd it: thpctl run, a wrapper; its parent has THP_enabled 1)\n");
		} else {
			fprintf(f,
				"THP disabled by prctl(PR_SET_THP_DISABLE); the parent's THP_enabled is unknown, so it may be inherited\n");
		}
	}
	static const char *const hdr[] = {"START-END", "PERM",	"SIZE",	    "RSS",
					  "AnonHuge",  "FLAGS", "ELIGIBLE", "NAME"};
	struct table *t = table_new(8, hdr, "llrrrlrl");
	table_print_rows(t, f, 0, color, r->n + 1, maps_row, (void *)r);
	table_free(t);
	ledger_render_lines(f, &r->led, color);
}

json_t *maps_vma_json(const struct maps_report *r, size_t i)
{
	const struct maps_vma *v = maps_vma_at(r, i);
	json_t *o = json_object();
	json_put_hex_range(o, v->start, v->end);
	json_put(o, "perms", json_str(v->perms));
	json_put(o, "size_kb", vma_kb_json(v, MF_SIZE));
	json_put(o, "rss_kb", vma_kb_json(v, MF_RSS));
	json_put(o, "anon_huge_kb", vma_kb_json(v, MF_ANON_HUGE));
	json_put(o, "hg", v->has_vmflags ? json_boolean(v->vmflags & VMF_HG) : NULL);
	json_put(o, "nh", v->has_vmflags ? json_boolean(v->vmflags & VMF_NH) : NULL);
	json_put(o, "thpeligible", v->thp_eligible >= 0 ? json_boolean(v->thp_eligible) : NULL);
	json_put(o, "name", json_str(maps_vma_name(r, v)));
	return o;
}

json_t *maps_to_json(const struct maps_report *r)
{
	json_t *root = json_object(), *arr = json_array();
	json_put(root, "pid", json_integer(r->pid));
	json_put(root, "comm", json_str(r->st.name));
	json_put(root, "thp_enabled",
		 r->st.thp_enabled >= 0 ? json_boolean(r->st.thp_enabled) : NULL);
	json_t *chain = json_array();
	for (int i = 0; i < r->nchain; i++) {
		json_t *o = json_object();
		json_put(o, "pid", json_integer(r->chain[i].pid));
		json_put(o, "comm", json_str(r->chain[i].comm));
		json_array_append_new(chain, o);
	}
	json_put(root, "prctl_ancestors", chain);
	json_t *who = NULL;
	if (r->st.thp_enabled == 0) {
		who = json_object();
		long pid = r->nchain ? r->chain[r->nchain - 1].pid : r->pid;
		json_put(who, "pid", json_integer(pid));
		json_put(who, "comm",
			 json_str(r->nchain ? r->chain[r->nchain - 1].comm : r->st.name));
	}
	json_put(root, "prctl_set_by", who);
	json_put(
		root, "prctl_chain_cut",
		json_boolean(r->chain_cut || (r->st.thp_enabled == 0 && r->stop_thp_enabled != 1)));
	json_put(root, "partial", json_boolean(r->partial));
	json_put(root, "vmas", arr);
	json_t *t = json_object();
	json_put(t, "size_kb", kb_json(&r->totals, SM_SIZE));
	json_put(t, "rss_kb", kb_json(&r->totals, SM_RSS));
	json_put(t, "anon_huge_kb", kb_json(&r->totals, SM_ANON_HUGE));
	json_put(root, "totals", t);
	json_put(root, "ledger", ledger_to_json(&r->led));
	return root;
}
