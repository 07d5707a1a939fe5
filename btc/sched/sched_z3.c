/* BT-Optimizer with the Z3 C API (paper Sec. III-D): the search over the
 * encoding of sched_z3_encode.c (docs/scheduler.md), on the one Z3 layer
 * (sched_z3.h, z3_core.c).
 *
 * Search: the candidates come out one by one in the objective's total
 * order: bisection on the primary key (T_max or gapness; the previous
 * candidate's value is a lower bound and is probed first), bisection on the
 * secondary key under the primary's value, then the lexicographically
 * smallest stage-to-PU vector under both (greedy, stage by stage, asking for
 * a lower PU through assumptions !x[i][d], d >= current). The result is
 * therefore exactly the oracle's ranking, independent of Z3's choices. */
#include "sched/optimizer.h"
#include "sched/model.h"
#include "sched/space.h"
#include "sched/sched_z3.h"
#include "sched/z3_paper.h"

#include <stdlib.h>
#include <string.h>
#include <z3.h>

/* The K best one at a time (btc_z3_enumerate_exact; the fallback of
 * enumerate_window); on expiry the best model found so far joins them. */
static void enumerate_exact(struct z3s *z, struct btc_sched_result *res, int K, enum key primary,
			    enum key secondary)
{
	btc_z3_enumerate_exact(&z->b, res, K, primary, secondary);
	if (z->b.expired) {
		/* z->a holds the best model found before the budget ran out
		 * (a valid, not necessarily optimal, schedule) unless the
		 * very first check of this round expired. */
		bool have = true;
		for (int i = 0; i < z->n; i++)
			have = have && z->a[i] >= 0;
		if (have && res->n_candidates < K) {
			struct btc_schedule s;
			btc_sched_from_assignment(z->p, z->prep, z->a, &s);
			bool dup = false;
			for (int j = 0; j < res->n_candidates; j++)
				dup = dup || (btc_sched_cmp_tmax(&s, &res->candidates[j]) == 0);
			if (!dup)
				res->candidates[res->n_candidates++] = s;
		}
	}
}

int btc_sched_z3_window_cap;

/* The T_max ranking with the presolve. With the dynamic program's counts
 * cnt(L, B) (schedules whose chunks all lie in [L, B]), the number of
 * admitted schedules with T_max exactly v is
 *   c(v) = cnt(lo(v), v) - cnt(lo(v), v - 1),
 * lo(v) = 0 for latency, ceil((a v - b G*) / b) under bt's filter
 * (a T_max - b T_min <= b G*). Walking v up the chunk sums gives B, the
 * T_max of the K-th candidate, and `below`, the number of candidates with
 * T_max < B. Within the tie level T_max = B the best `need` = K - below by
 * (gapness, vector) are those with the largest T_min: the largest L with
 * at least `need` schedules of T_max = B and T_min >= L is found by
 * bisection over the chunk sums. Z3 then finds exactly the `below`
 * schedules under T_max <= B - 1, and the `at` schedules under T_max <= B
 * and T_min >= L (the first ones blocked): only satisfiable checks, no
 * optimality proof, and the exact ranking after sorting. Returns 1 done,
 * 0 (more than `cap` schedules to enumerate: fall back), -1 (expired), or
 * 2 (the counting passes would exceed a work limit: use the window). */
static int64_t dp_gstar(struct z3s *z);

static int64_t filter_lo(const struct z3s *z, int64_t v)
{
	if (!z->b.filtered)
		return 0;
	int64_t a = z->prep->util_num, b = z->prep->util_den;
	int64_t num = a * v - b * z->b.gstar;
	if (num <= 0)
		return 0;
	return (num + b - 1) / b;
}

/* Schedules with T_max == v and every chunk >= L. */
static double count_at(const struct z3s *z, int64_t v, int64_t L)
{
	double r = btc_sched_dp_count(z->prep, z->max_chunks, L, v) -
		   btc_sched_dp_count(z->prep, z->max_chunks, L, v - 1);
	return r;
}

static int enumerate_phase(struct z3s *z, struct found *f, Z3_ast g, double n, int64_t tmax,
			   int64_t tmin)
{
	for (int k = 0; k < (int)n; k++) {
		btc_z3_assume_reset(&z->b, 0);
		btc_z3_assume(&z->b, g);
		btc_z3_assume(&z->b, btc_z3_key_guard(&z->b, K_TMAX, tmax, -1));
		if (tmin > 0)
			btc_z3_assume(&z->b, btc_z3_guard(&z->b, G_TMIN_GE, tmin));
		int r = btc_z3_check(&z->b);
		if (r < 0)
			return -1;
		if (r == 0)
			btc_panic("presolve counts %.0f schedules with T_max "
				  "<= %lld, T_min >= %lld; Z3 finds %d",
				  n, (long long)tmax, (long long)tmin, k);
		btc_z3_found_add(&z->b, f, g);
	}
	return 0;
}

