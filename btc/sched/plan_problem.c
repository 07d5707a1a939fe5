/* A profiling table's mode as the optimizer's problem (sched/plan.h):
 * stage times, the chunk model's terms, core counts; the GPU API mask. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/model.h"
#include "sched/plan.h"

bool btc_plan_gpu_mask(const struct btc_device *dev, const char *gpu, uint32_t *forbid,
		       struct btc_diag *d)
{
	bool has[BTC_N_BACKENDS] = {0};
	for (int p = 0; p < dev->n_pus; p++)
		has[dev->pus[p].kind] = true;
	enum btc_backend keep;
	if (!gpu)
		keep = has[BTC_BACKEND_CUDA] ? BTC_BACKEND_CUDA : BTC_BACKEND_VULKAN;
	else if (!strcmp(gpu, "cuda"))
		keep = BTC_BACKEND_CUDA;
	else if (!strcmp(gpu, "vulkan"))
		keep = BTC_BACKEND_VULKAN;
	else {
		btc_error(d, (struct btc_loc){0}, "--gpu must be cuda or vulkan, not '%s'", gpu);
		return false;
	}
	if (gpu && !has[keep]) {
		btc_error(d, (struct btc_loc){0}, "--gpu %s: device '%s' has no %s PU", gpu,
			  dev->name, gpu);
		return false;
	}
	*forbid = 0;
	for (int p = 0; p < dev->n_pus; p++)
		if (dev->pus[p].kind != BTC_BACKEND_CPU && dev->pus[p].kind != keep)
			*forbid |= 1u << p;
	return true;
}

void btc_plan_buf_init(struct btc_plan_buf *b, const struct btc_app *app,
		       const struct btc_device *dev)
{
	size_t n = (size_t)app->n_stages, np = (size_t)dev->n_pus;
	b->time = btc_xcalloc(n * np, sizeof(double));
	b->fixed = btc_xcalloc(np, sizeof(double));
	b->xfer = btc_xcalloc(n * np * n, sizeof(double));
	b->names = btc_xcalloc(n + np, sizeof(char *));
	b->cores = btc_xcalloc(np, sizeof(*b->cores));
	b->time_cores = btc_xcalloc(n * np * BTC_SCHED_MAX_CORE_COUNTS, sizeof(double));
	b->start = btc_xcalloc(n * np, sizeof(double));
}

void btc_plan_buf_free(struct btc_plan_buf *b)
{
	free(b->time);
	free(b->fixed);
	free(b->xfer);
	free(b->names);
	free(b->cores);
	free(b->time_cores);
	free(b->start);
	memset(b, 0, sizeof(*b));
}

/* The in-chunk rows of the mode: where stage i has an `@in_chunk` row on
 * PU c, t_{i,c} becomes t^in = min(t, the row's time) and the difference
 * the boundary term S_{i,c} = t - t^in, paid by a chunk that starts at i
 * (docs/scheduler.md, "The chunk model"): chunk_ms(c, f..l) = F_c +
 * t_{f,c} + sum_{i=f+1..l} t^in_{i,c} + X_c(f, l). A row above t (the two
 * cells' noise) leaves the stage as it is: a stage costs no more inside a
 * chunk than alone, so S >= 0 and the bounds may leave it out. */
static void plan_in_chunk(const struct btc_table *t, enum btc_mode mode, int n, int np,
			  struct btc_plan_buf *buf)
{
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++) {
			const struct btc_table_entry *e = btc_table_in_chunk_at(t, mode, i, c);
			double *v = &buf->time[i * np + c];
			buf->start[i * np + c] = 0;
			if (!e->present || isnan(*v) || e->mean_ms >= *v)
				continue;
			buf->start[i * np + c] = *v - e->mean_ms;
			*v = e->mean_ms;
		}
}

