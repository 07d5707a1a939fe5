/* octree.cu: CUDA launchers of the seven octree stages (kernel ABI of
 * docs/app-format.md: C linkage, asynchronous on the given stream, return 0
 * or the cudaError_t of a failed launch).
 *
 * Per-element work comes from octree_kern.h, shared verbatim with the
 * OpenMP kernels. Sort, duplicate removal and the scan use CUB device-wide
 * algorithms (DeviceRadixSort::SortKeys on bits 0..29, DeviceSelect::Unique,
 * DeviceScan::ExclusiveSum) with their temporary storage in the TaskObject's
 * `cub_temp` buffer (device placement, cub_temp_bytes bytes); no allocation
 * per task. CUB needs item counts on the host: it gets n_points, which the
 * io writes before the pipeline starts; per-task sizes computed on the GPU
 * (n_unique, node counts) stay in device buffers and kernels bound-check
 * against them, with grids sized from params (max_points). */
#include <cub/cub.cuh>

extern "C" {
#include "octree_task.h"
}
#include "octree_kern.h"

#define TPB 256

/* device pointer of buffer B (unified buffers: == host pointer) */
#define DEV(t, B, T) ((T *)(t)->base.buffers[OCTREE_BUF_##B].dev)

static unsigned grid_for(const struct octree_task *t)
{
	long long mp = t->params->max_points;
	return (unsigned)(mp > 0 ? (mp + TPB - 1) / TPB : 1);
}

static int launch_status(void)
{
	return (int)cudaGetLastError();
}

__global__ void k_morton(const float *pts, const uint32_t *n_points, const float *cube,
			 uint32_t *codes)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < *n_points)
		codes[i] = octree_morton(pts + (size_t)i * 4, cube);
}

__global__ void k_radix_tree(const uint32_t *ucodes, const uint32_t *n_unique,
			     uint32_t *prefix_n, uint32_t *hll, uint32_t *hlr,
			     int32_t *left_child, int32_t *parent)
{
	int n = (int)*n_unique;
	int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (i < n - 1)
		octree_radix_node(ucodes, n, i, prefix_n, hll, hlr, left_child, parent);
}

__global__ void k_edge_count(const uint32_t *prefix_n, const int32_t *parent,
			     const uint32_t *n_unique, uint32_t *edge_count)
{
	int n = (int)*n_unique;
	int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (i < n - 1)
		edge_count[i] = octree_edge(prefix_n, parent, i);
}

__global__ void k_build(const uint32_t *ucodes, const uint32_t *n_unique,
			const uint32_t *prefix_n, const uint32_t *hll, const uint32_t *hlr,
			const int32_t *left_child, const int32_t *parent,
			const uint32_t *edge_count, const uint32_t *offsets, int32_t *nodes,
			uint32_t *n_nodes)
{
	int n = (int)*n_unique;
	int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (i == 0) {
		if (n == 1)
			octree_build_single(ucodes, nodes);
		*n_nodes = n < 2 ? (uint32_t)n : offsets[n - 1];
	}
	if (i < n - 1)
		octree_build_nodes(ucodes, prefix_n, hll, hlr, left_child, parent, edge_count,
				   offsets, nodes, i);
}

extern "C" int octree_morton_cuda(struct octree_task *t, void *stream)
{
	k_morton<<<grid_for(t), TPB, 0, (cudaStream_t)stream>>>(
		DEV(t, POINTS, const float), DEV(t, N_POINTS, const uint32_t),
		DEV(t, CUBE, const float), DEV(t, CODES, uint32_t));
	return launch_status();
}

/* n_points: written by io.load before the task entered the pipeline. */
static int host_n_points(const struct octree_task *t)
{
	return (int)t->n_points[0];
}

extern "C" int octree_sort_cuda(struct octree_task *t, void *stream)
{
	int n = host_n_points(t);
	size_t need = 0, have = t->base.buffers[OCTREE_BUF_CUB_TEMP].bytes;
	void *temp = t->base.buffers[OCTREE_BUF_CUB_TEMP].dev;
	if (n == 0)
		return 0;
	cudaError_t e = cub::DeviceRadixSort::SortKeys(NULL, need, DEV(t, CODES, const uint32_t),
						       DEV(t, SORTED, uint32_t), n, 0,
						       OCTREE_CODE_BITS, (cudaStream_t)stream);
	if (e != cudaSuccess)
		return (int)e;
	if (need > have)
		return (int)cudaErrorMemoryAllocation;
	e = cub::DeviceRadixSort::SortKeys(temp, need, DEV(t, CODES, const uint32_t),
					   DEV(t, SORTED, uint32_t), n, 0, OCTREE_CODE_BITS,
					   (cudaStream_t)stream);
	return e != cudaSuccess ? (int)e : launch_status();
}

