/* The joint search over occupancy states (sched/multi.h,
 * btc_multi_solve_occupancy; what btc_multi_solve runs when some stream
 * has co-run slowdowns). An occupancy state gives each stream the set of
 * PUs its chunks use, U_s. The state fixes every sigma:
 *
 *   sigma_{s,p} = sigma(s, p, OR_{k != s} U_k)          p in U_s
 *
 * so within a state the joint cost is a peak of plain weighted loads, and
 * every stream's chunk on p costs at least the cheapest among its
 * assignments of that mask:
 *
 *   LB(state) = max(max_s c_s T_io_s (in the larger space c_s max(T_io_s,
 *                   the team times of its split chunks), the least over
 *                   the mask's assignments; sigma >= 1 only raises it),
 *                   max_p fsum_s c_s (min_{o: used_o = U_s} ct_{s,o,p}) sigma_{s,p}
 *                         / kappa_p(n_p),
 *                   sum_s min_{o: used_o = U_s} c_s sum_p ct_{s,o,p} sigma_{s,p}
 *                     / sum of kappa_p(n_p) over p in U_0 | ... | U_{S-1})
 *
 * (n_p, the streams whose mask holds p, is fixed by the state too, and so
 * is PU p's capacity kappa_p(n_p); the last term: the average load over
 * the state's PUs weighted by their capacities, max_p L_p / k_p >=
 * sum_p L_p / sum_p k_p, with a relative margin of 1e-12 for its plain
 * sums). The states (the product of each
 * stream's masks; BTC_MULTI_OCC_STATES at most) are visited in order of
 * LB, then of their index; once K are ranked and a state's LB exceeds the
 * K-th cost, it and every later one are cut. Within a state, a
 * depth-first branch and bound over the streams (their assignments of the
 * state's mask by total chunk time) bounds a partial assignment by the
 * same terms with the placed streams' own chunks in place of their least;
 * it cuts as multi_search.c does (LB over the K-th cost, or equal to it
 * with the placed prefix of the joint vector after the K-th's), and ends
 * a stream's loop at the first assignment whose total at the state's
 * least sigma overflows the average. Once K are ranked, a stream's loop
 * visits only the assignments that can pass those cuts
 * (btc_multi_occ_candidates, multi_occ_filter.c): on each PU of the mask
 * the prefix of its assignments by chunk time there whose bound term
 * stays at most the K-th cost, and the prefix by total under the
 * average; both are monotone, so the prefixes are found by bisection and
 * nothing the cuts would pass is left out (the search visits what it
 * visited without the filter, less what it would have cut). A state's
 * least totals and own limits depend on the other streams' PUs alone
 * (they fix sigma): computed once per group and set of those PUs.
 * Leaves are costed with btc_multi_cost, the oracle's arithmetic. Every per-PU term is c_s (ct
 * sigma) rounded as btc_multi_cost rounds it, from a ct no larger, and
 * the loads are correctly rounded sums (btc_multi_fsum, monotone in each
 * term): the per-PU bounds are never above a completion's cost, also in
 * floating point. The order of work depends on the problem alone, so the
 * answer is the same whatever the machine's load. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/multi_occ.h"

static int cmp_mask(const void *x, const void *y)
{
	uint32_t a = ((const struct mask_group *)x)->mask, b = ((const struct mask_group *)y)->mask;
	return (a > b) - (a < b);
}

/* Stream s's assignments in lexicographic order, grouped by PU mask, each
 * group by total chunk time (then the order). */
static void build_stream(struct occ *x, int s)
{
	struct stream_opts *L = &x->o[s];
	int np = x->np;
	btc_multi_options_build(x->m, s, &L->opts);
	int n = L->opts.n;
	if (!n)
		return;
	double *key = btc_xcalloc((size_t)n, sizeof(double));
	for (int o = 0; o < n; o++) {
		const double *ct = L->opts.ct + (size_t)o * (size_t)np;
		uint32_t used = L->opts.used[o];
		for (int c = 0; c < np; c++)
			key[o] += ct[c];
		int g = 0;
		while (g < L->n_groups && L->g[g].mask != used)
			g++;
		if (g == L->n_groups) {
			L->g = btc_xrealloc(L->g, (size_t)(g + 1) * sizeof(*L->g));
			L->g[g] = (struct mask_group){.mask = used,
						      .min = btc_xcalloc((size_t)np, sizeof(double))};
			for (int c = 0; c < np; c++)
				L->g[g].min[c] = (used & (1u << c)) ? INFINITY : 0;
			L->n_groups++;
		}
		struct mask_group *G = &L->g[g];
		G->opt = btc_xrealloc(G->opt, (size_t)(G->n + 1) * sizeof(int));
		G->opt[G->n++] = o;
		for (int c = 0; c < np; c++)
			if (G->mask & (1u << c))
				G->min[c] = fmin(G->min[c], ct[c]);
	}
	qsort(L->g, (size_t)L->n_groups, sizeof(*L->g), cmp_mask);
	for (int g = 0; g < L->n_groups; g++) {
		struct mask_group *G = &L->g[g];
		btc_multi_order_by_key(key, G->opt, G->n);
		G->self = G->total = INFINITY;
		G->tot = btc_xcalloc((size_t)G->n, sizeof(double));
		for (int j = 0; j < G->n; j++) {
			const double *ct = L->opts.ct + (size_t)G->opt[j] * (size_t)np;
			double sum = 0; /* as set_state sums with sigma 1 */
			for (int c = 0; c < np; c++)
				sum += ct[c] * 1.0;
			G->tot[j] = key[G->opt[j]]; /* descend's total, ascending */
			G->total = fmin(G->total, sum);
			G->self = fmin(G->self, L->opts.self[G->opt[j]]);
		}
	}
	free(key);
}

