// CUDA backend, unified buffers: managed, pinned, device-only or host
// memory per buffer (btrt_cuda_place; BTRT_CUDA_MEM_AUTO measures
// managed+prefetch against pinned on a discrete GPU for the buffers a stage
// writes), weights managed and read-mostly.
#include "btrt_cuda_internal.h"

#include <stdlib.h>
#include <string.h>

__global__ void btrt_touch(uint32_t *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] += 1u;
}

// cudaMemAdvise(SetReadMostly) on [p, p + bytes), for every CUDA runtime
// version (the location is ignored for this advice).
static cudaError_t read_mostly(const void *p, size_t bytes, int device)
{
#if CUDART_VERSION >= 13000
	struct cudaMemLocation loc;
	memset(&loc, 0, sizeof loc);
	loc.type = cudaMemLocationTypeDevice;
	loc.id = device;
	return cudaMemAdvise(p, bytes, cudaMemAdviseSetReadMostly, loc);
#else
	return cudaMemAdvise(p, bytes, cudaMemAdviseSetReadMostly, device);
#endif
}

// The probe's results for a size, kept in the process (64 sizes) and,
// with btrt_cuda_config.probe_file, in that file for the processes after.
static void remember(struct btrt_cuda *cu, size_t bytes, double managed_us, double pinned_us)
{
	if (cu->n_probe < 64) {
		cu->probe_bytes[cu->n_probe] = bytes;
		cu->probe_managed_us[cu->n_probe] = managed_us;
		cu->probe_pinned_us[cu->n_probe] = pinned_us;
		cu->n_probe++;
	}
}

