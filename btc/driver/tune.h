/* The autotuner (BetterTogether level 3): run the candidate schedules of a
 * multi-schedule build on the device, measure steady-state time per task,
 * keep the fastest. Measurements that reproduce (/work/shared/STYLE.md
 * item 15): each round runs every schedule still in the race once, in an
 * order shuffled by a seeded generator (the seed is printed: --seed
 * repeats the order); rounds repeat until the 95 % confidence interval of
 * every finalist's median lies within ci_rel of it, or the time budget or
 * the round limit is reached. Screening (successive halving) keeps the
 * finalists that can reach an exact interval within the budget; racing
 * drops a schedule only when its interval lies entirely above the best's.
 * The head to head compares the tuning winner with the best baseline the
 * same way, by the per-round ratio of their times. The rules are
 * driver/tune_loop.c's. A schedule whose run fails (crash, output check)
 * is out, and why is kept with it: the caller decides whether that fails
 * the job. */
#ifndef BTC_TUNE_H
#define BTC_TUNE_H

#include <stdbool.h>

#include "util/diag.h"
#include "sched/plan.h"
#include "report/entry.h"
#include "report/stats.h"

struct btc_tune_options {
	int warmup;                   /* warm-up tasks per run, excluded (default 4) */
	int tasks;                    /* measured tasks per run (default 24) */
	double warmup_s;              /* the workload job (driver/colocate.h): each
				 run's streams warm up for about this many
				 seconds, their warm-up tasks sized by their
				 expected rates (colo_warmup_tasks; --warmup-s,
				 default BTC_COLOCATE_WARMUP_S; 0: warmup
				 only) */
	int min_rounds;               /* rounds before racing or convergence stops the
				 tuning (default 3; --min-rounds); racing needs
				 95 % intervals, i.e. 6 runs. The head to head
				 and the workload job need max(min_rounds,
				 h2h_min_rounds) (btc_tune_need_rounds) */
	int max_rounds;               /* tuning rounds at most (default 30) */
	int h2h_min_rounds;           /* head-to-head rounds before deciding (default 6:
				 the fewest with an exact 95 % interval) */
	int h2h_max_rounds;           /* head-to-head rounds at most (default 30) */
	double budget_s;              /* tuning, and then the head to head, each stop
				 starting rounds after this many seconds
				 (--tune-budget, default 60) */
	double budget_cap;            /* the head to head and the workload job go on past
				 budget_s until their figures have the
				 BTC_TUNE_EXACT_RUNS rounds of an exact 95 %
				 interval, but start no round that would end
				 past budget_cap x budget_s (a factor >= 1;
				 default BTC_TUNE_BUDGET_CAP) */
	double ci_rel;                /* stop when each finalist's 95 % interval is
				 within this fraction of its median (0.03) */
	double speedup_precision;     /* the head to head against the best baseline
				 (btc_tune_head_to_head), once decided, goes
				 on within budget_s and h2h_max_rounds until
				 its ratio's 95 % interval lies within the
				 median x (1 +- this): the speedup it reports
				 to about +- this fraction (default
				 BTC_TUNE_SPEEDUP_PRECISION; 0: stop when
				 decided; --speedup-precision). The races that
				 only choose (playoff, bound, io and regret
				 rounds) stop when decided */
	bool race;                    /* drop schedules whose interval lies above the
				 best's (default true; --no-race: false) */
	bool screen;                  /* with race: successive halving, budget-sized
				 (driver/tune_loop.h; default true) */
	bool h2h_point;               /* an undecided head to head keeps the one of
				 lower median ratio (default true; false:
				 the baseline, as before) */
	bool playoff_pooled;          /* an undecided playoff (and rematch) overturns
				 the tuning's order where the median of every
				 paired ratio of the two lies below 1: the
				 tuning rounds both ran and the race's
				 (btc_tune_playoff_overturns; default true;
				 false: only a significant gain, as before) */
	unsigned seed; /* --seed: the round orders' seed; 0: from the clock */
	double timeout_factor; /* --run-timeout-factor: each run of the program is
				  killed after this many times (BTC_RUN_STARTUP_S
				  + its predicted time); the profiler after this
				  many times BTC_PROFILE_BOUND_S; 0: unbounded */
};

/* The bound on one run (docs/report.md, "Bounded runs"): a run of T tasks
 * (warm-up included) of a schedule of C chunks with the predicted T_max
 * may take factor x (BTC_RUN_STARTUP_S + T_max x (T + C)) seconds, the
 * profiler factor x BTC_PROFILE_BOUND_S; then its process group is killed
 * and the run fails, naming schedule, phase and limit. */
