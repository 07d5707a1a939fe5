// common.glsl: shared definitions of the octree compute shaders.
// Include after octree_layout.glsl. Workgroups are 256 invocations; the
// multi-pass shaders (radix_sort, unique, prefix_sum) work on tiles of
// 2048 elements, 8 consecutive elements per invocation, so that ranks
// within a tile follow element order (stable, deterministic).
#define WG 256u
#ifndef ITEMS
#define ITEMS 8u     // elements per invocation; a shader may define its own
#endif
#define TILE (WG * ITEMS)

#define SYNC() memoryBarrierShared(); barrier()

shared uint s_scan[WG];
shared uint s_part[16];
shared uint s_total;

// Exclusive scan of one value per invocation over the workgroup; the total
// is in s_total afterwards. Call from uniform control flow. Two levels of
// 16 sequential sums (four barriers: cheap on CPU drivers like llvmpipe,
// where a barrier switches between all invocations of the group).
uint wg_scan(uint v)
{
	uint t = gl_LocalInvocationID.x;
	s_scan[t] = v;
	SYNC();
	if (t < 16u) {
		uint a = 0u;
		for (uint j = 0u; j < 16u; j++) {
			uint x = s_scan[t * 16u + j];
			s_scan[t * 16u + j] = a;
			a += x;
		}
		s_part[t] = a;
	}
	SYNC();
	if (t == 0u) {
		uint a = 0u;
		for (uint j = 0u; j < 16u; j++) {
			uint x = s_part[j];
			s_part[j] = a;
			a += x;
		}
		s_total = a;
	}
	SYNC();
	uint r = s_scan[t] + s_part[t / 16u];
	SYNC();
	return r;
}
