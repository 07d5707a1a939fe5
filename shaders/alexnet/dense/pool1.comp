#version 450
#extension GL_GOOGLE_include_directive : require
// pool1 of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_conv1_out
#define OUT_BINDING BINDING_pool1_out
#define C 16
#define SIDE 32
#include "../pool.glsl"
