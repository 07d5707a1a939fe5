#version 450
#extension GL_GOOGLE_include_directive : require
#include "edges_layout.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = BINDING_gray) readonly buffer Gray { uint gray[]; };
layout(std430, binding = BINDING_blur) writeonly buffer Blur { uint blur[]; };
layout(push_constant) uniform P { uint w; uint h; };

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= w * h)
		return;
	int x = int(i % w), y = int(i / w);
	uint sum = 0;
	for (int dy = -2; dy <= 2; dy++)
		for (int dx = -2; dx <= 2; dx++) {
			int xx = clamp(x + dx, 0, int(w) - 1), yy = clamp(y + dy, 0, int(h) - 1);
			sum += gray[yy * int(w) + xx];
		}
	blur[i] = sum / 25u;
}
