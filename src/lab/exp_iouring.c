// SPDX-License-Identifier: MIT
/*
 * lab iouring: io_uring as an operator meets it, beside the THP claims it is
 * asked about with: kernel.io_uring_disabled, io_uring_setup(2) and SQPOLL
 * as the current user, the installed liburing2, then Debian's fio doing 4 KiB
 * random direct reads of one file in a private directory with psync, libaio,
 * io_uring and io_uring with SQPOLL (the async ones at the same queue depth).
 * Every engine runs whatever the probes said: the verdict is whether the
 * runs agree with the probes. Changes no setting.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../kernel/exe.h"
#include "../kernel/cpuinfo.h"
#include "../kernel/sysctl.h"
#include "../util/buf.h"
#include "common.h"
#include "child.h"
#include "iouring_run.h"
#include "redis_srv.h"

#define NE 4
#define QD 32
#define MAX_R 2 /* rounds: every engine once, in turn (quick: 1) */

static const char *const eng_label[NE] = {"psync", "libaio", "io_uring", "io_uring sqpoll"};
static const char *const eng_name[NE] = {"psync", "libaio", "io_uring", "io_uring"};
enum { E_PSYNC, E_LIBAIO, E_URING, E_SQPOLL };

static const struct lab_coldef cols[] = {
	{"IOPS", ""},
	{"clat p99", "us"},
	{"CPU per 1k IO", "ms"},
	{"iodepth", ""},
};

/* What the probes found. */
struct probes {
	char disabled[16]; /* kernel.io_uring_disabled, "" when the file is absent */
	int setup, sqpoll; /* uring_probe(): 0 or -errno */
	char liburing[48]; /* liburing2's version, "" not installed */
	bool guest;	   /* cpuinfo has the hypervisor flag */
	bool guest_known;
};

static const char *probe_word(int e)
{
	return e == 0 ? "ok" : e == -EPERM ? "EPERM" : e == -ENOSYS ? "ENOSYS" : strerror(-e);
}

static void probe(const struct lab_ctx *ctx, struct probes *p)
{
	memset(p, 0, sizeof(*p));
	if (sysctl_read_line(ctx->sr, "kernel", "io_uring_disabled", p->disabled,
			     sizeof(p->disabled)))
		p->disabled[0] = '\0';
	p->setup = uring_probe(0);
	p->sqpoll = uring_probe(IORING_SETUP_SQPOLL);
	struct dpkg_status d = {0};
	if (dpkg_installed_version(ctx->sr, &d, "liburing2", p->liburing, sizeof(p->liburing)))
		p->liburing[0] = '\0';
	dpkg_status_free(&d);
	p->guest_known = cpuinfo_has_flag(ctx->sr, "hypervisor", &p->guest) == 0;
}

/* The directory the signal hook removes (child.h: after fio is stopped), "" none. */
static char live_dir[128];

/* Async-signal-safe: fio's file and the probe, then the directory. */
static void on_fatal(void)
{
	if (!live_dir[0])
		return;
	int d = open(live_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d >= 0) {
		unlinkat(d, "data", 0);
		unlinkat(d, "probe", 0);
		close(d);
	}
	rmdir(live_dir);
}

/* The directory and its files removed now, and forgotten by the signal hook. */
static void dir_remove(void)
{
	on_fatal();
	live_dir[0] = '\0';
	child_at_signal(NULL);
}

/* A private directory under BASE whose files take O_DIRECT into DIR, the signal hook's from
 * mkdtemp on. 0 or -errno. */
static int try_dir(const char *base, char *dir, size_t n)
{
	snprintf(dir, n, "%s/thpctl-iouring.XXXXXX", base);
	if (!mkdtemp(dir))
		return -errno;
	snprintf(live_dir, sizeof(live_dir), "%s", dir);
	child_at_signal(on_fatal);
	char f[160];
	snprintf(f, sizeof(f), "%s/probe", dir);
	int fd = open(f, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0600);
	int e = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	unlink(f);
	if (e)
		dir_remove();
	return e;
}

/* $TMPDIR (or /tmp), else /var/tmp when that one refuses O_DIRECT (tmpfs before 6.6). */
static int pick_dir(char *dir, size_t n, char *note, size_t nn)
{
	const char *t = getenv("TMPDIR");
	if (!t || !*t || strlen(t) > 80)
		t = "/tmp";
	int e = try_dir(t, dir, n);
	if (e == -EINVAL) {
		lab_fmt(note, nn, "%s refuses O_DIRECT; ", t);
		e = try_dir("/var/tmp", dir, n);
	}
	return e;
}

static const char *fs_name(const char *dir)
{
	struct statfs s;
	if (statfs(dir, &s))
		return "?";
	switch ((unsigned long)s.f_type) {
	case 0xEF53:
		return "ext4";
	case 0x58465342:
		return "xfs";
	case 0x9123683E:
		return "btrfs";
	case 0x01021994:
		return "tmpfs";
	case 0x794c7630:
		return "overlayfs";
	default:
		return "other";
	}
}

