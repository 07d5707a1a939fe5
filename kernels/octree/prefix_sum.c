/* prefix_sum.c: stage 6, exclusive scan of the edge counts (OpenMP):
 * offsets[i] = first octree node of radix node i, offsets[m] = node count
 * (m = n_unique - 1 internal nodes). */
#include "cpu_common.h"

int octree_prefix_sum_cpu(struct octree_task *t)
{
	uint32_t n = t->n_unique[0];
	if (n > (uint64_t)t->params->max_points)
		return OCTREE_E_SIZE;
	uint32_t m = octree_internal_count(n);
	t->offsets[m] = octree_scan_cpu(t->edge_count, t->offsets, m);
	return 0;
}
