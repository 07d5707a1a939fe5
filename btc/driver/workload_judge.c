/* The workload job's figures in M's units and the offline re-judgement
 * of its reports (driver/workload_judge.h). */
#include "driver/workload_judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/workload_capacity.h"
#include "driver/workload_job.h"
#include "front/table.h"
#include "util/fsafe.h"
#include "util/infile.h"
#include "util/json.h"
#include "util/out.h"

/* Per app its measured solo period, ms (1000 / r*_a), from the solo rates
 * per stream (tasks/s); false when some app has none. */
bool btc_workload_measured_periods(const struct btc_joint_plan *j, const double *solo_rate, double *ms)
{
	for (int a = 0; a < j->n_apps; a++)
		ms[a] = NAN;
	for (int s = 0; s < j->n_streams; s++)
		if (solo_rate[s] > 0)
			ms[j->streams[s].app] = 1000.0 / solo_rate[s];
	for (int a = 0; a < j->n_apps; a++)
		if (!(ms[a] > 0))
			return false;
	return true;
}

/* The calibration and the candidates' predicted M in both units. */
void btc_workload_print_calib(const struct btc_joint_plan *j, const struct btc_workload_calib *c)
{
	printf("model calibrated to the solo runs (per app and PU; docs/scheduler.md):\n");
	for (int a = 0; a < j->n_apps; a++) {
		printf("  %s: solo %.4f ms in the table, %.4f ms measured, %.4f ms calibrated;",
		       j->apps[a].app->name, c->table_ms[a], c->measured_ms[a], c->calibrated_ms[a]);
		for (int p = 0; p < c->n_pus; p++)
			if (c->scale[a][p] != 1.0)
				printf(" %s x%.3f", j->dev->pus[p].name, c->scale[a][p]);
		if (c->io_scale[a] != 1.0)
			printf(" io x%.3f", c->io_scale[a]);
		printf("\n");
	}
	for (int k = 0; k < c->n; k++)
		printf("  joint %d: predicted M %.3f (table), %.3f (calibrated)\n", k,
		       btc_joint_min_normalised(j, &j->evals[k]), c->predicted[k]);
	if (j->has_naive)
		printf("  naive co-location: predicted %.3f (table), %.3f (calibrated)\n",
		       btc_joint_min_normalised(j, &j->naive_eval), c->naive);
}

/* The chosen's measured M (m) against the multi-app fluid bound (maxmin
 * only), the calibrated one when cal (in M's units), beside the table's:
 * the ratio, or, where M lies above the bound, that the bound does not
 * hold on this machine (never a ratio above 1; docs/report.md). */
void btc_workload_print_bound(const struct btc_joint_plan *j, const struct btc_workload_calib *cal,
			double m)
{
	if (!j->has_bound || j->m.objective != BTC_MULTI_MAXMIN || !(j->bound > 0) || !(m > 0))
		return;
	bool c = cal && cal->has_bound && cal->bound > 0;
	double b = c ? cal->bound : j->bound;
	const char *which = c ? "calibrated multi-app fluid bound" : "multi-app fluid bound (table)";
	if (m <= b)
		printf("chosen M / %s = %.2f (M %.3f, bound %.3f)", which, m / b, m, b);
	else
		printf("%s %.3f: NOT a bound here: the chosen's measured M %.3f lies above it (the "
		       "PUs did the streams' work in less time than the sum of their chunk times, "
		       "which the model's time-sharing assumes; no ratio printed)",
		       which, b, m);
	if (c)
		printf("; the table's bound %.3f (M / it %.2f)", j->bound, m / j->bound);
	printf("\n");
}

/* The plan's bound and calibration fields of the report (docs/report.md,
 * "The workload job"); m the chosen's measured M, or 0. */
