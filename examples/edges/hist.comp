#version 450
#extension GL_GOOGLE_include_directive : require
#include "edges_layout.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = BINDING_edge) readonly buffer Edge { uint edge[]; };
layout(std430, binding = BINDING_hist) writeonly buffer Hist { uint hist[]; };
layout(push_constant) uniform P { uint n; uint bins; };

// One invocation per bin counts its pixels: no atomics, deterministic.
void main()
{
	uint b = gl_GlobalInvocationID.x;
	if (b >= bins)
		return;
	uint count = 0;
	for (uint i = 0; i < n; i++)
		count += uint(min(edge[i] * bins / 2048u, bins - 1u) == b);
	hist[b] = count;
}
