/* edge_count.c: stage 5, octree nodes per radix-tree node (OpenMP). */
#include "cpu_common.h"
#include "octree_kern.h"

int octree_edge_count_cpu(struct octree_task *t)
{
	uint32_t n = t->n_unique[0];
	if (n > (uint64_t)t->params->max_points)
		return OCTREE_E_SIZE;
	int m = (int)octree_internal_count(n);
#pragma omp parallel for schedule(static)
	for (int i = 0; i < m; i++)
		t->edge_count[i] = octree_edge(t->prefix_n, t->parent, i);
	return 0;
}
