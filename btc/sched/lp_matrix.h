/* A sparse constraint matrix in GLPK's triplet form, grown entry by entry
 * while an LP or MIP is built and then handed to glp_load_matrix: the
 * fluid bound (sched/bound.c), the assignment bound
 * (sched/bound_assign.c) and the multi-app fluid bound (sched/multi_bound.c)
 * build theirs through it. */
#ifndef BTC_LP_MATRIX_H
#define BTC_LP_MATRIX_H

#include <glpk.h>

/* Entries 1..ne of ia (row), ja (column) and ar (coefficient), 1-based as
 * GLPK wants them (entry 0 unused); cap entries allocated. Zero-initialise
 * ({0}) to start empty. */
struct btc_lp_matrix {
	int ne, cap;
	int *ia, *ja;
	double *ar;
};

/* Appends the coefficient v at (row, col), 1-based GLPK indices; grows
 * the arrays (btc_xrealloc: out of memory panics). */
void btc_lp_matrix_put(struct btc_lp_matrix *m, int row, int col, double v);

/* Loads m into lp as its whole constraint matrix (glp_load_matrix: the
 * rows and columns must exist) and frees m's arrays. */
void btc_lp_matrix_load(glp_prob *lp, struct btc_lp_matrix *m);

#endif