/* Option o of stream s's own limit under the state's sigma: max(T_io,
 * max_p own_p sigma_p), as btc_multi_self_ms computes it (own > 0 only on
 * the mask's PUs, whose sigma the state fixes). */
static double state_self(const struct occ *x, int s, int o)
{
	const struct btc_multi_options *L = &x->o[s].opts;
	if (!L->own)
		return L->self[o];
	double self = x->m->streams[s].p->io_ms;
	for (int c = 0; c < x->np; c++) {
		double own = L->own[(size_t)o * (size_t)x->np + (size_t)c];
		if (own > 0)
			self = fmax(self, own * x->sig[s * x->np + c]);
	}
	return self;
}

/* Fills the state's sigma, least terms, least totals and width. */
static void set_state(struct occ *x)
{
	int S = x->S, np = x->np;
	uint32_t all = 0;
	for (int s = 0; s < S; s++)
		all |= x->o[s].g[x->grp[s]].mask;
	uint32_t masks[BTC_MULTI_MAX_STREAMS] = {0};
	for (int s = 0; s < S; s++)
		masks[s] = x->o[s].g[x->grp[s]].mask;
	btc_multi_capacities(x->m, masks, x->kap);
	x->width = 0;
	for (int c = 0; c < np; c++)
		if (all & (1u << c))
			x->width += x->kap[c];
	for (int s = 0; s < S; s++) {
		uint32_t others = 0;
		for (int k = 0; k < S; k++)
			if (k != s)
				others |= x->o[k].g[x->grp[k]].mask;
		const struct stream_opts *L = &x->o[s];
		struct mask_group *G = &L->g[x->grp[s]];
		double cs = btc_multi_coeff(x->m, s), *sig = x->sig + s * np;
		x->min_sig[s] = INFINITY;
		for (int c = 0; c < np; c++) {
			bool on = G->mask & (1u << c);
			sig[c] = on ? btc_multi_sigma(x->m, s, c, others) : 1.0;
			x->least[s * np + c] = on ? cs * (G->min[c] * sig[c]) : 0;
			if (on)
				x->min_sig[s] = fmin(x->min_sig[s], sig[c]);
		}
		x->self[s] = cs * G->self;
		x->min_total[s] = INFINITY;
		if (!x->m->streams[s].slowdown) {
			/* every sigma 1: the least total is the state's */
			x->min_total[s] = cs * G->total;
			continue;
		}
		/* the sigmas are a function of others: one scan of the
		 * group per set of the other streams' PUs */
		int e = 0;
		while (e < G->n_memo && G->memo[e].others != others)
			e++;
		if (e == G->n_memo) {
			double least_self = INFINITY;
			for (int j = 0; j < G->n; j++) {
				const double *ct = L->opts.ct + (size_t)G->opt[j] * (size_t)np;
				double sum = 0;
				for (int c = 0; c < np; c++)
					sum += ct[c] * sig[c];
				x->min_total[s] = fmin(x->min_total[s], cs * sum);
				least_self = fmin(least_self, state_self(x, s, G->opt[j]));
			}
			G->memo = btc_xrealloc(G->memo, (size_t)(e + 1) * sizeof(*G->memo));
			G->memo[e] = (struct sig_entry){others, x->min_total[s], least_self};
			G->n_memo++;
		}
		x->min_total[s] = G->memo[e].min_total;
		x->self[s] = cs * G->memo[e].least_self;
	}
	x->rest[S] = 0;
	for (int s = S - 1; s >= 0; s--)
		x->rest[s] = x->rest[s + 1] + x->min_total[s];
}

/* max(io, max_p fsum of the placed streams' terms (< upto) and the
 * others' least terms). */
