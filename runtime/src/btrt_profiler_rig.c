/* The profiler's measuring rigs (btrt_profiler_internal.h): one PU's pool
 * of one TaskObject, its stage input made once and what the stage reads
 * of what it writes restored before every repetition, run as a one-stage
 * pipeline; which PUs run a stage and which co-run (btrt_profiler.h); and
 * the buffer probes printed in the table's head. */
#include "btrt_profiler_internal.h"
#include "btrt_watchdog.h"
#include "btrt_trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int btrt_profiler_stage_runs_on(const struct btrt_app *app, uint32_t s,
				const struct btrt_profiler_pu *pu)
{
	switch (pu->kind) {
	case BTRT_PU_CPU: return app->stages[s].cpu != NULL;
	case BTRT_PU_CUDA: return app->stages[s].cuda != NULL;
	case BTRT_PU_VULKAN: return app->stages[s].n_vk > 0;
	}
	return 0;
}

int btrt_profiler_co_runs(const struct btrt_profiler_pu *pus, uint32_t n_pus, uint32_t p,
			  uint32_t q)
{
	enum btrt_pu_kind api = pus[p].kind;
	if (api == BTRT_PU_CPU) { /* btc's default API: CUDA when the device has it */
		api = BTRT_PU_VULKAN;
		for (uint32_t u = 0; u < n_pus; u++)
			if (pus[u].kind == BTRT_PU_CUDA)
				api = BTRT_PU_CUDA;
	}
	return q != p && (pus[q].kind == BTRT_PU_CPU || pus[q].kind == api);
}

/* The buffer counts of the app's default parameters, into counts[n_buffers]. */
static void buffer_counts(const struct btrt_app *app, size_t *counts)
{
	for (uint32_t b = 0; b < app->n_buffers; b++)
		counts[b] = app->buffer_count(app->params, b);
}

/* Whether stage st reads buffer b. */
static int stage_reads(const struct btrt_stage *st, uint32_t b)
{
	for (uint32_t k = 0; k < st->n_reads; k++)
		if (st->reads[k] == b)
			return 1;
	return 0;
}

int btrt_profiler_rig_restores(const struct btrt_stage *stages, int first, int i, uint32_t b)
{
	for (int k = first; k <= i; k++)
		if (stage_reads(&stages[k], b))
			return 1;
	return 0;
}

/* The profiling io: load restores the stage's input; check accepts. */
static void *prof_open(const char *path, const void *p, char *err, size_t len)
{
	(void)path; (void)p; (void)err; (void)len;
	return NULL;
}

static int prof_load(void *state, uint64_t seq, void *task, char *err, size_t len)
{
	(void)err; (void)len;
	struct btrt_profiler_rig *r = state;
	if (r->limit ? seq >= r->limit : atomic_load(r->stop))
		return 0;
	struct btrt_task *t = task;
	for (int i = r->stage; i <= r->last; i++) {
		const struct btrt_stage *st = &r->ctx->app->stages[i];
		for (uint32_t k = 0; k < st->n_writes; k++) {
			uint32_t b = st->writes[k];
			if (r->snapshot[b] &&
			    btrt_profiler_rig_restores(r->ctx->app->stages, r->stage, i, b))
				memcpy(t->buffers[b].host, r->snapshot[b], t->buffers[b].bytes);
		}
	}
	return 1;
}

static int prof_check(void *state, uint64_t seq, const void *task, FILE *out, char *err,
		      size_t len)
{
	(void)state; (void)seq; (void)task; (void)out; (void)err; (void)len;
	return 0;
}

static void prof_close(void *state, FILE *out) { (void)state; (void)out; }

static const struct btrt_app_io prof_io = { prof_open, prof_load, prof_check, prof_close, NULL, 0, 0 };

static enum btrt_backend backend_of(enum btrt_pu_kind k)
{
	return k == BTRT_PU_VULKAN ? BTRT_BACKEND_VULKAN
	       : k == BTRT_PU_CUDA ? BTRT_BACKEND_CUDA : BTRT_BACKEND_HOST;
}

int btrt_profiler_rig_init(struct btrt_profiler_rig *r, const struct btrt_profiling *ctx,
			   const struct btrt_profiler_pu *pu, struct btrt_error *err)
{
	return btrt_profiler_rig_init_placed(r, ctx, pu, NULL, err);
}

