/* The autotuner: one verified run of a schedule (btc_tune_run_once),
 * and the tuning (btc_tune) and head to head (btc_tune_head_to_head) on
 * the generated program, whose rules are driver/tune_loop.c's;
 * docs/report.md, "Measuring". */
#include "driver/tune.h"
#include "driver/tune_loop.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/json.h"
#include "util/fsafe.h"
#include "util/infile.h"
#include "util/out.h"
#include "util/proc.h"
#include "util/runstatus.h"
#include "util/str.h"

void btc_tune_options_init(struct btc_tune_options *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = 4;
	o->tasks = 24;
	o->warmup_s = BTC_COLOCATE_WARMUP_S;
	o->min_rounds = 3;
	o->max_rounds = 30;
	o->h2h_min_rounds = 6;
	o->h2h_max_rounds = 30;
	o->budget_s = 60;
	o->budget_cap = BTC_TUNE_BUDGET_CAP;
	o->ci_rel = 0.03;
	o->speedup_precision = BTC_TUNE_SPEEDUP_PRECISION;
	o->race = true;
	o->screen = true;
	o->h2h_point = true;
	o->playoff_pooled = true;
	o->timeout_factor = BTC_RUN_TIMEOUT_FACTOR;
}

double btc_tune_run_timeout(const struct btc_tune_run *run, const struct btc_tune_options *opt)
{
	if (!(opt->timeout_factor > 0))
		return 0;
	double predicted_s = 0;
	if (run->sched && run->sched->predicted && run->sched->s.tmax_ms > 0)
		/* Pipeline fill (one task per chunk) plus every task at T_max. */
		predicted_s = run->sched->s.tmax_ms *
			      (run->warmup + run->tasks + run->sched->s.n_chunks) / 1000.0;
	return opt->timeout_factor * (BTC_RUN_STARTUP_S + predicted_s);
}

