/* The tuner's decision logic (docs/report.md, "Measuring"), free of
 * processes and clocks: the interleaved rounds with screening and racing
 * (btc_tune_rounds), the playoff (btc_tune_playoff_rounds), the head to
 * head (btc_tune_h2h_rounds) and what it
 * chooses (btc_tune_h2h_keeps_candidate). The runs and the clock come from
 * a btc_tune_bench: the generated program and CLOCK_MONOTONIC in a job
 * (driver/tune.c), synthetic schedules and a simulated clock in the
 * simulation test (test/driver/suite_tune_sim.c), so that the same code
 * decides in both. */
#ifndef BTC_TUNE_LOOP_H
#define BTC_TUNE_LOOP_H

#include <stdbool.h>
#include <stdio.h>

#include "driver/tune.h"

/* The fewest runs with an exact 95 % interval of the median
 * (btc_stats_median_ci): racing and screening aim every finalist at it. */
#define BTC_TUNE_EXACT_RUNS 6

/* Where the runs come from. */
struct btc_tune_bench {
	/* One run of schedule i of warmup + tasks tasks in phase ("tuning",
	 * "head to head"): true with its ms per task in *ms when it verified,
	 * and its times by part in *times (zeroed by the caller, who owns
	 * what is put there; left zero where the bench has none);
	 * otherwise false with *error (caller frees, NULL when interrupted). */
	bool (*run)(void *arg, int i, int warmup, int tasks, const char *phase, double *ms,
		    struct btc_run_times *times, char **error);
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
 * rules): rounds until decided after btc_tune_need_rounds rounds and, with
 * opt->speedup_precision p > 0, the ratio's interval within its median x
 * (1 +- p); or the budget or h2h_max_rounds. *failed as there. Returns
 * true when every run verified. */
bool btc_tune_h2h_rounds(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
			 bool verbose, struct btc_tune_entry *entries, int cand, int base,
			 struct btc_rng *rng, struct btc_tune_h2h *h, int *failed);

/* opt with the playoff's limits (the playoff and the io round):
 * h2h_max_rounds BTC_TUNE_PLAYOFF_MAX_ROUNDS (at least the rounds an
 * exact interval needs, btc_tune_need_rounds), budget_s a
 * BTC_TUNE_PLAYOFF_BUDGET_SHARE of opt's, speedup_precision 0 (these
 * races choose; they report no speedup). Pure. */
struct btc_tune_options btc_tune_playoff_options(const struct btc_tune_options *opt);

/* The playoff over entries[n] (btc_tune_playoff's rules); *failed as
 * there. Returns true when every run verified. */
bool btc_tune_playoff_rounds(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
			     bool verbose, struct btc_tune_entry *entries, int n,
			     struct btc_rng *rng, struct btc_tune_playoff *p, int *failed);

/* True when tuning's runs already separate a from z: a's exact 95 %
 * interval of the median (BTC_TUNE_EXACT_RUNS runs or more) lies wholly
 * below z's exact one. Fewer runs give no exact interval, so never
 * separate: 2 runs' min..max is no 95 % interval. Pure. */
bool btc_tune_separated(const struct btc_tune_entry *a, const struct btc_tune_entry *z);

/* The playoff's race of two measured finalists, the tuning winner w and a
 * contender r (the playoff's runner-up; the bound round's rematch, where
 * the calibrated model's best assignment is a measured candidate other
 * than w: docs/report.md, "The bound round"): *p = {w, r}, then r / w head
 * to head within the playoff's limits (btc_tune_playoff_options) unless
 * btc_tune_separated(w, r); p->pick is r where btc_tune_playoff_overturns
 * says so, else w (p->pooled_ratio and p->pooled_tuning_rounds its
 * figures); the loser is
 * no finalist any more. *failed as btc_tune_h2h_rounds. Returns true
 * when every run verified; free p->h.ratios with free(). */
bool btc_tune_rematch_rounds(const struct btc_tune_bench *b, const struct btc_tune_options *opt,
			     bool verbose, struct btc_tune_entry *entries, int w, int r,
			     struct btc_rng *rng, struct btc_tune_playoff *p, int *failed);

/* The playoff's (and the rematch's) choice after the race h of r / w
 * (docs/report.md, "The playoff"): true, the contender r replaces the
 * tuning winner w, on a significant gain (h->gain: the ratio's 95 %
 * interval below 1); and, under opt->playoff_pooled, where the race ended
 * undecided (budget or round limit) and the median of every paired ratio
 * r / w lies below 1: each tuning round both ran (the k-th runs of each,
 * k < min(w->rounds, r->rounds): finalists run every round from the
 * first), then the race's rounds. The pooled median weighs tuning's
 * rounds and the race's alike: a tuning winner picked by one or two runs
 * (the g2 jobs' 1-2 tuning rounds) no longer outweighs a race of six.
 * False where the race decided no gain (a loss, or equal within
 * ci_rel). *pooled and *tuning_rounds (each may be NULL): the pooled
 * median and how many of its ratios are tuning's where it was read
 * (btc_tune_pooled_ratio), else NAN and 0. Pure. */
bool btc_tune_playoff_overturns(const struct btc_tune_entry *w, const struct btc_tune_entry *r,
				const struct btc_tune_h2h *h, const struct btc_tune_options *opt,
				double *pooled, int *tuning_rounds);

