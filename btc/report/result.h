/* The main job's report (btc APP.yaml --run --report R.json): its schema
 * as a C struct, written as JSON with cJSON and read back (btc report).
 * docs/report.md describes every field. */
#ifndef BTC_REPORT_RESULT_H
#define BTC_REPORT_RESULT_H

#include <stdbool.h>

#include "front/table.h"
#include "util/diag.h"

/* The schema version this btc writes ("schema_version"); reports without
 * the field are version 1 (btc 0.1 before honest results). 3: medians with
 * their intervals, the head to head's ratio, the final run apart, the fit. */
#define BTC_REPORT_SCHEMA 3

/* What became of one schedule of the build. */
enum btc_run_status {
	BTC_RUN_NOT_RUN,  /* never measured (interrupted before its turn) */
	BTC_RUN_VERIFIED, /* every run of it matched the sequential reference */
	BTC_RUN_FAILED,   /* a run crashed, or its output check failed */
};
const char *btc_run_status_name(enum btc_run_status s);

/* One verified run's time per task by part, means, medians and steady-state
 * means from the program's own report (docs/report.md, "The program's report": `chunks`,
 * `stages`, `io`): what its period is made of, kept for the bound's offline
 * re-judging (issue 25). Arrays owned; all zero: the run's report had
 * none (a replay, a report of earlier btc). */
struct btc_run_times {
	/* [n_chunks] each chunk's pop-to-finish mean and median per task, ms,
	 * in the program's chunk order (a farm's workers apart); the mean
	 * holds the warm-up tasks, the median hardly; the steady mean is
	 * over the period's tasks only (after the warm-up), comparable with
	 * the run's ms per task (NAN where the report has none) */
	int n_chunks;
	double *chunk_ms, *chunk_median_ms, *chunk_steady_ms;
	/* [n_stages] (the app's) each stage's own mean, median and steady
	 * mean where it ran (a GPU stage from timestamps), ms; NAN where it
	 * did not */
	int n_stages;
	double *stage_ms, *stage_median_ms, *stage_steady_ms;
	/* one task's load and check on one io thread, mean, median and
	 * steady mean ms; 0: none */
	double load_ms, check_ms, load_median_ms, check_median_ms;
	double load_steady_ms, check_steady_ms;
};

/* Frees t's arrays and zeroes it (t not NULL). */
void btc_run_times_free(struct btc_run_times *t);

/* A candidate's `runs_times` (a cJSON array, docs/report.md) read back:
 * [runs] (caller frees each with btc_run_times_free, then the array), or
 * NULL where a is absent, not one object per run, or malformed. */
struct cJSON;
struct btc_run_times *btc_report_read_run_times(const struct cJSON *a, int runs);

struct btc_report_chunk {
	char *pu;
	int first_stage, last_stage;
};

/* One schedule of the build ("candidates" in the JSON, baselines too). */
struct btc_report_candidate {
	int index; /* --schedule N of the generated program */
	bool baseline;
	char *label;                      /* "cpu:0-1 vulkan:2" */
	char *pu;                         /* a baseline's PU, else NULL */
	double predicted_ms[BTC_N_MODES]; /* chunk-model period P under each table mode, NAN if none */
	double paper_ms[BTC_N_MODES];     /* the paper's T_max (sum of stage times) per mode */
	double measured_ms;               /* median ms per task of its verified runs (tuning
					 and head to head: the one figure), NAN if none */
	double ci_low_ms, ci_high_ms;     /* 95 % interval of that median, NAN if none */
	int runs;                         /* verified runs behind it */
	double *runs_ms;                  /* [runs] each run's ms per task, in the order run
					 (tuning, then head to head; owned), or NULL */
	struct btc_run_times *runs_times; /* [runs] the same runs by part (owned), or NULL */
	int tasks, warmup, rounds;        /* per run: measured and warm-up tasks; tuning rounds */
	bool finalist;                    /* in the race at the end of tuning */
	double calibrated_loo_ms[BTC_N_MODES]; /* calibrated on the others (LOO), NAN if none */
	double calibrated_ms;                  /* calibrated on all, fit mode (the re-ranking) */
	int calibrated_rank;                   /* 1-based rank by calibrated_ms, 0: none */
	double efficiency; /* fluid bound / measured_ms, NAN unless both (docs/report.md) */
	double bound_loo_ms; /* the tighter bound calibrated without this
			      * schedule's measurement (the per-schedule
			      * check, btc_fit_bound), NAN unless verified */
	bool space_only;   /* --exhaustive: measured for the regret, never chosen */
	bool bound;        /* the assignment bound's assignment, a candidate
			    * the optimizer's space left out (kind "bound") */
	enum btc_run_status status;
	char *error; /* why it failed (schedule, stage, task), or NULL */
};

