/* Generates pipeline.c from templates/pipeline.c.in: the statically wired
 * pipeline (stage table, schedules and their chunks). */
#include <stdlib.h>

#include "gen/gen.h"
#include "gen/sections.h"
#include "gen/template.h"
#include "util/escape.h"

static void emit_schedules(struct btc_out *o, const void *p)
{
	const struct btc_gen_ctx *ctx = p;
	const struct btc_device *dev = ctx->dev;
	btc_gen_emit_pu_cores(o, dev);
	for (int i = 0; i < ctx->n_scheds; i++) {
		const struct btc_schedule *s = &ctx->scheds[i].s;
		btc_outl(o, "static const struct btrt_chunk schedule%d_chunks[] = {", i);
		for (int c = 0; c < s->n_chunks; c++) {
			const struct btc_sched_chunk *ch = &s->chunks[c];
			const struct btc_pu *pu = &dev->pus[ch->pu];
			char cores[64];
			int n_cores = btc_gen_placed_cores(dev, ch->pu, cores, sizeof(cores));
			char *name = btc_c_string_literal(pu->name);
			btc_outl(o, "\t{ %s, %s, %s, %d, %d, %d, NULL, NULL },", name,
				 btc_gen_pu_kind_enum(pu->kind), cores, n_cores, ch->first_stage,
				 ch->last_stage - ch->first_stage + 1);
			free(name);
		}
		btc_outl(o, "};");
	}
	btc_out_nl(o);
	btc_outl(o, "static const struct pipeline_schedule schedules[N_SCHEDULES] = {");
	for (int i = 0; i < ctx->n_scheds; i++) {
		const struct btc_plan_schedule *g = &ctx->scheds[i];
		char *text = btc_plan_schedule_label(&g->s, dev);
		char *label = btc_c_string_literal(text);
		free(text);
		btc_outl(o, "\t{ %s, \"%s\", %.6f, schedule%d_chunks, %d },", label,
			 g->baseline ? "baseline" : "candidate",
			 g->predicted ? g->s.period_ms : 0.0, i, g->s.n_chunks);
		free(label);
	}
	btc_outl(o, "};");
}

bool btc_gen_pipeline_c(struct btc_out *o, const struct btc_gen_ctx *ctx, struct btc_diag *d)
{
	static const struct btc_section sections[] = {
		{"banner", btc_gen_emit_banner},
		{"includes", btc_gen_emit_includes},
		{"app_macros", btc_gen_emit_app_macros},
		{"stage_kernels", btc_gen_emit_stage_kernels},
		{"stage_table", btc_gen_emit_stage_table},
		{"schedules", emit_schedules},
		{"adapt_model", btc_gen_emit_adapt_model},
	};
	return btc_template_expand(o, "pipeline.c.in", sections,
				   (int)(sizeof(sections) / sizeof(sections[0])), ctx, d);
}