/* The median of every paired ratio r / w (time ratios, unitless) that
 * btc_tune_playoff_overturns reads: tuning's rounds both ran (their k-th
 * runs_ms), then h's h->rounds ratios. *tuning_rounds (not NULL): how
 * many of them are tuning's. NAN when there is none. Allocates only
 * scratch it frees; exits on out of memory (btc_xcalloc). */
double btc_tune_pooled_ratio(const struct btc_tune_entry *w, const struct btc_tune_entry *r,
			     const struct btc_tune_h2h *h, int *tuning_rounds);

/* The budget of rounds whose figures need `need` rounds for an exact 95 %
 * interval (BTC_TUNE_EXACT_RUNS: the head to head's ratio, the workload
 * job's M and gains; docs/report.md, "Head to head"). After `rounds`
 * rounds, elapsed_s seconds after the first began, the next round is
 * projected to end at elapsed_s + round_s (round_s: the last round's
 * seconds). With B = opt->budget_s:
 *   GO      the next round ends within B;
 *   STOP    it ends past B and rounds >= need (the budget: "budget");
 *   PAST    it ends past B, rounds < need, and within opt->budget_cap x B:
 *           go on past the budget, for the exact intervals;
 *   CAP     it ends past opt->budget_cap x B with rounds < need: stop short
 *           of exact intervals ("budget cap"; the figures are [min, max]).
 * A loop that goes on only while GO or PAST starts at most need rounds
 * past B, none past the cap. Pure. */
enum btc_tune_budget { BTC_BUDGET_GO, BTC_BUDGET_STOP, BTC_BUDGET_PAST, BTC_BUDGET_CAP };
enum btc_tune_budget btc_tune_budget_rule(const struct btc_tune_options *opt, int need,
					  int rounds, double elapsed_s, double round_s);

/* The rounds the head to head and the workload job need before a
 * decision, convergence or the budget may stop them: max(opt->min_rounds
 * (--min-rounds), opt->h2h_min_rounds (BTC_TUNE_EXACT_RUNS)). With n
 * rounds the exact 95 % interval of a median is [x(k), x(n+1-k)]
 * (btc_stats_median_ci): k = 1 up to n = 8, k = 2 from n = 9 (the extreme
 * round at each end dropped, 96.1 %). The `need` of btc_tune_budget_rule. */
int btc_tune_need_rounds(const struct btc_tune_options *opt);

/* Says on f, after prefix ("colocate", "h2h"), why the rounds go on past
 * the budget (PAST) or stop short of an exact interval (CAP: with the
 * seconds `need` rounds would take at the last round's length, and the
 * budget whose cap fits them), from btc_tune_budget_rule's arguments;
 * nothing for GO and STOP:
 *   colocate: past the budget (40 s): round 5 would end at 127.7 s; 4 of
 *   the 6 rounds an exact 95 % interval needs, going on (at most 200 s, 5
 *   budgets)
 *   h2h: stopped short of an exact 95 % interval: 4 of 6 rounds; round 5
 *   would end at 125.0 s, past the cap of 120 s (3 x the budget of 40 s);
 *   the intervals are [min, max]; 6 rounds would take about 150 s (a
 *   budget of 50 s)
 * With need above BTC_TUNE_EXACT_RUNS (--min-rounds) the lines name the
 * rounds asked for instead, and say [min, max] only below the 6. */
void btc_tune_budget_say(FILE *f, const char *prefix, enum btc_tune_budget v,
			 const struct btc_tune_options *opt, int need, int rounds,
			 double elapsed_s, double round_s);

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

/* Whether a head to head h of a candidate against a baseline reverses
 * what the job had measured before it (docs/report.md, "Head to head"):
 * separated_before, the candidate's exact 95 % interval of the median
 * wholly below the baseline's before the race (btc_tune_separated over
 * the entries as they stood), and the race decided the other way, its
 * ratio's interval wholly above 1. Two measurements of one pair that
 * exclude each other say the machine changed during the job (lease
 * H200-C's alexnet-dense-cuda-g1: 0.194 ms [0.182, 0.212] against 0.315
 * [0.299, 0.348] in tuning, 2.538 [1.811, 3.132] in the head to head,
 * every schedule with a CPU chunk 2-7 times slower in its rounds). Pure. */
bool btc_tune_h2h_reverses(bool separated_before, const struct btc_tune_h2h *h);

/* Whether the io round's new farms replace the plan's (docs/scheduler.md,
 * "The io round"), from its race (new farms / the build). more: the race
 * of more io threads, where the probe measured T_io at the headroom of
 * the period or above, so the model predicts a gain: decided by the head
 * to head's rule (btc_tune_h2h_keeps_candidate: a significant gain, or
 * undecided with a median ratio below 1 under opt->h2h_point). Lease
 * H200-C's octree-cuda-g1 (io 0.95 of the period, 2 checkers / 1 at
 * 0.923 [0.847, 1.299], undecided) kept one checker, which then set the
 * period (docs/results/h200.md). !more: one io thread fewer, which no
 * model predicts: only a significant gain. */
bool btc_tune_io_round_keeps(const struct btc_tune_h2h *h, const struct btc_tune_options *opt,
			     bool more);

#endif
