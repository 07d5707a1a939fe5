/* The autotuner: one verified run of a schedule (btc_tune_run_once), and
 * racing over all of them (btc_tune). */
#include "driver/tune.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/out.h"
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

void btc_tune_entries_clear(struct btc_tune_entry *entries, int n)
{
	for (int i = 0; entries && i < n; i++) {
		free(entries[i].error);
		entries[i].error = NULL;
	}
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

/* The program's last message: the last non-empty line of its stderr, with
 * the "PROGRAM: " prefix removed (caller frees), or NULL. */
static char *last_message(const char *stderr_path, const char *program)
{
	char *text = btc_read_file(stderr_path, NULL);
	if (!text)
		return NULL;
	char *line = NULL;
	for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
		if (strspn(p, " \t\r") < strlen(p))
			line = p;
	char *msg = NULL;
	if (line) {
		size_t n = strlen(program);
		if (!strncmp(line, program, n) && !strncmp(line + n, ": ", 2))
			line += n + 2;
		line[strcspn(line, "\r")] = '\0';
		msg = btc_xstrdup(line);
	}
	free(text);
	return msg;
}

/* "schedule 3 (vulkan:0-1 cpu:2), output of stage 'square' (last, on cpu),
 * tuning: <what the program said>". */
static char *failure_text(const struct btc_tune_run *run, const struct btc_tune_options *opt,
			  int rc, const char *msg)
{
	char *label = run->sched && opt->dev ? btc_plan_schedule_label(&run->sched->s, opt->dev)
					     : btc_xstrdup("?");
	char *where = btc_xstrdup("");
	if (run->sched && opt->app && opt->dev) {
		const struct btc_sched_chunk *last = &run->sched->s.chunks[run->sched->s.n_chunks - 1];
		free(where);
		where = btc_xasprintf(", output of stage '%s' (last, on %s)",
				      opt->app->stages[last->last_stage].name,
				      opt->dev->pus[last->pu].name);
	}
	char *what;
	const char *check = msg ? strstr(msg, "check of task") : NULL;
	if (check) /* "check of task 0 (slot 0) failed: <the app's words>" */
		what = btc_xstrdup(check);
	else if (rc > 128 && rc < 128 + 65)
		what = btc_xasprintf("the program died of signal %d%s%s", rc - 128,
				     msg ? ": " : "", msg ? msg : "");
	else if (rc != 0)
		what = btc_xasprintf("the program exited with status %d%s%s", rc,
				     msg ? ": " : "", msg ? msg : "");
	else
		what = btc_xasprintf("the program's report does not say it verified");
	char *text = btc_xasprintf("schedule %d (%s)%s, %s: %s", run->index, label, where,
				   run->phase ? run->phase : "run", what);
	free(label);
	free(where);
	free(what);
	return text;
}

bool btc_tune_run_once(const struct btc_tune_run *run, const struct btc_tune_options *opt,
		       double *ms, char **error)
{
	char sched[16], ntasks[16], nwarm[16];
	snprintf(sched, sizeof(sched), "%d", run->index);
	snprintf(ntasks, sizeof(ntasks), "%d", run->warmup + run->tasks);
	snprintf(nwarm, sizeof(nwarm), "%d", run->warmup);
	char *argv[16];
	int a = 0;
	argv[a++] = (char *)run->program;
	argv[a++] = "--schedule";
	argv[a++] = sched;
	argv[a++] = "--tasks";
	argv[a++] = ntasks;
	argv[a++] = "--warmup";
	argv[a++] = nwarm;
	argv[a++] = "--report";
	argv[a++] = (char *)run->report;
	if (run->quiet)
		argv[a++] = "--quiet";
	if (run->input) {
		argv[a++] = "--input";
		argv[a++] = (char *)run->input;
	}
	if (run->trace) {
		argv[a++] = "--trace";
		argv[a++] = (char *)run->trace;
	}
	argv[a] = NULL;
	*error = NULL;
	remove(run->report);
	/* stderr to a file beside the report: its last line names the task
	 * whose check failed. */
	char *err_path = btc_xasprintf("%s.stderr", run->report);
	struct btc_run_io io = {run->quiet ? "/dev/null" : NULL, err_path, false};
	int rc = btc_run_io(argv, &io);
	if (btc_interrupted()) {
		remove(err_path);
		free(err_path);
		return false;
	}
	char *text = btc_read_file(run->report, NULL);
	cJSON *j = text ? cJSON_Parse(text) : NULL;
	free(text);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "measured_ms_per_task");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verified");
	bool ok = rc == 0 && cJSON_IsNumber(m) && cJSON_IsTrue(v) && m->valuedouble > 0;
	double measured = ok ? m->valuedouble : NAN;
	cJSON_Delete(j);
	char *msg = last_message(err_path, run->program);
	if (ok) {
		*ms = measured;
		/* A verified run's warnings, for the runs people watch. */
		char *all = run->quiet ? NULL : btc_read_file(err_path, NULL);
		if (all)
			fputs(all, stderr);
		free(all);
	} else {
		*error = failure_text(run, opt, rc, msg);
	}
	free(msg);
	remove(err_path);
	free(err_path);
	return ok;
}