/* A schedule's kind as the report's JSON, its CSV and `btc report` name
 * it: "baseline", "bound" (the assignment bound's assignment, added
 * beside the optimizer's candidates; docs/report.md) or "candidate" (an
 * --exhaustive space_only schedule too: its own flag says so). Static
 * string. */
const char *btc_report_candidate_kind(const struct btc_report_candidate *c);

/* How well one model predicts the measured medians (fit.models). */
struct btc_report_fit_model {
	char *name; /* "isolated", "calibrated interference (LOO)" */
	char *mode; /* the table mode */
	bool calibrated;
	int n; /* schedules with both numbers */
	double pearson_r, spearman_rho;
	double median_abs_rel_err, max_abs_rel_err;           /* of measured / predicted - 1 */
	int best_within_5pct;                                 /* 1, 0; -1 unknown */
	double pearson_r_candidates, spearman_rho_candidates; /* the same over the
					 candidates alone: a slow baseline dominates r */
};

/* One PU at the fluid bound's optimum (fluid_bound.pus; sched/bound.h). */
struct btc_report_bound_pu {
	char *pu;
	double load_ms; /* F_c y_c + sum_i x_ic t_ic, ms per task */
	double touch;   /* y_c: the fraction of tasks it touches */
	double *frac;   /* [n_bound_stages] x_ic: the fraction of stage i's tasks */
};

/* One PU's calibrated terms (fit.pus), for the fit mode. */
struct btc_report_pu_fit {
	char *pu;
	double a_ms, b;
	int n_bottleneck;
};

/* A race of the main job after tuning (the playoff, the io round;
 * docs/report.md): paired head-to-head rounds of a challenger against the
 * incumbent, as the report gives them. */
struct btc_report_race {
	int rounds;                       /* head-to-head rounds, 0: not raced */
	double ratio, ratio_lo, ratio_hi; /* challenger / incumbent time, median and 95 %
					     interval; NAN: not raced */
	bool decided; /* the ratio's interval excludes 1 or lies within 1 +- 3 % */
	char *stop;   /* why the rounds stopped (owned), NULL: not raced */
	bool kept;    /* the challenger was kept (its gain significant, or
			 undecided with the pooled ratio below 1) */
	/* the playoff's and the rematch's undecided race: the median of
	 * every paired ratio, tuning's rounds both ran and the race's
	 * (btc_tune_pooled_ratio); 0 (as zeroed: every other race) or NAN:
	 * not read, a ratio of times being > 0 */
	double pooled_ratio;
	int pooled_tuning_rounds; /* how many of those ratios came from tuning */
};

/* The final run's breakdown (docs/report.md, "The final run's
 * breakdown"): what set its period, from its program report's means per
 * task [ms]. The slowest chunk's time per task (a farm's workers' mean
 * over their count) against the io threads' T_io = max(load / k_load,
 * check / k_check) (btrt_model_io_ms, the chunk model's io term). */
struct btc_report_breakdown {
	int chunk;                       /* the slowest chunk's index, -1: no breakdown */
	char *chunk_pu;                  /* its PU (owned) */
	double chunk_ms;                 /* its time per task */
	double io_ms;                    /* T_io at the run's farms, NAN: no io figures */
	double load_ms, check_ms;        /* one task's load and check on one thread */
	int load_threads, check_threads; /* the run's io farms */
	/* the figures are steady-state means (over the period's tasks, the
	 * warm-up out), else means over every task */
	bool steady;
};

