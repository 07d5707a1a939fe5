/* The workload job's model in the measured units (issue 27; docs/
 * scheduler.md "Several apps", "Calibrated to the solo runs"; docs/
 * report.md "The workload job").
 *
 * The job's M divides each stream's measured tasks/s by its app's
 * solo-best rate r*_a measured in the same rounds; the plan, its predicted
 * M and the multi-app fluid bound divide by the table's solo-best rate
 * 1 / P*_a. Where the solo runs are faster or slower than the table, the
 * two are in different units. This calibrates each app's table to its
 * solo runs and recomputes the bound and the candidates' predicted M on
 * the calibrated tables with r*_a the measured rate.
 *
 * The calibration is per app and PU, from the solo runs only (never the
 * joint runs it judges). App a's solo-best schedule has chunks c on PUs
 * p(c) with predicted times x_c (btc_model_chunk_ms); P_a is its measured
 * period (1000 / r*_a, ms). A pipeline's period is at least each of its
 * chunk times, and the bottleneck chunk c* (largest x_c) sets it:
 *
 *   b_{a,p(c*)} = P_a / x_{c*}
 *   b_{a,p(c)}  = min(1, P_a / x_c)      every other chunk c
 *   b_{a,p}     = 1                      PUs the solo schedule leaves idle
 *   b_io        = min(1, P_a / T_io)     the io thread
 *
 * except where the table's io thread is the bottleneck (T_io >= x_{c*}):
 * then the period informs it, b_io = P_a / T_io, and every chunk only
 * by the cap min(1, P_a / x_c). The calibrated solo period max(b_io T_io,
 * max_c b x_c) is P_a. Every time of app a on PU p (t, F, S, X, the
 * core-count times) is multiplied by b_{a,p}, T_io by b_io. A single scale per app would
 * change nothing: scaling all of an app's times by c and its r* by 1 / c
 * leaves every normalised rate, the bound's included, as it was (the LP's
 * rates scale by 1 / c); only how the solo runs' speed-up is spread over
 * the PUs moves the normalised bound. */
#ifndef BTC_DRIVER_WORKLOAD_CALIB_H
#define BTC_DRIVER_WORKLOAD_CALIB_H

#include <stdbool.h>

#include "front/workload.h"
#include "sched/joint_plan.h"
#include "sched/multi.h"
#include "util/diag.h"

/* One app's per-PU scales b_{a,p} (above) from its solo-best vector solo
 * ([p->n_stages] PU per stage, contiguous chunks) and its measured period
 * measured_ms (> 0): scale[n_pus] and *io_scale (b_io) filled.
 * *table_ms: the schedule's predicted period max(T_io, max_c x_c);
 * *calibrated_ms: the same on the scaled times. */
void btc_workload_calib_scales(const struct btc_sched_problem *p, const int *solo,
			       double measured_ms, double *scale, double *io_scale,
			       double *table_ms, double *calibrated_ms);

/* A copy of a problem with every time on PU c multiplied by scale[c]
 * (time_ms, fixed_ms, start_ms, xfer_ms, time_cores_ms) and io_ms by
 * io_scale.
 * The arrays are owned (btc_workload_scaled_free); the rest borrowed from
 * the original. */
struct btc_workload_scaled {
	struct btc_sched_problem p;
	double *time, *fixed, *start, *xfer, *cores;
};
void btc_workload_scaled_make(const struct btc_sched_problem *p, const double *scale,
			      double io_scale, struct btc_workload_scaled *out);
void btc_workload_scaled_free(struct btc_workload_scaled *s);

/* The calibrated model of a maxmin workload. */
struct btc_workload_calib {
	int n_apps, n_pus;
	double scale[BTC_WORKLOAD_MAX_APPS][BTC_SCHED_MAX_PUS]; /* b_{a,p} */
	double io_scale[BTC_WORKLOAD_MAX_APPS];                 /* b_io */
	double table_ms[BTC_WORKLOAD_MAX_APPS];      /* P*_a in the table */
	double measured_ms[BTC_WORKLOAD_MAX_APPS];   /* 1000 / r*_a */
	double calibrated_ms[BTC_WORKLOAD_MAX_APPS]; /* the solo on the scaled table */
	bool has_bound;
	double bound;      /* btc_multi_bound on the scaled tables, weights
			    * w_s / measured_ms: the bound on M */
	int n;             /* candidates */
	double *predicted; /* [n] each candidate's M on the scaled tables,
			    * min_s r_s measured_ms / w_s (NAN: not evaluable) */
	double naive;      /* naive co-location's, or NAN */
};

/* The calibration of a joint problem m (maxmin; its streams' weights are
 * not read): per app its solo vector solo[a] and measured period
 * measured_ms[a] (> 0), per stream its weight w[s] (> 0); the candidates
 * cand[k] (joint vectors) and naive (or NULL). Fills *c (zeroed first;
 * btc_workload_calib_free). Returns false, reported, when the bound's LP
 * fails (c->has_bound false, the rest filled). */
bool btc_workload_calib_problem(const struct btc_multi_problem *m, int n_apps,
				const int *const *solo, const double *measured_ms, const double *w,
				const int *const *cand, int n_cand, const int *naive,
				struct btc_workload_calib *c, struct btc_diag *d);

/* The same for a joint plan (maxmin only: false otherwise, nothing
 * reported): measured_ms[a] per app, the plan's candidates and naive
 * co-location. */
bool btc_workload_calibrate(const struct btc_joint_plan *j, const double *measured_ms,
			    struct btc_workload_calib *c, struct btc_diag *d);
void btc_workload_calib_free(struct btc_workload_calib *c);

#endif
