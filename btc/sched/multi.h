/* Several apps and streams on one chip (issue 27; docs/scheduler.md,
 * "Several apps"): the joint model, its solvers and the multi-stream fluid
 * bound.
 *
 * A workload is a set of streams; each is an instance of an app (its own
 * task stream and input) with a weight w_s or a target rate. A stream is a
 * pipeline of contiguous chunks of its app, at most one chunk per PU (the
 * paper's space), or with `farms` / `core_splits` the larger space of one
 * app (farms, chunks on some of a CPU PU's cores: btc_multi_larger). A PU
 * may host chunks of several streams and time-shares them:
 *
 *   t_{s,p} = chunk_ms(s's chunk on p) * sigma_{s,p}                 [ms]
 *   sigma_{s,p} = max(1, max over PUs q != p that host a chunk of
 *                 another stream: slowdown_s[p][q])
 *   util_p = sum_s r_s t_{s,p} <= kappa_p(n_p)   every PU p;
 *   r_s T_io_s <= 1                                                   (U)
 *
 * with n_p the number of streams that have a chunk on p and kappa_p(n)
 * PU p's measured same-PU capacity with n streams' chunks on it at once
 * (the `@share` rows, docs/app-format.md: profiled PU-ms delivered per
 * ms, e.g. a GPU overlapping kernels of several CUDA streams: > 1, or
 * losing to switching: < 1); kappa_p(0) = kappa_p(1) = 1, and 1 for
 * every n without capacities.
 *
 * chunk_ms is btc's chunk model (sched/model.h: F + sum t + X, the
 * app's table), r_s the stream's throughput in tasks/ms, T_io_s its io
 * thread's time per task (each stream has its own io thread). Objectives:
 *
 *   maxmin  maximise lambda with r_s = lambda w_s:
 *           lambda* = 1 / max(max_p sum_s w_s t_{s,p} / kappa_p(n_p),
 *                             max_s w_s T_io_s)
 *   rates   meet r_s = target_s at the lowest peak utilisation
 *           U = max(max_p sum_s target_s t_{s,p} / kappa_p(n_p),
 *                   max_s target_s T_io_s);
 *           U > 1: the targets cannot all be met (rates scale by 1 / U)
 *   sum     maximise sum_s w_s r_s subject to (U): for a fixed assignment
 *           a linear program over r (GLPK)
 *
 * maxmin and rates rank assignments by the same cost, the peak weighted
 * load C = max(max_p sum_s c_s t_{s,p} / kappa_p(n_p), max_s c_s T_io_s) with c = w or
 * target; sum by -sum_s w_s r_s. Ties are broken by the joint stage-to-PU
 * vector (streams in order, stages in order), lexicographically, so the
 * ranking is a total order fixed by the problem. Streams of one app with
 * equal weight and target are interchangeable: a joint candidate is
 * canonical when their stage-to-PU vectors are in non-decreasing
 * lexicographic order, and only canonical candidates are ranked (K
 * candidates are K different schedules, not K permutations of one).
 *
 * A PU's load is the sum of its terms c_s t_{s,p} rounded once (to
 * nearest, ties to even; btc_multi_fsum in multi_internal.h), then
 * divided by kappa_p(n_p) (one more rounding; exact when kappa is 1), so
 * the cost does not depend on the order of the terms: the Z3 encoding
 * reasons over the exact sums and ranks as this does. The bounds of the
 * searches divide a PU's load by max(1, max_n kappa_p(n)), never by
 * less, so a capacity below 1 (a slowdown) or above (a speedup) keeps them
 * lower bounds.
 *
 * Three solvers implement the contract: btc_multi_solve_z3 (Z3;
 * multi_z3*.c), btc_multi_solve_bb (branch and bound) and
 * btc_multi_solve_exhaustive (plain enumeration of stage-to-PU vectors,
 * separate code, the oracle of the tests). btc_multi_solve, the one btc
 * uses (`--solver z3`, the default), runs the branch and bound and the Z3
 * search in turn with growing budgets of work (BTC_MULTI_BB_NODES
 * branches, BTC_MULTI_Z3_CHECKS checks; x8 and x4 a round) until one
 * finishes: the branch and bound answers one stream per app in
 * milliseconds, Z3 several streams per app (4 + 4 streams: seconds,
 * against more than 10 minutes); both are exact, so the ranking is the
 * same whichever answers (n_evaluated is its). With co-run slowdowns or
 * same-PU capacities it is btc_multi_solve_occupancy (a search over
 * which PUs each stream occupies: the state fixes every sigma and every
 * n_p; multi_occupancy.c) when the workload has at most
 * BTC_MULTI_OCC_STATES such states, else with slowdowns the branch and
 * bound alone (Z3's sigma levels make its checks slow), with capacities
 * alone the rounds above. The larger space (btc_multi_larger: farms, core
 * splits) has no Z3 encoding: btc_multi_solve answers it with the
 * occupancy search (at most BTC_MULTI_OCC_STATES states) or else the
 * branch and bound, with or without slowdowns, and btc_multi_solve_z3
 * refuses it (BTC_ERR_USAGE). */
