/* OpenMP CPU operators shared by the alexnet_dense and alexnet_sparse
   kernels. All tensors are float32 NCHW, batch-major; convolutions are 3x3,
   stride 1, padding 1, followed by ReLU. Threads come from the enclosing
   OpenMP team settings (the runtime sets the PU's team size and pinning). */
#ifndef ALEXNET_CPU_OPS_H
#define ALEXNET_CPU_OPS_H

#include <stdint.h>

/* out[batch][cout][side][side] = ReLU(b + conv(in[batch][cin][side][side], w)),
   w dense OIHW [cout][cin][3][3]. */
void alexnet_conv_dense_omp(const float *in, float *out, const float *w, const float *b,
			    int batch, int cin, int cout, int side);
/* Same with w in CSR (row = output channel, column = ic * 9 + ky * 3 + kx):
   only the stored non-zeros are visited. */
void alexnet_conv_csr_omp(const float *in, float *out, const uint32_t *row_ptr,
			  const uint32_t *col_idx, const float *val, const float *b,
			  int batch, int cin, int cout, int side);
/* 2x2 max-pool, stride 2: in[batch][c][side][side] -> out[batch][c][side/2][side/2]. */
void alexnet_pool_omp(const float *in, float *out, int batch, int c, int side);
/* out[batch][nout] = in[batch][nin] * w^T + b, w dense [nout][nin]. */
void alexnet_linear_dense_omp(const float *in, float *out, const float *w, const float *b,
			      int batch, int nin, int nout);
/* Same with w in CSR (row = output, column = input index). */
void alexnet_linear_csr_omp(const float *in, float *out, const uint32_t *row_ptr,
			    const uint32_t *col_idx, const float *val, const float *b,
			    int batch, int nin, int nout);
/* pred[i] = index of the largest of logits[i][0..n-1] (first on ties). */
void alexnet_argmax_rows(const float *logits, int32_t *pred, int batch, int n);

#endif
