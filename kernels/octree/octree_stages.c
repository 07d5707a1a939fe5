/* octree_stages.c: see octree_stages.h. */
#include "octree_stages.h"

#include <string.h>

#include "btc_config.h"

#if BTC_HAVE_VULKAN
#include "octree_edge_count_spv.h"
#include "octree_morton_spv.h"
#include "octree_octree_spv.h"
#include "octree_prefix_sum_spv.h"
#include "octree_radix_sort_spv.h"
#include "octree_radix_tree_spv.h"
#include "octree_unique_spv.h"

static const struct btrt_vk_shader shaders[OCTREE_N_SHADERS] = {
	{ "morton", octree_morton_spv, sizeof octree_morton_spv, NULL },
	{ "radix_sort", octree_radix_sort_spv, sizeof octree_radix_sort_spv, NULL },
	{ "unique", octree_unique_spv, sizeof octree_unique_spv, NULL },
	{ "radix_tree", octree_radix_tree_spv, sizeof octree_radix_tree_spv, NULL },
	{ "edge_count", octree_edge_count_spv, sizeof octree_edge_count_spv, NULL },
	{ "prefix_sum", octree_prefix_sum_spv, sizeof octree_prefix_sum_spv, NULL },
	{ "octree", octree_octree_spv, sizeof octree_octree_spv, NULL },
};
const struct btrt_vk_shader *const octree_vk_shaders = shaders;
#else
const struct btrt_vk_shader *const octree_vk_shaders = NULL;
#endif

/* btrt_cpu_kernel / btrt_cuda_kernel take void *task */
#define CPU_WRAP(k) static int k##_w(void *t) { return k((struct octree_task *)t); }
#define CUDA_WRAP(k) static int k##_w(void *t, void *s) { return k((struct octree_task *)t, s); }
CPU_WRAP(octree_morton_cpu)
CPU_WRAP(octree_sort_cpu)
CPU_WRAP(octree_unique_cpu)
CPU_WRAP(octree_radix_tree_cpu)
CPU_WRAP(octree_edge_count_cpu)
CPU_WRAP(octree_prefix_sum_cpu)
CPU_WRAP(octree_build_cpu)
#if BTC_HAVE_CUDA
CUDA_WRAP(octree_morton_cuda)
CUDA_WRAP(octree_sort_cuda)
CUDA_WRAP(octree_unique_cuda)
CUDA_WRAP(octree_radix_tree_cuda)
CUDA_WRAP(octree_edge_count_cuda)
CUDA_WRAP(octree_prefix_sum_cuda)
CUDA_WRAP(octree_build_cuda)
#endif

enum {
	B_POINTS = OCTREE_BUF_POINTS, B_NP = OCTREE_BUF_N_POINTS, B_CUBE = OCTREE_BUF_CUBE,
	B_CODES = OCTREE_BUF_CODES, B_TMP = OCTREE_BUF_SORT_TMP, B_SORTED = OCTREE_BUF_SORTED,
	B_UC = OCTREE_BUF_UCODES, B_NU = OCTREE_BUF_N_UNIQUE, B_PN = OCTREE_BUF_PREFIX_N,
	B_HLL = OCTREE_BUF_HAS_LEAF_LEFT, B_HLR = OCTREE_BUF_HAS_LEAF_RIGHT,
	B_LC = OCTREE_BUF_LEFT_CHILD, B_PAR = OCTREE_BUF_PARENT, B_EC = OCTREE_BUF_EDGE_COUNT,
	B_OFF = OCTREE_BUF_OFFSETS, B_NODES = OCTREE_BUF_NODES, B_NN = OCTREE_BUF_N_NODES,
	B_VKS = OCTREE_BUF_VK_SCRATCH, B_CUB = OCTREE_BUF_CUB_TEMP,
};