#define BTC_RUN_TIMEOUT_FACTOR 10.0
#define BTC_RUN_STARTUP_S 3.0
/* The default speedup_precision: +- 10 %, issue 25's reproduction goal
 * (two leases' speedups within 10 %). With 6 rounds the exact interval is
 * [min, max] of the rounds' ratios; on lease ZD (docs/results/h100.md)
 * octree-cuda-g1's decided head to head read 0.450 [0.397, 0.788]. */
#define BTC_TUNE_SPEEDUP_PRECISION 0.10
/* The workload job's warm-up by time, s (btc_tune_options.warmup_s), off
 * by default. On the H100 a run that starts the GPU after a few idle
 * seconds starts at the idle SM clock and reaches full clock 0.2-0.4 s in
 * (docs/results/workload-h100-vk11.md, "Leases O and P"), but a default of
 * 0.5 s broke naive co-location on lease Q (docs/results/workload-h100.md,
 * "Lease Q"): its separate programs, warmed by task counts at expected
 * rates, no longer ran their measured tasks together, and every run took
 * about 3 times as long (each warm-up task is checked too). */
#define BTC_COLOCATE_WARMUP_S 0.0
#define BTC_PROFILE_BOUND_S 120.0

/* The hard cap of a measurement that runs past its budget for exact 95 %
 * intervals, in budgets (btc_tune_options.budget_cap's default): 6 rounds
 * of up to 5/6 of a budget each. The H100's 4 + 4 Vulkan workload job
 * (docs/results/workload-h100-m, -n) ran rounds of 24-26 s at a budget of
 * 40 s, 6 rounds in about 3.9 budgets; a cap of 3 stopped it at 5 and 4.
 * --tune-budget's help (cli/options.c) and docs/report.md name it. */
#define BTC_TUNE_BUDGET_CAP 5.0

void btc_tune_options_init(struct btc_tune_options *o);

/* CPU steal (a fraction of all CPU time) from which btc_tune warns that the
 * machine is noisy (docs/report.md, "A noisy lease"). */
#define BTC_TUNE_STEAL_NOISY 0.02

/* Where a tuning runs (the job's context, not the user's options: those
 * are btc_tune_options, taken as the request holds them). */
struct btc_tune_ctx {
	const char *input;            /* --input for the program, or NULL */
	const char *work_dir;         /* where per-run reports and stderr logs go */
	const struct btc_app *app;    /* for stage names in errors, or NULL */
	const struct btc_device *dev; /* for schedule labels in errors, or NULL */
	bool verbose;                 /* print each round's order and the racing */
	unsigned seed;                /* the rounds' seed: btc_tune_seed(opt), resolved
					 once per job (never 0) */
};

/* The seed to use: opt->seed, or when 0 one derived from the clock
 * (never 0). */
unsigned btc_tune_seed(const struct btc_tune_options *opt);

/* How tuning ended, for the report. */
struct btc_tune_summary {
	unsigned seed;    /* the seed used */
	int rounds;       /* rounds run */
	const char *stop; /* "converged", "one finalist", "budget",
				 "max rounds", "no schedule left" (static) */
	int screened;     /* finalists dropped by screening (successive halving) */
	double cpu_steal; /* CPU steal over the tuning, a fraction (/proc/stat); NAN: unknown */
	double elapsed_s;
};

/* One task's load and check on one thread, mean ms (>= 0), from a
 * program report's `io` object (docs/report.md, the program's report):
 * over the tasks of the steady state (`load_steady_mean_ms`,
 * `check_steady_mean_ms`) where the report has both, else over every task
 * (`load_mean_ms`, `check_mean_ms`: a btrt before them). The io round
 * weighs them against the measured period, a steady-state figure; over
 * every task the first use of each TaskObject counts too (lease H200-R's
 * alexnet-dense-cuda-g1: load 0.174 ms over every task, 0.0024 ms in the
 * steady state). Returns 2 (steady state), 1 (every task) or 0 (neither
 * pair; *load_ms and *check_ms untouched). io may be NULL (0). */
struct cJSON;
int btc_tune_io_means(const struct cJSON *io, double *load_ms, double *check_ms);

/* Schedule g's entry before its first run, as tuning starts it: its
 * predicted period (ms; 0 when not predicted), no runs, medians NAN, a
 * finalist, not yet run. Owns nothing. */
struct btc_tune_entry btc_tune_entry_start(const struct btc_plan_schedule *g);

/* Tunes the n schedules of `program` (a generated APP-pipeline). entries:
 * [n], filled (clear them with btc_tune_entries_clear). *winner: the
 * verified finalist with the lowest median (btc_tune_pick), -1 if none.
 * Failed schedules are not reported here (entries[i].error says why).
 * Prints each round's order ("tune: round 2 order: 3 0 5 ...") when
 * verbose. Returns false when interrupted (reported) and when no schedule
 * verified (not reported: the caller names the failures). */
