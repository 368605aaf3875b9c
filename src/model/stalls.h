/* SPDX-License-Identifier: MIT */
/*
 * Compaction and reclaim stalls from tracepoint text (pure, no I/O): parse
 * a trace_pipe line, pair begin/end events per task, summarise per process,
 * and count the huge_memory (collapse) events by status.
 *
 * A line of trace_pipe (kernel/trace/trace_output.c, trace_print_context):
 *   "<comm>-<pid> [(<tgid>)] [<cpu>] <flags> <secs>.<usecs>: <event>: <fields>"
 * comm is right-aligned in 16 columns and may hold blanks and dashes (the pid
 * is the number after the LAST dash before the cpu column); "(tgid)" appears
 * only with options/record-tgid; flags (irqs-off, need-resched, hardirq/
 * softirq, preempt depth, migrate-disable) are absent with options/irq-info
 * off. Timestamps have microsecond resolution in this format.
 *
 * A stall is one begin/end pair of the same task (pid, i.e. thread):
 * mm_compaction_begin/_end (one pair per zone a compaction run visits) or
 * mm_vmscan_direct_reclaim_begin/_end. Pairs nest LIFO per task and kind. An
 * end without a begin (the stall began before the trace) is counted as
 * unmatched and dropped; a begin still open when the trace ends is counted
 * as in progress.
 */
#ifndef THPCTL_MODEL_STALLS_H
#define THPCTL_MODEL_STALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/trace_line.h"

enum stall_kind { STALL_COMPACTION, STALL_RECLAIM, STALL_NKINDS };

const char *stall_kind_name(enum stall_kind k); /* "compaction", "reclaim" */

#define STALL_DEPTH 8	      /* nesting per task and kind (deeper begins are dropped) */
#define STALL_MAX_WHY 12      /* distinct compaction end statuses per process */
#define STALL_ORDERS 16	      /* allocation orders 0..15 */
#define STALL_HIST_BUCKETS 32 /* [0,1) us, [1,2) us, [2,4) us ... [2^30, inf) us */

struct stall_count {
	char name[24];
	uint64_t n;
};

/* One kind of stall of one process. */
struct stall_stats {
	uint64_t n;	   /* completed stalls */
	uint64_t total_ns; /* their summed latency */
	uint64_t max_ns;
	uint64_t p50_ns, p99_ns; /* nearest rank; set by stalls_finish() */
	uint64_t in_progress;	 /* begun, not ended when the trace stopped */
	uint64_t *lat;		 /* latencies (ns) of the completed stalls */
	size_t nlat, cap;
	/* why: compaction end status ("success", "deferred" ...), most frequent first after finish */
	struct stall_count why[STALL_MAX_WHY];
	int nwhy;
	uint64_t why_other;   /* statuses beyond STALL_MAX_WHY */
	uint64_t sync, async; /* compaction: mode of the end event */
	uint64_t reclaimed;   /* reclaim: nr_reclaimed summed (pages) */
	/* allocation order of the request behind the stall: try_to_compact_pages / reclaim begin */
	uint64_t order_n[STALL_ORDERS];
	uint64_t order_unknown;
};

/* A process (tgid), or a task whose process could not be resolved. */
struct stall_proc {
	int tgid;
	char comm[TRACE_COMM_LEN];
	struct stall_stats k[STALL_NKINDS];
};

/* huge_memory events of one process, event and status. */
struct collapse_count {
	int tgid;
	char comm[TRACE_COMM_LEN];
	enum trace_ev ev;
	char status[32];
	uint64_t n;
};

#define COLLAPSE_MAX 256

struct stall_task; /* per-task pairing state (stalls.c) */

struct stalls {
	/* pairing state, per task */
	struct stall_task *tasks;
	size_t ntasks, tcap;
	int *thash; /* open addressing over tasks: index + 1, 0 = empty */
	size_t thcap;

	/* per process; after stalls_finish() sorted by total stall time, largest first */
	struct stall_proc *procs;
	size_t nprocs, pcap;

	struct collapse_count collapse[COLLAPSE_MAX];
	size_t ncollapse;
	uint64_t collapse_other; /* combinations beyond COLLAPSE_MAX */

	uint64_t events[TEV_N]; /* lines seen by kind (TEV_LOST: lines, not events) */
	uint64_t lost;		/* events the ring buffer dropped */
	uint64_t unparsed;	/* lines that were not events */
	uint64_t unmatched_end[STALL_NKINDS];
	uint64_t dropped_deep[STALL_NKINDS]; /* begins beyond STALL_DEPTH */
	uint64_t first_ns, last_ns;	     /* timestamps of the first and last event */
	uint64_t hist[STALL_NKINDS][STALL_HIST_BUCKETS];
	struct stall_stats all[STALL_NKINDS]; /* every process together; set by stalls_finish() */
	bool oom; /* a sample or table could not grow: figures may be incomplete */
	bool finished;
};

void stalls_init(struct stalls *s);
void stalls_free(struct stalls *s);

/* Account one parsed line. */
void stalls_add(struct stalls *s, const struct trace_line *l);

/*
 * Parse TEXT[0..N), which holds whole lines, and account each. A partial
 * last line (no newline) is parsed too: callers that read a stream keep
 * the tail themselves (see stalls_feed_stream).
 */
void stalls_feed(struct stalls *s, const char *text, size_t n);

/*
 * Which process a task belongs to, for grouping: TGID (its own pid when
 * unknown) and NAME (the process name, or leave it for the trace's comm).
 * Returns true if resolved.
 */
typedef bool (*stalls_resolve_fn)(void *ctx, int pid, int *tgid, char *name, size_t namelen);

/*
 * End of the trace: count still-open begins as in progress, group tasks
 * into processes through RESOLVE (NULL: the trace's tgid column, else each
 * task is its own process), compute percentiles and sort. Call once.
 */
void stalls_finish(struct stalls *s, stalls_resolve_fn resolve, void *ctx);

/* The pid of the I-th task seen (I < S->ntasks), to resolve tasks while they live. */
int stalls_task_pid(const struct stalls *s, size_t i);

/* Histogram bucket of a latency in ns, and the bucket's lower bound in us. */
int stall_hist_bucket(uint64_t ns);
uint64_t stall_hist_lo_us(int bucket);

/* The tracepoint's name of event EV ("mm_compaction_begin"), a key for JSON. */
const char *stall_event_name(enum trace_ev ev);

#endif
