/* octree_defs.h: definitions shared by every octree kernel, the sequential
 * reference and the io (docs/octree.md).
 *
 * Morton codes are 30 bits: 10 bits per axis, bit 3k+2 = x bit k,
 * 3k+1 = y bit k, 3k = z bit k (x most significant). A code's top 3*l bits
 * name the level-l cell that contains it; level 0 is the frame's bounding
 * cube, level 10 a single quantum (a leaf). */
#ifndef OCTREE_DEFS_H
#define OCTREE_DEFS_H

#include <stddef.h>
#include <stdint.h>

#define OCTREE_AXIS_BITS 10
#define OCTREE_CODE_BITS 30           /* 3 * OCTREE_AXIS_BITS */
#define OCTREE_GRID 1024              /* quanta per axis, 1 << OCTREE_AXIS_BITS */
#define OCTREE_MAX_LEVEL 9            /* deepest level of an octree node */
#define OCTREE_NODE_WORDS 12          /* 32-bit words per struct octree_node */

/* One octree node: 12 little-endian 32-bit words, 48 bytes, no padding.
 * Nodes are numbered as Karras 2012 Sec. 4 numbers them: the radix-tree
 * internal node i owns nodes offsets[i] .. offsets[i] + edge_count[i] - 1,
 * ordered top (shallowest) first; node 0 is the root (level 0). */
struct octree_node {
	/* children[c]: child in octant c (c = the 3 code bits below this
	 * node's prefix). Bit c of masks (node mask) set: index of an octree
	 * node; bit c + 8 (leaf mask) set: index of a unique Morton code
	 * (ucodes[]) attached directly as a leaf; neither: -1. */
	int32_t children[8];
	int32_t parent;       /* parent node index; -1 for the root */
	uint32_t prefix;      /* the top 3*level bits of the cell's codes */
	uint32_t level;       /* 0 (root, the bounding cube) .. 9 */
	uint32_t masks;       /* bits 0-7 node mask, bits 8-15 leaf mask */
};

#define OCTREE_NODE_MASK(m) ((m) & 0xffu)
#define OCTREE_LEAF_MASK(m) (((m) >> 8) & 0xffu)

/* Upper bound on the node count of one frame of max_points points: the
 * number of non-empty cells of levels 0..9, sum of min(8^l, max_points).
 * Matches the count expression of buffer `nodes` in apps/octree.yaml. */
static inline uint64_t octree_max_nodes(uint64_t max_points)
{
	uint64_t n = 0, cells = 1;
	for (int l = 0; l <= OCTREE_MAX_LEVEL; l++, cells *= 8)
		n += cells < max_points ? cells : max_points;
	return n;
}

/* 64-bit FNV-1a over bytes; the digest of a node array. */
static inline uint64_t octree_fnv1a(const void *data, size_t bytes)
{
	const unsigned char *p = (const unsigned char *)data;
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < bytes; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

#endif