bool btc_tune(const char *program, const struct btc_plan_schedule *scheds, int n,
	      const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
	      struct btc_tune_entry *entries, int *winner,
	      struct btc_tune_summary *sum, struct btc_diag *d);

/* The verified schedule with the lowest median: among the finalists when
 * any is verified, else among all (baselines_only: among the baselines,
 * finalists or not); never a space_only one (--exhaustive's extra
 * schedules). -1 when none. */
int btc_tune_pick(const struct btc_tune_entry *entries, int n, bool baselines_only);

/* The runner-up: the schedule btc_tune_pick(entries, n, false) would pick
 * were its pick not there (the same pool: the verified finalists, never a
 * space_only one); -1 when the pool holds fewer than two. The main job's
 * playoff races it against the pick (driver/job.c, phase_playoff). */
int btc_tune_pick_runner_up(const struct btc_tune_entry *entries, int n);

/* The head to head of a candidate and a baseline: rounds of one run each,
 * in an order shuffled per round, until the 95 % interval of the median
 * of the per-round ratios (candidate time / baseline time) excludes 1 or
 * lies within 1 +- ci_rel (decided), or the budget or round limit is
 * reached. Both runs are added to their entries. */
struct btc_tune_h2h {
	int candidate, baseline;
	double *ratios; /* [rounds] candidate/baseline per round (owned) */
	int rounds;
	double ratio_median, ratio_lo, ratio_hi; /* NAN when no round */
	bool ci_exact;
	bool decided;     /* the interval excludes 1 or lies within 1 +- ci_rel */
	bool gain;        /* ratio_hi < 1: the candidate is faster */
	const char *stop; /* "decided", "budget", "budget cap" (stopped at the
			     cap short of BTC_TUNE_EXACT_RUNS rounds:
			     btc_tune_budget_rule), "max rounds" (static) */
};

/* Runs the head to head of schedules cand and base (entries[] as from
 * btc_tune; rng seeded by the caller). Returns true when every run
 * verified; false when interrupted or when a run failed: *failed is then
 * that schedule (its entry marked failed, with its error), -1 when
 * interrupted. Free h->ratios with free(). */
bool btc_tune_head_to_head(const char *program, const struct btc_plan_schedule *scheds,
			   const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
			   struct btc_tune_entry *entries,
			   int cand, int base, struct btc_rng *rng, struct btc_tune_h2h *h,
			   int *failed);

/* The playoff (docs/report.md, "The playoff"): after tuning, the best two
 * finalists by median (btc_tune_pick, btc_tune_pick_runner_up) race head
 * to head, runner-up as the candidate, unless the winner's exact 95 %
 * interval lies wholly below the runner-up's; a significant gain
 * overturns the tuning's order, and an undecided race whose pooled
 * ratio (tuning's paired rounds and the race's) lies below 1
 * (btc_tune_playoff_overturns; the race's point estimate alone lost in
 * the simulation, docs/results/tune-sim.md); at most
 * BTC_TUNE_PLAYOFF_MAX_ROUNDS rounds (more when --min-rounds asks) in
 * BTC_TUNE_PLAYOFF_BUDGET_SHARE of the budget (past it to an exact
 * interval, up to the head to head's cap of that share). */
#define BTC_TUNE_PLAYOFF_MAX_ROUNDS 12
#define BTC_TUNE_PLAYOFF_BUDGET_SHARE 0.25

struct btc_tune_playoff {
	int winner, runner_up; /* the tuning's best two, -1: fewer than two */
	bool raced;            /* false: none, or the tuning's intervals decided */
	struct btc_tune_h2h h; /* runner-up / winner, when raced (h.ratios owned) */
	/* the one kept, -1: none: the runner-up when the head to head
	 * found it significantly faster (its ratio's 95 % interval below 1),
	 * or, undecided, the pooled ratio below 1
	 * (btc_tune_playoff_overturns), else the winner; the other is no
	 * finalist any more */
	int pick;
	/* undecided under opt->playoff_pooled: the median of every paired
	 * ratio (btc_tune_pooled_ratio) and how many of them came from
	 * tuning's rounds; NAN and 0 otherwise */
	double pooled_ratio;
	int pooled_tuning_rounds;
};

/* Runs the playoff over entries[n] (as from btc_tune; rng seeded by the
 * caller) into *p. Returns and fails as btc_tune_head_to_head. Free
 * p->h.ratios with free(). */
bool btc_tune_playoff(const char *program, const struct btc_plan_schedule *scheds,
		      const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
		      struct btc_tune_entry *entries, int n, struct btc_rng *rng,
		      struct btc_tune_playoff *p, int *failed);

