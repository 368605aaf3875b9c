// SPDX-License-Identifier: MIT
/*
 * smaps (kernel/smaps.c): whole text through smaps_parse() and the same text
 * streamed in chunks of whole lines (as proc_read does), sized by the first
 * byte. Property: both see the same VMAs and totals when the text ends with a
 * newline (a cut last line is dropped by one and flagged by the other).
 */
#include "fuzz.h"

#include "kernel/smaps.h"

struct tally {
	size_t n;
	uint64_t size_kb, ahp_kb, start_xor;
	unsigned flags_or;
};

static int on_vma(const struct smaps_vma *v, void *ctx)
{
	struct tally *t = ctx;
	t->n++;
	t->start_xor ^= v->start ^ (v->end << 1);
	t->flags_or |= v->vmflags;
	for (size_t i = 0; i < v->name_len; i++)
		t->size_kb += (unsigned char)v->name[i] & 0; /* touch the name bytes */
	FUZZ_CHECK(v->perms[4] == '\0');
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t chunk = 1 + data[0] * 16u;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	struct tally whole = {0}, streamed = {0};
	struct smaps_totals tw, ts;
	memset(&tw, 0, sizeof(tw));
	memset(&ts, 0, sizeof(ts));
	int rw = smaps_parse(text, len, on_vma, &whole, &tw);

	struct smaps_stream *s = malloc(sizeof(*s));
	if (!s)
		abort();
	smaps_stream_init(s, on_vma, &streamed, &ts);
	/* like sysroot_read_chunks: whole lines per call, the cut tail last */
	size_t off = 0;
	int rs = 0;
	while (off < len && !rs) {
		size_t want = len - off < chunk ? len - off : chunk;
		const char *nl = memrchr(text + off, '\n', want);
		while (!nl && off + want < len) {
			want = len - off < want * 2 ? len - off : want * 2;
			nl = memrchr(text + off, '\n', want);
		}
		size_t n = nl ? (size_t)(nl - (text + off)) + 1 : want;
		rs = smaps_stream_feed(s, text + off, n);
		off += n;
	}
	if (!rs)
		rs = smaps_stream_finish(s);
	bool truncated = s->truncated;
	free(s);

	if (len && text[len - 1] == '\n' && !memchr(text, '\0', len)) {
		FUZZ_CHECK((rw == 0) == (rs == 0));
		if (rw == 0) {
			FUZZ_CHECK(!truncated);
			FUZZ_CHECK(whole.n == streamed.n);
			FUZZ_CHECK(whole.start_xor == streamed.start_xor);
			FUZZ_CHECK(tw.present == ts.present);
			FUZZ_CHECK(memcmp(tw.kb, ts.kb, sizeof(tw.kb)) == 0);
		}
	}
	return 0;
}
