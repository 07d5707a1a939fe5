#version 450
// Stage 6: exclusive scan of the edge counts of the m = n_unique - 1
// radix-tree nodes; offsets[m] = octree node count. Dispatch i = phase:
//   0 per tile sum -> scratch[tile]; 1 workgroup 0 scans them, writes
//   offsets[m]; 2 per tile scan plus the tile's offset -> offsets.
#extension GL_GOOGLE_include_directive : require
#include "octree_layout.glsl"
#include "common.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { uint i; } pc;
layout(std430, set = 0, binding = BINDING_n_unique) readonly buffer NUnique { uint n_unique; };
layout(std430, set = 0, binding = BINDING_edge_count) readonly buffer Edge { uint edge_count[]; };
layout(std430, set = 0, binding = BINDING_offsets) writeonly buffer Offsets { uint offsets[]; };
layout(std430, set = 0, binding = BINDING_vk_scratch) buffer Scratch { uint scratch[]; };
#include "global_scan.glsl"

void main()
{
	uint m = n_unique > 1u ? n_unique - 1u : 0u;
	uint n_tiles = gl_NumWorkGroups.x, tile = gl_WorkGroupID.x;
	uint t = gl_LocalInvocationID.x, first = tile * TILE + t * ITEMS;
	if (pc.i == 1u) {
		if (tile == 0u) {
			uint total = global_scan(0u, n_tiles);
			if (t == 0u)
				offsets[m] = total;
		}
		return;
	}
	uint v[ITEMS];
	uint sum = 0u;
	for (uint k = 0u; k < ITEMS; k++) {
		v[k] = first + k < m ? edge_count[first + k] : 0u;
		sum += v[k];
	}
	uint acc = wg_scan(sum);
	if (pc.i == 0u) {
		if (t == 0u)
			scratch[tile] = s_total;
		return;
	}
	acc += scratch[tile];
	for (uint k = 0u; k < ITEMS; k++)
		if (first + k < m) {
			offsets[first + k] = acc;
			acc += v[k];
		}
}