/* The bound round's rematch (docs/report.md, "The bound round";
 * btc_tune_rematch_rounds): measured schedule `contender` races the
 * tuning winner by the playoff's rules and limits, unless tuning's exact
 * intervals separate them (p->raced false); p->pick is the contender where
 * btc_tune_playoff_overturns says so. Returns and fails as btc_tune_head_to_head. Free
 * p->h.ratios with free(). */
bool btc_tune_rematch(const char *program, const struct btc_plan_schedule *scheds,
		      const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
		      struct btc_tune_entry *entries, int winner, int contender,
		      struct btc_rng *rng, struct btc_tune_playoff *p, int *failed);

/* The io round (docs/scheduler.md, "The io round"; driver/job.c): the
 * chosen schedule in `program` (rebuilt with the io farms of
 * btc_plan_io_round_farms) head to head against it in `built` (the
 * program as it was), paired rounds of entry's warm-up and tasks, within
 * the playoff's limits (BTC_TUNE_PLAYOFF_MAX_ROUNDS, a
 * BTC_TUNE_PLAYOFF_BUDGET_SHARE of the budget). *h: new / built time
 * ratio (candidate 0, baseline 1; h->ratios owned, free()); h->gain: the
 * new farms are significantly faster. Returns false when a run failed its
 * check or stopped (said on stderr) or when interrupted. */
bool btc_tune_io_round(const char *program, const char *built,
		       const struct btc_plan_schedule *scheds, int chosen,
		       const struct btc_tune_entry *entry, const struct btc_tune_options *opt,
		       const struct btc_tune_ctx *ctx, struct btc_rng *rng, struct btc_tune_h2h *h);

/* The regret round (docs/report.md, "Regret"; driver/job.c): the chosen
 * schedule head to head against the measured best of an --exhaustive
 * job (the lowest median of every verified schedule), paired rounds of
 * each one's warm-up and tasks (entries[chosen], entries[best]) within
 * the playoff's limits, so that the machine's drift cancels in each
 * round's ratio where the two medians came from different phases (the
 * best's from tuning, the chosen's from the head to head as well). It
 * measures, never chooses: its runs are not added to the entries. *h:
 * chosen / best time ratio (candidate 0, baseline 1; h->ratios owned,
 * free()). *failed: -1, or the schedule index whose run failed (its
 * error in *error, owned). Returns false when a run failed its check or
 * stopped, or when interrupted. */
bool btc_tune_regret_round(const char *program, const struct btc_plan_schedule *scheds, int chosen,
			   int best, const struct btc_tune_entry *entries,
			   const struct btc_tune_options *opt, const struct btc_tune_ctx *ctx,
			   struct btc_rng *rng, struct btc_tune_h2h *h, int *failed, char **error);

/* One run of `program --schedule index`. */
struct btc_tune_run {
	const char *program;
	int index;
	const struct btc_plan_schedule *sched; /* for the error text, or NULL */
	int warmup, tasks;
	const char *input;  /* or NULL */
	const char *report; /* the program's report JSON (rewritten) */
	const char *trace;  /* Perfetto trace to write, or NULL */
	bool quiet;         /* the program's stdout to /dev/null */
	const char *phase;  /* "tuning", "head to head", "final run": for errors */
	bool adapt;         /* the program's --adapt (docs/runtime.md, "Adaptive pipelines") */
	/* NULL, or receives the run's warm-up [tasks]: the program's, from its
	 * report (`warmup`: at least one task per TaskObject of its pool, the
	 * extra ones streamed besides warmup + tasks; docs/runtime.md "The
	 * warm-up"), else (no such figure, or a failed run) warmup as asked */
	int *warmup_run;
	const struct btc_app *app;    /* for stage names in errors, or NULL */
	const struct btc_device *dev; /* for schedule labels in errors, or NULL */
	/* NULL, or receives a verified run's times by part from its report
	 * (`chunks`, `stages`, `io`; the caller frees with
	 * btc_run_times_free); untouched when the run failed */
	struct btc_run_times *times;
};

/* Runs it once and reads its JSON report. Returns true when it ran and
 * verified, with the steady-state ms per task in *ms. Otherwise, unless
 * interrupted, *error (caller frees) says which schedule failed where: the
 * schedule's index and label, the stage after which the output is checked,
 * and the program's own message (which task, which check). */
/* The time limit of run in seconds (see BTC_RUN_TIMEOUT_FACTOR); 0: none. */
double btc_tune_run_timeout(const struct btc_tune_run *run, const struct btc_tune_options *opt);

/* The program's last message: the last non-empty line of the file
 * stderr_path, with the "PROGRAM: " prefix removed (caller frees), or
 * NULL. */
char *btc_tune_last_message(const char *stderr_path, const char *program);

bool btc_tune_run_once(const struct btc_tune_run *run, const struct btc_tune_options *opt,
		       double *ms, char **error);

#endif
