/* unique.c: stage 3, duplicate removal (OpenMP): each thread counts the
 * first occurrences in its block, the counts are scanned, and each thread
 * copies its first occurrences to its offset. Writes n_unique. */
#include <omp.h>

#include "cpu_common.h"

int octree_unique_cpu(struct octree_task *t)
{
	size_t n = t->n_points[0];
	if (n > (uint64_t)t->params->max_points)
		return OCTREE_E_SIZE;
	const uint32_t *s = t->sorted;
	uint32_t *u = t->ucodes;
	uint32_t cnt[257];
	int nt = omp_get_max_threads();
	if (nt > 256)
		nt = 256;
	if (n < 16384)
		nt = 1;
#pragma omp parallel num_threads(nt)
	{
		int me = omp_get_thread_num(), T = omp_get_num_threads();
		size_t lo = n * (size_t)me / (size_t)T, hi = n * (size_t)(me + 1) / (size_t)T;
		uint32_t c = 0;
		for (size_t i = lo; i < hi; i++)
			c += i == 0 || s[i] != s[i - 1];
		cnt[me + 1] = c;
#pragma omp barrier
#pragma omp single
		{
			cnt[0] = 0;
			for (int k = 1; k <= T; k++)
				cnt[k] += cnt[k - 1];
			t->n_unique[0] = cnt[T];
		}
		uint32_t o = cnt[me];
		for (size_t i = lo; i < hi; i++)
			if (i == 0 || s[i] != s[i - 1])
				u[o++] = s[i];
	}
	return 0;
}
