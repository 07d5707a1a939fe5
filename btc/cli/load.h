/* From parsed options to btc-core: loading the app and the device the
 * options name, and filling btc-core's option structs. */
#ifndef BTC_CLI_LOAD_H
#define BTC_CLI_LOAD_H

#include "cli/options.h"
#include "driver/request.h"
#include "front/app.h"
#include "front/device.h"
#include "sched/plan.h"

/* The app of the first positional argument, with the -D overrides.
 * Reports and returns NULL on failure. */
struct btc_app *btc_cli_load_app(const struct btc_cli_options *o, struct btc_diag *d);

/* The device `name` (library name, YAML file or "host"), its CPU clusters
 * split by --cpu-groups. Reports and returns NULL on failure. */
struct btc_device *btc_cli_load_device(const char *name, const struct btc_cli_options *o,
				       struct btc_diag *d);

/* The one map from the command line to the planner: --mode, --gpu, --top,
 * --objective, --chunks, --farms, --core-splits and `btc schedule`'s
 * --min-util, --max-chunks, --time-budget, --forbid, --pin, --paper-model,
 * --solver (po borrows o's strings). */
void btc_cli_plan_options(const struct btc_cli_options *o, struct btc_plan_options *po);

/* What a planning command (`btc gen`, `btc schedule`) loads: the app, the
 * device and the profiling table. */
struct btc_cli_inputs {
	struct btc_app *app;
	struct btc_device *dev;
	struct btc_table *t; /* NULL without --table where none is needed */
};

/* Loads in from o (the table of --table, at --mode; required when
 * need_table) and plans with po (btc_plan). The plan (btc_plan_free), or
 * NULL after reporting to d; in is filled either way and freed by
 * btc_cli_inputs_free. */
struct btc_plan *btc_cli_plan(const struct btc_cli_options *o, const struct btc_plan_options *po,
			      bool need_table, struct btc_cli_inputs *in, struct btc_diag *d);

/* Frees what btc_cli_plan loaded; in may be partly filled. */
void btc_cli_inputs_free(struct btc_cli_inputs *in);

/* The driver's request (driver/request.h), filled once for subcommand
 * cmd: the plan options and --output (not for `btc profile`, whose -o is
 * the table's copy), --table, --cache, --input, --report, --reprofile,
 * --core-counts, --tasks, --max-reps, --tune-tasks, --no-race,
 * --tune-budget, --seed, --run-timeout-factor, --keep-going, --adapt,
 * --force. */
void btc_cli_request(const struct btc_cli_options *o, enum btc_cli_cmd cmd, struct btc_request *jo);

#endif
