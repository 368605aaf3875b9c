/* SPDX-License-Identifier: MIT */
/* Internal to cmd/advise*.c: the per-process facts both files fill. */
#ifndef THPCTL_CMD_ADVISE_INT_H
#define THPCTL_CMD_ADVISE_INT_H

#include "../kernel/proc_read.h"
#include "../model/advice.h"
#include "ledger.h"

/*
 * P->exe, prog, and run (its program and arguments, exact, when intact and at
 * most RUN_ARGV_MAX bytes) or title, from PI's exe link, cmdline and environ
 * (EXE_ERR: whether the exe link was read). The program is argv[0] when it leads to the running
 * executable (kernel/argv0.h), else the exe.
 */
void advise_fill_args(const struct sysroot *sr, struct adv_proc *p, const struct proc_info *pi,
		      int exe_err);

/*
 * The ledger of every process of the live system SR into IN (flagged[],
 * others[], ledger_scan, systemd_thp), and the flagged cost of IN's
 * workload processes. Returns 0, -ENOMEM, or -errno of listing proc/.
 */
int advise_ledger(const struct sysroot *sr, struct adv_input *in);

/*
 * The remedy facts of process PID into RP, its ledger LED already computed
 * (why's last block): one more smaps walk for where its threads' stacks sit,
 * its environ, cmdline, exe and cgroup. POLICY: the PMD size's anon policy.
 * Returns 0, -ESRCH, -ENOMEM, or -errno of smaps.
 */
int advise_remedy_proc(const struct sysroot *sr, pid_t pid, const struct thp_ledger *led,
		       const char *policy, struct remedy_proc *rp);

#endif
