#version 450
#extension GL_GOOGLE_include_directive : require
// argmax (second dispatch of linear) of alexnet_dense (apps/alexnet-dense.yaml).
#include "alexnet_dense_layout.glsl"
#define IN_BINDING BINDING_logits
#define OUT_BINDING BINDING_pred
#include "../argmax.glsl"
