/* The measured outcome of one schedule of a build: its verified runs,
 * their median with its 95 % interval, and whether it failed. Filled by
 * the tuner (driver/tune.h) on the device, or from measurement files
 * copied back from one (report/measurements.h); read by the fit
 * (report/fit.h) and the report. */
#ifndef BTC_REPORT_ENTRY_H
#define BTC_REPORT_ENTRY_H

#include <stdbool.h>

#include "report/result.h"

/* The outcome for one schedule of the build: every verified run's time
 * (tuning and head to head pooled: one figure per schedule) and the
 * median with its 95 % interval. */
struct btc_tune_entry {
	double predicted_ms; /* T_max of the table, 0 when none */
	double *runs_ms;     /* [n_runs] ms per task of each verified run (owned) */
	struct btc_run_times *runs_times; /* [n_runs] the same runs by part
					     (owned; zeroed where none) */
	int n_runs, cap_runs;
	double median_ms;          /* median of runs_ms, NAN if none */
	double ci_lo_ms, ci_hi_ms; /* its 95 % interval (btc_stats_median_ci) */
	bool ci_exact;             /* the interval has 95 % coverage (n_runs >= 6) */
	int tasks, warmup;         /* measured and warm-up tasks of each run */
	int rounds;                /* tuning rounds it ran in */
	bool finalist;             /* in the race to the end of tuning */
	bool baseline;
	bool space_only; /* --exhaustive: measured for the regret, never picked */
	enum btc_run_status status;
	char *error; /* status failed: which schedule, stage, task (owned) */
};

/* Adds one verified run's ms per task to e and updates its median and
 * interval. */
void btc_tune_entry_add(struct btc_tune_entry *e, double ms);

/* The same with the run's times by part: e takes t's arrays and zeroes
 * *t (t NULL: none). */
void btc_tune_entry_add_times(struct btc_tune_entry *e, double ms, struct btc_run_times *t);

/* A copy of e's n_runs run times (caller frees; n_runs >= 1). */
double *btc_tune_entry_runs_copy(const struct btc_tune_entry *e);

/* A deep copy of e's n_runs runs by part (caller frees each with
 * btc_run_times_free, then the array), or NULL when none has any. */
struct btc_run_times *btc_tune_entry_times_copy(const struct btc_tune_entry *e);

/* Frees the runs and error texts of entries[n] (not the array). */
void btc_tune_entries_clear(struct btc_tune_entry *entries, int n);

#endif