/* What set the period of b's run: "chunk" (its slowest chunk's time per
 * task at least T_io), "io load" or "io check" (the larger io term), NULL
 * without a breakdown. Static string. */
const char *btc_report_period_set_by(const struct btc_report_breakdown *b);

struct btc_report {
	int schema_version;
	char *app, *device, *mode, *objective, *gpu;
	char *table; /* the profiling table the plan used (its path), or NULL */
	int chosen;                      /* index into candidates, -1: none verified */
	struct btc_report_chunk *chunks; /* [n_chunks]: the chosen schedule */
	int n_chunks;
	double predicted_ms;             /* chosen's predicted period P, NAN if no table time */
	double measured_ms;              /* chosen's ms per task head to head, NAN if none */
	int best_baseline;               /* index into candidates, -1: none */
	double best_baseline_ms;         /* its head-to-head ms per task, NAN if none */
	char *best_baseline_null_reason; /* when best_baseline < 0 */
	double speedup;                  /* best_baseline_ms / measured_ms, NAN: see reason */
	char *speedup_null_reason;       /* when speedup is NAN */
	double pearson_r[BTC_N_MODES];   /* predicted vs measured over verified schedules */
	double pearson_r_used;           /* under the mode the optimizer used */
	bool verified;                   /* every run of every schedule matched */
	bool chosen_verified;            /* every run of the chosen schedule matched */
	int n_failed;                    /* schedules with status failed */
	char *failure_diagnosis;         /* which stages and PUs tell failing schedules from
					    passing ones (report/diagnose.h), or NULL */
	bool racing;
	double phases_s[5];                      /* profile, schedule, build, tune, run */
	struct btc_report_candidate *candidates; /* [n_candidates] */
	int n_candidates;
	/* schema 3 */
	long long seed; /* tuning seed, -1: unknown */
	int tune_rounds;
	int tune_screened; /* finalists dropped by screening (successive halving) */
	double tune_cpu_steal; /* CPU steal over the tuning (fraction), NAN: unknown */
	char *tune_stop; /* why tuning stopped */
	double tune_budget_s;
	/* The playoff (docs/report.md, "The playoff"; driver/job.c):
	 * playoff_status NULL when none ran (--no-playoff, --chunks, fewer
	 * than two finalists), else "decided in tuning" (the winner's exact
	 * interval below the runner-up's: not raced) or "raced" (owned) */
	char *playoff_status;
	int playoff_winner, playoff_runner_up; /* the tuning's best two by median, -1: none */
	struct btc_report_race playoff;        /* runner-up / winner; kept: the runner-up
					   replaced the winner */
	/* The bound round (docs/report.md, "The bound round"; driver/job.c):
	 * bound_round_status NULL when none ran (--no-bound-round, --chunks,
	 * no bound), else "no assignment" (no calibration of every PU, or
	 * the calibrated assignment is no multi-chunk schedule of the
	 * space), "measured" (the tuning winner, or a measured schedule not
	 * raced: tuning's intervals separated it, or the playoff raced it
	 * out), "rematch" (a measured schedule, not the winner, raced against
	 * it), "added" (built and raced), "space" (an --exhaustive space_only
	 * schedule, raced) (owned) */
	char *bound_round_status;
	int bound_round_schedule;    /* its index, -1: none */
	int bound_round_winner;      /* the tuning winner it raced, -1: none raced */
	char *bound_round_mode;      /* the calibrated table mode (owned), or NULL */
	double bound_round_bound_ms; /* the calibrated assignment bound, NAN: none */
	int bound_round_rounds;      /* head-to-head rounds, 0: not raced */
	double bound_round_ratio, bound_round_ratio_lo, bound_round_ratio_hi; /* it / winner */
	bool bound_round_kept; /* it replaced the tuning winner */
	double bound_round_pooled_ratio; /* the rematch's, as btc_report_race's; 0 or NAN: none */
	int bound_round_pooled_tuning_rounds;
	/* The io round (docs/scheduler.md, "The io round"; driver/job.c):
	 * io_round_status NULL when no probe ran (no io thread to give on
	 * the device, --chunks), else "not raced" (the measured io below
	 * BTC_PLAN_IO_HEADROOM of the period, or no thread left) or "raced"
	 * (the program rebuilt with the farms _to and raced against the
	 * build) (owned) */
	char *io_round_status;
	int io_round_schedule;                       /* the tuning winner probed */
	double io_round_period_ms;                   /* its measured median, ms per task */
	double io_round_load_ms, io_round_check_ms;  /* the probe's, one thread, ms per task */
	bool io_round_steady; /* those are steady-state means, else over every task */
	int io_round_load_from, io_round_check_from; /* the plan's farms */
	int io_round_load_to, io_round_check_to;     /* the farms raced (= _from: none) */
	/* the owning PU whose cores the farms could take, idle in the winner
	 * and the baseline (btc_gen_io_threads_idle); NULL: the device's io
	 * threads (btc_gen_io_threads_extra) (owned) */
	char *io_round_idle_pu;
	/* the owning CPU PU whose chunk in the tuning winner could give the
	 * farms one core (btc_gen_busy_service_pu); NULL: none */
	char *io_round_chunk_core_pu;
	struct btc_report_race io_round;             /* new farms / the build; kept: the program
					    keeps the new farms */
	int h2h_candidate; /* the candidate of the head to head, -1: none ran */
	int h2h_rounds;
	double ratio_median, ratio_ci_low, ratio_ci_high; /* candidate / baseline time */
	bool h2h_decided;
	char *h2h_stop;       /* why it stopped: "decided", "budget", "budget cap" or
				  "max rounds"; NULL: not recorded (earlier reports) */
	double h2h_precision; /* the speedup precision it ran with
				  (btc_tune_options.speedup_precision; 0: it
				  stopped when decided); NAN: not recorded */
	bool no_significant_gain;               /* the head to head kept the baseline */
	struct btc_report_race h2h_first;       /* the head to head's first race where it
					     reversed the runs before it and was raced
					     again (btc_tune_h2h_reverses); rounds 0:
					     none */
	double speedup_ci_low, speedup_ci_high; /* of speedup, NAN: none */
	double final_ms;                        /* the final traced run (trace only), NAN if none */
	int final_tasks;                        /* its measured tasks */
	/* its warm-up [tasks]: the program's (at least one per TaskObject
	 * of its pool; docs/runtime.md "The warm-up"), and the one btc asked
	 * for (--warmup, the tuner's); reports before warmup_requested gave
	 * the one asked as warmup: read as both */
	int final_warmup, final_warmup_requested;
	int final_switches, final_schedule;     /* adaptive final run (--adapt): its switches
						   and last schedule; -1: not adaptive */
	struct btc_report_breakdown final_breakdown; /* chunk -1: none (earlier btc,
							 --adapt) */
	char *fit_mode;                          /* table mode with the best LOO fit, or NULL */
	struct btc_report_fit_model *fit_models; /* [n_fit_models] */
	int n_fit_models;
	struct btc_report_pu_fit *pu_fits; /* [n_pu_fits] */
	int n_pu_fits;
	/* The fluid bound (sched/bound.h) of the table mode the job scheduled
	 * on; absent from reports of earlier btc (NAN, NULL, 0). */
	double fluid_bound_ms;            /* max(T_io, LP optimum), NAN: none */
	double fluid_lp_ms, fluid_io_ms;  /* the LP's optimum, T_io */
	char *fluid_model;                /* "chunk" (F_c, T_io) or "paper" */
	char *fluid_mode;                 /* the table mode of the bound: the fit
					   * mode when measurements exist */
	bool fluid_calibrated;            /* per-PU calibration applied */
	bool bound_without_chosen;        /* ... fitted without the chosen
					   * schedule's measurement */
	int io_load_threads;              /* the io farms T_io counts (the plan's:
					   * the program ran with them); 0: not in
					   * the report (earlier btc) */
	int io_check_threads;
	/* --exhaustive (report/limits.h): chosen / measured best - 1, its
	 * 95 % interval; NAN without the space measured. */
	double regret, regret_ci_low, regret_ci_high;
	int regret_best;      /* index into candidates of the measured best, -1 */
	bool regret_round;    /* --regret-round (or --exhaustive): with n_space 0 the
				 regret is over the schedules measured */
	/* The regret round (driver/job.c, phase_regret_round): the chosen
	 * against regret_paired_best (the measured best when it ran) in
	 * paired rounds; ratio: chosen / best time. rounds 0: none ran (no
	 * --exhaustive, the chosen is the best, or a report of earlier btc). */
	int regret_paired_best;
	struct btc_report_race regret_paired;
	int n_space_measured; /* verified schedules behind the best */
	int n_space;          /* --exhaustive: schedules of the paper's space, else 0 */
	bool bound_below;                 /* the chosen's measured 95 % interval lies
					   * wholly below the bound (its median
					   * without one): flagged, no efficiency */
	char *bound_below_term;           /* "compute" or "io" when any verified
					   * measurement's 95 % interval lies
					   * wholly below the bound */
	char *bound_below_pu;             /* compute: the PU of the largest load */
	double efficiency;                /* the tighter bound (assign_bound_ms, else
					   * fluid_bound_ms) / measured_ms (the chosen),
					   * above 1 where the bound lies inside the
					   * chosen's interval */
	double efficiency_ci_low, efficiency_ci_high; /* bound / ci_high_ms, bound /
						       * ci_low_ms of the chosen, NAN:
						       * no interval or no efficiency */
	struct btc_report_bound_pu *bound_pus; /* [n_bound_pus], device PU order */
	int n_bound_pus, n_bound_stages;
	/* The assignment bound (sched/bound.h) of the same table, mode and
	 * calibration; NAN / NULL in reports of earlier btc. */
	double assign_bound_ms;   /* max(fluid bound, T_io, MIP optimum) */
	double assign_mip_ms;     /* the MIP's optimum, NAN: not solved */
	bool assign_exact;        /* the MIP was solved (else = fluid bound) */
	double assign_relaxed_ms; /* its optimum with contiguity relaxed, NAN */
	bool assign_contiguous;   /* assign_mip_ms has the contiguity rows */
	bool assign_farms;        /* the share formulation (farms searched) */
	double fluid_efficiency;  /* fluid_bound_ms / measured_ms (the chosen) */
	double bound_baselines_ms; /* placed: the isolated-row baselines' least
				    * period, both bounds at most it; else NAN */
	struct btc_report_bound_pu *assign_pus; /* [n_assign_pus]: loads,
						 * shares, the assignment */
	int n_assign_pus;
	/* The per-schedule check of the bound (btc_fit_bound): verified
	 * schedules whose bound fitted without their own measurement was
	 * computed, and those whose median lies below it. */
	int bound_loo_checked, bound_loo_below;
};

