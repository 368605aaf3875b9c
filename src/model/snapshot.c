// SPDX-License-Identifier: MIT
#include "snapshot.h"

#include <errno.h>
#include <string.h>

#include "../util/str.h"

int snapshot_from_knobs(const struct thp_knobs *k, struct snapshot *s, int *nbad)
{
	int ret = 0;
	s->n = 0;
	s->nbad = 0;
	*nbad = 0;
	for (int i = 0; i < k->n && s->n < PLAN_MAX; i++) {
		if (!k->k[i].writable)
			continue;
		struct knob_kv *e = &s->kv[s->n];
		str_copy(e->key, sizeof(e->key), k->k[i].key);
		if (knob_value(k->k[i].raw, e->value, sizeof(e->value))) {
			str_copy(s->bad[s->nbad++], sizeof(s->bad[0]), k->k[i].key);
			(*nbad)++;
			ret = -EINVAL;
			continue;
		}
		s->n++;
	}
	/* a knob whose file could not be read: unreadable, never "not on this kernel" */
	for (int i = 0; i < k->nunread && s->nbad < PLAN_MAX; i++) {
		str_copy(s->bad[s->nbad++], sizeof(s->bad[0]), k->unread[i]);
		(*nbad)++;
		ret = -EINVAL;
	}
	return ret;
}

static const struct knob_kv *find(const struct snapshot *s, const char *key)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->kv[i].key, key) == 0)
			return &s->kv[i];
	return NULL;
}

int snapshot_diff(const struct snapshot *file, const struct snapshot *cur, struct snap_diff *out,
		  int max)
{
	int k = 0;
	for (int i = 0; i < file->n && k < max; i++) {
		const struct knob_kv *c = find(cur, file->kv[i].key);
		if (c && strcmp(c->value, file->kv[i].value) == 0)
			continue;
		str_copy(out[k].key, sizeof(out[k].key), file->kv[i].key);
		str_copy(out[k].file, sizeof(out[k].file), file->kv[i].value);
		str_copy(out[k].cur, sizeof(out[k].cur), c ? c->value : "");
		out[k].cur_unreadable = false;
		for (int j = 0; !c && j < cur->nbad; j++)
			if (strcmp(cur->bad[j], file->kv[i].key) == 0)
				out[k].cur_unreadable = true;
		k++;
	}
	for (int i = 0; i < cur->n && k < max; i++) {
		if (find(file, cur->kv[i].key))
			continue;
		str_copy(out[k].key, sizeof(out[k].key), cur->kv[i].key);
		out[k].file[0] = '\0';
		str_copy(out[k].cur, sizeof(out[k].cur), cur->kv[i].value);
		out[k].cur_unreadable = false;
		k++;
	}
	return k;
}
