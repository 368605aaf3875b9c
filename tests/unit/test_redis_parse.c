// SPDX-License-Identifier: MIT
/* Unit tests: the parsers of src/lab/redis_srv.c (redis-benchmark --csv, INFO fields, PATH). */
#include "unit.h"

#include <errno.h>
#include <stdlib.h>

#include "lab/redis_srv.h"

/* Redis 7.0.15's redis-benchmark -t set,get --csv, as printed on this project's host. */
static const char csv70[] =
	"\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n"
	"\"SET\",\"32499.19\",\"1.165\",\"0.136\",\"0.623\",\"4.311\",\"6.775\",\"32.671\"\n"
	"\"GET\",\"34129.69\",\"1.047\",\"0.112\",\"0.591\",\"3.991\",\"6.135\",\"14.791\"\n";

static void test_csv_columns_found_by_header(UNIT_STATE)
{
	struct bench_row set, get;
	assert_int_equal(redis_parse_csv(csv70, &set, &get), 2);
	assert_true(set.present && get.present);
	assert_true(set.rps == 32499.19 && set.p50_ms == 0.623 && set.p99_ms == 6.775 &&
		    set.max_ms == 32.671);
	assert_true(get.rps == 34129.69 && get.p99_ms == 6.135 && get.max_ms == 14.791);
	/* columns in another order: still by name */
	const char *swapped =
		"\"test\",\"p99_latency_ms\",\"rps\",\"max_latency_ms\",\"p50_latency_ms\"\r\n"
		"\"GET\",\"2.5\",\"1000\",\"9\",\"1.5\"\r\n";
	assert_int_equal(redis_parse_csv(swapped, &set, &get), 1);
	assert_false(set.present);
	assert_true(get.rps == 1000 && get.p99_ms == 2.5 && get.p50_ms == 1.5 && get.max_ms == 9);
}

static void test_csv_without_latencies_or_header_is_not_a_row(UNIT_STATE)
{
	struct bench_row set, get;
	/* Redis 6.0 printed only "test","rps": no p99, so no row (never a plausible 0) */
	assert_int_equal(redis_parse_csv("\"SET\",\"1000.00\"\n\"GET\",\"900.00\"\n", &set, &get),
			 0);
	assert_int_equal(redis_parse_csv("\"test\",\"rps\"\n\"SET\",\"1000.00\"\n", &set, &get), 0);
	assert_false(set.present || get.present);
	/* a damaged number */
	char bad[sizeof(csv70)];
	memcpy(bad, csv70, sizeof(csv70));
	char *p = strstr(bad, "6.775");
	p[1] = 'x';
	assert_int_equal(redis_parse_csv(bad, &set, &get), 1);
	assert_false(set.present);
	assert_true(get.present);
	assert_int_equal(redis_parse_csv("", &set, &get), 0);
}

static void test_info_fields_whole_names_only(UNIT_STATE)
{
	const char info[] =
		"# Persistence\r\nrdb_bgsave_in_progress:0\r\nrdb_last_cow_size:95395840\r\n"
		"aof_last_cow_size:0\r\nrdb_last_bgsave_status:ok\r\n# Stats\r\n"
		"latest_fork_usec:691\r\ncmdstat_set:calls=462144,usec=1\r\n";
	uint64_t v = 7;
	assert_true(redis_info_u64(info, "rdb_last_cow_size", &v));
	assert_int_equal(v, 95395840);
	assert_true(redis_info_u64(info, "latest_fork_usec", &v));
	assert_int_equal(v, 691);
	/* "last_cow_size" is only the tail of a field name */
	v = 7;
	assert_false(redis_info_u64(info, "last_cow_size", &v));
	assert_false(redis_info_u64(info, "rdb_last_bgsave_status", &v)); /* not a number */
	assert_int_equal(v, 7);
	char s[32];
	assert_true(redis_info_str(info, "rdb_last_bgsave_status", s, sizeof(s)));
	assert_string_equal(s, "ok");
	assert_true(redis_info_str(info, "cmdstat_set", s, sizeof(s)));
	assert_string_equal(s, "calls=462144,usec=1");
	assert_false(redis_info_str(info, "used_memory", s, sizeof(s)));
}

static void test_find_searches_path_in_order(UNIT_STATE)
{
	char out[256];
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent-thpctl:/bin:/usr/bin", 1);
	assert_int_equal(redis_find("sh", out, sizeof(out)), 0);
	assert_string_equal(out, "/bin/sh");
	setenv("PATH", "/nonexistent-thpctl", 1);
	assert_int_equal(redis_find("sh", out, sizeof(out)), -ENOENT);
	assert_string_equal(out, "");
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

UNIT_TESTS(test_csv_columns_found_by_header, test_csv_without_latencies_or_header_is_not_a_row,
	   test_info_fields_whole_names_only, test_find_searches_path_in_order)
