/* The autotuner (BetterTogether level 3): run the candidate schedules of a
 * multi-schedule build on the device, measure steady-state time per task,
 * keep the fastest. Racing: every schedule gets a short run; those clearly
 * slower than the best so far drop out; the rest get longer runs. */
#ifndef BTC_TUNE_H
#define BTC_TUNE_H

#include <stdbool.h>

#include "util/diag.h"
#include "sched/plan.h"

struct btc_tune_options {
	int warmup;           /* warm-up tasks per run, excluded (default 4) */
	int tasks;            /* measured tasks in round 1; doubles each round (default 12) */
	int rounds;           /* racing rounds (default 3) */
	double keep;          /* round r keeps schedules within keep^(1/r) of the
				 best (default 1.30: 30 %, then 14 %, then 9 %) */
	const char *input;    /* --input for the program, or NULL */
	const char *work_dir; /* where per-run reports go */
	bool verbose;
	unsigned seed;        /* --seed: random seed of the tuner, 0 by default */
};

void btc_tune_options_init(struct btc_tune_options *o);

/* The outcome for one schedule of the build. */
struct btc_tune_entry {
	double predicted_ms;  /* T_max of the table, 0 when none */
	double measured_ms;   /* steady-state ms per task of its last run */
	int tasks;            /* measured tasks of that run */
	int rounds;           /* rounds it took part in */
	bool baseline;
	bool ok;              /* ran and verified */
};

/* Tunes the n schedules of `program` (a generated APP-pipeline). entries:
 * [n], filled. *winner: index of the fastest verified schedule. Returns
 * false (reported) when no schedule ran, or when interrupted. */
bool btc_tune(const char *program, const struct btc_plan_schedule *scheds, int n,
	      const struct btc_tune_options *opt, struct btc_tune_entry *entries,
	      int *winner, struct btc_diag *d);

/* Pearson correlation of x and y (n values); NAN when undefined. */
double btc_pearson(const double *x, const double *y, int n);

/* Runs `program --schedule index ...` once and reads its JSON report:
 * steady-state ms per task into *ms and whether it verified. */
bool btc_tune_run_once(const char *program, int index, int warmup, int tasks,
		       const char *input, const char *report, const char *trace,
		       bool quiet, double *ms, struct btc_diag *d);

#endif
