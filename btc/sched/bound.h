/* The fluid bound: the lowest period that any assignment of a profiling
 * table's work to the PUs could reach, a linear program solved with GLPK's
 * simplex and certified by a dual solution (docs/scheduler.md, "The fluid
 * bound").
 *
 * Every schedule of the paper's space (one chunk per PU), and every
 * schedule that splits a stage's tasks among several PUs (a farm, or any
 * fractional split of the work), gives a feasible point of the LP below,
 * so its optimum is a lower bound on the period of every such schedule
 * under the table's model. With x[i][c] the fraction of stage i's tasks
 * done on PU c (a variable only where the stage has a time on c, c is not
 * forbidden, and the stage is not pinned to another PU) and y[c] the
 * fraction of tasks that PU c touches at all:
 *
 *   minimise T  subject to
 *     sum_c x[i][c] = 1                                  every stage i
 *     F_c y[c] + sum_i x[i][c] t_{i,c} <= T              every PU c
 *     x[i][c] <= y[c]          every allowed (i, c) with F_c > 0
 *     x, y, T >= 0
 *
 *   bound = max(T_io, T*)
 *
 * t_{i,c}: the stage's compute time (struct btc_sched_problem time_ms:
 * the chunk model's t_{i,c}, or the paper's one-stage time); F_c: the
 * chunk model's fixed cost per chunk per task, paid once for every task a
 * PU touches (a task that visits PU c runs at least one chunk there); the
 * y rows and F enter only when fixed_ms is given. X_c(f, l) is left out:
 * transfers depend on which neighbours a chunk has, and X >= 0, so leaving
 * it out keeps the bound a bound. T_io: the io thread's load + check per
 * task, a thread of its own that every task passes. Without model terms
 * (the paper's model) the bound is the LP over the stage times alone. */
#ifndef BTC_BOUND_H
#define BTC_BOUND_H

#include <stdbool.h>

#include "sched/optimizer.h"
#include "util/diag.h"

/* The bound and the LP's optimum. Arrays owned by the struct: release
 * with btc_sched_bound_free. */
struct btc_sched_bound {
	int n_stages, n_pus;
	double bound_ms; /* max(T_io, lp_ms), ms per task */
	double lp_ms;    /* T*, the LP's optimum (the largest load of frac,
			  * within gap_ms of T*), ms per task */
	double io_ms;    /* T_io of the problem, ms per task */
	/* [n_stages * n_pus], row-major: x[i][c] at the optimum, 0 where the
	 * pair is not allowed; every row sums to 1. One optimal vertex: the
	 * LP's optimum value is unique, its x need not be. */
	double *frac;
	double *load_ms;  /* [n_pus] F_c y[c] + sum_i x[i][c] t_{i,c} <= lp_ms */
	double *touch;    /* [n_pus] y[c] (max_i x[i][c]), the fraction of
			   * tasks PU c touches */
	/* The certificate: a dual solution (GLPK's row duals, clipped to
	 * feasibility and evaluated here) proves T* >= lp_ms - gap_ms, and
	 * frac is a feasible point with max load lp_ms, so lp_ms is T* within
	 * gap_ms. btc_sched_fluid_bound fails when gap_ms > 1e-9 lp_ms. */
	double gap_ms;
};

/* Computes the fluid bound of p. From opt only forbid_mask and pin are
 * read (the objective, K, the chunk limit and the budget do not change
 * what the PUs can do); NULL: none. Fills *b (zeroed first; release with
 * btc_sched_bound_free, also after an error). Returns BTC_OK;
 * BTC_ERR_TABLE / BTC_ERR_USAGE from btc_sched_validate (reported through
 * d); BTC_ERR_UNSAT when the forbidden PUs and pins leave a stage no PU
 * (reported, naming the stage); BTC_ERR_LIMIT when GLPK finds no optimum
 * or the certificate's gap exceeds 1e-9 of the optimum (reported; not
 * expected for a valid problem). Silences GLPK's terminal output. */