/* The two claims from the runs RES[round][engine] of NR rounds and the probes P. */
static void claims(struct lab_result *r, const struct fio_res (*res)[NE], int nr,
		   const struct probes *p)
{
	char here[160], why[200];
	const struct fio_res *l = res[nr - 1];
	bool both = true;
	double q[MAX_R];
	for (int i = 0; i < nr; i++) {
		both &= res[i][E_URING].ok && res[i][E_LIBAIO].ok;
		q[i] = both && res[i][E_LIBAIO].iops > 0
			       ? res[i][E_URING].iops / res[i][E_LIBAIO].iops
			       : -1;
	}
	enum claim_call c = lab_claim_call(q, nr, false, 1.08, 1.03, why, sizeof(why));
	lab_fmt(here, sizeof(here),
		"%.0f (io_uring) vs %.0f IOPS (libaio), QD%d: %+.1f%% (last round)",
		l[E_URING].iops, l[E_LIBAIO].iops, QD, q[nr - 1] > 0 ? 100 * (q[nr - 1] - 1) : 0.0);
	if (!both)
		lab_claim(r, "io_uring +12% IOPS over libaio", "fio 4 KiB randread QD32, NVMe", "-",
			  CLAIM_INCONCLUSIVE, "a run failed (see proofs)");
	else
		lab_claim(r, "io_uring +12% IOPS over libaio", "fio 4 KiB randread QD32, NVMe",
			  here, c, "%s", why);
	lab_fmt(here, sizeof(here), "%s; SQPOLL io_uring_setup as uid %d: %s",
		!p->guest_known ? "guest unknown"
		: p->guest	? "a guest (cpuinfo hypervisor flag)"
				: "not a guest",
		(int)geteuid(), probe_word(p->sqpoll));
	/* a probe, not a comparison of modes run in turn: no rounds to agree */
	if (!p->guest_known || !p->guest || (p->sqpoll && p->sqpoll != -EPERM))
		lab_claim(r, "SQPOLL refused in VPS guests", "operators' reports of VPS guests",
			  here, CLAIM_INCONCLUSIVE, "%s",
			  !p->guest_known ? "cpuinfo unreadable"
			  : !p->guest	  ? "not a guest"
					  : "SQPOLL failed other than EPERM");
	else
		lab_claim(r, "SQPOLL refused in VPS guests", "operators' reports of VPS guests",
			  here, p->sqpoll ? CLAIM_CONFIRMED : CLAIM_CONTRADICTED,
			  "this guest %s SQPOLL (a refusal is EPERM)",
			  p->sqpoll ? "refused" : "allowed");
}

/* Column COL of engine K's result (0 IOPS, 1 clat p99, 2 CPU per 1k IO; -1 absent). */
static double fio_col(const struct fio_res *x, int col)
{
	return col == 0 ? x->iops : col == 1 ? x->p99_us : x->cpu_ms_k;
}

/* One cell from engine K's rounds: column COL of each round that ran (>= 0). */
static void round_cell(struct lab_result *r, int row, int col, const struct fio_res (*res)[NE],
		       int nr, int k)
{
	double v[MAX_R];
	size_t n = 0;
	for (int i = 0; i < nr; i++)
		if (res[i][k].ok && fio_col(&res[i][k], col) >= 0)
			v[n++] = fio_col(&res[i][k], col);
	lab_cell_set(r, row, col, v, n);
}

/* US microseconds as "8.1 s", "9.18 ms" or "453 us" into B. */
static const char *fmt_us(char *b, size_t n, double us)
{
	if (us >= 1e6)
		lab_fmt(b, n, "%.1f s", us / 1e6);
	else if (us >= 1e3)
		lab_fmt(b, n, "%.3g ms", us / 1e3);
	else
		lab_fmt(b, n, "%.0f us", us);
	return b;
}

/* Why engine LABEL's clat p99 (X) is left out: which of fio's own figures it contradicts. */
static void suspect_proof(struct lab_result *r, const char *label, const struct fio_res *x)
{
	char p[24], a[24], b[24];
	fmt_us(p, sizeof(p), x->p99_suspect_us);
	if (x->clat_max_us >= 0 && x->lat_max_us >= 0 && x->clat_max_us > x->lat_max_us)
		lab_proof(r, label,
			  "clat p99 left out (-): fio gave %s, but its clat maximum (%s) is above "
			  "its whole latency's (%s; lat = slat + clat): fio before 3.36 loses "
			  "issue times under SQPOLL (fio pull request 1594)",
			  p, fmt_us(a, sizeof(a), x->clat_max_us),
			  fmt_us(b, sizeof(b), x->lat_max_us));
	else
		lab_proof(r, label,
			  "clat p99 left out (-): fio gave %s, longer than the %.1f s the job "
			  "ran: not a completion latency of this run",
			  p, x->runtime_s);
}

