/* vecadd: CUDA launchers (asynchronous on the chunk's stream). */
#include "vecadd_task.h"

#include <cuda_runtime.h>

static __global__ void scale(const float *x, float *y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __fmul_rn(2.0f, x[i]);
}

static __global__ void add(const float *x, const float *y, float *z, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = __fadd_rn(y[i], x[i]);
}

static __global__ void square(float *z, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = __fmul_rn(z[i], z[i]);
}

static unsigned blocks(int64_t n) { return (unsigned)((n + 255) / 256); }

extern "C" int vecadd_scale_cuda(struct vecadd_task *t, void *stream)
{
	scale<<<blocks(t->params->n), 256, 0, (cudaStream_t)stream>>>(t->x, t->y, t->params->n);
	return (int)cudaGetLastError();
}

extern "C" int vecadd_add_cuda(struct vecadd_task *t, void *stream)
{
	add<<<blocks(t->params->n), 256, 0, (cudaStream_t)stream>>>(t->x, t->y, t->z, t->params->n);
	return (int)cudaGetLastError();
}

extern "C" int vecadd_square_cuda(struct vecadd_task *t, void *stream)
{
	square<<<blocks(t->params->n), 256, 0, (cudaStream_t)stream>>>(t->z, t->params->n);
	return (int)cudaGetLastError();
}
