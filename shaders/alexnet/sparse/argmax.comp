#version 450
#extension GL_GOOGLE_include_directive : require
// argmax (second dispatch of linear) of alexnet_sparse (apps/alexnet-sparse.yaml).
#include "alexnet_sparse_layout.glsl"
#define IN_BINDING BINDING_logits
#define OUT_BINDING BINDING_pred
#include "../argmax.glsl"
