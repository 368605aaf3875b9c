// SPDX-License-Identifier: MIT
/*
 * Unit tests: value validation and plans of `set` / `snapshot restore`
 * (src/model/settings_plan.c; their reasons in words, src/render/control.c),
 * snapshots (src/model/snapshot.c) and the knob walk over a recorded tree
 * (src/kernel/thp_knobs.c).
 */
#include "unit.h"

#include "kernel/thp_knobs.h"
#include "model/settings_plan.h"
#include "model/snapshot.h"
#include "render/control.h"
#include "render/snapshot.h"

static void add(struct thp_knobs *k, const char *key, const char *raw, bool writable)
{
	struct thp_knob *e = &k->k[k->n++];
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->raw, sizeof(e->raw), "%s", raw);
	e->writable = writable;
}

/* The knobs of the 6.18 x86-64 guest (kernel-thp-abi.md §8), in walk order. */
static void knobs_618(struct thp_knobs *k)
{
	memset(k, 0, sizeof(*k));
	k->present = true;
	add(k, "defrag", "always defer defer+madvise [madvise] never", true);
	add(k, "enabled", "always [madvise] never", true);
	add(k, "hpage_pmd_size", "2097152", false);
	add(k, "shmem_enabled", "always within_size advise [never] deny force", true);
	add(k, "shrink_underused", "1", true);
	add(k, "use_zero_page", "1", true);
	add(k, "khugepaged/alloc_sleep_millisecs", "60000", true);
	add(k, "khugepaged/defrag", "1", true);
	add(k, "khugepaged/full_scans", "12", false);
	add(k, "khugepaged/max_ptes_none", "511", true);
	add(k, "khugepaged/max_ptes_shared", "256", true);
	add(k, "khugepaged/max_ptes_swap", "64", true);
	add(k, "khugepaged/pages_collapsed", "3", false);
	add(k, "khugepaged/pages_to_scan", "4096", true);
	add(k, "khugepaged/scan_sleep_millisecs", "10000", true);
	add(k, "hugepages-8kB/shmem_enabled", "always inherit within_size advise [never]", true);
	add(k, "hugepages-64kB/enabled", "always inherit madvise [never]", true);
	add(k, "hugepages-64kB/shmem_enabled", "always inherit within_size advise [never]", true);
	add(k, "hugepages-2048kB/enabled", "always [inherit] madvise never", true);
	add(k, "hugepages-2048kB/shmem_enabled", "always inherit within_size advise [never]", true);
	k->pmd_size = 2097152;
}

struct vcase {
	const char *key, *raw, *value;
	uint64_t pmd_nr;
	int want;	    /* 0 or -EINVAL */
	const char *why;    /* substring of the reason in words, or NULL */
	enum knob_bad kind; /* with -EINVAL */
};