#ifndef BTC_MULTI_H
#define BTC_MULTI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sched/optimizer.h"
#include "util/diag.h"

#define BTC_MULTI_MAX_STREAMS 64
/* btc_multi_solve's first budgets: branches of the branch and bound
 * (0.05 to 1 s on the dev box), then checks of the Z3 search; x8 and x4
 * each round. */
#define BTC_MULTI_BB_NODES 3000000L
#define BTC_MULTI_Z3_CHECKS 1000L
/* btc_multi_solve_occupancy's limit on occupancy states (the product over
 * the streams of the distinct PU sets of their assignments: 15^3 = 3375
 * for 3 streams on 4 PUs). */
#define BTC_MULTI_OCC_STATES 200000L

enum btc_multi_objective { BTC_MULTI_MAXMIN, BTC_MULTI_RATES, BTC_MULTI_SUM };
const char *btc_multi_objective_name(enum btc_multi_objective o);
/* "maxmin", "rates", "sum" -> 0 and *o; else -1. */
int btc_multi_objective_parse(const char *s, enum btc_multi_objective *o);

/* One stream. The problem is its app's (the chunk model of its table on
 * the shared device: every stream's problem has the same n_pus, PU order
 * and names); borrowed. */
struct btc_multi_stream {
	const struct btc_sched_problem *p;
	int app;       /* index of the app; streams of one app share p */
	double weight; /* w_s > 0 (maxmin, sum) */
	double rate;   /* target_s in tasks/ms (rates), > 0; else ignored */
	const char *name; /* "octree#0", for the output; NULL: "s<i>" */
	/* [n_pus * n_pus] slowdown[p * n_pus + q]: the factor by which this
	 * stream's chunk on p slows while another stream's chunk occupies q
	 * (its app's @corun rows; values < 1 count as 1), or NULL: every
	 * factor 1. */
	const double *slowdown;
};

struct btc_multi_problem {
	int n_streams; /* 1..BTC_MULTI_MAX_STREAMS */
	int n_pus;
	const struct btc_multi_stream *streams;
	uint32_t forbid_mask; /* bit p: PU p runs no chunk of any stream */
	/* [n_pus * (n_streams + 1)] capacity[p * (n_streams + 1) + n] =
	 * kappa_p(n), finite > 0, for n >= 2 (entries n < 2 are ignored:
	 * 1), or NULL: every kappa 1 (the time-shared PU of one PU-ms per
	 * ms). Borrowed. */
	const double *capacity;
	enum btc_multi_objective objective;
	int top_k; /* K >= 1 */
	/* The larger space (docs/scheduler.md, "Farms and core splits in
	 * the joint space"), as btc_sched_options' fields: a stream's chunk
	 * may be a farm over 2..farm_max_pus allowed PUs (or all of them), or
	 * run on k of a split CPU PU's cores (k a profiled count, the
	 * stream's chunks on the PU taking at most its cores). Both false:
	 * the paper's space and its stage-to-PU vectors. */
	bool farms, core_splits;
	int farm_max_pus; /* 0: BTC_SCHED_FARM_MAX_PUS */
};

