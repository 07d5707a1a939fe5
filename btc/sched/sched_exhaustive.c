/* BT-Optimizer's oracle: enumerates every schedule (chunk sequences with
 * distinct PUs, C1 and C2 by construction), keeps the K best under the
 * objective's total order. Independent of the Z3 encoding; shares only the
 * quantisation, the chunk cost (btc_sched_chunk_q, the twin of
 * btc_model_chunk_ms) and the orders (btc/sched/sched.c). */
#include "sched/optimizer.h"
#include "sched/space.h"

#include <stdlib.h>
#include <string.h>

struct enum_state {
	const struct btc_sched_problem *p;
	const struct btc_sched_prep *prep;
	const struct btc_sched_options *opt;
	int *a;   /* stage-to-PU vector being built */
	int kmax; /* most chunks allowed */
	/* pass 1 (bt): minimum gapness; pass 2: the K best */
	bool pass_gstar;
	int64_t gstar;
	bool filter_util; /* keep a*T_max - b*T_min <= b*G* only */
	int (*cmp)(const struct btc_schedule *, const struct btc_schedule *);
	bool by_gap;               /* selection key: gapness first */
	struct btc_schedule *best; /* sorted by cmp, at most k */
	int n_best, k;
	long visited;
	/* the larger space (prep->space): the chunk list being built and the
	 * units used of every PU */
	const struct btc_space *sp;
	int co[BTC_SCHED_MAX_PUS], cf[BTC_SCHED_MAX_PUS], cl[BTC_SCHED_MAX_PUS];
	int units[BTC_SCHED_MAX_PUS];
	bool farm;
};

static void leaf(struct enum_state *st, int n_chunks, int64_t qmax, int64_t qmin)
{
	st->visited++;
	if (st->sp ? !btc_space_candidate(n_chunks, st->farm) : n_chunks < 2)
		return;
	int64_t gap = qmax - qmin;
	if (st->pass_gstar) {
		if (gap < st->gstar)
			st->gstar = gap;
		return;
	}
	if (st->filter_util &&
	    st->prep->util_num * qmax - st->prep->util_den * qmin > st->prep->util_den * st->gstar)
		return;
	if (st->n_best == st->k) {
		/* Cheap rejection on the two time keys before building. */
		const struct btc_schedule *w = &st->best[st->k - 1];
		int64_t k1 = st->by_gap ? gap : qmax;
		int64_t k2 = st->by_gap ? qmax : gap;
		int64_t w1 = st->by_gap ? w->gap_q : w->tmax_q;
		int64_t w2 = st->by_gap ? w->tmax_q : w->gap_q;
		if (k1 > w1 || (k1 == w1 && k2 > w2))
			return;
	}
	struct btc_schedule s;
	if (st->sp)
		btc_space_schedule(st->p, st->sp, st->co, st->cf, st->cl, n_chunks, &s);
	else
		btc_sched_from_assignment(st->p, st->prep, st->a, &s);
	int pos = st->n_best;
	while (pos > 0 && st->cmp(&s, &st->best[pos - 1]) < 0)
		pos--;
	if (pos >= st->k)
		return;
	int last = st->n_best < st->k ? st->n_best : st->k - 1;
	memmove(&st->best[pos + 1], &st->best[pos], sizeof(s) * (size_t)(last - pos));
	st->best[pos] = s;
	if (st->n_best < st->k)
		st->n_best++;
}

/* Chunks start at stage `first`; `used` is the mask of PUs already used. */
static void extend(struct enum_state *st, int first, uint32_t used, int n_chunks, int64_t qmax,
		   int64_t qmin)
{
	int n = st->prep->n, np = st->prep->p;
	if (first == n) {
		leaf(st, n_chunks, qmax, qmin);
		return;
	}
	if (n_chunks == st->kmax)
		return;
	for (int c = 0; c < np; c++) {
		if (used & (1u << c))
			continue;
		int64_t stages = 0;
		for (int last = first; last < n; last++) {
			int64_t t = st->prep->tq[last * np + c];
			if (t < 0)
				break;
			stages += t;
			int64_t sum = btc_sched_chunk_q(st->prep, c, first, last, stages);
			st->a[last] = c;
			extend(st, last + 1, used | (1u << c), n_chunks + 1,
			       sum > qmax ? sum : qmax, sum < qmin ? sum : qmin);
		}
	}
}

