/* A workload project of a joint plan (driver/joint_project.h). */
#include "driver/joint_project.h"

#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "util/out.h"
#include "util/str.h"

char *btc_joint_project_dir(const struct btc_joint_plan *j)
{
	struct btc_out name;
	btc_out_init(&name);
	for (int a = 0; a < j->n_apps; a++)
		btc_outf(&name, "%s%s", a ? "+" : "", j->apps[a].app->name);
	btc_outf(&name, "-%s", j->dev->name);
	return name.buf;
}

bool btc_joint_project_make(const struct btc_joint_plan *j, const char *dir, bool force,
			    struct btc_diag *d)
{
	int n = j->n_apps, before = d->errors;
	struct btc_plan **plans = btc_xcalloc((size_t)n, sizeof(*plans));
	struct btc_gen_ctx *ctxs = btc_xcalloc((size_t)n, sizeof(*ctxs));
	char **specs = NULL;
	int n_specs = 0;
	for (int a = 0; a < n && d->errors == before; a++) {
		const struct btc_joint_app *x = &j->apps[a];
		if (x->n_vectors > BTC_PLAN_MAX_SPECS) {
			btc_error(d, (struct btc_loc){0},
				  "app '%s' takes %d schedules in the joint candidates; a program "
				  "holds at most %d: ask for fewer with --top",
				  x->app->name, x->n_vectors, BTC_PLAN_MAX_SPECS);
			break;
		}
		struct btc_plan_options po = j->plan;
		po.n_specs = 0;
		po.baselines = po.baselines_only = po.space = po.ranking = false;
		po.candidate_modes = 0;
		po.period_slice = 0;
		po.n_pins = 0;
		specs = btc_xrealloc(specs, (size_t)(n_specs + x->n_vectors) * sizeof(*specs));
		for (int v = 0; v < x->n_vectors; v++) {
			specs[n_specs] = btc_joint_spec(j, a, x->vectors[v]);
			po.specs[po.n_specs++] = specs[n_specs++];
		}
		plans[a] = btc_plan(x->app, j->dev, x->table, x->table_path, &po, d);
		if (!plans[a])
			break;
		ctxs[a] = (struct btc_gen_ctx){.app = x->app, .dev = j->dev, .plan = plans[a],
					       .scheds = plans[a]->schedules,
					       .n_scheds = plans[a]->n_schedules,
					       .provenance = plans[a]->provenance, .force = force};
	}
	if (d->errors == before)
		btc_gen_workload_project(ctxs, n, j, dir, d);
	for (int a = 0; a < n; a++) {
		btc_gen_free_shaders(&ctxs[a]);
		btc_plan_free(plans[a]);
	}
	for (int i = 0; i < n_specs; i++)
		free(specs[i]);
	free(specs);
	free(plans);
	free(ctxs);
	return d->errors == before;
}