static double bound(const struct occ *x, int upto)
{
	int S = x->S, np = x->np;
	double peak = x->io_cost;
	for (int s = 0; s < S; s++)
		peak = fmax(peak, x->self[s]);
	for (int c = 0; c < np; c++) {
		double v[BTC_MULTI_MAX_STREAMS];
		int n = 0;
		for (int s = 0; s < S; s++) {
			double w = s < upto ? x->term[s * np + c] : x->least[s * np + c];
			if (w != 0)
				v[n++] = w;
		}
		peak = fmax(peak, btc_multi_fsum(v, n) / x->kap[c]);
	}
	return peak;
}

/* The placed streams' (< upto) total load. */
static double placed_total(const struct occ *x, int upto)
{
	double sum = 0;
	for (int k = 0; k < upto * x->np; k++)
		sum += x->term[k];
	return sum;
}

static void descend(struct occ *x, int s)
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
	const struct stream_opts *L = &x->o[s];
	const struct mask_group *G = &L->g[x->grp[s]];
	int off = btc_multi_offset(m, s), end = off + L->opts.n_stages;
	double cs = btc_multi_coeff(m, s), before = placed_total(x, s);
	double least_self = x->self[s]; /* the mask's least, restored below */
	int n = G->n, *cand = NULL;
	if (x->r->n == m->top_k) {
		cand = x->buf[s];
		n = btc_multi_occ_candidates(x, s, x->r->c[m->top_k - 1].cost, before, cand);
	}
	for (int i = 0; i < n; i++) {
		int o = G->opt[cand ? cand[i] : i];
		const double *ct = L->opts.ct + (size_t)o * (size_t)np;
		if (x->r->n == m->top_k) {
			/* the options come by total chunk time: once the least
			 * sigma times it overflows the average, all later do */
			double tot = 0;
			for (int c = 0; c < np; c++)
				tot += ct[c];
			double avg = btc_multi_occ_average(
				x, before + cs * x->min_sig[s] * tot + x->rest[s + 1]);
			if (avg > x->r->c[m->top_k - 1].cost)
				break;
		}
		if (x->prev[s] >= 0 && o < x->pick[x->prev[s]])
			continue; /* not canonical: lexicographic order = index order */
		x->self[s] = cs * state_self(x, s, o);
		if (x->r->n == m->top_k && x->self[s] > x->r->c[m->top_k - 1].cost)
			continue; /* its own team alone costs more */
		for (int c = 0; c < np; c++)
			x->term[s * np + c] = ct[c] != 0 ? cs * (ct[c] * x->sig[s * np + c]) : 0;
		memcpy(x->a + off, L->opts.a + (size_t)o * (size_t)L->opts.n_stages,
		       (size_t)L->opts.n_stages * sizeof(int));
		if (x->r->n == m->top_k) {
			const struct btc_multi_candidate *kth = &x->r->c[m->top_k - 1];
			double lb = fmax(bound(x, s + 1), btc_multi_occ_average(
								  x, placed_total(x, s + 1) + x->rest[s + 1]));
			if (lb > kth->cost ||
			    (lb >= kth->cost && btc_multi_cmp(0, x->a, 0, kth->a, end) > 0))
				continue;
		}
		x->pick[s] = o;
		x->used[s] = G->mask;
		memcpy(x->ct + s * np, ct, (size_t)np * sizeof(double));
		if (x->own)
			memcpy(x->own + s * np, L->opts.own + (size_t)o * (size_t)np,
			       (size_t)np * sizeof(double));
		descend(x, s + 1);
	}
	x->self[s] = least_self;
}

struct state_key {
	double lb;
	long index;
};

