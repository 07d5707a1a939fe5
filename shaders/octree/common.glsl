// common.glsl: shared definitions of the octree compute shaders.
// Include after octree_layout.glsl. Workgroups are 256 invocations; the
// multi-pass shaders (radix_sort, unique, prefix_sum) work on tiles of
// 2048 elements, 8 consecutive elements per invocation, so that ranks
// within a tile follow element order (stable, deterministic).
#define WG 256u
#define ITEMS 8u
#define TILE 2048u

#define SYNC() memoryBarrierShared(); barrier()

shared uint s_scan[WG];
shared uint s_total;

// Exclusive scan of one value per invocation over the workgroup; the total
// is in s_total afterwards. Call from uniform control flow.
uint wg_scan(uint v)
{
	uint t = gl_LocalInvocationID.x;
	s_scan[t] = v;
	SYNC();
	for (uint off = 1u; off < WG; off <<= 1u) {
		uint add = t >= off ? s_scan[t - off] : 0u;
		SYNC();
		s_scan[t] += add;
		SYNC();
	}
	uint incl = s_scan[t];
	if (t == WG - 1u)
		s_total = incl;
	SYNC();
	return incl - v;
}
