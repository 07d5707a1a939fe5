/* cpu_common.h: helpers of the OpenMP kernels (not part of the kernel ABI). */
#ifndef OCTREE_CPU_COMMON_H
#define OCTREE_CPU_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "octree_task.h"

/* Kernel error codes (returned by the octree_*_cpu kernels). */
enum {
	OCTREE_E_SIZE = 1,   /* a per-task count exceeds its buffer */
	OCTREE_E_NOMEM = 2,  /* scratch allocation failed */
	OCTREE_E_TREE = 3,   /* malformed radix tree */
};

/* Parallel exclusive scan of in[0..n) into out[0..n) (in == out allowed);
 * returns the total. Uses the OpenMP team of the caller's PU. */
uint32_t octree_scan_cpu(const uint32_t *in, uint32_t *out, size_t n);

/* Number of radix-tree internal nodes for n unique codes. */
static inline uint32_t octree_internal_count(uint32_t n_unique)
{
	return n_unique > 1 ? n_unique - 1 : 0;
}

#endif