void btc_workload_add_plan_bound(cJSON *plan, const struct btc_joint_plan *j,
			   const struct btc_workload_calib *cal, double m)
{
	bool c = cal && cal->has_bound;
	if (!j->has_bound || j->m.objective != BTC_MULTI_MAXMIN) {
		cJSON_AddNullToObject(plan, "fluid_bound");
		return;
	}
	cJSON_AddNumberToObject(plan, "fluid_bound", j->bound);
	cJSON_AddNumberToObject(plan, "fluid_bound_table", j->bound);
	if (c)
		cJSON_AddNumberToObject(plan, "fluid_bound_calibrated", cal->bound);
	else
		cJSON_AddNullToObject(plan, "fluid_bound_calibrated");
	if (m > 0) {
		cJSON_AddBoolToObject(plan, "fluid_bound_holds", m <= (c ? cal->bound : j->bound));
		cJSON_AddStringToObject(plan, "fluid_bound_judged", c ? "calibrated" : "table");
	}
	if (!cal || !cal->n_apps)
		return;
	cJSON *pc = cJSON_AddArrayToObject(plan, "predicted_calibrated");
	for (int k = 0; k < cal->n; k++)
		cJSON_AddItemToArray(pc, btc_json_unrounded(cal->predicted[k]));
	btc_json_add_unrounded(plan, "naive_predicted_calibrated", cal->naive);
	cJSON *arr = cJSON_AddArrayToObject(plan, "calibration");
	for (int a = 0; a < cal->n_apps; a++) {
		cJSON *o = cJSON_CreateObject(), *sc = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "app", j->apps[a].app->name);
		cJSON_AddStringToObject(o, "fitted_from", "solo runs: the solo-best schedule's "
							  "measured period (1000 / solo_tasks_per_s)");
		cJSON_AddNumberToObject(o, "solo_table_ms", cal->table_ms[a]);
		cJSON_AddNumberToObject(o, "solo_measured_ms", cal->measured_ms[a]);
		cJSON_AddNumberToObject(o, "solo_calibrated_ms", cal->calibrated_ms[a]);
		for (int p = 0; p < cal->n_pus; p++)
			cJSON_AddNumberToObject(sc, j->dev->pus[p].name, cal->scale[a][p]);
		cJSON_AddItemToObject(o, "scale", sc);
		cJSON_AddNumberToObject(o, "io_scale", cal->io_scale[a]);
		cJSON_AddItemToArray(arr, o);
	}
}

/* The joint runs of a report: run i of candidate cand[i], tasks/s per
 * stream rate[i][S] (owned). */
struct runs {
	int n, *cand;
	double **rate;
};

/* The report's per-stream solo rates (tasks/s), chosen candidate and its
 * M, and its verified candidates' runs; false, reported, when they are
 * missing or do not match j. */
