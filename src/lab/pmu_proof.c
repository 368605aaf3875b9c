// SPDX-License-Identifier: MIT
#include "pmu_proof.h"

#include <string.h>

#include "../kernel/virt.h"
#include "../model/pmu.h"
#include "../render/pmu.h"
#include "../util/buf.h"

bool lab_cpu_intel(const struct lab_ctx *ctx)
{
	return pmu_host_intel(ctx->sr);
}

int lab_pmu_proof(const struct lab_ctx *ctx, struct lab_result *r, const char *key,
		  const struct pmu_value *v, uint64_t loads)
{
	struct virt_info vi;
	virt_read(ctx->sr, &vi);
	int err = pmu_probe();
	struct pmu_rates rates;
	if (v)
		pmu_rates_of(v, loads, &rates);
	char line[320];
	render_pmu_line(line, sizeof(line), err, vi.env, v ? &rates : NULL,
			strcmp(r->experiment, "tlb") == 0);
	lab_proof(r, key, "%s", line);
	return err;
}
