/* Counting the schedules of a problem (btc_sched_count: `btc schedule`'s
 * space size) and the presolve: dynamic programming over (next stage,
 * set of PUs used so far) that counts the schedules whose chunk times lie
 * in a band, finds the least T_max, and marks the chunks that lie on some
 * schedule under a T_max bound (btc_sched_dp_*, optimizer.h). The Z3
 * solver uses them to skip its hardest proofs; the exhaustive oracle does
 * not. */
#include "sched/optimizer.h"
#include "sched/space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Schedules with k chunks over a stage range, counted by dynamic
 * programming over (next stage, chunks so far) times the PU orderings:
 * sum over k of (ways to cut into k chunks whose PUs are allowed) is
 * bounded by C(n-1, k-1) * P(p, k); we count the bound, which is exact
 * without missing kernels, pins or forbidden PUs. */
/* The larger space: the presolve's count of every schedule, or, when its
 * states are too many, the bound sum over k of C(n-1, k-1) * options^k. */
static double space_count(const struct btc_sched_problem *p, const struct btc_sched_options *opt)
{
	struct btc_diag quiet;
	btc_diag_init(&quiet, NULL);
	struct btc_sched_prep prep;
	if (btc_sched_prepare(p, opt, &prep, &quiet) != BTC_OK)
		return 0;
	struct btc_space sp;
	double r = INFINITY;
	if (btc_space_build(p, opt, &prep, &sp, &quiet) == BTC_OK) {
		r = btc_space_dp_count(&sp, INT64_MIN, INT64_MAX, true);
		if (r < 0) {
			int n = p->n_stages, kmax = sp.kmax < n ? sp.kmax : n;
			r = 0;
			for (int k = 1; k <= kmax; k++) {
				double cuts = 1;
				for (int j = 1; j <= k - 1; j++)
					cuts = cuts * (double)(n - j) / (double)j;
				r += cuts * pow(sp.n_opts, k);
			}
		}
		btc_space_free(&sp);
	}
	btc_sched_prep_free(&prep);
	return r;
}

double btc_sched_count(const struct btc_sched_problem *p, const struct btc_sched_options *opt)
{
	if (btc_sched_space_wanted(p, opt))
		return space_count(p, opt);
	int n = p->n_stages, np = 0;
	for (int c = 0; c < p->n_pus; c++)
		np += !(opt->forbid_mask & (1u << c));
	int kmax = np < n ? np : n;
	if (opt->max_chunks > 0 && opt->max_chunks < kmax)
		kmax = opt->max_chunks;
	double total = 0;
	for (int k = 1; k <= kmax; k++) {
		double cuts = 1, perm = 1; /* C(n-1, k-1), P(np, k) */
		for (int j = 1; j <= k - 1; j++)
			cuts = cuts * (double)(n - j) / (double)j;
		for (int j = 0; j < k; j++)
			perm *= (double)(np - j);
		total += cuts * perm;
	}
	return total;
}

/* ---- presolve: dynamic programming over (stage, used PU set) ---- */

static int dp_kmax(const struct btc_sched_prep *prep, int max_chunks)
{
	return max_chunks > 0 && max_chunks < prep->p ? max_chunks : prep->p;
}

/* The chunks (PU c, stages i..j) of one PU from one stage, j ascending:
 * start with {c, i, i - 1, 0}. */
struct chunk_walk {
	int c, i, j;
	int64_t sum_tq; /* sum of tq over i..j */
};

/* The next chunk of the walk whose cost is <= hi: its cost in quanta
 * (btc_sched_chunk_q), w->j its last stage; -1 when there is none (a stage
 * without an allowed kernel ends the walk, and so does a cost over hi
 * when costs grow with j, prep->mono). */
static inline int64_t walk_next(const struct btc_sched_prep *prep, struct chunk_walk *w, int64_t hi)
{
	while (++w->j < prep->n) {
		int64_t t = prep->tq[w->j * prep->p + w->c];
		if (t < 0)
			break;
		w->sum_tq += t;
		int64_t cost = btc_sched_chunk_q(prep, w->c, w->i, w->j, w->sum_tq);
		if (cost <= hi)
			return cost;
		if (prep->mono)
			break;
	}
	w->j = prep->n;
	return -1;
}

