/* test_vk.c: placeholder until btrt's Vulkan API lands (see docs/octree.md). */
#include "suites.h"

int octree_vk_register(void)
{
	octree_skip = 1;
	return 0;
}

int octree_sched_register(void)
{
	octree_skip = 1;
	return 0;
}
