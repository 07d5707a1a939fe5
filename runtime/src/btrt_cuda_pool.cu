// CUDA backend, unified buffers: managed, pinned, device-only or host
// memory per buffer (BTRT_CUDA_MEM_AUTO measures managed+prefetch against
// pinned on a discrete GPU).
#include "btrt_cuda_internal.h"

#include <stdlib.h>
#include <string.h>

__global__ void btrt_touch(uint32_t *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] += 1u;
}

// Time (us, best of 3) of one GPU read+write pass over `bytes` in managed
// memory with prefetch to the device and back, and in pinned host memory.
static int probe(struct btrt_cuda *cu, size_t bytes, double *managed_us, double *pinned_us,
		 struct btrt_error *err)
{
	for (int i = 0; i < cu->n_probe; i++)
		if (cu->probe_bytes[i] == bytes) {
			*managed_us = cu->probe_managed_us[i];
			*pinned_us = cu->probe_pinned_us[i];
			return 0;
		}
	void *m = NULL, *h = NULL;
	cudaStream_t s = NULL;
	size_t words = bytes / 4 ? bytes / 4 : 1;
	unsigned blocks = (unsigned)((words + 255) / 256 < 1024 ? (words + 255) / 256 : 1024);
	double best_m = 1e30, best_h = 1e30;
	CUCHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), err, "cudaStreamCreate (probe)");
	CUCHECK(cudaMallocManaged(&m, words * 4, cudaMemAttachGlobal), err, "cudaMallocManaged (probe)");
	CUCHECK(cudaHostAlloc(&h, words * 4, cudaHostAllocMapped | cudaHostAllocPortable), err,
		"cudaHostAlloc (probe)");
	memset(m, 0, words * 4);
	memset(h, 0, words * 4);
	for (int rep = 0; rep < 4; rep++) {
		uint64_t a = btrt_now_ns();
		CUCHECK(btrt_cuda_prefetch(m, words * 4, cu->device, s), err, "cudaMemPrefetchAsync (probe)");
		btrt_touch<<<blocks, 256, 0, s>>>((uint32_t *)m, words);
		CUCHECK(cudaGetLastError(), err, "probe kernel launch");
		CUCHECK(btrt_cuda_prefetch(m, words * 4, cudaCpuDeviceId, s), err, "cudaMemPrefetchAsync (probe)");
		CUCHECK(cudaStreamSynchronize(s), err, "cudaStreamSynchronize (probe)");
		uint64_t b = btrt_now_ns();
		btrt_touch<<<blocks, 256, 0, s>>>((uint32_t *)h, words);
		CUCHECK(cudaGetLastError(), err, "probe kernel launch");
		CUCHECK(cudaStreamSynchronize(s), err, "cudaStreamSynchronize (probe)");
		uint64_t c = btrt_now_ns();
		if (rep == 0)
			continue; // warm-up (module load, first migration)
		if ((double)(b - a) / 1e3 < best_m)
			best_m = (double)(b - a) / 1e3;
		if ((double)(c - b) / 1e3 < best_h)
			best_h = (double)(c - b) / 1e3;
	}
	cudaFree(m);
	cudaFreeHost(h);
	cudaStreamDestroy(s);
	*managed_us = best_m;
	*pinned_us = best_h;
	if (cu->n_probe < 64) {
		cu->probe_bytes[cu->n_probe] = bytes;
		cu->probe_managed_us[cu->n_probe] = best_m;
		cu->probe_pinned_us[cu->n_probe] = best_h;
		cu->n_probe++;
	}
	return 0;
fail:
	if (m)
		cudaFree(m);
	if (h)
		cudaFreeHost(h);
	if (s)
		cudaStreamDestroy(s);
	return -1;
}