/* The runs' spread of r's schedules (docs/report.md, "The runs'
 * spread"): for every verified schedule with at least 3 runs and a 95 %
 * interval, the interval's width over its median, (ci_high - ci_low) /
 * measured, a fraction, written to w[] (room for r->n_candidates);
 * returns how many. Their median is how far one job's figures move from
 * run to run: on the H100 it separates the leases whose CPU side was
 * noisy, where the noise probe does not (docs/results/h100.md). */
int btc_report_spread_widths(const struct btc_report *r, double *w);

/* The median of btc_report_spread_widths over r, NAN when none; *n (may
 * be NULL) the number of schedules. */
double btc_report_runs_spread(const struct btc_report *r, int *n);

/* An empty report: every number NAN, indices -1, the current schema. */
void btc_report_init(struct btc_report *r);
/* n candidates with every number NAN (free with free() or through
 * btc_report_free as r->candidates). */
struct btc_report_candidate *btc_report_candidates_new(int n);
/* Frees every string and array the report owns (not r itself). */
void btc_report_free(struct btc_report *r);

/* Writes r to path as JSON, atomically (a temporary file renamed into
 * place: an interrupted btc leaves no partial report). */
bool btc_report_write(const struct btc_report *r, const char *path, struct btc_diag *d);

/* Reads a report JSON file (schema 1, 2 or 3) into r (btc_report_free it,
 * also after a failure). Missing or null numbers read as NAN. */
bool btc_report_read(const char *path, struct btc_report *r, struct btc_diag *d);

#endif
