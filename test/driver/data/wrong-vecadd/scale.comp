#version 450
#extension GL_GOOGLE_include_directive : require
#include "vecadd_layout.glsl"
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = BINDING_x) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = BINDING_y) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; };
void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < n)
		y[i] = 2.0 * x[i];
}
