#version 450
#extension GL_GOOGLE_include_directive : require
// pool3 of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_conv5_out
#define OUT_BINDING BINDING_pool3_out
#define C 64
#define SIDE 8
#include "../pool.glsl"