static void test_validate_table(UNIT_STATE)
{
	static const struct vcase cases[] = {
		/* choice files: exactly the words the file lists */
		{"enabled", "always [madvise] never", "always", 512, 0, NULL, 0},
		{"enabled", "always [madvise] never", "never", 512, 0, NULL, 0},
		{"enabled", "always [madvise] never", "[always]", 512, -EINVAL, "not offered",
		 KB_NOT_OFFERED},
		{"enabled", "always [madvise] never", "Always", 512, -EINVAL,
		 "always madvise never", KB_NOT_OFFERED},
		{"enabled", "always [madvise] never", "", 512, -EINVAL, "empty", KB_EMPTY},
		{"defrag", "always defer defer+madvise [madvise] never", "defer+madvise", 512, 0,
		 NULL, 0},
		{"defrag", "always defer [madvise] never", "defer+madvise", 512, -EINVAL,
		 "not offered", KB_NOT_OFFERED}, /* a 4.6-4.10 kernel */
		{"shmem_enabled", "always within_size advise [never] deny force", "force", 512, 0,
		 NULL, 0},
		{"hugepages-64kB/shmem_enabled", "always inherit within_size advise [never]",
		 "deny", 512, -EINVAL, "not offered", KB_NOT_OFFERED},
		{"hugepages-64kB/enabled", "always inherit madvise [never]", "inherit", 512, 0,
		 NULL, 0},
		/* booleans */
		{"use_zero_page", "1", "0", 512, 0, NULL, 0},
		{"use_zero_page", "1", "2", 512, -EINVAL, "0 or 1", KB_NOT_BOOL},
		{"shrink_underused", "1", "yes", 512, -EINVAL, "0 or 1", KB_NOT_BOOL},
		{"khugepaged/defrag", "1", "1", 512, 0, NULL, 0},
		/* max_ptes_*: 0..HPAGE_PMD_NR-1 */
		{"khugepaged/max_ptes_none", "511", "0", 512, 0, NULL, 0},
		{"khugepaged/max_ptes_none", "511", "511", 512, 0, NULL, 0},
		{"khugepaged/max_ptes_none", "511", "512", 512, -EINVAL, "0..511", KB_PTES_RANGE},
		{"khugepaged/max_ptes_swap", "64", "8191", 8192, 0, NULL, 0}, /* arm64 64K pages */
		{"khugepaged/max_ptes_shared", "256", "-1", 512, -EINVAL,
		 "'-1' is not 0..511 (HPAGE_PMD_NR-1)", KB_PTES_RANGE},
		{"khugepaged/max_ptes_none", "511", "99999", 0, 0, NULL, 0}, /* bound unknown */
		/* other numbers */
		{"khugepaged/pages_to_scan", "4096", "0", 512, -EINVAL, "1..4294967295",
		 KB_PAGES_TO_SCAN},
		{"khugepaged/pages_to_scan", "4096", "4294967295", 512, 0, NULL, 0},
		{"khugepaged/pages_to_scan", "4096", "4294967296", 512, -EINVAL, NULL,
		 KB_PAGES_TO_SCAN},
		{"khugepaged/scan_sleep_millisecs", "10000", "0", 512, 0, NULL, 0},
		{"khugepaged/scan_sleep_millisecs", "10000", " 10", 512, -EINVAL, "milliseconds",
		 KB_MILLISECS},
		{"khugepaged/scan_sleep_millisecs", "10000", "10ms", 512, -EINVAL, NULL,
		 KB_MILLISECS},
		{"khugepaged/alloc_sleep_millisecs", "60000", "+5", 512, -EINVAL, NULL,
		 KB_MILLISECS},
		{"anon_beside_full", "0", "1", 512, 0, NULL, 0},
		{"anon_beside_full", "0", "18446744073709551616", 512, -EINVAL,
		 "'18446744073709551616' is not an unsigned integer", KB_NOT_UINT},
	};
	for (size_t i = 0; i < UNIT_LEN(cases); i++) {
		const struct vcase *c = &cases[i];
		struct knob_invalid w;
		char why[PLAN_NOTE_LEN] = "";
		int r = knob_validate(c->key, c->raw, c->value, c->pmd_nr, &w);
		if (r)
			knob_invalid_text(&w, why, sizeof(why));
		if (r != c->want)
			fail_msg("case %zu (%s=%s): got %d, want %d (%s)", i, c->key, c->value, r,
				 c->want, why);
		if (c->why && !strstr(why, c->why))
			fail_msg("case %zu: reason '%s' lacks '%s'", i, why, c->why);
		if (r)
			assert_int_equal(w.kind, c->kind);
	}
	/* the words of a choice refused */
	struct knob_invalid w;
	char why[PLAN_NOTE_LEN];
	assert_int_equal(knob_validate("enabled", "always [madvise] never", "sometimes", 512, &w),
			 -EINVAL);
	assert_string_equal(w.offered, "always madvise never");
	knob_invalid_text(&w, why, sizeof(why));
	assert_string_equal(
		why, "'sometimes' is not offered (this kernel offers: always madvise never)");
}

