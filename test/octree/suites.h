/* suites.h: the octree CUnit suites (one file each), listed in suites.c
 * and run by the shared runner (test/common/cunit_main.h). Each register
 * function returns 0, btc_test_skip()'s value when its hardware is
 * absent, or -1. */
#ifndef OCTREE_SUITES_H
#define OCTREE_SUITES_H

int octree_pcd_register(void);
int octree_cpu_register(void);
int octree_vk_register(void);
int octree_sched_register(void);

#endif
