/* The tuner's decision logic (docs/report.md, "Measuring"), free of
 * processes and clocks: the interleaved rounds with screening and racing
 * (btc_tune_rounds), the head to head (btc_tune_h2h_rounds) and what it
 * chooses (btc_tune_h2h_keeps_candidate). The runs and the clock come from
 * a btc_tune_bench: the generated program and CLOCK_MONOTONIC in a job
 * (driver/tune.c), synthetic schedules and a simulated clock in the
 * simulation test (test/driver/suite_tune_sim.c), so that the same code
 * decides in both. */
#ifndef BTC_TUNE_LOOP_H
#define BTC_TUNE_LOOP_H

#include <stdbool.h>

#include "driver/tune.h"

/* The fewest runs with an exact 95 % interval of the median
 * (btc_stats_median_ci): racing and screening aim every finalist at it. */
#define BTC_TUNE_EXACT_RUNS 6

/* Where the runs come from. */
struct btc_tune_bench {
	/* One run of schedule i of warmup + tasks tasks in phase ("tuning",
	 * "head to head"): true with its ms per task in *ms when it verified;
	 * otherwise false with *error (caller frees, NULL when interrupted). */
	bool (*run)(void *arg, int i, int warmup, int tasks, const char *phase, double *ms,
		    char **error);
	double (*now)(void *arg);        /* seconds, monotonic */
	bool (*interrupted)(void *arg); /* a signal asked to stop */
	void *arg;
};

/* The rounds of a tuning over entries[n] (initialised by the caller:
 * predicted_ms, baseline, space_only, finalist true, medians NAN): round 1
 * runs every schedule once in a shuffled order (rng), then, with
 * opt->race, successive halving screens the finalists down to as many as
 * can reach BTC_TUNE_EXACT_RUNS runs within the budget left (docs/report.md,
 * "Screening"), racing drops those whose interval lies above the best's, and
 * rounds repeat until converged, one finalist, the budget or max_rounds.
 * Fills *sum (seed: the caller's), *winner (btc_tune_pick, -1 if none).
 * Returns false when interrupted. */
bool btc_tune_rounds(const struct btc_tune_bench *b, int n, const struct btc_tune_options *opt,
		     bool verbose, struct btc_rng *rng, struct btc_tune_entry *entries,
		     int *winner, struct btc_tune_summary *sum);

/* The head to head of cand and base over entries (btc_tune_head_to_head's
 * rules); *failed as there. Returns true when every run verified. */
bool btc_tune_h2h_rounds(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
			 bool verbose, struct btc_tune_entry *entries, int cand, int base,
			 struct btc_rng *rng, struct btc_tune_h2h *h, int *failed);

/* Whether the head to head's candidate replaces the baseline: when the
 * interval of the ratio lies below 1 (a significant gain); and, with
 * opt->h2h_point, when the head to head ended undecided (budget or round
 * limit, the interval holding 1 and wider than 1 +- ci_rel) with a median
 * ratio below 1: the point estimate, the choice of least expected regret,
 * reported as no significant gain (docs/report.md, "Head to head"). The
 * baseline is kept when the ratio is significantly above 1 or within
 * 1 +- ci_rel (equivalent: the simpler schedule). */
bool btc_tune_h2h_keeps_candidate(const struct btc_tune_h2h *h,
				  const struct btc_tune_options *opt);

#endif