static int cmp_state(const void *x, const void *y)
{
	const struct state_key *a = x, *b = y;
	if (a->lb != b->lb)
		return a->lb < b->lb ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

/* The state of mixed-radix index i (stream 0 the most significant). */
static void decode(struct occ *x, long i)
{
	for (int s = x->S - 1; s >= 0; s--) {
		x->grp[s] = (int)(i % x->o[s].n_groups);
		i /= x->o[s].n_groups;
	}
}

static long states(const struct occ *x)
{
	int n[BTC_MULTI_MAX_STREAMS];
	for (int s = 0; s < x->S; s++)
		n[s] = x->o[s].n_groups;
	return btc_multi_states_product(n, x->S);
}

static void search_states(struct occ *x)
{
	long n = 1;
	for (int s = 0; s < x->S; s++)
		n *= x->o[s].n_groups;
	struct state_key *k = btc_xcalloc((size_t)n, sizeof(*k));
	for (long i = 0; i < n; i++) {
		decode(x, i);
		set_state(x);
		k[i] = (struct state_key){.lb = fmax(bound(x, 0), btc_multi_occ_average(x, x->rest[0])),
					  .index = i};
	}
	qsort(k, (size_t)n, sizeof(*k), cmp_state);
	const struct btc_multi_problem *m = x->m;
	for (long i = 0; i < n; i++) {
		if (x->r->n == m->top_k && k[i].lb > x->r->c[m->top_k - 1].cost)
			break; /* this and every later state cost more than the K-th */
		decode(x, k[i].index);
		set_state(x);
		descend(x, 0);
	}
	free(k);
}

enum btc_status btc_multi_solve_occupancy(const struct btc_multi_problem *m,
					  struct btc_multi_result *r, struct btc_diag *d)
{
	if (m->objective == BTC_MULTI_SUM)
		return btc_multi_solve_bb(m, r, d);
	enum btc_status rc = btc_multi_begin(m, r, d);
	if (rc != BTC_OK)
		return rc;
	double t0 = btc_sched_now_ms();
	struct occ x = {.m = m, .r = r, .S = m->n_streams, .np = m->n_pus};
	int S = x.S, np = x.np;
	x.N = btc_multi_offset(m, S);
	x.o = btc_xcalloc((size_t)S, sizeof(*x.o));
	long counts[BTC_MULTI_MAX_STREAMS];
	for (int s = 0; s < S; s++) {
		build_stream(&x, s);
		counts[s] = x.o[s].opts.n;
	}
	if (!btc_multi_every_stream_placed(m, counts, d)) {
		rc = BTC_ERR_UNSAT;
	} else if (states(&x) > BTC_MULTI_OCC_STATES) {
		btc_error(d, (struct btc_loc){0},
			  "the workload has more than %ld occupancy states", BTC_MULTI_OCC_STATES);
		rc = BTC_ERR_LIMIT;
	} else {
		x.prev = btc_xcalloc((size_t)S, sizeof(int));
		x.io_cost = btc_multi_io_cost(m);
		for (int s = 0; s < S; s++) {
			x.prev[s] = btc_multi_prev_interchangeable(m, s);
			x.io_cost = fmax(x.io_cost, btc_multi_coeff(m, s) *
							btc_multi_options_least_self(&x.o[s].opts));
		}
		size_t sp = (size_t)S * (size_t)np;
		x.grp = btc_xcalloc((size_t)S, sizeof(int));
		x.sig = btc_xcalloc(sp, sizeof(double));
		x.least = btc_xcalloc(sp, sizeof(double));
		x.term = btc_xcalloc(sp, sizeof(double));
		x.min_total = btc_xcalloc((size_t)S, sizeof(double));
		x.min_sig = btc_xcalloc((size_t)S, sizeof(double));
		x.self = btc_xcalloc((size_t)S, sizeof(double));
		x.rest = btc_xcalloc((size_t)S + 1, sizeof(double));
		x.pick = btc_xcalloc((size_t)S, sizeof(int));
		x.ct = btc_xcalloc(sp, sizeof(double));
		x.own = btc_multi_larger(m) ? btc_xcalloc(sp, sizeof(double)) : NULL;
		x.t = btc_xcalloc(sp, sizeof(double));
		x.rate = btc_xcalloc((size_t)S, sizeof(double));
		x.a = btc_xcalloc((size_t)x.N, sizeof(int));
		x.buf = btc_xcalloc((size_t)S, sizeof(int *));
		for (int s = 0; s < S; s++) {
			int most = 1;
			for (int g = 0; g < x.o[s].n_groups; g++)
				most = x.o[s].g[g].n > most ? x.o[s].g[g].n : most;
			x.buf[s] = btc_xcalloc((size_t)most, sizeof(int));
		}
		r->c = btc_xcalloc((size_t)m->top_k, sizeof(*r->c));
		search_states(&x);
		free(x.prev);
		free(x.grp);
		free(x.sig);
		free(x.least);
		free(x.term);
		free(x.min_total);
		free(x.min_sig);
		free(x.self);
		free(x.rest);
		free(x.pick);
		free(x.ct);
		free(x.own);
		free(x.t);
		free(x.rate);
		free(x.a);
		for (int s = 0; s < S; s++)
			free(x.buf[s]);
		free(x.buf);
	}
	for (int s = 0; s < S; s++) {
		for (int g = 0; g < x.o[s].n_groups; g++) {
			free(x.o[s].g[g].opt);
			free(x.o[s].g[g].min);
			free(x.o[s].g[g].tot);
			free(x.o[s].g[g].by_pu);
			free(x.o[s].g[g].rank);
			free(x.o[s].g[g].vals);
			free(x.o[s].g[g].memo);
		}
		free(x.o[s].g);
		btc_multi_options_free(&x.o[s].opts);
	}
	free(x.o);
	r->solve_ms = btc_sched_now_ms() - t0;
	return rc;
}
