/* The workload job (driver/workload_job.h): profile -> joint plan ->
 * one program -> co-location measurement -> report. */
#include "driver/workload_job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "driver/build.h"
#include "driver/claim.h"
#include "driver/colocate.h"
#include "driver/joint_project.h"
#include "driver/profile.h"
#include "driver/profile_corun.h"
#include "driver/share_probe.h"
#include "driver/workload_calib.h"
#include "driver/workload_capacity.h"
#include "driver/workload_judge.h"
#include "front/table.h"
#include "front/workload.h"
#include "report/colocate_print.h"
#include "util/fsafe.h"
#include "util/out.h"
#include "util/proc.h"
#include "util/str.h"

/* Whether the request names a table for the app at entry e: `table:`,
 * --tables, or --app-table with its name or file stem. */
static bool has_table(const struct btc_joint_request *r, const struct btc_workload_entry *e,
		      const struct btc_app *app)
{
	if (e->table || r->tables_dir)
		return true;
	const char *b = strrchr(e->path, '/');
	b = b ? b + 1 : e->path;
	size_t stem = strlen(b) > 5 && btc_str_ends_with(b, ".yaml") ? strlen(b) - 5 : strlen(b);
	for (int i = 0; i < r->n_app_tables; i++) {
		const char *eq = strchr(r->app_tables[i], '=');
		size_t n = eq ? (size_t)(eq - r->app_tables[i]) : 0;
		if ((n == strlen(app->name) && !strncmp(r->app_tables[i], app->name, n)) ||
		    (n == stem && !strncmp(r->app_tables[i], b, n)))
			return true;
	}
	return false;
}

/* 1. Each app without a table profiled (or its cached table): "NAME=PATH"
 * appended to tables ([BTC_WORKLOAD_MAX_APPS], owned). When the job
 * profiled every app, also their co-run slowdowns (btc_profile_corun:
 * the @corun rows, cached; never written into a table the user gave).
 * Returns false after an error. */
static bool profile_apps(const struct btc_joint_request *r, const struct btc_device *dev,
			 const struct btc_request *opt, char **tables, int *n, struct btc_diag *d)
{
	struct btc_workload wl = {0};
	struct btc_app *apps[BTC_WORKLOAD_MAX_APPS] = {0};
	struct btc_corun_app ca[BTC_WORKLOAD_MAX_APPS];
	bool ok = !r->workload || btc_workload_load(r->workload, NULL, &wl, d);
	for (int i = 0; ok && i < r->n_apps; i++)
		ok = btc_workload_add(&wl, r->apps[i], d);
	int profiled = 0;
	for (int a = 0; ok && a < wl.n_apps; a++) {
		struct btc_app *app = apps[a] = btc_app_load(wl.apps[a].path, NULL, NULL, 0, d);
		if (!app) {
			ok = false;
			break;
		}
		if (has_table(r, &wl.apps[a], app))
			continue;
		struct btc_table *t = NULL;
		char *path = NULL;
		fprintf(stderr, "workload: profiling %s (cached when profiled before)\n", app->name);
		/* each app's profiler in a project of its own: with -o DIR,
		 * DIR/profile-APP; else the single-app default */
		struct btc_request po = *opt;
		char *pdir = opt->out_dir ? btc_xasprintf("%s/profile-%s", opt->out_dir, app->name)
					  : NULL;
		po.out_dir = pdir;
		ok = btc_job_profile(app, dev, &po, &t, &path, d) && !btc_interrupted();
		free(pdir);
		if (ok) {
			printf("profiling table of %s: %s\n", app->name, path);
			tables[(*n)++] = btc_xasprintf("%s=%s", app->name, path);
			ca[profiled++] = (struct btc_corun_app){app, tables[*n - 1] + strlen(app->name) + 1,
								NULL};
		}
		btc_table_free(t);
		free(path);
	}
	if (ok && profiled == wl.n_apps && profiled > 1) {
		/* the profilers' projects where btc profile A B puts them */
		struct btc_request po = *opt;
		po.out_dir = NULL;
		ok = btc_profile_corun(ca, profiled, dev, &po, d) && !btc_interrupted();
	}
	for (int a = 0; a < wl.n_apps; a++)
		btc_app_free(apps[a]);
	btc_workload_free(&wl);
	return ok;
}