static void test_kind_and_value(UNIT_STATE)
{
	char v[64];
	assert_int_equal(knob_kind_of("enabled", "always [madvise] never"), KNOB_CHOICE);
	assert_int_equal(knob_kind_of("use_zero_page", "1"), KNOB_BOOL);
	assert_int_equal(knob_kind_of("khugepaged/defrag", "0"), KNOB_BOOL);
	assert_int_equal(knob_kind_of("khugepaged/max_ptes_none", "511"), KNOB_UINT);
	assert_int_equal(knob_value("always defer [defer+madvise] madvise never", v, sizeof(v)), 0);
	assert_string_equal(v, "defer+madvise");
	assert_int_equal(knob_value("4096", v, sizeof(v)), 0);
	assert_string_equal(v, "4096");
	assert_int_equal(knob_value("[a] [b]", v, sizeof(v)), -EINVAL);
	/* words and no [selection]: a damaged choice file, no value (never the words as one) */
	assert_int_equal(knob_value("always madvise never", v, sizeof(v)), -EINVAL);
	/* one word that is no number: every writable knob is a choice file or a decimal, so it
	 * is damaged too (status shows such an enabled as '-'), never a value to save or restore */
	assert_int_equal(knob_value("madvise ", v, sizeof(v)), -EINVAL);
	assert_int_equal(knob_value("garbage\n", v, sizeof(v)), -EINVAL);
	assert_int_equal(knob_value("", v, sizeof(v)), -EINVAL);
	assert_int_equal(knob_value("-1", v, sizeof(v)), -EINVAL);
	assert_int_equal(knob_value("511\n", v, sizeof(v)), 0);
	assert_string_equal(v, "511");
	assert_int_equal(knob_value("123456", v, 4), -E2BIG);
}

static void test_key_normalize(UNIT_STATE)
{
	char k[KNOB_KEY_LEN];
	assert_int_equal(knob_key_normalize("enabled", k, sizeof(k)), 0);
	assert_string_equal(k, "enabled");
	assert_int_equal(knob_key_normalize("/sys/kernel/mm/transparent_hugepage/khugepaged/defrag",
					    k, sizeof(k)),
			 0);
	assert_string_equal(k, "khugepaged/defrag");
	assert_int_equal(
		knob_key_normalize("transparent_hugepage/hugepages-64kB/enabled", k, sizeof(k)), 0);
	assert_string_equal(k, "hugepages-64kB/enabled");
	assert_int_equal(knob_key_normalize("../../../etc/passwd", k, sizeof(k)), -EINVAL);
	assert_int_equal(knob_key_normalize("/etc/passwd", k, sizeof(k)), -EINVAL);
	assert_int_equal(knob_key_normalize("", k, sizeof(k)), -EINVAL);
	assert_int_equal(knob_key_normalize("enabled now", k, sizeof(k)), -EINVAL);
	assert_int_equal(knob_key_normalize("khugepaged/", k, sizeof(k)), -EINVAL);
}

static void test_plan_all_valid(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct settings_plan p;
	knobs_618(&k);
	plan_init(&p);
	assert_int_equal(plan_add_arg(&p, &k, 512, "enabled=always"), 0);
	assert_int_equal(plan_add_arg(&p, &k, 512, "defrag=madvise"), 0); /* already */
	assert_int_equal(plan_add_arg(&p, &k, 512, "khugepaged/max_ptes_none=64"), 0);
	assert_int_equal(plan_add_arg(&p, &k, 512, "hugepages-64kB/enabled=always"), 0);
	assert_int_equal(p.nbad, 0);
	assert_int_equal(p.n, 4);
	assert_string_equal(p.e[0].key, "enabled");
	assert_string_equal(p.e[0].old, "madvise");
	assert_string_equal(p.e[0].new, "always");
	assert_int_equal(p.e[0].state, PS_PENDING);
	assert_int_equal(p.e[1].state, PS_UNCHANGED);
	assert_string_equal(p.e[2].old, "511");
	assert_string_equal(p.e[3].old, "never");
	assert_int_equal(plan_changes(&p), 3);
}

/* "shell" is in every document (docs/json/set.json requires it): the lines on a dry run, null
 * after a real write or a rolled-back one (it was missing there: the schema failed) */
