/* octree_kern.h: per-element work of the octree stages, shared verbatim by
 * the OpenMP kernels (C) and the CUDA kernels (.cu); the GLSL shaders in
 * shaders/octree/ are line-by-line ports. The sequential reference
 * (reference.c) does not use this file: it is written independently.
 *
 * Radix tree: Karras 2012, Sec. 4, Fig. 4 (determineRange / findSplit over
 * unique sorted keys). Octree: Karras 2012, Sec. 4 "octrees": the radix
 * node i with parent p owns edge_count[i] = prefix_n[i]/3 - prefix_n[p]/3
 * octree nodes (the root: prefix_n[0]/3 + 1), stored top first at
 * offsets[i]. Each node is written whole by the thread of its radix node
 * (no atomics), so the array is the same on every backend. */
#ifndef OCTREE_KERN_H
#define OCTREE_KERN_H

#include "octree_defs.h"

#ifdef __CUDACC__
#define OCTREE_FN static __device__ __forceinline__
#define OCTREE_CLZ(x) __clz((int)(x))
#else
#define OCTREE_FN static inline
#define OCTREE_CLZ(x) __builtin_clz(x)
#endif

/* Quantises one coordinate into 0..1023: floor((v - lo) * scale), clamped.
 * One IEEE subtraction and one multiplication, both correctly rounded on
 * every backend, so all backends agree bit for bit. */
OCTREE_FN uint32_t octree_quantise(float v, float lo, float scale)
{
	float q = (v - lo) * scale;
	if (!(q > 0.0f))
		return 0;
	if (q >= 1023.0f)
		return 1023;
	return (uint32_t)q;
}

/* Spreads the 10 low bits of v to bits 0, 3, 6, ..., 27. */
OCTREE_FN uint32_t octree_spread10(uint32_t v)
{
	v &= 0x3ffu;
	v = (v | (v << 16)) & 0x030000ffu;
	v = (v | (v << 8)) & 0x0300f00fu;
	v = (v | (v << 4)) & 0x030c30c3u;
	v = (v | (v << 2)) & 0x09249249u;
	return v;
}

/* 30-bit Morton code of point p (x y z w) in the cube (lo x y z, scale). */
OCTREE_FN uint32_t octree_morton(const float *p, const float *cube)
{
	return (octree_spread10(octree_quantise(p[0], cube[0], cube[3])) << 2) |
	       (octree_spread10(octree_quantise(p[1], cube[1], cube[3])) << 1) |
	       octree_spread10(octree_quantise(p[2], cube[2], cube[3]));
}

/* Karras' delta: length of the common prefix of keys i and j (32-bit
 * words), -1 when j is outside [0, n). Keys are unique. */
OCTREE_FN int octree_delta(const uint32_t *k, int n, int i, int j)
{
	if (j < 0 || j >= n)
		return -1;
	return OCTREE_CLZ(k[i] ^ k[j]);
}

/* Internal node i (0 <= i < n - 1) of the binary radix tree over the n >= 2
 * unique sorted keys k: its children gamma (left) and gamma + 1 (right),
 * which are leaves when they end the node's range, the node's prefix
 * length in 30-bit code bits, and the parent links of internal children. */
OCTREE_FN void octree_radix_node(const uint32_t *k, int n, int i, uint32_t *prefix_n,
				 uint32_t *has_leaf_left, uint32_t *has_leaf_right,
				 int32_t *left_child, int32_t *parent)
{
	int d = octree_delta(k, n, i, i + 1) - octree_delta(k, n, i, i - 1) > 0 ? 1 : -1;
	int dmin = octree_delta(k, n, i, i - d);
	int lmax = 2;
	while (octree_delta(k, n, i, i + lmax * d) > dmin)
		lmax *= 2;
	int l = 0;
	for (int t = lmax / 2; t >= 1; t /= 2)
		if (octree_delta(k, n, i, i + (l + t) * d) > dmin)
			l += t;
	int j = i + l * d;
	int dnode = octree_delta(k, n, i, j);
	int s = 0;
	for (int div = 2;; div *= 2) {
		int t = (l + div - 1) / div;
		if (octree_delta(k, n, i, i + (s + t) * d) > dnode)
			s += t;
		if (t <= 1)
			break;
	}
	int gamma = i + s * d + (d < 0 ? -1 : 0);
	int lo = i < j ? i : j, hi = i < j ? j : i;
	prefix_n[i] = (uint32_t)(dnode - (32 - OCTREE_CODE_BITS));
	has_leaf_left[i] = lo == gamma;
	has_leaf_right[i] = hi == gamma + 1;
	left_child[i] = gamma;
	if (lo != gamma)
		parent[gamma] = i;
	if (hi != gamma + 1)
		parent[gamma + 1] = i;
	if (i == 0)
		parent[0] = -1;
}

/* Octree nodes owned by radix node i (Karras 2012 Sec. 4). */
OCTREE_FN uint32_t octree_edge(const uint32_t *prefix_n, const int32_t *parent, int i)
{
	if (i == 0)
		return prefix_n[0] / 3 + 1;
	return prefix_n[i] / 3 - prefix_n[parent[i]] / 3;
}

/* Puts radix child c (a leaf: unique code c; else the top octree node of
 * radix node c) into the octant of node nd given by its code bits below
 * shift. */
