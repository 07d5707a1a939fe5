/* build.c: stage 7, octree nodes (OpenMP): each radix node writes the
 * octree nodes it owns (octree_kern.h). Writes n_nodes. */
#include "cpu_common.h"
#include "octree_kern.h"

int octree_build_cpu(struct octree_task *t)
{
	uint32_t n = t->n_unique[0];
	if (n > (uint64_t)t->params->max_points)
		return OCTREE_E_SIZE;
	uint64_t cap = octree_max_nodes((uint64_t)t->params->max_points);
	if (n < 2) {
		if (n == 1)
			octree_build_single(t->ucodes, t->nodes);
		t->n_nodes[0] = n;
		return 0;
	}
	int m = (int)n - 1, bad = 0;
	if (t->offsets[m] > cap)
		return OCTREE_E_SIZE;
#pragma omp parallel for schedule(static) reduction(| : bad)
	for (int i = 0; i < m; i++)
		bad |= octree_build_nodes(t->ucodes, t->prefix_n, t->has_leaf_left,
					  t->has_leaf_right, t->left_child, t->parent,
					  t->edge_count, t->offsets, t->nodes, i);
	t->n_nodes[0] = t->offsets[m];
	return bad ? OCTREE_E_TREE : 0;
}
