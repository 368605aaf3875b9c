// SPDX-License-Identifier: MIT
#include "version.h"

#ifndef THPCTL_VERSION
#define THPCTL_VERSION "unknown"
#endif

const char *thpctl_version(void)
{
	return THPCTL_VERSION;
}
