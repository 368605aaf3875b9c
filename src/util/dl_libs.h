/* SPDX-License-Identifier: MIT */
/*
 * The small libraries loaded on first use (dl.h): zlib (/proc/config.gz,
 * kernel/kconfig.c), libyaml and libcrypt (the exporter's --web.config.file,
 * cmd/webconfig.c), libm (log10 for the report's log-scale charts, render/svg.c:
 * thpctl links no libm, whose loading cost each start ~0.07 ms). Their callers call through the tables below, filled by the
 * *_load() functions: 0, or -ENOENT with why in ERR (LEN bytes); each loads
 * once and later calls return the first result.
 */
#ifndef THPCTL_UTIL_DL_LIBS_H
#define THPCTL_UTIL_DL_LIBS_H

#include <stddef.h>

#include "dl.h"

#include <math.h>
#define LM_FUNCS(X) X(log10)
struct lm_api {
	LM_FUNCS(DL_SLOT)
};
extern struct lm_api lm;
int lm_load(char *err, size_t len);

#ifdef THPCTL_ZLIB
#include <zlib.h>
#define ZL_FUNCS(X) X(inflateInit2_) X(inflate) X(inflateEnd)
struct zl_api {
	ZL_FUNCS(DL_SLOT)
};
extern struct zl_api zl;
int zl_load(char *err, size_t len);
#endif

#ifdef THPCTL_HTTP
#include <crypt.h>
#include <yaml.h>
// clang-format off
#define YL_FUNCS(X) \
	X(yaml_parser_initialize) \
	X(yaml_parser_set_input_string) \
	X(yaml_parser_load) \
	X(yaml_parser_delete) \
	X(yaml_document_delete) \
	X(yaml_document_get_node) \
	X(yaml_document_get_root_node)
// clang-format on
struct yl_api {
	YL_FUNCS(DL_SLOT)
};
extern struct yl_api yl;
int yl_load(char *err, size_t len);

#define CR_FUNCS(X) X(crypt_rn)
struct cr_api {
	CR_FUNCS(DL_SLOT)
};
extern struct cr_api cr;
int cr_load(char *err, size_t len);
#endif

#endif
