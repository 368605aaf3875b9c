/* SPDX-License-Identifier: MIT */
/*
 * One line of tracefs trace_pipe text, parsed (pure, no I/O).
 *
 * A line of trace_pipe (kernel/trace/trace_output.c, trace_print_context):
 *   "<comm>-<pid> [(<tgid>)] [<cpu>] <flags> <secs>.<usecs>: <event>: <fields>"
 * comm is right-aligned in 16 columns and may hold blanks and dashes (the pid
 * is the number after the LAST dash before the cpu column); "(tgid)" appears
 * only with options/record-tgid; flags (irqs-off, need-resched, hardirq/
 * softirq, preempt depth, migrate-disable) are absent with options/irq-info
 * off. Timestamps have microsecond resolution in this format. A lost-events
 * line reads "CPU:N [LOST M EVENTS]".
 */
#ifndef THPCTL_KERNEL_TRACE_LINE_H
#define THPCTL_KERNEL_TRACE_LINE_H

#include <stddef.h>
#include <stdint.h>

enum trace_ev {
	TEV_OTHER,	      /* an event we do not interpret */
	TEV_COMPACT_BEGIN,    /* compaction:mm_compaction_begin */
	TEV_COMPACT_END,      /* compaction:mm_compaction_end (status=, mode=) */
	TEV_COMPACT_TRY,      /* compaction:mm_compaction_try_to_compact_pages (order=) */
	TEV_RECLAIM_BEGIN,    /* vmscan:mm_vmscan_direct_reclaim_begin (order=, gfp_flags=) */
	TEV_RECLAIM_END,      /* vmscan:mm_vmscan_direct_reclaim_end (nr_reclaimed=) */
	TEV_SCAN_PMD,	      /* huge_memory:mm_khugepaged_scan_pmd (status=) */
	TEV_COLLAPSE,	      /* huge_memory:mm_collapse_huge_page (status=) */
	TEV_COLLAPSE_ISOLATE, /* huge_memory:mm_collapse_huge_page_isolate (status=) */
	TEV_SCAN_FILE,	      /* huge_memory:mm_khugepaged_scan_file (result=), 6.1 */
	TEV_COLLAPSE_FILE,    /* huge_memory:mm_khugepaged_collapse_file (result=), 6.2 */
	TEV_LOST,	      /* "CPU:N [LOST M EVENTS]": the ring buffer overflowed */
	TEV_N
};

/* The tracepoint name of EV ("mm_compaction_begin"), "lost" or "other". */
const char *trace_ev_name(enum trace_ev ev);

#define TRACE_COMM_LEN 17 /* TASK_COMM_LEN 16, plus room for "<...>" */

struct trace_line {
	enum trace_ev ev;
	char comm[TRACE_COMM_LEN]; /* "<...>" when the kernel had no saved name */
	int pid;		   /* the task (thread) id */
	int tgid;		   /* -1 without the record-tgid column or when "(-------)" */
	int cpu;
	uint64_t ts_ns;
	char event[64];	    /* the name as printed */
	const char *fields; /* into the parsed text, not NUL-terminated */
	size_t fields_len;
	uint64_t lost; /* TEV_LOST: events lost */
	int lost_cpu;
};

/*
 * Parse one line S[0..N) (a final newline is allowed). Returns 0, or
 * -EINVAL for a line that is neither an event nor a LOST line (a "#"
 * header of the trace file, garbage, an empty line).
 */
int trace_line_parse(const char *s, size_t n, struct trace_line *out);

/*
 * The value of KEY in FIELDS[0..N) ("a=1, b=x c=y"): the text after the
 * LAST "KEY=" at a word boundary, up to a blank or comma. The last, because
 * the fields we read come after any string field (a file name in
 * mm_khugepaged_collapse_file could spell " result=x"). Copies it
 * (NUL-terminated, truncated to OUTN-1) into OUT. Returns 0 or -ENOENT.
 */
int trace_field(const char *fields, size_t n, const char *key, char *out, size_t outn);
/* trace_field as a signed decimal. 0, -ENOENT or -EINVAL. */
int trace_field_long(const char *fields, size_t n, const char *key, long *out);

#endif
