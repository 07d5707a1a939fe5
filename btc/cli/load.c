#include "cli/load.h"
#include "front/table.h"
#include "gen/gen.h"

#include "util/paths.h"

struct btc_app *btc_cli_load_app(const struct btc_cli_options *o, struct btc_diag *d)
{
	return btc_app_load(o->positional[0], NULL, o->defines.v, o->defines.n, d);
}

struct btc_device *btc_cli_load_device(const char *name, const struct btc_cli_options *o,
				       struct btc_diag *d)
{
	struct btc_device *dev = btc_device_load(name, btc_device_dir(), NULL, d);
	if (dev && o->cpu_groups > 1 && !btc_device_split_cpus(dev, o->cpu_groups, d)) {
		btc_device_free(dev);
		return NULL;
	}
	return dev;
}

void btc_cli_plan_options(const struct btc_cli_options *o, struct btc_plan_options *po)
{
	btc_plan_options_init(po);
	po->mode = (enum btc_mode)o->mode;
	po->gpu = btc_cli_gpu_name(o);
	if (o->top_k)
		po->sched.top_k = o->top_k;
	if (o->objective >= 0)
		po->sched.objective = (enum btc_sched_objective)o->objective;
	for (int i = 0; i < o->chunks.n; i++)
		po->specs[po->n_specs++] = o->chunks.v[i];
	po->sched.farms = o->farms;
	po->sched.core_splits = o->core_splits;
	if (btc_cli_given(o, BTC_OPT_MIN_UTIL))
		po->sched.util_pct = o->min_util;
	po->sched.max_chunks = o->max_chunks;
	po->sched.time_budget_ms = o->time_budget_ms;
	po->forbid = (const char *const *)o->forbid.v;
	po->n_forbid = o->forbid.n;
	po->pins = (const char *const *)o->pin.v;
	po->n_pins = o->pin.n;
	po->paper_model = o->paper_model;
	po->exhaustive = o->solver == 1;
}

void btc_cli_request(const struct btc_cli_options *o, enum btc_cli_cmd cmd, struct btc_request *jo)
{
	btc_request_init(jo);
	btc_cli_plan_options(o, &jo->plan);
	/* The main job's candidates: both tables' top K unless --mode names
	 * one (the paper's interference mode: --mode interference). */
	if (cmd == BTC_CMD_TUNE && !o->measurements.n && !btc_cli_given(o, BTC_OPT_MODE))
		btc_plan_default_modes(&jo->plan);
	/* btc profile -o is the table's copy: its project goes to the default */
	jo->out_dir = cmd == BTC_CMD_PROFILE ? NULL : o->output;
	jo->table = o->table;
	jo->reprofile = o->reprofile;
	/* core splits need the tables' core-count rows */
	jo->core_counts = o->core_counts || o->core_splits;
	jo->cache_dir = o->cache;
	jo->input = o->input;
	jo->report = o->report;
	jo->keep_going = o->keep_going;
	jo->playoff = !o->no_playoff;
	jo->bound_round = !o->no_bound_round;
	jo->io_round = !o->no_io_round;
	jo->regret_round = o->regret_round || o->exhaustive;
	jo->adapt = o->adapt;
	if (o->tasks)
		jo->final_tasks = o->tasks;
	if (o->max_reps)
		jo->profile_max_reps = o->max_reps;
	if (o->tune_tasks)
		jo->tune.tasks = o->tune_tasks;
	if (o->no_race || o->exhaustive)
		jo->tune.race = false; /* every schedule measured in every round */
	jo->plan.space = o->exhaustive;
	if (o->tune_budget_s)
		jo->tune.budget_s = o->tune_budget_s;
	if (o->min_rounds)
		jo->tune.min_rounds = o->min_rounds;
	jo->tune.seed = o->seed;
	if (o->given & (UINT64_C(1) << BTC_OPT_RUN_TIMEOUT_FACTOR))
		jo->tune.timeout_factor = o->run_timeout_factor;
	if (o->given & (UINT64_C(1) << BTC_OPT_WARMUP_S))
		jo->tune.warmup_s = o->warmup_s;
	if (o->given & (UINT64_C(1) << BTC_OPT_SPEEDUP_PRECISION))
		jo->tune.speedup_precision = o->speedup_precision;
	jo->force = o->force;
}

struct btc_plan *btc_cli_plan(const struct btc_cli_options *o, const struct btc_plan_options *po,
			      bool need_table, struct btc_cli_inputs *in, struct btc_diag *d)
{
	in->app = btc_cli_load_app(o, d);
	in->dev = btc_cli_load_device(o->device, o, d);
	in->t = NULL;
	bool want = need_table || o->table;
	if (in->app && in->dev && want)
		in->t = btc_table_load(o->table, NULL, in->app, in->dev, (enum btc_mode)o->mode, d);
	if (!in->app || !in->dev || (want && !in->t))
		return NULL;
	struct btc_plan_options with = *po;
	with.io_threads_extra = btc_gen_io_threads_extra(in->dev);
	return btc_plan(in->app, in->dev, in->t, o->table, &with, d);
}

void btc_cli_inputs_free(struct btc_cli_inputs *in)
{
	btc_table_free(in->t);
	btc_device_free(in->dev);
	btc_app_free(in->app);
}