double btc_sched_dp_count(const struct btc_sched_prep *prep, int max_chunks, int64_t lo, int64_t hi)
{
	int n = prep->n, np = prep->p, kmax = dp_kmax(prep, max_chunks);
	if (np > BTC_SCHED_DP_MAX_PUS)
		return -1;
	size_t sets = (size_t)1 << np;
	/* ways[i][S]: completions from stage i with PUs S already used */
	double *ways = btc_xcalloc((size_t)(n + 1) * sets, sizeof(double));
	for (size_t S = 0; S < sets; S++)
		ways[(size_t)n * sets + S] = __builtin_popcount((unsigned)S) >= 2 ? 1 : 0;
	for (int i = n - 1; i >= 0; i--)
		for (size_t S = 0; S < sets; S++) {
			if (__builtin_popcount((unsigned)S) >= kmax)
				continue;
			double sum = 0;
			for (int c = 0; c < np; c++) {
				if (S & ((size_t)1 << c))
					continue;
				size_t T = S | ((size_t)1 << c);
				struct chunk_walk w = {c, i, i - 1, 0};
				for (int64_t cost; (cost = walk_next(prep, &w, hi)) >= 0;)
					if (cost >= lo)
						sum += ways[(size_t)(w.j + 1) * sets + T];
			}
			ways[(size_t)i * sets + S] = sum;
		}
	double r = ways[0];
	free(ways);
	return r;
}

int64_t btc_sched_dp_min_tmax(const struct btc_sched_prep *prep, int max_chunks, int64_t lo)
{
	int n = prep->n, np = prep->p, kmax = dp_kmax(prep, max_chunks);
	if (np > BTC_SCHED_DP_MAX_PUS)
		return -1;
	size_t sets = (size_t)1 << np;
	int64_t *best = btc_xmalloc((size_t)(n + 1) * sets * sizeof(int64_t));
	for (size_t S = 0; S < sets; S++)
		best[(size_t)n * sets + S] = __builtin_popcount((unsigned)S) >= 2 ? 0 : INT64_MAX;
	for (int i = n - 1; i >= 0; i--)
		for (size_t S = 0; S < sets; S++) {
			int64_t b = INT64_MAX;
			for (int c = 0; c < np && __builtin_popcount((unsigned)S) < kmax; c++) {
				if (S & ((size_t)1 << c))
					continue;
				size_t T = S | ((size_t)1 << c);
				struct chunk_walk w = {c, i, i - 1, 0};
				/* only chunks below the best so far can improve it */
				for (int64_t cost; (cost = walk_next(prep, &w, b - 1)) >= 0;) {
					if (cost < lo)
						continue;
					int64_t rest = best[(size_t)(w.j + 1) * sets + T];
					int64_t m = rest > cost ? rest : cost;
					if (m < b)
						b = m;
				}
			}
			best[(size_t)i * sets + S] = b;
		}
	int64_t r = best[0];
	free(best);
	return r;
}

int btc_sched_dp_useful(const struct btc_sched_prep *prep, int max_chunks, int64_t hi,
			unsigned char *useful)
{
	int n = prep->n, np = prep->p, kmax = dp_kmax(prep, max_chunks);
	if (np > BTC_SCHED_DP_MAX_PUS)
		return -1;
	size_t sets = (size_t)1 << np;
	/* fwd[i][S]: stage i reachable with PUs S used; bwd[i][S]: a
	 * schedule completes from there */
	unsigned char *fwd = btc_xcalloc((size_t)(n + 1) * sets, 1);
	unsigned char *bwd = btc_xcalloc((size_t)(n + 1) * sets, 1);
	memset(useful, 0, (size_t)n * (size_t)np * (size_t)n);
	fwd[0] = 1;
	for (int i = 0; i < n; i++)
		for (size_t S = 0; S < sets; S++) {
			if (!fwd[(size_t)i * sets + S] || __builtin_popcount((unsigned)S) >= kmax)
				continue;
			for (int c = 0; c < np; c++) {
				if (S & ((size_t)1 << c))
					continue;
				struct chunk_walk w = {c, i, i - 1, 0};
				while (walk_next(prep, &w, hi) >= 0)
					fwd[(size_t)(w.j + 1) * sets + (S | ((size_t)1 << c))] = 1;
			}
		}
	for (size_t S = 0; S < sets; S++)
		bwd[(size_t)n * sets + S] = __builtin_popcount((unsigned)S) >= 2;
	for (int i = n - 1; i >= 0; i--)
		for (size_t S = 0; S < sets; S++) {
			if (__builtin_popcount((unsigned)S) >= kmax)
				continue;
			bool live = fwd[(size_t)i * sets + S];
			for (int c = 0; c < np; c++) {
				if (S & ((size_t)1 << c))
					continue;
				size_t T = S | ((size_t)1 << c);
				struct chunk_walk w = {c, i, i - 1, 0};
				while (walk_next(prep, &w, hi) >= 0) {
					if (!bwd[(size_t)(w.j + 1) * sets + T])
						continue;
					bwd[(size_t)i * sets + S] = 1;
					if (live)
						useful[((size_t)i * (size_t)np + (size_t)c) *
							       (size_t)n +
						       (size_t)w.j] = 1;
				}
			}
		}
	free(fwd);
	free(bwd);
	return 0;
}
