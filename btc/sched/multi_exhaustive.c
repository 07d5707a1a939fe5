/* The joint oracle (sched/multi.h): every stage-to-PU vector of every
 * stream, filtered to the contiguous ones, every canonical combination
 * costed. Plain enumeration, no pruning: the tests' reference for
 * btc_multi_solve. In the larger space (btc_multi_larger) every vector of
 * entries 0..2 n_opts - 1 (option and cut, multi_space.c), filtered to
 * the schedules by btc_multi_space_chunks: not the searches' chunk-by-chunk
 * walk. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/multi_internal.h"

static const struct btc_loc no_loc = {0};

/* The valid vectors of one stream with their chunk times and PU masks. */
struct stream_list {
	int n; /* vectors */
	int *a;       /* [n * n_stages] */
	double *ct;   /* [n * n_pus] */
	double *own;  /* [n * n_pus] */
	uint32_t *used;
};

/* The base of a stream's entries: PUs, or 2 x its options. */
static int base_of(const struct btc_multi_problem *m, int s)
{
	if (!btc_multi_larger(m))
		return m->n_pus;
	struct btc_multi_space T;
	btc_multi_space_build(m, s, &T);
	int n = 2 * T.n;
	btc_multi_space_free(&T);
	return n;
}

static bool odometer_next(int *a, int n, int base)
{
	for (int i = n - 1; i >= 0; i--) {
		if (++a[i] < base)
			return true;
		a[i] = 0;
	}
	return false;
}

static void list_stream(const struct btc_multi_problem *m, int s, struct stream_list *L)
{
	int n = m->streams[s].p->n_stages, np = m->n_pus;
	int *a = btc_xcalloc((size_t)n, sizeof(int));
	double *ct = btc_xcalloc((size_t)np, sizeof(double));
	double *own = btc_xcalloc((size_t)np, sizeof(double));
	int cap = 16;
	bool larger = btc_multi_larger(m);
	struct btc_multi_space T = {0};
	if (larger)
		btc_multi_space_build(m, s, &T);
	L->n = 0;
	L->a = btc_xmalloc((size_t)cap * (size_t)n * sizeof(int));
	L->ct = btc_xmalloc((size_t)cap * (size_t)np * sizeof(double));
	L->own = btc_xmalloc((size_t)cap * (size_t)np * sizeof(double));
	L->used = btc_xmalloc((size_t)cap * sizeof(uint32_t));
	do {
		uint32_t used;
		if (larger ? !btc_multi_space_chunks(m, s, &T, a, ct, own, &used)
			   : !btc_multi_stream_chunks(m, s, a, ct, own, &used))
			continue;
		if (L->n == cap) {
			cap *= 2;
			L->a = btc_xrealloc(L->a, (size_t)cap * (size_t)n * sizeof(int));
			L->ct = btc_xrealloc(L->ct, (size_t)cap * (size_t)np * sizeof(double));
			L->own = btc_xrealloc(L->own, (size_t)cap * (size_t)np * sizeof(double));
			L->used = btc_xrealloc(L->used, (size_t)cap * sizeof(uint32_t));
		}
		memcpy(L->a + (size_t)L->n * (size_t)n, a, (size_t)n * sizeof(int));
		memcpy(L->ct + (size_t)L->n * (size_t)np, ct, (size_t)np * sizeof(double));
		memcpy(L->own + (size_t)L->n * (size_t)np, own, (size_t)np * sizeof(double));
		L->used[L->n++] = used;
	} while (odometer_next(a, n, larger ? 2 * T.n : np));
	btc_multi_space_free(&T);
	free(a);
	free(ct);
	free(own);
}

static bool joint_next(int *idx, const struct stream_list *L, int S)
{
	for (int s = S - 1; s >= 0; s--) {
		if (++idx[s] < L[s].n)
			return true;
		idx[s] = 0;
	}
	return false;
}

enum btc_status btc_multi_solve_exhaustive(const struct btc_multi_problem *m,
					   struct btc_multi_result *r, struct btc_diag *d)
{
	enum btc_status rc = btc_multi_begin(m, r, d);
	if (rc != BTC_OK)
		return rc;
	double t0 = btc_sched_now_ms();
	int S = m->n_streams, np = m->n_pus, N = btc_multi_offset(m, S);
	double vectors = 0;
	for (int s = 0; s < S; s++)
		vectors += pow(base_of(m, s), m->streams[s].p->n_stages);
	if (vectors > BTC_SCHED_EXHAUSTIVE_LIMIT) {
		btc_error(d, no_loc, "exhaustive: %.0f stage-to-PU vectors exceed the limit %.0f",
			  vectors, BTC_SCHED_EXHAUSTIVE_LIMIT);
		return BTC_ERR_LIMIT;
	}
	struct stream_list *L = btc_xcalloc((size_t)S, sizeof(*L));
	long counts[BTC_MULTI_MAX_STREAMS];
	double joint = 1;
	for (int s = 0; s < S; s++) {
		list_stream(m, s, &L[s]);
		counts[s] = L[s].n;
		joint *= L[s].n;
	}
	rc = BTC_OK;
	if (!btc_multi_every_stream_placed(m, counts, d)) {
		rc = BTC_ERR_UNSAT;
	} else if (joint > BTC_SCHED_EXHAUSTIVE_LIMIT) {
		btc_error(d, no_loc, "exhaustive: %.0f joint schedules exceed the limit %.0f", joint,
			  BTC_SCHED_EXHAUSTIVE_LIMIT);
		rc = BTC_ERR_LIMIT;
	}
	if (rc == BTC_OK) {
		r->c = btc_xcalloc((size_t)m->top_k, sizeof(*r->c));
		int *idx = btc_xcalloc((size_t)S, sizeof(int));
		int *a = btc_xcalloc((size_t)N, sizeof(int));
		double *ct = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
		double *own = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
		double *t = btc_xcalloc((size_t)S * (size_t)np, sizeof(double));
		double *rate = btc_xcalloc((size_t)S, sizeof(double));
		uint32_t used[BTC_MULTI_MAX_STREAMS];
		do {
			for (int s = 0, off = 0; s < S; s++) {
				int n = m->streams[s].p->n_stages;
				memcpy(a + off, L[s].a + (size_t)idx[s] * (size_t)n,
				       (size_t)n * sizeof(int));
				memcpy(ct + s * np, L[s].ct + (size_t)idx[s] * (size_t)np,
				       (size_t)np * sizeof(double));
				memcpy(own + s * np, L[s].own + (size_t)idx[s] * (size_t)np,
				       (size_t)np * sizeof(double));
				used[s] = L[s].used[idx[s]];
				off += n;
			}
			if (!btc_multi_canonical(m, a))
				continue;
			double cost = btc_multi_cost(m, ct, btc_multi_larger(m) ? own : NULL, used,
						     t, rate);
			r->n_evaluated++;
			if (isfinite(cost))
				btc_multi_topk_insert(r, m->top_k, N, cost, a);
		} while (joint_next(idx, L, S));
		free(idx);
		free(a);
		free(ct);
		free(own);
		free(t);
		free(rate);
	}
	for (int s = 0; s < S; s++) {
		free(L[s].a);
		free(L[s].ct);
		free(L[s].own);
		free(L[s].used);
	}
	free(L);
	r->solve_ms = btc_sched_now_ms() - t0;
	return rc;
}
