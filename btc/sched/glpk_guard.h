/* GLPK's internal errors, caught. GLPK stops the process on an internal
 * error (glp_error: a failed assertion, a bad argument; Debian 12's GLPK
 * 5.0 stops so inside glp_intopt on a real assignment bound,
 * test/sched/suite_assign.c) unless an error hook takes over. Every LP and
 * MIP of btc runs through btc_glpk_run: the fluid bound (sched/bound.c),
 * the assignment bound (sched/bound_assign.c) and the multi-app LPs
 * (sched/multi_bound.c). GLPK is not thread-safe; neither is this. */
#ifndef BTC_GLPK_GUARD_H
#define BTC_GLPK_GUARD_H

#include <glpk.h>

/* What a guarded solve returns. */
enum {
	BTC_GLPK_OK = 0,          /* the solver reached its optimum */
	BTC_GLPK_NO_OPTIMUM = -1, /* it ended without one (fn's own -1) */
	BTC_GLPK_INTERNAL = -2,   /* GLPK stopped on an internal error */
};

/* Runs fn(lp, arg) (returning BTC_GLPK_OK or BTC_GLPK_NO_OPTIMUM) with
 * GLPK's error hook set and its terminal output off. On an internal
 * error it returns BTC_GLPK_INTERNAL after freeing GLPK's environment
 * (glp_free_env): lp and every other GLPK object are gone, so the caller
 * must not touch or delete lp; the next GLPK call starts a fresh
 * environment. Counts such errors in btc_glpk_internal_errors. */
int btc_glpk_run(int (*fn)(glp_prob *lp, void *arg), glp_prob *lp, void *arg);

/* glp_simplex (the primal simplex, messages off) on lp through
 * btc_glpk_run: BTC_GLPK_OK when it ends optimal (GLP_OPT), else
 * BTC_GLPK_NO_OPTIMUM or BTC_GLPK_INTERNAL (lp gone, as above). */
int btc_glpk_simplex(glp_prob *lp);

/* The same simplex unguarded, for a btc_glpk_run fn that goes on from
 * the LP's optimum (the assignment bound's branch and cut): BTC_GLPK_OK
 * or BTC_GLPK_NO_OPTIMUM. */
int btc_glpk_simplex_in_run(glp_prob *lp);

/* GLPK's internal errors caught since the process started (tests,
 * diagnostics). */
extern int btc_glpk_internal_errors;

/* Tests only: > 0 makes each of the next that many btc_glpk_simplex calls
 * stop on a GLPK internal error (a row index out of range) before it
 * solves. */
extern int btc_glpk_simplex_fail;

#endif
