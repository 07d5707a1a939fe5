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

/* The main job: profile (or cache), schedule, generate, build, tune, run
 * the winner with verification, write trace, SVG timeline, heatmap and the
 * report JSON (report/result.h), print a summary. Every run of every
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
