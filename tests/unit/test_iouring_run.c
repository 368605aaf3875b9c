// SPDX-License-Identifier: MIT
/* Unit tests: fio's --output-format=json as src/lab/iouring_run.c reads it. */
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "lab/iouring_run.h"

/* fio 3.33 (Debian 12), io_uring 4k randread QD32 on this project's host, cut to the fields read. */
static const char fio333[] =
	"{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"r\", \"error\": 0, "
	"\"job_runtime\": 2000, \"usr_cpu\": 4.25, \"sys_cpu\": 42.0, \"read\": {\"io_bytes\": "
	"682786816, \"total_ios\": 166696, \"runtime\": 2001, \"iops\": 83306.346827, "
	"\"clat_ns\": {\"min\": 110, \"percentile\": {\"50.000000\": 346112, \"99.000000\": "
	"626688, \"99.900000\": 4882432}}}}]}\n";

static void test_fio_job_figures(UNIT_STATE)
{
	struct fio_res r;
	assert_int_equal(fio_parse(fio333, strlen(fio333), &r), 0);
	assert_true(r.ok);
	assert_int_equal(r.error, 0);
	assert_true(r.iops == 83306.346827);
	assert_true(r.ios == 166696);
	assert_true(fabs(r.p99_us - 626.688) < 1e-9);
	assert_true(r.runtime_s == 2.0);
	/* (4.25 + 42.0) % of 2000 ms over 166.696 thousand reads */
	assert_true(fabs(r.cpu_ms_k - 0.4625 * 2000 / 166.696) < 1e-9);
}

static void test_fio_notes_before_the_json_are_skipped(UNIT_STATE)
{
	char text[1024];
	snprintf(text, sizeof(text),
		 "note: both iodepth >= 1 and synchronous I/O engine are "
		 "selected, queue depth will be capped at 1\n%s",
		 fio333);
	struct fio_res r;
	assert_int_equal(fio_parse(text, strlen(text), &r), 0);
	assert_true(r.ok && r.ios == 166696);
}

static void test_fio_failed_job_is_not_ok(UNIT_STATE)
{
	/* fio writes a job that could not start (err=22) with error set and no I/O */
	const char *bad = "fio: pid=1, err=22/file:filesetup.c:805, func=open, error=Invalid "
			  "argument\n{\"jobs\": [{\"error\": 22, \"job_runtime\": 0, \"usr_cpu\": "
			  "0.0, \"sys_cpu\": 0.0, \"read\": {\"total_ios\": 0, \"iops\": 0.0, "
			  "\"clat_ns\": {\"percentile\": {\"99.000000\": 0}}}}]}";
	struct fio_res r;
	assert_int_equal(fio_parse(bad, strlen(bad), &r), 0);
	assert_false(r.ok);
	assert_int_equal(r.error, 22);
	assert_true(r.p99_us == -1);   /* no reads: no latency, not 0 */
	assert_true(r.cpu_ms_k == -1); /* no runtime: unknown, not 0 */
}

static void test_fio_clat_it_contradicts_is_suspect(UNIT_STATE)
{
	/* fio 3.33, io_uring with sqthread_poll=1: a clat maximum above the whole latency's
	 * (lat = slat + clat) and a p99 of 17.1 s in an 8 s job: not a completion latency */
	const char *sq = "{\"jobs\": [{\"error\": 0, \"job_runtime\": 8001, \"usr_cpu\": 1.0, "
			 "\"sys_cpu\": 2.0, \"read\": {\"total_ios\": 885416, \"iops\": 110677.0, "
			 "\"clat_ns\": {\"max\": 17179869184, \"percentile\": {\"99.000000\": "
			 "17112760320}}, \"lat_ns\": {\"max\": 9175040}}}]}";
	struct fio_res r;
	assert_int_equal(fio_parse(sq, strlen(sq), &r), 0);
	assert_true(r.ok);
	assert_true(r.p99_us == -1); /* unknown, never the impossible figure */
	assert_true(fabs(r.p99_suspect_us - 17112760.32) < 1e-6);
	assert_true(r.clat_max_us == 17179869.184 && r.lat_max_us == 9175.04);
	/* only the maxima disagree: a p99 inside the run is still suspect */
	const char *mx = "{\"jobs\": [{\"error\": 0, \"job_runtime\": 8001, \"read\": "
			 "{\"total_ios\": 10, \"iops\": 1.0, \"clat_ns\": {\"max\": 900, "
			 "\"percentile\": {\"99.000000\": 500}}, \"lat_ns\": {\"max\": 800}}}]}";
	assert_int_equal(fio_parse(mx, strlen(mx), &r), 0);
	assert_true(r.p99_us == -1 && r.p99_suspect_us == 0.5);
	/* only the run: a p99 past 8.001 s with no lat_ns at all */
	const char *rt = "{\"jobs\": [{\"error\": 0, \"job_runtime\": 8001, \"read\": "
			 "{\"total_ios\": 10, \"iops\": 1.0, \"clat_ns\": {\"percentile\": "
			 "{\"99.000000\": 8002000000}}}}]}";
	assert_int_equal(fio_parse(rt, strlen(rt), &r), 0);
	assert_true(r.p99_us == -1 && r.p99_suspect_us == 8002000);
	assert_true(r.clat_max_us == -1 && r.lat_max_us == -1); /* absent: unknown, not 0 */
	/* a clat max equal to lat's and a p99 within the run: as fio gave it */
	const char *ok = "{\"jobs\": [{\"error\": 0, \"job_runtime\": 8001, \"read\": "
			 "{\"total_ios\": 10, \"iops\": 1.0, \"clat_ns\": {\"max\": 800, "
			 "\"percentile\": {\"99.000000\": 8001000000}}, \"lat_ns\": {\"max\": "
			 "800}}}]}";
	assert_int_equal(fio_parse(ok, strlen(ok), &r), 0);
	assert_true(r.p99_us == 8001000 && r.p99_suspect_us == -1);
}

static void test_fio_not_a_document(UNIT_STATE)
{
	struct fio_res r;
	assert_int_equal(fio_parse("", 0, &r), -EINVAL);
	assert_int_equal(fio_parse("fio: no such engine\n", 20, &r), -EINVAL);
	const char *nojobs = "{\"fio version\": \"fio-3.33\"}";
	assert_int_equal(fio_parse(nojobs, strlen(nojobs), &r), -EINVAL);
	const char *noread = "{\"jobs\": [{\"error\": 0, \"write\": {\"iops\": 5}}]}";
	assert_int_equal(fio_parse(noread, strlen(noread), &r), -EINVAL);
	const char *strs =
		"{\"jobs\": [{\"error\": 0, \"read\": {\"iops\": \"5\", \"total_ios\": 1}}]}";
	assert_int_equal(fio_parse(strs, strlen(strs), &r), -EINVAL);
	/* cut in the middle */
	assert_int_equal(fio_parse(fio333, 100, &r), -EINVAL);
	assert_false(r.ok);
}

UNIT_TESTS(test_fio_job_figures, test_fio_notes_before_the_json_are_skipped,
	   test_fio_failed_job_is_not_ok, test_fio_clat_it_contradicts_is_suspect,
	   test_fio_not_a_document)
