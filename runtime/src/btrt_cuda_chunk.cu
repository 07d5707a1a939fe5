// CUDA backend, chunk execution: one stream per chunk, asynchronous
// launches, events per stage, the managed buffers' movement and one
// synchronisation per task.
#include "btrt_cuda_internal.h"

#include <stdlib.h>
#include <string.h>

extern "C" int btrt_cuda_chunk_init(struct btrt_cuda *cu, const struct btrt_pipeline_config *cfg,
				    uint32_t ci, void **state, struct btrt_error *err)
{
	const struct btrt_chunk *c = &cfg->chunks[ci];
	struct btrt_pool *pool = cfg->pool;
	struct cuda_pool_state *ps = (struct cuda_pool_state *)pool->backend_state;
	uint32_t nb = pool->cfg.n_buffers;
	*state = NULL;
	struct cuda_chunk *cc = (struct cuda_chunk *)calloc(1, sizeof *cc);
	if (!cc)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	cc->cu = cu;
	cc->cfg = cfg;
	cc->c = c;
	cc->pool = pool;
	cc->ev = (cudaEvent_t *)calloc(c->n_stages + 1, sizeof *cc->ev);
	cc->sync = (uint32_t *)calloc(nb + 1, sizeof *cc->sync);
	cc->back = (uint32_t *)calloc(nb + 1, sizeof *cc->back);
	cc->priv = (uint32_t *)calloc(nb + 1, sizeof *cc->priv);
	cc->primed = (unsigned char *)calloc(pool->cfg.n_tasks + 1, 1);
	if (!cc->ev || !cc->sync || !cc->back || !cc->priv || !cc->primed) {
		btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
		goto fail;
	}
	{
		uint32_t first = c->first_stage, last = c->first_stage + c->n_stages; // [first, last)
		int attach = !cu->concurrent_managed, all = cu->move_all;
		for (uint32_t b = 0; b < nb; b++) {
			if (ps->kind[b] != BK_MANAGED)
				continue;
			int touched = 0, wrote = 0, outside = 0, written = 0;
			for (uint32_t st = 0; st < cfg->n_stages; st++) {
				int r = btrt_u32_listed(cfg->stages[st].reads, cfg->stages[st].n_reads, b);
				int w = btrt_u32_listed(cfg->stages[st].writes, cfg->stages[st].n_writes, b);
				int in = st >= first && st < last;
				touched |= in && (r || w);
				wrote |= in && w;
				outside |= !in && (r || w);
				written |= w;
			}
			if (!touched)
				continue;
			if (attach || all) {
				cc->sync[cc->n_sync++] = b;
				if (!attach && wrote)
					cc->back[cc->n_back++] = b;
				continue;
			}
			// Shared: some other stage or the io thread touches it, or it
			// is an output (its final value read by no stage: the
			// output check reads it on the host). A buffer no stage
			// writes stays wherever it is once moved (weights).
			int shared = ps->io_loaded[b] || (written && outside) ||
				     btrt_stages_output(cfg->stages, cfg->n_stages,
							pool->cfg.buffers, b);
			if (shared) {
				cc->sync[cc->n_sync++] = b;
				cc->back[cc->n_back++] = b;
			} else {
				cc->priv[cc->n_priv++] = b;
			}
		}
	}
	CUCHECK(cudaSetDevice(cu->device), err, "cudaSetDevice");
	CUCHECK(cudaStreamCreateWithFlags(&cc->stream, cudaStreamNonBlocking), err, "cudaStreamCreate");
	for (uint32_t k = 0; k <= c->n_stages; k++)
		CUCHECK(cudaEventCreate(&cc->ev[k]), err, "cudaEventCreate");
	*state = cc;
	return 0;
fail:
	btrt_cuda_chunk_fini(cc);
	return -1;
}