unsigned btc_tune_seed(const struct btc_tune_options *opt)
{
	if (opt->seed)
		return opt->seed;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct btc_rng r;
	btc_rng_seed(&r, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	unsigned seed = (unsigned)btc_rng_next(&r);
	return seed ? seed : 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *btc_tune_last_message(const char *stderr_path, const char *program)
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

/* The failure the program wrote with --failure (docs/report.md, "The
 * program's report and failure"): its "kind" ("BTRT_E_CHECK", ...) and
 * "message", or false when there is none (the program died before
 * writing it). */
static bool read_failure(const char *path, char **kind, char **message, char **stage, char **pu)
{
	cJSON *j = btc_read_json(path, NULL, NULL);
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "kind");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
	/* A kernel's crash, exit() or a stop that hung (the runtime's guard,
	 * docs/runtime.md): the stage and PU that ran it. */
	const cJSON *sn = cJSON_GetObjectItemCaseSensitive(j, "stage_name");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pu");
	bool ok = cJSON_IsString(k) && cJSON_IsString(m);
	if (ok) {
		*kind = btc_xstrdup(k->valuestring);
		*message = btc_xstrdup(m->valuestring);
		if (cJSON_IsString(sn) && sn->valuestring[0] && cJSON_IsString(p) && p->valuestring[0]) {
			*stage = btc_xstrdup(sn->valuestring);
			*pu = btc_xstrdup(p->valuestring);
		}
	}
	cJSON_Delete(j);
	return ok;
}

/* "schedule 3 (vulkan:0-1 cpu:2), output of stage 'square' (last, on cpu),
 * tuning: <what the program said>": a failed output check (the kind
 * BTRT_E_CHECK in the program's --failure file) quotes its message,
 * anything else the exit status and the program's last line. */
static char *failure_text(const struct btc_tune_run *run, const struct btc_tune_options *opt,
			  int rc, const char *msg, double timed_out_s, int wrong_schedule,
			  bool no_report, const char *failure_path, const char *ran)
{
	char *label = run->sched && run->dev ? btc_plan_schedule_label(&run->sched->s, run->dev)
					     : btc_xstrdup("?");
	char *where = btc_xstrdup("");
	if (run->sched && run->app && run->dev) {
		const struct btc_sched_chunk *last =
			&run->sched->s.chunks[run->sched->s.n_chunks - 1];
		free(where);
		where = btc_xasprintf(", output of stage '%s' (last, on %s)",
				      run->app->stages[last->last_stage].name,
				      run->dev->pus[last->pu].name);
	}
	char *what, *kind = NULL, *message = NULL, *stage = NULL, *pu = NULL;
	bool check = read_failure(failure_path, &kind, &message, &stage, &pu) &&
		     !strcmp(kind, "BTRT_E_CHECK");
	if (stage && timed_out_s <= 0) { /* the program named the kernel: not the last stage */
		free(where);
		where = btc_xasprintf(", stage '%s' on %s", stage, pu);
	} else if (ran && timed_out_s <= 0 && !check) { /* a kernel's _exit(): the run status */
		free(where);
		where = btc_xstrdup("");
	}
	if (timed_out_s > 0)
		what = btc_xasprintf("the program ran past its time limit of %.1f s "
				     "(--run-timeout-factor %g x (%g s + the predicted time)) and "
				     "was killed%s%s",
				     timed_out_s, opt->timeout_factor, BTC_RUN_STARTUP_S,
				     msg ? "; its last words: " : "", msg ? msg : "");
	else if (wrong_schedule >= 0)
		what = btc_xasprintf("the program's report is of schedule %d, not of the one run",
				     wrong_schedule);
	else if (check) /* "check of task 0 (slot 0) failed: <the app's words>" */
		what = btc_xstrdup(message);
	else if (!stage && ran) /* "stage 1 'add' on PU 'cpu' (task 3) ended the process
				   with _exit(7) or exit_group(7) during the run, after 3 tasks" */
		what = btc_xstrdup(ran);
	else if (stage) /* "stage 1 'add' on PU 'cpu' (task 3) crashed with SIGSEGV" */
		what = btc_xasprintf("%s (%s %d)", message, rc > 128 ? "signal" : "exit status",
				     rc > 128 ? rc - 128 : rc);
	else if (rc > 128 && rc < 128 + 65)
		what = btc_xasprintf("the program died of signal %d (SIG%s)%s%s", rc - 128,
				     sigabbrev_np(rc - 128) ? sigabbrev_np(rc - 128) : "?",
				     msg ? ": " : "", msg ? msg : "");
	else if (rc != 0)
		what = btc_xasprintf("the program exited with status %d%s%s", rc, msg ? ": " : "",
				     msg ? msg : "");
	else
		what = no_report ? btc_xasprintf("the program exited with status 0 without writing "
						 "its report (a kernel that calls exit()?)%s%s",
						 msg ? ": " : "", msg ? msg : "")
				 : btc_xasprintf("the program's report does not say it verified");
	char *text = btc_xasprintf("schedule %d (%s)%s, %s: %s", run->index, label, where,
				   run->phase ? run->phase : "run", what);
	free(kind);
	free(message);
	free(stage);
	free(pu);
	free(label);
	free(where);
	free(what);
	return text;
}

/* The run's times by part from the program's report r into *t (zeroed
 * first): `chunks[]`' `mean_ms`, `median_ms` and `steady_mean_ms` in
 * order, `stages[]`' by `stage` (NAN where a stage did not run), `io`'s
 * load and check means, medians and steady means (0 where absent). A figure that is not a positive number
 * reads as none. */
static void read_times(const cJSON *r, struct btc_run_times *t)
{
	*t = (struct btc_run_times){0};
	const cJSON *chunks = cJSON_GetObjectItemCaseSensitive(r, "chunks"), *e;
	const cJSON *stages = cJSON_GetObjectItemCaseSensitive(r, "stages");
	const cJSON *io = cJSON_GetObjectItemCaseSensitive(r, "io");
	int nc = cJSON_IsArray(chunks) ? cJSON_GetArraySize(chunks) : 0, ns = 0;
	if (!cJSON_IsArray(stages))
		stages = NULL; /* cJSON_ArrayForEach walks nothing */
	cJSON_ArrayForEach(e, stages)
	{
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "stage");
		if (cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble < 1e6)
			ns = (int)fmax(ns, s->valuedouble + 1);
	}
	if (nc > 0) {
		t->n_chunks = nc;
		t->chunk_ms = btc_xcalloc((size_t)nc, sizeof(double));
		t->chunk_median_ms = btc_xcalloc((size_t)nc, sizeof(double));
		t->chunk_steady_ms = btc_xcalloc((size_t)nc, sizeof(double));
		for (int c = 0; c < nc; c++) {
			const cJSON *k = cJSON_GetArrayItem(chunks, c);
			t->chunk_ms[c] = btc_json_positive(k, "mean_ms", NAN);
			t->chunk_median_ms[c] = btc_json_positive(k, "median_ms", NAN);
			t->chunk_steady_ms[c] = btc_json_positive(k, "steady_mean_ms", NAN);
		}
	}
	if (ns > 0) {
		t->n_stages = ns;
		t->stage_ms = btc_xcalloc((size_t)ns, sizeof(double));
		t->stage_median_ms = btc_xcalloc((size_t)ns, sizeof(double));
		t->stage_steady_ms = btc_xcalloc((size_t)ns, sizeof(double));
		for (int i = 0; i < ns; i++)
			t->stage_ms[i] = t->stage_median_ms[i] = t->stage_steady_ms[i] = NAN;
		cJSON_ArrayForEach(e, stages)
		{
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "stage");
			if (!cJSON_IsNumber(s) || !(s->valuedouble >= 0) || s->valuedouble >= ns)
				continue;
			int i = (int)s->valuedouble;
			t->stage_ms[i] = btc_json_positive(e, "mean_ms", NAN);
			t->stage_median_ms[i] = btc_json_positive(e, "median_ms", NAN);
			t->stage_steady_ms[i] = btc_json_positive(e, "steady_mean_ms", NAN);
		}
	}
	t->load_ms = btc_json_positive(io, "load_mean_ms", 0);
	t->check_ms = btc_json_positive(io, "check_mean_ms", 0);
	t->load_median_ms = btc_json_positive(io, "load_median_ms", 0);
	t->check_median_ms = btc_json_positive(io, "check_median_ms", 0);
	t->load_steady_ms = btc_json_positive(io, "load_steady_mean_ms", 0);
	t->check_steady_ms = btc_json_positive(io, "check_steady_mean_ms", 0);
}

