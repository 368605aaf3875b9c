/* SPDX-License-Identifier: MIT */
/*
 * The sampler moved to kernel/sample.h (it reads files). This header stays
 * only for cmd/exporter.c, which includes it: drop it once that include is
 * switched to "../kernel/sample.h".
 */
#ifndef THPCTL_MODEL_SAMPLE_H
#define THPCTL_MODEL_SAMPLE_H

#include "../kernel/sample.h"

#endif
