/* Measurements copied back from a device, read into the planned
 * schedules' entries (report/measurements.h). */
#include "report/measurements.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fit.h"
#include "report/report.h"
#include "util/infile.h"
#include "util/out.h"
#include "util/num.h"

/* Adds every run of the report's candidate c to e (`runs_ms`, each with
 * its `runs_times` entry where the report has them): true, or false
 * (nothing added) where c has no `runs_ms` of `runs` positive numbers. */
static bool add_runs(struct btc_tune_entry *e, const cJSON *c)
{
	const cJSON *rm = cJSON_GetObjectItemCaseSensitive(c, "runs_ms"), *x;
	const cJSON *rn = cJSON_GetObjectItemCaseSensitive(c, "runs");
	int n = cJSON_IsArray(rm) ? cJSON_GetArraySize(rm) : 0;
	if (n < 1 || !cJSON_IsNumber(rn) || rn->valuedouble != n)
		return false;
	cJSON_ArrayForEach(x, rm)
	{
		if (!cJSON_IsNumber(x) || !(x->valuedouble > 0) || isinf(x->valuedouble))
			return false;
	}
	const cJSON *rt = cJSON_GetObjectItemCaseSensitive(c, "runs_times");
	struct btc_run_times *t = btc_report_read_run_times(rt, n);
	for (int k = 0; k < n; k++)
		btc_tune_entry_add_times(e, cJSON_GetArrayItem(rm, k)->valuedouble,
					 t ? &t[k] : NULL);
	free(t); /* its arrays moved to e */
	return true;
}

/* The median ms of the report's candidate c as one run of e, with the
 * report's 95 % interval where it is e's one figure (a report without
 * `runs_ms`). */
static void add_median(struct btc_tune_entry *e, const cJSON *c, double ms)
{
	btc_tune_entry_add(e, ms);
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(c, "measured_ci_low_ms");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(c, "measured_ci_high_ms");
	if (e->n_runs == 1 && cJSON_IsNumber(lo) && cJSON_IsNumber(hi) && lo->valuedouble <= ms &&
	    hi->valuedouble >= ms) {
		e->ci_lo_ms = lo->valuedouble;
		e->ci_hi_ms = hi->valuedouble;
	}
}

/* A main job's report (btc tune --report): each verified candidate's
 * runs (`runs_ms`, with `runs_times` where the report has them), so that
 * the median and its 95 % interval are the report's; in a report without
 * them its median and, where it is the schedule's one figure, the
 * report's interval of it (the bound's calibration lowers to its lower
 * end, btc_calib_lower). Matched to the planned schedule of the same
 * label. */
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
			if (!add_runs(e, c))
				add_median(e, c, ms->valuedouble);
		}
	}
	for (int i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	return ok;
}

static bool read_json(const char *path, const char *text, size_t len,
		      const struct btc_plan_schedule *scheds, int n, const struct btc_device *dev,
		      struct btc_tune_entry *entries, struct btc_diag *d)
{
	struct btc_loc at = {path, 0, 0};
	cJSON *j = btc_parse_json(path, text, len, NULL, d);
	if (!j)
		return false;
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
		const char *comma = strchr(p, ',');
		long i;
		if (!comma || !btc_parse_int_n(p, (int)(comma - p), LONG_MIN, LONG_MAX, &i)) {
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
		char *v = (char *)comma + 1, *end;
		size_t vlen = strcspn(v, ",");
		char saved = v[vlen];
		v[vlen] = '\0'; /* decimal only: strtod also reads 0x10 */
		bool decimal = btc_is_decimal(v);
		v[vlen] = saved;
		double ms = strtod(v, &end);
		if (!decimal || end == v || (*end && *end != ',') || !(ms > 0) || isinf(ms)) {
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
	size_t len = 0;
	char *text = btc_read_file(path, &len);
	if (!text) {
		btc_error(d, (struct btc_loc){path, 0, 0}, "cannot read: %s", strerror(errno));
		return false;
	}
	const char *first = text + strspn(text, " \t\r\n");
	bool ok = *first == '{' ? read_json(path, text, len, scheds, n, dev, entries, d)
				: read_csv(path, text, n, entries, d);
	free(text);
	return ok;
}
