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
#define ITEMS 16u    // tiles of 4096 keys: half the tiles (and barriers) of 8
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
		uint dig[ITEMS];
		for (uint k = 0u; k < ITEMS; k++)
			dig[k] = first + k < n ? (load_key(pass, first + k) >> shift) & 15u : RADIX;
		for (uint d = 0u; d < RADIX; d++) {
			uint c = 0u;
			for (uint k = 0u; k < ITEMS; k++)
				c += dig[k] == d ? 1u : 0u;
			if (c != 0u)
				atomicAdd(s_hist[d], c);
		}
		SYNC();
		if (t < RADIX)
			scratch[t * n_tiles + tile] = s_hist[t];
		return;
	}
	// phase 2: scatter. Counts and ranks use loops with constant bounds
	// only (no data-dependent indexing of private arrays, which some
	// drivers spill to memory).
	uint dig[ITEMS];
	uint keys[ITEMS];
	for (uint k = 0u; k < ITEMS; k++) {
		bool valid = first + k < n;
		keys[k] = valid ? load_key(pass, first + k) : 0u;
		dig[k] = valid ? (keys[k] >> shift) & 15u : RADIX;   // RADIX: no key
	}
	for (uint d = 0u; d < RADIX; d++) {
		uint c = 0u;
		for (uint k = 0u; k < ITEMS; k++)
			c += dig[k] == d ? 1u : 0u;
		s_cnt[d * WG + t] = c;
	}
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
	// s_hist[d]: where this tile's digit-d keys start in the output,
	// minus where they start within the tile
	if (t < RADIX)
		s_hist[t] = scratch[t * n_tiles + tile] - s_cnt[t * WG];
	SYNC();
	for (uint k = 0u; k < ITEMS; k++) {
		if (dig[k] == RADIX)
			continue;
		uint d = dig[k], rank = 0u;
		for (uint j = 0u; j < k; j++)
			rank += dig[j] == d ? 1u : 0u;
		store_key(pass, s_hist[d] + s_cnt[d * WG + t] + rank, keys[k]);
	}
}
