/* scheds.h: the schedules every GPU backend is checked under (GPU = the
 * backend's PU kind g): one chunk per PU, 2, 3 and 4 chunks alternating. */
#ifndef OCTREE_SCHEDS_H
#define OCTREE_SCHEDS_H

#include "gpu_ctx.h"

#define OCTREE_N_SCHEDS 5

static inline void octree_scheds(struct octree_sched s[OCTREE_N_SCHEDS], enum btrt_pu_kind g)
{
	const enum btrt_pu_kind c = BTRT_PU_CPU;
	const struct octree_sched v[OCTREE_N_SCHEDS] = {
		{ "cpu", 1, { c }, { 0 }, { 7 } },
		{ "gpu", 1, { g }, { 0 }, { 7 } },
		{ "cpu 0-2 | gpu 3-6", 2, { c, g }, { 0, 3 }, { 3, 4 } },
		{ "gpu 0-1 | cpu 2-4 | gpu 5-6", 3, { g, c, g }, { 0, 2, 5 }, { 2, 3, 2 } },
		{ "cpu 0 | gpu 1-2 | cpu 3-5 | gpu 6", 4, { c, g, c, g }, { 0, 1, 3, 6 },
		  { 1, 2, 3, 1 } },
	};
	for (int i = 0; i < OCTREE_N_SCHEDS; i++)
		s[i] = v[i];
}

#endif
