/* A generated project from schedules to a program: the one "compile
 * shaders -> generate -> build" sequence that `btc gen` and the main job
 * (profiling build, tuning build) share. */
#ifndef BTC_PROJECT_H
#define BTC_PROJECT_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "sched/plan.h"

/* Compiles the shaders and writes the project of the plan's schedules
 * (with its provenance for schedule.yaml, and the problem they were
 * planned on compiled in as the cost model of --adapt) into dir
 * (btc_gen_write_project; force: replace files without btc's banner
 * there, --force); when build, also builds it (btc_job_build:
 * *built is false where the toolchain is absent and only the commands
 * were printed). *n_shaders, when not NULL: the number of shaders
 * embedded. Returns false when a step failed (reported). */
bool btc_project_make(const struct btc_plan *plan, const char *dir, bool build, bool force,
		      bool *built, int *n_shaders, struct btc_diag *d);

#endif
