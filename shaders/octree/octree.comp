#version 450
// Stage 7: octree nodes; invocation i writes the nodes owned by radix node
// i whole (port of octree_build_nodes in kernels/octree/octree_kern.h).
// Each node is built in registers and stored as three 16-byte stores
// (octree_store_node's): the node array is an output, which a GPU pool
// keeps in host memory, and a store per word crossed the bus as a
// transaction of its own.
#extension GL_GOOGLE_include_directive : require
#include "octree_layout.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = BINDING_ucodes) readonly buffer UCodes { uint ucodes[]; };
layout(std430, set = 0, binding = BINDING_n_unique) readonly buffer NUnique { uint n_unique; };
layout(std430, set = 0, binding = BINDING_prefix_n) readonly buffer PrefixN { uint prefix_n[]; };
layout(std430, set = 0, binding = BINDING_has_leaf_left) readonly buffer HLL { uint has_leaf_left[]; };
layout(std430, set = 0, binding = BINDING_has_leaf_right) readonly buffer HLR { uint has_leaf_right[]; };
layout(std430, set = 0, binding = BINDING_left_child) readonly buffer LC { int left_child[]; };
layout(std430, set = 0, binding = BINDING_parent) readonly buffer Parent { int parent[]; };
layout(std430, set = 0, binding = BINDING_edge_count) readonly buffer Edge { uint edge_count[]; };
layout(std430, set = 0, binding = BINDING_offsets) readonly buffer Offsets { uint offsets[]; };
layout(std430, set = 0, binding = BINDING_nodes) writeonly buffer Nodes { ivec4 nodes4[]; };
layout(std430, set = 0, binding = BINDING_n_nodes) writeonly buffer NNodes { uint n_nodes; };

#define WORDS 12

// The node being built (words 0-7 children, 8 parent, 9 code, 10 level,
// 11 masks; struct octree_node), stored whole by store_node.
int nd[WORDS];

void store_node(int self)
{
	nodes4[self * 3] = ivec4(nd[0], nd[1], nd[2], nd[3]);
	nodes4[self * 3 + 1] = ivec4(nd[4], nd[5], nd[6], nd[7]);
	nodes4[self * 3 + 2] = ivec4(nd[8], nd[9], nd[10], nd[11]);
}

// Puts radix child c (a leaf: unique code c; else its top octree node)
// into the octant given by its code bits below shift.
void take(int c, uint is_leaf, uint shift, inout uint masks)
{
	uint slot = (ucodes[c] >> shift) & 7u;
	if (is_leaf != 0u) {
		nd[slot] = c;
		masks |= 1u << (slot + 8u);
	} else {
		nd[slot] = int(offsets[c]);
		masks |= 1u << slot;
	}
}

void build_nodes(int i)
{
	uint e = edge_count[i];
	if (e == 0u)
		return;
	uint code = ucodes[i];
	uint top = prefix_n[i] / 3u + 1u - e;
	int up = -1;
	if (i != 0) {
		int a = parent[i];
		for (int k = 0; k < 2 && edge_count[a] == 0u; k++) // at most 2 steps
			a = parent[a];
		up = int(offsets[a] + edge_count[a] - 1u);
	}
	for (uint j = 0u; j < e; j++) {
		uint lvl = top + j;
		int self = int(offsets[i] + j);
		uint masks = 0u;
		uint shift = 30u - 3u * (lvl + 1u);
		for (int c = 0; c < 8; c++)
			nd[c] = -1;
		if (j + 1u < e) {
			uint slot = (code >> shift) & 7u;
			nd[slot] = self + 1;
			masks = 1u << slot;
		} else {
			// children: the radix children of i, looking through radix
			// nodes that own no octree node; those share i's level, so
			// there are at most two such levels below i (unrolled)
			for (int a = 0; a < 2; a++) {
				int c1 = left_child[i] + a;
				uint l1 = a == 0 ? has_leaf_left[i] : has_leaf_right[i];
				if (l1 != 0u || edge_count[c1] != 0u) {
					take(c1, l1, shift, masks);
					continue;
				}
				for (int b = 0; b < 2; b++) {
					int c2 = left_child[c1] + b;
					uint l2 = b == 0 ? has_leaf_left[c1] : has_leaf_right[c1];
					if (l2 != 0u || edge_count[c2] != 0u) {
						take(c2, l2, shift, masks);
						continue;
					}
					for (int d = 0; d < 2; d++) {
						int c3 = left_child[c2] + d;
						take(c3, d == 0 ? has_leaf_left[c2] : has_leaf_right[c2],
						     shift, masks);
					}
				}
			}
		}
		nd[8] = j != 0u ? self - 1 : up;
		nd[9] = int(code >> (30u - 3u * lvl));
		nd[10] = int(lvl);
		nd[11] = int(masks);
		store_node(self);
	}
}

void main()
{
	int i = int(gl_GlobalInvocationID.x);
	uint n = n_unique;
	if (i == 0) {
		if (n == 1u) {
			uint slot = ucodes[0] >> 27u;
			for (int c = 0; c < 8; c++)
				nd[c] = c == int(slot) ? 0 : -1;
			nd[8] = -1;
			nd[9] = 0;
			nd[10] = 0;
			nd[11] = int(1u << (slot + 8u));
			store_node(0);
		}
		n_nodes = n < 2u ? n : offsets[n - 1u];
	}
	if (n >= 2u && i < int(n) - 1)
		build_nodes(i);
}
