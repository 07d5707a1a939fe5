/* Direct convolution by plane updates: for every (image, output channel)
   the output plane (at most 32x32 floats, 4 KiB: it stays in L1) starts at
   the bias and receives one shifted, scaled copy of an input plane per
   weight, a unit-stride SIMD loop. The dense kernel visits every weight,
   the CSR kernel only the stored non-zeros, so the sparse network does
   work proportional to its non-zeros. Work is split over (image, output
   channel) pairs. */
#include "cpu_ops.h"

#include <stddef.h>

/* dst[y][x] += w * src[y + ky - 1][x + kx - 1] over the taps inside the plane. */
static inline void plane_axpy(float *restrict dst, const float *restrict src, float w,
			      int ky, int kx, int side)
{
	int dy = ky - 1, dx = kx - 1;
	int y0 = dy < 0 ? 1 : 0, y1 = dy > 0 ? side - 1 : side;
	int x0 = dx < 0 ? 1 : 0, x1 = dx > 0 ? side - 1 : side;
	for (int y = y0; y < y1; y++) {
		float *restrict d = dst + (ptrdiff_t)y * side;
		const float *restrict s = src + (ptrdiff_t)(y + dy) * side + dx;
#pragma omp simd
		for (int x = x0; x < x1; x++)
			d[x] += w * s[x];
	}
}

static inline void plane_bias(float *dst, float b, int n)
{
#pragma omp simd
	for (int i = 0; i < n; i++)
		dst[i] = b;
}

static inline void plane_relu(float *dst, int n)
{
#pragma omp simd
	for (int i = 0; i < n; i++)
		dst[i] = dst[i] > 0.0f ? dst[i] : 0.0f;
}

void alexnet_conv_dense_omp(const float *in, float *out, const float *w, const float *b,
			    int batch, int cin, int cout, int side)
{
	const int plane = side * side;
#pragma omp parallel for collapse(2) schedule(static)
	for (int n = 0; n < batch; n++)
		for (int oc = 0; oc < cout; oc++) {
			const float *x = in + (size_t)n * cin * plane;
			float *o = out + ((size_t)n * cout + oc) * plane;
			plane_bias(o, b[oc], plane);
			for (int ic = 0; ic < cin; ic++) {
				const float *wk = w + ((size_t)oc * cin + ic) * 9;
				for (int k = 0; k < 9; k++)
					plane_axpy(o, x + (size_t)ic * plane, wk[k], k / 3, k % 3, side);
			}
			plane_relu(o, plane);
		}
}

void alexnet_conv_csr_omp(const float *in, float *out, const uint32_t *row_ptr,
			  const uint32_t *col_idx, const float *val, const float *b,
			  int batch, int cin, int cout, int side)
{
	(void)cin;
	const int plane = side * side;
#pragma omp parallel for collapse(2) schedule(static)
	for (int n = 0; n < batch; n++)
		for (int oc = 0; oc < cout; oc++) {
			const float *x = in + (size_t)n * cin * plane;
			float *o = out + ((size_t)n * cout + oc) * plane;
			plane_bias(o, b[oc], plane);
			for (uint32_t j = row_ptr[oc]; j < row_ptr[oc + 1]; j++) {
				uint32_t c = col_idx[j], ic = c / 9, k = c % 9;
				plane_axpy(o, x + (size_t)ic * plane, val[j], (int)k / 3, (int)k % 3,
					   side);
			}
			plane_relu(o, plane);
		}
}

void alexnet_pool_omp(const float *in, float *out, int batch, int c, int side)
{
	const int os = side / 2;
#pragma omp parallel for collapse(2) schedule(static)
	for (int n = 0; n < batch; n++)
		for (int ch = 0; ch < c; ch++) {
			const float *p = in + ((size_t)n * c + ch) * side * side;
			float *o = out + ((size_t)n * c + ch) * os * os;
			for (int y = 0; y < os; y++)
				for (int x = 0; x < os; x++) {
					const float *q = p + 2 * y * side + 2 * x;
					float m = q[0] > q[1] ? q[0] : q[1];
					float m2 = q[side] > q[side + 1] ? q[side] : q[side + 1];
					o[y * os + x] = m > m2 ? m : m2;
				}
		}
}

void alexnet_linear_dense_omp(const float *in, float *out, const float *w, const float *b,
			      int batch, int nin, int nout)
{
#pragma omp parallel for collapse(2) schedule(static)
	for (int n = 0; n < batch; n++)
		for (int o = 0; o < nout; o++) {
			const float *x = in + (size_t)n * nin, *wr = w + (size_t)o * nin;
			float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
			for (int i = 0; i < nin; i++)
				acc += wr[i] * x[i];
			out[(size_t)n * nout + o] = acc + b[o];
		}
}

void alexnet_linear_csr_omp(const float *in, float *out, const uint32_t *row_ptr,
			    const uint32_t *col_idx, const float *val, const float *b,
			    int batch, int nin, int nout)
{
#pragma omp parallel for collapse(2) schedule(static)
	for (int n = 0; n < batch; n++)
		for (int o = 0; o < nout; o++) {
			const float *x = in + (size_t)n * nin;
			float acc = 0.0f;
			for (uint32_t j = row_ptr[o]; j < row_ptr[o + 1]; j++)
				acc += val[j] * x[col_idx[j]];
			out[(size_t)n * nout + o] = acc + b[o];
		}
}

void alexnet_argmax_rows(const float *logits, int32_t *pred, int batch, int n)
{
	for (int i = 0; i < batch; i++) {
		const float *x = logits + (size_t)i * n;
		int best = 0;
		for (int k = 1; k < n; k++)
			if (x[k] > x[best])
				best = k;
		pred[i] = best;
	}
}
