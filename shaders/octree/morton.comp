#version 450
// Stage 1: 30-bit Morton codes of the points (port of octree_kern.h).
#extension GL_GOOGLE_include_directive : require
#include "octree_layout.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = BINDING_points) readonly buffer Points { vec4 points[]; };
layout(std430, set = 0, binding = BINDING_n_points) readonly buffer NPoints { uint n_points; };
layout(std430, set = 0, binding = BINDING_cube) readonly buffer Cube { float cube[4]; };
layout(std430, set = 0, binding = BINDING_codes) writeonly buffer Codes { uint codes[]; };

// floor((v - lo) * scale) clamped to 0..1023; `precise` forbids fusing, so
// the two correctly rounded operations match C and CUDA bit for bit.
uint quantise(float v, float lo, float scale)
{
	precise float d = v - lo;
	precise float q = d * scale;
	if (!(q > 0.0))
		return 0u;
	if (q >= 1023.0)
		return 1023u;
	return uint(q);
}

uint spread10(uint v)
{
	v &= 0x3ffu;
	v = (v | (v << 16)) & 0x030000ffu;
	v = (v | (v << 8)) & 0x0300f00fu;
	v = (v | (v << 4)) & 0x030c30c3u;
	v = (v | (v << 2)) & 0x09249249u;
	return v;
}

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= n_points)
		return;
	vec4 p = points[i];
	codes[i] = (spread10(quantise(p.x, cube[0], cube[3])) << 2) |
		   (spread10(quantise(p.y, cube[1], cube[3])) << 1) |
		   spread10(quantise(p.z, cube[2], cube[3]));
}
