/* `btc schedule A.yaml B.yaml ... --device DEV` and `btc schedule
 * --workload W.yaml --device DEV`: several apps and streams on one chip
 * (issue 27; docs/scheduler.md "Several apps"). The joint plan
 * (sched/joint_plan.h) made from the options and printed
 * (cli/workload_print.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/workload.h"
#include "driver/cache.h"

bool btc_cli_is_workload(const struct btc_cli_options *o)
{
	return o->workload || o->n_positional > 1 || o->streams.n || o->weights.n || o->rates.n ||
	       o->app_tables.n || o->tables_dir || o->objective >= BTC_CLI_OBJECTIVE_MAXMIN ||
	       btc_cli_given(o, BTC_OPT_SAME_PU);
}

bool btc_cli_workload_options_ok(const struct btc_cli_options *o)
{
	static const enum btc_cli_opt single_only[] = {
		BTC_OPT_PIN,	    BTC_OPT_MIN_UTIL,	 BTC_OPT_MAX_CHUNKS,
		BTC_OPT_TIME_BUDGET, BTC_OPT_DEFINE,
	};
	for (size_t k = 0; k < sizeof(single_only) / sizeof(single_only[0]); k++)
		if (btc_cli_given(o, single_only[k])) {
			fprintf(stderr, "btc: %s applies to one app, not to a workload\n",
				btc_cli_opt_spelling(single_only[k]));
			return false;
		}
	return true;
}

/* The profile cache's table of app on dev, when there is one (ctx: the
 * cache folder). */
static char *cached_table(const struct btc_app *app, const struct btc_device *dev, void *ctx)
{
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	char *path = btc_cache_table_path(ctx, app, dev, &quiet);
	if (path && access(path, R_OK) == 0)
		return path;
	free(path);
	return NULL;
}

void btc_cli_joint_request(const struct btc_cli_options *o, struct btc_joint_request *r)
{
	memset(r, 0, sizeof(*r));
	r->workload = o->workload;
	r->apps = (const char *const *)o->positional;
	r->n_apps = o->n_positional;
	r->streams = (const char *const *)o->streams.v;
	r->n_streams = o->streams.n;
	r->weights = (const char *const *)o->weights.v;
	r->n_weights = o->weights.n;
	r->rates = (const char *const *)o->rates.v;
	r->n_rates = o->rates.n;
	r->app_tables = (const char *const *)o->app_tables.v;
	r->n_app_tables = o->app_tables.n;
	r->tables_dir = o->tables_dir;
	r->table = o->table;
	r->cached = cached_table;
	r->cached_ctx = (void *)(o->cache ? o->cache : BTC_CACHE_DEFAULT_DIR);
	btc_cli_plan_options(o, &r->plan);
	r->objective = o->objective >= BTC_CLI_OBJECTIVE_MAXMIN
			       ? (enum btc_multi_objective)(o->objective - BTC_CLI_OBJECTIVE_MAXMIN)
			       : BTC_MULTI_MAXMIN;
	r->top_k = o->top_k;
	r->solver = o->solver;
	r->same_pu = o->same_pu == BTC_SAME_PU_PROBE ? BTC_SAME_PU_PROBE : BTC_SAME_PU_NONE;
}

int btc_cli_workload_start(const struct btc_cli_options *o, enum btc_cli_cmd cmd,
			   struct btc_diag *d, struct btc_device **dev,
			   struct btc_joint_request *r)
{
	*dev = NULL;
	if (!btc_cli_workload_options_ok(o))
		return 2;
	if (!o->workload && o->n_positional == 0) {
		fprintf(stderr, "btc: missing argument\n");
		btc_cli_command_usage(cmd, stderr);
		return 2;
	}
	*dev = btc_cli_load_device(o->device, o, d);
	if (!*dev)
		return 1;
	btc_cli_joint_request(o, r);
	return 0;
}

int btc_cmd_workload(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_device *dev;
	struct btc_joint_request r;
	int rc = btc_cli_workload_start(o, BTC_CMD_SCHEDULE, &d, &dev, &r);
	if (rc)
		return rc;
	struct btc_joint_plan *w = btc_joint_plan_make(&r, dev, &d);
	rc = 1;
	if (w)
		rc = btc_cli_workload_print(stdout, o, w) ? 1 : 0;
	btc_joint_plan_free(w);
	btc_device_free(dev);
	return rc;
}