static int enumerate_counted(struct z3s *z, struct btc_sched_result *res, int K, int cap)
{
	double pass = (double)z->n * z->n * z->np * (double)(1u << z->np);
	const double limit = 2e9;
	double work = 0, below = 0, at = 0;
	int64_t v1 = btc_sched_dp_min_tmax(z->prep, z->max_chunks, 0);
	if (v1 == INT64_MAX)
		return 1; /* no multi-chunk schedule */
	int i = btc_z3_first_ge(z->sums, z->n_sums, v1), last = -1;
	for (; i < z->n_sums; i++) {
		if ((work += 2 * pass) > limit || btc_z3_out_of_time(&z->b))
			return 2;
		int64_t v = z->sums[i];
		double c = count_at(z, v, filter_lo(z, v));
		if (c <= 0)
			continue;
		last = i;
		if (below + c >= K) {
			at = c;
			break;
		}
		below += c;
	}
	if (last < 0)
		return 1; /* nothing admitted (cannot happen under bt) */
	int64_t B = z->sums[last], L = filter_lo(z, B);
	if (i < z->n_sums) {
		/* the tie level: largest L' >= L keeping `need` schedules */
		double need = K - below;
		int lo = btc_z3_first_ge(z->sums, z->n_sums, L), hi = btc_z3_first_ge(z->sums, z->n_sums, B + 1) - 1;
		while (lo < hi) {
			int m = lo + (hi - lo + 1) / 2;
			if (count_at(z, B, z->sums[m] > L ? z->sums[m] : L) >= need)
				lo = m;
			else
				hi = m - 1;
		}
		if (lo < z->n_sums && z->sums[lo] > L)
			L = z->sums[lo];
		at = count_at(z, B, L);
	} else {
		at = 0; /* fewer than K in all: `below` holds them all */
		B = z->sums[last] + 1;
	}
	if (below + at > cap)
		return 0;
	struct found f = {0};
	Z3_ast g = btc_z3_fresh(&z->b);
	int rc = enumerate_phase(z, &f, g, below, B - 1, 0);
	if (rc == 0 && at > 0)
		rc = enumerate_phase(z, &f, g, at, B, L);
	btc_sched_z3_end(&z->b, res, &f, K, K_TMAX, rc);
	return rc < 0 ? -1 : 1;
}

/* The K best by enumeration in a window (btc_z3_enumerate_window), after
 * the counted T_max ranking where it applies; the lower bound of the
 * primary key from the presolve. 0: use enumerate_exact. */
static int enumerate_window(struct z3s *z, struct btc_sched_result *res, int K, enum key primary,
			    int cap)
{
	if (primary == K_TMAX && z->np <= BTC_SCHED_DP_MAX_PUS) {
		int counted = enumerate_counted(z, res, K, cap);
		if (counted != 2)
			return counted;
	}
	btc_z3_assume_reset(&z->b, 0);
	int r = btc_z3_check(&z->b);
	if (r <= 0)
		return r; /* no multi-chunk schedule, or expired */
	int64_t lo = 0;
	if (primary == K_TMAX && z->np <= BTC_SCHED_DP_MAX_PUS) {
		/* the filter only removes schedules: a lower bound */
		lo = btc_sched_dp_min_tmax(z->prep, z->max_chunks, 0);
	} else if (primary == K_GAP) {
		/* G* from the presolve: the minimum needs no proof */
		int64_t g = dp_gstar(z);
		lo = g > 0 ? g : 0;
	}
	return btc_z3_enumerate_window(&z->b, res, K, primary, lo, z->maxcost, cap);
}

static void enumerate(struct z3s *z, struct btc_sched_result *res, int K, enum key primary,
		      enum key secondary)
{
	int cap = btc_sched_z3_window_cap > 0 ? btc_sched_z3_window_cap : 8 * K + 64;
	if (enumerate_window(z, res, K, primary, cap) == 0) {
		res->n_candidates = 0;
		for (int i = 0; i < z->n; i++)
			z->a[i] = -1;
		enumerate_exact(z, res, K, primary, secondary);
	}
}

/* The work of the presolve passes of one dp_gstar, and its bound. */
struct gstar_work {
	struct z3s *z;
	double pass, work;
};

/* minT(L) over the paper's space; -1 once the passes would exceed about
 * 10 s of work or Z3's time is out. */
static int64_t z3_min_tmax(void *ctx, int64_t L)
{
	struct gstar_work *g = ctx;
	if ((g->work += g->pass) > 2e10 || btc_z3_out_of_time(&g->z->b))
		return -1;
	return btc_sched_dp_min_tmax(g->z->prep, g->z->max_chunks, L);
}

