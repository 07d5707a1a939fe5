#version 450
#extension GL_GOOGLE_include_directive : require
// linear of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_pool3_out
#define OUT_BINDING BINDING_logits
#define ROWPTR_BINDING BINDING_linear_rowptr
#define COLIDX_BINDING BINDING_linear_colidx
#define VAL_BINDING BINDING_linear_val
#define B_BINDING BINDING_linear_b
#include "../linear_csr.glsl"
