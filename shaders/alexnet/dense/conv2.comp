#version 450
#extension GL_GOOGLE_include_directive : require
// conv2 of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_pool1_out
#define OUT_BINDING BINDING_conv2_out
#define W_BINDING BINDING_conv2_w
#define B_BINDING BINDING_conv2_b
#define CIN 16
#define COUT 32
#define SIDE 16
#include "../conv_dense.glsl"