/* Whether m's space is the larger one (farms or core splits). Its joint
 * vectors are then stage-to-code vectors: stream s's entry at stage i is
 * 2 o + cut, o the index of the stage's chunk option among the stream's
 * options in code order (btc_multi_stream_options), cut 1 when a chunk
 * starts there beside a chunk of the same option (multi_space.c). */
bool btc_multi_larger(const struct btc_multi_problem *m);

/* Stream s's schedule of its part a of a joint vector (either space): its
 * chunks (pu, stages, farm, cores as struct btc_sched_chunk; time_ms from
 * btc_model_chunk_time_ms) into ch (room for n_stages). Returns the chunk
 * count, or -1 when a is no schedule of the stream. */
int btc_multi_stream_schedule(const struct btc_multi_problem *m, int s, const int *a,
			      struct btc_sched_chunk *ch);

/* The inverse: stream s's part a (n_stages entries) of a joint vector
 * for the chunks ch[0..n_chunks) in stage order. False when they are no
 * schedule of the stream's space (a farm or core count outside it, stages
 * not covered, units, a stage without a time). */
bool btc_multi_stream_encode(const struct btc_multi_problem *m, int s,
			     const struct btc_sched_chunk *ch, int n_chunks, int *a);

/* Offsets of the streams' stages in a joint vector: stream s's stage i is
 * at btc_multi_offset(m, s) + i; the vector has btc_multi_offset(m,
 * n_streams) entries. */
int btc_multi_offset(const struct btc_multi_problem *m, int s);

/* The evaluation of one joint assignment. Arrays owned (btc_multi_eval_free). */
struct btc_multi_eval {
	double cost;   /* the ranking cost (lower is better; see above) */
	double lambda; /* maxmin: lambda*, tasks/ms per unit weight;
			* rates: 1 / U; sum: sum_s w_s r_s, tasks/ms */
	double peak;   /* max_p util_p under rate, 0..1 (rates: U when the
			* targets are met) */
	double *rate;  /* [n_streams] r_s, tasks/ms (rates with U > 1: the
			* targets scaled by 1 / U) */
	double *t;     /* [n_streams * n_pus] t_{s,p} with sigma, ms; 0 where
			* the stream has no chunk on p */
	double *sigma; /* [n_streams * n_pus] sigma_{s,p} (1 where no chunk) */
	double *util;  /* [n_pus] sum_s r_s t_{s,p} / kappa_p: the share of
			* the PU's capacity in use, 0..1 */
	double *kappa; /* [n_pus] kappa_p(n_p) of the assignment (1: not
			* shared, or no capacities) */
	int bottleneck; /* the PU of the largest load, or -1 - s when stream
			 * s's io thread is, or -1 - n_streams - s when
			 * stream s's chunk on part of a PU's cores is (its
			 * team's time, the larger space) */
};
void btc_multi_eval_free(struct btc_multi_eval *e);

/* Checks the problem (streams, weights, rates, slowdowns, shapes) and each
 * stream's problem (btc_sched_validate); reports and returns
 * BTC_ERR_USAGE / BTC_ERR_TABLE, or BTC_OK. */
enum btc_status btc_multi_validate(const struct btc_multi_problem *m, struct btc_diag *d);

/* Evaluates the joint stage-to-PU vector a (every stream contiguous, one
 * chunk per PU per stream, every stage with a time on its PU): fills *e
 * (zeroed first). Returns false when a is not such an assignment, or the
 * sum LP fails (e->cost is then INFINITY). */
bool btc_multi_evaluate(const struct btc_multi_problem *m, const int *a, struct btc_multi_eval *e);

/* Total order of ranked candidates: cost, then the vector (n entries). */
int btc_multi_cmp(double cost_x, const int *x, double cost_y, const int *y, int n);

/* Whether a is canonical (see above): interchangeable streams' vectors
 * non-decreasing. */
bool btc_multi_canonical(const struct btc_multi_problem *m, const int *a);

struct btc_multi_candidate {
	int *a; /* [btc_multi_offset(m, n_streams)] joint stage-to-PU vector */
	double cost;
};

