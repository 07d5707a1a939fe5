/* Probes of what one task does, for the chunk model (docs/scheduler.md,
 * "The chunk model") and the CUDA placement of io-loaded inputs: which
 * buffers io.load refills per task, how many bytes of each buffer a task
 * touches, and T_io, the io thread's time per task. They use TaskObject 0
 * of a pool in host memory: the probe pool, one TaskObject that the
 * caller keeps to the end of the run (btrt_probe_pool_create makes it),
 * or, for T_io, a CPU rig of the profiler. */
#include "btrt_internal.h"
#include "btrt_watchdog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PATTERN 0xa5
#define PAGE 4096u

static void fill(struct btrt_task *t)
{
	for (uint32_t b = 0; b < t->n_buffers; b++)
		if (t->buffers[b].host)
			memset(t->buffers[b].host, PATTERN, t->buffers[b].bytes);
}

static int load(const struct btrt_app_io *io, void *io_state, struct btrt_task *t, uint64_t seq,
		struct btrt_error *err)
{
	char msg[256] = "";
	t->seq = seq;
	if (io->load(io_state, seq, t, msg, sizeof msg) != 1)
		return btrt_error_set(err, BTRT_E_IO, 0, "loading input item %llu: %s",
				      (unsigned long long)seq, msg);
	return 0;
}

int btrt_probe_io_loads(struct btrt_pool *pool, const struct btrt_app_io *io, void *io_state,
			unsigned char *loaded, struct btrt_error *err)
{
	struct btrt_task *t = btrt_pool_task(pool, 0);
	memset(loaded, 0, t->n_buffers);
	int rc = load(io, io_state, t, 0, err);
	if (rc == 0) {
		fill(t);
		rc = load(io, io_state, t, 1, err);
	}
	for (uint32_t b = 0; rc == 0 && b < t->n_buffers; b++) {
		const unsigned char *h = t->buffers[b].host;
		size_t k = 0, n = h ? t->buffers[b].bytes : 0;
		while (k < n && h[k] == PATTERN)
			k++;
		loaded[b] = k < n;
	}
	return rc;
}

int btrt_probe_pool_create(struct btrt_pool **probe, const struct btrt_pool_config *cfg,
			   btrt_task_bind_fn bind, const void *bind_ctx,
			   const struct btrt_app_io *io, void *io_state, unsigned char *loaded,
			   struct btrt_error *err)
{
	*probe = NULL;
	struct btrt_pool_config hc = {
		.task_size = cfg->task_size, .n_tasks = 1,
		.buffers = cfg->buffers, .counts = cfg->counts, .n_buffers = cfg->n_buffers,
		.backend = BTRT_BACKEND_HOST,
	};
	struct btrt_pool *pool;
	if (btrt_pool_create(&pool, &hc, err))
		return -1;
	bind(btrt_pool_task(pool, 0), bind_ctx);
	if (btrt_probe_io_loads(pool, io, io_state, loaded, err)) {
		btrt_pool_destroy(pool);
		return -1;
	}
	*probe = pool;
	return 0;
}

int btrt_probe_touched(struct btrt_pool *pool, const struct btrt_stage *stages, uint32_t n_stages,
		       const struct btrt_app_io *io, void *io_state, uint64_t *touched,
		       struct btrt_error *err)
{
	struct btrt_task *t = btrt_pool_task(pool, 0);
	for (uint32_t b = 0; b < t->n_buffers; b++)
		touched[b] = t->buffers[b].bytes;
	fill(t);
	int rc = load(io, io_state, t, 0, err);
	for (uint32_t s = 0; rc == 0 && s < n_stages; s++) {
		btrt_watch_begin((int)s, stages[s].name, "cpu (probing the buffers)", 0);
		if (!stages[s].cpu || stages[s].cpu(t) != 0)
			rc = 1; /* cannot tell: the buffer sizes stand */
		btrt_watch_end();
	}
	for (uint32_t b = 0; rc == 0 && b < t->n_buffers; b++) {
		const unsigned char *h = t->buffers[b].host;
		size_t n = h ? t->buffers[b].bytes : 0;
		uint64_t bytes = 0;
		for (size_t p = 0; p < n; p += PAGE) {
			size_t e = p + PAGE < n ? p + PAGE : n;
			for (size_t k = p; k < e; k++)
				if (h[k] != PATTERN) {
					bytes += e - p;
					break;
				}
		}
		touched[b] = h ? bytes : t->buffers[b].bytes;
	}
	return rc;
}

int btrt_probe_io_ms(struct btrt_pool *pool, const struct btrt_stage *stages, uint32_t n_stages,
		     const struct btrt_app_io *io, void *io_state, long reps,
		     double mean[BTRT_IO_N], double sd[BTRT_IO_N], struct btrt_error *err)
{
	struct btrt_task *t = btrt_pool_task(pool, 0);
	char msg[256] = "";
	double sum[BTRT_IO_N] = { 0 }, sum2[BTRT_IO_N] = { 0 };
	/* as btrt_pipeline_run does before the items flow (e.g. the
	 * sequential reference of every item, computed once) */
	if (io->prepare && io->prepare(io_state, (uint64_t)reps + 1, msg, sizeof(msg)))
		return btrt_error_set(err, BTRT_E_IO, 0, "preparing the check: %s", msg);
	for (long k = 0; k < reps + 1; k++) {
		t->seq = (uint64_t)k;
		uint64_t a = btrt_now_ns();
		if (io->load(io_state, (uint64_t)k, t, msg, sizeof(msg)) != 1)
			return btrt_error_set(err, BTRT_E_IO, 0, "loading input item %ld: %s", k, msg);
		uint64_t b = btrt_now_ns();
		for (uint32_t i = 0; i < n_stages; i++) {
			if (!stages[i].cpu)
				return btrt_error_set(err, BTRT_E_INVAL, 0,
						      "stage %u '%s' has no CPU kernel for the io "
						      "measurement",
						      i, stages[i].name);
			btrt_watch_begin((int)i, stages[i].name, "cpu (the io measurement)",
					 (uint64_t)k);
			int rc = stages[i].cpu(t);
			btrt_watch_end();
			if (rc)
				return btrt_error_set(err, BTRT_E_KERNEL, rc,
						      "stage %u '%s' failed (%d)", i, stages[i].name,
						      rc);
		}
		uint64_t c = btrt_now_ns();
		if (io->check(io_state, (uint64_t)k, t, NULL, msg, sizeof(msg)))
			return btrt_error_set(err, BTRT_E_IO, 0, "checking item %ld: %s", k, msg);
		uint64_t e = btrt_now_ns();
		if (k == 0)
			continue; /* warm-up */
		double v[BTRT_IO_N];
		v[BTRT_IO_LOAD] = (double)(b - a) / 1e6;
		v[BTRT_IO_CHECK] = (double)(e - c) / 1e6;
		v[BTRT_IO_SUM] = v[BTRT_IO_LOAD] + v[BTRT_IO_CHECK];
		for (int j = 0; j < BTRT_IO_N; j++) {
			sum[j] += v[j];
			sum2[j] += v[j] * v[j];
		}
	}
	for (int j = 0; j < BTRT_IO_N; j++) {
		mean[j] = sum[j] / (double)reps;
		double var = reps > 1 ? (sum2[j] - (double)reps * mean[j] * mean[j]) /
						(double)(reps - 1)
				      : 0;
		sd[j] = var > 0 ? sqrt(var) : 0;
	}
	return 0;
}
