// Private to the CUDA backend (btrt_cuda.cu: the device; btrt_cuda_pool.cu:
// unified buffers; btrt_cuda_chunk.cu: chunk execution): the context, the
// per-pool and per-chunk state, the error macro and the prefetch wrapper.
#ifndef BTRT_CUDA_INTERNAL_H
#define BTRT_CUDA_INTERNAL_H

#include <cuda_runtime.h>

extern "C" {
#include "btrt_cuda.h"
#include "btrt_internal.h"
}

struct btrt_cuda {
	int device;
	int integrated;            // shares memory with the CPU (Jetson)
	int concurrent_managed;    // CPU may touch managed memory while kernels run
	enum btrt_cuda_mem mem;
	int move_all;              // btrt_cuda_config.move_all
	int io_managed;            // btrt_cuda_config.io_managed
	int no_read_mostly;        // btrt_cuda_config.no_read_mostly
	int probe_private;         // btrt_cuda_config.probe_private
	char *probe_file;          // btrt_cuda_config.probe_file (a copy), or NULL
	char name[256];
	// Probe results by size (discrete GPUs, BTRT_CUDA_MEM_AUTO).
	size_t probe_bytes[64];
	double probe_managed_us[64], probe_pinned_us[64];
	int n_probe;
};

// The same values as enum btrt_cuda_kind (btrt_cuda_place).
enum buf_kind { BK_HOST = BTRT_CUDA_KIND_HOST, BK_MANAGED = BTRT_CUDA_KIND_MANAGED,
		BK_PINNED = BTRT_CUDA_KIND_PINNED, BK_DEVICE = BTRT_CUDA_KIND_DEVICE };

struct cuda_pool_state {
	unsigned char *kind;       // [n_buffers] enum buf_kind
	unsigned char *io_loaded;  // [n_buffers] 1: io.load refills it per task
	unsigned char *read_mostly; // [n_buffers] 1: managed, cudaMemAdviseSetReadMostly
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

// cudaMemPrefetchAsync of [p, p + bytes) to device (cudaCpuDeviceId: the
// host) on stream s, for every CUDA runtime version.
cudaError_t btrt_cuda_prefetch(const void *p, size_t bytes, int device, cudaStream_t s);

#endif
