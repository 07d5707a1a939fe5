#version 450
#extension GL_GOOGLE_include_directive : require
// conv1 of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_image
#define OUT_BINDING BINDING_conv1_out
#define W_BINDING BINDING_conv1_w
#define B_BINDING BINDING_conv1_b
#define CIN 3
#define COUT 16
#define SIDE 32
#include "../conv_dense.glsl"