static void test_plan_json_shell(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct settings_plan p;
	knobs_618(&k);
	plan_init(&p);
	assert_int_equal(plan_add_arg(&p, &k, 512, "enabled=always"), 0);
	assert_int_equal(plan_add_arg(&p, &k, 512, "defrag=madvise"), 0); /* already */
	json_t *j = plan_to_json(&p, "/sys/kernel/mm/transparent_hugepage", true, true);
	const json_t *sh = json_object_get(j, "shell");
	assert_true(json_is_array(sh));
	assert_int_equal(json_array_size(sh), 1);
	assert_string_equal(json_string_value(json_array_get(sh, 0)),
			    "echo always > /sys/kernel/mm/transparent_hugepage/enabled");
	json_decref(j);
	p.e[0].state = PS_WRITTEN;
	j = plan_to_json(&p, "/sys/kernel/mm/transparent_hugepage", false, true);
	assert_true(json_is_null(json_object_get(j, "shell")));
	json_decref(j);
	p.e[0].state = PS_FAILED;
	p.e[0].err = -EIO;
	j = plan_to_json(&p, "/sys/kernel/mm/transparent_hugepage", false, false);
	assert_true(json_is_null(json_object_get(j, "shell")));
	assert_false(json_is_true(json_object_get(j, "ok")));
	json_decref(j);
}

static void test_plan_one_invalid_spoils_all(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct settings_plan p;
	knobs_618(&k);
	plan_init(&p);
	plan_add_arg(&p, &k, 512, "enabled=always");
	assert_int_equal(plan_add_arg(&p, &k, 512, "defrag=sometimes"), -EINVAL);
	assert_int_equal(plan_add_arg(&p, &k, 512, "khugepaged/full_scans=0"), -EACCES);
	assert_int_equal(plan_add_arg(&p, &k, 512, "hugepages-16kB/enabled=always"), -ENOENT);
	assert_int_equal(plan_add_arg(&p, &k, 512, "enabled=never"), -EEXIST);
	assert_int_equal(plan_add_arg(&p, &k, 512, "noequals"), -EINVAL);
	assert_int_equal(plan_add_arg(&p, &k, 512, "=x"), -EINVAL);
	assert_int_equal(plan_add_arg(&p, &k, 512, "../x=1"), -EINVAL);
	/* a per-size counter is read-only, not "no such knob" (the file exists) */
	assert_int_equal(plan_add_arg(&p, &k, 512, "hugepages-2048kB/stats/nr_anon=1"), -EACCES);
	/* a choice file with no [selection] is damaged: its old value unknown (unreadable), never
	 * validated as a number ("'madvise' is not an unsigned integer") */
	{
		static struct thp_knobs d;
		static struct settings_plan q;
		memset(&d, 0, sizeof(d));
		d.present = true;
		add(&d, "enabled", "always madvise never", true);
		plan_init(&q);
		assert_int_equal(plan_add_arg(&q, &d, 512, "enabled=madvise"), -EIO);
		assert_int_equal(q.bad[0].why, PN_UNREADABLE);
	}
	/* but only for a size this kernel has: no hugepages-4kB/ here */
	assert_int_equal(plan_add_arg(&p, &k, 512, "hugepages-4kB/stats/nr_anon=1"), -ENOENT);
	assert_int_equal(p.nbad, 9);
	assert_int_equal(p.bad[7].why, PN_READ_ONLY);
	assert_int_equal(p.bad[8].why, PN_NO_SUCH_KNOB);
	assert_string_equal(p.bad[0].key, "defrag");
	assert_int_equal(p.bad[0].why, PN_BAD_VALUE);
	assert_int_equal(p.bad[0].bad.kind, KB_NOT_OFFERED);
	assert_int_equal(p.bad[1].why, PN_READ_ONLY);
	assert_int_equal(p.bad[2].why, PN_NO_SUCH_KNOB);
	assert_int_equal(p.bad[3].why, PN_TWICE);
	assert_int_equal(p.bad[4].why, PN_NOT_KEY_VALUE);
	assert_int_equal(p.bad[6].why, PN_NOT_A_KNOB);
	char t[PLAN_NOTE_LEN];
	plan_note_text(&p.bad[1], t, sizeof(t));
	assert_string_equal(t, "read-only (a counter or a fixed value)");
	plan_note_text(&p.bad[3], t, sizeof(t));
	assert_string_equal(t, "given twice");
	plan_note_text(&p.bad[4], t, sizeof(t));
	assert_string_equal(t, "not KEY=VALUE");
	/* the valid entry stays in the plan, but the command writes nothing when nbad > 0 */
	assert_int_equal(p.n, 1);
}