void btc_workload_print_plan(const struct btc_joint_plan *j)
{
	printf("joint plan: %d apps, %d streams on %s; %d candidates\n", j->n_apps, j->n_streams,
	       j->dev->name, j->result.n);
	for (int k = 0; k < j->result.n; k++)
		printf("  joint %d: predicted max-min normalised throughput %.3f\n", k,
		       btc_joint_min_normalised(j, &j->evals[k]));
	if (j->has_naive)
		printf("  naive co-location: predicted %.3f\n",
		       btc_joint_min_normalised(j, &j->naive_eval));
	if (j->has_bound && j->m.objective == BTC_MULTI_MAXMIN)
		printf("  multi-app fluid bound: %.3f\n", j->bound);
	char *share = btc_joint_share_text(j);
	printf("  same-PU factor %s\n", share);
	free(share);
}

static void write_report(const char *path, const struct btc_joint_plan *j,
			 const struct btc_colocate_setup *s, const struct btc_colocate_result *r,
			 const struct btc_workload_calib *cal,
			 const struct btc_workload_capacity *capc,
			 const struct btc_workload_capacity *capt, const char *program,
			 struct btc_diag *d)
{
	cJSON *root = cJSON_CreateObject(), *streams = cJSON_CreateArray(),
	      *plan = cJSON_CreateObject(), *pred = cJSON_CreateArray();
	cJSON_AddStringToObject(root, "kind", "workload");
	cJSON_AddStringToObject(root, "device", j->dev->name);
	cJSON_AddStringToObject(root, "program", program);
	cJSON_AddItemToObject(root, "streams", streams);
	for (int i = 0; i < j->n_streams; i++) {
		const struct btc_joint_app *x = &j->apps[j->streams[i].app];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", j->names[i]);
		cJSON_AddStringToObject(o, "app", x->app->name);
		cJSON_AddNumberToObject(o, "weight", s->weight[i]);
		cJSON_AddNumberToObject(o, "solo_schedule", (double)s->solo_schedule[i]);
		char *spec = btc_joint_spec(j, j->streams[i].app, x->solo);
		cJSON_AddStringToObject(o, "solo_label", spec);
		free(spec);
		cJSON_AddNumberToObject(o, "solo_predicted_ms", x->solo_ms);
		cJSON_AddItemToArray(streams, o);
	}
	cJSON_AddItemToObject(root, "plan", plan);
	cJSON_AddItemToObject(plan, "predicted", pred);
	for (int k = 0; k < j->result.n; k++)
		cJSON_AddItemToArray(pred, cJSON_CreateNumber(btc_joint_min_normalised(j, &j->evals[k])));
	if (j->has_naive)
		cJSON_AddNumberToObject(plan, "naive_predicted",
					btc_joint_min_normalised(j, &j->naive_eval));
	else
		cJSON_AddNullToObject(plan, "naive_predicted");
	double m = r->best >= 0 ? r->joint[r->best].merit.median : 0;
	btc_workload_add_plan_bound(plan, j, cal, m);
	btc_workload_add_capacity(plan, j, capc, capt, m);
	cJSON_AddStringToObject(plan, "same_pu", btc_same_pu_name(j->same_pu));
	if (j->capacity) { /* what the plan knew of same-PU capacities */
		cJSON *sf = cJSON_AddObjectToObject(plan, "same_pu_factor"),
		      *kap = cJSON_CreateObject();
		cJSON_AddStringToObject(sf, "source", j->share_source);
		cJSON_AddItemToObject(sf, "kappa", kap);
		int S = j->n_streams;
		for (int c = 0; c < j->m.n_pus; c++) {
			cJSON *pu = NULL;
			for (int n = 2; n <= S; n++)
				if (j->capacity[c * (S + 1) + n] != 1.0 && !pu)
					pu = cJSON_AddObjectToObject(kap, j->dev->pus[c].name);
			for (int n = 2; pu && n <= S; n++) {
				char key[16];
				snprintf(key, sizeof key, "%d", n);
				cJSON_AddNumberToObject(pu, key, j->capacity[c * (S + 1) + n]);
			}
		}
	} else {
		cJSON_AddNullToObject(plan, "same_pu_factor");
	}
	btc_colocate_add_json(root, "colocation", s, r);
	btc_write_json(path, root, 0, d);
}

