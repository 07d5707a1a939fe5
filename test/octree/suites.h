/* suites.h: the octree CUnit suites (one file each). */
#ifndef OCTREE_SUITES_H
#define OCTREE_SUITES_H

int octree_pcd_register(void);
int octree_cpu_register(void);
int octree_vk_register(void);
int octree_sched_register(void);

/* Set by a suite whose hardware is absent; the runner exits 77 if nothing ran. */
extern int octree_skip;

#endif