bool btc_tune_run_once(const struct btc_tune_run *run, const struct btc_tune_options *opt,
		       double *ms, char **error)
{
	char sched[16], ntasks[16], nwarm[16];
	snprintf(sched, sizeof(sched), "%d", run->index);
	snprintf(ntasks, sizeof(ntasks), "%d", run->warmup + run->tasks);
	snprintf(nwarm, sizeof(nwarm), "%d", run->warmup);
	char *failure_path = btc_xasprintf("%s.failure.json", run->report);
	char *argv[22];
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
	argv[a++] = "--failure";
	argv[a++] = failure_path;
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
	if (run->adapt)
		argv[a++] = "--adapt";
	argv[a] = NULL;
	*error = NULL;
	remove(run->report);
	remove(failure_path);
	/* stderr to a file beside the report: its last line is quoted when
	 * the run fails other than by its output check (--failure). */
	char *err_path = btc_xasprintf("%s.stderr", run->report);
	struct btc_run_io io = {run->quiet ? "/dev/null" : NULL, err_path, false};
	double limit = btc_tune_run_timeout(run, opt);
	bool timed_out;
	struct btc_runstatus rs;
	btc_runstatus_open(&rs);
	int rc = btc_run_bounded(argv, &io, limit, &timed_out);
	char *ran = btc_runstatus_text(&rs, rc);
	btc_runstatus_close(&rs);
	if (btc_interrupted()) {
		free(ran);
		remove(err_path);
		free(err_path);
		remove(failure_path);
		free(failure_path);
		return false;
	}
	cJSON *j = btc_read_json(run->report, NULL, NULL);
	bool no_report = !j && errno != EBADMSG; /* not written, not just not JSON */
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "measured_ms_per_task");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verified");
	const cJSON *si = cJSON_GetObjectItemCaseSensitive(j, "schedule_index");
	/* A report of another schedule (a stale or foreign file) is no result. */
	int wrong = cJSON_IsNumber(si) && (int)si->valuedouble != run->index ? (int)si->valuedouble
									      : -1;
	bool ok = rc == 0 && !timed_out && wrong < 0 && cJSON_IsNumber(m) && cJSON_IsTrue(v) &&
		  m->valuedouble > 0 && !ran;
	double measured = ok ? m->valuedouble : NAN;
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(j, "warmup");
	if (run->warmup_run) /* the program's, at least the one asked */
		*run->warmup_run = ok && cJSON_IsNumber(w) && w->valuedouble >= run->warmup &&
					   w->valuedouble <= INT_MAX
				       ? (int)w->valuedouble
				       : run->warmup;
	if (ok && run->times)
		read_times(j, run->times);
	cJSON_Delete(j);
	char *msg = btc_tune_last_message(err_path, run->program);
	if (ok) {
		*ms = measured;
		/* A verified run's warnings, for the runs people watch. */
		char *all = run->quiet ? NULL : btc_read_file(err_path, NULL);
		if (all)
			fputs(all, stderr);
		free(all);
	} else {
		*error = failure_text(run, opt, rc, msg, timed_out ? limit : 0, wrong, no_report,
				      failure_path, ran);
		/* the program's temporary report or trace, left where it
		 * ended with no handler run (_exit, SIGKILL) */
		char *dir = btc_dir_name(run->report);
		btc_remove_stale_tmp(dir);
		free(dir);
	}
	free(ran);
	free(msg);
	remove(err_path);
	free(err_path);
	remove(failure_path);
	free(failure_path);
	return ok;
}

