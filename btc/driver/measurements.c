/* Measurements copied back from a device, and the calibration command
 * over them (driver/measurements.h). */
#include "driver/measurements.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/fit.h"
#include "driver/report.h"
#include "util/out.h"

/* A main job's report (btc tune --report): each verified candidate's
 * median, matched to the planned schedule of the same label. */
static bool read_main_report(const char *path, const cJSON *cands,
			     const struct btc_plan_schedule *scheds, int n,
			     const struct btc_device *dev, struct btc_tune_entry *entries,
			     struct btc_diag *d)
{
	struct btc_loc at = {path, 0, 0};
	char **labels = btc_xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++)
		labels[i] = btc_plan_schedule_label(&scheds[i].s, dev);
	bool ok = true;
	const cJSON *c;
	cJSON_ArrayForEach(c, cands)
	{
		const cJSON *label = cJSON_GetObjectItemCaseSensitive(c, "label");
		const cJSON *status = cJSON_GetObjectItemCaseSensitive(c, "status");
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(c, "measured_ms_per_task");
		if (!cJSON_IsString(label) || !cJSON_IsString(status)) {
			btc_error(d, at, "a candidate without label or status");
			ok = false;
			continue;
		}
		int i = 0;
		while (i < n && strcmp(labels[i], label->valuestring))
			i++;
		if (i == n) {
			btc_error(d, at, "schedule '%s' is not in this plan (pass it with --chunks)",
				  label->valuestring);
			ok = false;
			continue;
		}
		struct btc_tune_entry *e = &entries[i];
		if (!strcmp(status->valuestring, "failed")) {
			e->status = BTC_RUN_FAILED;
			free(e->error);
			e->error = btc_xasprintf("schedule '%s': %s says it did not verify",
						 label->valuestring, path);
		} else if (!strcmp(status->valuestring, "verified") && cJSON_IsNumber(ms) &&
			   ms->valuedouble > 0) {
			if (e->status != BTC_RUN_FAILED)
				e->status = BTC_RUN_VERIFIED;
			btc_tune_entry_add(e, ms->valuedouble);
		}
	}
	for (int i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	return ok;
}

static bool read_json(const char *path, const char *text, const struct btc_plan_schedule *scheds,
		      int n, const struct btc_device *dev, struct btc_tune_entry *entries,
		      struct btc_diag *d)
{
	struct btc_loc at = {path, 0, 0};
	cJSON *j = cJSON_Parse(text);
	const cJSON *cands = cJSON_GetObjectItemCaseSensitive(j, "candidates");
	if (cJSON_IsArray(cands)) {
		bool ok = read_main_report(path, cands, scheds, n, dev, entries, d);
		cJSON_Delete(j);
		return ok;
	}
	const cJSON *idx = cJSON_GetObjectItemCaseSensitive(j, "schedule_index");
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(j, "measured_ms_per_task");
	if (!cJSON_IsNumber(idx) || !cJSON_IsNumber(ms)) {
		btc_error(d, at,
			  "not a run report (expected schedule_index and measured_ms_per_task) "
			  "nor a main job's report (candidates)");
		cJSON_Delete(j);
		return false;
	}
	int i = idx->valueint;
	if (i < 0 || i >= n || idx->valuedouble != i) {
		btc_error(d, at, "schedule_index %g: the build has schedules 0..%d",
			  idx->valuedouble, n - 1);
		cJSON_Delete(j);
		return false;
	}
	bool ok = true;
	const cJSON *sched = cJSON_GetObjectItemCaseSensitive(j, "schedule");
	const cJSON *label = cJSON_GetObjectItemCaseSensitive(sched, "label");
	char *want = btc_plan_schedule_label(&scheds[i].s, dev);
	if (cJSON_IsString(label) && strcmp(label->valuestring, want)) {
		btc_error(d, at,
			  "schedule %d is '%s' in this plan, the run report says '%s' "
			  "(another table or other options?)",
			  i, want, label->valuestring);
		ok = false;
	}
	free(want);
	struct btc_tune_entry *e = &entries[i];
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(j, "tasks");
	const cJSON *warm = cJSON_GetObjectItemCaseSensitive(j, "warmup");
	if (ok && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "verified"))) {
		e->status = BTC_RUN_FAILED;
		free(e->error);
		e->error = btc_xasprintf("schedule %d: the run report %s says it did not verify", i,
					 path);
	} else if (ok && !(ms->valuedouble > 0)) {
		btc_error(d, at, "measured_ms_per_task %g: must be > 0", ms->valuedouble);
		ok = false;
	} else if (ok) {
		if (e->status != BTC_RUN_FAILED)
			e->status = BTC_RUN_VERIFIED;
		btc_tune_entry_add(e, ms->valuedouble);
		e->warmup = cJSON_IsNumber(warm) ? warm->valueint : 0;
		/* The program's "tasks" counts the warm-up too. */
		e->tasks = cJSON_IsNumber(tasks) ? tasks->valueint - e->warmup : 0;
	}
	cJSON_Delete(j);
	return ok;
}

