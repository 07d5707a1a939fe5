#version 450
#extension GL_GOOGLE_include_directive : require
// conv3 of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_pool2_out
#define OUT_BINDING BINDING_conv3_out
#define W_BINDING BINDING_conv3_w
#define B_BINDING BINDING_conv3_b
#define CIN 32
#define COUT 64
#define SIDE 8
#include "../conv_dense.glsl"