extern "C" int octree_unique_cuda(struct octree_task *t, void *stream)
{
	int n = host_n_points(t);
	size_t need = 0, have = t->base.buffers[OCTREE_BUF_CUB_TEMP].bytes;
	void *temp = t->base.buffers[OCTREE_BUF_CUB_TEMP].dev;
	if (n == 0)
		return (int)cudaMemsetAsync(DEV(t, N_UNIQUE, uint32_t), 0, 4, (cudaStream_t)stream);
	cudaError_t e = cub::DeviceSelect::Unique(NULL, need, DEV(t, SORTED, const uint32_t),
						  DEV(t, UCODES, uint32_t),
						  DEV(t, N_UNIQUE, uint32_t), n, (cudaStream_t)stream);
	if (e != cudaSuccess)
		return (int)e;
	if (need > have)
		return (int)cudaErrorMemoryAllocation;
	e = cub::DeviceSelect::Unique(temp, need, DEV(t, SORTED, const uint32_t),
				      DEV(t, UCODES, uint32_t), DEV(t, N_UNIQUE, uint32_t), n,
				      (cudaStream_t)stream);
	return e != cudaSuccess ? (int)e : launch_status();
}

extern "C" int octree_radix_tree_cuda(struct octree_task *t, void *stream)
{
	k_radix_tree<<<grid_for(t), TPB, 0, (cudaStream_t)stream>>>(
		DEV(t, UCODES, const uint32_t), DEV(t, N_UNIQUE, const uint32_t),
		DEV(t, PREFIX_N, uint32_t), DEV(t, HAS_LEAF_LEFT, uint32_t),
		DEV(t, HAS_LEAF_RIGHT, uint32_t), DEV(t, LEFT_CHILD, int32_t),
		DEV(t, PARENT, int32_t));
	return launch_status();
}

extern "C" int octree_edge_count_cuda(struct octree_task *t, void *stream)
{
	k_edge_count<<<grid_for(t), TPB, 0, (cudaStream_t)stream>>>(
		DEV(t, PREFIX_N, const uint32_t), DEV(t, PARENT, const int32_t),
		DEV(t, N_UNIQUE, const uint32_t), DEV(t, EDGE_COUNT, uint32_t));
	return launch_status();
}

/* Exclusive scan over the first n_points edge counts: entries at and beyond
 * m = n_unique - 1 are stale, but offsets[0..m] depend only on
 * edge_count[0..m-1] and m < n_points, so offsets[m] is the node count. */
extern "C" int octree_prefix_sum_cuda(struct octree_task *t, void *stream)
{
	int n = host_n_points(t);
	size_t need = 0, have = t->base.buffers[OCTREE_BUF_CUB_TEMP].bytes;
	void *temp = t->base.buffers[OCTREE_BUF_CUB_TEMP].dev;
	if (n == 0)
		return (int)cudaMemsetAsync(DEV(t, OFFSETS, uint32_t), 0, 4, (cudaStream_t)stream);
	cudaError_t e = cub::DeviceScan::ExclusiveSum(NULL, need, DEV(t, EDGE_COUNT, const uint32_t),
						      DEV(t, OFFSETS, uint32_t), n,
						      (cudaStream_t)stream);
	if (e != cudaSuccess)
		return (int)e;
	if (need > have)
		return (int)cudaErrorMemoryAllocation;
	e = cub::DeviceScan::ExclusiveSum(temp, need, DEV(t, EDGE_COUNT, const uint32_t),
					  DEV(t, OFFSETS, uint32_t), n, (cudaStream_t)stream);
	return e != cudaSuccess ? (int)e : launch_status();
}

extern "C" int octree_build_cuda(struct octree_task *t, void *stream)
{
	k_build<<<grid_for(t), TPB, 0, (cudaStream_t)stream>>>(
		DEV(t, UCODES, const uint32_t), DEV(t, N_UNIQUE, const uint32_t),
		DEV(t, PREFIX_N, const uint32_t), DEV(t, HAS_LEAF_LEFT, const uint32_t),
		DEV(t, HAS_LEAF_RIGHT, const uint32_t), DEV(t, LEFT_CHILD, const int32_t),
		DEV(t, PARENT, const int32_t), DEV(t, EDGE_COUNT, const uint32_t),
		DEV(t, OFFSETS, const uint32_t), DEV(t, NODES, int32_t), DEV(t, N_NODES, uint32_t));
	return launch_status();
}
