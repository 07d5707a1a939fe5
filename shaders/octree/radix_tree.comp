#version 450
// Stage 4: binary radix tree over the unique codes (Karras 2012, Fig. 4);
// port of octree_radix_node in kernels/octree/octree_kern.h.
#extension GL_GOOGLE_include_directive : require
#include "octree_layout.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = BINDING_ucodes) readonly buffer UCodes { uint ucodes[]; };
layout(std430, set = 0, binding = BINDING_n_unique) readonly buffer NUnique { uint n_unique; };
layout(std430, set = 0, binding = BINDING_prefix_n) writeonly buffer PrefixN { uint prefix_n[]; };
layout(std430, set = 0, binding = BINDING_has_leaf_left) writeonly buffer HLL { uint has_leaf_left[]; };
layout(std430, set = 0, binding = BINDING_has_leaf_right) writeonly buffer HLR { uint has_leaf_right[]; };
layout(std430, set = 0, binding = BINDING_left_child) writeonly buffer LC { int left_child[]; };
layout(std430, set = 0, binding = BINDING_parent) writeonly buffer Parent { int parent[]; };

int n;

int delta(int i, int j)
{
	if (j < 0 || j >= n)
		return -1;
	return 31 - findMSB(ucodes[i] ^ ucodes[j]);
}

void main()
{
	n = int(n_unique);
	int i = int(gl_GlobalInvocationID.x);
	if (i >= n - 1)
		return;
	int d = delta(i, i + 1) - delta(i, i - 1) > 0 ? 1 : -1;
	int dmin = delta(i, i - d);
	int lmax = 2;
	while (delta(i, i + lmax * d) > dmin)
		lmax *= 2;
	int l = 0;
	for (int t = lmax / 2; t >= 1; t /= 2)
		if (delta(i, i + (l + t) * d) > dmin)
			l += t;
	int j = i + l * d;
	int dnode = delta(i, j);
	int s = 0;
	for (int div = 2;; div *= 2) {
		int t = (l + div - 1) / div;
		if (delta(i, i + (s + t) * d) > dnode)
			s += t;
		if (t <= 1)
			break;
	}
	int gamma = i + s * d + (d < 0 ? -1 : 0);
	int lo = min(i, j), hi = max(i, j);
	prefix_n[i] = uint(dnode - 2);
	has_leaf_left[i] = lo == gamma ? 1u : 0u;
	has_leaf_right[i] = hi == gamma + 1 ? 1u : 0u;
	left_child[i] = gamma;
	if (lo != gamma)
		parent[gamma] = i;
	if (hi != gamma + 1)
		parent[gamma + 1] = i;
	if (i == 0)
		parent[0] = -1;
}
