/* Shared by the "multi" suite's files (suite_multi.c, suite_multi_share.c,
 * suite_multi_space.c): the private generator of their random workloads,
 * the random several-streams workload, and the check that the searches
 * rank exactly as the exhaustive oracle (sched/multi.h). */
#ifndef BTC_TEST_SCHED_MULTI_TESTLIB_H
#define BTC_TEST_SCHED_MULTI_TESTLIB_H

#include <stdbool.h>

#include "sched/multi.h"

/* The generator (a 64-bit LCG, Knuth's MMIX constants, the high bits):
 * every libc gives the same workloads. One state for the suite; each
 * random test seeds it first. */
void multi_seed(unsigned long seed);

/* A number in lo..hi, inclusive (hi >= lo). */
int multi_rnd(int lo, int hi);

/* Whether x and y rank the same candidates: as many, and rank by rank the
 * same cost and the same vector of n entries. Prints each difference,
 * labelled with what and workload k, to stderr. */
bool multi_same_rank(const struct btc_multi_result *x, const struct btc_multi_result *y, int n,
		     int k, const char *what);

/* A joint solver (btc_multi_solve and its searches) */
typedef enum btc_status (*multi_solver_fn)(const struct btc_multi_problem *,
					   struct btc_multi_result *, struct btc_diag *);

/* f on m, with a silent diagnostic sink. */
enum btc_status multi_run(multi_solver_fn f, const struct btc_multi_problem *m,
			  struct btc_multi_result *r);

/* One solver held against the oracle; name labels its differences. */
struct multi_solver {
	multi_solver_fn fn;
	const char *name;
};

/* Solves m with each of the n (<= 8) solvers into r[0..n-1] (the caller frees
 * them, whatever the status) and asserts that each status is the
 * oracle's (ro; o its result); where all are BTC_OK, asserts that each
 * ranks as o (multi_same_rank, labelled "<tag><name>/oracle"). Returns
 * whether all n and the oracle answered BTC_OK. */
bool multi_check_solvers(const struct btc_multi_problem *m, enum btc_status ro,
			 const struct btc_multi_result *o, int n, const struct multi_solver *sv,
			 struct btc_multi_result *r, int k, const char *tag);

/* Frees r[0..n-1]. */
void multi_results_free(struct btc_multi_result *r, int n);

/* Asserts that the multi-stream fluid bound of m (btc_multi_bound)
 * answers and lies at or above best (tasks per ms: the best candidate's
 * lambda, or its summed throughput under BTC_MULTI_SUM), to a relative
 * 1e-9; prints workload k's shortfall, labelled with tag. */
void multi_check_bound(const struct btc_multi_problem *m, double best, int k, const char *tag);

/* best for multi_check_bound from the best candidate's cost: its lambda
 * 1 / cost, or -cost (the summed throughput) under BTC_MULTI_SUM. */
double multi_best_of_cost(const struct btc_multi_problem *m, double cost);

/* A random workload of several streams per app: 2..3 PUs, 1..2 apps of
 * 1..3 stages (1..2 with 4 streams), 2..4 streams ordered by app as the
 * CLI orders them (interchangeable neighbours), times in eighths of a ms
 * (a tenth of them NaN off PU 0), chunk-model terms F and T_io on a
 * quarter of the apps, co-run slowdowns 1..2 per app. Drawn in two
 * steps so each test draws with_slow its own way between them. The
 * streams point into the struct's p: keep it in place. */
struct multi_streams {
	int np, n_apps, S;
	double t[2][3 * 3], f[2][3], slow[2][9];
	struct btc_sched_problem p[2];
	struct btc_multi_stream st[4];
};

/* The apps (np, n_apps, S, t, f, slow, p). */
void multi_rnd_apps(struct multi_streams *w);

/* The S streams (weights, rates, with_slow: the app's slowdowns), in app
 * order. */
void multi_rnd_streams(struct multi_streams *w, bool with_slow);

#endif
