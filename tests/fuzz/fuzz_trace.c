// SPDX-License-Identifier: MIT
/*
 * tracefs trace lines (kernel/trace_line.c trace_line_parse, trace_field) and
 * the stall pairing over a whole capture (model/stalls.c stalls_feed/finish).
 * Properties: a parsed line's fields lie inside it; counts add up.
 */
#include "fuzz.h"

#include "kernel/trace_line.h"
#include "model/stalls.h"

static const char *const keys[] = {"order", "status", "nr_reclaimed", "result", "mm", "mode"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	FUZZ_EACH_LINE(text, size, line, n, {
		struct trace_line tl;
		if (trace_line_parse(line, n, &tl) == 0) {
			FUZZ_CHECK(memchr(tl.comm, '\0', sizeof(tl.comm)) != NULL);
			FUZZ_CHECK(memchr(tl.event, '\0', sizeof(tl.event)) != NULL);
			if (tl.fields_len) {
				FUZZ_CHECK(tl.fields >= line &&
					   tl.fields + tl.fields_len <= line + n);
				char v[32];
				long lv;
				for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
					if (trace_field(tl.fields, tl.fields_len, keys[k], v,
							sizeof(v)) == 0)
						FUZZ_CHECK(memchr(v, '\0', sizeof(v)) != NULL);
					(void)trace_field_long(tl.fields, tl.fields_len, keys[k],
							       &lv);
				}
			}
		}
	});
	struct stalls *s = malloc(sizeof(*s));
	if (!s)
		abort();
	stalls_init(s);
	stalls_feed(s, text, size);
	stalls_finish(s, NULL, NULL);
	stalls_free(s);
	free(s);
	return 0;
}
