/* The entry of BT-Optimizer's Z3 search over the larger space (space.h;
 * docs/scheduler.md, "The larger space"): the space, the session on the
 * one Z3 layer, the ranking (sched_space_rank.c). */
#include <stdlib.h>

#include "sched/space_gap.h"
#include "sched/z3_space.h"

enum btc_status btc_space_solve_z3(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt,
				   const struct btc_sched_prep *prep, struct btc_sched_result *res,
				   struct btc_diag *d, double t0)
{
	struct btc_space sp;
	enum btc_status st = btc_space_build(p, opt, prep, &sp, d);
	if (st != BTC_OK)
		return st;
	btc_sched_result_begin(p, opt, prep, res);
	res->candidates = btc_xcalloc((size_t)opt->top_k, sizeof(*res->candidates));
	struct zx z = {
		.p = p,
		.prep = prep,
		.sp = &sp,
		.n = prep->n,
	};
	if (opt->time_budget_ms > 0)
		sp.deadline = t0 + opt->time_budget_ms;
	btc_zx_collect_sums(&z);
	btc_z3_start(&z.b, &btc_zx_ops, opt->time_budget_ms > 0 ? sp.deadline : 0);
	btc_zx_rank(&z, opt, res);
	if (sp.expired)
		res->optimal = false;
	btc_z3_finish(&z.b, res);
	free(z.y);
	free(z.rstart);
	free(z.rcount);
	free(z.z);
	free(z.st);
	free(z.vals);
	free(z.below);
	free(z.sums);
	btc_space_win_free(&sp);
	btc_space_free(&sp);
	res->solve_ms = btc_sched_now_ms() - t0;
	return BTC_OK;
}
