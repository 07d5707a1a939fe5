#version 450
#extension GL_GOOGLE_include_directive : require
// conv5 of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_conv4_out
#define OUT_BINDING BINDING_conv5_out
#define ROWPTR_BINDING BINDING_conv5_rowptr
#define COLIDX_BINDING BINDING_conv5_colidx
#define VAL_BINDING BINDING_conv5_val
#define B_BINDING BINDING_conv5_b
#define CIN 64
#define COUT 64
#define SIDE 8
#include "../conv_csr.glsl"
