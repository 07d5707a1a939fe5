#version 450
#extension GL_GOOGLE_include_directive : require
// conv1 of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_image
#define OUT_BINDING BINDING_conv1_out
#define ROWPTR_BINDING BINDING_csr_rowptr
#define COLIDX_BINDING BINDING_csr_colidx
#define VAL_BINDING BINDING_csr_val
#define B_BINDING BINDING_bias
// Offsets of this layer in the shared weight buffers (net.h).
#define ROW_OFF 0
#define NZ_OFF 0
#define BIAS_OFF 0
#define CIN 3
#define COUT 16
#define SIDE 32
#include "../conv_csr.glsl"
