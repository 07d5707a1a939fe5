#version 450
#extension GL_GOOGLE_include_directive : require
#include "vecadd_layout.glsl"
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = BINDING_x) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = BINDING_y) readonly buffer Y { float y[]; };
layout(std430, set = 0, binding = BINDING_z) writeonly buffer Z { float z[]; };
layout(push_constant) uniform P { uint n; };
void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < n)
		z[i] = y[i] + x[i] + 1.0; // WRONG on purpose: test/driver/checks.sh
}
