/* The profiler's in-chunk cells (btrt_profiler_internal.h,
 * btrt_profiler_in_chunk): a GPU stage's time inside a multi-stage chunk,
 * where it reads what the GPU stage before it wrote, against its
 * one-stage cell, where it reads what the host wrote. docs/scheduler.md,
 * "The chunk model"; the rows: docs/app-format.md, `@in_chunk:STAGE`. */
#include "btrt_profiler_internal.h"

#include <math.h>
#include <stdlib.h>

int btrt_profiler_in_chunk_runs(const struct btrt_app *app, const struct btrt_profiler_pu *pu)
{
	if (pu->kind == BTRT_PU_CPU)
		return 0;
	int runs = 0;
	for (uint32_t f = 0; f < app->n_stages;) {
		uint32_t l = f;
		while (l < app->n_stages && btrt_profiler_stage_runs_on(app, l, pu))
			l++;
		runs += l >= f + 2; /* stages f..l-1, at least two */
		f = l > f ? l : f + 1;
	}
	return runs;
}

/* The run f..l on rig r: its rows (btrt_profiler_internal.h). */
static int measure_run(struct btrt_profiler_rig *r, uint32_t f, uint32_t l, const double *row_ms,
		       double fixed_ms, const char *mode, long warmup, long reps, uint64_t *times,
		       FILE *out, struct btrt_error *err)
{
	const struct btrt_app *app = r->ctx->app;
	double *g = calloc(l - f + 1, sizeof(double));
	if (!g)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "in-chunk stage times");
	if (btrt_profiler_rig_range(r, (int)f, (int)l, err) ||
	    btrt_profiler_rig_run_stages(r, (uint64_t)(warmup + reps), times, g, err)) {
		free(g);
		return -1;
	}
	double sum = 0, sum2 = 0;
	for (long i = warmup; i < warmup + reps; i++) {
		double v = (double)times[i] / 1e6;
		sum += v;
		sum2 += v * v;
	}
	double mean = sum / (double)reps;
	double var = reps > 1 ? (sum2 - (double)reps * mean * mean) / (double)(reps - 1) : 0;
	double sd = var > 0 ? sqrt(var) : 0;
	double tf = fmax(0, row_ms[f] - fixed_ms), rest = 0;
	for (uint32_t i = f + 1; i <= l; i++)
		rest += isnan(g[i - f]) ? 0 : g[i - f];
	if (!(rest > 0)) {
		free(g);
		return 0; /* no stage time recorded: nothing to split */
	}
	double scale = fmax(0, mean - fixed_ms - tf) / rest;
	for (uint32_t i = f + 1; i <= l; i++) {
		double gi = isnan(g[i - f]) ? 0 : g[i - f];
		fprintf(out, "@in_chunk:%s,%s,%s,%.6f,%.6f,%ld\n", app->stages[i].name, r->pu->name,
			mode, gi * scale, sd * gi / rest, reps);
	}
	fflush(out);
	free(g);
	return 0;
}

/* measure_run for the run f..l on r's GPU PU, on a rig of its own whose
 * pool is placed as the generated program places a pool for the schedule
 * cpu:0..f-1 <pu>:f..l cpu:l+1.. On a CUDA PU: the run's private
 * intermediates in managed memory on the device (btrt_cuda_place,
 * BTRT_GPU_PRIVATE); what the CPU stages around it read or write, and
 * the outputs, where the probe puts them. The rig r, whose pool sees no
 * schedule (every buffer a stage writes pinned on the H200), would time
 * every stage after the first reading and writing across the bus, where
 * the program's chunk reads and writes device memory (alexnet-dense's
 * conv4 and conv5: 59-60 us a row on lease H200-Z against 8-9 us in the
 * chunk). On a Vulkan PU the run's private buffers are device-local
 * (btrt_vk_place), as in the program's chunk. */
static int measure_run_placed(struct btrt_profiler_rig *r, uint32_t f, uint32_t l,
			      const double *row_ms, double fixed_ms, const char *mode, long warmup,
			      long reps, uint64_t *times, FILE *out, struct btrt_error *err)
{
	const struct btrt_app *app = r->ctx->app;
	struct btrt_chunk chunks[3];
	uint32_t n = 0;
	if (f > 0)
		chunks[n++] = (struct btrt_chunk){.name = "cpu", .pu = BTRT_PU_CPU, .n_stages = f};
	chunks[n++] = (struct btrt_chunk){
		.name = r->pu->name, .pu = r->pu->kind, .first_stage = f, .n_stages = l - f + 1};
	if (l + 1 < app->n_stages)
		chunks[n++] = (struct btrt_chunk){.name = "cpu",
						  .pu = BTRT_PU_CPU,
						  .first_stage = l + 1,
						  .n_stages = app->n_stages - l - 1};
	unsigned char *touched = calloc(app->n_buffers + 1, 1);
	if (!touched)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "in-chunk placement");
	if (btrt_chunks_gpu_touched(app->stages, app->n_stages, chunks, n, app->buffers,
				    app->n_buffers, touched)) {
		free(touched);
		return btrt_error_set(err, BTRT_E_INVAL, 0, "in-chunk run %u..%u: its buffers", f,
				      l);
	}
	struct btrt_profiler_rig pr;
	int rc = btrt_profiler_rig_init_placed(&pr, r->ctx, r->pu, touched, err);
	free(touched);
	if (rc == 0) {
		pr.placed = r->placed;
		pr.stop = r->stop;
		rc = measure_run(&pr, f, l, row_ms, fixed_ms, mode, warmup, reps, times, out, err);
	}
	btrt_profiler_rig_free(&pr);
	return rc;
}

int btrt_profiler_in_chunk(struct btrt_profiler_rig *r, const double *row_ms, double fixed_ms,
			   const char *mode, long warmup, long reps, uint64_t *times, FILE *out,
			   int *cells, struct btrt_error *err)
{
	const struct btrt_app *app = r->ctx->app;
	int rc = 0, n = 0;
	for (uint32_t f = 0; f < app->n_stages && rc == 0;) {
		uint32_t l = f;
		while (l < app->n_stages && !isnan(row_ms[l]))
			l++;
		if (l >= f + 2) {
			rc = measure_run_placed(r, f, l - 1, row_ms, fixed_ms, mode, warmup, reps,
						times, out, err);
			n++;
		}
		f = l > f ? l : f + 1;
	}
	if (r->stage >= 0 && r->last != r->stage)
		r->last = r->stage = -1; /* the next cell prepares its own input */
	if (cells)
		*cells = n;
	return rc;
}