enum btc_status btc_sched_fluid_bound(const struct btc_sched_problem *p,
				     const struct btc_sched_options *opt,
				     struct btc_sched_bound *b, struct btc_diag *d);

/* As btc_sched_fluid_bound, with offset_ms ([n_pus], each <= 0, or NULL)
 * added to every PU row: F_c y_c + sum_i x_ic t_ic + offset_c <= T. A
 * calibrated fixed cost a_c + b_c F_c may be negative (report/fit.c): it
 * enters as max(0, .) in fixed_ms and min(0, .) here. Valid because y_c
 * <= 1: a PU touching a share s of the tasks carries s (F + off) + ... >=
 * F y + off + ...; load_ms includes the offset. */
enum btc_status btc_sched_fluid_bound_offset(const struct btc_sched_problem *p,
					    const struct btc_sched_options *opt,
					    const double *offset_ms, struct btc_sched_bound *b,
					    struct btc_diag *d);

void btc_sched_bound_free(struct btc_sched_bound *b);

/* Whether the LPs of both bounds give stage i a variable on PU c
 * (0-based): p has a time there (not NAN), opt (may be NULL) does not
 * forbid c and does not pin i to another PU. */
bool btc_sched_bound_allowed(const struct btc_sched_problem *p,
			     const struct btc_sched_options *opt, int i, int c);

/* The times both bounds work on (docs/scheduler.md, "The assignment
 * bound"): when opt->core_splits and p has profiled core counts, a copy
 * of p in *q whose t_ic on a CPU PU that may be split is the least
 * core-time share e_ic = min(t_ic, min_k (k / size) t_{i,c,k}) and whose
 * F_c is (k_min / size) F_c (teams on k_j cores with sum k_j <= size and
 * each load <= T give sum_j (k_j / size) load_j <= T); the arrays are
 * new (*time_ms, *fixed_ms; free() them). Otherwise *q = *p, both NULL.
 * Returns whether q differs from p. */
bool btc_sched_bound_effective(const struct btc_sched_problem *p,
			       const struct btc_sched_options *opt, struct btc_sched_problem *q,
			       double **time_ms, double **fixed_ms);

/* The assignment bound: the fluid LP with every stage on exactly one PU
 * (binary x_ic), PU c paying F_c when used (binary y_c), contiguity and
 * transfers relaxed, solved as a MIP by GLPK's branch and cut; with farms
 * in the space the PU's fraction of its stages is one share s_c (x_ic =
 * s_c a_ic, a binary), what a farm's member does. docs/scheduler.md, "The
 * assignment bound", gives the MIP and why it bounds every schedule of
 * the searched space. Arrays owned: btc_sched_assign_free. */
struct btc_sched_assign {
	int n_stages, n_pus;
	double bound_ms; /* max(fluid bound, T_io, mip_ms): ms per task */
	double mip_ms;   /* the MIP's optimum T*, less GLPK's tolerance
			  * (BTC_SCHED_ASSIGN_SLACK relative), with the
			  * contiguity rows when contiguous; NAN when not
			  * solved (exact false) */
	double relaxed_ms; /* the same MIP without the contiguity rows
			    * (<= mip_ms), NAN when not solved */
	bool contiguous;   /* mip_ms has the contiguity rows (C2) */
	double io_ms;    /* T_io */
	bool farms;      /* the share formulation (opt->farms) */
	bool exact;      /* the MIP was solved to optimality; false: GLPK
			  * failed or hit BTC_SCHED_ASSIGN_TIME_MS, bound_ms is
			  * the fluid bound's (still a bound) */
	/* [n_stages * n_pus] x_ic at the incumbent (0/1; a share with farms),
	 * [n_pus] the loads F_c y_c + sum_i x_ic t_ic and y_c (share s_c);
	 * all 0 when !exact. */
	double *frac;
	double *load_ms;
	double *share;
	double solve_ms; /* wall time of the MIP */
};