/* Rows (medians over the NR rounds), probes, claims, the verdict. */
static void finish(struct lab_result *r, const struct fio_res (*res)[NE], int nr,
		   const struct probes *p)
{
	bool ran[NE];
	for (int k = 0; k < NE; k++) {
		ran[k] = true;
		for (int i = 0; i < nr; i++)
			ran[k] &= res[i][k].ok;
		if (!res[0][k].ok)
			continue;
		int row = lab_row_add(r, eng_label[k]);
		for (int c = 0; c < 3; c++)
			round_cell(r, row, c, res, nr, k);
		lab_cell_set1(r, row, 3, k == E_PSYNC ? 1 : QD);
	}
	for (int k = 0; k < NE; k++)
		for (int i = 0; i < nr; i++)
			if (res[i][k].p99_suspect_us >= 0) {
				suspect_proof(r, eng_label[k], &res[i][k]);
				break;
			}
	lab_proof(
		r, "probes",
		"kernel.io_uring_disabled %s; io_uring_setup %s; SQPOLL %s (uid %d); liburing2 %s",
		p->disabled[0] ? p->disabled : "- (no such sysctl: kernel < 6.6)",
		probe_word(p->setup), probe_word(p->sqpoll), (int)geteuid(),
		p->liburing[0] ? p->liburing : "not installed");
	claims(r, res, nr, p);
	bool agree = ran[E_URING] == (p->setup == 0) && ran[E_SQPOLL] == (p->sqpoll == 0);
	bool ok = agree && ran[E_PSYNC] && ran[E_LIBAIO];
	lab_verdict(r, ok,
		    "%sio_uring_setup %s and the io_uring run %s; SQPOLL %s and the sqpoll run %s; "
		    "psync %s, libaio %s; claims: IOPS %s, SQPOLL %s",
		    ok	    ? ""
		    : agree ? "UNEXPECTED: a baseline engine failed: "
			    : "UNEXPECTED: probes and runs disagree: ",
		    probe_word(p->setup), ran[E_URING] ? "ran" : "failed", probe_word(p->sqpoll),
		    ran[E_SQPOLL] ? "ran" : "failed", ran[E_PSYNC] ? "ran" : "failed",
		    ran[E_LIBAIO] ? "ran" : "failed", claim_call_name(r->claims[0].call),
		    claim_call_name(r->claims[1].call));
}

static int lab_iouring(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	char fio[256];
	if (redis_find("fio", fio, sizeof(fio))) {
		lab_skip_missing(
			r,
			"fio not found: install with scripts/install-deps --workloads (Debian: fio)");
		return 0;
	}
	uint64_t size;
	if (lab_begin(
		    ctx, o, 1ull << 30, r, &size,
		    "fio 4 KiB randread, direct: psync vs libaio vs io_uring (+SQPOLL), and the probes"))
		return 0;
	struct probes p;
	probe(ctx, &p);
	char dir[128], note[96] = "", file[160];
	int e = pick_dir(dir, sizeof(dir), note, sizeof(note));
	if (e) {
		lab_skip(r, "no private directory taking O_DIRECT: %s%s", note, strerror(-e));
		return 0;
	}
	snprintf(file, sizeof(file), "%s/data", dir);
	int secs = o->quick ? 8 : 30;
	int nr = o->quick ? 1 : MAX_R;
	r->runs = nr;
	lab_cols_add(r, cols, 4, NULL);
	static struct fio_res res[MAX_R][NE];
	memset(res, 0, sizeof(res));
	for (int i = 0; i < nr; i++)
		for (int kk = 0; kk < NE; kk++) {
			int k = i % 2 ? NE - 1 - kk : kk; /* ABCD DCBA: drift hits both sides */
			lab_progress_run(o, "iouring", size, eng_label[k], i, nr);
			struct fio_spec s = {eng_name[k],   k == E_PSYNC ? 1 : QD,
					     k == E_SQPOLL, file,
					     size,	    secs};
			char why[160] = "";
			if (fio_run(fio, &s, &res[i][k], why, sizeof(why)))
				lab_proof(r, eng_label[k], "failed: %s", why);
		}
	lab_progress_done(o);
	const char *fs = fs_name(dir);
	dir_remove();
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	lab_proof(
		r, "setup",
		"kernel %s; %s%s file in %s (%s, removed), 4 KiB randread direct=1, numjobs 1 (a thread: --thread), %d s each, %d round%s, fio %s",
		ctx->feat->release, note, sz, dir, fs, secs, nr, nr == 1 ? "" : "s", fio);
	finish(r, (const struct fio_res(*)[NE])res, nr, &p);
	return 0;
}

LAB_EXPERIMENT_DEFINE(
	"iouring", 240, lab_iouring,
	"io_uring probes (disabled sysctl, setup, SQPOLL) and fio psync/libaio/io_uring",
	.quick = {.size = (256ull << 20)}, .workload = true);