/* G* by the presolve (btc_z3_gstar). Returns -1 when p is too large or
 * the passes would exceed a fixed work limit (then Z3 bisects with the
 * gapness constraints). */
static int64_t dp_gstar(struct z3s *z)
{
	if (z->np > BTC_SCHED_DP_MAX_PUS || z->n_sums == 0)
		return -1;
	int64_t v1 = btc_sched_dp_min_tmax(z->prep, z->max_chunks, 0);
	if (v1 == INT64_MAX)
		return -1; /* no multi-chunk schedule: Z3 says so */
	struct gstar_work g = {z, (double)z->n * z->n * z->np * (double)(1u << z->np), 0};
	return btc_z3_gstar(z->sums, z->n_sums, v1, z3_min_tmax, &g);
}

/* The solve of btc_sched_solve_z3 over the prepared problem (owns prep). */
static enum btc_status solve_prepared(const struct btc_sched_problem *p,
				      const struct btc_sched_options *opt,
				      struct btc_sched_prep *prep, struct btc_sched_result *res,
				      struct btc_diag *d, double t0)
{
	enum btc_status status;
	if (prep->space) {
		/* farms or core splits: the larger space (space.h) */
		status = btc_space_solve_z3(p, opt, prep, res, d, t0);
		btc_sched_prep_free(prep);
		return status;
	}
	btc_sched_result_begin(p, opt, prep, res);
	int K = opt->top_k;
	res->candidates = btc_xcalloc((size_t)K, sizeof(*res->candidates));

	struct z3s z = {
		.p = p,
		.prep = prep,
		.n = prep->n,
		.np = prep->p,
	};
	btc_z3_start(&z.b, &btc_zp_ops, opt->time_budget_ms > 0 ? t0 + opt->time_budget_ms : 0);
	z.x = btc_xcalloc((size_t)z.n * (size_t)z.np, sizeof(Z3_ast));
	z.used = btc_xcalloc((size_t)z.np, sizeof(Z3_ast));
	z.pu_sum = btc_xcalloc((size_t)z.np, sizeof(int64_t));
	z.a = btc_xmalloc(sizeof(int) * (size_t)z.n);
	for (int i = 0; i < z.n; i++)
		z.a[i] = -1;
	z.max_chunks = opt->max_chunks;

	z.y_sum = btc_xcalloc((size_t)z.np, sizeof(int64_t));
	btc_zp_encode(&z, opt);
	if (prep->xq)
		btc_zp_encode_chunks(&z);
	btc_zp_collect_sums(&z);

	if (opt->objective == BTC_SCHED_BT) {
		/* Level 1: G* = minimum gapness over multi-chunk schedules. */
		int64_t gstar = dp_gstar(&z);
		int r = 1;
		if (gstar < 0) {
			r = btc_z3_check(&z.b);
			if (r == 1 && btc_z3_minimise(&z.b, 0, K_GAP, 0, false, -1, &gstar) < 0)
				r = -1;
		}
		if (r == 1) {
			res->gstar_q = gstar;
			res->gstar_ms = (double)gstar * (double)prep->quantum_ns / 1e6;
			/* Level 2 filter: U T_max - T_min <= G*, i.e. for
			 * every pair of used PUs a T_c - b T_d <= b G*. */
			if (prep->util_num > 0) {
				btc_zp_assert_pairs(&z, NULL, prep->util_num, prep->util_den,
						    gstar);
				z.b.filtered = true;
				z.b.gstar = gstar;
			}
			for (int i = 0; i < z.n; i++)
				z.a[i] = -1;
			enumerate(&z, res, K, K_TMAX, K_GAP);
		} else if (r < 0 || z.b.expired) {
			res->optimal = false;
		}
	} else if (opt->objective == BTC_SCHED_GAPNESS) {
		enumerate(&z, res, K, K_GAP, K_TMAX);
	} else {
		enumerate(&z, res, K, K_TMAX, K_GAP);
	}
	btc_z3_finish(&z.b, res);
	free(z.x);
	free(z.used);
	free(z.pu_sum);
	free(z.y);
	free(z.y_sum);
	free(z.a);
	free(z.sums);
	btc_sched_prep_free(prep);
	res->solve_ms = btc_sched_now_ms() - t0;
	return BTC_OK;
}

enum btc_status btc_sched_solve_z3(const struct btc_sched_problem *p,
				   const struct btc_sched_options *opt,
				   struct btc_sched_result *res, struct btc_diag *d)
{
	return btc_sched_solve_prepared(p, opt, res, d, solve_prepared);
}