/* Relative slack taken off GLPK's MIP optimum: its branch and cut prunes a
 * node whose LP bound is within tol_obj (1e-7) (1 + |obj|) of the
 * incumbent, on a problem scaled so that the fluid LP's optimum is 1. */
#define BTC_SCHED_ASSIGN_SLACK 1e-6
/* GLPK's time limit for the MIP; past it the fluid bound stands. */
#define BTC_SCHED_ASSIGN_TIME_MS 2000

/* Computes the assignment bound of p under opt (forbid_mask, pin,
 * max_chunks without farms, farms, core_splits are read), given fluid,
 * p's fluid bound under the same opt and offsets (btc_sched_fluid_bound
 * or _offset, BTC_OK). offset_ms: as btc_sched_fluid_bound_offset, or
 * NULL; without farms it enters as offset_c y_c (y binary: a used PU
 * pays F_c + offset_c exactly), with farms as a constant.
 * Fills *a (zeroed first; btc_sched_assign_free, also after an error).
 * Returns BTC_OK, also when the MIP is not solved (a->exact false,
 * a->bound_ms = fluid->bound_ms: GLPK's failure, its time limit or an
 * infeasible MIP (max_chunks below what the pins need) is no error, the
 * fluid bound is a bound); d is not written today. Silences GLPK's
 * terminal output. */
enum btc_status btc_sched_assign_bound(const struct btc_sched_problem *p,
				      const struct btc_sched_options *opt,
				      const double *offset_ms,
				      const struct btc_sched_bound *fluid,
				      struct btc_sched_assign *a, struct btc_diag *d);

void btc_sched_assign_free(struct btc_sched_assign *a);

/* The assignment bound's own assignment as a schedule of the paper's
 * space (docs/scheduler.md, "The assignment bound's assignment"): the
 * contiguous MIP's incumbent a->frac, each maximal run of stages on one
 * PU a chunk on all its cores. Writes the chunks (PU and stage ranges;
 * times, farm and cores 0) into *s and returns true when a is exact, has
 * no farm shares, every stage lies on one PU that p and opt allow (a
 * kernel there, not forbidden, not pinned elsewhere), every PU runs at
 * most one chunk (C2) and opt->max_chunks (when > 0) holds. A schedule of
 * one chunk is a baseline. False otherwise (*s then undefined). */
bool btc_sched_assign_schedule(const struct btc_sched_assign *a,
			       const struct btc_sched_problem *p,
			       const struct btc_sched_options *opt, struct btc_schedule *s);

/* Sets T_io in both bounds to io_ms (ms per task; the io farms change it
 * after the bounds were solved: the LP and the MIP do not depend on it)
 * and raises bound_ms as btc_sched_fluid_bound and btc_sched_assign_bound
 * do: b->bound_ms = max(T_io, lp_ms), a->bound_ms = max(b->bound_ms, T_io,
 * mip_ms) when a->exact, else b->bound_ms. a may be NULL. */
void btc_sched_bound_set_io(struct btc_sched_bound *b, struct btc_sched_assign *a,
			    double io_ms);

/* Tests only: > 0 makes the next btc_sched_assign_bound calls fail as if
 * GLPK had (1: glp_intopt's error return, 2: its time limit), or (3)
 * makes GLPK stop on an internal error in each MIP's first try, so that
 * it is solved again with the other branching technique. */
extern int btc_sched_assign_fail;

/* GLPK's internal errors btc_sched_assign_bound has caught (each MIP so
 * stopped is solved again with another branching technique), since the
 * process started; for tests and diagnostics. */
extern int btc_sched_assign_glpk_errors;

/* Efficiency of a period (predicted or measured, ms per task) against
 * the bound: bound_ms / period_ms. At most 1 for every period the model
 * predicts; a measured period can lie below the bound (ratio > 1) when
 * the run is faster than the table says the PUs are. NAN when either is
 * NAN or period_ms <= 0. */
double btc_sched_bound_efficiency(double bound_ms, double period_ms);

#endif