/* The chunk model's terms of the table's mode into p (see plan.h). */
static void plan_model(const struct btc_app *app, const struct btc_device *dev,
		       const struct btc_table *t, enum btc_mode mode, struct btc_sched_problem *p,
		       struct btc_plan_buf *buf)
{
	int n = app->n_stages, np = dev->n_pus, nb = app->n_buffers;
	struct btc_model_link *links = btc_xcalloc((size_t)np, sizeof(*links));
	bool *has = btc_xcalloc((size_t)np, sizeof(bool));
	bool any_link = false;
	for (int c = 0; c < np; c++) {
		const struct btc_table_entry *e = &t->term[mode][c * BTC_N_TERMS];
		buf->fixed[c] = e[BTC_TERM_FIXED].mean_ms; /* 0 when absent */
		links[c] = (struct btc_model_link){
			e[BTC_TERM_IN_LATENCY].mean_ms,
			e[BTC_TERM_IN_PER_MIB].mean_ms,
			e[BTC_TERM_OUT_LATENCY].mean_ms,
			e[BTC_TERM_OUT_PER_MIB].mean_ms,
		};
		has[c] = links[c].in_lat_ms > 0 || links[c].in_ms_per_mib > 0 ||
			 links[c].out_lat_ms > 0 || links[c].out_ms_per_mib > 0;
		any_link |= has[c];
	}
	double *bytes = btc_xcalloc((size_t)nb + 1, sizeof(double));
	unsigned char *rd = btc_xcalloc((size_t)(n * nb) + 1, 1);
	unsigned char *wr = btc_xcalloc((size_t)(n * nb) + 1, 1);
	unsigned char *io = btc_xcalloc((size_t)nb + 1, 1);
	unsigned char *in_place = btc_xcalloc((size_t)nb + 1, 1);
	unsigned char *scratch = btc_xcalloc((size_t)nb + 1, 1);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < app->stages[i].n_reads; j++)
			rd[i * nb + app->stages[i].reads[j]] = 1;
		for (int j = 0; j < app->stages[i].n_writes; j++)
			wr[i * nb + app->stages[i].writes[j]] = 1;
	}
	for (int k = 0; k < nb; k++) {
		/* What a task moves is what it touched (`# touched:`), not the
		 * capacity sized for the largest input. */
		bytes[k] = t->touched[k] >= 0 ? t->touched[k]
					      : (double)btc_elem_size(app->buffers[k].elem) *
							(double)app->buffers[k].count_value;
		io[k] = t->io_loaded[k];
		in_place[k] = t->in_place[k];
		scratch[k] = app->buffers[k].scratch;
	}
	struct btc_model_buffers mb = {n, nb, bytes, rd, wr, io, in_place, scratch};
	btc_model_fill_transfers(&mb, links, has, np, buf->xfer);
	/* t_{i,c}: the one-stage measurement minus what the model adds, 0
	 * where the terms account for all of it. A remainder under 0.1 % of
	 * the measurement is the terms' rounding, not a time: kept, it could
	 * be a few ns that the ranking quantum cannot hold (H100 octree table,
	 * cuda sort under interference: 1.3466 ms less F and X left 6.6 ns). */
	for (int i = 0; i < n; i++)
		for (int c = 0; c < np; c++) {
			double *v = &buf->time[i * np + c];
			if (isnan(*v))
				continue;
			double measured = *v;
			*v -= buf->fixed[c] + buf->xfer[btc_model_xfer_index(n, np, c, i, i)];
			*v = *v > 1e-3 * measured ? *v : 0;
		}
	plan_in_chunk(t, mode, n, np, buf);
	p->fixed_ms = buf->fixed;
	p->xfer_ms = any_link ? buf->xfer : NULL;
	bool any_start = false;
	for (int k = 0; k < n * np; k++)
		any_start |= buf->start[k] > 0;
	p->start_ms = any_start ? buf->start : NULL;
	p->io_ms = btc_table_io_ms(t, mode, 1, 1, NULL, NULL); /* btc_plan sets the io farms */
	free(links);
	free(has);
	free(bytes);
	free(rd);
	free(wr);
	free(io);
	free(in_place);
	free(scratch);
}

