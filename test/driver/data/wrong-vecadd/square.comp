#version 450
#extension GL_GOOGLE_include_directive : require
#include "vecadd_layout.glsl"
// Squares one half of z: half = 0 (first) or 1 (second), from `repeat: 2`.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = BINDING_z) buffer Z { float z[]; };
layout(push_constant) uniform P { uint n; uint half_index; };
void main()
{
	uint half_n = n / 2;
	uint i = gl_GlobalInvocationID.x + half_index * half_n;
	if (gl_GlobalInvocationID.x < half_n || (half_index == 1 && i < n))
		z[i] = z[i] * z[i];
}
