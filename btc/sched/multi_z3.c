/* The joint solver btc uses (sched/multi.h, btc_multi_solve): Z3 over the
 * encoding of multi_z3_encode.c, ranking exactly as the oracle.
 *
 * The ranking is by (cost, joint vector), cost = max(io, max_p round(sum
 * of p's terms)). The encoding's "cost <= d" (btc_mz_cost_le) is a
 * pseudo-Boolean relaxation in quanta; every model is costed by the
 * oracle's arithmetic (btc_multi_cost), and one that costs more than its
 * guard's d is blocked under that guard by the terms of its fullest PU
 * (all the assignments that load that PU as much go at once). So:
 *
 *  1. the least cost d among the joint schedules not yet ranked:
 *     bisection between the multi-stream fluid bound (1 / lambda, a lower
 *     bound of every cost) and the model's cost while they are more than
 *     25 % apart, then descent ("cost <= the double below the best
 *     found") until unsat: one hard unsat proof, at the optimum;
 *  2. the level d in vector order: every schedule of a lower cost is
 *     ranked and blocked, so those under "cost <= d" that cost <= d are
 *     the level. The first is the lexicographic minimum (position by
 *     position: "a_pos < v" while sat, then a_pos = v assumed); each next
 *     one shares the longest prefix possible with the previous (blocked)
 *     one, found by bisection on the prefix length (a longer shared
 *     prefix is satisfiable only if a shorter one is), then the minimum of
 *     the rest. A model over d is blocked under the guard and the step
 *     repeated: the minimum of the rest is then the level's;
 *  3. when the level runs out before K, the next level from 1.
 *
 * Objective sum (a GLPK LP per joint schedule, no peak load to bound) is
 * left to the branch and bound's enumeration (btc_multi_solve_bb). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/multi_z3.h"

static const struct btc_loc no_loc = {0};

/* A check within the session's budget of checks (0: none); past it the
 * session counts as expired. */
static int z3_check(struct mz *z)
{
	if (z->max_checks && z->b.checks >= z->max_checks)
		z->b.expired = true;
	return btc_z3_check(&z->b);
}

static int check_under(struct mz *z, int keep, Z3_ast extra)
{
	btc_z3_assume_reset(&z->b, keep);
	if (extra)
		btc_z3_assume(&z->b, extra);
	int r = z3_check(z);
	btc_z3_assume_reset(&z->b, keep);
	return r;
}

/* The least cost of the schedules left, >= lo, from the model (cost hi);
 * the model ends at one of that cost. A model under "cost <= mid" that
 * costs more (the relaxation's slack) is blocked under that guard. */
static double minimise(struct mz *z, double lo, double hi, int *keep_a)
{
	memcpy(keep_a, z->a, sizeof(int) * (size_t)z->N);
	while (lo < hi && !z->b.expired) {
		double mid = hi > 1.25 * lo ? lo + (hi - lo) / 2 : nextafter(hi, -INFINITY);
		if (mid < lo)
			mid = lo;
		Z3_ast g = btc_mz_cost_le(z, mid);
		double c = INFINITY;
		while (g && check_under(z, 0, g) == 1 && (c = btc_mz_cost(z)) > mid)
			btc_mz_block_over(z, g, mid);
		if (c <= mid) {
			hi = c;
			memcpy(keep_a, z->a, sizeof(int) * (size_t)z->N);
		} else {
			lo = nextafter(mid, INFINITY);
		}
	}
	memcpy(z->a, keep_a, sizeof(int) * (size_t)z->N);
	return hi;
}

/* The lexicographic minimum of positions start.. under the assumptions
 * made (the level's guard and a_0..a_{start-1}), from the model. */
static void lexmin(struct mz *z, int start)
{
	for (int pos = start; pos < z->N; pos++) {
		int keep = z->b.n_assume;
		for (;;) {
			Z3_ast lt = btc_mz_less(z, pos, z->a[pos]);
			if (!lt || check_under(z, keep, lt) != 1)
				break;
		}
		btc_z3_assume(&z->b, z->x[pos * z->np + z->a[pos]]);
	}
}

/* Assumes the guard g and a_pos = prev[pos] for pos < len. */
static void assume_prefix(struct mz *z, Z3_ast g, const int *prev, int len)
{
	btc_z3_assume_reset(&z->b, 0);
	btc_z3_assume(&z->b, g);
	for (int pos = 0; pos < len; pos++)
		btc_z3_assume(&z->b, z->x[pos * z->np + prev[pos]]);
}

