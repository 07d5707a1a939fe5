/* The joint branch and bound (sched/multi.h, btc_multi_solve_bb;
 * `--solver bb`): depth-first over the streams,
 * each stream's contiguous assignments (chunk by chunk) tried cheapest
 * first, branch and bound on the peak weighted load. A partial joint
 * assignment's loads only grow as streams are added (more load, and
 * sigma >= 1 only grows with more co-running PUs), and PU p's capacity
 * kappa_p(n) is at most hi_p = max(1, max_n kappa_p(n)), so
 *
 *   LB = max(max_p load of the placed streams on p (sigma among them)
 *                  / hi_p,
 *            max_s c_s T_io_s (in the larger space c_s max(T_io_s, its
 *            split chunks' team times): the placed streams' own, the
 *            least over their options for the others; sigma >= 1 only
 *            raises them),
 *            (sum of their loads + sum over unplaced streams of their
 *             least total chunk time x c_s) / sum of hi_p over the
 *             allowed PUs)
 *
 * (the last as max_p L_p / hi_p >= sum_p L_p / sum_p hi_p; without
 * capacities every hi_p is 1: the peak load and the average over the
 * allowed PUs)
 *
 * is a lower bound on every completion's cost; a branch whose LB exceeds
 * the K-th best cost is cut, and so is one whose LB ties it when the
 * placed streams' part of the joint vector already orders after the K-th
 * candidate's (ties rank by the vector, stream 0 first), and one where
 * some unplaced stream has no chunking that fits under the K-th cost
 * beside the placed loads. Leaves are costed with btc_multi_cost, the
 * oracle's arithmetic, so both rank identically. Objective sum has no
 * such bound and is enumerated (each leaf a GLPK LP). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/multi_internal.h"

struct opt_list {
	struct btc_multi_options opts;
	int *order;     /* [opts.n] option indices, cheapest first */
	double min_total; /* least sum_p ct over the options */
};

struct search {
	const struct btc_multi_problem *m;
	struct opt_list *L;
	int S, np, N;
	double allowed;    /* sum of hi_p over the allowed PUs */
	double hi[BTC_SCHED_MAX_PUS], hi_max; /* hi_p; their largest */
	int *pick;      /* [S] option index per placed stream */
	int *prev;      /* [S] the nearest earlier interchangeable stream, or -1 */
	double *ct;     /* [S * np] */
	double *own;    /* [S * np] the options' own times, or NULL (paper) */
	double *t;      /* [S * np] */
	double *rate;
	uint32_t used[BTC_MULTI_MAX_STREAMS];
	int *a;         /* [N] */
	double io_cost; /* max_s c_s x its least option self (T_io, split teams) */
	double *self;   /* [S] c_s self of each placed stream's option */
	double *rest;   /* [S + 1] sum over streams >= s of c_s min_total */
	double load[BTC_SCHED_MAX_PUS]; /* the placed streams' loads, from
					 * lower_bound */
	struct btc_multi_result *r;
	double *sig;    /* [S * np << np] sigma of (s, p, others mask), or NULL
			 * (no slowdowns, or too many PUs: computed) */
	long nodes, max_nodes; /* branches tried; the budget (0: none) */
};

static void build_list(struct search *x, int s)
{
	struct opt_list *L = &x->L[s];
	int np = x->np;
	btc_multi_options_build(x->m, s, &L->opts);
	int n = L->opts.n;
	if (!n)
		return;
	L->min_total = INFINITY;
	double *key = btc_xcalloc((size_t)n, sizeof(double));
	L->order = btc_xcalloc((size_t)n, sizeof(int));
	for (int o = 0; o < n; o++) {
		const double *ct = L->opts.ct + (size_t)o * (size_t)np;
		double total = 0;
		for (int c = 0; c < np; c++) {
			total += ct[c];
			key[o] = fmax(key[o], ct[c]);
		}
		L->min_total = fmin(L->min_total, total);
		L->order[o] = o;
	}
	btc_multi_order_by_key(key, L->order, n);
	free(key);
}

/* sigma of stream k on PU c beside the PUs `others`. */
static double sigma_of(const struct search *x, int k, int c, uint32_t others)
{
	if (!x->m->streams[k].slowdown)
		return 1.0;
	if (x->sig)
		return x->sig[(((size_t)k * (size_t)x->np + (size_t)c) << x->np) + others];
	return btc_multi_sigma(x->m, k, c, others);
}

