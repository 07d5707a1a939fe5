/* Probes of what one task does to the TaskObject's buffers, for the chunk
 * model (docs/scheduler.md, "The chunk model") and the CUDA placement of
 * io-loaded inputs: which buffers io.load refills per task, and how many
 * bytes of each buffer a task touches. Both use TaskObject 0 of the probe
 * pool, one TaskObject in host memory that the caller keeps to the end of
 * the run (btrt_probe_pool_create makes it), outside any timing. */
#include "btrt_internal.h"

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
	for (uint32_t s = 0; rc == 0 && s < n_stages; s++)
		if (!stages[s].cpu || stages[s].cpu(t) != 0)
			rc = 1; /* cannot tell: the buffer sizes stand */
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