/* The larger space: every option whose units are free, every range. */
static void extend_space(struct enum_state *st, int first, int n_chunks, int64_t qmax,
			 int64_t qmin)
{
	const struct btc_space *sp = st->sp;
	if (first == sp->n) {
		leaf(st, n_chunks, qmax, qmin);
		return;
	}
	if (n_chunks == st->kmax)
		return;
	for (int o = 0; o < sp->n_opts; o++) {
		bool fits = true;
		for (int c = 0; c < sp->p && fits; c++)
			fits = st->units[c] + btc_space_units(sp, o, c) <= sp->cap[c];
		if (!fits)
			continue;
		for (int c = 0; c < sp->p; c++)
			st->units[c] += btc_space_units(sp, o, c);
		bool farm = st->farm;
		st->farm = farm || sp->opts[o].farm;
		for (int last = first; last < sp->n; last++) {
			int64_t q = btc_space_cost(sp, o, first, last);
			if (q < 0)
				break;
			st->co[n_chunks] = o;
			st->cf[n_chunks] = first;
			st->cl[n_chunks] = last;
			extend_space(st, last + 1, n_chunks + 1, q > qmax ? q : qmax,
				     q < qmin ? q : qmin);
		}
		st->farm = farm;
		for (int c = 0; c < sp->p; c++)
			st->units[c] -= btc_space_units(sp, o, c);
	}
}

static void walk(struct enum_state *st)
{
	if (st->sp)
		extend_space(st, 0, 0, 0, INT64_MAX);
	else
		extend(st, 0, 0, 0, 0, INT64_MAX);
}

/* The solve of btc_sched_solve_exhaustive over the prepared problem (owns prep). */
static enum btc_status solve_prepared(const struct btc_sched_problem *p,
				      const struct btc_sched_options *opt,
				      struct btc_sched_prep *prep, struct btc_sched_result *res,
				      struct btc_diag *d, double t0)
{
	enum btc_status status;
	double count = btc_sched_count(p, opt);
	if (count > BTC_SCHED_EXHAUSTIVE_LIMIT) {
		btc_error(d, (struct btc_loc){0},
			  "schedule: the exhaustive solver is limited to %.0f "
			  "schedules; %d stages x %d PUs have %.3g: use "
			  "--solver z3",
			  BTC_SCHED_EXHAUSTIVE_LIMIT, p->n_stages, p->n_pus, count);
		btc_sched_prep_free(prep);
		return BTC_ERR_LIMIT;
	}
	struct btc_space sp;
	if (prep->space && (status = btc_space_build(p, opt, prep, &sp, d)) != BTC_OK) {
		btc_sched_prep_free(prep);
		return status;
	}
	btc_sched_result_begin(p, opt, prep, res);

	struct enum_state st = {
		.p = p,
		.prep = prep,
		.opt = opt,
		.a = btc_xcalloc((size_t)prep->n, sizeof(int)),
		.kmax = opt->max_chunks > 0 ? opt->max_chunks : prep->p,
		.k = opt->top_k,
		.sp = prep->space ? &sp : NULL,
	};
	if (st.sp)
		st.kmax = sp.kmax;
	st.best = btc_xcalloc((size_t)st.k, sizeof(*st.best));

	if (opt->objective == BTC_SCHED_BT) {
		st.pass_gstar = true;
		st.gstar = INT64_MAX;
		walk(&st);
		st.pass_gstar = false;
		st.filter_util = st.gstar != INT64_MAX;
		if (st.filter_util) {
			res->gstar_q = st.gstar;
			res->gstar_ms = (double)st.gstar * (double)prep->quantum_ns / 1e6;
		}
	}
	st.by_gap = opt->objective == BTC_SCHED_GAPNESS;
	st.cmp = st.by_gap ? btc_sched_cmp_gap : btc_sched_cmp_tmax;
	if (opt->objective != BTC_SCHED_BT || st.filter_util)
		walk(&st);
	if (st.by_gap)
		qsort(st.best, (size_t)st.n_best, sizeof(*st.best), btc_sched_qsort_tmax);

	res->candidates = st.best;
	res->n_candidates = st.n_best;
	res->n_checks = st.visited;
	free(st.a);
	if (prep->space)
		btc_space_free(&sp);
	btc_sched_prep_free(prep);
	res->solve_ms = btc_sched_now_ms() - t0;
	return BTC_OK;
}

enum btc_status btc_sched_solve_exhaustive(const struct btc_sched_problem *p,
					   const struct btc_sched_options *opt,
					   struct btc_sched_result *res, struct btc_diag *d)
{
	return btc_sched_solve_prepared(p, opt, res, d, solve_prepared);
}