static void test_plan_unknown_key_names_the_knob_meant(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct settings_plan p;
	knobs_618(&k);
	plan_init(&p);
	assert_int_equal(plan_add_arg(&p, &k, 512, "max_ptes_none=64"), -ENOENT);
	assert_int_equal(plan_add_arg(&p, &k, 512, "no_such_thing=1"), -ENOENT);
	assert_int_equal(p.nbad, 2);
	assert_string_equal(p.bad[0].meant, "khugepaged/max_ptes_none");
	assert_string_equal(p.bad[1].meant, "");
	char t[PLAN_NOTE_LEN];
	plan_note_text(&p.bad[0], t, sizeof(t));
	assert_string_equal(t, "no such knob; did you mean khugepaged/max_ptes_none?");
	plan_note_text(&p.bad[1], t, sizeof(t));
	assert_string_equal(t, "no such knob on this kernel");
}

static void test_plan_missing_ok(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct settings_plan p;
	knobs_618(&k);
	plan_init(&p);
	/* a snapshot from another kernel: knobs this one lacks are skipped, not errors */
	assert_int_equal(plan_add(&p, &k, 512, "hugepages-16kB/enabled", "never", true), -ENOENT);
	assert_int_equal(plan_add(&p, &k, 512, "khugepaged/pages_collapsed", "3", true), -EACCES);
	assert_int_equal(plan_add(&p, &k, 512, "enabled", "madvise", true), 0);
	assert_int_equal(p.nbad, 0);
	assert_int_equal(p.nskip, 2);
	assert_string_equal(p.skip[0].key, "hugepages-16kB/enabled");
	assert_int_equal(p.skip[0].why, PN_NOT_ON_KERNEL);
	assert_int_equal(p.skip[1].why, PN_READ_ONLY_HERE);
	assert_int_equal(p.n, 1);
	assert_int_equal(plan_changes(&p), 0);
}

/* A knob whose file is there but could not be read: refused by name as unreadable (set and
 * restore alike), never "not on this kernel" or "no such knob"; a snapshot lists it as bad. */
static void test_plan_unreadable_knob(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct settings_plan p;
	knobs_618(&k);
	/* defrag's file could not be read: not among the knobs, named in unread */
	for (int i = 0; i < k.n; i++)
		if (strcmp(k.k[i].key, "defrag") == 0) {
			k.k[i] = k.k[--k.n];
			break;
		}
	snprintf(k.unread[k.nunread++], sizeof(k.unread[0]), "defrag");
	k.nbad++;
	plan_init(&p);
	assert_int_equal(plan_add(&p, &k, 512, "defrag", "never", true), -EIO);
	assert_int_equal(p.nbad, 1);
	assert_int_equal(p.nskip, 0);
	assert_int_equal(p.bad[0].why, PN_UNREADABLE);
	plan_init(&p);
	assert_int_equal(plan_add_arg(&p, &k, 512, "defrag=never"), -EIO);
	assert_int_equal(p.bad[0].why, PN_UNREADABLE);
	static struct snapshot s;
	int nbad;
	assert_int_equal(snapshot_from_knobs(&k, &s, &nbad), -EINVAL);
	assert_int_equal(nbad, 1);
	assert_string_equal(s.bad[s.nbad - 1], "defrag");
}

/* After a failed write, an entry the rollback could not put back is said still changed, not
 * shown as a plain "old -> new" beside "rolled back". */