/* Lower bound of every completion of streams 0..s placed. */
static double lower_bound(struct search *x, int s)
{
	const struct btc_multi_problem *m = x->m;
	int np = x->np;
	uint32_t others[BTC_MULTI_MAX_STREAMS];
	for (int k = 0; k <= s; k++) {
		others[k] = 0;
		for (int j = 0; j <= s; j++)
			if (j != k)
				others[k] |= x->used[j];
	}
	double peak = x->io_cost, sum = 0;
	for (int k = 0; k <= s; k++)
		peak = fmax(peak, x->self[k]);
	for (int c = 0; c < np; c++) {
		double term[BTC_MULTI_MAX_STREAMS];
		int n = 0;
		for (int k = 0; k <= s; k++)
			if (x->used[k] & (1u << c))
				term[n++] = btc_multi_coeff(m, k) *
					    (x->ct[k * np + c] * sigma_of(x, k, c, others[k]));
		double load = btc_multi_fsum(term, n);
		peak = fmax(peak, load / x->hi[c]);
		sum += load;
		x->load[c] = load;
	}
	/* peak is computed as btc_multi_cost computes it (the correctly
	 * rounded sum), over fewer and smaller nonnegative terms: never above
	 * a completion's cost, also in floating point. The average takes a margin for rounding. */
	double avg = (sum + x->rest[s + 1]) / x->allowed;
	return fmax(peak, avg * (1 - 1e-12));
}

/* Whether some unplaced stream j > s fits no option under `limit`: every
 * option o has a PU p with (load_p + c_j ct_{j,o,p}) / hi_p > limit
 * (sigma >= 1 only adds). The options are tried in order of their own
 * peak, so the scan stops at the first that fits, or once (c_j x that
 * peak + the least load) / hi_max exceeds limit. */
static bool some_stream_fits_nothing(const struct search *x, int s, double limit)
{
	int np = x->np;
	double least = INFINITY;
	for (int c = 0; c < np; c++)
		if (!(x->m->forbid_mask & (1u << c)))
			least = fmin(least, x->load[c]);
	for (int j = s + 1; j < x->S; j++) {
		const struct opt_list *L = &x->L[j];
		double cj = btc_multi_coeff(x->m, j);
		bool fits = false;
		for (int k = 0; k < L->opts.n && !fits; k++) {
			const double *ct = L->opts.ct + (size_t)L->order[k] * (size_t)np;
			double own = 0;
			for (int c = 0; c < np; c++)
				own = fmax(own, ct[c]);
			if ((cj * own + least) / x->hi_max * (1 - 1e-12) > limit)
				break; /* this and every later option overflows */
			fits = cj * L->opts.self[L->order[k]] <= limit;
			for (int c = 0; c < np && fits; c++)
				fits = (x->load[c] + cj * ct[c]) / x->hi[c] * (1 - 1e-12) <= limit;
		}
		if (!fits)
			return true;
	}
	return false;
}

/* The table of sigma by others mask, when there are slowdowns and at most
 * 12 PUs. */
static void sigma_table(struct search *x)
{
	bool any = false;
	for (int k = 0; k < x->S; k++)
		any |= x->m->streams[k].slowdown != NULL;
	if (!any || x->np > 12)
		return;
	size_t masks = (size_t)1 << x->np;
	x->sig = btc_xmalloc((size_t)x->S * (size_t)x->np * masks * sizeof(double));
	for (int k = 0; k < x->S; k++)
		for (int c = 0; c < x->np; c++)
			for (size_t o = 0; o < masks; o++)
				x->sig[(((size_t)k * (size_t)x->np + (size_t)c) << x->np) + o] =
					btc_multi_sigma(x->m, k, c, (uint32_t)o);
}

