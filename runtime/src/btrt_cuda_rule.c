/* The CUDA pool's placement rule (btrt_cuda.h: btrt_cuda_place), kept free
 * of CUDA calls so that it builds and is tested without a GPU. */
#include "btrt_cuda.h"
#include "btrt_pipeline.h"

struct btrt_cuda_place btrt_cuda_place(const struct btrt_cuda_rule *rule,
				       const struct btrt_buffer_desc *d, int io_loaded,
				       int gpu_touched)
{
	struct btrt_cuda_place p = { BTRT_CUDA_KIND_PROBE, 0 };
	if (d->placement == BTRT_PLACE_HOST)
		p.kind = BTRT_CUDA_KIND_HOST;
	else if (d->placement == BTRT_PLACE_DEVICE)
		p.kind = BTRT_CUDA_KIND_DEVICE;
	else if (!gpu_touched)
		/* Only CPU chunks and the io threads use it in this run:
		 * neither pinning nor managed pages buy anything. */
		p.kind = BTRT_CUDA_KIND_HOST;
	else if (rule->mem == BTRT_CUDA_MEM_MANAGED)
		p.kind = BTRT_CUDA_KIND_MANAGED;
	else if (rule->mem == BTRT_CUDA_MEM_PINNED)
		p.kind = BTRT_CUDA_KIND_PINNED;
	else if (rule->integrated || !rule->concurrent_managed)
		p.kind = BTRT_CUDA_KIND_MANAGED; /* Jetson: one memory; attach per stream */
	else if (d->stage_read_only && io_loaded && !rule->io_managed)
		/* Refilled by io.load for every task and read by the GPU
		 * (octree's points): pinned host memory, so that neither the
		 * GPU's prefetch nor the next io.load migrates it. */
		p.kind = BTRT_CUDA_KIND_PINNED;
	else if (d->stage_read_only) {
		/* A buffer no stage writes (weights, inputs): kernels read it
		 * many times per stage, so it should sit in device memory;
		 * managed memory moves it there once per refill by the CPU,
		 * where pinned memory would cross PCIe on every read
		 * (AlexNet's convolutions: 5-10x slower). Read-mostly, so that
		 * a CPU chunk reading weights beside a GPU chunk migrates
		 * nothing (issue 25). Not for a buffer io.load rewrites every
		 * task: each write would drop the GPU's copy. */
		p.kind = BTRT_CUDA_KIND_MANAGED;
		p.read_mostly = !io_loaded && !rule->no_read_mostly;
	} else if (gpu_touched == BTRT_GPU_PRIVATE && !io_loaded && !rule->probe_private)
		/* An intermediate only GPU stages touch: the chunk moves it to
		 * the device once per TaskObject, and the kernels then read
		 * and write device memory. In pinned host memory every access
		 * crosses the bus (the probe times one round trip of a shared
		 * buffer, which a private one never makes). */
		p.kind = BTRT_CUDA_KIND_MANAGED;
	return p;
}
