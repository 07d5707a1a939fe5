/* `btc tune --measurements`: the main job's plan, fitted to measurements
 * made elsewhere (driver/calibrate.h). */
#include "driver/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/fit.h"
#include "report/measurements.h"
#include "report/report.h"
#include "util/infile.h"
#include "util/out.h"

/* The schedules a main job's report measured, as --chunks specs (labels
 * with ',' for ' '), in its order; 0 when path is not such a report.
 * Stores up to max specs, which the caller frees. */
static int report_specs(const char *path, char **specs, int max, struct btc_diag *d)
{
	cJSON *j = btc_read_json(path, NULL, NULL);
	const cJSON *cands = cJSON_GetObjectItemCaseSensitive(j, "candidates"), *c;
	int n = 0;
	cJSON_ArrayForEach(c, cands)
	{
		const cJSON *label = cJSON_GetObjectItemCaseSensitive(c, "label");
		if (!cJSON_IsString(label))
			continue;
		if (n == max) {
			btc_error(d, (struct btc_loc){path, 0, 0},
				  "more than %d schedules: pass the ones to fit with --chunks", max);
			break;
		}
		specs[n] = btc_xstrdup(label->valuestring);
		for (char *p = specs[n]; *p; p++)
			if (*p == ' ')
				*p = ',';
		n++;
	}
	cJSON_Delete(j);
	return n;
}

/* The io farms the report's program ran with (docs/scheduler.md, "The
 * io farms"), so that the refit's T_io is the measured program's: the
 * report's fluid_bound.load_threads and check_threads; in a report of an
 * earlier btc, the smallest pair (k_load + k_check, then k_load) whose
 * max(load / k_load, check / k_check) on table t is the report's own
 * fluid_bound.io_ms (6 digits); 0 and 0 when neither (btc_plan's rule:
 * with no room for more, one loader and one checker). */
static void report_io_threads(const char *path, const struct btc_table *t, enum btc_mode m,
			      uint32_t *kl, uint32_t *kc)
{
	*kl = *kc = 0;
	cJSON *j = path ? btc_read_json(path, NULL, NULL) : NULL;
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "fluid_bound");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(b, "load_threads");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "check_threads");
	const cJSON *io = cJSON_GetObjectItemCaseSensitive(b, "io_ms");
	if (cJSON_IsNumber(l) && cJSON_IsNumber(c) && l->valueint > 0 && c->valueint > 0) {
		*kl = (uint32_t)l->valueint;
		*kc = (uint32_t)c->valueint;
	} else if (cJSON_IsNumber(io) && io->valuedouble > 0) {
		for (uint32_t sum = 2; sum <= 2 * BTC_PLAN_MAX_IO_THREADS && !*kl; sum++)
			for (uint32_t a = 1; a < sum && !*kl; a++) {
				if (a > BTC_PLAN_MAX_IO_THREADS || sum - a > BTC_PLAN_MAX_IO_THREADS)
					continue;
				double x = btc_table_io_ms(t, m, a, sum - a, NULL, NULL);
				if (fabs(x - io->valuedouble) <= 5e-7 + 1e-6 * x) {
					*kl = a;
					*kc = sum - a;
				}
			}
	}
	cJSON_Delete(j);
}

/* The schedule the report's job chose (its "schedule" label), as r's
 * candidate, with its measured median: the bounds are then calibrated
 * without its measurement, as the job's own were (btc_fit_bound). */
static void report_chosen(const char *path, struct btc_report *r)
{
	cJSON *j = path ? btc_read_json(path, NULL, NULL) : NULL;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "schedule");
	const cJSON *label = cJSON_GetObjectItemCaseSensitive(s, "label");
	for (int k = 0; cJSON_IsString(label) && k < r->n_candidates; k++)
		if (r->candidates[k].label && !strcmp(r->candidates[k].label, label->valuestring) &&
		    r->candidates[k].status == BTC_RUN_VERIFIED) {
			r->chosen = k;
			r->measured_ms = r->candidates[k].measured_ms;
			break;
		}
	cJSON_Delete(j);
}

/* What the main job's bound round (driver/job.c, phase_bound_round) would
 * do with these measurements: the calibrated model's best assignment s
 * (btc_fit_bound_assignment, on every measurement), whether one of the
 * measured schedules is it and, where it is not the chosen, the rematch. */
static void bound_round_say(const struct btc_plan *plan, const struct btc_report *r,
			    const struct btc_schedule *s, enum btc_mode m, double bound_ms)
{
	char *label = btc_plan_schedule_label(s, plan->dev);
	int k = btc_plan_find_schedule(plan, s);
	if (k >= 0 && k < r->n_candidates && r->candidates[k].status == BTC_RUN_VERIFIED)
		printf("bound round: the calibrated model's best assignment (%s table, bound %.3f "
		       "ms) is %s, schedule %d, measured%s\n",
		       btc_mode_name(m), bound_ms, label, k,
		       k == r->chosen
			       ? ""
			       : ": where it is not the tuning winner, the main job races it "
				 "against the winner unless tuning's intervals separate them");
	else
		printf("bound round: the calibrated model's best assignment (%s table, bound %.3f "
		       "ms) is %s, not among the measured: the main job builds it and races it "
		       "against the tuning winner\n",
		       btc_mode_name(m), bound_ms, label);
	free(label);
}

