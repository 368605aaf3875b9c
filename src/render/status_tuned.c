// SPDX-License-Identifier: MIT
/* `thpctl status`: the tuned line and its JSON (kernel/tuned.h). */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "status.h"
#include "status_int.h"

void status_tuned_str(const struct host_snapshot *h, char *out, size_t n)
{
	const struct tuned_state *t = &h->tuned;
	if (!h->has_tuned) {
		snprintf(out, n, "-");
		return;
	}
	if (!t->has_active) {
		/* a tree without etc/tuned and no manifest saying it was absent: not recorded */
		snprintf(out, n, "%s",
			 t->installed == TRI_YES  ? "installed, no active profile"
			 : t->installed == TRI_NO ? "none (no /etc/tuned/active_profile)"
						  : "not recorded (no etc/tuned in this tree)");
		return;
	}
	size_t used = (size_t)snprintf(out, n, "profile %s (%s)", t->active,
				       status_tuned_state(t, "running: -"));
	for (int i = 0; i < t->nset && used < n; i++)
		used += (size_t)snprintf(out + used, n - used, "%s%s=%s", i ? ", " : ": sets ",
					 t->set[i].key, t->set[i].value);
	if (!t->nset && used < n)
		used += (size_t)snprintf(out + used, n - used, ": no THP setting");
	if (t->partial && used < n)
		snprintf(out + used, n - used, " (partial: %s)", t->partial_why);
}

json_t *status_tuned_json(const struct host_snapshot *h)
{
	const struct tuned_state *t = &h->tuned;
	if (!h->has_tuned)
		return json_null();
	json_t *o = json_object(), *files = json_array(), *set = json_array();
	json_put(o, "installed",
		 t->installed == TRI_UNKNOWN ? NULL : json_boolean(t->installed == TRI_YES));
	json_put(o, "active_profile", t->has_active ? json_str(t->active) : NULL);
	json_put(o, "running",
		 t->running == TRI_UNKNOWN ? NULL : json_boolean(t->running == TRI_YES));
	json_put(o, "enabled",
		 t->enabled == TRI_UNKNOWN ? NULL : json_boolean(t->enabled == TRI_YES));
	for (int i = 0; i < t->nfiles; i++)
		json_array_append_new(files, json_str(t->files[i]));
	json_put(o, "profiles_read", files);
	json_put(o, "partial", json_boolean(t->partial));
	json_put(o, "partial_why", t->partial ? json_str(t->partial_why) : NULL);
	for (int i = 0; i < t->nset; i++) {
		const struct tuned_setting *e = &t->set[i];
		json_t *s = json_object();
		char live[64];
		json_put(s, "key", json_str(e->key));
		json_put(s, "value", json_str(e->value));
		json_put(s, "profile", json_str(e->profile));
		json_put(s, "plugin", json_str(e->vm ? "vm" : "sysfs"));
		json_put(s, "live",
			 host_thp_value(h, e->key, live, sizeof(live)) == 0 ? json_str(live)
									    : NULL);
		json_array_append_new(set, s);
	}
	json_put(o, "thp_settings", set);
	return o;
}