extern "C" int btrt_cuda_chunk_exec(void *state, struct btrt_task *t, struct btrt_gpu_time *times,
				    struct btrt_error *err)
{
	struct cuda_chunk *cc = (struct cuda_chunk *)state;
	struct btrt_cuda *cu = cc->cu;
	const struct btrt_chunk *c = cc->c;
	cudaStream_t s = cc->stream;
	int attach = !cu->concurrent_managed; // Jetson-style managed memory
	uint64_t t0 = btrt_now_ns();
	// A slot's private buffers move to the device once, then stay.
	if (!attach && t->slot < cc->pool->cfg.n_tasks && !cc->primed[t->slot]) {
		for (uint32_t i = 0; i < cc->n_priv; i++) {
			struct btrt_buffer *bf = &t->buffers[cc->priv[i]];
			CUCHECK(btrt_cuda_prefetch(bf->dev, bf->bytes, cu->device, s), err, "cudaMemPrefetchAsync(device)");
		}
		cc->primed[t->slot] = 1;
	}
	// Make the shared buffers available to the GPU.
	for (uint32_t i = 0; i < cc->n_sync; i++) {
		struct btrt_buffer *bf = &t->buffers[cc->sync[i]];
		if (attach)
			CUCHECK(cudaStreamAttachMemAsync(s, bf->dev, 0, cudaMemAttachSingle), err,
				"cudaStreamAttachMemAsync(single)");
		else
			CUCHECK(btrt_cuda_prefetch(bf->dev, bf->bytes, cu->device, s), err, "cudaMemPrefetchAsync(device)");
	}
	CUCHECK(cudaEventRecord(cc->ev[0], s), err, "cudaEventRecord");
	for (uint32_t k = 0; k < c->n_stages; k++) {
		uint32_t st = c->first_stage + k;
		int rc = cc->cfg->stages[st].cuda(t, (void *)s);
		if (rc != 0) {
			cudaStreamSynchronize(s); // leave nothing in flight on this TaskObject
			err->stage = (int)st;
			return btrt_error_set(err, BTRT_E_KERNEL, rc, "cuda launcher returned %d (%s)", rc,
					      cudaGetErrorName((cudaError_t)rc));
		}
		CUCHECK(cudaEventRecord(cc->ev[k + 1], s), err, "cudaEventRecord");
	}
	// Hand the buffers back to the host.
	if (attach) {
		for (uint32_t i = 0; i < cc->n_sync; i++)
			CUCHECK(cudaStreamAttachMemAsync(s, t->buffers[cc->sync[i]].dev, 0, cudaMemAttachHost),
				err, "cudaStreamAttachMemAsync(host)");
	} else {
		for (uint32_t i = 0; i < cc->n_back; i++) {
			struct btrt_buffer *bf = &t->buffers[cc->back[i]];
			CUCHECK(btrt_cuda_prefetch(bf->dev, bf->bytes, cudaCpuDeviceId, s), err, "cudaMemPrefetchAsync(host)");
		}
	}
	// The one synchronisation of this chunk for this task.
	CUCHECK(cudaStreamSynchronize(s), err, "cudaStreamSynchronize");
	// Stage k ran between events k and k+1 (ms since event 0).
	{
		float prev = 0;
		for (uint32_t k = 0; k < c->n_stages; k++) {
			float b = 0;
			CUCHECK(cudaEventElapsedTime(&b, cc->ev[0], cc->ev[k + 1]), err, "cudaEventElapsedTime");
			times[k].start_ns = t0 + (uint64_t)((double)prev * 1e6);
			times[k].end_ns = t0 + (uint64_t)((double)b * 1e6);
			if (times[k].end_ns <= times[k].start_ns)
				times[k].end_ns = times[k].start_ns + 1;
			prev = b;
		}
	}
	return 0;
fail:
	return -1;
}

extern "C" void btrt_cuda_chunk_fini(void *state)
{
	struct cuda_chunk *cc = (struct cuda_chunk *)state;
	if (!cc)
		return;
	if (cc->stream)
		cudaStreamSynchronize(cc->stream);
	if (cc->ev)
		for (uint32_t k = 0; k <= cc->c->n_stages; k++)
			if (cc->ev[k])
				cudaEventDestroy(cc->ev[k]);
	if (cc->stream)
		cudaStreamDestroy(cc->stream);
	free(cc->ev);
	free(cc->sync);
	free(cc->back);
	free(cc->priv);
	free(cc->primed);
	free(cc);
}