static void test_plan_not_put_back_is_marked(UNIT_STATE)
{
	static struct settings_plan p;
	plan_init(&p);
	p.n = 3;
	snprintf(p.e[0].key, sizeof(p.e[0].key), "khugepaged/max_ptes_none");
	snprintf(p.e[0].old, sizeof(p.e[0].old), "511");
	snprintf(p.e[0].new, sizeof(p.e[0].new), "100");
	p.e[0].state = PS_NOT_PUT_BACK;
	p.e[1] = p.e[0];
	snprintf(p.e[1].key, sizeof(p.e[1].key), "khugepaged/max_ptes_swap");
	p.e[1].state = PS_ROLLED_BACK;
	p.e[2] = p.e[0];
	snprintf(p.e[2].key, sizeof(p.e[2].key), "khugepaged/max_ptes_shared");
	p.e[2].state = PS_FAILED;
	p.e[2].err = -EIO;
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);
	plan_render_text(f, &p, false);
	fclose(f);
	assert_contains(t, "khugepaged/max_ptes_none: 511 -> 100 NOT PUT BACK: still changed "
			   "(journalled)\n");
	assert_contains(t, "khugepaged/max_ptes_swap: 511 -> 100 (rolled back to 511)\n");
	assert_string_equal(plan_state_name(PS_NOT_PUT_BACK), "not-put-back");
	free(t);
}

static void test_plan_no_thp(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct settings_plan p;
	memset(&k, 0, sizeof(k));
	plan_init(&p);
	assert_int_equal(plan_add_arg(&p, &k, 0, "enabled=never"), -ENOENT);
	assert_int_equal(p.bad[0].why, PN_NO_THP);
	char t[PLAN_NOTE_LEN];
	plan_note_text(&p.bad[0], t, sizeof(t));
	assert_string_equal(t, "this kernel has no transparent_hugepage/ (THP not built in)");
}

static void test_pmd_nr(UNIT_STATE)
{
	struct thp_knobs k = {0};
	assert_int_equal(thp_knobs_pmd_nr(&k, 4096), 0);
	k.pmd_size = 2097152;
	assert_int_equal(thp_knobs_pmd_nr(&k, 4096), 512);
	assert_int_equal(thp_knobs_pmd_nr(&k, 0), 512); /* derived: 4 KiB pages */
	k.pmd_size = 512ull << 20;
	assert_int_equal(thp_knobs_pmd_nr(&k, 0), 8192); /* arm64 64K */
	k.pmd_size = 32ull << 20;
	assert_int_equal(thp_knobs_pmd_nr(&k, 0), 2048); /* 16K pages */
	k.pmd_size = 3ull << 20;
	assert_int_equal(thp_knobs_pmd_nr(&k, 0), 0);
}

static void test_snapshot_roundtrip(UNIT_STATE)
{
	static struct thp_knobs k;
	static struct snapshot s, back;
	int nbad;
	knobs_618(&k);
	assert_int_equal(snapshot_from_knobs(&k, &s, &nbad), 0);
	assert_int_equal(nbad, 0);
	assert_int_equal(s.n, 17); /* 20 files, 3 read-only */
	assert_string_equal(s.kv[0].key, "defrag");
	assert_string_equal(s.kv[0].value, "madvise");
	snprintf(s.kernel, sizeof(s.kernel), "6.18.44");
	snprintf(s.date, sizeof(s.date), "2025-01-01T00:00:00Z");
	json_t *j = snapshot_to_json(&s);
	assert_non_null(j);
	char *text = json_dumps(j, JSON_PRESERVE_ORDER);
	json_decref(j);
	json_error_t je;
	json_t *r = json_loads(text, 0, &je);
	free(text);
	char why[200];
	assert_int_equal(snapshot_from_json(r, &back, why, sizeof(why)), 0);
	json_decref(r);
	assert_int_equal(back.n, s.n);
	for (int i = 0; i < s.n; i++) {
		assert_string_equal(back.kv[i].key, s.kv[i].key);
		assert_string_equal(back.kv[i].value, s.kv[i].value);
	}
	assert_string_equal(back.kernel, "6.18.44");
	static struct snap_diff d[8];
	assert_int_equal(snapshot_diff(&s, &back, d, 8), 0);

	/* defrag unreadable now (a damaged file): the diff says so, not "not on this kernel" */
	static struct thp_knobs kd;
	static struct snapshot now;
	knobs_618(&kd);
	snprintf(kd.k[0].raw, sizeof(kd.k[0].raw), "%s", "always [defer");
	assert_int_equal(snapshot_from_knobs(&kd, &now, &nbad), -EINVAL);
	assert_int_equal(nbad, 1);
	assert_int_equal(now.nbad, 1);
	assert_string_equal(now.bad[0], "defrag");
	assert_int_equal(snapshot_diff(&s, &now, d, 8), 1);
	assert_string_equal(d[0].key, "defrag");
	assert_string_equal(d[0].file, "madvise");
	assert_string_equal(d[0].cur, "");
	assert_true(d[0].cur_unreadable);
	/* a knob this kernel lacks is not unreadable */
	now.nbad = 0;
	assert_int_equal(snapshot_diff(&s, &now, d, 8), 1);
	assert_false(d[0].cur_unreadable);
}