/* The bench of a job (driver/tune_loop.h): runs of the generated program,
 * CLOCK_MONOTONIC, the job's signals. */
struct prog_bench {
	const char *program, *report;
	const struct btc_plan_schedule *scheds;
	const struct btc_tune_options *opt;
	const struct btc_tune_ctx *ctx;
};

static bool prog_run(void *arg, int i, int warmup, int tasks, const char *phase, double *ms,
		     struct btc_run_times *times, char **error)
{
	const struct prog_bench *p = arg;
	struct btc_tune_run run = {
		.program = p->program,
		.index = i,
		.sched = &p->scheds[i],
		.warmup = warmup,
		.tasks = tasks,
		.input = p->ctx->input,
		.report = p->report,
		.quiet = true,
		.phase = phase,
		.app = p->ctx->app,
		.dev = p->ctx->dev,
		.times = times,
	};
	return btc_tune_run_once(&run, p->opt, ms, error);
}

static double prog_now(void *arg)
{
	(void)arg;
	return now_s();
}

static bool prog_interrupted(void *arg)
{
	(void)arg;
	return btc_interrupted();
}

/* The aggregate cpu line of /proc/stat: all and steal jiffies; false
 * where it cannot be read (not Linux). */
static bool cpu_jiffies(double *total, double *steal)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return false;
	unsigned long long v[8];
	int k = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		       &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (k != 8)
		return false;
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += (double)v[i];
	*steal = (double)v[7];
	return true;
}

int btc_tune_io_means(const cJSON *io, double *load_ms, double *check_ms)
{
	static const char *const keys[2][2] = {{"load_steady_mean_ms", "check_steady_mean_ms"},
					       {"load_mean_ms", "check_mean_ms"}};
	for (int k = 0; k < 2; k++) {
		double l = btc_json_num(io, keys[k][0]), c = btc_json_num(io, keys[k][1]);
		if (isfinite(l) && isfinite(c) && l >= 0 && c >= 0) {
			*load_ms = l;
			*check_ms = c;
			return 2 - k;
		}
	}
	return 0;
}

struct btc_tune_entry btc_tune_entry_start(const struct btc_plan_schedule *g)
{
	return (struct btc_tune_entry){
		.predicted_ms = g->predicted ? g->s.period_ms : 0,
		.median_ms = NAN,
		.ci_lo_ms = NAN,
		.ci_hi_ms = NAN,
		.baseline = g->baseline,
		.space_only = g->space_only,
		.finalist = true,
	};
}

