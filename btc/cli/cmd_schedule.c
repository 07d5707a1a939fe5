/* `btc schedule APP.yaml --device DEV --table TABLE [options]`: BT-Optimizer
 * on a profiling table, printing the ranked candidates and the baselines
 * (docs/scheduler.md). The options map to a plan request
 * (btc_cli_plan_options); the planning, the solver and the fluid bound are
 * sched/'s (btc_plan). */
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/workload.h"
#include "front/table.h"
#include "sched/optimizer.h"
#include "sched/plan.h"

int btc_cmd_schedule(const struct btc_cli_options *o)
{
	if (btc_cli_is_workload(o))
		return btc_cmd_workload(o);
	if (o->solver >= 2) {
		fprintf(stderr, "btc: --solver %s applies to a workload (several apps or "
				"streams), not to one app\n", o->solver == 2 ? "bb" : "z3-only");
		return 2;
	}
	if (o->n_positional != 1 || !btc_cli_given(o, BTC_OPT_TABLE)) {
		fprintf(stderr, "btc: %s\n",
			o->n_positional == 0 ? "missing argument" : "'btc schedule' needs --table");
		btc_cli_command_usage(BTC_CMD_SCHEDULE, stderr);
		return 2;
	}
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_plan_options po;
	btc_cli_plan_options(o, &po);
	po.ranking = true;    /* the solver's ranking and the fluid bound */
	po.baselines = false; /* the ranking has its own */
	struct btc_cli_inputs in;
	struct btc_plan *plan = btc_cli_plan(o, &po, true, &in, &d);
	int rc = 1;
	if (!plan)
		goto out;
	const struct btc_sched_problem *p = btc_plan_solved_problem(plan);
	if (o->format == 1)
		btc_sched_print_json(stdout, p, &plan->result, !o->no_time);
	else
		btc_sched_print_text(stdout, p, &plan->result, !o->no_time);
	rc = fflush(stdout) ? 1 : 0;
out:
	btc_plan_free(plan);
	btc_cli_inputs_free(&in);
	return rc;
}
