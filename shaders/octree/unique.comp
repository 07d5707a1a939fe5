#version 450
// Stage 3: duplicate removal; dispatch i = phase:
//   0 per tile, number of first occurrences -> scratch[tile]
//   1 workgroup 0 scans scratch[0 .. n_tiles), writes n_unique
//   2 per tile, each first occurrence to ucodes[its rank]
#extension GL_GOOGLE_include_directive : require
#include "octree_layout.glsl"
#include "common.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { uint i; } pc;
layout(std430, set = 0, binding = BINDING_n_points) readonly buffer NPoints { uint n_points; };
layout(std430, set = 0, binding = BINDING_sorted) readonly buffer Sorted { uint sorted[]; };
layout(std430, set = 0, binding = BINDING_ucodes) writeonly buffer UCodes { uint ucodes[]; };
layout(std430, set = 0, binding = BINDING_n_unique) writeonly buffer NUnique { uint n_unique; };
layout(std430, set = 0, binding = BINDING_vk_scratch) buffer Scratch { uint scratch[]; };
#include "global_scan.glsl"

bool first_occurrence(uint idx)
{
	return idx == 0u || sorted[idx] != sorted[idx - 1u];
}

void main()
{
	uint n = n_points, n_tiles = gl_NumWorkGroups.x, tile = gl_WorkGroupID.x;
	uint t = gl_LocalInvocationID.x, first = tile * TILE + t * ITEMS;
	if (pc.i == 1u) {
		if (tile == 0u) {
			uint total = global_scan(0u, n_tiles);
			if (t == 0u)
				n_unique = total;
		}
		return;
	}
	uint c = 0u;
	for (uint k = 0u; k < ITEMS; k++)
		if (first + k < n && first_occurrence(first + k))
			c++;
	uint off = wg_scan(c);
	if (pc.i == 0u) {
		if (t == 0u)
			scratch[tile] = s_total;
		return;
	}
	off += scratch[tile];
	for (uint k = 0u; k < ITEMS; k++)
		if (first + k < n && first_occurrence(first + k))
			ucodes[off++] = sorted[first + k];
}
