/* The oracle's best period of test/sched/best_period.h. */
#include "best_period.h"

#include <math.h>
#include <stdbool.h>

double best_period(const struct btc_sched_problem *p, const struct btc_sched_options *o)
{
	struct btc_sched_options lo = *o;
	lo.objective = BTC_SCHED_LATENCY;
	lo.top_k = 1;
	struct btc_sched_result e;
	struct btc_diag d;
	btc_diag_init(&d, NULL);
	double best = INFINITY;
	if (btc_sched_solve_exhaustive(p, &lo, &e, &d) == BTC_OK) {
		if (e.n_candidates)
			best = e.candidates[0].period_ms;
		for (int k = 0; k < e.n_baselines; k++) {
			bool pinned_elsewhere = false;
			for (int i = 0; o->pin && i < p->n_stages; i++)
				pinned_elsewhere |= o->pin[i] >= 0 && o->pin[i] != e.baselines[k].pu;
			if (!pinned_elsewhere)
				best = fmin(best, e.baselines[k].period_ms);
		}
	}
	btc_sched_result_free(&e);
	return best;
}