bool btc_tune(const char *program, const struct btc_plan_schedule *scheds, int n,
	      const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
	      struct btc_tune_entry *entries, int *winner,
	      struct btc_tune_summary *sum, struct btc_diag *d)
{
	for (int i = 0; i < n; i++)
		entries[i] = btc_tune_entry_start(&scheds[i]);
	*sum = (struct btc_tune_summary){.seed = ctx->seed ? ctx->seed : btc_tune_seed(opt),
					 .stop = "max rounds"};
	struct btc_rng rng;
	btc_rng_seed(&rng, sum->seed);
	if (ctx->verbose)
		fprintf(stderr,
			"tune: seed %u (--seed %u repeats these orders), %d+%d tasks per run, "
			"budget %.0f s, at most %d rounds\n",
			sum->seed, sum->seed, opt->warmup, opt->tasks, opt->budget_s,
			opt->max_rounds);
	/* Per job (pid): never a file another btc writes. */
	char *report = btc_xasprintf("%s/tune-run.tmp.%ld", ctx->work_dir, (long)getpid());
	struct prog_bench pb = {program, report, scheds, opt, ctx};
	struct btc_tune_bench bench = {prog_run, prog_now, prog_interrupted, &pb};
	double tot0, st0, tot1, st1;
	bool stat = cpu_jiffies(&tot0, &st0);
	bool interrupted = !btc_tune_rounds(&bench, n, opt, ctx->verbose, &rng, entries, winner, sum);
	sum->cpu_steal = stat && cpu_jiffies(&tot1, &st1) && tot1 > tot0
				 ? (st1 - st0) / (tot1 - tot0) : NAN;
	if (!interrupted && sum->cpu_steal >= BTC_TUNE_STEAL_NOISY)
		btc_warning(d, (struct btc_loc){0},
			    "noisy machine: CPU steal %.1f %% during tuning (/proc/stat): its "
			    "medians may not reproduce on another lease (docs/report.md, \"A noisy "
			    "lease\")",
			    100 * sum->cpu_steal);
	if (ctx->verbose && !interrupted) {
		fprintf(stderr,
			"tune: %d rounds in %.1f s (%s, %d screened out, CPU steal %.1f %%); median "
			"[95 %% interval] per schedule:\n",
			sum->rounds, sum->elapsed_s, sum->stop, sum->screened,
			isnan(sum->cpu_steal) ? 0.0 : 100 * sum->cpu_steal);
		for (int i = 0; i < n; i++) {
			const struct btc_tune_entry *e = &entries[i];
			if (e->status != BTC_RUN_VERIFIED)
				continue;
			char ci[64] = "[n/a]";
			if (!isnan(e->ci_lo_ms))
				snprintf(ci, sizeof(ci), "[%.3f, %.3f]", e->ci_lo_ms, e->ci_hi_ms);
			fprintf(stderr,
				"tune:   %2d %-9s predicted %9.3f ms  measured %9.3f ms %s "
				"%2d runs%s%s\n",
				i, e->baseline ? "baseline" : "candidate", e->predicted_ms,
				e->median_ms, ci, e->n_runs, e->finalist ? "  finalist" : "",
				i == *winner ? "  <- winner" : "");
		}
	}
	remove(report);
	free(report);
	if (interrupted) {
		btc_error(d, (struct btc_loc){0}, "tuning interrupted");
		return false;
	}
	return *winner >= 0;
}

/* The bench of a head-to-head phase: the program's runs, reporting to a
 * temporary file in the job's directory (removed by h2h_bench_close). */
struct h2h_bench {
	char *report; /* owned */
	struct prog_bench pb;
	struct btc_tune_bench b;
};

static void h2h_bench_open(struct h2h_bench *hb, const char *program,
			   const struct btc_plan_schedule *scheds,
			   const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx)
{
	hb->report = btc_xasprintf("%s/h2h-run.tmp.%ld", ctx->work_dir, (long)getpid());
	hb->pb = (struct prog_bench){program, hb->report, scheds, opt, ctx};
	hb->b = (struct btc_tune_bench){prog_run, prog_now, prog_interrupted, &hb->pb};
}

static void h2h_bench_close(struct h2h_bench *hb)
{
	remove(hb->report);
	free(hb->report);
}

bool btc_tune_head_to_head(const char *program, const struct btc_plan_schedule *scheds,
			   const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
			   struct btc_tune_entry *entries,
			   int cand, int base, struct btc_rng *rng, struct btc_tune_h2h *h,
			   int *failed)
{
	struct h2h_bench hb;
	h2h_bench_open(&hb, program, scheds, opt, ctx);
	bool ok = btc_tune_h2h_rounds(&hb.b, opt, ctx->verbose, entries, cand, base, rng, h,
				      failed);
	h2h_bench_close(&hb);
	return ok;
}

