/* common.h: helpers of the octree tests and benchmark: host TaskObjects,
 * the real frames with their references, and per-stage comparison. */
#ifndef OCTREE_TEST_COMMON_H
#define OCTREE_TEST_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "octree_task.h"
#include "pcd.h"
#include "reference.h"

#ifndef OCTREE_N_STAGES
#define OCTREE_N_STAGES 7
#endif
extern const char *const octree_stage_names[OCTREE_N_STAGES];

/* A TaskObject whose buffers are plain host memory (CPU kernels only). */
struct host_task {
	struct octree_task t;
	struct octree_params p;
	struct btrt_buffer bufs[OCTREE_N_BUFFERS];
};
int host_task_init(struct host_task *h, const struct octree_params *p);
void host_task_free(struct host_task *h);

/* The real frames of the test data's pointclouds/ ($BTC_DATA_DIR or
 * data/: btc_test_data), with references. */
struct frames {
	int n;
	char **paths;
	struct pcd_cloud *clouds;
	float (*cubes)[4];
	struct octree_ref *refs;
};
/* Loads up to max frames (all when max <= 0); returns 0 or -1 (message on
 * stderr naming the missing folder or the bad file: none there is an
 * error, so a suite's init that calls it fails without its data). */
int frames_load(struct frames *f, int max);
void frames_free(struct frames *f);
/* Synthetic edge cases with references: 0, 1, 2 equal and 3 points, random
 * points with duplicates, a flat frame, and a tight cluster plus one far
 * point (octree chains down to level 9). Returns 0 or -1. */
int frames_synthetic(struct frames *f);

/* Writes the points xyzw ([r->n_points * 4]) and every reference array of
 * r into the task (the inputs of any stage). */
void task_fill_from_ref(struct octree_task *t, const struct octree_ref *r, const float *xyzw);
/* Overwrites the outputs of stage s (0-based) with garbage. */
void task_poison_outputs(struct octree_task *t, int s);
/* Compares the outputs of stage s with r; returns 0, or -1 with a message
 * naming the first difference in err. */
int task_compare_stage(const struct octree_task *t, const struct octree_ref *r, int s,
		       char *err, size_t errlen);

/* Runs CPU stage s (0-based) on t; returns the kernel's return value. */
int run_cpu_stage(struct octree_task *t, int s);

#endif