static bool read_csv(const char *path, char *text, int n, struct btc_tune_entry *entries,
		     struct btc_diag *d)
{
	bool ok = true;
	int line = 0;
	for (char *p = text, *next; p && *p; p = next) {
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		line++;
		p += strspn(p, " \t\r");
		p[strcspn(p, "\r")] = '\0';
		if (!*p || *p == '#' || !strncmp(p, "schedule_index", 14))
			continue;
		struct btc_loc at = {path, line, 1};
		char *end;
		errno = 0;
		long i = strtol(p, &end, 10);
		if (end == p || *end != ',' || errno) {
			btc_error(d, at, "expected schedule_index,measured_ms, not '%s'", p);
			ok = false;
			continue;
		}
		if (i < 0 || i >= n) {
			btc_error(d, at, "schedule_index %ld: the build has schedules 0..%d", i,
				  n - 1);
			ok = false;
			continue;
		}
		char *v = end + 1;
		double ms = strtod(v, &end);
		if (end == v || (*end && *end != ',') || !(ms > 0) || isinf(ms)) {
			btc_error(d, at, "measured_ms must be a number > 0, not '%.*s'",
				  (int)strcspn(v, ","), v);
			ok = false;
			continue;
		}
		if (entries[i].status != BTC_RUN_FAILED)
			entries[i].status = BTC_RUN_VERIFIED;
		btc_tune_entry_add(&entries[i], ms);
	}
	return ok;
}

bool btc_measurements_read(const char *path, const struct btc_plan_schedule *scheds, int n,
			   const struct btc_device *dev, struct btc_tune_entry *entries,
			   struct btc_diag *d)
{
	char *text = btc_read_file(path, NULL);
	if (!text) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot read: %s", strerror(errno));
		return false;
	}
	const char *first = text + strspn(text, " \t\r\n");
	bool ok = *first == '{' ? read_json(path, text, scheds, n, dev, entries, d)
				: read_csv(path, text, n, entries, d);
	free(text);
	return ok;
}

static void print_table(const struct btc_report *r, FILE *f)
{
	fprintf(f, "%-4s %-9s %-34s %12s %12s %12s %21s %4s %4s\n", "N", "kind",
		"schedule (PU:stages)", "predicted_ms", "calib_ms", "measured_ms", "95% interval",
		"runs", "rank");
	enum btc_mode m = BTC_MODE_INTERFERENCE;
	if (r->fit_mode)
		btc_mode_parse(r->fit_mode, &m);
	for (int i = 0; i < r->n_candidates; i++) {
		const struct btc_report_candidate *c = &r->candidates[i];
		char meas[32] = "not_run", ci[48] = "";
		if (c->status == BTC_RUN_VERIFIED) {
			snprintf(meas, sizeof(meas), "%.3f", c->measured_ms);
			if (!isnan(c->ci_low_ms))
				snprintf(ci, sizeof(ci), "[%.3f, %.3f]", c->ci_low_ms,
					 c->ci_high_ms);
			else
				snprintf(ci, sizeof(ci), "[n/a]");
		} else {
			snprintf(meas, sizeof(meas), "%s", btc_run_status_name(c->status));
		}
		fprintf(f, "%-4d %-9s %-34s %12.3f %12.3f %12s %21s %4d %4d\n", i,
			c->baseline ? "baseline" : "candidate", c->label, c->predicted_ms[m],
			c->calibrated_loo_ms[m], meas, ci, c->runs, c->calibrated_rank);
	}
	fprintf(f,
		"(predicted_ms: the %s table; calib_ms: calibrated on the other schedules' "
		"measurements (LOO); rank: by the model calibrated on all)\n",
		btc_mode_name(m));
}

/* The schedules a main job's report measured, as --chunks specs (labels
 * with ',' for ' '), in its order; 0 when path is not such a report.
 * Stores up to max specs, which the caller frees. */
static int report_specs(const char *path, char **specs, int max, struct btc_diag *d)
{
	char *text = btc_read_file(path, NULL);
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	free(text);
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

/* btc_job_calibrate on the plan options in opt (its schedules settled). */
static int calibrate(const struct btc_app *app, const struct btc_device *dev,
		     const struct btc_job_options *opt, const char *const *files, int n_files,
		     struct btc_diag *d)
{
	if (opt->report)
		remove(opt->report);
	struct btc_table *t = btc_table_load(opt->table, NULL, app, dev, opt->plan.mode, d);
	if (!t)
		return 1;
	struct btc_plan *plan = btc_plan(app, dev, t, opt->table, &opt->plan, d);
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
		btc_fit_bound(plan, &r);
		printf("== btc fit: %s on %s, %d measurement file%s ==\n", app->name, dev->name,
		       n_files, n_files == 1 ? "" : "s");
		print_table(&r, stdout);
		btc_fit_print(&r, stdout);
		btc_fit_print_bound(&r, stdout);
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
		      const struct btc_job_options *opt_in, const char *const *files, int n_files,
		      struct btc_diag *d)
{
	/* A main job's report names the schedules it measured: plan exactly
	 * those (unless --chunks names others), so a changed model or table
	 * can be judged on the same measurements. */
	struct btc_job_options job = *opt_in;
	const struct btc_job_options *opt = &job;
	char *specs[BTC_PLAN_MAX_SPECS];
	int n_specs = 0;
	if (!job.plan.n_specs && n_files > 0) {
		n_specs = report_specs(files[0], specs, BTC_PLAN_MAX_SPECS, d);
		for (int i = 0; i < n_specs; i++)
			job.plan.specs[job.plan.n_specs++] = specs[i];
	}
	int status = calibrate(app, dev, opt, files, n_files, d);
	for (int i = 0; i < n_specs; i++)
		free(specs[i]);
	return status;
}