int btrt_profiler_rig_init_placed(struct btrt_profiler_rig *r, const struct btrt_profiling *ctx,
				  const struct btrt_profiler_pu *pu,
				  const unsigned char *gpu_touched, struct btrt_error *err)
{
	const struct btrt_app *app = ctx->app;
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->pu = pu;
	r->stage = r->last = -1;
	size_t *counts = calloc(app->n_buffers + 1, sizeof(size_t));
	if (!counts)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "buffer counts");
	buffer_counts(app, counts);
	struct btrt_pool_config pc = {
		.task_size = app->task_size,
		.n_tasks = 1,
		.buffers = app->buffers,
		.counts = counts,
		.n_buffers = app->n_buffers,
		.backend = backend_of(pu->kind),
		.vk = ctx->vk,
		.cuda = ctx->cuda,
		.io_loaded = ctx->io_loaded,
		.gpu_touched = gpu_touched,
	};
	btrt_env_pool_config(&ctx->env, &pc);
	int rc = btrt_pool_create(&r->pool, &pc, err);
	free(counts);
	if (rc)
		return -1;
	app->bind(btrt_pool_task(r->pool, 0), app->params);
	r->snapshot = calloc(app->n_buffers + 1, sizeof(void *));
	return r->snapshot ? 0 : btrt_error_set(err, BTRT_E_NOMEM, 0, "snapshot table");
}

int btrt_profiler_rig_prepare(struct btrt_profiler_rig *r, int s, struct btrt_error *err)
{
	const struct btrt_app *app = r->ctx->app;
	struct btrt_task *t = btrt_pool_task(r->pool, 0);
	char msg[256] = "";
	t->seq = 0;
	if (app->io->load(r->ctx->io_state, 0, t, msg, sizeof(msg)) != 1)
		return btrt_error_set(err, BTRT_E_IO, 0, "loading the first input item: %s", msg);
	for (int i = 0; i < s; i++) {
		if (!app->stages[i].cpu)
			return btrt_error_set(err, BTRT_E_INVAL, 0,
					      "stage %d '%s' has no CPU kernel to prepare stage %d's input",
					      i, app->stages[i].name, s);
		btrt_watch_begin(i, app->stages[i].name, "cpu (preparing the input)", 0);
		int rc = app->stages[i].cpu(t);
		btrt_watch_end();
		if (rc)
			return btrt_error_set(err, BTRT_E_KERNEL, rc,
					      "preparing input: stage %d '%s' failed (%d)", i,
					      app->stages[i].name, rc);
	}
	for (uint32_t b = 0; b < app->n_buffers; b++) {
		free(r->snapshot[b]);
		r->snapshot[b] = NULL;
		if (!t->buffers[b].host)
			continue;
		r->snapshot[b] = malloc(t->buffers[b].bytes ? t->buffers[b].bytes : 1);
		if (!r->snapshot[b])
			return btrt_error_set(err, BTRT_E_NOMEM, 0, "snapshot of buffer %u", b);
		memcpy(r->snapshot[b], t->buffers[b].host, t->buffers[b].bytes);
	}
	r->stage = r->last = s;
	return 0;
}

int btrt_profiler_rig_range(struct btrt_profiler_rig *r, int f, int l, struct btrt_error *err)
{
	if (btrt_profiler_rig_prepare(r, f, err))
		return -1;
	r->last = l;
	return 0;
}

void btrt_profiler_rig_free(struct btrt_profiler_rig *r)
{
	for (uint32_t b = 0; r->snapshot && b < r->ctx->app->n_buffers; b++)
		free(r->snapshot[b]);
	free(r->snapshot);
	btrt_pool_destroy(r->pool);
}

/* btrt_profiler_rig_run, and with stage_ms the stages' medians
 * (btrt_profiler_rig_run_stages). */
