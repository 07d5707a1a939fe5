/* sort.c: stage 2, parallel LSD radix sort of the 30-bit Morton codes
 * (OpenMP). Three passes of 10 bits; each thread histograms a contiguous
 * block, the (digit, thread) counts are scanned digit-major, and each
 * thread scatters its block in order, so every pass is stable.
 * codes -> sorted -> sort_tmp -> sorted. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_common.h"
#include "octree_defs.h"

#define BITS 10
#define RADIX (1 << BITS)
#define PASSES 3
_Static_assert(BITS * PASSES == OCTREE_CODE_BITS, "passes must cover the code");

int octree_sort_cpu(struct octree_task *t)
{
	size_t n = t->n_points[0];
	if (n > (uint64_t)t->params->max_points)
		return OCTREE_E_SIZE;
	int nt = omp_get_max_threads();
	if (n < 16384)
		nt = 1;
	uint32_t *hist = malloc((size_t)nt * RADIX * sizeof *hist);
	if (!hist)
		return OCTREE_E_NOMEM;
	const uint32_t *src[PASSES] = { t->codes, t->sorted, t->sort_tmp };
	uint32_t *dst[PASSES] = { t->sorted, t->sort_tmp, t->sorted };
#pragma omp parallel num_threads(nt)
	{
		int me = omp_get_thread_num(), T = omp_get_num_threads();
		size_t lo = n * (size_t)me / (size_t)T, hi = n * (size_t)(me + 1) / (size_t)T;
		uint32_t *h = hist + (size_t)me * RADIX;
		for (int pass = 0; pass < PASSES; pass++) {
			const uint32_t *in = src[pass];
			uint32_t *out = dst[pass];
			unsigned shift = BITS * (unsigned)pass;
			memset(h, 0, RADIX * sizeof *h);
			for (size_t i = lo; i < hi; i++)
				h[(in[i] >> shift) & (RADIX - 1)]++;
#pragma omp barrier
#pragma omp single
			{
				uint32_t sum = 0;
				for (int d = 0; d < RADIX; d++)
					for (int k = 0; k < T; k++) {
						uint32_t c = hist[(size_t)k * RADIX + d];
						hist[(size_t)k * RADIX + d] = sum;
						sum += c;
					}
			}
			for (size_t i = lo; i < hi; i++) {
				uint32_t v = in[i];
				out[h[(v >> shift) & (RADIX - 1)]++] = v;
			}
#pragma omp barrier
		}
	}
	free(hist);
	return 0;
}
