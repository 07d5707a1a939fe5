/* `btc schedule APP.yaml --device DEV --table TABLE [options]`: BT-Optimizer
 * on a profiling table, printing the ranked candidates and the baselines
 * (docs/scheduler.md). The work is in sched/. */
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/load.h"
#include "front/table.h"
#include "sched/bound.h"
#include "sched/optimizer.h"
#include "sched/plan.h"

/* A stage by name, or by 0-based index; -1 when neither. */
static int stage_of(const struct btc_app *app, const char *s)
{
	int i = btc_app_stage_index(app, s);
	if (i >= 0)
		return i;
	char *end;
	long v = strtol(s, &end, 10);
	return *s && !*end && v >= 0 && v < app->n_stages ? (int)v : -1;
}

/* --forbid and --pin by name, onto the solver options; pin: [n_stages]. */
static bool resolve(const struct btc_cli_options *o, const struct btc_app *app,
		    const struct btc_device *dev, struct btc_sched_options *so, int *pin,
		    struct btc_diag *d)
{
	const struct btc_loc none = {0};
	for (int k = 0; k < o->forbid.n; k++) {
		int u = btc_device_pu_index(dev, o->forbid.v[k]);
		if (u < 0)
			btc_error(d, none, "--forbid %s: device %s has no such PU", o->forbid.v[k],
				  dev->name);
		else
			so->forbid_mask |= 1u << u;
	}
	for (int s = 0; s < app->n_stages; s++)
		pin[s] = -1;
	for (int k = 0; k < o->pin.n; k++) {
		const char *arg = o->pin.v[k], *eq = strchr(arg, '=');
		if (!eq) {
			btc_error(d, none, "--pin %s: expected STAGE=PU", arg);
			continue;
		}
		char *stage = btc_xasprintf("%.*s", (int)(eq - arg), arg);
		int s = stage_of(app, stage), u = btc_device_pu_index(dev, eq + 1);
		if (s < 0)
			btc_error(d, none, "--pin %s: app %s has no stage '%s'", arg, app->name,
				  stage);
		else if (u < 0)
			btc_error(d, none, "--pin %s: device %s has no PU '%s'", arg, dev->name,
				  eq + 1);
		else
			pin[s] = u;
		free(stage);
	}
	so->pin = pin;
	return d->errors == 0;
}

static void solver_options(const struct btc_cli_options *o, struct btc_sched_options *so)
{
	btc_sched_options_init(so);
	if (o->top_k)
		so->top_k = o->top_k;
	if (o->objective >= 0)
		so->objective = (enum btc_sched_objective)o->objective;
	if (btc_cli_given(o, BTC_OPT_MIN_UTIL))
		so->util_pct = o->min_util;
	so->max_chunks = o->max_chunks;
	so->farms = o->farms;
	so->core_splits = o->core_splits;
	so->time_budget_ms = o->time_budget_ms;
}

int btc_cmd_schedule(const struct btc_cli_options *o)
{
	struct btc_diag d;
	btc_diag_init(&d, stderr);
	struct btc_app *app = btc_cli_load_app(o, &d);
	struct btc_device *dev = btc_cli_load_device(o->device, o, &d);
	struct btc_table *t = NULL;
	struct btc_plan_buf pb = {0};
	int *pin = NULL, rc = 1;
	struct btc_sched_result res = {0};
	struct btc_sched_options so;
	solver_options(o, &so);
	if (!app || !dev)
		goto out;
	enum btc_mode mode = (enum btc_mode)o->mode;
	t = btc_table_load(o->table, NULL, app, dev, mode, &d);
	if (!t)
		goto out;
	uint32_t gpu_forbid = 0;
	if (!btc_plan_gpu_mask(dev, btc_cli_gpu_name(o), &gpu_forbid, &d))
		goto out;
	so.forbid_mask |= gpu_forbid;
	pin = btc_xcalloc((size_t)app->n_stages, sizeof(int));
	if (!resolve(o, app, dev, &so, pin, &d))
		goto out;
	btc_plan_buf_init(&pb, app, dev);
	struct btc_sched_problem p;
	if (!btc_plan_problem(app, dev, t, mode, !o->paper_model, &p, &pb, &d))
		goto out;
	bool exhaustive = o->solver == 1;
	enum btc_status st = exhaustive ? btc_sched_solve_exhaustive(&p, &so, &res, &d)
					: btc_sched_solve_z3(&p, &so, &res, &d);
	if (st != BTC_OK) {
		if (!d.errors) /* the solvers report; this is a safety net */
			fprintf(stderr, "btc: schedule: %s\n", btc_strerror(st));
		goto out;
	}
	/* The fluid bound of the same problem: forbidden PUs, the GPU API
	 * and pins as the solver had them (docs/scheduler.md). */
	struct btc_sched_bound fb;
	if (btc_sched_fluid_bound(&p, &so, &fb, &d) != BTC_OK) {
		btc_sched_bound_free(&fb);
		goto out;
	}
	res.has_fluid_bound = true;
	res.fluid_bound_ms = fb.bound_ms;
	btc_sched_bound_free(&fb);
	bool json = o->format == 1;
	if (json)
		btc_sched_print_json(stdout, &p, &res, !o->no_time);
	else
		btc_sched_print_text(stdout, &p, &res, !o->no_time);
	rc = fflush(stdout) ? 1 : 0;
out:
	btc_sched_result_free(&res);
	btc_plan_buf_free(&pb);
	free(pin);
	btc_table_free(t);
	btc_device_free(dev);
	btc_app_free(app);
	return rc;
}
