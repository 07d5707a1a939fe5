#version 450
#extension GL_GOOGLE_include_directive : require
// conv5 of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_conv4_out
#define OUT_BINDING BINDING_conv5_out
#define W_BINDING BINDING_conv5_w
#define B_BINDING BINDING_conv5_b
#define CIN 64
#define COUT 64
#define SIDE 8
#include "../conv_dense.glsl"
