#version 450
// Stage 5: octree nodes owned by each radix-tree node (Karras 2012 Sec. 4).
#extension GL_GOOGLE_include_directive : require
#include "octree_layout.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = BINDING_prefix_n) readonly buffer PrefixN { uint prefix_n[]; };
layout(std430, set = 0, binding = BINDING_parent) readonly buffer Parent { int parent[]; };
layout(std430, set = 0, binding = BINDING_n_unique) readonly buffer NUnique { uint n_unique; };
layout(std430, set = 0, binding = BINDING_edge_count) writeonly buffer Edge { uint edge_count[]; };

void main()
{
	uint i = gl_GlobalInvocationID.x;
	uint m = n_unique > 1u ? n_unique - 1u : 0u;
	if (i >= m)
		return;
	edge_count[i] = i == 0u ? prefix_n[0] / 3u + 1u
		: prefix_n[i] / 3u - prefix_n[parent[i]] / 3u;
}
