/* reference.h: plain sequential C reference of the whole octree pipeline.
 *
 * Written independently of the parallel kernels (octree_kern.h): Morton
 * codes bit by bit, qsort, a sequential unique, the radix tree top-down by
 * recursive splitting (which yields Karras' node numbering), and the octree
 * by linking children into parents. Every intermediate array is kept so that
 * tests can feed any single stage with the reference's inputs and compare
 * its outputs. */
#ifndef OCTREE_REFERENCE_H
#define OCTREE_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "octree_defs.h"

struct octree_ref {
	uint32_t n_points;
	float cube[4];           /* min x, min y, min z, scale */
	uint32_t *codes;         /* [n_points] stage 1 */
	uint32_t *sorted;        /* [n_points] stage 2 */
	uint32_t *ucodes;        /* [n_unique] stage 3 */
	uint32_t n_unique;
	uint32_t n_internal;     /* radix-tree internal nodes: max(n_unique - 1, 0) */
	uint32_t *prefix_n;      /* [n_internal] stage 4 */
	uint32_t *has_leaf_left, *has_leaf_right;
	int32_t *left_child, *parent;
	uint32_t *edge_count;    /* [n_internal] stage 5 */
	uint32_t *offsets;       /* [n_internal + 1] stage 6, last = node count */
	struct octree_node *nodes; /* [n_nodes] stage 7 */
	uint32_t n_nodes;
	uint64_t hash;           /* octree_fnv1a of nodes */
};

/* The frame's bounding cube for quantisation (docs/octree.md): cube[0..2]
 * the per-axis minimum, cube[3] = 1024 / edge, edge the largest extent
 * (scale 0 when all points coincide or n == 0). xyzw: [n * 4]. */
void octree_bounding_cube(const float *xyzw, uint32_t n, float cube[4]);

/* Runs the whole pipeline sequentially on the n points xyzw ([n * 4]) in
 * the given cube. Returns 0 and fills *r (free with octree_ref_free), or -1
 * with a message in err (out of memory, malformed tree). */
int octree_reference(const float *xyzw, uint32_t n, const float cube[4],
		     struct octree_ref *r, char *err, size_t errlen);

/* Frees the arrays of r and zeroes it. NULL-safe. */
void octree_ref_free(struct octree_ref *r);

/* Checks the structural invariants of an octree over the sorted unique
 * codes ucodes[n_unique]: parent/child links agree, each child lies in its
 * parent's octant, levels and prefixes match, and every code is attached
 * exactly once. Returns 0, or -1 with the first violation in err. */
int octree_validate(const struct octree_node *nodes, uint32_t n_nodes,
		    const uint32_t *ucodes, uint32_t n_unique, char *err, size_t errlen);

#endif