#define N_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))
static const uint32_t r0[] = { B_POINTS, B_NP, B_CUBE }, w0[] = { B_CODES };
static const uint32_t r1[] = { B_CODES, B_NP }, w1[] = { B_SORTED, B_TMP, B_VKS, B_CUB };
static const uint32_t r2[] = { B_SORTED, B_NP }, w2[] = { B_UC, B_NU, B_VKS, B_CUB };
static const uint32_t r3[] = { B_UC, B_NU }, w3[] = { B_PN, B_HLL, B_HLR, B_LC, B_PAR };
static const uint32_t r4[] = { B_PN, B_PAR, B_NU }, w4[] = { B_EC };
static const uint32_t r5[] = { B_EC, B_NU, B_NP }, w5[] = { B_OFF, B_VKS, B_CUB };
static const uint32_t r6[] = { B_UC, B_NU, B_PN, B_HLL, B_HLR, B_LC, B_PAR, B_EC, B_OFF },
	w6[] = { B_NODES, B_NN };

void octree_stage_table_init(struct octree_stage_table *tab, const struct octree_params *p,
			     int with_cuda)
{
	static const btrt_cpu_kernel cpu[OCTREE_N_STAGES] = {
		octree_morton_cpu_w, octree_sort_cpu_w, octree_unique_cpu_w,
		octree_radix_tree_cpu_w, octree_edge_count_cpu_w, octree_prefix_sum_cpu_w,
		octree_build_cpu_w,
	};
#if BTC_HAVE_CUDA
	static const btrt_cuda_kernel cuda[OCTREE_N_STAGES] = {
		octree_morton_cuda_w, octree_sort_cuda_w, octree_unique_cuda_w,
		octree_radix_tree_cuda_w, octree_edge_count_cuda_w, octree_prefix_sum_cuda_w,
		octree_build_cuda_w,
	};
#endif
	static const char *const names[OCTREE_N_STAGES] = {
		"morton", "sort", "unique", "radix_tree", "edge_count", "prefix_sum", "octree",
	};
	const uint32_t *reads[] = { r0, r1, r2, r3, r4, r5, r6 };
	const uint32_t *writes[] = { w0, w1, w2, w3, w4, w5, w6 };
	const uint32_t n_reads[] = { N_OF(r0), N_OF(r1), N_OF(r2), N_OF(r3), N_OF(r4),
				     N_OF(r5), N_OF(r6) };
	const uint32_t n_writes[] = { N_OF(w0), N_OF(w1), N_OF(w2), N_OF(w3), N_OF(w4),
				      N_OF(w5), N_OF(w6) };
	/* apps/octree.yaml: dispatches per stage (repeat), groups */
	const uint32_t repeat[OCTREE_N_STAGES] = { 1, 24, 3, 1, 1, 3, 1 };
	const uint32_t per_group[OCTREE_N_STAGES] = { 256, 4096, 2048, 256, 256, 2048, 256 };
	const int has_push[OCTREE_N_STAGES] = { 0, 1, 1, 0, 0, 1, 0 };
	uint32_t mp = (uint32_t)p->max_points, d = 0;

	memset(tab, 0, sizeof *tab);
	for (int s = 0; s < OCTREE_N_STAGES; s++) {
		struct btrt_stage *st = &tab->stages[s];
		st->name = names[s];
		st->cpu = cpu[s];
#if BTC_HAVE_CUDA
		st->cuda = with_cuda ? cuda[s] : NULL;
#else
		(void)with_cuda;
#endif
		st->reads = reads[s];
		st->n_reads = n_reads[s];
		st->writes = writes[s];
		st->n_writes = n_writes[s];
		if (!octree_vk_shaders)
			continue;
		st->vk = &tab->disp[d];
		st->n_vk = repeat[s];
		for (uint32_t i = 0; i < repeat[s]; i++, d++) {
			struct btrt_vk_dispatch *dp = &tab->disp[d];
			dp->pipeline = (uint32_t)s;
			dp->groups[0] = (mp + per_group[s] - 1) / per_group[s];
			dp->groups[1] = dp->groups[2] = 1;
			if (dp->groups[0] == 0)
				dp->groups[0] = 1;
			if (has_push[s]) {
				tab->push[d] = i;
				dp->n_push = 1;
				dp->push = &tab->push[d];
			}
		}
	}
}
