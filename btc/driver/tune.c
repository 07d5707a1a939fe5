#include "driver/tune.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/out.h"
#include "util/proc.h"

void btc_tune_options_init(struct btc_tune_options *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = 4;
	o->tasks = 12;
	o->rounds = 3;
	o->keep = 1.30;
	o->work_dir = ".";
}

double btc_pearson(const double *x, const double *y, int n)
{
	if (n < 2)
		return NAN;
	double mx = 0, my = 0;
	for (int i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	double sxy = 0, sxx = 0, syy = 0;
	for (int i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

bool btc_tune_run_once(const char *program, int index, int warmup, int tasks,
		       const char *input, const char *report, const char *trace,
		       bool quiet, double *ms, struct btc_diag *d)
{
	char sched[16], ntasks[16], nwarm[16];
	snprintf(sched, sizeof(sched), "%d", index);
	snprintf(ntasks, sizeof(ntasks), "%d", warmup + tasks);
	snprintf(nwarm, sizeof(nwarm), "%d", warmup);
	char *argv[16];
	int a = 0;
	argv[a++] = (char *)program;
	argv[a++] = "--schedule";
	argv[a++] = sched;
	argv[a++] = "--tasks";
	argv[a++] = ntasks;
	argv[a++] = "--warmup";
	argv[a++] = nwarm;
	argv[a++] = "--report";
	argv[a++] = (char *)report;
	if (quiet)
		argv[a++] = "--quiet";
	if (input) {
		argv[a++] = "--input";
		argv[a++] = (char *)input;
	}
	if (trace) {
		argv[a++] = "--trace";
		argv[a++] = (char *)trace;
	}
	argv[a] = NULL;
	remove(report);
	int rc = btc_run(argv, quiet ? "/dev/null" : NULL, false);
	if (btc_interrupted())
		return false;
	char *text = btc_read_file(report, NULL);
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "measured_ms_per_task");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verified");
	bool ok = rc == 0 && cJSON_IsNumber(m) && cJSON_IsTrue(v) && m->valuedouble > 0;
	if (ok)
		*ms = m->valuedouble;
	else
		btc_error(d, (struct btc_loc){program, 0, 0},
			  "schedule %d did not run to a verified result (exit %d)", index, rc);
	cJSON_Delete(j);
	return ok;
}

bool btc_tune(const char *program, const struct btc_gen_schedule *scheds, int n,
	      const struct btc_tune_options *opt, struct btc_tune_entry *entries,
	      int *winner, struct btc_diag *d)
{
	bool *alive = btc_xcalloc((size_t)n, sizeof(bool));
	for (int i = 0; i < n; i++) {
		entries[i] = (struct btc_tune_entry){
			.predicted_ms = scheds[i].predicted ? scheds[i].s.period_ms : 0,
			.baseline = scheds[i].baseline,
		};
		alive[i] = true;
	}
	char *report = btc_xasprintf("%s/tune-run.json", opt->work_dir);
	int tasks = opt->tasks, last_round = 0;
	*winner = -1;
	for (int r = 1; r <= opt->rounds; r++) {
		int n_alive = 0;
		for (int i = 0; i < n; i++)
			n_alive += alive[i];
		if (n_alive <= 1 && r > 1)
			break;
		last_round = r;
		if (opt->verbose)
			fprintf(stderr, "tune: round %d: %d schedule%s x %d tasks\n", r, n_alive,
				n_alive == 1 ? "" : "s", tasks);
		double best = INFINITY;
		for (int i = 0; i < n; i++) {
			if (!alive[i])
				continue;
			struct btc_diag quiet;
			btc_diag_init(&quiet, stderr);
			double ms;
			bool ok = btc_tune_run_once(program, i, opt->warmup, tasks, opt->input,
						    report, NULL, true, &ms, &quiet);
			if (btc_interrupted()) {
				free(report);
				free(alive);
				btc_error(d, (struct btc_loc){0}, "tuning interrupted");
				return false;
			}
			entries[i].rounds = r;
			if (!ok) {
				/* A schedule that fails is out; the others go on. */
				alive[i] = false;
				entries[i].ok = false;
				continue;
			}
			entries[i].ok = true;
			entries[i].measured_ms = ms;
			entries[i].tasks = tasks;
			if (ms < best)
				best = ms;
			if (opt->verbose)
				fprintf(stderr, "tune:   %2d %-9s predicted %9.3f ms  measured %9.3f ms\n", i,
					scheds[i].baseline ? "baseline" : "candidate",
					entries[i].predicted_ms, ms);
		}
		/* Racing: drop schedules clearly slower than the best. */
		double keep = pow(opt->keep, 1.0 / r);
		for (int i = 0; i < n; i++)
			if (alive[i] && entries[i].measured_ms > best * keep)
				alive[i] = false;
		tasks *= 2;
	}
	/* The winner comes from the last round: those runs are the longest and
	 * were measured side by side. */
	for (int i = 0; i < n; i++)
		if (entries[i].ok && entries[i].rounds == last_round &&
		    (*winner < 0 || entries[i].measured_ms < entries[*winner].measured_ms))
			*winner = i;
	free(report);
	free(alive);
	if (*winner < 0) {
		btc_error(d, (struct btc_loc){program, 0, 0}, "no schedule ran to a verified result");
		return false;
	}
	return true;
}
