/* The best period of a searched space, by the exhaustive oracle: what the
 * bounds' suites (suite_bound.c, suite_assign.c) and sched-bench --bounds
 * hold a bound against. */
#ifndef BTC_TEST_SCHED_BEST_PERIOD_H
#define BTC_TEST_SCHED_BEST_PERIOD_H

#include "sched/optimizer.h"

/* The best period (ms per task) any schedule of the space o searches
 * reaches on p, by enumeration (btc_sched_solve_exhaustive): the latency
 * objective's rank 1 (the multi-chunk optimum) and every baseline that
 * respects o's pins (the solvers list baselines regardless of pins).
 * INFINITY when the oracle fails or finds none. */
double best_period(const struct btc_sched_problem *p, const struct btc_sched_options *o);

#endif