OCTREE_FN void octree_take(const uint32_t *ucodes, const uint32_t *offsets, int c,
			   uint32_t is_leaf, uint32_t shift, int32_t *nd, uint32_t *masks)
{
	uint32_t slot = (ucodes[c] >> shift) & 7u;
	if (is_leaf) {
		nd[slot] = c;
		*masks |= 1u << (slot + 8);
	} else {
		nd[slot] = (int32_t)offsets[c];
		*masks |= 1u << slot;
	}
}

#ifdef __CUDACC__
/* Stores the OCTREE_NODE_WORDS (12) words of one node, built in nd, at
 * dst as three 16-byte stores. dst is 16-byte aligned: the array starts
 * on a 64-byte boundary (every pool's buffers do) and a node is 48 bytes.
 * The node array is an output, which the CUDA pool keeps in pinned host
 * memory: a store per word (and a second store of a child slot) crossed
 * the bus as a transaction of its own. */
static_assert(OCTREE_NODE_WORDS == 12, "octree_store_node stores 12 words");
OCTREE_FN void octree_store_node(int32_t *dst, const int32_t *nd)
{
	int4 *d = (int4 *)dst;
	d[0] = make_int4(nd[0], nd[1], nd[2], nd[3]);
	d[1] = make_int4(nd[4], nd[5], nd[6], nd[7]);
	d[2] = make_int4(nd[8], nd[9], nd[10], nd[11]);
}
#endif

/* Writes the edge_count[i] octree nodes of radix node i (n >= 2 unique
 * codes): on the CPU in place, on the GPU each built in registers and
 * stored whole (octree_store_node; in place on the CPU is 7 % faster than
 * a copy there). Returns 0, or 1 if the tree is malformed (never for
 * valid input). */
OCTREE_FN int octree_build_nodes(const uint32_t *ucodes, const uint32_t *prefix_n,
				 const uint32_t *has_leaf_left, const uint32_t *has_leaf_right,
				 const int32_t *left_child, const int32_t *parent,
				 const uint32_t *edge_count, const uint32_t *offsets,
				 int32_t *nodes, int i)
{
	uint32_t e = edge_count[i];
	if (e == 0)
		return 0;
	uint32_t code = ucodes[i];
	uint32_t top = prefix_n[i] / 3 + 1 - e;
	int32_t up = -1;
	if (i != 0) {
		int a = parent[i];
		for (int k = 0; k < 2 && edge_count[a] == 0; k++) /* at most 2 steps */
			a = parent[a];
		up = (int32_t)(offsets[a] + edge_count[a] - 1);
	}
	for (uint32_t j = 0; j < e; j++) {
		uint32_t lvl = top + j;
		int32_t self = (int32_t)(offsets[i] + j);
#ifdef __CUDACC__
		int32_t nd[OCTREE_NODE_WORDS];
#else
		int32_t *nd = nodes + (size_t)self * OCTREE_NODE_WORDS;
#endif
		uint32_t masks = 0;
		uint32_t shift = OCTREE_CODE_BITS - 3 * (lvl + 1);
		for (int c = 0; c < 8; c++)
			nd[c] = -1;
		if (j + 1 < e) {
			uint32_t slot = (code >> shift) & 7u;
			nd[slot] = self + 1;
			masks = 1u << slot;
		} else {
			/* children: the radix children of i, looking through radix
			 * nodes that own no octree node; those share i's level, so
			 * there are at most two such levels below i (unrolled) */
			for (int a = 0; a < 2; a++) {
				int c1 = left_child[i] + a;
				uint32_t l1 = a == 0 ? has_leaf_left[i] : has_leaf_right[i];
				if (l1 || edge_count[c1]) {
					octree_take(ucodes, offsets, c1, l1, shift, nd, &masks);
					continue;
				}
				for (int b = 0; b < 2; b++) {
					int c2 = left_child[c1] + b;
					uint32_t l2 = b == 0 ? has_leaf_left[c1] : has_leaf_right[c1];
					if (l2 || edge_count[c2]) {
						octree_take(ucodes, offsets, c2, l2, shift, nd, &masks);
						continue;
					}
					for (int d = 0; d < 2; d++) {
						int c3 = left_child[c2] + d;
						uint32_t l3 = d == 0 ? has_leaf_left[c2] : has_leaf_right[c2];
						if (!l3 && !edge_count[c3])
							return 1; /* deeper than a level allows */
						octree_take(ucodes, offsets, c3, l3, shift, nd, &masks);
					}
				}
			}
		}
		nd[8] = j ? self - 1 : up;
		nd[9] = (int32_t)(code >> (OCTREE_CODE_BITS - 3 * lvl));
		nd[10] = (int32_t)lvl;
		nd[11] = (int32_t)masks;
#ifdef __CUDACC__
		octree_store_node(nodes + (size_t)self * OCTREE_NODE_WORDS, nd);
#endif
	}
	return 0;
}

/* The octree of a frame with exactly one unique code: the root with that
 * code attached as a leaf. */
OCTREE_FN void octree_build_single(const uint32_t *ucodes, int32_t *nodes)
{
	uint32_t slot = ucodes[0] >> (OCTREE_CODE_BITS - 3);
	for (int c = 0; c < 8; c++)
		nodes[c] = -1;
	nodes[slot] = 0;
	nodes[8] = -1;
	nodes[9] = 0;
	nodes[10] = 0;
	nodes[11] = (int32_t)(1u << (slot + 8));
}

#endif