struct btc_multi_result {
	struct btc_multi_candidate *c; /* ranked, best first, at most top_k */
	int n;
	long n_evaluated; /* joint candidates costed */
	double solve_ms;
};
void btc_multi_result_free(struct btc_multi_result *r);

/* The solvers: fill *r (zeroed first) with the top K canonical joint
 * candidates. BTC_OK; BTC_ERR_USAGE / BTC_ERR_TABLE from validation;
 * BTC_ERR_UNSAT when some stream has no assignment at all (reported,
 * naming it); BTC_ERR_LIMIT (exhaustive: more than
 * BTC_SCHED_EXHAUSTIVE_LIMIT joint vectors; Z3: the solver gave up;
 * reported). btc_multi_solve (Z3) hands objective sum to
 * btc_multi_solve_bb's enumeration (no peak load to bound; one GLPK LP
 * per joint schedule). btc_multi_solve_z3: BTC_ERR_USAGE (reported) in
 * the larger space (btc_multi_larger). r->n_evaluated: joint schedules
 * costed (Z3: the models read). */
enum btc_status btc_multi_solve(const struct btc_multi_problem *m, struct btc_multi_result *r,
				struct btc_diag *d);
enum btc_status btc_multi_solve_z3(const struct btc_multi_problem *m, struct btc_multi_result *r,
				   struct btc_diag *d);
enum btc_status btc_multi_solve_bb(const struct btc_multi_problem *m, struct btc_multi_result *r,
				   struct btc_diag *d);
/* btc_multi_solve_occupancy: the occupancy states (each stream's set of
 * PUs) in order of their lower bound, a branch and bound within each
 * (multi_occupancy.c); objective sum goes to btc_multi_solve_bb. Also
 * BTC_ERR_LIMIT, reported, with more than BTC_MULTI_OCC_STATES states. */
enum btc_status btc_multi_solve_occupancy(const struct btc_multi_problem *m,
					  struct btc_multi_result *r, struct btc_diag *d);
enum btc_status btc_multi_solve_exhaustive(const struct btc_multi_problem *m,
					   struct btc_multi_result *r, struct btc_diag *d);

/* The multi-stream fluid bound: every stage's work of every stream split
 * fractionally over the PUs (rates-form LP, GLPK; docs/scheduler.md):
 *
 *   z_{s,i,p} >= 0: stream s's tasks/ms of stage i on PU p
 *   u_{s,p}  >= z_{s,i,p}: tasks/ms of s that touch p (pays F_{s,p})
 *   sum_p z_{s,i,p} = r_s                     every s, i
 *   sum_s (F_{s,p} u_{s,p} + sum_i t_{s,i,p} z_{s,i,p}) <= 1   every p
 *   r_s T_io_s <= 1
 *   maxmin: r_s = lambda w_s, maximise lambda; rates: r_s = theta
 *   target_s, maximise theta (U_bound = 1 / theta); sum: maximise
 *   sum_s w_s r_s.
 *
 * with each PU's row <= max(1, max_n kappa_p(n)) instead of 1 (the split
 * has no stream count; no assignment's PU delivers more than that).
 * With core splits, t_{s,i,p} is the least of t_{s,i,p} and k / n x
 * t_{s,i,p,k} over the profiled counts k of the PU's n cores and F the
 * least k / n of F (a split chunk's share of the PU); a farm is a
 * fractional split already (each admitted member does farm_ms a task).
 * X and the slowdowns (>= 1) are left out, so *value is an upper bound on
 * every joint assignment's lambda (1 / cost for maxmin and rates; the
 * weighted sum for sum). Returns BTC_OK, or BTC_ERR_LIMIT when GLPK finds
 * no optimum (reported). */
enum btc_status btc_multi_bound(const struct btc_multi_problem *m, double *value,
				struct btc_diag *d);

/* Enumerates stream s's contiguous assignments in the paper's space
 * (forbid_mask applied), calling fn(a, ctx) with its stage-to-PU vector
 * (borrowed for the call). Returns the number. For the solvers. */
long btc_multi_stream_assignments(const struct btc_multi_problem *m, int s,
				  void (*fn)(const int *a, void *ctx), void *ctx);

#endif
