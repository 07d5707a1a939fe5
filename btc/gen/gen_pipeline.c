/* Generates pipeline.c from templates/pipeline.c.in: the tables of the
 * statically wired pipeline (stage table, schedules and their chunks:
 * farms as one entry per worker, chunks with a core count on their own
 * core lists) over the runtime's program (btrt_program_main). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/sections.h"
#include "gen/template.h"
#include "front/table.h"
#include "sched/model.h"
#include "util/escape.h"
#include "util/str.h"

/* One btrt_chunk entry: a chunk, or one worker of a farm (farm id > 0). */
static void emit_entry(struct btc_out *o, const struct btc_pu *pu, const char *cores, int n_cores,
		       const struct btc_sched_chunk *ch, int farm)
{
	char *name = btc_c_string_literal(pu->name);
	btc_outf(o,
		 "\t{ .name = %s, .pu = %s, .cores = %s, .n_cores = %d, .first_stage = %d, .n_stages = %d",
		 name, btc_gen_pu_kind_enum(pu->kind), cores, n_cores, ch->first_stage,
		 ch->last_stage - ch->first_stage + 1);
	if (farm)
		btc_outf(o, ", .farm = %d", farm);
	btc_outl(o, " },");
	free(name);
}

/* Chunk c of schedule i: an ordinary chunk on its PU's placed cores, a
 * chunk with a core count on its share of them (scheduleI_chunkC_cores),
 * or a farm: one entry per member PU in PU order, farm id c + 1. */
static void emit_chunk(struct btc_out *o, const struct btc_device *dev, const uint32_t k[2],
		       int i, const struct btc_schedule *s, int c)
{
	const struct btc_sched_chunk *ch = &s->chunks[c];
	char cores[64];
	if (ch->farm) {
		for (int u = 0; u < dev->n_pus && u < 32; u++) {
			if (!((ch->farm >> u) & 1u))
				continue;
			int n = btc_gen_placed_cores(dev, u, k[0], k[1], cores, sizeof(cores));
			emit_entry(o, &dev->pus[u], cores, n, ch, c + 1);
		}
		return;
	}
	if (ch->cores) {
		snprintf(cores, sizeof(cores), "schedule%d_chunk%d_cores", i, c);
		emit_entry(o, &dev->pus[ch->pu], cores, ch->cores, ch, 0);
		return;
	}
	int n = btc_gen_placed_cores(dev, ch->pu, k[0], k[1], cores, sizeof(cores));
	emit_entry(o, &dev->pus[ch->pu], cores, n, ch, 0);
}

/* Entries of schedule s in the generated chunk table (a farm's members
 * count one each). */
static int n_entries(const struct btc_schedule *s)
{
	int n = 0;
	for (int c = 0; c < s->n_chunks; c++)
		n += s->chunks[c].farm ? __builtin_popcount(s->chunks[c].farm) : 1;
	return n;
}

/* The pool of schedule s (TaskObjects), the schedule table's `pool`: the
 * optimizer's (btc_model_pool: one per chunk entry, one for the io, and
 * per farm the extra its admitted workers need so that the fast ones never
 * wait behind a slow one in the in-order delivery; docs/runtime.md
 * "Farms: the pool and admission") when s was predicted; without times
 * (a --chunks schedule and no table) every farm gets the most the
 * optimizer would give it, BTRT_FARM_EXTRA_MAX. --pool overrides it. */
static int schedule_pool(const struct btc_plan_schedule *g)
{
	const struct btc_schedule *s = &g->s;
	if (g->predicted && s->pool > 0)
		return s->pool;
	int n = n_entries(s) + 1;
	for (int c = 0; c < s->n_chunks; c++)
		if (s->chunks[c].farm)
			n += BTRT_FARM_EXTRA_MAX;
	return n;
}

static void emit_schedules(struct btc_out *o, const void *p)
{
	const struct btc_gen_ctx *ctx = p;
	const struct btc_device *dev = ctx->dev;
	uint32_t n_io[2]; /* loaders, check workers */
	btc_gen_io_threads(ctx, &n_io[0], &n_io[1]);
	btc_gen_emit_pu_cores(o, dev, n_io[0], n_io[1]);
	for (int i = 0; i < ctx->n_scheds; i++) {
		const struct btc_schedule *s = &ctx->scheds[i].s;
		/* The core lists of chunks with a core count (issue 16). */
		for (int c = 0; c < s->n_chunks; c++) {
			int v[1024];
			int n = btc_gen_split_cores(dev, s, c, v);
			if (n <= 0)
				continue;
			btc_outf(o, "static const int schedule%d_chunk%d_cores[] = {", i, c);
			for (int k = 0; k < n; k++)
				btc_outf(o, "%s%d", k ? ", " : " ", v[k]);
			btc_outl(o, " }; /* %d of %s's cores */", n, dev->pus[s->chunks[c].pu].name);
		}
		btc_outl(o, "static const struct btrt_chunk schedule%d_chunks[] = {", i);
		for (int c = 0; c < s->n_chunks; c++)
			emit_chunk(o, dev, n_io, i, s, c);
		btc_outl(o, "};");
	}
	btc_out_nl(o);
	btc_outl(o, "static const struct btrt_program_schedule pipeline_schedules[N_SCHEDULES] = {");
	for (int i = 0; i < ctx->n_scheds; i++) {
		const struct btc_plan_schedule *g = &ctx->scheds[i];
		char *text = btc_plan_schedule_label(&g->s, dev);
		char *label = btc_c_string_literal(text);
		free(text);
		btc_outl(o, "\t{ %s, \"%s\", %.6f, schedule%d_chunks, %d, %d },", label,
			 btc_plan_schedule_kind(g),
			 g->predicted ? g->s.period_ms : 0.0, i, n_entries(&g->s),
			 schedule_pool(g));
		free(label);
	}
	btc_outl(o, "};");
}

