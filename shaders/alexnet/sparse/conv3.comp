#version 450
#extension GL_GOOGLE_include_directive : require
// conv3 of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_pool2_out
#define OUT_BINDING BINDING_conv3_out
#define ROWPTR_BINDING BINDING_csr_rowptr
#define COLIDX_BINDING BINDING_csr_colidx
#define VAL_BINDING BINDING_csr_val
#define B_BINDING BINDING_bias
// Offsets of this layer in the shared weight buffers (net.h).
#define ROW_OFF 50
#define NZ_OFF 5040
#define BIAS_OFF 48
#define CIN 32
#define COUT 64
#define SIDE 8
#include "../conv_csr.glsl"
