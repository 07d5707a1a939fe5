#version 450
#extension GL_GOOGLE_include_directive : require
// conv5 of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_conv4_out
#define OUT_BINDING BINDING_conv5_out
#define ROWPTR_BINDING BINDING_csr_rowptr
#define COLIDX_BINDING BINDING_csr_colidx
#define VAL_BINDING BINDING_csr_val
#define B_BINDING BINDING_bias
// Offsets of this layer in the shared weight buffers (net.h).
#define ROW_OFF 180
#define NZ_OFF 60336
#define BIAS_OFF 176
#define CIN 64
#define COUT 64
#define SIDE 8
#include "../conv_csr.glsl"
