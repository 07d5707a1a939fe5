// CUDA operators of the AlexNet apps (cuda_ops.h).
// Convolutions come in two shapes, chosen per launch by the number of
// outputs: with many outputs (batches) one thread per output element, x
// fastest, so a warp shares (image, channel), reads the weights of one row
// by broadcast and the inputs coalesced; with few outputs (one image: at
// most 16K outputs, too few threads to hide the latency of a 576-tap
// serial sum) one warp per output element, its lanes splitting the taps
// and reducing by shuffles. The CSR kernels walk only the stored non-zeros
// of the output channel's row in both shapes.
#include "cuda_ops.h"

#include <cuda_runtime.h>

namespace {

constexpr int kBlock = 256;
// Below this many outputs a convolution uses one warp per output.
constexpr long long kWarpPerOutputBelow = 1 << 16;

unsigned blocks(long long n, int per)
{
	return (unsigned)((n + per - 1) / per);
}

__global__ void conv_dense(const float *__restrict__ in, float *__restrict__ out,
			   const float *__restrict__ w, const float *__restrict__ b,
			   int batch, int cin, int cout, int side)
{
	long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	int plane = side * side;
	if (gid >= (long long)batch * cout * plane)
		return;
	int ox = (int)(gid % side), oy = (int)(gid / side % side);
	int oc = (int)(gid / plane % cout);
	long long n = gid / ((long long)plane * cout);
	float acc = __ldg(&b[oc]);
	for (int ic = 0; ic < cin; ic++) {
		const float *wk = w + (oc * cin + ic) * 9;
		const float *x = in + (n * cin + ic) * plane;
		for (int ky = 0; ky < 3; ky++) {
			int iy = oy + ky - 1;
			if (iy < 0 || iy >= side)
				continue;
			for (int kx = 0; kx < 3; kx++) {
				int ix = ox + kx - 1;
				if (ix >= 0 && ix < side)
					acc += __ldg(&wk[ky * 3 + kx]) * x[iy * side + ix];
			}
		}
	}
	out[gid] = fmaxf(acc, 0.0f);
}

__global__ void conv_csr(const float *__restrict__ in, float *__restrict__ out,
			 const uint32_t *__restrict__ row_ptr, const uint32_t *__restrict__ col_idx,
			 const float *__restrict__ val, const float *__restrict__ b,
			 int batch, int cin, int cout, int side)
{
	long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	int plane = side * side;
	if (gid >= (long long)batch * cout * plane)
		return;
	int ox = (int)(gid % side), oy = (int)(gid / side % side);
	int oc = (int)(gid / plane % cout);
	long long n = gid / ((long long)plane * cout);
	const float *x = in + n * cin * plane;
	float acc = __ldg(&b[oc]);
	uint32_t end = __ldg(&row_ptr[oc + 1]);
	for (uint32_t j = __ldg(&row_ptr[oc]); j < end; j++) {
		uint32_t c = __ldg(&col_idx[j]), ic = c / 9, k = c % 9;
		int iy = oy + (int)(k / 3) - 1, ix = ox + (int)(k % 3) - 1;
		if (iy >= 0 && iy < side && ix >= 0 && ix < side)
			acc += __ldg(&val[j]) * x[ic * plane + iy * side + ix];
	}
	out[gid] = fmaxf(acc, 0.0f);
}

__device__ float warp_sum(float v)
{
	for (int d = 16; d > 0; d /= 2)
		v += __shfl_down_sync(0xffffffffu, v, d);
	return v;
}

__global__ void conv_dense_warp(const float *__restrict__ in, float *__restrict__ out,
				const float *__restrict__ w, const float *__restrict__ b,
				int batch, int cin, int cout, int side)
{
	long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, plane = side * side, taps = cin * 9;
	if (warp >= (long long)batch * cout * plane)
		return;
	int ox = (int)(warp % side), oy = (int)(warp / side % side);
	int oc = (int)(warp / plane % cout);
	long long n = warp / ((long long)plane * cout);
	const float *x = in + n * cin * plane;
	float acc = 0.0f;
	for (int t = lane; t < taps; t += 32) {
		int ic = t / 9, k = t % 9;
		int iy = oy + k / 3 - 1, ix = ox + k % 3 - 1;
		if (iy >= 0 && iy < side && ix >= 0 && ix < side)
			acc += __ldg(&w[oc * taps + t]) * x[ic * plane + iy * side + ix];
	}
	acc = warp_sum(acc);
	if (lane == 0)
		out[warp] = fmaxf(acc + __ldg(&b[oc]), 0.0f);
}

__global__ void conv_csr_warp(const float *__restrict__ in, float *__restrict__ out,
			      const uint32_t *__restrict__ row_ptr,
			      const uint32_t *__restrict__ col_idx, const float *__restrict__ val,
			      const float *__restrict__ b, int batch, int cin, int cout, int side)
{
	long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, plane = side * side;
	if (warp >= (long long)batch * cout * plane)
		return;
	int ox = (int)(warp % side), oy = (int)(warp / side % side);
	int oc = (int)(warp / plane % cout);
	long long n = warp / ((long long)plane * cout);
	const float *x = in + n * cin * plane;
	float acc = 0.0f;
	uint32_t end = __ldg(&row_ptr[oc + 1]);
	for (uint32_t j = __ldg(&row_ptr[oc]) + lane; j < end; j += 32) {
		uint32_t c = __ldg(&col_idx[j]), ic = c / 9, k = c % 9;
		int iy = oy + (int)(k / 3) - 1, ix = ox + (int)(k % 3) - 1;
		if (iy >= 0 && iy < side && ix >= 0 && ix < side)
			acc += __ldg(&val[j]) * x[ic * plane + iy * side + ix];
	}
	acc = warp_sum(acc);
	if (lane == 0)
		out[warp] = fmaxf(acc + __ldg(&b[oc]), 0.0f);
}

__global__ void pool(const float *__restrict__ in, float *__restrict__ out, int batch, int c,
		     int side)
{
	long long gid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	int os = side / 2;
	if (gid >= (long long)batch * c * os * os)
		return;
	int ox = (int)(gid % os), oy = (int)(gid / os % os);
	long long p = gid / (os * os);
	const float *q = in + p * side * side + 2 * oy * side + 2 * ox;
	out[gid] = fmaxf(fmaxf(q[0], q[1]), fmaxf(q[side], q[side + 1]));
}

// One warp per (image, output): lanes stride over the inputs, then a
// shuffle reduction.
__global__ void linear_dense(const float *__restrict__ in, float *__restrict__ out,
			     const float *__restrict__ w, const float *__restrict__ b,
			     int batch, int nin, int nout)
{
	long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32;
	if (warp >= (long long)batch * nout)
		return;
	int o = (int)(warp % nout);
	long long n = warp / nout;
	float acc = 0.0f;
	for (int i = lane; i < nin; i += 32)
		acc += __ldg(&w[(long long)o * nin + i]) * in[n * nin + i];
	acc = warp_sum(acc);
	if (lane == 0)
		out[warp] = acc + __ldg(&b[o]);
}

__global__ void linear_csr(const float *__restrict__ in, float *__restrict__ out,
			   const uint32_t *__restrict__ row_ptr, const uint32_t *__restrict__ col_idx,
			   const float *__restrict__ val, const float *__restrict__ b,
			   int batch, int nin, int nout)
{
	long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32;
	if (warp >= (long long)batch * nout)
		return;
	int o = (int)(warp % nout);
	long long n = warp / nout;
	float acc = 0.0f;
	for (uint32_t j = __ldg(&row_ptr[o]) + lane; j < __ldg(&row_ptr[o + 1]); j += 32)
		acc += __ldg(&val[j]) * in[n * nin + __ldg(&col_idx[j])];
	acc = warp_sum(acc);
	if (lane == 0)
		out[warp] = acc + __ldg(&b[o]);
}

__global__ void argmax(const float *__restrict__ logits, int32_t *__restrict__ pred, int batch,
		       int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= batch)
		return;
	const float *x = logits + (long long)i * n;
	int best = 0;
	for (int k = 1; k < n; k++)
		if (x[k] > x[best])
			best = k;
	pred[i] = best;
}

} // namespace

