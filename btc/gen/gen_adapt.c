/* The adapt_model section of pipeline.c: the cost model the schedules were
 * chosen with, compiled in as data for the runtime's adaptive runs
 * (runtime/include/btrt_adapt.h; docs/runtime.md, "Adaptive pipelines").
 * The model is the plan's own problem (btc_plan_solved_problem: the chunk
 * model of the table's mode the schedules were chosen on), printed with
 * %.17g so that the
 * program's doubles are btc's: btrt_model_period_ms then gives exactly
 * the predicted_ms of the schedule table, which the program checks. */
#include <math.h>
#include <stdlib.h>

#include "gen/gen.h"
#include "gen/sections.h"
#include "util/escape.h"

static void emit_double(struct btc_out *o, double v)
{
	if (isnan(v))
		btc_outf(o, "NAN");
	else
		btc_outf(o, "%.17g", v);
}

static void emit_doubles(struct btc_out *o, const char *name, const double *v, size_t n,
			 size_t per_line)
{
	btc_outl(o, "static const double %s[%zu] = {", name, n);
	for (size_t i = 0; i < n; i++) {
		btc_outf(o, "%s", i % per_line ? " " : "\t");
		emit_double(o, v[i]);
		btc_outf(o, ",%s", (i + 1) % per_line && i + 1 < n ? "" : "\n");
	}
	btc_outl(o, "};");
}

/* The plan's model, or nothing (false) without a table. */
static bool emit_model(struct btc_out *o, const struct btc_gen_ctx *ctx)
{
	const struct btc_sched_problem *pp = ctx->plan ? btc_plan_solved_problem(ctx->plan) : NULL;
	if (!pp)
		return false;
	const struct btc_sched_problem p = *pp;
	size_t n = (size_t)p.n_stages, np = (size_t)p.n_pus;
	btc_outl(o, "/* The cost model the schedules were chosen with: btc's chunk model of the");
	btc_outl(o,
		 " * '%s' table (docs/scheduler.md, \"The chunk model\"), in ms per task:", p.mode);
	btc_outl(o,
		 " * t_{i,c} [stage * N_MODEL_PUS + PU] (NAN: no kernel), F_c, X_c(f, l), T_io.");
	btc_outl(o, " * --adapt re-ranks the schedules with it (btrt_adapt.h). */");
	btc_outl(o, "#define PIPELINE_HAVE_MODEL 1");
	btc_outl(o, "#define N_MODEL_PUS %zu", np);
	btc_outf(o, "static const char *const pipeline_model_pu_names[N_MODEL_PUS] = {");
	for (size_t u = 0; u < np; u++) {
		char *lit = btc_c_string_literal(ctx->dev->pus[u].name);
		btc_outf(o, "%s%s", u ? ", " : " ", lit);
		free(lit);
	}
	btc_outl(o, " };");
	emit_doubles(o, "pipeline_model_time_ms", p.time_ms, n * np, np);
	if (p.fixed_ms)
		emit_doubles(o, "pipeline_model_fixed_ms", p.fixed_ms, np, np);
	if (p.xfer_ms)
		emit_doubles(o, "pipeline_model_xfer_ms", p.xfer_ms, n * np * n, n);
	if (p.start_ms)
		emit_doubles(o, "pipeline_model_start_ms", p.start_ms, n * np, np);
	btc_outf(o,
		 "static const struct btrt_model pipeline_model_data = { APP_N_STAGES, "
		 "N_MODEL_PUS, pipeline_model_time_ms, %s, %s, ",
		 p.fixed_ms ? "pipeline_model_fixed_ms" : "NULL", p.xfer_ms ? "pipeline_model_xfer_ms" : "NULL");
	emit_double(o, p.io_ms);
	btc_outf(o, ", pipeline_model_pu_names, \"%s\"", p.mode);
	btc_outl(o, ", %s };", p.start_ms ? "pipeline_model_start_ms" : "NULL");
	btc_outl(o, "static const struct btrt_model *const pipeline_model = &pipeline_model_data;");
	return true;
}

void btc_gen_emit_adapt_model(struct btc_out *o, const void *p)
{
	const struct btc_gen_ctx *ctx = p;
	if (!emit_model(o, ctx)) {
		btc_outl(o,
			 "/* Generated without a profiling table: no cost model, so --adapt can");
		btc_outl(o, " * only force switches (--adapt-force N). */");
		btc_outl(o, "#define PIPELINE_HAVE_MODEL 0");
		btc_outl(o, "static const struct btrt_model *const pipeline_model = NULL;");
	}
	btc_outl(o, "/* The device PU (model column) of every chunk of every schedule. */");
	for (int i = 0; i < ctx->n_scheds; i++) {
		const struct btc_schedule *s = &ctx->scheds[i].s;
		btc_outf(o, "static const uint32_t schedule%d_pus[] = {", i);
		for (int c = 0; c < s->n_chunks; c++)
			btc_outf(o, "%s%d", c ? ", " : " ", s->chunks[c].pu);
		btc_outl(o, " };");
	}
	btc_outl(o, "static const uint32_t *const pipeline_schedule_pus[N_SCHEDULES] = {");
	for (int i = 0; i < ctx->n_scheds; i++)
		btc_outl(o, "\tschedule%d_pus,", i);
	btc_outl(o, "};");
}
