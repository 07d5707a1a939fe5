// CUDA launchers of the toy app (C linkage, docs/app-format.md "Kernel ABI").
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "toy.h"
}

#define TOY_BLOCK 256

__global__ void k_scale(const uint32_t *in, uint32_t *a, uint32_t *meta, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0)
		meta[1] += 1u;
	if (i < n)
		a[i] = in[i] * 3u;
}

__global__ void k_offset(const uint32_t *a, uint32_t *b, uint32_t *meta, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0)
		meta[1] += 1u;
	if (i < n)
		b[i] = a[i] + TOY_OFFSET;
}

__global__ void k_square(const uint32_t *b, uint32_t *a, uint32_t *meta, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0)
		meta[1] += 1u;
	if (i < n)
		a[i] = b[i] * b[i];
}

__global__ void k_mix(const uint32_t *a, const uint32_t *in, uint32_t *out, uint32_t *meta, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0)
		meta[1] += 1u;
	if (i < n)
		out[i] = a[i] + in[i];
}

__global__ void k_seal(uint32_t *out, const uint32_t *meta_r, uint32_t *meta, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] ^= meta_r[0];
	if (i == 0)
		meta[1] += 1u;
}

static unsigned grid(int64_t n)
{
	return (unsigned)((n + TOY_BLOCK - 1) / TOY_BLOCK);
}

#define LAUNCH_RET() return (int)cudaGetLastError()

extern "C" int toy_scale_cuda(void *tp, void *stream)
{
	toy_task *t = (toy_task *)tp;
	k_scale<<<grid(t->params->n), TOY_BLOCK, 0, (cudaStream_t)stream>>>(t->in, t->a, t->meta, t->params->n);
	LAUNCH_RET();
}

extern "C" int toy_offset_cuda(void *tp, void *stream)
{
	toy_task *t = (toy_task *)tp;
	k_offset<<<grid(t->params->n), TOY_BLOCK, 0, (cudaStream_t)stream>>>(t->a, t->b, t->meta, t->params->n);
	LAUNCH_RET();
}

extern "C" int toy_square_cuda(void *tp, void *stream)
{
	toy_task *t = (toy_task *)tp;
	if (t->base.seq == t->params->fail_seq)
		return t->params->fail_code;
	k_square<<<grid(t->params->n), TOY_BLOCK, 0, (cudaStream_t)stream>>>(t->b, t->a, t->meta, t->params->n);
	LAUNCH_RET();
}

extern "C" int toy_mix_cuda(void *tp, void *stream)
{
	toy_task *t = (toy_task *)tp;
	k_mix<<<grid(t->params->n), TOY_BLOCK, 0, (cudaStream_t)stream>>>(t->a, t->in, t->out, t->meta, t->params->n);
	LAUNCH_RET();
}

extern "C" int toy_seal_cuda(void *tp, void *stream)
{
	toy_task *t = (toy_task *)tp;
	k_seal<<<grid(t->params->n), TOY_BLOCK, 0, (cudaStream_t)stream>>>(t->out, t->meta, t->meta, t->params->n);
	LAUNCH_RET();
}
