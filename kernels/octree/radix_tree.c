/* radix_tree.c: stage 4, binary radix tree over the unique codes (OpenMP;
 * Karras 2012, every internal node independently). */
#include "cpu_common.h"
#include "octree_kern.h"

int octree_radix_tree_cpu(struct octree_task *t)
{
	uint32_t n = t->n_unique[0];
	if (n > (uint64_t)t->params->max_points)
		return OCTREE_E_SIZE;
	int m = (int)octree_internal_count(n);
#pragma omp parallel for schedule(static)
	for (int i = 0; i < m; i++)
		octree_radix_node(t->ucodes, (int)n, i, t->prefix_n, t->has_leaf_left,
				  t->has_leaf_right, t->left_child, t->parent);
	return 0;
}