static int rig_run(struct btrt_profiler_rig *r, uint64_t limit, uint64_t *times,
		   double *overhead_ms, double *stage_ms, struct btrt_error *err)
{
	const struct btrt_profiling *ctx = r->ctx;
	const struct btrt_profiler_pu *pu = r->pu;
	r->limit = limit;
	/* Chunks must cover every stage: run only ours by making them the whole app. */
	uint32_t ns = (uint32_t)(r->last - r->stage + 1);
	struct btrt_chunk chunk = { pu->name, pu->kind, r->placed ? pu->placed_cores : pu->cores,
				    r->placed ? pu->n_placed_cores : pu->n_cores, 0, ns, NULL, NULL,
				    0 };
	struct btrt_pipeline_config cfg = {
		.app = ctx->app->name, .stages = &ctx->app->stages[r->stage], .n_stages = ns,
		.chunks = &chunk, .n_chunks = 1, .pool = r->pool,
		.io = &prof_io, .io_state = r, .n_items = 0, .check = 0,
		.io_cores = r->placed ? ctx->prof->service_cores : NULL,
		.n_io_cores = r->placed ? ctx->prof->n_service_cores : 0,
		.vk = ctx->vk, .cuda = ctx->cuda,
	};
	btrt_env_pipeline_config(&ctx->env, &cfg);
	struct btrt_run *run = NULL;
	int rc = btrt_pipeline_run(&cfg, &run, err);
	if (rc == 0 && times) {
		uint64_t n = btrt_run_chunk_times(run, 0, times, limit);
		if (n != limit)
			rc = btrt_error_set(err, BTRT_E_INVAL, 0, "expected %llu timings, got %llu",
					    (unsigned long long)limit, (unsigned long long)n);
		struct btrt_summary sum;
		int gpu = 0;
		if (overhead_ms && n > 0 && btrt_run_stage_summary(run, 0, &sum, &gpu) == 0 &&
		    sum.n == n) {
			double total = 0;
			for (uint64_t i = 0; i < n; i++)
				total += (double)times[i];
			*overhead_ms = (total / (double)n - sum.mean_ns) / 1e6;
		} else if (overhead_ms) {
			*overhead_ms = NAN;
		}
		for (uint32_t k = 0; stage_ms && k < ns; k++)
			stage_ms[k] = btrt_run_stage_summary(run, k, &sum, &gpu) == 0 && sum.n > 0
					      ? sum.median_ns / 1e6
					      : NAN;
	}
	btrt_run_free(run);
	return rc;
}

int btrt_profiler_rig_run(struct btrt_profiler_rig *r, uint64_t limit, uint64_t *times,
			  double *overhead_ms, struct btrt_error *err)
{
	return rig_run(r, limit, times, overhead_ms, NULL, err);
}

int btrt_profiler_rig_run_stages(struct btrt_profiler_rig *r, uint64_t limit, uint64_t *times,
				 double *stage_ms, struct btrt_error *err)
{
	return rig_run(r, limit, times, NULL, stage_ms, err);
}

int btrt_profiler_probe_buffers(struct btrt_profiling *ctx, struct btrt_error *err)
{
	const struct btrt_app *app = ctx->app;
	size_t *counts = calloc(app->n_buffers + 1, sizeof(size_t));
	if (!counts)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "buffer counts");
	buffer_counts(app, counts);
	struct btrt_pool_config pc = {
		.task_size = app->task_size,
		.buffers = app->buffers, .counts = counts, .n_buffers = app->n_buffers,
	};
	btrt_env_pool_config(&ctx->env, &pc);
	int rc = btrt_probe_pool_create(&ctx->probe_pool, &pc, app->bind, app->params, app->io,
					ctx->io_state, ctx->io_loaded, err);
	free(counts);
	if (rc)
		return -1;
	rc = btrt_probe_touched(ctx->probe_pool, app->stages, app->n_stages, app->io,
				ctx->io_state, ctx->touched, err);
	if (rc < 0)
		return -1;
	ctx->have_touched = rc == 0;
	return 0;
}

void btrt_profiler_print_buffer_probes(const struct btrt_profiling *ctx, FILE *out)
{
	const struct btrt_app *app = ctx->app;
	const char *sep = "# io_loads: ";
	for (uint32_t b = 0; b < app->n_buffers; b++)
		if (ctx->io_loaded[b]) {
			fprintf(out, "%s%s", sep, app->buffers[b].name);
			sep = ",";
		}
	if (*sep == ',')
		fputc('\n', out);
	if (!ctx->have_touched)
		return;
	sep = "# touched: ";
	for (uint32_t b = 0; b < app->n_buffers; b++) {
		fprintf(out, "%s%s=%llu", sep, app->buffers[b].name,
			(unsigned long long)ctx->touched[b]);
		sep = ",";
	}
	fputc('\n', out);
}

void btrt_profiler_print_in_place(const struct btrt_profiler_rig *rigs, int n_rigs, FILE *out)
{
	for (int p = 0; p < n_rigs; p++) {
		if (rigs[p].pu->kind != BTRT_PU_CUDA)
			continue;
		const struct btrt_app *app = rigs[p].ctx->app;
		const char *sep = "# in_place: ";
		for (uint32_t b = 0; b < app->n_buffers; b++)
			if (!app->buffers[b].stage_read_only &&
			    !strcmp(btrt_pool_buffer_memory(rigs[p].pool, b), "cuda-pinned")) {
				fprintf(out, "%s%s", sep, app->buffers[b].name);
				sep = ",";
			}
		if (*sep == ',')
			fputc('\n', out);
		return;
	}
}
