// CUDA backend: device, unified buffers (managed / pinned / device), and
// chunk execution (one stream per chunk, asynchronous launches, events per
// stage, one synchronisation per task). Written against the CUDA runtime
// API; compiled by nvcc as C++ with C linkage for the runtime's entry points.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "btrt_cuda.h"
#include "btrt_internal.h"
}

struct btrt_cuda {
	int device;
	int integrated;            // shares memory with the CPU (Jetson)
	int concurrent_managed;    // CPU may touch managed memory while kernels run
	enum btrt_cuda_mem mem;
	char name[256];
	// Probe results by size (discrete GPUs, BTRT_CUDA_MEM_AUTO).
	size_t probe_bytes[64];
	double probe_managed_us[64], probe_pinned_us[64];
	int n_probe;
};

enum buf_kind { BK_HOST, BK_MANAGED, BK_PINNED, BK_DEVICE };

struct cuda_pool_state {
	unsigned char *kind;       // [n_buffers] enum buf_kind
	unsigned char *io_loaded;  // [n_buffers] 1: io.load refills it per task
};

struct cuda_chunk {
	struct btrt_cuda *cu;
	const struct btrt_pipeline_config *cfg;
	const struct btrt_chunk *c;
	struct btrt_pool *pool;
	cudaStream_t stream;
	cudaEvent_t *ev;           // [n_stages + 1]
	// Discrete GPU (docs/runtime.md, "CUDA buffer movement"): the managed
	// buffers whose value crosses to or from the host each task move to the
	// device before the chunk and back after it; the chunk's private ones
	// (weights, intermediates only its stages touch) move once per
	// TaskObject and then stay. Jetson-style attach: every touched one.
	uint32_t *sync;            // moved to the device before, every task
	uint32_t n_sync;
	uint32_t *back;            // moved to the host after, every task
	uint32_t n_back;
	uint32_t *priv;            // moved to the device on a slot's first task
	uint32_t n_priv;
	unsigned char *primed;     // [n_tasks] 1: the slot's private buffers moved
};

#define CUCHECK(call, err, what)                                                     \
	do {                                                                         \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			btrt_error_set(err, BTRT_E_CUDA, (int)e_, "%s: %s (%s)", what,   \
				       cudaGetErrorName(e_), cudaGetErrorString(e_));   \
			goto fail;                                                   \
		}                                                                    \
	} while (0)

// BTRT_CUDA_IO_PINNED=0 keeps io-loaded inputs in managed memory (the
// behaviour before btrt_pool_config.io_loaded), to measure the difference.
static int io_pinned_wanted(void)
{
	const char *e = getenv("BTRT_CUDA_IO_PINNED");
	return !(e && !strcmp(e, "0"));
}

// BTRT_CUDA_MOVE=all moves every managed buffer a chunk touches before it
// and every one it writes after it, each task (the behaviour before the
// shared/private split), to measure the difference.
static int move_all_wanted(void)
{
	const char *e = getenv("BTRT_CUDA_MOVE");
	return e && !strcmp(e, "all");
}

static cudaError_t prefetch(const void *p, size_t bytes, int device, cudaStream_t s)
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
	if (!cfg || cfg->device < 0) {
		const char *d = getenv("BTRT_CUDA_DEVICE");
		if (d && *d)
			cu->device = atoi(d);
	}
	cu->mem = cfg ? cfg->mem : BTRT_CUDA_MEM_AUTO;
	const char *mem = getenv("BTRT_CUDA_MEM");
	if (cu->mem == BTRT_CUDA_MEM_AUTO && mem) {
		if (strcmp(mem, "managed") == 0)
			cu->mem = BTRT_CUDA_MEM_MANAGED;
		else if (strcmp(mem, "pinned") == 0)
			cu->mem = BTRT_CUDA_MEM_PINNED;
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
		const char *sy = getenv("BTRT_CUDA_SYNC");
		unsigned flags = 0;
		if (sy && !strcmp(sy, "spin"))
			flags = cudaDeviceScheduleSpin;
		else if (sy && !strcmp(sy, "yield"))
			flags = cudaDeviceScheduleYield;
		else if (sy && !strcmp(sy, "block"))
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
		CUCHECK(prefetch(m, bytes, cu->device, s), err, "cudaMemPrefetchAsync (prefetch cost)");
		CUCHECK(cudaStreamSynchronize(s), err, "cudaStreamSynchronize (prefetch cost)");
		uint64_t b = btrt_now_ns();
		CUCHECK(prefetch(m, bytes, cudaCpuDeviceId, s), err, "cudaMemPrefetchAsync (prefetch cost)");
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

// ---- unified buffers ------------------------------------------------------

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
		CUCHECK(prefetch(m, words * 4, cu->device, s), err, "cudaMemPrefetchAsync (probe)");
		btrt_touch<<<blocks, 256, 0, s>>>((uint32_t *)m, words);
		CUCHECK(cudaGetLastError(), err, "probe kernel launch");
		CUCHECK(prefetch(m, words * 4, cudaCpuDeviceId, s), err, "cudaMemPrefetchAsync (probe)");
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
			 pool->cfg.io_loaded[b] && io_pinned_wanted())
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

// ---- chunks ---------------------------------------------------------------

static int buffer_listed(const uint32_t *l, uint32_t n, uint32_t b)
{
	for (uint32_t i = 0; i < n; i++)
		if (l[i] == b)
			return 1;
	return 0;
}

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
		int attach = !cu->concurrent_managed, all = move_all_wanted();
		for (uint32_t b = 0; b < nb; b++) {
			if (ps->kind[b] != BK_MANAGED)
				continue;
			int touched = 0, wrote = 0, outside = 0, written = 0;
			int last_writer = -1, read_after_last_write = 0;
			for (uint32_t st = 0; st < cfg->n_stages; st++) {
				int r = buffer_listed(cfg->stages[st].reads, cfg->stages[st].n_reads, b);
				int w = buffer_listed(cfg->stages[st].writes, cfg->stages[st].n_writes, b);
				int in = st >= first && st < last;
				touched |= in && (r || w);
				wrote |= in && w;
				outside |= !in && (r || w);
				written |= w;
				if (r && last_writer >= 0)
					read_after_last_write = 1;
				if (w) {
					last_writer = (int)st;
					read_after_last_write = 0;
				}
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
			int shared = ps->io_loaded[b] || (written && (outside || !read_after_last_write));
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
			CUCHECK(prefetch(bf->dev, bf->bytes, cu->device, s), err, "cudaMemPrefetchAsync(device)");
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
			CUCHECK(prefetch(bf->dev, bf->bytes, cu->device, s), err, "cudaMemPrefetchAsync(device)");
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
			CUCHECK(prefetch(bf->dev, bf->bytes, cudaCpuDeviceId, s), err, "cudaMemPrefetchAsync(host)");
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