/* The project folder of j's program and the program in it (malloc'ed). */
static void program_paths(const struct btc_joint_plan *j, const struct btc_request *opt,
			  char **dir, char **prog)
{
	char *base = btc_joint_project_dir(j);
	*dir = opt->out_dir ? btc_xstrdup(opt->out_dir) : btc_xasprintf("build/btc/%s", base);
	for (char *c = base; *c; c++)
		if (*c == '+')
			*c = '-';
	*prog = btc_xasprintf("%s/build/%s-workload", *dir, base);
	free(base);
}

/* 2b. The same-PU factor (driver/share_probe.h; docs/scheduler.md
 * "Same-PU capacity"), with --same-pu probe only (jr->same_pu; the
 * default plans with factor 1 and measures nothing): when the workload
 * has one to measure and its
 * tables hold none measured with it, j's program is generated and built
 * and its --share-probe run; with rows, the workload is planned again
 * with them (*jp replaced, *share the rows' table, owned by the caller),
 * and the rows go into the tables the job profiled (cached), never into
 * one the user gave (own[a]: app a's table is the job's). Returns false
 * after an error. */
static bool probe_share(struct btc_joint_plan **jp, struct btc_joint_request *jr,
			const struct btc_request *opt, const bool *own,
			struct btc_table **share, struct btc_diag *d)
{
	struct btc_joint_plan *j = *jp;
	if (jr->same_pu != BTC_SAME_PU_PROBE) {
		printf("same-PU factor: not measured (--same-pu none, the default: factor 1; "
		       "--same-pu probe measures it and plans with it)\n");
		return true;
	}
	if (!btc_share_probe_wanted(j)) {
		printf("same-PU factor: nothing to measure (no GPU with kernels of two streams)\n");
		return true;
	}
	if (btc_share_cached(j)) {
		printf("same-PU factor: the tables' @share rows (measured with %s)\n",
		       j->apps[0].table->share_with);
		return true;
	}
	char *dir, *prog;
	program_paths(j, opt, &dir, &prog);
	bool built = false, ok = btc_job_dir_claim(dir, d) &&
				 btc_joint_project_make(j, dir, opt->force, d) &&
				 btc_job_build(dir, j->dev, &built, d);
	struct btc_table *t = NULL;
	double secs = 0;
	if (ok && built)
		ok = btc_share_probe_run(j, prog, &t, &secs, d) && !btc_interrupted();
	if (ok && t) {
		char *with = btc_share_with(j);
		printf("same-PU factor measured in %.1f s (with %s); planning again with it\n", secs,
		       with);
		for (int a = 0; a < j->n_apps && ok; a++)
			if (own[a])
				ok = btc_share_write_rows(j->apps[a].table_path, j->apps[a].app, j->dev, t,
							  with, d);
		free(with);
		jr->share = t;
		struct btc_joint_plan *j2 = ok ? btc_joint_plan_make(jr, j->dev, d) : NULL;
		jr->share = NULL;
		if (j2) {
			btc_joint_plan_free(j);
			*jp = j2;
			*share = t;
			t = NULL;
			btc_workload_print_plan(j2);
		} else {
			ok = false;
		}
	}
	btc_table_free(t);
	free(dir);
	free(prog);
	return ok;
}

