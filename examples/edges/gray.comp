#version 450
#extension GL_GOOGLE_include_directive : require
#include "edges_layout.glsl"
layout(local_size_x = 64) in;
// rgb is u8 in the YAML: no 8-bit storage, so read it as packed uints.
layout(std430, binding = BINDING_rgb) readonly buffer Rgb { uint rgb[]; };
layout(std430, binding = BINDING_gray) writeonly buffer Gray { uint gray[]; };
layout(push_constant) uniform P { uint n; };

uint byte_at(uint i)
{
	return (rgb[i >> 2] >> (8 * (i & 3))) & 0xffu;
}

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < n)
		gray[i] = (77u * byte_at(i) + 150u * byte_at(n + i) + 29u * byte_at(2 * n + i)) >> 8;
}