extern "C" {

int alexnet_cuda_conv_dense(const float *in, float *out, const float *w, const float *b,
			    int batch, int cin, int cout, int side, void *stream)
{
	long long n = (long long)batch * cout * side * side;
	if (n < kWarpPerOutputBelow)
		conv_dense_warp<<<blocks(n * 32, kBlock), kBlock, 0, (cudaStream_t)stream>>>(
			in, out, w, b, batch, cin, cout, side);
	else
		conv_dense<<<blocks(n, kBlock), kBlock, 0, (cudaStream_t)stream>>>(
			in, out, w, b, batch, cin, cout, side);
	return (int)cudaGetLastError();
}

int alexnet_cuda_conv_csr(const float *in, float *out, const uint32_t *row_ptr,
			  const uint32_t *col_idx, const float *val, const float *b,
			  int batch, int cin, int cout, int side, void *stream)
{
	long long n = (long long)batch * cout * side * side;
	if (n < kWarpPerOutputBelow)
		conv_csr_warp<<<blocks(n * 32, kBlock), kBlock, 0, (cudaStream_t)stream>>>(
			in, out, row_ptr, col_idx, val, b, batch, cin, cout, side);
	else
		conv_csr<<<blocks(n, kBlock), kBlock, 0, (cudaStream_t)stream>>>(
			in, out, row_ptr, col_idx, val, b, batch, cin, cout, side);
	return (int)cudaGetLastError();
}

int alexnet_cuda_pool(const float *in, float *out, int batch, int c, int side, void *stream)
{
	long long n = (long long)batch * c * (side / 2) * (side / 2);
	pool<<<blocks(n, kBlock), kBlock, 0, (cudaStream_t)stream>>>(in, out, batch, c, side);
	return (int)cudaGetLastError();
}

int alexnet_cuda_linear_dense(const float *in, float *out, const float *w, const float *b,
			      int batch, int nin, int nout, void *stream)
{
	long long n = (long long)batch * nout * 32;
	linear_dense<<<blocks(n, kBlock), kBlock, 0, (cudaStream_t)stream>>>(in, out, w, b, batch,
									    nin, nout);
	return (int)cudaGetLastError();
}

int alexnet_cuda_linear_csr(const float *in, float *out, const uint32_t *row_ptr,
			    const uint32_t *col_idx, const float *val, const float *b,
			    int batch, int nin, int nout, void *stream)
{
	long long n = (long long)batch * nout * 32;
	linear_csr<<<blocks(n, kBlock), kBlock, 0, (cudaStream_t)stream>>>(
		in, out, row_ptr, col_idx, val, b, batch, nin, nout);
	return (int)cudaGetLastError();
}

int alexnet_cuda_argmax(const float *logits, int32_t *pred, int batch, int n, void *stream)
{
	argmax<<<blocks(batch, 64), 64, 0, (cudaStream_t)stream>>>(logits, pred, batch, n);
	return (int)cudaGetLastError();
}

} // extern "C"
