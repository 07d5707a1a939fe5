/* `btc schedule` over a workload of several apps (cli/cmd_workload.c,
 * cli/workload_print.c; docs/scheduler.md "Several apps"). */
#ifndef BTC_CLI_WORKLOAD_H
#define BTC_CLI_WORKLOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/options.h"
#include "front/workload.h"
#include "sched/multi.h"
#include "sched/plan.h"

struct btc_cli_app {
	struct btc_app *app;
	char *table_path;
	struct btc_table *table;
	struct btc_plan *plan; /* the single-app plan (latency, top 1) */
	int *solo;             /* [n_stages] its lowest-period schedule */
	double solo_ms;        /* its period, ms per task: the solo best */
	double *slowdown;      /* [n_pus * n_pus] from @corun rows, or NULL */
	enum btc_mode corun_mode; /* the mode of those rows: the scheduled one,
				     else isolated (what btc profile A B writes) */
};

struct btc_cli_workload {
	struct btc_workload wl;
	struct btc_device *dev;
	struct btc_cli_app apps[BTC_WORKLOAD_MAX_APPS];
	int n_apps;
	struct btc_multi_stream streams[BTC_MULTI_MAX_STREAMS];
	char names[BTC_MULTI_MAX_STREAMS][64];
	int n_streams;
	struct btc_multi_problem m;
	struct btc_multi_result result;
	bool has_bound;
	double bound;             /* btc_multi_bound's value */
	int *naive;               /* every stream on its app's solo schedule */
	bool has_naive;
	struct btc_multi_eval naive_eval;
};

/* Whether the options ask for a workload: --workload, several apps, or a
 * workload option (--streams, --weight, --rate, --app-table, --tables,
 * --objective maxmin|rates|sum). */
bool btc_cli_is_workload(const struct btc_cli_options *o);

int btc_cmd_workload(const struct btc_cli_options *o);

/* The position of the `app:` value in the app file at path, for an error
 * on a duplicate app name ({path, 1, 1} when it cannot be found). */
struct btc_loc btc_cli_app_name_loc(const char *path);

/* Writes the joint plan as text or JSON (o->format; schema in
 * docs/scheduler.md). Returns 0, or -1 on a write error. */
int btc_cli_workload_print(FILE *out, const struct btc_cli_options *o,
			   const struct btc_cli_workload *w);

void btc_cli_workload_free(struct btc_cli_workload *w);

#endif
