#version 450
// Stage 2: LSD radix sort of the Morton codes on the GPU, 8 passes of 4
// bits; dispatch i (0..23) runs phase i % 3 of pass i / 3:
//   0 histogram: per tile, count each digit -> hist[d * n_tiles + tile]
//   1 scan:      workgroup 0 scans hist (digit-major) in place
//   2 scatter:   per tile, stable rank of each key among equal digits in
//                the tile + hist offset -> destination
// Keys: codes -> sort_tmp -> sorted -> sort_tmp -> ... -> sorted (pass 7).
#extension GL_GOOGLE_include_directive : require
#include "octree_layout.glsl"
#include "common.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Push { uint i; } pc;
layout(std430, set = 0, binding = BINDING_n_points) readonly buffer NPoints { uint n_points; };
layout(std430, set = 0, binding = BINDING_codes) readonly buffer Codes { uint codes[]; };
layout(std430, set = 0, binding = BINDING_sort_tmp) buffer Tmp { uint tmp[]; };
layout(std430, set = 0, binding = BINDING_sorted) buffer Sorted { uint sorted[]; };
layout(std430, set = 0, binding = BINDING_vk_scratch) buffer Scratch { uint scratch[]; };
#include "global_scan.glsl"

#define RADIX 16u

shared uint s_hist[RADIX];
shared uint s_cnt[RADIX * WG];   // digit-major: s_cnt[d * WG + invocation]

uint load_key(uint pass, uint idx)
{
	if (pass == 0u)
		return codes[idx];
	return (pass & 1u) == 1u ? tmp[idx] : sorted[idx];
}

void store_key(uint pass, uint idx, uint v)
{
	if ((pass & 1u) == 0u)
		tmp[idx] = v;
	else
		sorted[idx] = v;
}

void main()
{
	uint pass = pc.i / 3u, phase = pc.i % 3u, shift = 4u * pass;
	uint n = n_points, n_tiles = gl_NumWorkGroups.x, tile = gl_WorkGroupID.x;
	uint t = gl_LocalInvocationID.x;
	uint first = tile * TILE + t * ITEMS;

	if (phase == 1u) {
		if (tile == 0u)
			global_scan(0u, RADIX * n_tiles);
		return;
	}
	if (phase == 0u) {
		if (t < RADIX)
			s_hist[t] = 0u;
		SYNC();
		for (uint k = 0u; k < ITEMS; k++)
			if (first + k < n)
				atomicAdd(s_hist[(load_key(pass, first + k) >> shift) & 15u], 1u);
		SYNC();
		if (t < RADIX)
			scratch[t * n_tiles + tile] = s_hist[t];
		return;
	}
	// phase 2: scatter
	uint keys[ITEMS];
	uint mine[RADIX];
	for (uint d = 0u; d < RADIX; d++)
		mine[d] = 0u;
	for (uint k = 0u; k < ITEMS; k++) {
		keys[k] = first + k < n ? load_key(pass, first + k) : 0u;
		if (first + k < n)
			mine[(keys[k] >> shift) & 15u]++;
	}
	for (uint d = 0u; d < RADIX; d++)
		s_cnt[d * WG + t] = mine[d];
	SYNC();
	// exclusive scan of s_cnt (digit-major), 16 consecutive entries each
	uint sum = 0u;
	for (uint j = 0u; j < 16u; j++)
		sum += s_cnt[t * 16u + j];
	uint acc = wg_scan(sum);
	for (uint j = 0u; j < 16u; j++) {
		uint v = s_cnt[t * 16u + j];
		s_cnt[t * 16u + j] = acc;
		acc += v;
	}
	SYNC();
	for (uint d = 0u; d < RADIX; d++)
		mine[d] = scratch[d * n_tiles + tile] + s_cnt[d * WG + t] - s_cnt[d * WG];
	for (uint k = 0u; k < ITEMS; k++)
		if (first + k < n) {
			uint d = (keys[k] >> shift) & 15u;
			store_key(pass, mine[d], keys[k]);
			mine[d]++;
		}
}
