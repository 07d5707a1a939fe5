#version 450
#extension GL_GOOGLE_include_directive : require
// conv2 of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_pool1_out
#define OUT_BINDING BINDING_conv2_out
#define ROWPTR_BINDING BINDING_csr_rowptr
#define COLIDX_BINDING BINDING_csr_colidx
#define VAL_BINDING BINDING_csr_val
#define B_BINDING BINDING_bias
// Offsets of this layer in the shared weight buffers (net.h).
#define ROW_OFF 17
#define NZ_OFF 432
#define BIAS_OFF 16
#define CIN 16
#define COUT 32
#define SIDE 16
#include "../conv_csr.glsl"