/* PIPELINE_IO_LOADED: the buffers io.load refills per task, from the
 * plan's profiling table (`# io_loads:`, measured by the profiler's probe
 * on the device, btrt_probe_io_loads), so that a CUDA pool places them in
 * pinned memory without probing them again at every start
 * (btrt_program.io_loaded). NULL without a table or without that line:
 * the program probes. */
static void emit_io_loaded(struct btc_out *o, const void *p)
{
	const struct btc_gen_ctx *ctx = p;
	const struct btc_table *t = ctx->plan ? ctx->plan->table : NULL;
	int any = 0;
	for (int b = 0; t && t->io_loaded && b < ctx->app->n_buffers; b++)
		any |= t->io_loaded[b];
	if (!any) {
		btc_outl(
			o,
			"#define PIPELINE_IO_LOADED NULL /* no table's io_loads: probed at start */");
		return;
	}
	btc_outl(o, "/* The buffers io.load refills per task (the profiling table's io_loads). */");
	btc_outf(o, "static const unsigned char pipeline_io_loaded[APP_N_BUFFERS] = {");
	for (int b = 0; b < ctx->app->n_buffers; b++)
		btc_outf(o, "%s%d", b ? ", " : " ", t->io_loaded[b] ? 1 : 0);
	btc_outl(o, " };");
	btc_outl(o, "#define PIPELINE_IO_LOADED pipeline_io_loaded");
}

/* Every chunk with a core count fits its PU's pinnable cores. */
static bool check_cores(const struct btc_gen_ctx *ctx, struct btc_diag *d)
{
	bool ok = true;
	for (int i = 0; i < ctx->n_scheds; i++) {
		const struct btc_schedule *s = &ctx->scheds[i].s;
		for (int c = 0; c < s->n_chunks; c++) {
			int v[1024];
			if (btc_gen_split_cores(ctx->dev, s, c, v) >= 0)
				continue;
			char *label = btc_plan_schedule_label(s, ctx->dev);
			const int *pin;
			const struct btc_pu *pu = &ctx->dev->pus[s->chunks[c].pu];
			btc_error(d, (struct btc_loc){0},
				  "schedule %d (%s): the chunks on PU '%s' need more than its %d pinnable cores",
				  i, label, pu->name, btc_pu_pinnable(pu, &pin));
			free(label);
			ok = false;
			break;
		}
	}
	return ok;
}

/* The main() of templates/pipeline.c.in, which an app of a workload
 * project replaces (export_tables). */
static const char template_main[] = "int main(int argc, char **argv)\n"
				    "{\n"
				    "\treturn btrt_program_main(&app_program, argc, argv);\n"
				    "}\n";

/* An app of a workload project: the tables exported to its workload.c
 * instead of main() (the app's name prefixes the symbol: two apps never
 * collide; app names never start with btrt_, btc/front/names.c). The
 * single-app output keeps the template's text byte for byte. Returns
 * false after a diagnostic when the template has no such main(). */
static bool export_tables(struct btc_out *o, const struct btc_gen_ctx *ctx, struct btc_diag *d)
{
	char *at = strstr(o->buf, template_main);
	if (!at) {
		btc_error(d, (struct btc_loc){0},
			  "templates/pipeline.c.in: no main() over app_program to replace for a "
			  "workload project");
		return false;
	}
	char *tail = btc_xstrdup(at + strlen(template_main));
	o->len = (size_t)(at - o->buf);
	o->buf[o->len] = '\0';
	btc_outl(o, "/* The app's tables, for the workload program (workload.c). */");
	btc_outl(o, "const struct btrt_program *const %s_workload_program = &app_program;",
		 ctx->app->name);
	btc_out_puts(o, tail);
	free(tail);
	return true;
}

bool btc_gen_pipeline_c(struct btc_out *o, const struct btc_gen_ctx *ctx, struct btc_diag *d)
{
	static const struct btc_section sections[] = {
		BTC_GEN_PROGRAM_SECTIONS,
		{"schedules", emit_schedules},
		{"io_loaded", emit_io_loaded},
		{"adapt_model", btc_gen_emit_adapt_model},
	};
	if (!check_cores(ctx, d))
		return false;
	if (!btc_template_expand(o, "pipeline.c.in", sections,
				 (int)(sizeof(sections) / sizeof(sections[0])), ctx, d))
		return false;
	return !ctx->workload_member || export_tables(o, ctx, d);
}
