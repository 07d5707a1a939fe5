/* The multi-app fluid bound with each PU's capacity measured in the
 * workload job's own joint runs (issue 27; docs/scheduler.md "Several
 * apps", "Capacity measured in the job's runs"; docs/report.md "The
 * workload job").
 *
 * The model time-shares a PU: sum_s r_s t_{s,p} <= 1 (t_{s,p} stream s's
 * chunk time on p under the chunk model, ms; r_s its rate, tasks/ms). A
 * CUDA GPU runs several streams' kernels at once, so a joint run can
 * deliver more than one PU-ms of the model's work per ms, and M then lies
 * above the fluid bound. The job plans with capacity 1 (kappa = 1: plans
 * made with a larger, probed capacity lost 17-22 %), and bounds with the
 * capacity its joint runs showed. Joint candidate k, run with measured
 * rates r^k_s, made PU p deliver the load
 *
 *   L^k_p = sum_s r^k_s t^k_{s,p}        PU-ms of model work per ms
 *
 * (t^k the candidate's own chunk times in the bound's units: the table's,
 * or the solo-calibrated ones). A PU that delivered L^k_p has capacity at
 * least L^k_p. A run rho is one round of one candidate (the report's
 * rounds_tasks_per_s), or, where a report has only the medians over the
 * rounds (before this change), one candidate's medians. For each judged
 * run i (a run of the chosen candidate b) the capacity comes from the
 * job's other runs,
 *
 *   kappa^(-i)_p = max(hi_p, max_{rho != i} L^rho_p),
 *   B_i = btc_multi_bound with row p <= kappa^(-i)_p instead of 1,
 *
 * (hi_p = max(1, max_n kappa_p(n)), the plan's own row: 1 unless it was
 * planned with @share rows, so the bound is never below the plan's) and
 * the bound is the lower median of the B_i (with one judged run, its B). Every rate vector whose loads stay within kappa (sum_s r_s t_{s,p}
 * <= kappa_p under any chunk assignment, the fluid split included) has M
 * at most B, so B bounds run i wherever L^i_p <= kappa^(-i)_p (else
 * reported: capacity_exceeded). With several rounds of the chosen, its
 * other rounds ran the same chunks and are in kappa^(-i): a round is
 * exceeded only where it delivered more than every other round and
 * candidate. Where M lies above B it is flagged, never a ratio above 1.
 * With one candidate of one run, kappa is hi: the plan's bound. */
#ifndef BTC_DRIVER_WORKLOAD_CAPACITY_H
#define BTC_DRIVER_WORKLOAD_CAPACITY_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "driver/workload_calib.h"
#include "sched/joint_plan.h"
#include "sched/multi.h"
#include "util/diag.h"

struct btc_workload_capacity {
	int n_pus, n_runs, best;
	/* [n_runs * n_pus] L^rho_p (above), PU-ms per ms; NAN where the
	 * run's candidate is no schedule */
	double *load;
	int n_judged; /* runs of the chosen candidate */
	int judged;   /* the run whose B_i is the bound (the lower median), or -1 */
	int n_from;   /* runs kappa came from (every other run) */
	/* the plan's hi_p = max(1, max_n kappa_p(n)): 1 unless it planned
	 * with @share rows (--same-pu probe) */
	double hi[BTC_SCHED_MAX_PUS];
	double kappa[BTC_SCHED_MAX_PUS]; /* kappa^(-judged)_p */
	bool capacity_exceeded;          /* L^judged_p > kappa_p on some PU */
	bool has_bound;
	double bound; /* B_judged */
};

/* The capacities and the bound of a maxmin joint problem m (its
 * m->capacity gives only hi_p; the loads are on kappa 1) for the candidates cand[0..n_cand) (joint
 * vectors), the runs rho = 0..n_runs-1 of candidate run_cand[rho] with
 * tasks/s per stream run_rate[rho][S] (every entry > 0), and the chosen
 * best (0 <= best < n_cand). Units: with cal NULL the table's (m's own
 * times and weights); else every time of app a on PU p multiplied by
 * cal->scale[a][p], T_io by cal->io_scale[a], and weight w[s] /
 * cal->measured_ms[a] (M's units, driver/workload_calib.h). Fills *c
 * (zeroed first; btc_workload_capacity_free). Returns false, reported,
 * when a bound's LP fails, or false, with has_bound false and nothing
 * reported, when no run is of best. */
bool btc_workload_capacity_problem(const struct btc_multi_problem *m,
				   const struct btc_workload_calib *cal, const double *w,
				   const int *const *cand, int n_cand, int n_runs,
				   const int *run_cand, const double *const *run_rate, int best,
				   struct btc_workload_capacity *c, struct btc_diag *d);

/* The same for a joint plan (maxmin only: false otherwise, nothing
 * reported): the plan's candidates and their runs. */
bool btc_workload_capacity(const struct btc_joint_plan *j, const struct btc_workload_calib *cal,
			   int n_runs, const int *run_cand, const double *const *run_rate, int best,
			   struct btc_workload_capacity *c, struct btc_diag *d);
void btc_workload_capacity_free(struct btc_workload_capacity *c);

/* Prints the chosen's measured M (m > 0) against the bound with the
 * measured capacities (cal: the calibrated one's units, else the table's;
 * tab: the table's, or NULL): kappa per PU above 1, the runs it came from,
 * and the ratio, or "NOT a bound" where M lies above it. */
void btc_workload_print_capacity(const struct btc_joint_plan *j,
				 const struct btc_workload_capacity *cal,
				 const struct btc_workload_capacity *tab, double m);

/* plan.fluid_bound_capacity of the report (docs/report.md): kappa per PU,
 * the runs' loads, the bounds (calibrated, table), holds and
 * capacity_exceeded when m > 0. */
void btc_workload_add_capacity(cJSON *plan, const struct btc_joint_plan *j,
			       const struct btc_workload_capacity *cal,
			       const struct btc_workload_capacity *tab, double m);

#endif