/* The smallest schedule under g after prev (prev == NULL: the smallest),
 * every smaller one under g being blocked, into the model; false when
 * there is none. */
static bool next_under(struct mz *z, Z3_ast g, const int *prev, int *keep_a)
{
	if (check_under(z, 0, g) != 1)
		return false;
	int lo = 0, hi = prev ? z->N - 1 : 0;
	memcpy(keep_a, z->a, sizeof(int) * (size_t)z->N);
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		assume_prefix(z, g, prev, mid);
		if (z3_check(z) == 1) {
			lo = mid;
			memcpy(keep_a, z->a, sizeof(int) * (size_t)z->N);
		} else {
			hi = mid - 1;
		}
	}
	memcpy(z->a, keep_a, sizeof(int) * (size_t)z->N);
	assume_prefix(z, g, prev, lo);
	lexmin(z, lo);
	return !z->b.expired;
}

/* The next schedule of cost <= d in vector order after prev (NULL: the
 * first), spurious models of the guard g blocked under it; false when
 * the level has no more. */
static bool next_of_level(struct mz *z, Z3_ast g, double d, const int *prev, int *keep_a)
{
	while (next_under(z, g, prev, keep_a)) {
		if (btc_mz_cost(z) <= d)
			return true;
		btc_mz_block_over(z, g, d);
	}
	return false;
}

/* The model into the ranking, and blocked for good. */
static void take(struct mz *z, struct btc_multi_result *r, int *prev)
{
	btc_multi_topk_insert(r, z->m->top_k, z->N, btc_mz_cost(z), z->a);
	memcpy(prev, z->a, sizeof(int) * (size_t)z->N);
	btc_mz_block(z);
}

/* A model of the schedules left: the next level is likely near the last
 * one (prev_d, < 0: none), so within 25 % of it first. 1 sat, else 0 or
 * -1. */
static int start_level(struct mz *z, double prev_d)
{
	Z3_ast g = prev_d >= 0 ? btc_mz_cost_le(z, prev_d * 1.25) : NULL;
	if (g && check_under(z, 0, g) == 1)
		return 1;
	return check_under(z, 0, NULL);
}

static void rank(struct mz *z, struct btc_multi_result *r)
{
	int K = z->m->top_k, N = z->N;
	int *keep_a = btc_xmalloc(sizeof(int) * (size_t)N);
	int *prev = btc_xmalloc(sizeof(int) * (size_t)N);
	double lo = z->io, bound;
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	/* the fluid bound: every cost is >= 1 / its lambda (theta); a margin
	 * for GLPK's tolerances */
	if (btc_multi_bound(z->m, &bound, &quiet) == BTC_OK && bound > 0)
		lo = fmax(lo, (1 - 1e-6) / bound);
	double prev_d = -1;
	while (r->n < K && start_level(z, prev_d) == 1) {
		double d = minimise(z, lo, btc_mz_cost(z), keep_a);
		Z3_ast g = btc_mz_cost_le(z, d);
		bool more = next_of_level(z, g, d, NULL, keep_a);
		while (more && r->n < K) {
			take(z, r, prev);
			more = r->n < K && next_of_level(z, g, d, prev, keep_a);
		}
		if (z->b.expired)
			break;
		lo = nextafter(d, INFINITY);
		prev_d = d;
	}
	btc_z3_assume_reset(&z->b, 0);
	free(keep_a);
	free(prev);
}

static void count_one(const int *a, void *ctx)
{
	(void)a;
	(void)ctx;
}

static enum btc_status solve_z3(const struct btc_multi_problem *m, struct btc_multi_result *r,
				long max_checks, struct btc_diag *d);

