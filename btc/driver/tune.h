/* The autotuner (BetterTogether level 3): run the candidate schedules of a
 * multi-schedule build on the device, measure steady-state time per task,
 * keep the fastest. Racing: every schedule gets a short run; those clearly
 * slower than the best so far drop out; the rest get longer runs. A
 * schedule whose run fails (crash, output check) is out, and why is kept
 * with it: the caller decides whether that fails the job. */
#ifndef BTC_TUNE_H
#define BTC_TUNE_H

#include <stdbool.h>

#include "util/diag.h"
#include "sched/plan.h"
#include "driver/result.h"

struct btc_tune_options {
	int warmup;           /* warm-up tasks per run, excluded (default 4) */
	int tasks;            /* measured tasks in round 1; doubles each round (default 12) */
	int rounds;           /* racing rounds (default 3) */
	double keep;          /* round r keeps schedules within keep^(1/r) of the
				 best (default 1.30: 30 %, then 14 %, then 9 %) */
	const char *input;    /* --input for the program, or NULL */
	const char *work_dir; /* where per-run reports and stderr logs go */
	const struct btc_app *app;       /* for stage names in errors, or NULL */
	const struct btc_device *dev;    /* for schedule labels in errors, or NULL */
	bool verbose;
	unsigned seed;        /* --seed: random seed of the tuner, 0 by default */
};

void btc_tune_options_init(struct btc_tune_options *o);

/* The outcome for one schedule of the build. */
struct btc_tune_entry {
	double predicted_ms;  /* T_max of the table, 0 when none */
	double measured_ms;   /* steady-state ms per task of its last run, NAN if none */
	int tasks;            /* measured tasks of that run */
	int rounds;           /* rounds it took part in */
	bool baseline;
	enum btc_run_status status;
	char *error;          /* status failed: which schedule, stage, task (owned) */
};

/* Frees the error texts of entries[n] (not the array). */
void btc_tune_entries_clear(struct btc_tune_entry *entries, int n);

/* Tunes the n schedules of `program` (a generated APP-pipeline). entries:
 * [n], filled (clear them with btc_tune_entries_clear). *winner: index of
 * the fastest verified schedule of the last round, -1 if none. Failed
 * schedules are not reported here (entries[i].error says why). Returns
 * false when interrupted (reported) and when no schedule verified (not
 * reported: the caller names the failures). */
bool btc_tune(const char *program, const struct btc_plan_schedule *scheds, int n,
	      const struct btc_tune_options *opt, struct btc_tune_entry *entries,
	      int *winner, struct btc_diag *d);

/* Pearson correlation of x and y (n values); NAN when undefined. */
double btc_pearson(const double *x, const double *y, int n);

/* One run of `program --schedule index`. */
struct btc_tune_run {
	const char *program;
	int index;
	const struct btc_plan_schedule *sched; /* for the error text, or NULL */
	int warmup, tasks;
	const char *input;    /* or NULL */
	const char *report;   /* the program's report JSON (rewritten) */
	const char *trace;    /* Perfetto trace to write, or NULL */
	bool quiet;           /* the program's stdout to /dev/null */
	const char *phase;    /* "tuning", "head to head", "final run": for errors */
};

/* Runs it once and reads its JSON report. Returns true when it ran and
 * verified, with the steady-state ms per task in *ms. Otherwise, unless
 * interrupted, *error (caller frees) says which schedule failed where: the
 * schedule's index and label, the stage after which the output is checked,
 * and the program's own message (which task, which check). */
bool btc_tune_run_once(const struct btc_tune_run *run, const struct btc_tune_options *opt,
		       double *ms, char **error);

#endif