_Static_assert(BTC_TABLE_MAX_CORE_COUNTS == BTC_SCHED_MAX_CORE_COUNTS, "core count slots");

/* The table's core counts of `mode` into p (see plan.h); t_{i,c,k} less
 * F_c and X_c(i, i) when p has the model's terms. */
static void plan_cores(const struct btc_app *app, const struct btc_device *dev,
		       const struct btc_table *t, enum btc_mode mode, struct btc_sched_problem *p,
		       struct btc_plan_buf *buf)
{
	int n = app->n_stages, np = dev->n_pus;
	bool any = false;
	for (int c = 0; c < np; c++) {
		struct btc_sched_cores *k = &buf->cores[c];
		*k = (struct btc_sched_cores){0};
		if (dev->pus[c].kind != BTC_BACKEND_CPU)
			continue;
		const int *pin;
		k->size = btc_pu_pinnable(&dev->pus[c], &pin);
		for (int j = 0; j < t->n_core_counts[c]; j++) {
			bool timed = false;
			for (int i = 0; i < n; i++)
				timed |= btc_table_cores_at(t, mode, i, c, j)->present;
			if (!timed)
				continue;
			for (int i = 0; i < n; i++) {
				const struct btc_table_entry *e = btc_table_cores_at(t, mode, i, c, j);
				double v = NAN;
				if (e->present && btc_stage_has(&app->stages[i], dev->pus[c].kind)) {
					v = e->mean_ms;
					if (p->fixed_ms)
						v -= p->fixed_ms[c];
					if (p->xfer_ms)
						v -= p->xfer_ms[btc_model_xfer_index(n, np, c, i, i)];
					v = v > 0 ? v : 0;
				}
				buf->time_cores[btc_sched_cores_index(np, i, c, k->n_counts)] = v;
			}
			k->counts[k->n_counts++] = t->core_counts[c][j];
			any = true;
		}
	}
	p->cores = any ? buf->cores : NULL;
	p->time_cores_ms = any ? buf->time_cores : NULL;
}

bool btc_plan_problem(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_table *t, enum btc_mode mode, bool chunk_model,
		      struct btc_sched_problem *p, struct btc_plan_buf *buf, struct btc_diag *d)
{
	double *time_buf = buf->time;
	const char **name_buf = buf->names;
	if (!t->has_mode[mode]) {
		btc_error(
			d, (struct btc_loc){0},
			"the profiling table has no %s times (profile in that mode or pass --mode)",
			btc_mode_name(mode));
		return false;
	}
	for (int s = 0; s < app->n_stages; s++)
		for (int u = 0; u < dev->n_pus; u++) {
			const struct btc_table_entry *e = btc_table_at(t, mode, s, u);
			time_buf[s * dev->n_pus + u] =
				btc_stage_has(&app->stages[s], dev->pus[u].kind) && e->present
					? e->mean_ms
					: NAN;
		}
	const char **stage_names = name_buf, **pu_names = name_buf + app->n_stages;
	for (int s = 0; s < app->n_stages; s++)
		stage_names[s] = app->stages[s].name;
	for (int u = 0; u < dev->n_pus; u++)
		pu_names[u] = dev->pus[u].name;
	*p = (struct btc_sched_problem){
		.n_stages = app->n_stages,
		.n_pus = dev->n_pus,
		.time_ms = time_buf,
		.stage_names = stage_names,
		.pu_names = pu_names,
		.app = app->name,
		.device = dev->name,
		.mode = btc_mode_name(mode),
	};
	if (chunk_model && t->has_terms[mode])
		plan_model(app, dev, t, mode, p, buf);
	plan_cores(app, dev, t, mode, p, buf);
	return true;
}

enum btc_mode btc_plan_mode_for(const struct btc_table *t, enum btc_mode mode,
				const struct btc_schedule *s)
{
	if (mode == BTC_MODE_PLACED && s->n_chunks == 1 && !s->chunks[0].farm &&
	    t->has_mode[BTC_MODE_ISOLATED])
		return BTC_MODE_ISOLATED;
	return mode;
}