/* 3.-5. Generate, build, measure, report. */
static int measure(const struct btc_joint_plan *j, const struct btc_request *opt,
		   struct btc_diag *d)
{
	char *dir, *prog;
	program_paths(j, opt, &dir, &prog);
	char *runs = btc_xasprintf("%s/runs", dir);
	int S = j->n_streams, K = j->result.n, status = 1;
	const char **names = btc_xcalloc((size_t)S, sizeof(*names));
	int *app = btc_xcalloc((size_t)S, sizeof(int));
	double *weight = btc_xcalloc((size_t)S, sizeof(double));
	long *solo = btc_xcalloc((size_t)S, sizeof(long));
	long *joint = btc_xcalloc((size_t)(S * K), sizeof(long));
	double *pred = btc_xcalloc((size_t)K, sizeof(double));
	double *share = btc_xcalloc((size_t)S, sizeof(double));
	double *plan_rate = btc_xcalloc((size_t)S, sizeof(double));
	bool built = false;
	if (!btc_job_dir_claim(dir, d) || !btc_joint_project_make(j, dir, opt->force, d) ||
	    !btc_job_build(dir, j->dev, &built, d) || !built || !btc_mkdirs(runs, d))
		goto out;
	printf("built %s\n", prog);
	fflush(stdout);
	for (int s = 0; s < S; s++) {
		names[s] = j->names[s];
		app[s] = j->streams[s].app;
		weight[s] = j->wl.apps[app[s]].weight;
		solo[s] = j->apps[app[s]].solo_vector;
		/* maxmin: r_s = lambda w_s r*_s; rates: r_s = theta target_s */
		share[s] = j->m.objective == BTC_MULTI_RATES ? j->wl.apps[app[s]].rate_per_s
							       : weight[s] / j->apps[app[s]].solo_ms;
		plan_rate[s] = j->apps[app[s]].solo_ms > 0 ? 1e3 / j->apps[app[s]].solo_ms : 0;
	}
	for (int k = 0; k < K; k++) {
		pred[k] = btc_joint_min_normalised(j, &j->evals[k]);
		for (int s = 0; s < S; s++)
			joint[k * S + s] = j->schedule[k * S + s];
	}
	/* time multiplexing: a quarter of a run's tasks a turn */
	long turn = opt->tune.tasks / 4 > 0 ? opt->tune.tasks / 4 : 1;
	struct btc_colocate_setup setup = {
		.program = prog, .work_dir = runs, .n_streams = S, .stream_names = names,
		.stream_app = app, .weight = weight, .solo_schedule = solo, .n_joint = K,
		.joint_schedule = joint, .joint_predicted = pred, .plan_rate = plan_rate,
		.baselines = true,
		.multiplex_turn = turn, .share = j->m.objective == BTC_MULTI_SUM ? NULL : share,
		.share_measured = j->m.objective == BTC_MULTI_MAXMIN,
	};
	struct btc_tune_ctx ctx = {.input = NULL, .work_dir = runs, .verbose = true,
				   .seed = btc_tune_seed(&opt->tune)};
	struct btc_colocate_result r;
	bool ok = btc_colocate_measure(&setup, &opt->tune, &ctx, &r, d);
	if (btc_interrupted()) {
		status = BTC_EXIT_INTERRUPTED;
	} else {
		btc_colocate_print(stdout, &setup, &r);
		/* the model in M's units: calibrated to this run's solo runs */
		double ms[BTC_WORKLOAD_MAX_APPS];
		struct btc_workload_calib cal = {0};
		bool calibrated = btc_workload_measured_periods(j, r.solo_rate, ms) &&
				  btc_workload_calibrate(j, ms, &cal, d);
		if (cal.n_apps)
			btc_workload_print_calib(j, &cal);
		double m = r.best >= 0 ? r.joint[r.best].merit.median : 0;
		btc_workload_print_bound(j, calibrated ? &cal : NULL, m);
		/* the bound with the capacity the other joint candidates'
		 * runs showed (driver/workload_capacity.h) */
		int n_runs = 0;
		for (int k = 0; k < K && k < r.n_joint; k++)
			n_runs += r.joint[k].ok ? r.joint[k].n_round_rate : 0;
		const double **rates = btc_xcalloc((size_t)n_runs + 1, sizeof(*rates));
		int *run_cand = btc_xcalloc((size_t)n_runs + 1, sizeof(int));
		n_runs = 0;
		for (int k = 0; k < K && k < r.n_joint; k++)
			for (int x = 0; r.joint[k].ok && x < r.joint[k].n_round_rate; x++) {
				run_cand[n_runs] = k;
				rates[n_runs++] = &r.joint[k].round_rate[(size_t)x * (size_t)S];
			}
		struct btc_workload_capacity capt = {0}, capc = {0};
		if (r.best >= 0) {
			btc_workload_capacity(j, NULL, n_runs, run_cand, rates, r.best, &capt, d);
			if (calibrated)
				btc_workload_capacity(j, &cal, n_runs, run_cand, rates, r.best, &capc,
						      d);
			btc_workload_print_capacity(j, calibrated ? &capc : NULL, &capt, m);
		}
		if (opt->report)
			write_report(opt->report, j, &setup, &r, &cal, &capc, &capt, prog, d);
		btc_workload_capacity_free(&capt);
		btc_workload_capacity_free(&capc);
		free(rates);
		free(run_cand);
		btc_workload_calib_free(&cal);
		status = ok && !d->errors ? 0 : 1;
	}
	btc_colocate_result_free(&r);
out:
	free(dir);
	free(prog);
	free(runs);
	free(names);
	free(app);
	free(weight);
	free(solo);
	free(joint);
	free(pred);
	free(share);
	free(plan_rate);
	return status;
}