bool btc_tune_playoff(const char *program, const struct btc_plan_schedule *scheds,
		      const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
		      struct btc_tune_entry *entries, int n, struct btc_rng *rng,
		      struct btc_tune_playoff *p, int *failed)
{
	struct h2h_bench hb;
	h2h_bench_open(&hb, program, scheds, opt, ctx);
	bool ok = btc_tune_playoff_rounds(&hb.b, opt, ctx->verbose, entries, n, rng, p, failed);
	h2h_bench_close(&hb);
	return ok;
}

bool btc_tune_rematch(const char *program, const struct btc_plan_schedule *scheds,
		      const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
		      struct btc_tune_entry *entries, int winner, int contender,
		      struct btc_rng *rng, struct btc_tune_playoff *p, int *failed)
{
	struct h2h_bench hb;
	h2h_bench_open(&hb, program, scheds, opt, ctx);
	bool ok = btc_tune_rematch_rounds(&hb.b, opt, ctx->verbose, entries, winner, contender, rng,
					  p, failed);
	h2h_bench_close(&hb);
	return ok;
}

/* The regret round's bench: contender i runs schedule index[i]. */
struct pair_bench {
	struct prog_bench pb;
	int index[2];
};

static bool pair_run(void *arg, int i, int warmup, int tasks, const char *phase, double *ms,
		     struct btc_run_times *times, char **error)
{
	struct pair_bench *p = arg;
	return prog_run(&p->pb, p->index[i], warmup, tasks, phase, ms, times, error);
}

bool btc_tune_regret_round(const char *program, const struct btc_plan_schedule *scheds, int chosen,
			   int best, const struct btc_tune_entry *entries,
			   const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
			   struct btc_rng *rng, struct btc_tune_h2h *h, int *failed, char **error)
{
	char *report = btc_xasprintf("%s/regret-round.tmp.%ld", ctx->work_dir, (long)getpid());
	struct pair_bench pb = {{program, report, scheds, opt, ctx}, {chosen, best}};
	struct btc_tune_bench b = {pair_run, prog_now, prog_interrupted, &pb};
	struct btc_tune_entry e[2] = {
		{.tasks = entries[chosen].tasks, .warmup = entries[chosen].warmup},
		{.tasks = entries[best].tasks, .warmup = entries[best].warmup}};
	struct btc_tune_options o = btc_tune_playoff_options(opt);
	int f;
	bool ok = btc_tune_h2h_rounds(&b, &o, ctx->verbose, e, 0, 1, rng, h, &f);
	*failed = f < 0 ? -1 : pb.index[f];
	*error = NULL;
	if (f >= 0 && e[f].error) {
		*error = e[f].error;
		e[f].error = NULL;
	}
	btc_tune_entries_clear(e, 2);
	remove(report);
	free(report);
	return ok;
}

/* The io round's bench: contender 0 runs the chosen schedule in the
 * program with the new farms, contender 1 in the program as built. */
struct io_round_bench {
	struct prog_bench pb[2];
	int index;
};

static bool io_round_run(void *arg, int i, int warmup, int tasks, const char *phase, double *ms,
			 struct btc_run_times *times, char **error)
{
	struct io_round_bench *p = arg;
	return prog_run(&p->pb[i], p->index, warmup, tasks, phase, ms, times, error);
}

bool btc_tune_io_round(const char *program, const char *built,
		       const struct btc_plan_schedule *scheds, int chosen,
		       const struct btc_tune_entry *entry, const struct btc_tune_options *opt,
		       const struct btc_tune_ctx *ctx, struct btc_rng *rng, struct btc_tune_h2h *h)
{
	char *report = btc_xasprintf("%s/io-round.tmp.%ld", ctx->work_dir, (long)getpid());
	struct io_round_bench ib = {
		{{program, report, scheds, opt, ctx}, {built, report, scheds, opt, ctx}}, chosen};
	struct btc_tune_bench b = {io_round_run, prog_now, prog_interrupted, &ib};
	struct btc_tune_entry e[2] = {{.tasks = entry->tasks, .warmup = entry->warmup},
				      {.tasks = entry->tasks, .warmup = entry->warmup}};
	struct btc_tune_options o = btc_tune_playoff_options(opt);
	int failed;
	bool ok = btc_tune_h2h_rounds(&b, &o, ctx->verbose, e, 0, 1, rng, h, &failed);
	if (!ok && failed >= 0 && e[failed].error)
		fprintf(stderr, "io round: %s\n", e[failed].error);
	btc_tune_entries_clear(e, 2);
	remove(report);
	free(report);
	return ok;
}