// Time (us, best of 3) of one GPU read+write pass over `bytes` in managed
// memory with prefetch to the device and back, and in pinned host memory;
// a size probed before in this process, or in an earlier one that wrote
// btrt_cuda_config.probe_file, is not probed again.
static int probe(struct btrt_cuda *cu, size_t bytes, double *managed_us, double *pinned_us,
		 struct btrt_error *err)
{
	for (int i = 0; i < cu->n_probe; i++)
		if (cu->probe_bytes[i] == bytes) {
			*managed_us = cu->probe_managed_us[i];
			*pinned_us = cu->probe_pinned_us[i];
			return 0;
		}
	if (btrt_probe_file_find(cu->probe_file, bytes, managed_us, pinned_us)) {
		remember(cu, bytes, *managed_us, *pinned_us);
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
	remember(cu, bytes, best_m, best_h);
	btrt_probe_file_add(cu->probe_file, bytes, best_m, best_h);
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
	ps->read_mostly = (unsigned char *)calloc(nb + 1, 1);
	if (!ps->kind || !ps->io_loaded || !ps->read_mostly)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	if (pool->cfg.io_loaded) // borrowed during creation only: keep a copy
		memcpy(ps->io_loaded, pool->cfg.io_loaded, nb);
	CUCHECK(cudaSetDevice(cu->device), err, "cudaSetDevice");
	// Memory kind per buffer (the same for every TaskObject):
	// btrt_cuda_place (btrt_cuda_rule.c), the probe deciding the buffers
	// a stage writes on a discrete GPU; host memory for those no GPU
	// stage of the run touches (cfg.gpu_touched, borrowed: read here only).
	{
		struct btrt_cuda_rule rule = { cu->integrated, cu->concurrent_managed, cu->mem,
					       cu->io_managed, cu->no_read_mostly,
					       cu->probe_private };
		for (uint32_t b = 0; b < nb; b++) {
			size_t bytes = btrt_pool_buf(pool, 0, b)->bytes;
			int touched = pool->cfg.gpu_touched ? (int)pool->cfg.gpu_touched[b]
							    : (int)BTRT_GPU_SHARED;
			struct btrt_cuda_place pl = btrt_cuda_place(&rule, &pool->descs[b],
								    ps->io_loaded[b], touched);
			enum buf_kind k = (enum buf_kind)pl.kind;
			if (pl.kind == BTRT_CUDA_KIND_PROBE) {
				if (!pool->probe_managed_us) {
					pool->probe_managed_us = (double *)calloc(nb + 1, sizeof(double));
					pool->probe_pinned_us = (double *)calloc(nb + 1, sizeof(double));
					if (!pool->probe_managed_us || !pool->probe_pinned_us)
						return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
				}
				uint64_t t = btrt_now_ns();
				if (probe(cu, bytes, &pool->probe_managed_us[b], &pool->probe_pinned_us[b], err))
					return -1;
				pool->probe_ms += (double)(btrt_now_ns() - t) / 1e6;
				k = pool->probe_managed_us[b] < pool->probe_pinned_us[b] ? BK_MANAGED : BK_PINNED;
			}
			ps->kind[b] = (unsigned char)k;
			ps->read_mostly[b] = (unsigned char)(k == BK_MANAGED && pl.read_mostly);
			static const char *names[] = { "host", "cuda-managed", "cuda-pinned", "cuda-device" };
			pool->mem_kind[b] = ps->read_mostly[b] ? "cuda-managed-read-mostly" : names[k];
		}
	}
	for (uint32_t s = 0; s < nt; s++)
		for (uint32_t b = 0; b < nb; b++) {
			struct btrt_buffer *bf = btrt_pool_buf(pool, s, b);
			size_t bytes = bf->bytes ? (bf->bytes + 63) / 64 * 64 : 64;
			void *p = NULL;
			uint64_t t0 = btrt_now_ns();
			switch ((enum buf_kind)ps->kind[b]) {
			case BK_HOST:
				if (btrt_pool_host_buffer(pool, b, bf, err))
					return -1;
				break;
			case BK_MANAGED:
				// Without concurrent managed access, start attached to the
				// host; GPU chunks attach to their stream per task.
				CUCHECK(cudaMallocManaged(&p, bytes, cu->concurrent_managed ? cudaMemAttachGlobal
											    : cudaMemAttachHost),
					err, "cudaMallocManaged");
				btrt_pool_alloc_ms(pool, b, t0);
				btrt_pool_zero(pool, p, bytes);
				bf->host = bf->dev = p;
				if (ps->read_mostly[b]) {
					t0 = btrt_now_ns();
					CUCHECK(read_mostly(p, bytes, cu->device), err,
						"cudaMemAdvise(ReadMostly)");
					btrt_pool_alloc_ms(pool, b, t0);
				}
				break;
			case BK_PINNED:
				CUCHECK(cudaHostAlloc(&p, bytes,
						      cudaHostAllocMapped | cudaHostAllocPortable),
					err, "cudaHostAlloc");
				bf->host = p;
				CUCHECK(cudaHostGetDevicePointer(&bf->dev, p, 0), err, "cudaHostGetDevicePointer");
				btrt_pool_alloc_ms(pool, b, t0);
				btrt_pool_zero(pool, p, bytes);
				break;
			case BK_DEVICE: {
				CUCHECK(cudaMalloc(&p, bytes), err, "cudaMalloc");
				btrt_pool_alloc_ms(pool, b, t0);
				uint64_t z = btrt_now_ns();
				CUCHECK(cudaMemset(p, 0, bytes), err, "cudaMemset");
				pool->zero_ms += (double)(btrt_now_ns() - z) / 1e6;
				bf->host = NULL;
				bf->dev = p;
				break;
			}
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
			case BK_HOST: btrt_pool_host_buffer_free(bf); break;
			case BK_MANAGED: cudaFree(bf->dev); break;
			case BK_PINNED: cudaFreeHost(bf->host); break;
			case BK_DEVICE: cudaFree(bf->dev); break;
			}
			bf->host = bf->dev = NULL;
		}
	free(ps->kind);
	free(ps->io_loaded);
	free(ps->read_mostly);
	free(ps);
	pool->backend_state = NULL;
}