static bool read_measured(const struct btc_joint_plan *j, const char *path, double *solo_rate,
			  int *best, double *m, struct runs *runs, struct btc_diag *d)
{
	char *what = btc_xasprintf("not a workload report of this workload (streams %d, each with "
				   "its solo_tasks_per_s, and a chosen joint candidate among the "
				   "plan's %d)", j->n_streams, j->result.n);
	cJSON *root = btc_read_json(path, what, d);
	if (!root) {
		free(what);
		return false;
	}
	cJSON *plan = cJSON_GetObjectItem(root, "plan"), *colo = cJSON_GetObjectItem(root, "colocation");
	cJSON *streams = cJSON_GetObjectItem(colo, "streams"), *b = cJSON_GetObjectItem(colo, "best");
	bool ok = cJSON_IsArray(streams) && cJSON_GetArraySize(streams) == j->n_streams &&
		  cJSON_IsNumber(b);
	for (int s = 0; ok && s < j->n_streams; s++) {
		cJSON *o = cJSON_GetArrayItem(streams, s);
		cJSON *name = cJSON_GetObjectItem(o, "name"), *r = cJSON_GetObjectItem(o, "solo_tasks_per_s");
		ok = cJSON_IsString(name) && !strcmp(name->valuestring, j->names[s]) &&
		     cJSON_IsNumber(r) && r->valuedouble > 0;
		if (ok)
			solo_rate[s] = r->valuedouble;
	}
	if (ok) {
		*best = b->valueint;
		cJSON *joint = cJSON_GetObjectItem(colo, "joint"), *pick = NULL, *x;
		int pos = 0;
		cJSON_ArrayForEach(x, joint)
		{
			cJSON *idx = cJSON_GetObjectItem(x, "index");
			int k = idx ? idx->valueint : pos;
			pos++;
			if (k == *best)
				pick = x;
			/* each verified candidate's runs: its rounds' tasks/s
			 * per stream, or (reports before them) its medians
			 * (driver/workload_capacity.h) */
			cJSON *v = cJSON_GetObjectItem(x, "verified"),
			      *rr = cJSON_GetObjectItem(x, "rounds_tasks_per_s"), *one;
			if (k < 0 || k >= j->result.n || !cJSON_IsTrue(v))
				continue;
			if (!cJSON_IsArray(rr) || !cJSON_GetArraySize(rr)) {
				rr = cJSON_CreateArray(); /* the medians: one run */
				cJSON_AddItemToArray(rr, cJSON_Duplicate(
							     cJSON_GetObjectItem(x, "tasks_per_s"), 1));
				cJSON_AddItemToObject(x, "rounds_tasks_per_s", rr);
			}
			cJSON_ArrayForEach(one, rr)
			{
				bool good = cJSON_IsArray(one) &&
					    cJSON_GetArraySize(one) == j->n_streams;
				double *rt = btc_xcalloc((size_t)j->n_streams, sizeof(double));
				for (int s = 0; good && s < j->n_streams; s++) {
					cJSON *e = cJSON_GetArrayItem(one, s);
					good = cJSON_IsNumber(e) && e->valuedouble > 0;
					rt[s] = good ? e->valuedouble : 0;
				}
				if (!good) {
					free(rt);
					continue;
				}
				runs->rate = btc_xrealloc(runs->rate, (size_t)(runs->n + 1) *
										 sizeof(double *));
				runs->cand = btc_xrealloc(runs->cand,
							  (size_t)(runs->n + 1) * sizeof(int));
				runs->rate[runs->n] = rt;
				runs->cand[runs->n++] = k;
			}
		}
		cJSON *med = cJSON_GetObjectItem(cJSON_GetObjectItem(pick, "merit"), "median");
		ok = cJSON_IsNumber(med) && *best >= 0 && *best < j->result.n;
		*m = ok ? med->valuedouble : 0;
	}
	if (!ok)
		btc_error(d, (struct btc_loc){.file = path}, "%s", what);
	free(what);
	cJSON *pred = cJSON_GetObjectItem(plan, "predicted");
	for (int k = 0; ok && k < j->result.n; k++) {
		cJSON *v = cJSON_GetArrayItem(pred, k);
		double mine = btc_joint_min_normalised(j, &j->evals[k]);
		if (!cJSON_IsNumber(v) || fabs(v->valuedouble - mine) > 1e-6 * fabs(mine))
			btc_warning(d, (struct btc_loc){.file = path},
				    "joint %d: predicted M %.6f here, %s in the report: not the "
				    "job's plan (other tables or options?)",
				    k, mine, cJSON_IsNumber(v) ? "another" : "none");
	}
	cJSON_Delete(root);
	return ok;
}

/* The same-PU factors the job planned with (the report's
 * plan.same_pu_factor.kappa, {PU: {"N": kappa}}) as a table of @share rows
 * of j's first app (btc_table_free), or NULL when the report has none.
 * False, reported, on a PU or count this device does not know. */
static bool report_share(const struct btc_joint_plan *j, const char *path,
			 struct btc_table **out, struct btc_diag *d)
{
	*out = NULL;
	cJSON *root = btc_read_json(path, NULL, NULL); /* none: read_measured says why */
	cJSON *kap = cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(root, "plan"), "same_pu_factor"), "kappa");
	bool ok = true;
	if (cJSON_IsObject(kap)) {
		struct btc_table *t = btc_table_new(j->apps[0].app, j->dev);
		cJSON *pu, *n;
		cJSON_ArrayForEach(pu, kap)
		{
			cJSON_ArrayForEach(n, pu)
			{
				char field[96];
				snprintf(field, sizeof field, "%s*%s", pu->string, n->string);
				struct btc_table_entry *e = btc_table_share_entry(
					t, BTC_MODE_ISOLATED, field, j->dev, (struct btc_loc){.file = path},
					d);
				ok &= e && cJSON_IsNumber(n) && n->valuedouble > 0;
				if (e)
					*e = (struct btc_table_entry){n->valuedouble, 0, 1, true};
			}
		}
		*out = t;
	}
	cJSON_Delete(root);
	return ok;
}

