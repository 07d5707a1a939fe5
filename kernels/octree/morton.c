/* morton.c: stage 1, Morton codes (OpenMP). */
#include "cpu_common.h"
#include "octree_kern.h"

int octree_morton_cpu(struct octree_task *t)
{
	uint32_t n = t->n_points[0];
	if (n > (uint64_t)t->params->max_points)
		return OCTREE_E_SIZE;
	const float *pts = t->points, *cube = t->cube;
	uint32_t *codes = t->codes;
#pragma omp parallel for schedule(static)
	for (uint32_t i = 0; i < n; i++)
		codes[i] = octree_morton(pts + (size_t)i * 4, cube);
	return 0;
}
