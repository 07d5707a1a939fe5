/* A workload project of a joint plan (sched/joint_plan.h): each app's
 * schedules planned from its vectors (as --chunks specs, predicted from
 * its table) and the project generated (gen.h, btc_gen_workload_project)
 * with every stream and the K joint candidates. `btc gen` without
 * --chunks and the workload job (driver/workload_job.h) share it. */
#ifndef BTC_DRIVER_JOINT_PROJECT_H
#define BTC_DRIVER_JOINT_PROJECT_H

#include <stdbool.h>

#include "sched/joint_plan.h"
#include "util/diag.h"

/* "octree+alexnet_dense-host": the default project folder. Caller frees. */
char *btc_joint_project_dir(const struct btc_joint_plan *j);

/* Writes the project of j into dir (force: replace files without btc's
 * banner). Returns false after diagnostics. */
bool btc_joint_project_make(const struct btc_joint_plan *j, const char *dir, bool force,
			    struct btc_diag *d);

#endif
