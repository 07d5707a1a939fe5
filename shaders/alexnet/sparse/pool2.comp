#version 450
#extension GL_GOOGLE_include_directive : require
// pool2 of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_conv2_out
#define OUT_BINDING BINDING_pool2_out
#define C 32
#define SIDE 16
#include "../pool.glsl"
