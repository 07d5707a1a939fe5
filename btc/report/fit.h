/* The fit of the cost model to the measurements, for the report: per
 * schedule the prediction under each table mode and calibrated
 * (report/calib.h, leave-one-out), the agreement figures of each model,
 * the table mode whose calibrated model fits best (highest
 * cross-validated Spearman rho, ties by Pearson r), and the re-ranking of
 * the candidates by that model (docs/scheduler.md, "Calibration";
 * docs/report.md). */
#ifndef BTC_FIT_H
#define BTC_FIT_H

#include "front/app.h"
#include "front/device.h"
#include "front/table.h"
#include "sched/plan.h"
#include "report/result.h"
#include "report/entry.h"

/* r->candidates [n] from the plan's n schedules and their tuning entries: label,
 * kind, status, error, predicted T_max under each mode of the table (NAN
 * where it has none), the measured median with its interval and runs.
 * r->n_candidates = n. */
void btc_fit_candidates(const struct btc_plan *plan, const struct btc_tune_entry *entries,
			struct btc_report *r);

/* Pearson r, per table mode m, of the candidates' predicted_ms[m] against
 * their measured medians (r->candidates, as from btc_fit_candidates; the
 * verified ones with a prediction under m) into r->pearson_r[m] (NAN
 * where undefined: fewer than 2, or a constant series), and
 * r->pearson_r_used = r->pearson_r[used] (the mode the plan used). */
void btc_fit_pearson(struct btc_report *r, enum btc_mode used);

/* Calibrates the table's every mode against the candidates' measured
 * medians (r->candidates, as from btc_fit_candidates), and fills the
 * candidates' calibrated_* fields, r->fit_models (per mode: uncalibrated,
 * then calibrated LOO), r->pu_fits and r->fit_mode. */
void btc_fit_report(const struct btc_plan *plan, struct btc_report *r);

/* The fluid bound (sched/bound.h) that bounds what runs: of the table
 * mode that fits the measurements but the chosen's (the fit mode's
 * criterion without the chosen's median; r->fit_mode without a verified
 * chosen: call after btc_fit_report) under the per-PU and per-stage
 * calibration fitted on those measurements (btc_calib_fit with
 * stage_weight 0.3) and lowered until none contradicts it
 * (btc_calib_lower: t'_ic = f_{c,i} t_ic, F' = max(0, a_c + b_c F_c),
 * T_io at most the least of them),
 * T_io = max(load, check) from the table (btc_table_io_ms); without a
 * fit, the plan's own bound (plan->bound, the planned mode). Fills
 * r->fluid_* (compute part lp_ms and io part io_ms apart, the mode,
 * whether calibrated) and r->bound_pus, each candidate's efficiency
 * (bound / its measured median) and r->efficiency (of r->chosen: call
 * after the chosen schedule is set), judged by btc_fit_judge_bound; when
 * it flags a schedule, r->bound_below_term says
 * which term is off ("io" when T_io binds, else "compute" and
 * r->bound_below_pu, the PU of the largest load at the optimum),
 * r->bound_below whether the chosen one is below. The per-schedule
 * check: each verified schedule measured faster than the chosen (all
 * without a chosen) gets the bound calibrated without its own median
 * (bound_loo_ms), r->bound_loo_checked and r->bound_loo_below count them
 * and those below it by the same rule (the upper end of the schedule's
 * 95 % interval below bound_loo_ms; its median without an interval). Quiet: without a table, or when the bound cannot be
 * computed, the fields stay NAN. */
void btc_fit_bound(const struct btc_plan *plan, struct btc_report *r);

/* The calibrated model's best assignment, for the job's bound round
 * (driver/job.c; docs/report.md, "The bound round"): the assignment bound
 * of the table mode and calibration btc_fit_bound uses (r as after
 * btc_fit_report, every verified measurement of r read: call it with no
 * chosen schedule, r->chosen -1), solved on the calibrated problem, and
 * its own assignment (btc_sched_assign_schedule: a schedule of the
 * paper's space, one chunk per maximal run of stages on a PU) into *s
 * (chunks only: PU and stage ranges; predict it on the plan's problem),
 * with the mode into *mode and the calibrated assignment bound into
 * *bound_ms (ms per task, io included as max(load, check)). False when
 * there is no calibration (no fit of every PU), the bound cannot be
 * solved exactly, or its assignment is no schedule of the space (*s
 * undefined). */
bool btc_fit_bound_assignment(const struct btc_plan *plan, const struct btc_report *r,
			      struct btc_schedule *s, enum btc_mode *mode, double *bound_ms);

/* Judges a bound (ms per task) against the measured periods of r, as a
 * statistical statement (docs/report.md, "The efficiency"): efficiency
 * E = bound_ms / the measured median, with its 95 % interval
 * [bound_ms / ci_high_ms, bound_ms / ci_low_ms] from the median's. The
 * bound does not bound a period only when the period's whole interval
 * lies below it (bound_ms > ci_high_ms; without an interval, > the
 * median): then the efficiency is NAN (flagged). A median below the bound
 * whose interval holds it keeps its efficiency, above 1: the bound stands
 * within measurement noise. Sets each verified candidate's efficiency,
 * r->efficiency and r->efficiency_ci_low / _high (the chosen's: its
 * candidate's interval; NAN without one or when flagged),
 * r->fluid_efficiency (fluid_ms, the fluid bound, by the same rule) and
 * r->bound_below (the chosen is flagged). True when any verified schedule
 * is flagged (the caller names the term, r->bound_below_term). */
bool btc_fit_judge_bound(struct btc_report *r, double bound_ms, double fluid_ms);

/* Prints the fluid bound and the efficiencies (one line each, when the
 * report has a bound). */
void btc_fit_print_bound(const struct btc_report *r, FILE *f);

/* The prediction printed beside candidate i's measurement (issue 25): the
 * best-fitting model's, the fit mode calibrated leave-one-out (the model
 * the fit judged: a schedule never fitted on its own measurement) where
 * the fit ran, else the chunk-model period under `planned`, the mode
 * planned on. Its name into what[len]. NAN where the model has none. */
double btc_fit_shown_ms(const struct btc_report *r, int i, enum btc_mode planned, char *what,
			size_t len);

/* Prints the fit: one line per model, the PU terms, the re-ranking. */
void btc_fit_print(const struct btc_report *r, FILE *f);

#endif
