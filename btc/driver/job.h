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
	const char *out_dir;   /* generated project (default build/btc/APP-DEV) */
	const char *cache_dir; /* profiling tables (default build/btc/cache) */
	const char *table;     /* use this table, skip profiling */
	bool reprofile;        /* ignore the cache */
	bool core_counts;      /* profile CPU stages on 1, 2, 4, ... cores too
				  (table rows PU[K], issue 16) */
	struct btc_plan_options plan;
	struct btc_tune_options tune;
	int final_tasks;      /* measured tasks of the final run (default 64) */
	int profile_max_reps; /* profiler repetition cap (default 30) */
	const char *input;    /* pipeline input, NULL: the app's */
	const char *report;   /* report JSON path, or NULL */
	bool keep_going;      /* --keep-going: go on past a failed schedule or check */
	bool adapt;           /* --adapt: the final run adapts (the program's --adapt) */
	bool force;           /* --force: the project may replace files btc did not generate */
};

void btc_job_options_init(struct btc_job_options *o);

/* Default project directory "build/btc/APP-DEV" (caller frees); NULL when
 * the app or device name cannot be part of a file name (driver/files.h). */
char *btc_job_default_dir(const struct btc_app *app, const struct btc_device *dev);

/* The project directory: out_dir when not NULL, else the default; NULL
 * (reported) when the app or device name cannot be part of a file name
 * (checked either way: the names become file names inside the project). */
char *btc_job_dir(const char *out_dir, const struct btc_app *app, const struct btc_device *dev,
		  struct btc_diag *d);

/* Claims project directory dir for this btc before anything is written
 * in it: checked (btc_output_dir_check), created, locked (btc_dir_lock:
 * "another btc (pid N) is using DIR" when held), and the temporary files
 * of dead btc processes removed. Reports and returns false. */
bool btc_job_dir_claim(const char *dir, struct btc_diag *d);

/* Removes what an earlier job left in dir that this one makes anew
 * (trace.json, timeline.svg, fit.svg, profile.svg, run.json), so that an
 * interrupted job leaves nothing to be taken for its own. */
void btc_job_dir_sweep(const char *dir);

/* Configures (if needed) and builds the generated project in dir,
 * cross-building when the device is not this machine's architecture.
 * Where the toolchain is absent (an Android NDK here) prints the exact
 * commands and returns true with *built = false. */
bool btc_job_build(const char *dir, const struct btc_device *dev, bool *built, struct btc_diag *d);

/* BT-Profiler on this machine: returns the cached table for (app, device,
 * hash of the kernel sources) when there is one, else generates the
 * profiler, builds it, runs it and caches its table (written atomically,
 * so an interrupted run leaves no partial file). *path: the table file
 * (caller frees). For a device that is not `host`, writes the profiler
 * project and prints how to run it there instead (returns false). */
bool btc_job_profile(const struct btc_app *app, const struct btc_device *dev,
		     const struct btc_job_options *opt, struct btc_table **table, char **path,
		     struct btc_diag *d);

/* The main job: profile (or cache), schedule, generate, build, tune, run
 * the winner with verification, write trace, SVG timeline, heatmap and the
 * report JSON (driver/result.h), print a summary. Every run of every
 * schedule is checked against the sequential reference. Returns the exit
 * status: 0 when every run verified; 1 on an error, or when a schedule
 * failed (named: schedule, stage, task), unless opt->keep_going, where
 * failed schedules are marked and left out of every choice and the status
 * is 0 when the chosen schedule verified, 1 when none did;
 * BTC_EXIT_INTERRUPTED (130) after SIGINT or SIGTERM, children stopped and
 * temporary files and the report removed (docs/report.md). */
int btc_job_main(const struct btc_app *app, const struct btc_device *dev,
		 const struct btc_job_options *opt, struct btc_diag *d);

#endif
