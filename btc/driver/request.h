/* What the command line asks of the driver: one request, filled once by
 * cli/ (cli/load.c, btc_cli_request) and read, never written, by the
 * jobs: the main job (driver/job.h), the profiler job (driver/profile.h)
 * and `btc tune --measurements` (driver/calibrate.h). It holds the plan's
 * options (sched/plan.h) and the tuner's (driver/tune.h) as the user gave
 * them; strings are borrowed (from argv). */
#ifndef BTC_DRIVER_REQUEST_H
#define BTC_DRIVER_REQUEST_H

#include <stdbool.h>

#include "sched/plan.h"
#include "driver/tune.h"

struct btc_request {
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
	bool playoff;         /* after tuning, race the best two finalists head to
				 head unless tuning separated them (default true;
				 --no-playoff: false; docs/report.md, "The
				 playoff") */
	bool bound_round;     /* after tuning, build and race the calibrated model's best
				 assignment when no measured schedule is it (default
				 true; --no-bound-round: false; docs/report.md, "The
				 bound round") */
	bool io_round;        /* after tuning, where the device has io threads to give,
				 probe the winner's io and race more io threads when
				 it nears the period (default true; --no-io-round:
				 false; docs/scheduler.md, "The io round") */
	bool regret_round;    /* after the final run, race the chosen against the best
				 measured schedule (--regret-round, implied by
				 --exhaustive; docs/report.md, "Regret") */
	bool adapt;           /* --adapt: the final run adapts (the program's --adapt) */
	bool force;           /* --force: the project may replace files btc did not generate */
};

/* The defaults: plan and tune options' own, 64 final tasks, 30 profiler
 * repetitions at most, everything else off or NULL. */
void btc_request_init(struct btc_request *r);

#endif