/* Without co-run slowdowns, both exact searches in rounds of growing
 * budgets: the branch and bound
 * for BTC_MULTI_BB_NODES x 8^round branches, then Z3 for
 * BTC_MULTI_Z3_CHECKS x 4^round checks; the first to finish answers. Both
 * budgets count work, not time, so which one answers (and n_evaluated)
 * does not depend on the machine's load. With slowdowns the occupancy
 * search (multi_occupancy.c) when there are at most BTC_MULTI_OCC_STATES
 * occupancy states, else the branch and bound alone (same-PU capacities
 * without slowdowns: the occupancy search too, else the rounds below):
 * the sigma levels
 * make Z3's checks slow (random 2 x 9 x 4 workloads with slowdowns: the
 * occupancy search ~5 ms, the branch and bound ~0.3 s, Z3 minutes).
 * Objective sum: the branch and bound's enumeration. The larger space
 * (farms, core splits: btc_multi_larger) has no Z3 encoding: the
 * occupancy search with slowdowns (at most BTC_MULTI_OCC_STATES states),
 * else the branch and bound, both exact, without a budget. */
enum btc_status btc_multi_solve(const struct btc_multi_problem *m, struct btc_multi_result *r,
				struct btc_diag *d)
{
	bool slow = false;
	for (int s = 0; s < m->n_streams; s++)
		slow |= m->streams[s].slowdown != NULL;
	if (m->objective == BTC_MULTI_SUM)
		return btc_multi_solve_bb(m, r, d);
	if (btc_multi_larger(m))
		slow = true; /* no Z3 encoding of farms and splits */
	/* a state fixes every n_p, and so every same-PU capacity, as it fixes
	 * sigma; beyond the limit capacities alone go to the rounds below
	 * (Z3's encoding is exact with them) */
	if ((slow || m->capacity) && btc_multi_occupancy_states(m) <= BTC_MULTI_OCC_STATES)
		return btc_multi_solve_occupancy(m, r, d);
	if (slow)
		return btc_multi_solve_bb(m, r, d);
	double spent = 0;
	enum btc_status rc = BTC_ERR_LIMIT;
	for (long round = 0, bb = BTC_MULTI_BB_NODES, z3 = BTC_MULTI_Z3_CHECKS;
	     rc == BTC_ERR_LIMIT; round++, bb *= 8, z3 *= 4) {
		if (round > 0)
			btc_multi_result_free(r);
		rc = btc_multi_solve_bb_budget(m, r, bb, d);
		spent += r->solve_ms;
		if (rc != BTC_ERR_LIMIT)
			break;
		btc_multi_result_free(r);
		rc = solve_z3(m, r, z3, d);
		spent += r->solve_ms;
	}
	r->solve_ms = spent;
	return rc;
}

enum btc_status btc_multi_solve_z3(const struct btc_multi_problem *m, struct btc_multi_result *r,
				   struct btc_diag *d)
{
	return solve_z3(m, r, 0, d);
}

/* The Z3 search within max_checks checks (0: no limit; past them
 * BTC_ERR_LIMIT, not reported). */
static enum btc_status solve_z3(const struct btc_multi_problem *m, struct btc_multi_result *r,
				long max_checks, struct btc_diag *d)
{
	if (m->objective == BTC_MULTI_SUM)
		return btc_multi_solve_bb(m, r, d);
	if (btc_multi_larger(m)) {
		memset(r, 0, sizeof(*r));
		btc_error(d, no_loc,
			  "the Z3 search covers the paper's space only: with --farms or "
			  "--core-splits use --solver z3 (the exact searches), bb or exhaustive");
		return BTC_ERR_USAGE;
	}
	enum btc_status rc = btc_multi_begin(m, r, d);
	if (rc != BTC_OK)
		return rc;
	double t0 = btc_sched_now_ms();
	long counts[BTC_MULTI_MAX_STREAMS];
	for (int s = 0; s < m->n_streams; s++)
		counts[s] = btc_multi_stream_assignments(m, s, count_one, NULL);
	if (!btc_multi_every_stream_placed(m, counts, d)) {
		r->solve_ms = btc_sched_now_ms() - t0;
		return BTC_ERR_UNSAT;
	}
	struct mz z;
	btc_mz_start(&z, m);
	z.max_checks = max_checks;
	r->c = btc_xcalloc((size_t)m->top_k, sizeof(*r->c));
	rank(&z, r);
	r->n_evaluated = z.costed;
	if (z.b.expired) {
		if (!max_checks)
			btc_error(d, no_loc, "the Z3 search of the joint schedules gave up");
		rc = BTC_ERR_LIMIT;
	}
	btc_mz_stop(&z);
	r->solve_ms = btc_sched_now_ms() - t0;
	return rc;
}