int btc_workload_rejudge(const struct btc_joint_request *r, const struct btc_device *dev,
			 const struct btc_request *opt, const char *report, struct btc_diag *d)
{
	struct btc_joint_request jr = *r;
	jr.plan = opt->plan;
	jr.plan.candidate_modes = 0;
	jr.plan.period_slice = 0;
	struct btc_joint_plan *j = btc_joint_plan_make(&jr, dev, d);
	if (!j)
		return 1;
	/* planned again with the same-PU factors the job planned with */
	struct btc_table *share = NULL;
	if (!report_share(j, report, &share, d)) {
		btc_table_free(share);
		btc_joint_plan_free(j);
		return 1;
	}
	if (share) { /* the job planned with --same-pu probe */
		jr.share = share;
		jr.same_pu = BTC_SAME_PU_PROBE;
		struct btc_joint_plan *j2 = btc_joint_plan_make(&jr, dev, d);
		btc_joint_plan_free(j);
		if (!(j = j2)) {
			btc_table_free(share);
			return 1;
		}
	}
	double *rate = btc_xcalloc((size_t)j->n_streams, sizeof(double));
	struct runs runs = {0};
	double ms[BTC_WORKLOAD_MAX_APPS], m = 0;
	int best = -1, status = 1;
	struct btc_workload_calib cal = {0};
	struct btc_workload_capacity capt = {0}, capc = {0};
	if (j->m.objective != BTC_MULTI_MAXMIN) {
		btc_error(d, (struct btc_loc){0}, "--measurements of a workload: objective maxmin only");
		goto out;
	}
	if (!read_measured(j, report, rate, &best, &m, &runs, d) ||
	    !btc_workload_measured_periods(j, rate, ms))
		goto out;
	printf("%s: offline re-judgement (no new measurement), chosen joint %d, measured M %.3f\n",
	       report, best, m);
	bool calibrated = btc_workload_calibrate(j, ms, &cal, d);
	btc_workload_print_plan(j);
	btc_workload_print_calib(j, &cal);
	btc_workload_print_bound(j, calibrated ? &cal : NULL, m);
	const double *const *rr = (const double *const *)runs.rate;
	btc_workload_capacity(j, NULL, runs.n, runs.cand, rr, best, &capt, d);
	if (calibrated)
		btc_workload_capacity(j, &cal, runs.n, runs.cand, rr, best, &capc, d);
	btc_workload_print_capacity(j, calibrated ? &capc : NULL, &capt, m);
	if (opt->report) {
		cJSON *root = cJSON_CreateObject(), *plan = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "kind", "workload-rejudge");
		cJSON_AddStringToObject(root, "measurements", report);
		cJSON_AddNumberToObject(root, "best", best);
		cJSON_AddNumberToObject(root, "merit", m);
		cJSON_AddItemToObject(root, "plan", plan);
		btc_workload_add_plan_bound(plan, j, &cal, m);
		btc_workload_add_capacity(plan, j, calibrated ? &capc : NULL, &capt, m);
		btc_write_json(opt->report, root, 0, d);
	}
	status = d->errors ? 1 : 0;
out:
	btc_workload_capacity_free(&capt);
	btc_workload_capacity_free(&capc);
	for (int i = 0; i < runs.n; i++)
		free(runs.rate[i]);
	free(runs.rate);
	free(runs.cand);
	btc_workload_calib_free(&cal);
	free(rate);
	btc_joint_plan_free(j);
	btc_table_free(share);
	return status;
}
