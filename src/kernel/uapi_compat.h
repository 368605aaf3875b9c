/* SPDX-License-Identifier: MIT */
/*
 * Kernel constants newer than the build headers (Debian 12 ships 6.1 uapi).
 * Only #ifndef fallbacks live here, with the kernel that introduced them.
 */
#ifndef THPCTL_UAPI_COMPAT_H
#define THPCTL_UAPI_COMPAT_H

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14 /* 2.6.38 */
#endif
#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE 15 /* 2.6.38 */
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* 6.1, 7d8faaf15545 */
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* 5.14, 4ca9b3859dac */
#endif
#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41 /* 3.15 */
#endif
#ifndef PR_GET_THP_DISABLE
#define PR_GET_THP_DISABLE 42
#endif
#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1UL << 1) /* 6.18, abeccf210014 */
#endif
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41 /* 5.17 */
#endif
#ifndef PR_SET_VMA_ANON_NAME
#define PR_SET_VMA_ANON_NAME 0
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434 /* 5.3 */
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424 /* 5.1 */
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440 /* 5.10 */
#endif

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_ANON_BIT 12
#define KPF_COMPOUND_HEAD_BIT 15
#define KPF_COMPOUND_TAIL_BIT 16
#define KPF_HUGE_BIT 17
#define KPF_THP_BIT 22
#define KPF_ZERO_PAGE_BIT 24

/*
 * PAGEMAP_SCAN (6.7, 52526ca7fdb9): an ioctl on /proc/PID/pagemap returning
 * ranges of pages by category, without CAP_SYS_ADMIN. Debian 12's 6.1
 * <linux/fs.h> lacks it; the layout is fixed by the size check in the kernel
 * (pm_scan_arg.size), so these compat structs are the same ABI under other names.
 */
#include <stdint.h>
#include <sys/ioctl.h>

struct pm_page_region_compat {
	uint64_t start, end, categories;
};
struct pm_scan_arg_compat {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#ifndef PAGEMAP_SCAN
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg_compat)
#endif
#ifndef PAGE_IS_PRESENT
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_FILE (1 << 2)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PAGE_IS_PFNZERO (1 << 5)
#define PAGE_IS_HUGE (1 << 6) /* PMD-mapped THP and hugetlb only, never PTE-mapped mTHP */
#endif

#endif
