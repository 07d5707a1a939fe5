/* CUDA operators shared by the alexnet_dense and alexnet_sparse launchers
   (ops.cu). Same shapes and semantics as cpu_ops.h; pointers are device
   pointers (unified memory); every function enqueues on stream
   (cudaStream_t) without synchronising and returns cudaGetLastError(). */
#ifndef ALEXNET_CUDA_OPS_H
#define ALEXNET_CUDA_OPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int alexnet_cuda_conv_dense(const float *in, float *out, const float *w, const float *b,
			    int batch, int cin, int cout, int side, void *stream);
int alexnet_cuda_conv_csr(const float *in, float *out, const uint32_t *row_ptr,
			  const uint32_t *col_idx, const float *val, const float *b,
			  int batch, int cin, int cout, int side, void *stream);
int alexnet_cuda_pool(const float *in, float *out, int batch, int c, int side, void *stream);
int alexnet_cuda_linear_dense(const float *in, float *out, const float *w, const float *b,
			      int batch, int nin, int nout, void *stream);
int alexnet_cuda_linear_csr(const float *in, float *out, const uint32_t *row_ptr,
			    const uint32_t *col_idx, const float *val, const float *b,
			    int batch, int nin, int nout, void *stream);
int alexnet_cuda_argmax(const float *logits, int32_t *pred, int batch, int n, void *stream);

#ifdef __cplusplus
}
#endif
#endif
