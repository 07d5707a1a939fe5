/* octree_stages.h: the octree app's stage table for btrt_pipeline_run,
 * written by hand from apps/octree.yaml (what btc generates for a
 * schedule): kernels, Vulkan dispatches with their push constants, and the
 * reads/writes of every stage. Used by the tests and the benchmark. */
#ifndef OCTREE_STAGES_H
#define OCTREE_STAGES_H

#include <btrt_pipeline.h>
#include <btrt_vk.h>

#include "octree_task.h"

#ifndef OCTREE_N_STAGES
#define OCTREE_N_STAGES 7
#endif
#define OCTREE_N_SHADERS 7

/* The stage table for params p; Vulkan dispatch sizes derive from p
 * (apps/octree.yaml). with_cuda: fill the .cuda launchers (only in builds
 * with CUDA). The table points into *tab, which must outlive its use. */
struct octree_stage_table {
	struct btrt_stage stages[OCTREE_N_STAGES];
	struct btrt_vk_dispatch disp[40];
	uint32_t push[40];
};
void octree_stage_table_init(struct octree_stage_table *tab, const struct octree_params *p,
			     int with_cuda);

/* Embedded SPIR-V of the shaders, in the order the dispatches index them
 * (n_shaders = OCTREE_N_SHADERS); NULL in builds without Vulkan. */
extern const struct btrt_vk_shader *const octree_vk_shaders;

#endif
