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

/* The fluid bound (sched/bound.h) of the problem the planner solved, as
 * the plan holds it (plan->bound: the table's mode under the chunk model,
 * the paper's where the table has no model terms, with the plan's
 * forbidden PUs, pins and GPU API). Fills
 * r->fluid_* and r->bound_pus, each candidate's efficiency (bound / its
 * measured median, NAN unless verified) and r->efficiency (of r->chosen:
 * call after the chosen schedule is set). Quiet: without a table, or when
 * the bound cannot be computed, the fields stay NAN. */
void btc_fit_bound(const struct btc_plan *plan, struct btc_report *r);

/* Prints the fluid bound and the efficiencies (one line each, when the
 * report has a bound). */
void btc_fit_print_bound(const struct btc_report *r, FILE *f);

/* Prints the fit: one line per model, the PU terms, the re-ranking. */
void btc_fit_print(const struct btc_report *r, FILE *f);

#endif
