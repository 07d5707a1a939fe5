/* The end-to-end jobs of the paper's Fig. 2: profile (BT-Profiler, with a
 * cache), schedule (BT-Optimizer), generate and build (BT-Implementer),
 * tune on the device, run the winner on real input, report. */
#ifndef BTC_JOB_H
#define BTC_JOB_H

#include <stdbool.h>

#include "front/app.h"
#include "front/device.h"
#include "sched/plan.h"
#include "front/table.h"
#include "driver/tune.h"

struct btc_job_options {
	const char *out_dir;        /* generated project (default build/btc/APP-DEV) */
	const char *cache_dir;      /* profiling tables (default build/btc/cache) */
	const char *table;          /* use this table, skip profiling */
	bool reprofile;             /* ignore the cache */
	struct btc_plan_options plan;
	struct btc_tune_options tune;
	int final_tasks;            /* measured tasks of the final run (default 64) */
	int profile_max_reps;       /* profiler repetition cap (default 30) */
	const char *input;          /* pipeline input, NULL: the app's */
	const char *report;         /* report JSON path, or NULL */
	bool keep_going;            /* --keep-going: go on past a failed schedule or check */
};

void btc_job_options_init(struct btc_job_options *o);

/* Default project directory "build/btc/APP-DEV" (caller frees). */
char *btc_job_default_dir(const struct btc_app *app, const struct btc_device *dev);

/* Configures (if needed) and builds the generated project in dir,
 * cross-building when the device is not this machine's architecture.
 * Where the toolchain is absent (an Android NDK here) prints the exact
 * commands and returns true with *built = false. */
bool btc_job_build(const char *dir, const struct btc_device *dev, bool *built,
		   struct btc_diag *d);

/* BT-Profiler on this machine: returns the cached table for (app, device,
 * hash of the kernel sources) when there is one, else generates the
 * profiler, builds it, runs it and caches its table (written atomically,
 * so an interrupted run leaves no partial file). *path: the table file
 * (caller frees). For a device that is not `host`, writes the profiler
 * project and prints how to run it there instead (returns false). */
bool btc_job_profile(const struct btc_app *app, const struct btc_device *dev,
		     const struct btc_job_options *opt, struct btc_table **table,
		     char **path, struct btc_diag *d);

/* The main job: profile (or cache), schedule, generate, build, tune, run
 * the winner with verification, write trace, SVG timeline, heatmap and the
 * report JSON, print a summary. Returns the exit status. */
int btc_job_main(const struct btc_app *app, const struct btc_device *dev,
		 const struct btc_job_options *opt, struct btc_diag *d);

#endif
