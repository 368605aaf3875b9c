/* SPDX-License-Identifier: MIT */
/*
 * Sizes in words, two styles with two names:
 *  - fmt_kb/fmt_bytes: for people, rounded, with a space ("512 kB", "12.0 MiB");
 *  - fmt_size_token: exact and compact, the token the kernel's command line
 *    and sysfs names use ("64K", "2M", "1G").
 * And parse_size, which reads the second style (and KiB/MB forms) back.
 */
#ifndef THPCTL_UTIL_UNITS_H
#define THPCTL_UTIL_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Human size of KB kilobytes: "512 kB", "12.0 MiB", "3.50 GiB", "12.00 TiB". */
void fmt_kb(char *out, size_t n, uint64_t kb);

/* Human size of B bytes: "100 B" below 10 KiB when not whole KiB, else as fmt_kb. */
void fmt_bytes(char *out, size_t n, uint64_t b);

/*
 * KB kilobytes as an exact token in the largest unit that divides it:
 * "64K", "2M", "1G", "1536K" ("0K" for 0): hugepagesz=, thp_anon=, lab labels.
 */
void fmt_size_token(char *out, size_t n, uint64_t kb);

/*
 * "64M" -> bytes: a decimal number with an optional k, M, G or T (any case,
 * powers of 1024), which may be followed by "i" and then "B"/"b" ("64KiB",
 * "2MB", "4096b"). Returns 0, -EINVAL (malformed) or -ERANGE (above 2^64-1).
 */
int parse_size(const char *s, uint64_t *out);

/*
 * NUM of DEN as a percentage with DECIMALS decimals ("99.9%"), never rounded
 * onto an end it has not reached: a share with a failure in it (NUM < DEN)
 * gets more decimals until it is below 100 ("99.97%" for 112647 of 112679,
 * at most 6, then cut, not rounded: "99.999999%"), and a share with a success
 * in it (NUM > 0) is never "0.0%" the same way. DEN 0 gives "-". The one
 * formatter for success ratios in every output (status, lab, watch...).
 */
void fmt_pct(char *out, size_t n, uint64_t num, uint64_t den, int decimals);

/*
 * V with DECIMALS decimals, and up to 4 more while the printed value would reach or cross
 * PIVOT from V's side ("0.998", not "1.00", for the bound of an interval that excludes 1;
 * "0.04%", not "0.0%", for one that excludes 0). V equal to PIVOT prints as it is.
 */
void fmt_bound(char *out, size_t n, double v, double pivot, int decimals);

/*
 * A measured value, unit-less, as lab tables print it: whole or at least
 * 100 without decimals ("725", "12"), 10 to 100 with one ("93.4"), below
 * 10 with two ("0.42"); SIGN puts "+" before a value >= 0 (a delta). The
 * one formatter for a lab cell and the proof or verdict that repeats it.
 */
void fmt_measured(char *out, size_t n, double v, int sign);

/*
 * V (a rate or a count, >= 0) in at most 4 characters, for a narrow column, rounded to the
 * nearest: below 10 with one decimal when not whole ("0.3", "9.5"; a value above 0 that
 * rounds to 0 is "0.0", never "0"), whole up to 9999, then in thousands (k), millions (M),
 * billions (G), T, P, E: one decimal below 10 of the unit, else whole ("12k", "123k",
 * "1.2M", "45M"). "-" for a negative or NaN V. The one formatter for `thpctl watch`'s
 * narrow columns.
 */
void fmt_num_narrow(char *out, size_t n, double v);

/*
 * KB kilobytes in at most 4 characters, binary units as fmt_size_token's, rounded to the
 * nearest: "0", "512K", then MiB, GiB, TiB ... with one decimal below 10 of the unit, else
 * whole ("968M", "1.2G", "900G"); a value that would round to 1000 of a unit takes the
 * next one ("1.0G" for 1023.6 MiB).
 */
void fmt_kb_narrow(char *out, size_t n, uint64_t kb);

#endif