extern "C" int btrt_cuda_pool_init(struct btrt_cuda *cu, struct btrt_pool *pool, struct btrt_error *err)
{
	uint32_t nb = pool->cfg.n_buffers, nt = pool->cfg.n_tasks;
	struct cuda_pool_state *ps = (struct cuda_pool_state *)calloc(1, sizeof *ps);
	if (!ps)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	pool->backend_state = ps;
	ps->kind = (unsigned char *)calloc(nb + 1, 1);
	ps->io_loaded = (unsigned char *)calloc(nb + 1, 1);
	if (!ps->kind || !ps->io_loaded)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	if (pool->cfg.io_loaded) // borrowed during creation only: keep a copy
		memcpy(ps->io_loaded, pool->cfg.io_loaded, nb);
	CUCHECK(cudaSetDevice(cu->device), err, "cudaSetDevice");
	// Memory kind per buffer (the same for every TaskObject).
	for (uint32_t b = 0; b < nb; b++) {
		enum btrt_placement pl = pool->descs[b].placement;
		size_t bytes = btrt_pool_buf(pool, 0, b)->bytes;
		enum buf_kind k;
		if (pl == BTRT_PLACE_HOST)
			k = BK_HOST;
		else if (pl == BTRT_PLACE_DEVICE)
			k = BK_DEVICE;
		else if (cu->mem == BTRT_CUDA_MEM_MANAGED)
			k = BK_MANAGED;
		else if (cu->mem == BTRT_CUDA_MEM_PINNED)
			k = BK_PINNED;
		else if (cu->integrated || !cu->concurrent_managed)
			k = BK_MANAGED; // Jetson: one memory; attach per stream
		else if (pool->descs[b].stage_read_only && pool->cfg.io_loaded &&
			 pool->cfg.io_loaded[b] && !cu->io_managed)
			// Refilled by io.load for every task and read by the GPU
			// (octree's points): pinned host memory, so that neither
			// the GPU's prefetch nor the next io.load migrates it.
			k = BK_PINNED;
		else if (pool->descs[b].stage_read_only)
			// Discrete GPU, a buffer no stage writes (weights, inputs):
			// kernels read it many times per stage, so it should sit in
			// device memory; managed memory moves it there once per
			// refill by the CPU, where pinned memory would cross PCIe on
			// every read (AlexNet's convolutions: 5-10x slower).
			k = BK_MANAGED;
		else {
			if (!pool->probe_managed_us) {
				pool->probe_managed_us = (double *)calloc(nb + 1, sizeof(double));
				pool->probe_pinned_us = (double *)calloc(nb + 1, sizeof(double));
				if (!pool->probe_managed_us || !pool->probe_pinned_us)
					return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
			}
			if (probe(cu, bytes, &pool->probe_managed_us[b], &pool->probe_pinned_us[b], err))
				return -1;
			k = pool->probe_managed_us[b] < pool->probe_pinned_us[b] ? BK_MANAGED : BK_PINNED;
		}
		ps->kind[b] = (unsigned char)k;
		static const char *names[] = { "host", "cuda-managed", "cuda-pinned", "cuda-device" };
		pool->mem_kind[b] = names[k];
	}
	for (uint32_t s = 0; s < nt; s++)
		for (uint32_t b = 0; b < nb; b++) {
			struct btrt_buffer *bf = btrt_pool_buf(pool, s, b);
			size_t bytes = bf->bytes ? (bf->bytes + 63) / 64 * 64 : 64;
			void *p = NULL;
			switch ((enum buf_kind)ps->kind[b]) {
			case BK_HOST:
				if (posix_memalign(&p, 64, bytes))
					return btrt_error_set(err, BTRT_E_NOMEM, 0, "cannot allocate '%s'",
							      pool->descs[b].name);
				memset(p, 0, bytes);
				bf->host = bf->dev = p;
				break;
			case BK_MANAGED:
				// Without concurrent managed access, start attached to the
				// host; GPU chunks attach to their stream per task.
				CUCHECK(cudaMallocManaged(&p, bytes, cu->concurrent_managed ? cudaMemAttachGlobal
											    : cudaMemAttachHost),
					err, "cudaMallocManaged");
				memset(p, 0, bytes);
				bf->host = bf->dev = p;
				break;
			case BK_PINNED:
				CUCHECK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable),
					err, "cudaHostAlloc");
				memset(p, 0, bytes);
				bf->host = p;
				CUCHECK(cudaHostGetDevicePointer(&bf->dev, p, 0), err, "cudaHostGetDevicePointer");
				break;
			case BK_DEVICE:
				CUCHECK(cudaMalloc(&p, bytes), err, "cudaMalloc");
				CUCHECK(cudaMemset(p, 0, bytes), err, "cudaMemset");
				bf->host = NULL;
				bf->dev = p;
				break;
			}
		}
	CUCHECK(cudaDeviceSynchronize(), err, "cudaDeviceSynchronize");
	return 0;
fail:
	return -1;
}

extern "C" void btrt_cuda_pool_fini(struct btrt_cuda *cu, struct btrt_pool *pool)
{
	(void)cu;
	struct cuda_pool_state *ps = (struct cuda_pool_state *)pool->backend_state;
	if (!ps)
		return;
	cudaDeviceSynchronize();
	uint32_t nb = pool->cfg.n_buffers, nt = pool->cfg.n_tasks;
	for (uint32_t s = 0; s < nt; s++)
		for (uint32_t b = 0; b < nb; b++) {
			struct btrt_buffer *bf = btrt_pool_buf(pool, s, b);
			if (!bf->host && !bf->dev)
				continue;
			switch ((enum buf_kind)ps->kind[b]) {
			case BK_HOST: free(bf->host); break;
			case BK_MANAGED: cudaFree(bf->dev); break;
			case BK_PINNED: cudaFreeHost(bf->host); break;
			case BK_DEVICE: cudaFree(bf->dev); break;
			}
			bf->host = bf->dev = NULL;
		}
	free(ps->kind);
	free(ps->io_loaded);
	free(ps);
	pool->backend_state = NULL;
}
