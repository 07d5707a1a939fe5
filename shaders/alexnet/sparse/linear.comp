#version 450
#extension GL_GOOGLE_include_directive : require
// linear of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_pool3_out
#define OUT_BINDING BINDING_logits
#define ROWPTR_BINDING BINDING_csr_rowptr
#define COLIDX_BINDING BINDING_csr_colidx
#define VAL_BINDING BINDING_csr_val
#define B_BINDING BINDING_bias
// Offsets of this layer in the shared weight buffers (net.h).
#define ROW_OFF 245
#define NZ_OFF 97200
#define BIAS_OFF 240
#include "../linear_csr.glsl"
