// One tiny kernel per task: measures the runtime's per-task cost of a CUDA chunk.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include <btrt.h>
}

__global__ void k_touch(uint32_t *d, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		d[i] += 1u;
}

extern "C" int bench_touch_cuda(void *task, void *stream)
{
	struct btrt_task *t = (struct btrt_task *)task;
	k_touch<<<1, 64, 0, (cudaStream_t)stream>>>((uint32_t *)t->buffers[0].dev, 64);
	return (int)cudaGetLastError();
}