/* btc_job_calibrate on the plan options in opt (its schedules settled). */
static int calibrate(const struct btc_app *app, const struct btc_device *dev,
		     const struct btc_request *opt, const char *const *files, int n_files,
		     struct btc_diag *d)
{
	if (opt->report)
		remove(opt->report);
	struct btc_table *t = btc_table_load(opt->table, NULL, app, dev, opt->plan.mode, d);
	if (!t)
		return 1;
	struct btc_plan_options po = opt->plan;
	if (!po.load_threads && !po.check_threads)
		report_io_threads(n_files > 0 ? files[0] : NULL, t, po.mode, &po.load_threads,
				  &po.check_threads);
	struct btc_plan *plan = btc_plan(app, dev, t, opt->table, &po, d);
	if (!plan) {
		btc_table_free(t);
		return 1;
	}
	const struct btc_plan_schedule *scheds = plan->schedules;
	int n = plan->n_schedules;
	struct btc_tune_entry *entries = btc_xcalloc((size_t)n + 1, sizeof(*entries));
	for (int i = 0; i < n; i++)
		entries[i] = (struct btc_tune_entry){.median_ms = NAN,
						     .ci_lo_ms = NAN,
						     .ci_hi_ms = NAN,
						     .baseline = scheds[i].baseline};
	bool ok = true;
	for (int k = 0; k < n_files; k++)
		ok &= btc_measurements_read(files[k], scheds, n, dev, entries, d);
	if (ok) {
		struct btc_report r;
		btc_report_init(&r);
		r.app = btc_xstrdup(app->name);
		r.device = btc_xstrdup(dev->name);
		r.mode = btc_xstrdup(btc_mode_name(opt->plan.mode));
		r.objective = btc_xstrdup(btc_sched_objective_name(opt->plan.sched.objective));
		r.gpu = btc_xstrdup(opt->plan.gpu ? opt->plan.gpu : "auto");
		btc_fit_candidates(plan, entries, &r);
		btc_fit_pearson(&r, opt->plan.mode);
		for (int i = 0; i < n; i++)
			r.n_failed += r.candidates[i].status == BTC_RUN_FAILED;
		btc_fit_report(plan, &r);
		struct btc_schedule bs;
		enum btc_mode bm;
		double bound_ms;
		bool has_bs = btc_fit_bound_assignment(plan, &r, &bs, &bm, &bound_ms);
		report_chosen(n_files > 0 ? files[0] : NULL, &r);
		btc_fit_bound(plan, &r);
		printf("== btc fit: %s on %s, %d measurement file%s ==\n", app->name, dev->name,
		       n_files, n_files == 1 ? "" : "s");
		btc_report_print_candidates(&r, stdout);
		btc_fit_print(&r, stdout);
		btc_fit_print_bound(&r, stdout);
		if (has_bs)
			bound_round_say(plan, &r, &bs, bm, bound_ms);
		if (opt->report) {
			char *svg = btc_xasprintf(
				"%.*s-fit.svg",
				(int)(strlen(opt->report) - (strstr(opt->report, ".json") ? 5 : 0)),
				opt->report);
			btc_report_fit_svg(&r, svg, d);
			btc_report_write(&r, opt->report, d);
			printf("files: %s, %s\n", opt->report, svg);
			free(svg);
		}
		btc_report_free(&r);
	}
	btc_tune_entries_clear(entries, n);
	free(entries);
	btc_plan_free(plan);
	btc_table_free(t);
	return d->errors ? 1 : 0;
}

int btc_job_calibrate(const struct btc_app *app, const struct btc_device *dev,
		      const struct btc_request *opt_in, const char *const *files, int n_files,
		      struct btc_diag *d)
{
	/* A main job's report names the schedules it measured: plan exactly
	 * those (unless --chunks names others), so a changed model or table
	 * can be judged on the same measurements. */
	struct btc_request job = *opt_in;
	const struct btc_request *opt = &job;
	char *specs[BTC_PLAN_MAX_SPACE]; /* an --exhaustive job's schedules */
	int n_specs = 0;
	if (!job.plan.n_specs && n_files > 0) {
		n_specs = report_specs(files[0], specs, BTC_PLAN_MAX_SPACE, d);
		for (int i = 0; i < n_specs; i++)
			job.plan.specs[job.plan.n_specs++] = specs[i];
		/* the report lists its baselines too, at their numbers: none
		 * appended again (docs/codegen.md, schedule numbers) */
		job.plan.baselines = n_specs == 0;
	}
	int status = calibrate(app, dev, opt, files, n_files, d);
	for (int i = 0; i < n_specs; i++)
		free(specs[i]);
	return status;
}
