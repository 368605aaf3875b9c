/* SPDX-License-Identifier: MIT */
/* `thpctl trace stalls`: the report as text or JSON. */
#ifndef THPCTL_RENDER_STALLS_H
#define THPCTL_RENDER_STALLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/stalls.h"

struct trace_report {
	const struct stalls *s; /* finished */
	double duration_s;	/* asked for; 0 = until interrupted */
	double elapsed_s;	/* traced */
	bool interrupted;	/* ended by a signal */
	int pid;		/* --pid, 0 = every task */
	const char *where;	/* tracefs: mount point, or "private detached mount" */
	bool private_mount;
	const char *instance;
	const char *clock;
	const char *missing[16]; /* events this kernel does not offer */
	int nmissing;
	/* overhead */
	double record_ns; /* per event, in the traced task (trace_marker calibration); < 0 unknown */
	bool record_noise;   /* the calibration ran but came out <= 0 (below its noise): unknown */
	double reader_cpu_s; /* thpctl's own CPU (user + system) while tracing */
	uint64_t bytes;	     /* read from trace_pipe */
};

void stalls_render_text(FILE *f, const struct trace_report *r, bool color);
/* The report as JSON; NULL on ENOMEM. */
json_t *stalls_render_json(const struct trace_report *r);

/* "850 us", "12.3 ms", "1.25 s" */
void fmt_ns(char *out, size_t n, uint64_t ns);

#endif