static void descend(struct search *x, int s)
{
	const struct btc_multi_problem *m = x->m;
	int np = x->np;
	if (s == x->S) {
		double cost = btc_multi_cost(m, x->ct, x->own, x->used, x->t, x->rate);
		x->r->n_evaluated++;
		if (isfinite(cost))
			btc_multi_topk_insert(x->r, m->top_k, x->N, cost, x->a);
		return;
	}
	const struct opt_list *L = &x->L[s];
	int off = btc_multi_offset(m, s);
	for (int j = 0; j < L->opts.n; j++) {
		if (x->max_nodes && ++x->nodes > x->max_nodes)
			return; /* out of budget: unwinds */
		int o = L->order[j];
		if (x->prev[s] >= 0 && o < x->pick[x->prev[s]])
			continue; /* not canonical: lexicographic order = index order */
		x->pick[s] = o;
		x->used[s] = L->opts.used[o];
		x->self[s] = btc_multi_coeff(m, s) * L->opts.self[o];
		memcpy(x->ct + s * np, L->opts.ct + (size_t)o * (size_t)np, (size_t)np * sizeof(double));
		if (x->own)
			memcpy(x->own + s * np, L->opts.own + (size_t)o * (size_t)np,
			       (size_t)np * sizeof(double));
		memcpy(x->a + off, L->opts.a + (size_t)o * (size_t)L->opts.n_stages,
		       (size_t)L->opts.n_stages * sizeof(int));
		if (m->objective != BTC_MULTI_SUM && x->r->n == m->top_k) {
			/* every completion costs >= lb: cut it when that is worse
			 * than the K-th, or ties it while the placed streams'
			 * vector already orders after the K-th's */
			const struct btc_multi_candidate *kth = &x->r->c[m->top_k - 1];
			double lb = lower_bound(x, s);
			int end = off + L->opts.n_stages;
			if (lb > kth->cost ||
			    (lb >= kth->cost && btc_multi_cmp(0, x->a, 0, kth->a, end) > 0) ||
			    some_stream_fits_nothing(x, s, kth->cost))
				continue;
		}
		descend(x, s + 1);
	}
}

enum btc_status btc_multi_solve_bb(const struct btc_multi_problem *m, struct btc_multi_result *r,
				   struct btc_diag *d)
{
	return btc_multi_solve_bb_budget(m, r, 0, d);
}

enum btc_status btc_multi_solve_bb_budget(const struct btc_multi_problem *m,
					  struct btc_multi_result *r, long max_nodes,
					  struct btc_diag *d)
{
	enum btc_status rc = btc_multi_begin(m, r, d);
	if (rc != BTC_OK)
		return rc;
	double t0 = btc_sched_now_ms();
	struct search x = {.m = m, .S = m->n_streams, .np = m->n_pus, .r = r,
			   .max_nodes = max_nodes};
	int S = x.S, np = x.np;
	x.N = btc_multi_offset(m, S);
	x.L = btc_xcalloc((size_t)S, sizeof(*x.L));
	long counts[BTC_MULTI_MAX_STREAMS];
	for (int s = 0; s < S; s++) {
		build_list(&x, s);
		counts[s] = x.L[s].opts.n;
	}
	if (!btc_multi_every_stream_placed(m, counts, d)) {
		rc = BTC_ERR_UNSAT;
	} else {
		x.pick = btc_xcalloc((size_t)S, sizeof(int));
		x.prev = btc_xcalloc((size_t)S, sizeof(int));
		x.ct = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
		if (btc_multi_larger(m))
			x.own = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
		x.t = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
		x.rate = btc_xcalloc((size_t)S, sizeof(double));
		x.a = btc_xcalloc((size_t)x.N, sizeof(int));
		x.rest = btc_xcalloc((size_t)S + 1, sizeof(double));
		x.self = btc_xcalloc((size_t)S, sizeof(double));
		x.io_cost = btc_multi_io_cost(m);
		for (int s = 0; s < S; s++) {
			x.prev[s] = btc_multi_prev_interchangeable(m, s);
			x.io_cost = fmax(x.io_cost, btc_multi_coeff(m, s) *
							btc_multi_options_least_self(&x.L[s].opts));
		}
		for (int s = S - 1; s >= 0; s--)
			x.rest[s] = x.rest[s + 1] + btc_multi_coeff(m, s) * x.L[s].min_total;
		x.hi_max = 1.0;
		for (int c = 0; c < np; c++) {
			x.hi[c] = btc_multi_kappa_hi(m, c);
			x.hi_max = fmax(x.hi_max, x.hi[c]);
			if (!(m->forbid_mask & (1u << c)))
				x.allowed += x.hi[c];
		}
		r->c = btc_xcalloc((size_t)m->top_k, sizeof(*r->c));
		sigma_table(&x);
		descend(&x, 0);
		if (max_nodes && x.nodes > max_nodes)
			rc = BTC_ERR_LIMIT; /* not reported: the caller's budget */
		free(x.sig);
		free(x.pick);
		free(x.prev);
		free(x.ct);
		free(x.own);
		free(x.t);
		free(x.rate);
		free(x.a);
		free(x.rest);
		free(x.self);
	}
	for (int s = 0; s < S; s++) {
		btc_multi_options_free(&x.L[s].opts);
		free(x.L[s].order);
	}
	free(x.L);
	r->solve_ms = btc_sched_now_ms() - t0;
	return rc;
}
