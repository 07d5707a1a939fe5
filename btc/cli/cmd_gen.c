/* `btc gen APP.yaml --device DEV [--table T | --chunks SPEC...]` (also
 * `btc APP.yaml ...`): plan the schedules, generate the project, and with
 * --build build it. */
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/workload.h"
#include "driver/build.h"
#include "driver/claim.h"
#include "driver/project.h"
#include "front/table.h"
#include "gen/symbol_check.h"
#include "util/str.h"

/* btc_project_make's arguments, for btc_job_dir_make. */
struct project_args {
	const struct btc_plan *plan;
	bool force;
	bool *built;
	int *n_shaders;
	struct btc_diag *d;
};

static bool make_project(const char *dir, void *arg)
{
	struct project_args *a = arg;
	return btc_project_make(a->plan, dir, false, a->force, a->built, a->n_shaders, a->d);
}

int btc_cmd_gen(const struct btc_cli_options *o)
{
	if (o->n_positional != 1 || btc_cli_is_workload(o))
		return btc_cmd_gen_workload(o);
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_plan_options po;
	btc_cli_plan_options(o, &po);
	struct btc_cli_inputs in;
	struct btc_plan *plan = btc_cli_plan(o, &po, false, &in, &d);
	int n_shaders = 0;
	char *dir = NULL;
	bool built;
	/* A misspelled cpu:, io: or cuda: symbol: named at its YAML line now,
	 * not as a linker error when the project is built (as btc check). */
	if (!plan || !btc_gen_check_symbols(in.app, &d))
		goto out;
	dir = btc_job_dir(o->output, in.app, in.dev, &d);
	if (!dir)
		goto out;
	/* A new directory is published whole, an existing one is held
	 * (locked) while it is written and built: two btc gen into one -o
	 * never mix their files (docs/conventions.md, "Writing files"). */
	struct project_args a = {plan, o->force, &built, &n_shaders, &d};
	if (!btc_job_dir_make(dir, make_project, &a, &d))
		goto out;
	int n_scheds = plan->n_schedules;
	printf("generated %s: %d schedule%s (%s), %d shader%s\n", dir, n_scheds,
	       n_scheds == 1 ? "" : "s",
	       plan->schedules[0].baseline ? "baselines" : "candidates + baselines", n_shaders,
	       n_shaders == 1 ? "" : "s");
	if (o->build)
		btc_job_build(dir, in.dev, &built, &d);
out:
	free(dir);
	btc_plan_free(plan);
	btc_cli_inputs_free(&in);
	return d.errors ? 1 : 0;
}
