/* Generates profiler.c from templates/profiler.c.in: BT-Profiler for one
 * device (every stage on every PU, isolated and under interference). */
#include <stdio.h>
#include <stdlib.h>

#include "gen/gen.h"
#include "gen/sections.h"
#include "gen/template.h"
#include "util/escape.h"

/* The PUs the profiler measures, and which stages can run on each. */
static void emit_profiler_pus(struct btc_out *o, const void *p)
{
	const struct btc_gen_ctx *ctx = p;
	const struct btc_device *dev = ctx->dev;
	btc_outl(o, "struct profiler_pu {");
	btc_outl(o, "\tconst char *name;");
	btc_outl(o, "\tenum btrt_pu_kind kind;");
	btc_outl(o, "\tconst int *cores;");
	btc_outl(o, "\tuint32_t n_cores;");
	btc_outl(o, "\tint interferes; /* runs during other PUs' interference measurements */");
	btc_outl(o, "\tconst int *placed_cores; /* as the generated pipeline pins it */");
	btc_outl(o, "\tuint32_t n_placed_cores;");
	btc_outl(o, "};");
	btc_gen_emit_pu_cores(o, dev);
	/* One GPU API interferes: CUDA and Vulkan PUs are the same GPU, and a
	 * pipeline uses only one of them. */
	int first_gpu = -1;
	for (int u = 0; u < dev->n_pus && first_gpu < 0; u++)
		if (dev->pus[u].kind != BTC_BACKEND_CPU)
			first_gpu = u;
	btc_outl(o, "static const struct profiler_pu profiler_pus[] = {");
	for (int u = 0; u < dev->n_pus; u++) {
		const struct btc_pu *pu = &dev->pus[u];
		char cores[64] = "NULL", placed[64];
		if (pu->n_cores)
			snprintf(cores, sizeof(cores), "pu_%s_cores", pu->name);
		int n_placed = btc_gen_placed_cores(dev, u, placed, sizeof(placed));
		char *name = btc_c_string_literal(pu->name);
		btc_outl(o, "\t{ %s, %s, %s, %d, %d, %s, %d },", name,
			 btc_gen_pu_kind_enum(pu->kind), cores, pu->n_cores,
			 pu->kind == BTC_BACKEND_CPU || u == first_gpu, placed, n_placed);
		free(name);
	}
	btc_outl(o, "};");
	btc_outl(o, "#define N_PROFILER_PUS %d", dev->n_pus);
	btc_out_nl(o);
	btc_outl(o, "static int stage_runs_on(int s, const struct profiler_pu *pu)");
	btc_outl(o, "{");
	btc_outl(o, "\tswitch (pu->kind) {");
	btc_outl(o, "\tcase BTRT_PU_CPU: return app_stages[s].cpu != NULL;");
	btc_outl(o, "\tcase BTRT_PU_CUDA: return app_stages[s].cuda != NULL;");
	btc_outl(o, "\tcase BTRT_PU_VULKAN: return app_stages[s].n_vk > 0;");
	btc_outl(o, "\t}");
	btc_outl(o, "\treturn 0;");
	btc_outl(o, "}");
}

bool btc_gen_profiler_c(struct btc_out *o, const struct btc_gen_ctx *ctx, struct btc_diag *d)
{
	static const struct btc_section sections[] = {
		{"banner", btc_gen_emit_banner},
		{"includes", btc_gen_emit_includes},
		{"app_macros", btc_gen_emit_app_macros},
		{"stage_kernels", btc_gen_emit_stage_kernels},
		{"stage_table", btc_gen_emit_stage_table},
		{"profiler_pus", emit_profiler_pus},
	};
	return btc_template_expand(o, "profiler.c.in", sections,
				   (int)(sizeof(sections) / sizeof(sections[0])), ctx, d);
}
