// CUDA backend, the device: the context (device, memory rule, host-wait
// policy) and the prefetch cost the profiler measures. Unified buffers are
// in btrt_cuda_pool.cu, chunk execution in btrt_cuda_chunk.cu. Written
// against the CUDA runtime API; compiled by nvcc as C++ with C linkage for
// the runtime's entry points.
#include "btrt_cuda_internal.h"

#include <stdlib.h>
#include <string.h>

cudaError_t btrt_cuda_prefetch(const void *p, size_t bytes, int device, cudaStream_t s)
{
#if CUDART_VERSION >= 13000
	struct cudaMemLocation loc;
	memset(&loc, 0, sizeof loc);
	if (device == cudaCpuDeviceId) {
		loc.type = cudaMemLocationTypeHost;
		loc.id = 0;
	} else {
		loc.type = cudaMemLocationTypeDevice;
		loc.id = device;
	}
	return cudaMemPrefetchAsync(p, bytes, loc, 0, s);
#else
	return cudaMemPrefetchAsync(p, bytes, device, s);
#endif
}

extern "C" int btrt_cuda_create(struct btrt_cuda **out, const struct btrt_cuda_config *cfg,
				struct btrt_error *err)
{
	*out = NULL;
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0)
		return btrt_error_set(err, BTRT_E_NODEV, (int)e, "no CUDA device (%s)",
				      e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
	struct btrt_cuda *cu = (struct btrt_cuda *)calloc(1, sizeof *cu);
	if (!cu)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	cu->device = cfg && cfg->device >= 0 ? cfg->device : 0;
	cu->mem = cfg ? cfg->mem : BTRT_CUDA_MEM_AUTO;
	cu->move_all = cfg && cfg->move_all;
	cu->io_managed = cfg && cfg->io_managed;
	cu->no_read_mostly = cfg && cfg->no_read_mostly;
	cu->probe_private = cfg && cfg->probe_private;
	if (cfg && cfg->probe_file && !(cu->probe_file = strdup(cfg->probe_file))) {
		free(cu);
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "out of memory");
	}
	if (cu->device >= n) {
		int d = cu->device;
		free(cu);
		return btrt_error_set(err, BTRT_E_NODEV, 0, "CUDA device %d of %d", d, n);
	}
	struct cudaDeviceProp prop;
	CUCHECK(cudaSetDevice(cu->device), err, "cudaSetDevice");
	// How a dispatcher waits for its stream: CUDA's default (auto: spin
	// while there are more cores than GPU contexts), or BTRT_CUDA_SYNC=
	// spin|yield|block. Measured on an H100 (docs/results/h100-model/
	// probe.md): block shortens octree's GPU-only period (the dispatcher
	// and the io thread share the service core) but lengthens
	// alexnet-dense's, whose chunks sync after short kernels; neither
	// wins everywhere, so the default stays CUDA's.
	{
		enum btrt_cuda_sync sy = cfg ? cfg->sync : BTRT_CUDA_SYNC_DEFAULT;
		unsigned flags = 0;
		if (sy == BTRT_CUDA_SYNC_SPIN)
			flags = cudaDeviceScheduleSpin;
		else if (sy == BTRT_CUDA_SYNC_YIELD)
			flags = cudaDeviceScheduleYield;
		else if (sy == BTRT_CUDA_SYNC_BLOCK)
			flags = cudaDeviceScheduleBlockingSync;
		if (flags && cudaSetDeviceFlags(flags) != cudaSuccess)
			(void)cudaGetLastError(); // context already active: keep its flags
	}
	CUCHECK(cudaGetDeviceProperties(&prop, cu->device), err, "cudaGetDeviceProperties");
	snprintf(cu->name, sizeof cu->name, "%s", prop.name);
	CUCHECK(cudaDeviceGetAttribute(&cu->integrated, cudaDevAttrIntegrated, cu->device), err,
		"cudaDeviceGetAttribute(Integrated)");
	CUCHECK(cudaDeviceGetAttribute(&cu->concurrent_managed, cudaDevAttrConcurrentManagedAccess,
				       cu->device), err, "cudaDeviceGetAttribute(ConcurrentManagedAccess)");
	*out = cu;
	return 0;
fail:
	free(cu);
	return -1;
}

extern "C" void btrt_cuda_destroy(struct btrt_cuda *cu)
{
	if (cu)
		free(cu->probe_file);
	free(cu);
}

extern "C" const char *btrt_cuda_device_name(const struct btrt_cuda *cu)
{
	return cu->name;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

extern "C" int btrt_cuda_prefetch_cost(struct btrt_cuda *cu, size_t bytes, int reps, double *in_ms,
				       double *out_ms, struct btrt_error *err)
{
	void *m = NULL;
	cudaStream_t s = NULL;
	int rc = -1;
	if (reps < 1 || reps > 1000)
		reps = 1000;
	double *tin = (double *)calloc((size_t)reps * 2, sizeof(double)), *tout = tin + reps;
	if (!tin)
		return btrt_error_set(err, BTRT_E_NOMEM, 0, "prefetch cost samples");
	CUCHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), err, "cudaStreamCreate (prefetch cost)");
	CUCHECK(cudaMallocManaged(&m, bytes ? bytes : 1, cudaMemAttachGlobal), err,
		"cudaMallocManaged (prefetch cost)");
	for (int rep = -1; rep < reps; rep++) {
		memset(m, rep & 0xff, bytes); // the host owns the pages, as after a CPU chunk
		uint64_t a = btrt_now_ns();
		CUCHECK(btrt_cuda_prefetch(m, bytes, cu->device, s), err, "cudaMemPrefetchAsync (prefetch cost)");
		CUCHECK(cudaStreamSynchronize(s), err, "cudaStreamSynchronize (prefetch cost)");
		uint64_t b = btrt_now_ns();
		CUCHECK(btrt_cuda_prefetch(m, bytes, cudaCpuDeviceId, s), err, "cudaMemPrefetchAsync (prefetch cost)");
		CUCHECK(cudaStreamSynchronize(s), err, "cudaStreamSynchronize (prefetch cost)");
		uint64_t c = btrt_now_ns();
		if (rep < 0)
			continue; // warm-up
		tin[rep] = (double)(b - a) / 1e6;
		tout[rep] = (double)(c - b) / 1e6;
	}
	qsort(tin, (size_t)reps, sizeof(double), cmp_double);
	qsort(tout, (size_t)reps, sizeof(double), cmp_double);
	*in_ms = tin[reps / 2];
	*out_ms = tout[reps / 2];
	rc = 0;
fail:
	if (m)
		cudaFree(m);
	if (s)
		cudaStreamDestroy(s);
	free(tin);
	return rc;
}

extern "C" int btrt_cuda_integrated(const struct btrt_cuda *cu)
{
	return cu->integrated;
}
