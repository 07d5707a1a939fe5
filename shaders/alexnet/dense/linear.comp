#version 450
#extension GL_GOOGLE_include_directive : require
// linear of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_pool3_out
#define OUT_BINDING BINDING_logits
#define W_BINDING BINDING_linear_w
#define B_BINDING BINDING_linear_b
#include "../linear_dense.glsl"
