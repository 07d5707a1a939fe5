#version 450
#extension GL_GOOGLE_include_directive : require
#include "edges_layout.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = BINDING_blur) readonly buffer Blur { uint blur[]; };
layout(std430, binding = BINDING_edge) writeonly buffer Edge { uint edge[]; };
layout(push_constant) uniform P { uint w; uint h; };

int px(int x, int y)
{
	x = clamp(x, 0, int(w) - 1);
	y = clamp(y, 0, int(h) - 1);
	return int(blur[y * int(w) + x]);
}

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= w * h)
		return;
	int x = int(i % w), y = int(i / w);
	int gx = px(x + 1, y - 1) + 2 * px(x + 1, y) + px(x + 1, y + 1)
	       - px(x - 1, y - 1) - 2 * px(x - 1, y) - px(x - 1, y + 1);
	int gy = px(x - 1, y + 1) + 2 * px(x, y + 1) + px(x + 1, y + 1)
	       - px(x - 1, y - 1) - 2 * px(x, y - 1) - px(x + 1, y - 1);
	edge[i] = uint(abs(gx) + abs(gy));
}
