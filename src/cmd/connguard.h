/* SPDX-License-Identifier: MIT */
/*
 * The exporter's connection guard: which HTTP connections it holds, per-address
 * and total limits with oldest-idle eviction, and total deadlines for reading a
 * request and for sending its response. Policy only: no sockets are touched
 * here. The caller serialises every call (one mutex), shuts down the fds it is
 * handed while still holding that mutex, and removes an entry (connguard_closed)
 * before the fd is closed, so an fd handed out is always still open.
 *
 * Times are CLOCK_MONOTONIC seconds. Addresses are 16 bytes (IPv4 as
 * ::ffff:a.b.c.d).
 */
#ifndef THPCTL_CMD_CONNGUARD_H
#define THPCTL_CMD_CONNGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cg_state {
	CG_PENDING, /* accepted, not yet taken over by the HTTP threads: never shut down */
	CG_NEW,	    /* request headers not complete yet */
	CG_BUSY,    /* headers complete, response not sent yet */
	CG_IDLE,    /* keep-alive, between requests */
};

/* Why a connection was cut off (the counts in struct connguard). */
enum cg_reason {
	CG_EVICT_ADDR,	/* evicted: its address was at the per-address limit */
	CG_EVICT_TOTAL, /* evicted: the total limit was reached */
	CG_DL_REQUEST,	/* request headers not complete within the request deadline */
	CG_DL_RESPONSE, /* response not sent within the response deadline */
	CG_REFUSED,	/* a new connection closed at once: nothing could be evicted */
	CG_NREASONS,
};

struct cg_conn {
	struct cg_conn *prev, *next;
	int fd;
	uint8_t addr[16];
	enum cg_state state;
	bool doomed;	  /* shut down, waiting for the HTTP threads to close it */
	bool spoke;	  /* a byte arrived since accept or since the last response */
	double since;	  /* start of the current state: accept, or end of the last response */
	double deadline;  /* 0: none (an idle keep-alive connection before its next byte) */
	uint64_t rx_mark; /* bytes received when it went idle */
};

struct connguard {
	struct cg_conn *head, *tail; /* oldest first by insertion */
	size_t live;		     /* entries not doomed (pending included) */
	size_t pending;		     /* of which CG_PENDING */
	size_t doomed;		     /* entries shut down, not closed yet */
	size_t max_total, max_per_addr, max_doomed, max_pending;
	double request_s;  /* request headers complete within this of accept or first byte */
	double response_s; /* response sent within this of the headers */
	double pending_s;  /* a pending entry never taken over is forgotten after this */
	uint64_t counts[CG_NREASONS];
};

/* An empty guard with these limits (connections; seconds). */
void connguard_init(struct connguard *g, size_t max_total, size_t max_per_addr, double request_s,
		    double response_s);

/* Frees every entry (the fds are not touched). */
void connguard_free(struct connguard *g);

/*
 * Admit a new connection (FD, from ADDR, at NOW). 0: it is recorded as pending;
 * the caller hands it on and later calls connguard_started (or
 * connguard_forget if handing on failed). -EBUSY: refused (every slot busy or
 * too many connections still closing); the caller closes FD. -ENOMEM.
 * To make room, up to two connections that have not completed their request
 * headers or are idle are doomed: those that have sent nothing (since accept,
 * or since their last response; RX(FD, ARG) says how many bytes FD has
 * received) first, the one waiting longest first within each group. Their fds
 * go to VICTIMS and their number to *NVICTIMS; the caller shuts them down
 * before unlocking.
 */
int connguard_admit(struct connguard *g, int fd, const uint8_t addr[16], double now,
		    uint64_t (*rx)(int fd, void *arg), void *arg, int victims[2], size_t *nvictims);

/*
 * The HTTP threads took over FD (from ADDR): its pending entry becomes CG_NEW,
 * keeping its accept time. Returns the entry (to pass to the calls below), or
 * NULL when none was pending and no memory is left for a new one.
 */
struct cg_conn *connguard_started(struct connguard *g, int fd, const uint8_t addr[16], double now);

/* A pending FD was not handed on (the caller or the HTTP library closed it). */
void connguard_forget(struct connguard *g, int fd);

/* C is about to be closed: removes and frees it. */
void connguard_closed(struct connguard *g, struct cg_conn *c);

/* The request headers of C are complete: the response deadline starts. */
void connguard_headers(struct connguard *g, struct cg_conn *c, double now);

/* The response on C is sent; RX is the bytes received on it so far. */
void connguard_completed(struct connguard *g, struct cg_conn *c, double now, uint64_t rx);

/*
 * Deadlines at NOW. RX(FD, ARG) says how many bytes FD has received (for idle
 * keep-alive connections: the first byte of the next request starts its
 * request deadline). Connections past a deadline are doomed and their fds
 * stored in OUT (at most MAX; the rest wait for the next call). Returns how
 * many were stored.
 */
size_t connguard_expire(struct connguard *g, double now, uint64_t (*rx)(int fd, void *arg),
			void *arg, int *out, size_t max);

/*
 * Seconds from NOW until connguard_expire has work: the earliest deadline, or
 * POLL_S while an idle keep-alive connection waits for its first byte; -1 when
 * nothing is due at all.
 */
double connguard_next(const struct connguard *g, double now, double poll_s);

/*
 * Whether to accept more now: false while max_pending connections wait to be
 * taken over or max_doomed to be closed. New connections then wait in the
 * kernel's backlog instead of being refused, and a burst of them cannot push
 * out a connection before the HTTP threads have read what it sent.
 */
bool connguard_accepting(const struct connguard *g);

/* Connections from ADDR that are not doomed (pending included). */
size_t connguard_count_addr(const struct connguard *g, const uint8_t addr[16]);

#endif