static void test_snapshot_bad_json(UNIT_STATE)
{
	static struct snapshot s;
	char why[200];
	static const char *const bad[] = {
		"[]",
		"{\"knobs\": {}}",
		"{\"thpctl_snapshot\": 2, \"knobs\": {}}",
		"{\"thpctl_snapshot\": 1}",
		"{\"thpctl_snapshot\": 1, \"knobs\": {\"enabled\": true}}",
		"{\"thpctl_snapshot\": 1, \"knobs\": {\"x\": -1}}",
	};
	for (size_t i = 0; i < UNIT_LEN(bad); i++) {
		json_error_t je;
		json_t *r = json_loads(bad[i], 0, &je);
		assert_non_null(r);
		if (snapshot_from_json(r, &s, why, sizeof(why)) != -EINVAL)
			fail_msg("accepted %s", bad[i]);
		assert_true(why[0] != '\0');
		json_decref(r);
	}
	json_error_t je;
	json_t *r = json_loads("{\"thpctl_snapshot\": 1, \"knobs\": {\"khugepaged/pages_to_scan\": "
			       "4096, \"enabled\": \"never\"}}",
			       0, &je);
	assert_int_equal(snapshot_from_json(r, &s, why, sizeof(why)), 0);
	json_decref(r);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.kv[0].value, "4096");
}

/* A key seen twice is damage (the last one used to win silently): refused, the key named */
static void test_snapshot_parse_duplicate_key(UNIT_STATE)
{
	char why[300];
	static const char dup[] = "{\"thpctl_snapshot\": 1, \"knobs\": {\"defrag\": \"madvise\",\n"
				  "\"defrag\": \"never\"}}";
	assert_null(snapshot_parse(dup, strlen(dup), why, sizeof(why)));
	assert_string_equal(why, "line 2: the key \"defrag\" is given twice (a damaged snapshot)");
	/* a long key (jansson does not quote it), with an escaped quote and a control in it */
	static const char lng[] =
		"{\"thpctl_snapshot\": 1, \"knobs\": {\"khugepaged/a_long_\\\"name\\u001b_of_a_knob\": 1, "
		"\"khugepaged/a_long_\\\"name\\u001b_of_a_knob\": 2}}";
	assert_null(snapshot_parse(lng, strlen(lng), why, sizeof(why)));
	assert_string_equal(
		why,
		"line 1: the key \"khugepaged/a_long_\"name\x1b_of_a_knob\" is given twice (a damaged snapshot)");
	/* at the top level too */
	static const char top[] = "{\"thpctl_snapshot\": 1, \"thpctl_snapshot\": 1, \"knobs\": {}}";
	assert_null(snapshot_parse(top, strlen(top), why, sizeof(why)));
	assert_non_null(strstr(why, "\"thpctl_snapshot\" is given twice"));
	/* other damage keeps jansson's reason and line */
	static const char bad[] = "{\n\"a\": }";
	assert_null(snapshot_parse(bad, strlen(bad), why, sizeof(why)));
	assert_int_equal(strncmp(why, "line 2: ", 8), 0);
	json_t *r = snapshot_parse("{\"a\": 1, \"b\": 2}", 16, why, sizeof(why));
	assert_non_null(r);
	json_decref(r);
}

/* A snapshot of the N (key, value) pairs KV, in that order. */
static void fill_snapshot(struct snapshot *s, const char *const kv[][2], int n)
{
	s->n = n;
	for (int i = 0; i < n; i++) {
		snprintf(s->kv[i].key, KNOB_KEY_LEN, "%s", kv[i][0]);
		snprintf(s->kv[i].value, PLAN_VALUE_LEN, "%s", kv[i][1]);
	}
}