int btc_workload_job(const struct btc_joint_request *r, const struct btc_device *dev,
		     const struct btc_request *opt, struct btc_diag *d)
{
	char *tables[BTC_WORKLOAD_MAX_APPS] = {0};
	int n_tables = 0, status = 1;
	struct btc_joint_request jr = *r;
	const char **app_tables = btc_xcalloc((size_t)(r->n_app_tables + BTC_WORKLOAD_MAX_APPS),
					      sizeof(*app_tables));
	if (!profile_apps(r, dev, opt, tables, &n_tables, d))
		goto out;
	for (int i = 0; i < r->n_app_tables; i++)
		app_tables[i] = r->app_tables[i];
	for (int i = 0; i < n_tables; i++)
		app_tables[r->n_app_tables + i] = tables[i];
	jr.app_tables = app_tables;
	jr.n_app_tables = r->n_app_tables + n_tables;
	jr.plan = opt->plan;
	jr.plan.candidate_modes = 0;
	jr.plan.period_slice = 0;
	struct btc_joint_plan *j = btc_joint_plan_make(&jr, dev, d);
	if (!j)
		goto out;
	btc_workload_print_plan(j);
	fflush(stdout);
	bool own[BTC_WORKLOAD_MAX_APPS] = {0};
	for (int a = 0; a < j->n_apps; a++)
		for (int i = 0; i < n_tables; i++)
			own[a] |= !strcmp(strchr(tables[i], '=') + 1, j->apps[a].table_path);
	struct btc_table *share = NULL;
	if (probe_share(&j, &jr, opt, own, &share, d) && !btc_interrupted())
		status = measure(j, opt, d);
	btc_joint_plan_free(j);
	btc_table_free(share);
out:
	if (btc_interrupted())
		status = BTC_EXIT_INTERRUPTED;
	for (int i = 0; i < n_tables; i++)
		free(tables[i]);
	free(app_tables);
	return status;
}
