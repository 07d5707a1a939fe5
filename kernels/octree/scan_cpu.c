/* scan_cpu.c: parallel exclusive scan for the OpenMP kernels: each thread
 * sums a contiguous block, one thread scans the block sums, each thread
 * scans its block from its offset (two passes over the data). */
#include <omp.h>
#include <stdlib.h>

#include "cpu_common.h"

uint32_t octree_scan_cpu(const uint32_t *in, uint32_t *out, size_t n)
{
	uint32_t sums[257], total = 0;
	int nt = omp_get_max_threads();
	if (nt > 256)
		nt = 256;
	if (n < 4096)
		nt = 1;
#pragma omp parallel num_threads(nt)
	{
		int t = omp_get_thread_num(), T = omp_get_num_threads();
		size_t lo = n * (size_t)t / (size_t)T, hi = n * (size_t)(t + 1) / (size_t)T;
		uint32_t s = 0;
		for (size_t i = lo; i < hi; i++)
			s += in[i];
		sums[t + 1] = s;
#pragma omp barrier
#pragma omp single
		{
			sums[0] = 0;
			for (int k = 1; k <= T; k++)
				sums[k] += sums[k - 1];
			total = sums[T];
		}
		s = sums[t];
		for (size_t i = lo; i < hi; i++) {
			uint32_t v = in[i];
			out[i] = s;
			s += v;
		}
	}
	return total;
}
