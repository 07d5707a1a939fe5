/* The workload job's figures in M's units (issue 27; docs/report.md "The
 * workload job"; docs/scheduler.md "Several apps", "In the measured
 * units"): the model calibrated to the solo runs (driver/workload_calib.h)
 * printed and written beside the table's, and the offline re-judgement of
 * a committed report. */
#ifndef BTC_DRIVER_WORKLOAD_JUDGE_H
#define BTC_DRIVER_WORKLOAD_JUDGE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "driver/request.h"
#include "driver/workload_calib.h"
#include "sched/joint_plan.h"

/* Per app its measured solo period ms[a] = 1000 / r*_a from the solo
 * rates per stream (solo_rate[s], tasks/s); false when some app has
 * none. */
bool btc_workload_measured_periods(const struct btc_joint_plan *j, const double *solo_rate,
				   double *ms);

/* Prints the calibration (per app its solo period in the table, measured
 * and calibrated, the scales other than 1) and each candidate's predicted
 * M in both units. */
void btc_workload_print_calib(const struct btc_joint_plan *j, const struct btc_workload_calib *c);

/* Prints the chosen's measured M (m > 0) against the multi-app fluid
 * bound (maxmin only): the calibrated one when cal has it (M's units),
 * beside the table's; the ratio, or, where M lies above the bound, that
 * it does not hold here (never a ratio above 1). */
void btc_workload_print_bound(const struct btc_joint_plan *j, const struct btc_workload_calib *cal,
			      double m);

/* Adds the report's bound and calibration fields to plan (docs/report.md
 * "The workload job": fluid_bound, fluid_bound_table,
 * fluid_bound_calibrated, predicted_calibrated, naive_predicted_calibrated,
 * calibration[], fluid_bound_holds and fluid_bound_judged when m > 0). */
void btc_workload_add_plan_bound(cJSON *plan, const struct btc_joint_plan *j,
				 const struct btc_workload_calib *cal, double m);

/* The offline re-judgement of a workload report (`btc tune A.yaml B.yaml
 * ... --measurements REPORT.json`, with the job's tables and options, no
 * device needed): plans the workload as the job did, with the same-PU
 * factors of the report's plan.same_pu_factor (warns where its
 * candidates' predicted M differ from the report's plan.predicted),
 * calibrates the model to the report's solo rates
 * (colocation.streams[].solo_tasks_per_s; driver/workload_calib.h) and
 * prints the chosen's measured M against the calibrated and the table's
 * fluid bound; with opt->report writes {"kind": "workload-rejudge",
 * "measurements", "best", "merit", "plan": {...}} (the job's plan fields).
 * Returns 0, or 1 after an error (reported: an unreadable report, streams
 * that do not match the plan's). */
int btc_workload_rejudge(const struct btc_joint_request *r, const struct btc_device *dev,
			 const struct btc_request *opt, const char *report, struct btc_diag *d);

#endif