bool btc_tune(const char *program, const struct btc_plan_schedule *scheds, int n,
	      const struct btc_tune_options *opt, struct btc_tune_entry *entries,
	      int *winner, struct btc_diag *d)
{
	bool *alive = btc_xcalloc((size_t)n, sizeof(bool));
	for (int i = 0; i < n; i++) {
		entries[i] = (struct btc_tune_entry){
			.predicted_ms = scheds[i].predicted ? scheds[i].s.period_ms : 0,
			.measured_ms = NAN,
			.baseline = scheds[i].baseline,
		};
		alive[i] = true;
	}
	char *report = btc_xasprintf("%s/tune-run.json", opt->work_dir);
	int tasks = opt->tasks;
	bool interrupted = false;
	*winner = -1;
	for (int r = 1; r <= opt->rounds && !interrupted; r++) {
		int n_alive = 0;
		for (int i = 0; i < n; i++)
			n_alive += alive[i];
		if (n_alive == 0 || (n_alive == 1 && r > 1))
			break;
		if (opt->verbose)
			fprintf(stderr, "tune: round %d: %d schedule%s x %d tasks\n", r, n_alive,
				n_alive == 1 ? "" : "s", tasks);
		double best = INFINITY;
		for (int i = 0; i < n; i++) {
			if (!alive[i])
				continue;
			struct btc_tune_run run = {
				.program = program, .index = i, .sched = &scheds[i],
				.warmup = opt->warmup, .tasks = tasks, .input = opt->input,
				.report = report, .quiet = true, .phase = "tuning",
			};
			double ms;
			char *error;
			bool ok = btc_tune_run_once(&run, opt, &ms, &error);
			if (btc_interrupted()) {
				interrupted = true;
				break;
			}
			entries[i].rounds = r;
			if (!ok) {
				/* Out of the race; the caller decides what it means. */
				alive[i] = false;
				entries[i].status = BTC_RUN_FAILED;
				entries[i].measured_ms = NAN;
				entries[i].error = error;
				if (opt->verbose)
					fprintf(stderr, "tune:   %2d %-9s predicted %9.3f ms  FAILED\n", i,
						scheds[i].baseline ? "baseline" : "candidate",
						entries[i].predicted_ms);
				continue;
			}
			entries[i].status = BTC_RUN_VERIFIED;
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
	/* The winner comes from the latest round with a verified run: those
	 * runs are the longest and were measured side by side. */
	for (int i = 0; i < n && !interrupted; i++) {
		const struct btc_tune_entry *e = &entries[i], *w = *winner >= 0 ? &entries[*winner] : NULL;
		if (e->status == BTC_RUN_VERIFIED &&
		    (!w || e->rounds > w->rounds ||
		     (e->rounds == w->rounds && e->measured_ms < w->measured_ms)))
			*winner = i;
	}
	remove(report);
	free(report);
	free(alive);
	if (interrupted) {
		btc_error(d, (struct btc_loc){0}, "tuning interrupted");
		return false;
	}
	return *winner >= 0;
}