static void test_snapshot_diff(UNIT_STATE)
{
	static struct snapshot a, b;
	static struct snap_diff d[8];
	fill_snapshot(&a,
		      (const char *const[][2]){{"enabled", "always"},
					       {"defrag", "madvise"},
					       {"hugepages-16kB/enabled", "never"}},
		      3);
	fill_snapshot(&b,
		      (const char *const[][2]){{"defrag", "madvise"},
					       {"enabled", "madvise"},
					       {"shrink_underused", "1"}},
		      3);
	assert_int_equal(snapshot_diff(&a, &b, d, 8), 3);
	assert_string_equal(d[0].key, "enabled");
	assert_string_equal(d[0].file, "always");
	assert_string_equal(d[0].cur, "madvise");
	assert_string_equal(d[1].key, "hugepages-16kB/enabled");
	assert_string_equal(d[1].cur, ""); /* not on this kernel */
	assert_string_equal(d[2].key, "shrink_underused");
	assert_string_equal(d[2].file, ""); /* not in the file */
	assert_int_equal(snapshot_diff(&a, &b, d, 1), 1);
}

/* The walk over a recorded tree: order, writability from the recorded modes, no stats/. */
static void test_knobs_fixture(UNIT_STATE)
{
	struct sysroot sr;
	if (sysroot_open(&sr, "tests/fixtures/linux-6.18-x86")) {
		skip();
		return;
	}
	static struct thp_knobs k;
	assert_int_equal(thp_knobs_read(&sr, &k), 0);
	sysroot_close(&sr);
	assert_true(k.present);
	assert_int_equal(k.pmd_size, 2097152);
	assert_true(k.n > 20);
	/* top level first, then khugepaged/, then sizes ascending */
	int last_group = 0;
	for (int i = 0; i < k.n; i++) {
		int g = strncmp(k.k[i].key, "khugepaged/", 11) == 0  ? 1
			: strncmp(k.k[i].key, "hugepages-", 10) == 0 ? 2
								     : 0;
		assert_true(g >= last_group);
		last_group = g;
		assert_null(strstr(k.k[i].key, "stats"));
	}
	const struct thp_knob *e = thp_knobs_find(&k, "hpage_pmd_size");
	assert_non_null(e);
	assert_false(e->writable);
	e = thp_knobs_find(&k, "khugepaged/pages_collapsed");
	assert_non_null(e);
	assert_false(e->writable);
	e = thp_knobs_find(&k, "enabled");
	assert_non_null(e);
	assert_true(e->writable);
	const struct thp_knob *a = thp_knobs_find(&k, "hugepages-8kB/shmem_enabled"),
			      *b = thp_knobs_find(&k, "hugepages-2048kB/enabled");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a < b);
}

/* The keys a snapshot could not read, joined for a message; cut at a whole key, never half. */
static void test_snapshot_bad_names(UNIT_STATE)
{
	static struct snapshot s;
	char out[64];
	assert_string_equal(snapshot_bad_names(&s, out, sizeof(out)), "");
	snprintf(s.bad[0], sizeof(s.bad[0]), "defrag");
	snprintf(s.bad[1], sizeof(s.bad[1]), "enabled");
	s.nbad = 2;
	assert_string_equal(snapshot_bad_names(&s, out, sizeof(out)), "defrag, enabled");
	assert_string_equal(snapshot_bad_names(&s, out, 12), "defrag");
	assert_string_equal(snapshot_bad_names(&s, out, 4), "");
}

UNIT_TESTS(test_validate_table, test_kind_and_value, test_key_normalize, test_plan_all_valid,
	   test_plan_json_shell, test_plan_one_invalid_spoils_all,
	   test_plan_unknown_key_names_the_knob_meant, test_plan_missing_ok,
	   test_plan_unreadable_knob, test_plan_not_put_back_is_marked, test_plan_no_thp,
	   test_pmd_nr, test_snapshot_roundtrip, test_snapshot_bad_json,
	   test_snapshot_parse_duplicate_key, test_snapshot_diff, test_knobs_fixture,
	   test_snapshot_bad_names)
